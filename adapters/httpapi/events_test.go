package httpapi

import (
	"encoding/json"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// TestEveryEventMatchesTheDocument builds every event body the service
// sends to receivers, with the constructors the notify stage and the web
// application use, in each of its shapes (single_voice and phone_call,
// with and without metadata, a checklist or not, evidence with and without
// a speaker), and checks each against the document's webhooks, members
// included: a field added to a payload and not to the document fails
// here. Every webhook the document lists must be among them.
func TestEveryEventMatchesTheDocument(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 21, 10, 0, 0, 123_456_789, time.UTC)
	single := domain.Job{ID: "q3X0bq0CQ2mQy7bq6m2J1w", AccountID: "acct", Type: domain.TypeSingleVoice,
		Transcription: "Բարև Ձեզ", Title: "Ողջույն", Resolution: "Կարճ ամփոփում։"}
	call := single
	call.Type, call.Metadata = domain.TypePhoneCall, json.RawMessage(`{"crm":"A-1","n":2}`)
	call.Transcription = "Խոսնակ 1: Բարև Ձեզ\nԽոսնակ 2: Բարև"
	failed := call
	failed.Error = "the file is WAV audio, not MP3"
	speaker, start := "Խոսնակ 1", 0.4
	results := map[string]domain.QuestionResult{
		"greet": {Question: "Ողջունե՞ց", Answer: "yes", Score: 0.93, Evidence: []domain.Evidence{{Speaker: &speaker, Text: "Բարև Ձեզ", Start: &start}}},
		"close": {Question: "Հրաժեշտ տվե՞ց", Answer: "unclear", Score: 0.5, Evidence: []domain.Evidence{{Text: "…"}}, Reason: "no goodbye heard"},
		"offer": {Question: "Առաջարկե՞ց", Answer: "no", Score: 0, Evidence: []domain.Evidence{}},
	}
	const link = "https://hyscribe.example"
	bodies := map[string][]any{
		domain.EventTranscriptReady: {
			domain.NewTranscriptReady(single, "s3cret", link),
			domain.NewTranscriptReady(call, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", link),
		},
		domain.EventTranscriptFailed: {
			domain.NewTranscriptFailed(failed, "s3cret", link),
		},
		domain.EventAnalysisReady: {
			domain.NewAnalysisReady(call.ID, domain.AnalysisReadyData{AnalysisID: "an-1", Status: domain.AnalysisOK,
				ChecklistID: "ck-1", ChecklistVersion: 2, ChecklistName: "Զանգի որակ", Results: results, Metadata: call.Metadata, AnalysedAt: now}, "s3cret", link),
			domain.NewAnalysisReady(single.ID, domain.AnalysisReadyData{AnalysisID: "an-2", Status: domain.AnalysisOK, AnalysedAt: now}, "s3cret", link),
		},
		domain.EventAnalysisReviewed: reviewedBodies(t, call, now, link),
		domain.EventTest: {
			domain.TestPayload{EventType: domain.EventTest, Secret: "s3cret", AccountID: "acct",
				Message: "hyscribe test event: your receiver is reachable", SentAt: now.Format(domain.TimeFormat)},
		},
	}
	for name, list := range bodies {
		for _, b := range list {
			body, err := json.Marshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas().Webhook(name, body); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if err := schemas().Event(body); err != nil {
				t.Errorf("%s by its event_type: %v", name, err)
			}
		}
	}
	var documented, built []string
	for name := range openAPI()["webhooks"].(map[string]any) {
		documented = append(documented, name)
	}
	for name := range bodies {
		built = append(built, name)
	}
	sort.Strings(documented)
	sort.Strings(built)
	if !slices.Equal(documented, built) {
		t.Errorf("webhooks documented %v, events checked %v: every event the service sends is checked here", documented, built)
	}
}

// reviewedBodies are analysis_reviewed bodies (issue 36): a review that
// overrides one answer with a reason and accepts the others, with a
// comment, and one of a call without metadata whose checklist version is
// gone (no weights).
func reviewedBodies(t *testing.T, call domain.Job, now time.Time, link string) []any {
	t.Helper()
	speaker, start := "Խոսնակ 1", 0.4
	a := domain.Analysis{ID: "an-1", DocID: call.ID, AccountID: call.AccountID, ChecklistID: "ck-1", ChecklistVersion: 2, ChecklistName: "Զանգի որակ",
		Status: domain.AnalysisOK, CreatedAt: now, Results: map[string]domain.QuestionResult{
			"greet": {Question: "Ողջունե՞ց", Answer: "yes", Score: 0.93, Evidence: []domain.Evidence{{Speaker: &speaker, Text: "Բարև Ձեզ", Start: &start}}},
			"close": {Question: "Հրաժեշտ տվե՞ց", Answer: "no", Score: 0, Evidence: []domain.Evidence{}},
		}}
	var out []any
	for _, in := range []domain.ReviewInput{
		{Choices: map[string]domain.ReviewChoice{"close": {Answer: "yes", Reason: "Ասաց «ցտեսություն» 0:41-ին"}}, Comment: "Լավ զանգ"},
		{},
	} {
		r, _, err := domain.NewReview(a, nil, in, domain.Reviewer{ID: "u-1", Email: "ani@example.am"}, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, meta := range []json.RawMessage{call.Metadata, nil} {
			ev := domain.NewAnalysisReviewedEvent(a, r, nil, meta)
			var d domain.AnalysisReviewedData
			if err := ev.DecodeData(&d); err != nil {
				t.Fatal(err)
			}
			out = append(out, domain.NewAnalysisReviewed(call.ID, d, "s3cret", link))
		}
	}
	return out
}
