package mp3

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hyscribe/hyscribe/internal/testenv"
)

// needTools checks that the named programs are installed; a missing one
// stops the test through testenv.Missing (a failure under CI).
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		testenv.LookPath(t, n, ".ci/deps.sh installs it")
	}
}

// referenceSignal is two seconds of a speech-like test signal at rate: a
// gliding harmonic tone with a syllabic envelope plus some noise, different
// on the two channels (channel 1 leads by a different glide and is 6 dB
// quieter) so that stereo, joint-stereo and dual-channel coding are all
// exercised. Deterministic.
func referenceSignal(rate, channels int) []int16 {
	n := 2 * rate
	out := make([]int16, n*channels)
	seed := uint32(12345)
	for i := range n {
		tt := float64(i) / float64(rate)
		env := 0.55 + 0.45*math.Sin(2*math.Pi*4*tt)
		for ch := range channels {
			f0 := 140 + 60*math.Sin(2*math.Pi*0.7*tt+float64(ch))
			if ch == 1 {
				f0 *= 1.6
			}
			v := 0.0
			for h := 1; h <= 12; h++ {
				if float64(h)*f0 < 0.45*float64(rate) {
					v += math.Sin(2*math.Pi*float64(h)*f0*tt*(1+0.002*float64(ch))) / float64(h)
				}
			}
			seed = seed*1664525 + 1013904223
			noise := float64(int32(seed)) / (1 << 31)
			v = env*v*0.3 + 0.02*noise
			if ch == 1 {
				v *= 0.5
			}
			out[i*channels+ch] = int16(max(-32767, min(32767, v*32767)))
		}
	}
	return out
}

func writeRawWAV(t *testing.T, path string, rate, channels int, pcm []int16) {
	t.Helper()
	le := binary.LittleEndian
	size := 2 * len(pcm)
	b := []byte("RIFF")
	b = le.AppendUint32(b, uint32(36+size))
	b = append(b, "WAVEfmt "...)
	b = le.AppendUint32(b, 16)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, uint16(channels))
	b = le.AppendUint32(b, uint32(rate))
	b = le.AppendUint32(b, uint32(rate*channels*2))
	b = le.AppendUint16(b, uint16(channels*2))
	b = le.AppendUint16(b, 16)
	b = append(b, "data"...)
	b = le.AppendUint32(b, uint32(size))
	for _, v := range pcm {
		b = le.AppendUint16(b, uint16(v))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// decodeNative decodes data as SplitChannels does (scanner, ffmpeg fed the
// frames the scanner counts, trimmer) short of the resampling and returns
// one slice per channel at the stream's rate.
func decodeNative(data []byte) (channels [][]int16, rate int, err error) {
	var nch int
	open := func(st start) error {
		nch, rate = st.ref.channels(), st.ref.sampleRate
		channels = make([][]int16, nch)
		return nil
	}
	sink := func(pcm []byte) error {
		for i := 0; i+2*nch <= len(pcm); i += 2 * nch {
			for ch := range nch {
				channels[ch] = append(channels[ch], int16(binary.LittleEndian.Uint16(pcm[i+2*ch:])))
			}
		}
		return nil
	}
	err = decodePCM(context.Background(), Splitter{}, bytes.NewReader(data), open, sink)
	return channels, rate, err
}

// ffmpegPCM decodes path with Debian's ffmpeg into one slice per channel:
// ffmpeg reading the file itself, its tags, Info frame and LAME's gapless
// fields included, independently of this package's scanner and trimmer.
func ffmpegPCM(t *testing.T, path string, channels int) [][]int16 {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "s16le", "-acodec", "pcm_s16le", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg %s: %v", path, err)
	}
	pcm := make([][]int16, channels)
	for i := 0; i+2*channels <= len(out); i += 2 * channels {
		for ch := range channels {
			pcm[ch] = append(pcm[ch], int16(binary.LittleEndian.Uint16(out[i+2*ch:])))
		}
	}
	return pcm
}

