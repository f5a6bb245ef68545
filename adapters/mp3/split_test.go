package mp3

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

func split(t *testing.T, data []byte) ([]string, string, error) {
	t.Helper()
	dir := t.TempDir()
	paths, err := Splitter{}.SplitChannels(context.Background(), bytes.NewReader(data), dir)
	return paths, dir, err
}

// readWAV checks the header is the one a 16 kHz mono 16-bit PCM file must
// have, sizes included, and returns the samples.
func readWAV(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:16]) != "WAVEfmt " || string(b[36:40]) != "data" ||
		int(le.Uint32(b[4:])) != len(b)-8 || le.Uint32(b[16:]) != 16 || le.Uint16(b[20:]) != 1 ||
		le.Uint16(b[22:]) != 1 || le.Uint32(b[24:]) != 16000 || le.Uint32(b[28:]) != 32000 ||
		le.Uint16(b[32:]) != 2 || le.Uint16(b[34:]) != 16 || int(le.Uint32(b[40:])) != len(b)-44 {
		t.Fatalf("%s: bad WAV header % x", path, b[:min(len(b), 44)])
	}
	s := make([]float64, (len(b)-44)/2)
	for i := range s {
		s[i] = float64(int16(le.Uint16(b[44+2*i:])))
	}
	return s
}

func rms(s []float64) float64 {
	sum := 0.0
	for _, v := range s {
		sum += v * v
	}
	return math.Sqrt(sum / float64(max(len(s), 1)))
}

// toneShare is the share of s's energy at freq (Goertzel over whole
// periods of a 16 kHz signal): near 1 for a clean tone.
func toneShare(s []float64, freq float64) float64 {
	w := 2 * math.Pi * freq / SpeechRate
	var re, im, total float64
	for i, v := range s {
		re += v * math.Cos(w*float64(i))
		im += v * math.Sin(w*float64(i))
		total += v * v
	}
	return 2 * (re*re + im*im) / float64(len(s)) / total
}

