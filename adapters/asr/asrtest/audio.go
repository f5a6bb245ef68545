package asrtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hajimehoshi/go-mp3"
)

// signal is mono audio, samples in [-1, 1].
type signal struct {
	rate    int
	samples []float64
}

func (s signal) duration() float64 { return float64(len(s.samples)) / float64(s.rate) }

// maxDecoded bounds the audio the fake decodes: it is for short test files.
const maxDecoded = 10 * 60 // seconds

// decodeWAV reads 16-bit PCM WAV (plain or WAVE_FORMAT_EXTENSIBLE), mixing
// the channels down.
func decodeWAV(b []byte) (signal, error) {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return signal{}, errors.New("not a RIFF/WAVE file")
	}
	var channels, bits, format int
	var rate int
	var data []byte
	haveFmt, haveData := false, false
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:p+8]))
		body := b[p+8:]
		if size < 0 || size > len(body) {
			size = len(body) // streamed WAVs leave the size unset
		}
		body = body[:size]
		switch id {
		case "fmt ":
			if size < 16 {
				return signal{}, errors.New("short fmt chunk")
			}
			format = int(binary.LittleEndian.Uint16(body[0:2]))
			channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if format == 0xFFFE && size >= 26 {
				format = int(binary.LittleEndian.Uint16(body[24:26])) // the sub-format GUID starts with it
			}
			haveFmt = true
		case "data":
			data, haveData = body, true
		}
		p += 8 + size + size%2
	}
	switch {
	case !haveFmt || !haveData:
		return signal{}, errors.New("WAV without fmt or data chunk")
	case format != 1 || bits != 16:
		return signal{}, fmt.Errorf("WAV format %d with %d bits; only 16-bit PCM is supported", format, bits)
	case channels < 1 || rate < 1000:
		return signal{}, fmt.Errorf("WAV with %d channels at %d Hz", channels, rate)
	}
	frames := len(data) / (2 * channels)
	if frames > maxDecoded*rate {
		return signal{}, fmt.Errorf("WAV longer than %d s", maxDecoded)
	}
	return mixdown(data, channels, rate), nil
}

// decodeMP3 decodes with go-mp3, whose output is 16-bit stereo.
func decodeMP3(b []byte) (signal, error) {
	d, err := mp3.NewDecoder(bytes.NewReader(b))
	if err != nil {
		return signal{}, err
	}
	limit := int64(maxDecoded * d.SampleRate() * 4)
	pcm, err := io.ReadAll(io.LimitReader(d, limit+1))
	if err != nil {
		return signal{}, err
	}
	if int64(len(pcm)) > limit {
		return signal{}, fmt.Errorf("MP3 longer than %d s", maxDecoded)
	}
	sig := mixdown(pcm, 2, d.SampleRate())
	lead, tail := mp3Delays(b)
	sig.samples = sig.samples[min(lead, len(sig.samples)):]
	sig.samples = sig.samples[:len(sig.samples)-min(tail, len(sig.samples))]
	return sig, nil
}

// MP3 decoding starts late: the synthesis filter bank delays the audio by
// 529 samples and encoders put their own delay (LAME and ffmpeg: 576
// samples) in front. go-mp3 plays both, and an Info/Xing header frame as
// silence too, so times would come out 50-100 ms late; real engines trim
// them, as gapless players do, and so does this fake.
const (
	decoderDelay = 529
	lameDelay    = 576
)

