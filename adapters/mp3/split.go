package mp3

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"

	gomp3 "github.com/hyscribe/hyscribe/adapters/mp3/internal/gomp3"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.ChannelSplitter = Splitter{}

// SpeechRate is the sample rate of the WAV files Splitter writes.
const SpeechRate = 16000

// decoderDelay is the delay of the standard MP3 synthesis filter bank, in
// samples: LAME's gapless fields assume a decoder skips it along with the
// encoder delay.
const decoderDelay = 529

// Splitter decodes MP3 files into one 16 kHz WAV file per channel. The zero
// value is ready.
type Splitter struct{}

// SplitChannels decodes the MP3 in r and writes its channels to dir as
// 16 kHz, 16-bit mono WAV files: mono.wav for a mono recording, left.wav
// and right.wav for any stereo mode. Existing files of those names are
// replaced. LAME's encoder delay and padding are trimmed, so the files last
// what Prober measures and times in them are times in the recording.
//
// Memory stays constant: frames are decoded, resampled and written one at a
// time. Audio that cannot be decoded is a domain.Permanent error; nothing is left in dir
// after an error.
func (Splitter) SplitChannels(ctx context.Context, r io.Reader, dir string) (paths []string, err error) {
	var outs []*channelOut
	defer func() {
		for _, o := range outs {
			if o != nil && err != nil {
				_ = o.w.f.Close() // the split failed (err is returned) and the file is removed
				os.Remove(o.w.f.Name())
			}
		}
	}()
	open := func(st start) error {
		names := []string{"mono.wav"}
		if st.ref.channels() == 2 {
			names = []string{"left.wav", "right.wav"}
		}
		for _, name := range names {
			w, err := createWAV(filepath.Join(dir, name), SpeechRate)
			if err != nil {
				return fmt.Errorf("mp3.SplitChannels: %w", err)
			}
			outs = append(outs, &channelOut{w: w, rs: newResampler(st.ref.sampleRate, SpeechRate)})
			paths = append(paths, w.f.Name())
		}
		return nil
	}
	if err := decodePCM(ctx, r, open, func(pcm []byte) error { return emit(pcm, outs) }); err != nil {
		return nil, err
	}
	for _, o := range outs {
		o.pcm = o.rs.flush(o.pcm[:0])
		if err := o.w.write(o.pcm); err != nil {
			return nil, fmt.Errorf("mp3.SplitChannels: %w", err)
		}
		if err := o.w.close(); err != nil {
			return nil, fmt.Errorf("mp3.SplitChannels: %w", err)
		}
	}
	return paths, nil
}

// decodePCM decodes the MP3 in r: open learns what the stream is before
// any audio, then sink receives its interleaved 16-bit stereo PCM (a mono
// stream has both channels equal) at the stream's own rate, LAME's encoder
// delay and padding trimmed. Errors of the file are domain.Permanent.
func decodePCM(ctx context.Context, r io.Reader, open func(start) error, sink func(pcm []byte) error) error {
	s := newScanner(ctx, r)
	defer s.release()
	st, err := s.begin()
	if err != nil {
		return splitError(err)
	}
	if err := checkLayer(st.ref); err != nil {
		return err
	}
	src := newFrameSource(s)
	dec, err := newDecoder(src)
	if err != nil {
		if src.err != nil {
			return splitError(src.err)
		}
		return domain.UndecodableMP3(err)
	}
	if err := open(st); err != nil {
		return err
	}
	t := newTrimmer(st.tag)
	if err := decode(ctx, dec, src, st.ref, t, sink); err != nil {
		return err
	}
	if err := t.finish(st.tag, src.frames, sink); err != nil {
		return fmt.Errorf("mp3.SplitChannels: %w", err)
	}
	return nil
}

// channelOut is one channel on its way to its file.
type channelOut struct {
	w   *wavWriter
	rs  *resampler
	in  []float64
	pcm []int16
}