// Every decodable fixture splits into the right files, each lasting what
// Probe measures within a frame, with the content the fixture was made of.
// Tones come out clean, including from padded 22.05 kHz frames at
// 32 kbit/s and MPEG-2.5 (which go-mp3 v0.3.4 garbled or refused); the bar is
// what FFmpeg decodes, and 24 kbit/s at 11.025 kHz is noisy in itself
// (FFmpeg: 0.952 of the energy in the tone).
func TestSplitFixtures(t *testing.T) {
	checks := map[string]func(t *testing.T, ch [][]float64){
		"call-stereo-22k.mp3":  checkCall,
		"speech-mono-16k.mp3":  loud,
		"junk-prefix.mp3":      loud,
		"silence-mono-44k.mp3": func(t *testing.T, ch [][]float64) { checkRMS(t, ch[0], 0, 1) },
		"tone-mono-22k.mp3":    tones(0.999, 440),
		"tone-mono-11k.mp3":    tones(0.95, 440),
		"tone-mono-8k.mp3":     tones(0.95, 300), // 16 kbit/s: noisy in itself, like 11.025 kHz
		"id3-stereo-44k.mp3":   tones(0.999, 500, 750),
	}
	for _, c := range probeCases {
		t.Run(c.file, func(t *testing.T) {
			data := fixture(t, c.file)
			info, err := probe(t, bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			paths, dir, err := split(t, data)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{filepath.Join(dir, "mono.wav")}
			if c.channels == 2 {
				want = []string{filepath.Join(dir, "left.wav"), filepath.Join(dir, "right.wav")}
			}
			if !slices.Equal(paths, want) {
				t.Fatalf("paths %v, want %v", paths, want)
			}
			frame := float64(map[bool]int{true: 1152, false: 576}[c.rate >= 32000]) / float64(c.rate)
			var channels [][]float64
			for _, p := range paths {
				s := readWAV(t, p)
				if d := float64(len(s)) / SpeechRate; math.Abs(d-info.Duration) > frame {
					t.Errorf("%s lasts %.4f s, the MP3 %.4f s", filepath.Base(p), d, info.Duration)
				}
				channels = append(channels, s)
			}
			if check := checks[c.file]; check != nil {
				check(t, channels)
			}
		})
	}
}

// checkCall checks the call: the left speaker talks in the 1st and 3rd
// stretches of 1.5 s, the right one in the 2nd and 4th. 60 ms are left out
// at each edge, where the MP3 filter bank smears the onsets.
func checkCall(t *testing.T, ch [][]float64) {
	left, right := ch[0], ch[1]
	if len(left) != 6*SpeechRate || len(right) != len(left) {
		t.Fatalf("lengths %d and %d samples, want %d", len(left), len(right), 6*SpeechRate)
	}
	const stretch, margin = 24000, 960
	for k := range 4 {
		l, r := left[k*stretch+margin:(k+1)*stretch-margin], right[k*stretch+margin:(k+1)*stretch-margin]
		talk, quiet, freq := l, r, 440.0
		if k%2 == 1 {
			talk, quiet, freq = r, l, 660
		}
		checkRMS(t, talk, 10000, 13000) // the tone is at half scale: RMS 11585
		checkRMS(t, quiet, 0, 30)
		if share := toneShare(talk, freq); share < 0.99 {
			t.Errorf("stretch %d: %.0f Hz carries %.3f of the energy", k, freq, share)
		}
	}
}

func loud(t *testing.T, ch [][]float64) { checkRMS(t, ch[0], 500, 20000) }

func tones(share float64, freqs ...float64) func(t *testing.T, ch [][]float64) {
	return func(t *testing.T, ch [][]float64) {
		for i, s := range ch {
			s = s[800 : len(s)-800] // onsets and ends
			if got := toneShare(s, freqs[i]); got < share {
				t.Errorf("channel %d: %.0f Hz carries %.3f of the energy, want %.3f", i, freqs[i], got, share)
			}
		}
	}
}

func checkRMS(t *testing.T, s []float64, lo, hi float64) {
	t.Helper()
	if r := rms(s); r < lo || r > hi {
		t.Errorf("RMS %.1f, want %.0f to %.0f", r, lo, hi)
	}
}

func TestSplitRefuses(t *testing.T) {
	for file, want := range map[string]string{
		"tone.wav":      "the file is WAV audio, not MP3; only MP3 is supported",
		"truncated.mp3": "the MP3 file is truncated or corrupt: the file ends after 1 complete audio frame while its Info header announces 78",
		"random.bin":    "the file is not MP3 audio (no MPEG audio frames found)",
		"empty.mp3":     "the file is empty",
	} {
		paths, dir, err := split(t, fixture(t, file))
		if err == nil || err.Error() != want || !domain.IsPermanent(err) || paths != nil {
			t.Errorf("%s: got %v, %v; want permanent %q", file, paths, err, want)
		}
		assertEmpty(t, dir)
	}
}

func TestSplitTransientErrors(t *testing.T) {
	boom := errors.New("connection reset")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, c := range map[string]struct {
		ctx  context.Context
		r    io.Reader
		want error
	}{
		"read error": {context.Background(), io.MultiReader(bytes.NewReader(fixture(t, "call-stereo-22k.mp3")[:20000]), iotest.ErrReader(boom)), boom},
		"canceled":   {ctx, cbrStream(time.Minute), context.Canceled},
	} {
		dir := t.TempDir()
		paths, err := Splitter{}.SplitChannels(c.ctx, c.r, dir)
		if !errors.Is(err, c.want) || domain.IsPermanent(err) || paths != nil {
			t.Errorf("%s: got %v, %v; want %v", name, paths, err, c.want)
		}
		assertEmpty(t, dir)
	}
}

func assertEmpty(t *testing.T, dir string) {
	t.Helper()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%s still holds %v", dir, left)
	}
}