// mp3Delays returns the samples to drop at the start and at the end of the
// decoded audio, reading the encoder's delay and padding from the LAME tag of
// an Info/Xing frame when there is one.
func mp3Delays(b []byte) (lead, tail int) {
	p := 0
	if len(b) >= 10 && string(b[:3]) == "ID3" {
		size := int(b[6]&0x7f)<<21 | int(b[7]&0x7f)<<14 | int(b[8]&0x7f)<<7 | int(b[9]&0x7f)
		p = 10 + size
		if b[5]&0x10 != 0 {
			p += 10 // footer
		}
	}
	for ; p+4 <= len(b); p++ { // the first frame sync
		if b[p] == 0xff && b[p+1]&0xe0 == 0xe0 && (b[p+1]>>1)&3 == 1 {
			break
		}
	}
	if p+4 > len(b) {
		return decoderDelay + lameDelay, 0
	}
	mpeg1 := (b[p+1]>>3)&3 == 3
	mono := b[p+3]>>6 == 3
	frameSamples, side := 576, 17
	switch {
	case mpeg1 && mono:
		frameSamples, side = 1152, 17
	case mpeg1:
		frameSamples, side = 1152, 32
	case mono:
		side = 9
	}
	x := p + 4 + side
	if x+8 > len(b) || (string(b[x:x+4]) != "Xing" && string(b[x:x+4]) != "Info") {
		return decoderDelay + lameDelay, 0
	}
	flags := binary.BigEndian.Uint32(b[x+4:])
	t := x + 8
	for bit, size := range []int{4, 4, 100, 4} { // frames, bytes, TOC, quality
		if flags&(1<<bit) != 0 {
			t += size
		}
	}
	lead = frameSamples + decoderDelay + lameDelay // the header frame decodes as silence
	if t+24 <= len(b) {
		// LAME tag: 9 bytes encoder, then revision, lowpass, 8 bytes replay
		// gain, flags, bitrate; then 12 bits of delay and 12 of padding.
		d := t + 21
		delay := int(b[d])<<4 | int(b[d+1])>>4
		padding := int(b[d+1]&0x0f)<<8 | int(b[d+2])
		if delay > 0 && delay < 3000 {
			lead = frameSamples + decoderDelay + delay
			tail = max(padding-decoderDelay, 0)
		}
	}
	return lead, tail
}

func mixdown(pcm []byte, channels, rate int) signal {
	frames := len(pcm) / (2 * channels)
	s := signal{rate: rate, samples: make([]float64, frames)}
	for i := range frames {
		var sum float64
		for c := range channels {
			o := 2 * (i*channels + c)
			sum += float64(int16(binary.LittleEndian.Uint16(pcm[o:])))
		}
		s.samples[i] = sum / float64(channels) / 32768
	}
	return s
}

// Frame and gap of the sound detector.
const (
	frameSeconds = 0.010
	mergeGap     = 0.300
)

// stretches finds where the signal is loud: 10 ms frames whose RMS exceeds
// threshold, joined across gaps shorter than 300 ms. Times in seconds.
func stretches(s signal, threshold float64) [][2]float64 {
	d := newDetector(s.rate, threshold)
	for _, v := range s.samples {
		d.push(v)
	}
	return d.finish()
}

// detector is stretches over a stream of samples, in constant memory.
type detector struct {
	rate, frame int
	threshold   float64
	n           int     // samples seen
	sum         float64 // squares of the current frame's samples
	out         [][2]float64
}

func newDetector(rate int, threshold float64) *detector {
	return &detector{rate: rate, frame: max(int(float64(rate)*frameSeconds), 1), threshold: threshold}
}

func (d *detector) push(v float64) {
	d.sum += v * v
	d.n++
	if d.n%d.frame == 0 {
		d.close(d.frame)
	}
}

// close ends the current frame of k samples.
func (d *detector) close(k int) {
	loud := math.Sqrt(d.sum/float64(k)) > d.threshold
	d.sum = 0
	if !loud {
		return
	}
	t0, t1 := float64(d.n-k)/float64(d.rate), float64(d.n)/float64(d.rate)
	if n := len(d.out); n > 0 && t0-d.out[n-1][1] < mergeGap {
		d.out[n-1][1] = t1
		return
	}
	d.out = append(d.out, [2]float64{t0, t1})
}

func (d *detector) finish() [][2]float64 {
	if k := d.n % d.frame; k > 0 {
		d.close(k)
	}
	return d.out
}

func (d *detector) duration() float64 { return float64(d.n) / float64(d.rate) }

// wavStream analyses a 16-bit PCM WAV file as it is written to it, so that
// WAVs of any length are answered without being kept: a stereo call's
// channel is 115 MB an hour.
type wavStream struct {
	threshold float64
	head      []byte // the file until its samples begin
	channels  int
	left      int64 // bytes of samples still to come; -1: to the end
	frame     []byte
	det       *detector
	err       error
}

