package app_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// sizedChunker cuts a recording of size bytes into pieces within the
// limits' MaxBytes, as mp3.Chunker does: each piece a file naming its
// index, count and size, the recording whole (no Path) when it fits.
type sizedChunker struct {
	size    int64
	seconds float64
}

func (c sizedChunker) Chunk(_ context.Context, open func() (io.ReadCloser, error), dir string, limits ports.ChunkLimits) ([]ports.Chunk, error) {
	if limits.MaxBytes <= 0 || c.size <= limits.MaxBytes {
		return []ports.Chunk{{End: c.seconds}}, nil
	}
	n := int((c.size + limits.MaxBytes - 1) / limits.MaxBytes)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	var out []ports.Chunk
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("part-%d", i+1))
		body := fmt.Sprintf("piece %d %d", i+1, c.size/int64(n))
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			return nil, err
		}
		from, to := c.seconds*float64(i)/float64(n), c.seconds*float64(i+1)/float64(n)
		out = append(out, ports.Chunk{Path: p, Start: from, From: from, End: to})
	}
	return out, nil
}

// sizedEngine refuses files over limit bytes with a 413, as an engine or
// its proxy does; the whole recording counts as whole bytes.
type sizedEngine struct {
	mu    sync.Mutex
	limit int64
	whole int64
	sizes []int64 // of every request
}

func (e *sizedEngine) Recognize(_ context.Context, a ports.AudioFile) (domain.Recognition, error) {
	rc, err := a.Open()
	if err != nil {
		return domain.Recognition{}, err
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	var i int
	size := e.whole
	fmt.Sscanf(string(b), "piece %d %d", &i, &size)
	e.mu.Lock()
	e.sizes = append(e.sizes, size)
	e.mu.Unlock()
	if size > e.limit {
		return domain.Recognition{}, domain.Permanent(&domain.PieceTooLargeError{Bytes: size, Msg: "413 Request Entity Too Large: Maximum content size limit exceeded"})
	}
	text := fmt.Sprintf("մաս %d։", i)
	return domain.Recognition{Text: text, Duration: 1, Segments: []domain.Segment{{Start: 0.1, End: 0.9, Text: text}}}, nil
}

func TestATooLargePieceIsCutSmaller(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int64
		status domain.Status
		text   string
		sizes  []int64
	}{
		{"down to pieces the engine takes", 3 << 20, domain.StatusTranscribed, "մաս 1։ մաս 2։ մաս 3։ մաս 4։",
			[]int64{8 << 20, 4 << 20, 2 << 20}},
		{"not below the floor", 512 << 10, domain.StatusFailed, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			eng := &sizedEngine{limit: tc.limit, whole: 8 << 20}
			w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, eng, w.clock, t.TempDir(), nil,
				app.WithChunking(sizedChunker{size: 8 << 20, seconds: 8}, ports.ChunkLimits{MaxBytes: 24 << 20}, 1))
			w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
			p := w.account(domain.PlanBusiness, 60)
			res := w.newJob(p, `{"type":"single_voice"}`)
			w.put(res.DocID, "MP3 8 1")
			w.drain()
			j := w.job(res.DocID)
			if j.Status != tc.status || j.Transcription != tc.text {
				t.Fatalf("%s %q %q", j.Status, j.Transcription, j.Error)
			}
			// Each size in turn (a refused piece stops the others, which
			// may or may not have gone out meanwhile), the last all sent.
			var sizes []int64
			for _, s := range eng.sizes {
				if len(sizes) == 0 || sizes[len(sizes)-1] != s {
					sizes = append(sizes, s)
				}
			}
			last := 0
			for _, s := range eng.sizes {
				if s == 2<<20 {
					last++
				}
			}
			if tc.sizes != nil && (fmt.Sprint(sizes) != fmt.Sprint(tc.sizes) || last != 4) {
				t.Errorf("sent %v, want sizes %v, the last 4 times", eng.sizes, tc.sizes)
			}
			if tc.status == domain.StatusFailed {
				want := "speech engine refused a piece of 1.0 MiB as too large: 413 Request Entity Too Large: Maximum content size limit exceeded; the recording cannot be cut into pieces smaller than 1.0 MiB"
				if !strings.HasPrefix(j.Error, want) || w.balance(p) != 60000 {
					t.Errorf("error %q (balance %d)", j.Error, w.balance(p))
				}
			}
		})
	}
}

// stalledEngine never answers: it waits for the request to be given up.
type stalledEngine struct{ calls int }

func (e *stalledEngine) Recognize(ctx context.Context, _ ports.AudioFile) (domain.Recognition, error) {
	e.calls++
	<-ctx.Done()
	return domain.Recognition{}, fmt.Errorf("speech engine: request abandoned: %w", ctx.Err())
}

func TestAJobFailsReadablyPastItsBudget(t *testing.T) {
	w := newWorld(t)
	eng := &stalledEngine{}
	w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, eng, w.clock, t.TempDir(), nil, app.WithBudget(100*time.Millisecond))
	w.handlers[domain.TopicAudioProcessed] = []func(context.Context, domain.Event) error{w.tr.Handle}
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 5 1")
	start := time.Now()
	w.drain()
	j := w.job(res.DocID)
	const want = "speech recognition did not finish within the job's budget of 100ms (the speech engine is too slow or kept failing)"
	if j.Status != domain.StatusFailed || j.Error != want || w.balance(p) != 60000 || time.Since(start) > 10*time.Second {
		t.Fatalf("%s %q after %v", j.Status, j.Error, time.Since(start))
	}

	// A job whose recognition began longer ago than its budget (retried,
	// redelivered, its worker dead meanwhile) fails at once.
	w = newWorld(t)
	w.rec.errs = []error{errors.Join(domain.ErrUnavailable, errors.New("503"))}
	w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, w.rec, w.clock, t.TempDir(), nil, app.WithBudget(time.Hour))
	p = w.account(domain.PlanBusiness, 60)
	res = w.newJob(p, `{"type":"single_voice"}`)
	w.put(res.DocID, "MP3 5 1")
	w.handlers[domain.TopicAudioProcessed] = nil
	w.drain()
	ev := processedEvent(t, w, res.DocID)
	if err := w.tr.Handle(w.ctx, ev); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	w.clock.Add(61 * time.Minute)
	if err := w.tr.Handle(w.ctx, ev); err != nil {
		t.Fatal(err)
	}
	if j := w.job(res.DocID); j.Status != domain.StatusFailed || !strings.HasPrefix(j.Error, "speech recognition did not finish within the job's budget of 1h0m0s") || w.rec.Calls() != 1 {
		t.Fatalf("%s %q after %d calls", j.Status, j.Error, w.rec.Calls())
	}
}
