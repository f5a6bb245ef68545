package app_test

import (
	"bytes"
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
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Hand-written in-memory fakes of the ports the use cases need.

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type signer struct{}

func (signer) SignUpload(_ context.Context, id domain.DocID, exp time.Time) (string, error) {
	return fmt.Sprintf("http://up/%s?e=%d&s=ok", id, exp.Unix()), nil
}
func (signer) VerifyUpload(id domain.DocID, exp time.Time, sig string, now time.Time) error {
	if sig != "ok" {
		return fmt.Errorf("upload signature does not match: %w", domain.ErrForbidden)
	}
	if !now.Before(exp) {
		return fmt.Errorf("upload address expired: %w", domain.ErrForbidden)
	}
	return nil
}

type blobs struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (b *blobs) Put(_ context.Context, key string, r io.Reader, max int64) (int64, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return 0, err
	}
	if int64(len(data)) > max {
		return 0, domain.ErrTooLarge
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string][]byte{}
	}
	b.m[key] = data
	return int64(len(data)), nil
}

func (b *blobs) Delete(_ context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, key)
	return nil
}

func (b *blobs) Len() int { b.mu.Lock(); defer b.mu.Unlock(); return len(b.m) }

func (b *blobs) Open(_ context.Context, key string) (ports.Blob, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	d, ok := b.m[key]
	if !ok {
		return nil, fmt.Errorf("fake blobs: no %s in memory: %w", key, domain.ErrNotFound)
	}
	return memBlob{bytes.NewReader(d)}, nil
}

// memBlob is a blob read from memory; bytes.Reader says its size.
type memBlob struct{ *bytes.Reader }

func (memBlob) Close() error { return nil }

// probe "measures" fake audio written as "MP3 <seconds> <channels>".
type probe struct{}

func (probe) Probe(_ context.Context, r io.Reader) (domain.AudioInfo, error) {
	b, _ := io.ReadAll(r)
	var secs float64
	var ch int
	if _, err := fmt.Sscanf(string(b), "MP3 %g %d", &secs, &ch); err != nil {
		return domain.AudioInfo{}, domain.Permanent(errors.New("the file is WAV audio, not MP3; only MP3 is supported"))
	}
	return domain.AudioInfo{Format: "mp3", Duration: secs, Channels: ch}, nil
}

// splitter writes one file per channel named after it.
type splitter struct{}

func (splitter) SplitChannels(_ context.Context, r io.Reader, dir string) ([]string, error) {
	var paths []string
	for _, n := range []string{"left", "right"} {
		p := filepath.Join(dir, n+".wav")
		if err := os.WriteFile(p, []byte(n), 0o600); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// recognizer answers per file content; errs is consumed first.
type recognizer struct {
	mu    sync.Mutex
	calls int
	errs  []error
	by    map[string]domain.Recognition // by file content
	def   domain.Recognition
}

func (r *recognizer) Recognize(_ context.Context, a ports.AudioFile) (domain.Recognition, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if len(r.errs) > 0 {
		err := r.errs[0]
		r.errs = r.errs[1:]
		return domain.Recognition{}, err
	}
	rc, err := a.Open()
	if err != nil {
		return domain.Recognition{}, err
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if rec, ok := r.by[string(b)]; ok {
		return rec, nil
	}
	return r.def, nil
}

func (r *recognizer) Calls() int { r.mu.Lock(); defer r.mu.Unlock(); return r.calls }

type summarizer struct{ err error }

func (s summarizer) Summarize(_ context.Context, text string) (string, string, error) {
	if s.err != nil {
		return "", "", s.err
	}
	first, _, _ := strings.Cut(text, "։")
	return "Վերնագիր: " + first, "Ամփոփում: " + text, nil
}

type sender struct {
	mu   sync.Mutex
	reqs []ports.WebhookRequest
	res  ports.WebhookResult
}

func (s *sender) Send(_ context.Context, req ports.WebhookRequest) ports.WebhookResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req)
	return s.res
}

func (s *sender) Requests() []ports.WebhookRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ports.WebhookRequest(nil), s.reqs...)
}

// analyzer answers "yes" to every question whose first expected phrase is in
// the transcript, "no" otherwise; err, when set, is returned instead.
type analyzer struct {
	mu    sync.Mutex
	err   error
	calls int
}

