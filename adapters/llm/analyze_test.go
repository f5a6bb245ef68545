package llm_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/llm"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var checklist = []domain.Question{
	{ID: "greet", Text: "Օպերատորը ողջունե՞ց հաճախորդին"},
	{ID: "order", Text: "Պատվերի մասին խոսվե՞ց"},
	{ID: "bye", Text: "Հրաժեշտ տվե՞ց"},
}

var callInput = ports.AnalysisInput{Type: domain.TypePhoneCall, Segments: []domain.Segment{
	{Start: 0, End: 2, Speaker: "1", Text: "Բարև ձեզ, ես զանգում եմ պատվերի մասին։"},
	{Start: 2.5, End: 4, Speaker: "2", Text: "Պատվերը կառաքվի վաղը։"},
}}

func TestAnalyze(t *testing.T) {
	c := newChat(t, `{"results": {
		"greet": {"answer": "yes", "score": 1, "evidence": [{"speaker": "Խոսնակ 1", "text": "Բարև ձեզ", "start": 0}]},
		"order": {"answer": "YES", "score": 0.8, "evidence": [{"speaker": null, "text": "պատվերի մասին", "start": null}]},
		"bye":   {"answer": "maybe", "score": 0.5, "evidence": []}}}`)
	got, err := c.client(t).Analyze(t.Context(), callInput, checklist)
	if err != nil {
		t.Fatal(err)
	}
	if r := got["greet"]; r.Answer != "yes" || r.Score != 1 || r.Question != checklist[0].Text || len(r.Evidence) != 1 ||
		*r.Evidence[0].Speaker != "Խոսնակ 1" || *r.Evidence[0].Start != 0 {
		t.Errorf("greet %+v", r)
	}
	if r := got["order"]; r.Answer != "yes" || r.Evidence[0].Speaker != nil || r.Evidence[0].Start != nil {
		t.Errorf("order %+v", r)
	}
	if r := got["bye"]; r.Answer != "unclear" || !strings.Contains(r.Reason, `"maybe"`) {
		t.Errorf("an invalid answer must be unclear with the reason: %+v", r)
	}
	_, body, _ := c.seen()
	msgs := fmtAll(body["messages"])
	if !strings.Contains(msgs, "[2.5] Խոսնակ 2: Պատվերը կառաքվի վաղը։") || !strings.Contains(msgs, `id "greet": Օպերատորը ողջունե՞ց`) {
		t.Errorf("request %s", msgs)
	}
	if fmtAll(body["response_format"]) == "" || !strings.Contains(fmtAll(body["response_format"]), "json_object") {
		t.Errorf("JSON mode not asked for: %v", body["response_format"])
	}
}

func TestAnalyzeInvalidOutputIsUnclearNeverAnError(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":        "Yes, the agent greeted the customer.",
		"no results":      `{"answer": "yes"}`,
		"results a list":  `{"results": ["yes", "no"]}`,
		"missing answers": `{"results": {"greet": {"answer": "no", "score": 0, "evidence": []}}}`,
		"score out of range": `{"results": {"greet": {"answer": "no", "score": 7, "evidence": []},
			"order": {"answer": "no", "score": "high"}, "bye": "no"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			got, err := newChat(t, content).client(t).Analyze(t.Context(), callInput, checklist)
			if err != nil {
				t.Fatalf("invalid output must not be an error: %v", err)
			}
			if len(got) != len(checklist) {
				t.Fatalf("%d results", len(got))
			}
			unclear := 0
			for _, q := range checklist {
				if r := got[q.ID]; r.Answer == "unclear" && r.Reason != "" {
					unclear++
				}
			}
			if unclear == 0 || (name != "missing answers" && unclear != len(checklist)) {
				t.Fatalf("results %+v", got)
			}
		})
	}
}

func TestAnalyzeUnavailableIsAnError(t *testing.T) {
	c := newChat(t, `{}`)
	c.fail = []int{503, 503, 503, 503, 503, 503}
	_, err := c.client(t, func(cfg *llm.Config) { cfg.MaxAttempts = 2 }).Analyze(t.Context(), callInput, checklist)
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	c2 := newChat(t, `{}`)
	c2.answer = func() (int, string) { return http.StatusBadRequest, `{"error":{"message":"bad model"}}` }
	if _, err := c2.client(t).Analyze(t.Context(), callInput, checklist); !domain.IsPermanent(err) {
		t.Fatalf("a refused request: %v", err)
	}
}