// snr is the signal-to-noise ratio of got against ref in dB over their
// common length.
func snr(ref, got []int16) float64 {
	var sig, noise float64
	for i := range min(len(ref), len(got)) {
		r, d := float64(ref[i]), float64(got[i])-float64(ref[i])
		sig += r * r
		noise += d * d
	}
	if noise == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(sig/noise)
}

// referenceCase is one file of the generated corpus.
type referenceCase struct {
	rate int
	mode string // LAME's -m: m mono, s stereo, j joint stereo, d dual channel
	args []string
}

func referenceCorpus() []referenceCase {
	var cs []referenceCase
	for _, rate := range mp3Rates {
		// A bitrate every rate takes: MPEG-2.5 stops at 64 kbit/s (LAME's
		// limit at 8 kHz), MPEG-1 starts at 32.
		br := map[bool]string{true: "128", false: "48"}[rate >= 32000]
		if rate == 8000 {
			br = "24"
		}
		for _, mode := range []string{"m", "s", "j", "d"} {
			cs = append(cs, referenceCase{rate, mode, []string{"-b", br}})
		}
		// VBR, joint stereo and mono: what phones and recorders write most.
		cs = append(cs, referenceCase{rate, "j", []string{"-V", "5"}}, referenceCase{rate, "m", []string{"-V", "7"}})
	}
	return cs
}

// TestDecodeMatchesFFmpeg decodes a generated corpus of every MPEG-1, 2 and
// 2.5 layer III sample rate (8 to 48 kHz) in mono, stereo, joint-stereo and
// dual-channel mode, CBR and VBR, encoded by LAME, as SplitChannels does
// (the scanner picks the frames, ffmpeg decodes them from a pipe, this
// package trims LAME's delay and padding) and compares the PCM with what
// Debian's ffmpeg decodes from the same file on its own. Both use one
// decoder, so what this checks is the adapter around it: every frame
// reaches the decoder, in order, once, and the trimming is ffmpeg's. The
// sample counts must be equal, and equal to the duration Prober measures
// and bills, and the PCM must be the same, sample for sample, on every
// channel (the SNR is logged to show how far off a failure is: a lost,
// repeated or shifted frame falls below 20 dB).
func TestDecodeMatchesFFmpeg(t *testing.T) {
	needTools(t, "ffmpeg", "lame")
	dir := t.TempDir()
	for _, c := range referenceCorpus() {
		name := fmt.Sprintf("%d-%s-%s%s", c.rate, c.mode, c.args[0][1:], c.args[1])
		t.Run(name, func(t *testing.T) {
			chans := map[bool]int{true: 1, false: 2}[c.mode == "m"]
			wav := filepath.Join(dir, name+".wav")
			mp3 := filepath.Join(dir, name+".mp3")
			writeRawWAV(t, wav, c.rate, chans, referenceSignal(c.rate, chans))
			args := append([]string{"--quiet", "-m", c.mode, "--resample", fmt.Sprint(float64(c.rate) / 1000)}, c.args...)
			if out, err := exec.Command("lame", append(args, wav, mp3)...).CombinedOutput(); err != nil {
				t.Fatalf("lame: %v: %s", err, out)
			}
			data, err := os.ReadFile(mp3)
			if err != nil {
				t.Fatal(err)
			}
			got, rate, err := decodeNative(data)
			if err != nil {
				t.Fatal(err)
			}
			if rate != c.rate || len(got) != chans {
				t.Fatalf("decoded %d channels at %d Hz, want %d at %d", len(got), rate, chans, c.rate)
			}
			info, err := Prober{}.Probe(context.Background(), bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			ref := ffmpegPCM(t, mp3, chans)
			for ch := range chans {
				if len(got[ch]) != len(ref[ch]) || math.Abs(float64(len(got[ch]))/float64(rate)-info.Duration) > 0.5/float64(rate) {
					t.Errorf("channel %d: %d samples, ffmpeg %d, measured %.6f s (%.1f samples)", ch, len(got[ch]), len(ref[ch]), info.Duration, info.Duration*float64(rate))
				}
				if !slices.Equal(got[ch], ref[ch]) {
					t.Errorf("channel %d: PCM differs from ffmpeg's, SNR %.1f dB", ch, snr(ref[ch], got[ch]))
				}
			}
		})
	}
}