func (a *analyzer) Analyze(_ context.Context, in ports.AnalysisInput, qs []domain.Question) (map[string]domain.QuestionResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if a.err != nil {
		return nil, a.err
	}
	out := map[string]domain.QuestionResult{}
	for _, q := range qs {
		r := domain.QuestionResult{Answer: domain.AnswerNo}
		if len(q.Expect) > 0 && strings.Contains(in.Transcription, q.Expect[0]) {
			r = domain.QuestionResult{Answer: domain.AnswerYes, Score: 1, Evidence: []domain.Evidence{{Text: q.Expect[0]}}}
		}
		out[q.ID] = r
	}
	return out, nil
}

// world wires every use case to fakes, as cmd/hyscribe wires them to adapters.
type world struct {
	t        testing.TB
	ctx      context.Context
	store    *apptest.Store
	clock    *clock
	blobs    *blobs
	rec      *recognizer
	sender   *sender
	accounts *app.CreateAccount
	settings *app.UpdateAccount
	newList  *app.CreateChecklist
	editList *app.UpdateChecklist
	archive  *app.ArchiveChecklist
	create   *app.CreateJob
	get      *app.GetJob
	upload   *app.ReceiveUpload
	process  *app.ProcessAudio
	tr       *app.TranscribeAudio
	enrich   *app.EnrichTranscript
	notify   *app.DeliverEvents
	analyzer *analyzer
	analyze  *app.AnalyzeTranscript
	fail     *app.FailJob
	sweeper  *app.Sweeper
	handlers map[string][]func(context.Context, domain.Event) error
	seen     []domain.Event // every event relayed, in order
}

func newWorld(t testing.TB) *world {
	t.Helper()
	w := &world{t: t, ctx: context.Background(), store: apptest.NewStore(), blobs: &blobs{},
		clock: &clock{now: time.Date(2026, 11, 21, 10, 0, 30, 0, time.UTC)},
		rec: &recognizer{def: domain.Recognition{Text: "Բարև ձեզ։ Ես զանգում եմ պատվերի մասին։", Duration: 3,
			Segments: []domain.Segment{{Start: 0, End: 1, Text: "Բարև ձեզ։"}, {Start: 1, End: 3, Text: "Ես զանգում եմ պատվերի մասին։"}}}},
		sender: &sender{res: ports.WebhookResult{Status: 200}}}
	s := w.store
	w.accounts, w.settings = app.NewCreateAccount(s, w.clock), app.NewUpdateAccount(s)
	w.newList, w.editList, w.archive = app.NewCreateChecklist(s, s, w.clock), app.NewUpdateChecklist(s, w.clock), app.NewArchiveChecklist(s)
	w.create = app.NewCreateJob(s, s, signer{}, w.clock, time.Hour)
	w.get = app.NewGetJob(s, s, s, s, s, s)
	w.upload = app.NewReceiveUpload(s, w.blobs, signer{}, w.clock, 1<<20)
	w.process = app.NewProcessAudio(s, w.blobs, probe{}, w.clock, 0, nil)
	w.tr = app.NewTranscribeAudio(s, w.blobs, splitter{}, w.rec, w.clock, t.TempDir(), nil)
	w.enrich = app.NewEnrichTranscript(s, summarizer{}, nil, w.clock, nil)
	w.notify = app.NewDeliverEvents(s, s, s, w.sender, w.clock, "http://pub", 4, nil)
	w.analyzer = &analyzer{}
	w.analyze = app.NewAnalyzeTranscript(s, s, s, w.analyzer, nil, w.clock, nil)
	w.fail = app.NewFailJob(s, w.clock)
	w.sweeper = app.NewSweeper(s, w.clock, nil)
	w.routeByPipeline(map[string]func(context.Context, domain.Event) error{
		app.StageProcess:    w.process.Handle,
		app.StageTranscribe: w.tr.Handle,
		app.StageEnrich:     w.enrich.Handle,
		app.StageNotify:     w.notify.Handle,
		app.StageAnalyze:    w.analyze.Handle,
	})
	return w
}

// routeByPipeline gives each topic the handlers of the stages app.Pipeline
// says read it, in pipeline order, as the stage consumers do. Stages without
// a handler here (uploads from S3, the ClickHouse sink) are left out.
func (w *world) routeByPipeline(byStage map[string]func(context.Context, domain.Event) error) {
	w.handlers = map[string][]func(context.Context, domain.Event) error{}
	for _, st := range app.Pipeline {
		h := byStage[st.Name]
		if h == nil {
			continue
		}
		for _, topic := range st.Topics {
			w.handlers[topic] = append(w.handlers[topic], h)
		}
	}
}