func (w *wavStream) Write(p []byte) (int, error) {
	n := len(p)
	if w.err != nil {
		return n, nil
	}
	if w.det == nil {
		w.head = append(w.head, p...)
		p = w.parse()
		if w.det == nil || w.err != nil {
			return n, nil
		}
	}
	if w.left >= 0 {
		p = p[:min(int64(len(p)), w.left)]
		w.left -= int64(len(p))
	}
	for _, c := range p {
		w.frame = append(w.frame, c)
		if len(w.frame) == 2*w.channels {
			var sum float64
			for i := 0; i < len(w.frame); i += 2 {
				sum += float64(int16(binary.LittleEndian.Uint16(w.frame[i:])))
			}
			w.det.push(sum / float64(w.channels) / 32768)
			w.frame = w.frame[:0]
		}
	}
	return n, nil
}

// parse reads the header once enough of it has come; it returns the
// samples that came with it.
func (w *wavStream) parse() []byte {
	b := w.head
	if len(b) < 12 {
		return nil
	}
	if string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		w.err = errors.New("not a RIFF/WAVE file")
		return nil
	}
	rate, bits, format := 0, 0, 0
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int64(binary.LittleEndian.Uint32(b[p+4:p+8]))
		if id == "data" {
			switch {
			case rate == 0:
				w.err = errors.New("WAV without fmt or data chunk")
			case format != 1 || bits != 16:
				w.err = fmt.Errorf("WAV format %d with %d bits; only 16-bit PCM is supported", format, bits)
			case w.channels < 1 || rate < 1000:
				w.err = fmt.Errorf("WAV with %d channels at %d Hz", w.channels, rate)
			}
			if w.err != nil {
				return nil
			}
			w.left = size
			if size == 0 || size == math.MaxUint32 {
				w.left = -1 // streamed WAVs leave the size unset
			}
			w.det = newDetector(rate, w.threshold)
			rest := b[p+8:]
			w.head = nil
			return rest
		}
		if int64(len(b)) < int64(p)+8+size {
			return nil // the chunk has not all come yet
		}
		if id == "fmt " {
			if size < 16 {
				w.err = errors.New("short fmt chunk")
				return nil
			}
			body := b[p+8:]
			format = int(binary.LittleEndian.Uint16(body[0:2]))
			w.channels = int(binary.LittleEndian.Uint16(body[2:4]))
			rate = int(binary.LittleEndian.Uint32(body[4:8]))
			bits = int(binary.LittleEndian.Uint16(body[14:16]))
			if format == 0xFFFE && size >= 26 {
				format = int(binary.LittleEndian.Uint16(body[24:26]))
			}
		}
		p += 8 + int(size+size%2)
	}
	if len(b) > 1<<20 {
		w.err = errors.New("WAV without fmt or data chunk")
	}
	return nil
}

// result is the analysis of the whole file.
func (w *wavStream) result() ([][2]float64, float64, error) {
	switch {
	case w.err != nil:
		return nil, 0, w.err
	case w.det == nil:
		return nil, 0, errors.New("WAV without fmt or data chunk")
	}
	return w.det.finish(), w.det.duration(), nil
}

// Tone is a stretch of a 440 Hz tone at half of full scale, in seconds.
type Tone struct {
	Start, End float64
	Channel    int // 0 for the first channel; negative for all of them
}

// WAV generates a 16-bit PCM WAV file of the given length, silent except for
// the tones: synthetic speech for tests.
func WAV(sampleRate, channels int, seconds float64, tones ...Tone) []byte {
	channels = max(channels, 1)
	frames := int(seconds * float64(sampleRate))
	data := make([]byte, frames*channels*2)
	for _, t := range tones {
		from := max(int(t.Start*float64(sampleRate)), 0)
		to := min(int(t.End*float64(sampleRate)), frames)
		for i := from; i < to; i++ {
			v := int16(0.5 * 32767 * math.Sin(2*math.Pi*440*float64(i)/float64(sampleRate)))
			for c := range channels {
				if t.Channel < 0 || t.Channel == c {
					binary.LittleEndian.PutUint16(data[2*(i*channels+c):], uint16(v))
				}
			}
		}
	}
	var b bytes.Buffer
	b.Grow(44 + len(data))
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(36+len(data)))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{
		uint32(16), uint16(1), uint16(channels), uint32(sampleRate),
		uint32(sampleRate * channels * 2), uint16(channels * 2), uint16(16),
	} {
		_ = binary.Write(&b, binary.LittleEndian, v) // a bytes.Buffer never fails
	}
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, uint32(len(data)))
	b.Write(data)
	return b.Bytes()
}
