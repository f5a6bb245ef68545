package kafka_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hyscribe/hyscribe/domain"
)

// lifecycleEvents are the events of jobs in every shape, made by the
// domain's own transitions and encoded as the outbox stores them (the
// bytes the relay publishes): single_voice and phone_call, with and
// without a checklist, transcribed, failed and deleted, an analysis that
// succeeded and one that failed.
func lifecycleEvents(t *testing.T) []domain.Event {
	t.Helper()
	now := time.Date(2026, 11, 21, 10, 0, 0, 123_456_789, time.UTC)
	acct := &domain.Account{ID: "acct", Plan: domain.PlanBusiness, BalanceMs: 3_600_000}
	var out []domain.Event
	must := func(evs []domain.Event, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, evs...)
	}
	job := func(id string, typ domain.JobType, checklist string) *domain.Job {
		j, evs := domain.NewJob(domain.DocID(id), acct.ID, domain.CreateRequest{Type: typ, ChecklistID: checklist, ChecklistVersion: map[bool]int{true: 2}[checklist != ""],
			Metadata: json.RawMessage(`{"crm":"A-1"}`)}, now, time.Hour)
		out = append(out, evs...)
		must(j.ReceiveUpload(now, "audio/"+id+".mp3", 1234))
		must(j.Measure(now, domain.AudioInfo{Format: "mp3", Duration: 9.5, Channels: 2, SampleRate: 22050, Bitrate: 64000, Frames: 365}, acct, 0))
		must(j.StartConverting(now))
		return &j
	}
	single := job("single", domain.TypeSingleVoice, "")
	must(single.Recognize(now, "Բարև ձեզ", []domain.Segment{{Start: 0, End: 1.2, Text: "Բարև ձեզ"}}))
	must(single.Complete(now, "Ողջույն", "Ամփոփում։", "hy-AM"))
	call := job("call", domain.TypePhoneCall, "ck-1")
	must(call.Recognize(now, "Խոսնակ 1: Բարև\nԽոսնակ 2: Բարև", []domain.Segment{
		{Start: 0, End: 1, Text: "Բարև", Speaker: "Խոսնակ 1"}, {Start: 1, End: 2, Text: "Բարև", Speaker: "Խոսնակ 2"}}))
	must(call.Complete(now, "Զանգ", "Ամփոփում։", "hy-AM"))
	failed := job("failed", domain.TypeSingleVoice, "")
	must(failed.Fail(now, "no speech detected", acct))
	_, evs, err := call.Delete(now, domain.DeletedOnRequest, acct)
	must(evs, err)
	_, evs, err = single.Delete(now, domain.DeletedByRetention, acct)
	must(evs, err)

	speaker, start := "Խոսնակ 1", 0.4
	c := domain.Checklist{ID: "ck-1", Name: "Զանգի որակ", Version: 2, Questions: []domain.Question{{ID: "greet", Text: "Ողջունե՞ց", Weight: 2}, {ID: "close", Text: "Հրաժե՞շտ"}}}
	ok := domain.NewAnalysis("an-1", *call, c, map[string]domain.QuestionResult{
		"greet": {Question: "Ողջունե՞ց", Answer: "yes", Score: 0.9, Evidence: []domain.Evidence{{Speaker: &speaker, Text: "Բարև", Start: &start}}},
		"close": {Question: "Հրաժե՞շտ", Answer: "unclear", Score: 0.5, Evidence: []domain.Evidence{{Text: "…"}}, Reason: "no goodbye heard"},
	}, now)
	out = append(out, domain.NewAnalysisReadyEvent(ok, *call, domain.ChecklistWeights(c), now))
	out = append(out, domain.NewAnalysisReadyEvent(domain.FailedAnalysis("an-2", *call, c.Name, "the model did not answer", now), *call, nil, now))
	// A review (issue 36) overriding one answer with a reason, accepting the other.
	rv, _, err := domain.NewReview(ok, nil, domain.ReviewInput{Choices: map[string]domain.ReviewChoice{"close": {Answer: "yes", Reason: "ցտեսություն at 0:41"}},
		Comment: "Լավ զանգ"}, domain.Reviewer{ID: "u-1", Email: "ani@example.com"}, now)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, domain.NewAnalysisReviewedEvent(ok, rv, domain.ChecklistWeights(c), call.Metadata))
	return out
}

// TestEveryEventMatchesItsSchema checks every pipeline event against the
// JSON Schema of its topic in docs/events/ (additionalProperties false:
// a field added to an event and not to its schema fails), and that every
// topic has a schema and was seen here.
func TestEveryEventMatchesItsSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	schemas := map[string]*jsonschema.Schema{}
	for _, topic := range domain.Topics {
		path := filepath.Join("..", "..", "docs", "events", topic+".schema.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("topic %s has no schema: %v", topic, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.AddResource(path, doc); err != nil {
			t.Fatal(err)
		}
		if schemas[topic], err = c.Compile(path); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	seen := map[string]int{}
	for _, ev := range lifecycleEvents(t) {
		body := ev.Marshal()
		sch := schemas[ev.Topic]
		if sch == nil {
			t.Fatalf("event on %s, a topic not in domain.Topics", ev.Topic)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s does not match its schema: %v\n%s", ev.ID, err, body)
		}
		seen[ev.Topic]++
		// Decoding gives back what was encoded.
		back, err := domain.ParseEvent(ev.Topic, body)
		if err != nil || !back.OccurredAt.Equal(ev.OccurredAt.Truncate(time.Millisecond)) || back.ID != ev.ID {
			t.Errorf("%s: decoded %+v, %v", ev.ID, back, err)
		}
	}
	for _, topic := range domain.Topics {
		if seen[topic] == 0 {
			t.Errorf("no event on %s was checked", topic)
		}
	}
	// The shapes the issue named: null, never absent.
	var status, ready, recognised []string
	for _, ev := range lifecycleEvents(t) {
		switch ev.Topic {
		case domain.TopicJobStatus:
			status = append(status, string(ev.Marshal()))
		case domain.TopicTranscriptReady:
			ready = append(ready, string(ev.Marshal()))
		case domain.TopicTranscriptRecognized:
			recognised = append(recognised, string(ev.Marshal()))
		}
	}
	for _, want := range []struct {
		in   []string
		text string
	}{
		{status, `"previous":null`}, {status, `"error":null`}, {status, `"checklistId":null`},
		{ready, `"checklistId":null,"checklistVersion":null`}, {recognised, `"speaker":null`},
		{status, `"occurredAt":"2026-11-21T10:00:00.123Z"`},
	} {
		if !strings.Contains(strings.Join(want.in, "\n"), want.text) {
			t.Errorf("no event carries %s", want.text)
		}
	}
}