func (w *world) account(plan domain.Plan, seconds float64) app.Principal {
	w.t.Helper()
	a, raw, err := w.accounts.Handle(w.ctx, "acme", plan, seconds)
	if err != nil {
		w.t.Fatal(err)
	}
	p, err := app.NewAuthenticate(w.store, w.clock).Handle(w.ctx, "Bearer "+raw)
	if err != nil || p.Account.ID != a.ID {
		w.t.Fatalf("authenticate: %v", err)
	}
	return p
}

func (w *world) newJob(p app.Principal, body string) domain.CreateResult {
	w.t.Helper()
	res, err := w.createBody(p, []byte(body))
	if err != nil {
		w.t.Fatal(err)
	}
	return res
}

// updateAccount changes account id; the change being taken is the test's
// premise, so a refusal fails the test.
func (w *world) updateAccount(id domain.AccountID, c app.AccountChanges) {
	w.t.Helper()
	if _, err := w.settings.Handle(w.ctx, id, domain.RoleOwner, c); err != nil {
		w.t.Fatalf("update of account %s: %v", id, err)
	}
}

// put uploads body as the recording of job id; the upload being accepted is
// the premise of every test that calls it, so a refusal fails the test.
func (w *world) put(id domain.DocID, body string) {
	w.t.Helper()
	err := w.upload.Handle(w.ctx, app.UploadRequest{DocID: id, Expires: w.clock.Now().Add(time.Hour), Signature: "ok",
		Body: strings.NewReader(body), ContentLength: int64(len(body))})
	if err != nil {
		w.t.Fatalf("upload of %s refused: %v", id, err)
	}
}

// drain relays the outbox to the handlers until it is empty, as the relay and
// the stage consumers do, and returns the events it delivered.
func (w *world) drain() []domain.Event {
	w.t.Helper()
	var out []domain.Event
	for i := 0; i < 100; i++ {
		recs, err := w.store.ClaimOutbox(w.ctx, w.clock.Now(), time.Minute, 100)
		if err != nil {
			w.t.Fatal(err)
		}
		if len(recs) == 0 {
			w.notify.Wait()
			return out
		}
		var seqs []int64
		for _, r := range recs {
			seqs = append(seqs, r.Seq)
			out = append(out, r.Event)
			w.seen = append(w.seen, r.Event)
			for _, h := range w.handlers[r.Event.Topic] {
				if err := h(w.ctx, r.Event); err != nil {
					w.t.Fatalf("handler of %s: %v", r.Event.ID, err)
				}
			}
		}
		if err := w.store.MarkSent(w.ctx, seqs); err != nil {
			w.t.Fatal(err)
		}
	}
	w.t.Fatal("outbox never drained")
	return nil
}

// loseOutbox marks every pending outbox event sent without delivering it,
// as if the relay had published it and the broker then lost it, and fails
// the test unless at least one event was lost.
func (w *world) loseOutbox() {
	w.t.Helper()
	recs, err := w.store.ClaimOutbox(w.ctx, w.clock.Now(), time.Minute, 100)
	if err != nil || len(recs) == 0 {
		w.t.Fatalf("nothing to lose: %d events, %v", len(recs), err)
	}
	var seqs []int64
	for _, r := range recs {
		seqs = append(seqs, r.Seq)
	}
	if err := w.store.MarkSent(w.ctx, seqs); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) job(id domain.DocID) domain.Job {
	w.t.Helper()
	j, err := w.store.GetJob(w.ctx, id)
	if err != nil {
		w.t.Fatal(err)
	}
	return j
}

func (w *world) balance(p app.Principal) int64 {
	a, err := w.store.GetAccount(w.ctx, p.Account.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return a.BalanceMs
}

// poll reads a job as the API's getTranscription answers it.
func (w *world) poll(p app.Principal, doc string) (domain.PollView, error) {
	rec, err := w.get.Handle(w.ctx, app.KeyActor(p), app.GetCommand{DocID: domain.DocID(doc)})
	if err != nil {
		return domain.PollView{}, err
	}
	return domain.NewPollView(rec.Job), nil
}

// createBody creates a job as the API's createTranscription does: the body
// parsed, then the use case.
func (w *world) createBody(p app.Principal, body []byte) (domain.CreateResult, error) {
	if err := w.create.Allowed(app.KeyActor(p)); err != nil {
		return domain.CreateResult{}, err
	}
	req, err := domain.ParseCreateRequest(body)
	if err != nil {
		return domain.CreateResult{}, err
	}
	res, _, err := w.create.Handle(w.ctx, app.KeyActor(p), app.CreateCommand{Request: req})
	return res, err
}
