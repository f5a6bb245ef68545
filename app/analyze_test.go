package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

const salesChecklist = `{"name": "Վաճառք", "questions": [
	{"id": "greet", "text": "Ողջունե՞ց", "expect": ["Բարև ձեզ"]},
	{"id": "order", "text": "Պատվերի մասին խոսվե՞ց", "expect": ["պատվերի"]},
	{"id": "bye", "text": "Հրաժեշտ տվե՞ց", "expect": ["ցտեսություն"]}]}`

func (w *world) checklist(p app.Principal, def string) domain.Checklist {
	w.t.Helper()
	c, err := w.newList.Handle(w.ctx, p.Account.ID, domain.RoleOwner, []byte(def))
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

func analysisRequests(w *world) [][]byte {
	var out [][]byte
	for _, r := range w.sender.Requests() {
		if strings.Contains(string(r.Body), `"analysis_ready"`) {
			out = append(out, r.Body)
		}
	}
	return out
}

func TestJobWithChecklistGetsAnalysisReady(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h"), WebhookSecret: ptr("s3cret"),
		AnalysisWebhookURL: ptr("https://hooks.example/qa")})
	c := w.checklist(p, salesChecklist)
	res := w.newJob(p, `{"type":"single_voice","metadata":{"crm":"A-1"},"checklistId":"`+c.ID+`"}`)
	w.put(res.DocID, "MP3 5 1")
	w.drain()

	if j := w.job(res.DocID); j.Status != domain.StatusTranscribed || j.ChecklistVersion != 1 {
		t.Fatalf("job %s v%d", j.Status, j.ChecklistVersion)
	}
	bodies := analysisRequests(w)
	if len(bodies) != 1 {
		t.Fatalf("%d analysis_ready deliveries", len(bodies))
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(bodies[0], &fields)
	var keys []string
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "analysisId,checklistId,checklistName,docId,event_type,link,metadata,results,secret" {
		t.Fatalf("analysis_ready fields %v", keys)
	}
	var body domain.AnalysisReadyPayload
	json.Unmarshal(bodies[0], &body)
	a, err := w.store.AnalysisByDoc(w.ctx, res.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if body.Secret != "s3cret" || body.AnalysisID != a.ID || *body.ChecklistID != c.ID || *body.ChecklistName != "Վաճառք" ||
		string(body.Metadata) != `{"crm":"A-1"}` || body.Link != "http://pub/app/recordings/"+string(res.DocID) {
		t.Fatalf("payload %s", bodies[0])
	}
	if len(body.Results) != 3 || body.Results["greet"].Answer != "yes" || body.Results["order"].Answer != "yes" || body.Results["bye"].Answer != "no" ||
		body.Results["greet"].Question != "Ողջունե՞ց" {
		t.Fatalf("results %s", bodies[0])
	}
	var urls []string
	ds, _ := w.store.Deliveries(w.ctx, res.DocID)
	for _, d := range ds {
		urls = append(urls, d.EventType+" "+d.URL+" "+d.Status)
	}
	if strings.Join(urls, ";") != "transcript_ready https://hooks.example/h delivered;analysis_ready https://hooks.example/qa delivered" {
		t.Fatalf("deliveries %v", urls)
	}
}

func TestEditedChecklistKeepsTheJobsVersion(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h")})
	c := w.checklist(p, salesChecklist)
	res := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	v2, err := w.editList.Handle(w.ctx, p.Account.ID, domain.RoleOwner, c.ID, []byte(`{"name":"Նոր","questions":[{"id":"new","text":"Նոր հարց"}]}`))
	if err != nil || v2.Version != 2 {
		t.Fatalf("update: %v %d", err, v2.Version)
	}
	w.put(res.DocID, "MP3 5 1")
	w.drain()
	a, err := w.store.AnalysisByDoc(w.ctx, res.DocID)
	if err != nil || a.ChecklistVersion != 1 || a.ChecklistName != "Վաճառք" || len(a.Results) != 3 {
		t.Fatalf("analysis %+v %v", a, err)
	}
	// A job created now uses version 2.
	res2 := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	if j := w.job(res2.DocID); j.ChecklistVersion != 2 {
		t.Fatalf("new job has version %d", j.ChecklistVersion)
	}
}

func TestArchivedChecklistIsRefused(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	c := w.checklist(p, salesChecklist)
	if err := w.archive.Handle(w.ctx, p.Account.ID, domain.RoleOwner, c.ID); err != nil {
		t.Fatal(err)
	}
	_, err := w.createBody(p, []byte(`{"type":"single_voice","checklistId":"`+c.ID+`"}`))
	var ve *domain.ValidationError
	if !errors.As(err, &ve) || ve.Code != "unknown_checklist" {
		t.Fatalf("create with an archived checklist: %v", err)
	}
	if _, err := w.editList.Handle(w.ctx, p.Account.ID, domain.RoleOwner, c.ID, []byte(salesChecklist)); !errors.Is(err, domain.ErrValidation) {
		t.Fatalf("editing an archived checklist: %v", err)
	}
}

func TestFailedAnalysisLeavesTheJobTranscribed(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h")})
	c := w.checklist(p, salesChecklist)
	w.analyzer.err = domain.Permanent(errors.New("the model refused"))
	res := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	w.put(res.DocID, "MP3 5 1")
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusTranscribed {
		t.Fatalf("job %s", j.Status)
	}
	a, err := w.store.AnalysisByDoc(w.ctx, res.DocID)
	if err != nil || a.Status != domain.AnalysisFailed || a.Error != "the model refused" {
		t.Fatalf("analysis %+v %v", a, err)
	}
	if n := len(analysisRequests(w)); n != 0 {
		t.Fatalf("a failed analysis was announced %d times", n)
	}
}

func TestAnalysisTransientFailureIsRetriedThenGivenUp(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	c := w.checklist(p, salesChecklist)
	res := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	w.put(res.DocID, "MP3 5 1")
	w.analyzer.err = domain.ErrUnavailable
	var ready domain.Event
	delete(w.handlers, domain.TopicTranscriptReady)
	for _, ev := range w.drain() {
		if ev.Topic == domain.TopicTranscriptReady {
			ready = ev
		}
	}
	if err := w.analyze.Handle(w.ctx, ready); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("transient failure: %v", err)
	}
	if _, err := w.store.AnalysisByDoc(w.ctx, res.DocID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a transient failure saved an analysis: %v", err)
	}
	if err := w.analyze.GiveUp(w.ctx, ready, app.AnalysisGiveUpReason(domain.ErrUnavailable)); err != nil {
		t.Fatal(err)
	}
	a, _ := w.store.AnalysisByDoc(w.ctx, res.DocID)
	if a.Status != domain.AnalysisFailed || a.ChecklistName != "Վաճառք" || !strings.Contains(a.Error, "unavailable") {
		t.Fatalf("analysis %+v", a)
	}
	// A late success after giving up changes nothing.
	w.analyzer.err = nil
	if err := w.analyze.Handle(w.ctx, ready); err != nil {
		t.Fatal(err)
	}
	if b, _ := w.store.AnalysisByDoc(w.ctx, res.DocID); b.ID != a.ID {
		t.Fatalf("analysis replaced")
	}
}

