package diarize

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/domain"
)

// decode turns a fixture into the 16 kHz WAV a job diarizes.
func decode(t testing.TB, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "audio", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	paths, err := mp3.Splitter{}.SplitChannels(context.Background(), f, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return paths[0]
}

// The known turns of call-mono-16k.mp3 (testdata/audio/README.md), shifted
// by LAME's encoder delay, which the file has no tag to remove.
var callTurns = func() []domain.Turn {
	const delay = (576 + 529) / 16000.0
	ts := []domain.Turn{tn(0.30, 4.79, "1"), tn(5.39, 10.22, "2"), tn(10.82, 12.96, "1"), tn(13.56, 16.48, "2")}
	for i := range ts {
		ts[i].Start += delay
		ts[i].End += delay
	}
	return ts
}()

func TestDiarizeTwoSpeakerMonoCall(t *testing.T) {
	turns, err := New().Diarize(context.Background(), decode(t, "call-mono-16k.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("turns: %v", turns)
	if len(turns) != 4 {
		t.Fatalf("want 4 turns, got %v", turns)
	}
	for i, tr := range turns {
		if tr.Speaker != turns[i%2].Speaker || (i > 0 && tr.Speaker == turns[i-1].Speaker) {
			t.Fatalf("turns do not alternate between two speakers: %v", turns)
		}
		if i > 0 && tr.Start < turns[i-1].End {
			t.Fatalf("turns overlap: %v", turns)
		}
	}
	r := DER(callTurns, turns, 0.25)
	if r.Rate() > 0.05 {
		t.Fatalf("DER %.1f%% (%+v), want ≤ 5%%", 100*r.Rate(), r)
	}
}

func TestNoSpeech(t *testing.T) {
	d := New()
	silence := decode(t, "silence-mono-44k.mp3")
	noise := writeWAV(t, 3, func(i int, r *rand.Rand) float64 { return 0.05 * (r.Float64()*2 - 1) })
	hum := writeWAV(t, 3, func(i int, _ *rand.Rand) float64 { return 0.3 * math.Sin(2*math.Pi*50*float64(i)/rate) })
	for name, path := range map[string]string{"digital silence": silence, "steady hiss": noise, "mains hum": hum} {
		t.Run(name, func(t *testing.T) {
			turns, err := d.Diarize(context.Background(), path)
			if err != nil || len(turns) != 0 {
				t.Fatalf("Diarize = %v, %v; want no turns", turns, err)
			}
			spans, err := d.Speech(context.Background(), path)
			if err != nil || len(spans) != 0 {
				t.Fatalf("Speech = %v, %v; want none", spans, err)
			}
		})
	}
}

func TestSpeechIgnoresLeadingAndTrailingSilence(t *testing.T) {
	// 2 s of silence, 1 s of a warbling tone (speech-like), 3 s of silence.
	path := writeWAV(t, 6, func(i int, _ *rand.Rand) float64 {
		ts := float64(i) / rate
		if ts < 2 || ts >= 3 {
			return 0
		}
		return 0.3 * math.Sin(2*math.Pi*(200+50*math.Sin(2*math.Pi*4*ts))*ts)
	})
	spans, err := New().Speech(context.Background(), path)
	if err != nil || len(spans) != 1 {
		t.Fatalf("Speech = %v, %v", spans, err)
	}
	if math.Abs(spans[0].Start-2) > 0.03 || math.Abs(spans[0].End-3) > 0.03 {
		t.Fatalf("speech at %v, want 2–3 s", spans[0])
	}
}

func TestDiarizeRefusesOtherFormats(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.wav")
	if err := os.WriteFile(p, []byte("RIFF\x00\x00\x00\x00WAVEjunk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New().Diarize(context.Background(), p); err == nil {
		t.Fatal("want an error for a broken WAV")
	}
	if _, err := New().Diarize(context.Background(), filepath.Join(t.TempDir(), "missing.wav")); err == nil {
		t.Fatal("want an error for a missing file")
	}
}

func TestDiarizeHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := writeWAV(t, 120, func(int, *rand.Rand) float64 { return 0 })
	if _, err := New().Diarize(ctx, path); err == nil {
		t.Fatal("want the context's error")
	}
}

func TestDER(t *testing.T) {
	ref := []domain.Turn{tn(0, 10, "1"), tn(10, 20, "2")}
	cases := []struct {
		name string
		hyp  []domain.Turn
		want float64
	}{
		{"perfect, other keys", []domain.Turn{tn(0, 10, "B"), tn(10, 20, "A")}, 0},
		{"all one speaker", []domain.Turn{tn(0, 20, "A")}, 0.5},
		{"half missed", []domain.Turn{tn(0, 10, "A")}, 0.5},
		{"false alarm", []domain.Turn{tn(0, 10, "A"), tn(10, 20, "B"), tn(20, 25, "B")}, 0.25},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := DER(ref, c.hyp, 0).Rate(); math.Abs(got-c.want) > 0.01 {
				t.Fatalf("DER = %.3f, want %.3f", got, c.want)
			}
		})
	}
	// The collar forgives boundaries that are a little off.
	if got := DER(ref, []domain.Turn{tn(0.1, 10.2, "A"), tn(10.2, 19.9, "B")}, 0.25).Rate(); got != 0 {
		t.Fatalf("within the collar: DER = %.3f", got)
	}
}

func BenchmarkDiarizeMinute(b *testing.B) {
	path := writeWAV(b, 60, func(i int, _ *rand.Rand) float64 {
		ts := float64(i) / rate
		f := 120.0
		if int(ts/3)%2 == 1 {
			f = 220
		}
		if math.Mod(ts, 3) > 2.6 {
			return 0
		}
		return 0.3 * math.Sin(2*math.Pi*f*ts) * (1 + 0.5*math.Sin(2*math.Pi*3*ts))
	})
	b.ResetTimer()
	for range b.N {
		if _, err := New().Diarize(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDiarizeCall diarizes the 16.9 s two-voice call of the test
// suite (pauses, two real-sounding voices: every pass, both starts of the
// frame models) and reports the time per audio minute.
func BenchmarkDiarizeCall(b *testing.B) {
	path := decode(b, "call-mono-16k.mp3")
	b.ResetTimer()
	for range b.N {
		if _, err := New().Diarize(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/(16.9/60), "s/audio-min")
}

// writeWAV writes seconds of 16 kHz mono audio from fn(sample index).
func writeWAV(t testing.TB, seconds float64, fn func(int, *rand.Rand) float64) string {
	t.Helper()
	n := int(seconds * rate)
	b := make([]byte, 44, 44+2*n)
	copy(b, "RIFF\x00\x00\x00\x00WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1)
	binary.LittleEndian.PutUint16(b[22:], 1)
	binary.LittleEndian.PutUint32(b[24:], rate)
	binary.LittleEndian.PutUint32(b[28:], 2*rate)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(2*n))
	binary.LittleEndian.PutUint32(b[4:], uint32(36+2*n))
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		v := max(-1, min(1, fn(i, r)))
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(v*32767)))
	}
	p := filepath.Join(t.TempDir(), "a.wav")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func tn(start, end float64, speaker string) domain.Turn {
	return domain.Turn{Start: start, End: end, Speaker: speaker}
}
