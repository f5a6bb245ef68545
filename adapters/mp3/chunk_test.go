package mp3

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/mp3/mp3test"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/heaptest"
	"github.com/hyscribe/hyscribe/ports"
)

func openFixture(name string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return os.Open(filepath.Join("..", "..", "testdata", "audio", name)) }
}

func TestChunkerLeavesShortRecordingsWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pieces") // made only if there are pieces
	chunks, err := Chunker{}.Chunk(context.Background(), openFixture("call-mono-16k.mp3"), dir, ports.ChunkLimits{MaxBytes: 25 << 20, MaxSeconds: 600})
	if err != nil || len(chunks) != 1 || chunks[0].Path != "" || chunks[0].End < 16.8 {
		t.Fatalf("Chunk = %+v, %v", chunks, err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a recording left whole made its pieces' directory: %v", err)
	}
}

func TestChunkerRefusesSilenceAndNonMP3(t *testing.T) {
	// Frames that code nothing at all: digital silence.
	silence := func() (io.ReadCloser, error) {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "audio", "speech-mono-16k.mp3"))
		for i := 0; i+144 <= len(b); i += 144 {
			clear(b[i+4 : i+144])
		}
		return io.NopCloser(bytes.NewReader(b)), err
	}
	_, err := Chunker{}.Chunk(context.Background(), silence, t.TempDir(), ports.ChunkLimits{MaxSeconds: 1})
	if !domain.IsPermanent(err) || !errors.Is(err, domain.ErrNoSpeech) {
		t.Fatalf("silence: %v", err)
	}
	_, err = Chunker{}.Chunk(context.Background(), openFixture("random.bin"), t.TempDir(), ports.ChunkLimits{MaxSeconds: 1})
	if !domain.IsPermanent(err) {
		t.Fatalf("random bytes: %v", err)
	}
	// WAV is cut too (a stereo call's channels), but 16-bit PCM only, and
	// a channel that is silent throughout holds no speech.
	tone, err := os.ReadFile(filepath.Join("..", "..", "testdata", "audio", "tone.wav"))
	if err != nil {
		t.Fatal(err)
	}
	float := bytes.Clone(tone)
	float[20] = 3 // WAVE_FORMAT_IEEE_FLOAT
	for name, b := range map[string][]byte{"float WAV": float, "headless WAV": tone[:30]} {
		_, err = Chunker{}.Chunk(context.Background(), openBytes(b), t.TempDir(), ports.ChunkLimits{MaxSeconds: 1})
		if !domain.IsPermanent(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	quiet := bytes.Clone(tone)
	clear(quiet[44:])
	_, err = Chunker{}.Chunk(context.Background(), openBytes(quiet), t.TempDir(), ports.ChunkLimits{MaxSeconds: 0.1})
	if !domain.IsPermanent(err) || !errors.Is(err, domain.ErrNoSpeech) {
		t.Fatalf("silent WAV: %v", err)
	}
}

func openBytes(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// A stereo call's channel, as Splitter writes it, is cut in its pauses into
// WAV pieces that hold its samples exactly once, at the times they have in
// the recording.
func TestChunkerCutsWAVChannelsAtSilences(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "audio", "call-stereo-22k.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := Splitter{}.SplitChannels(context.Background(), f, t.TempDir())
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	open := func() (io.ReadCloser, error) { return os.Open(paths[0]) }
	whole, err := Chunker{}.Chunk(context.Background(), open, t.TempDir(), ports.ChunkLimits{MaxSeconds: 10})
	if err != nil || len(whole) != 1 || whole[0].Path != "" || math.Abs(whole[0].End-6) > 0.001 {
		t.Fatalf("within limits: %+v, %v", whole, err)
	}
	original, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	// Left: tones at 0–1.5 and 3–4.5 s; pieces under 100,000 bytes (3 s of
	// 16 kHz samples is 96,044 with the header) must be cut in 1.5–3 and
	// 4.5–6.
	dir := filepath.Join(t.TempDir(), "pieces") // Chunk makes it
	chunks, err := Chunker{}.Chunk(context.Background(), open, dir, ports.ChunkLimits{MaxSeconds: 3, MaxBytes: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 {
		t.Fatalf("chunks %+v", chunks)
	}
	var samples []byte
	for i, c := range chunks {
		b, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 100_000 {
			t.Errorf("piece %d is %d bytes", i, len(b))
		}
		if !bytes.Equal(b[8:36], original[8:36]) {
			t.Errorf("piece %d has format %x, want %x", i, b[8:36], original[8:36])
		}
		if got := binary.LittleEndian.Uint32(b[40:]); int(got) != len(b)-44 {
			t.Errorf("piece %d declares %d bytes of samples, has %d", i, got, len(b)-44)
		}
		if c.Start != c.From || (i > 0 && c.From != chunks[i-1].End) {
			t.Errorf("piece %d: %+v after %+v", i, c, chunks[max(i-1, 0)])
		}
		if math.Abs(float64(len(samples))/32000-c.From) > 1e-9 {
			t.Errorf("piece %d starts at %.4f s, after %.4f s of samples", i, c.From, float64(len(samples))/32000)
		}
		samples = append(samples, b[44:]...)
		if i < len(chunks)-1 {
			// Cut in a silence, well inside it: the tones are 1.5 s long and
			// start on multiples of 3 s.
			if at := math.Mod(c.End, 3); at < 1.6 || at > 2.95 {
				t.Errorf("piece %d ends at %.3f s, in a tone", i, c.End)
			}
		}
	}
	if !bytes.Equal(samples, original[44:]) {
		t.Errorf("the pieces hold %d bytes of samples, the channel %d, or different ones", len(samples), len(original)-44)
	}
	if last := chunks[len(chunks)-1]; math.Abs(last.End-6) > 0.001 {
		t.Errorf("last piece ends at %.4f s", last.End)
	}
}

// A two-hour channel (230 MB of WAV) is cut into pieces under 25 MB in its
// silences, in constant memory.
func TestChunkerTwoHourWAV(t *testing.T) {
	const rate, seconds = 16000, 2 * 3600
	long := longWAV(rate, seconds)
	var peak atomic.Uint64
	stop := heaptest.SamplePeak(&peak)
	start := time.Now()
	chunks, err := Chunker{}.Chunk(context.Background(), long, t.TempDir(), ports.ChunkLimits{MaxBytes: 25_000_000})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d s of WAV → %d pieces in %v; peak heap %.1f MB", seconds, len(chunks), time.Since(start), float64(peak.Load())/1e6)
	var total int64
	for i, c := range chunks {
		st, err := os.Stat(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 25_000_000 {
			t.Errorf("piece %d is %d bytes", i, st.Size())
		}
		total += st.Size() - 44
		// Sound for 4 s of every 5: the cuts fall in the last second.
		if at := math.Mod(c.End, 5); i < len(chunks)-1 && at < 4 {
			t.Errorf("piece %d ends at %.3f s, %.3f s into a sound", i, c.End, at)
		}
	}
	if total != 2*rate*seconds || chunks[len(chunks)-1].End != seconds {
		t.Errorf("pieces hold %d bytes of samples up to %.3f s", total, chunks[len(chunks)-1].End)
	}
	if peak.Load() > 64<<20 {
		t.Errorf("peak heap %d bytes", peak.Load())
	}
}

// longWAV is a 16-bit mono WAV file generated as it is read: a 440 Hz tone
// for 4 s, then 1 s of digital silence, again and again.
func longWAV(rate, seconds int) func() (io.ReadCloser, error) {
	period := make([]byte, 2*5*rate)
	for i := range 4 * rate {
		binary.LittleEndian.PutUint16(period[2*i:], uint16(int16(8000*math.Sin(2*math.Pi*440*float64(i)/float64(rate)))))
	}
	n := 2 * rate * seconds
	h := binary.LittleEndian.AppendUint32([]byte("RIFF"), uint32(36+n))
	h = append(h, "WAVEfmt "...)
	for _, v := range []uint32{16, 1 | 1<<16, uint32(rate), uint32(2 * rate), 2 | 16<<16} {
		h = binary.LittleEndian.AppendUint32(h, v)
	}
	h = binary.LittleEndian.AppendUint32(append(h, "data"...), uint32(n))
	return func() (io.ReadCloser, error) {
		body := io.LimitReader(&repeat{b: period}, int64(n))
		return io.NopCloser(io.MultiReader(bytes.NewReader(h), body)), nil
	}
}

type repeat struct {
	b   []byte
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.b[r.off:])
		n += k
		r.off = (r.off + k) % len(r.b)
	}
	return n, nil
}

func TestChunkerCutsAtSilences(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pieces") // Chunk makes it
	// call-mono-16k.mp3: 16.9 s, four turns with 0.6 s pauses.
	chunks, err := Chunker{}.Chunk(context.Background(), openFixture("call-mono-16k.mp3"), dir, ports.ChunkLimits{MaxSeconds: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 3 {
		t.Fatalf("chunks %+v", chunks)
	}
	// The pauses of the fixture (README), shifted by the encoder delay.
	pauses := [][2]float64{{4.79, 5.39}, {10.22, 10.82}, {12.96, 13.56}}
	for i, c := range chunks {
		if c.End-c.From > 8.001 {
			t.Errorf("chunk %d is %.2f s long", i, c.End-c.From)
		}
		if i > 0 && c.From != chunks[i-1].End {
			t.Errorf("chunk %d starts at %.3f, previous ends at %.3f", i, c.From, chunks[i-1].End)
		}
		if i == len(chunks)-1 {
			break
		}
		inPause := false
		for _, p := range pauses {
			if c.End+0.069 > p[0] && c.End+0.069 < p[1] {
				inPause = true
			}
		}
		if !inPause {
			t.Errorf("cut at %.2f s is not in a pause %v", c.End, pauses)
		}
		// Every piece is an MP3 file the decoder reads.
		f, err := os.Open(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		paths, err := Splitter{}.SplitChannels(context.Background(), f, t.TempDir())
		f.Close()
		if err != nil || len(paths) != 1 {
			t.Fatalf("chunk %d does not decode: %v", i, err)
		}
	}
}

// A two-hour recording is cut into pieces under 25 MB, in its silences, in
// constant memory, and in seconds.
func TestChunkerTwoHours(t *testing.T) {
	long := mp3test.NewLongSpeech(t, 2*3600)
	if long.Size() <= 25<<20 {
		t.Fatalf("the recording is only %d bytes", long.Size())
	}
	var peak atomic.Uint64
	stop := heaptest.SamplePeak(&peak)
	start := time.Now()
	chunks, err := Chunker{}.Chunk(context.Background(), long.Open, t.TempDir(), ports.ChunkLimits{MaxBytes: 25_000_000})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.0f s, %d bytes → %d pieces in %v; peak heap %.1f MB", long.Seconds(), long.Size(), len(chunks), time.Since(start), float64(peak.Load())/1e6)
	var total int64
	for i, c := range chunks {
		st, err := os.Stat(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 25_000_000 {
			t.Errorf("piece %d is %d bytes", i, st.Size())
		}
		total += st.Size()
		// Cuts fall in the 0.72 s silences that follow every sentence.
		if i < len(chunks)-1 {
			at := c.End - float64(int(c.End/mp3test.PeriodSeconds))*mp3test.PeriodSeconds
			if at < 155*mp3test.FrameSeconds-0.01 {
				t.Errorf("piece %d ends at %.3f s, %.3f s into a sentence", i, c.End, at)
			}
		}
	}
	if want := long.Size() + int64(len(chunks)-1)*mp3test.FrameBytes; total != want {
		t.Errorf("pieces hold %d bytes, want %d (the recording plus one warm-up frame per seam)", total, want)
	}
	if peak.Load() > 64<<20 {
		t.Errorf("peak heap %d bytes", peak.Load())
	}
}