func TestRepeatedEventsAnalyseAndAnnounceOnce(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	w.updateAccount(p.Account.ID, app.AccountChanges{WebhookURL: ptr("https://hooks.example/h")})
	c := w.checklist(p, salesChecklist)
	res := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	w.put(res.DocID, "MP3 5 1")
	events := w.drain()
	first, _ := w.store.AnalysisByDoc(w.ctx, res.DocID)
	calls := w.analyzer.calls
	for _, ev := range events { // every event a second time, analysis.ready included
		for _, h := range w.handlers[ev.Topic] {
			if err := h(w.ctx, ev); err != nil {
				t.Fatalf("repeat of %s: %v", ev.ID, err)
			}
		}
	}
	w.notify.Wait()
	if again, _ := w.store.AnalysisByDoc(w.ctx, res.DocID); again.ID != first.ID || w.analyzer.calls != calls {
		t.Fatalf("a repeat analysed again: %s → %s, %d → %d calls", first.ID, again.ID, calls, w.analyzer.calls)
	}
	if n := len(analysisRequests(w)); n != 1 {
		t.Fatalf("analysis_ready sent %d times", n)
	}
}

// countingReads counts the jobs a stage reads, alone or with their account.
type countingReads struct {
	jobReader
	reads atomic.Int64
}

type jobReader interface {
	ports.JobStore
	ports.JobAccountReader
}

func (s *countingReads) GetJobAndAccount(ctx context.Context, id domain.DocID) (domain.Job, domain.Account, error) {
	s.reads.Add(1)
	return s.jobReader.GetJobAndAccount(ctx, id)
}

func (s *countingReads) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	s.reads.Add(1)
	return s.jobReader.GetJob(ctx, id)
}

func TestJobWithoutChecklistIsNotReadForAnalysis(t *testing.T) {
	w := newWorld(t)
	p := w.account(domain.PlanBusiness, 60)
	c := w.checklist(p, salesChecklist)
	plain := w.newJob(p, `{"type":"single_voice"}`)
	checked := w.newJob(p, `{"type":"single_voice","checklistId":"`+c.ID+`"}`)
	jobs := &countingReads{jobReader: w.store}
	analyze := app.NewAnalyzeTranscript(jobs, w.store, w.store, w.analyzer, nil, w.clock, nil)
	w.handlers[domain.TopicTranscriptReady] = []func(context.Context, domain.Event) error{analyze.Handle}
	w.put(plain.DocID, "MP3 5 1")
	w.put(checked.DocID, "MP3 5 1")
	w.drain()
	if n := jobs.reads.Load(); n != 1 {
		t.Fatalf("the analyse stage read %d jobs, want 1 (the one with a checklist)", n)
	}
	if _, err := w.store.AnalysisByDoc(w.ctx, checked.DocID); err != nil {
		t.Fatalf("the job with a checklist was not analysed: %v", err)
	}
}