// decode runs go-mp3 over src to its end. A frame go-mp3 fails on (corrupt
// data that still looked like a frame) becomes a frame of silence, so later
// times stay right; a stream that fails too often is refused.
func decode(ctx context.Context, dec *gomp3.Decoder, src *frameSource, ref header, t *trimmer, sink func([]byte) error) error {
	buf := make([]byte, 4*1152*4) // go-mp3 gives 4 bytes per stereo sample
	var bad int64
	for {
		// Decoding is slow enough (about a millisecond a frame) to look at
		// the context every time.
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mp3.SplitChannels: %w", err)
		}
		n, err := read(dec, buf)
		if n > 0 {
			if werr := t.push(buf[:n], sink); werr != nil {
				return fmt.Errorf("mp3.SplitChannels: %w", werr)
			}
		}
		switch {
		case src.err != nil:
			return splitError(src.err)
		case err == io.EOF:
			return nil
		case err != nil:
			if bad++; bad > 10 && bad*10 > src.frames {
				return domain.UndecodableMP3(err)
			}
			if werr := t.push(make([]byte, 4*ref.samples), sink); werr != nil {
				return fmt.Errorf("mp3.SplitChannels: %w", werr)
			}
		}
	}
}

// newDecoder and read call go-mp3, which panics on some corrupt frames (an
// index out of range while reading MPEG-2 scale factors, for one): an upload
// must not bring the worker down. The panic comes after the frame's bytes
// were consumed, so decoding can go on with the next frame.
func newDecoder(src io.Reader) (dec *gomp3.Decoder, err error) {
	defer recoverDecoder(&err)
	return gomp3.NewDecoder(src)
}

func read(dec *gomp3.Decoder, buf []byte) (n int, err error) {
	defer recoverDecoder(&err)
	return dec.Read(buf)
}

// recoverDecoder turns a panic of go-mp3 into an error.
func recoverDecoder(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("corrupt frame: %v", r)
	}
}

// trimmer removes the encoder delay and padding LAME's tag declares from the
// decoded stereo PCM: delay plus the decoder's own delay at the start, and
// at the end padding less the decoder delay, held back until the end shows
// whether the encoder's last frame is there (a cut file keeps its tail).
type trimmer struct {
	skip int    // stereo samples still to drop at the start
	hold int    // stereo samples kept back at the end
	tail []byte // held-back PCM, at most hold samples
}

func newTrimmer(tag *infoTag) *trimmer {
	t := &trimmer{}
	if tag != nil && tag.hasGap {
		t.skip = tag.delay + decoderDelay
		t.hold = max(tag.padding-decoderDelay, 0)
	}
	return t
}

func (t *trimmer) push(pcm []byte, sink func([]byte) error) error {
	drop := min(t.skip, len(pcm)/4)
	t.skip -= drop
	pcm = pcm[4*drop:]
	if t.hold == 0 {
		return sink(pcm)
	}
	t.tail = append(t.tail, pcm...)
	if over := len(t.tail) - 4*t.hold; over > 0 {
		if err := sink(t.tail[:over]); err != nil {
			return err
		}
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
	return nil
}

// finish emits the held-back tail unless the stream ended where the encoder
// ended it, in which case the tail is padding.
func (t *trimmer) finish(tag *infoTag, frames int64, sink func([]byte) error) error {
	if tag != nil && tag.frames == frames {
		return nil
	}
	return sink(t.tail)
}

// emit splits interleaved 16-bit stereo PCM into channels, resamples and
// writes them. A mono source has both channels equal; only the first is
// written.
func emit(pcm []byte, outs []*channelOut) error {
	for ch, o := range outs {
		o.in = o.in[:0]
		for i := 2 * ch; i+1 < len(pcm); i += 4 {
			o.in = append(o.in, float64(int16(binary.LittleEndian.Uint16(pcm[i:]))))
		}
		o.pcm = o.rs.push(o.in, o.pcm[:0])
		if err := o.w.write(o.pcm); err != nil {
			return err
		}
	}
	return nil
}

// splitError wraps errors that are not the customer's file's fault.
func splitError(err error) error {
	if domain.IsPermanent(err) {
		return err
	}
	return fmt.Errorf("mp3.SplitChannels: %w", err)
}
