package mp3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/mp3/mp3test"
	"github.com/hyscribe/hyscribe/domain"
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
	_, err = Chunker{}.Chunk(context.Background(), openFixture("tone.wav"), t.TempDir(), ports.ChunkLimits{MaxSeconds: 1})
	if !domain.IsPermanent(err) {
		t.Fatalf("WAV: %v", err)
	}
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
	stop := sampleHeap(&peak)
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

// sampleHeap records the largest heap in use until stop is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-finished }
}
