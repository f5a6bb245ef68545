package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/internal/retryhttp"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.ChecklistAnalyzer = (*Client)(nil)

// AnalysisPrompt is what the model is told when it answers a checklist.
const AnalysisPrompt = `You are a quality reviewer of Armenian phone calls and voice recordings.
You get a transcript (lines "[start seconds] speaker: text") and a checklist of questions, each with an id.
Answer every question from the transcript alone. Reply with one JSON object and nothing else, exactly of this shape:
{"results": {"<question id>": {"answer": "yes" | "no" | "unclear", "score": <number 0..1>, "evidence": [{"speaker": "Խոսնակ 1" or null, "text": "<quote>", "start": <seconds> or null}]}}}
- "answer": "yes" when the transcript shows the question is satisfied, "no" when it shows it is not, "unclear" when it does not say.
- "score": how fully the question is satisfied, 0 to 1.
- "evidence": at most 3 short quotes copied from the transcript that support the answer, with their speaker and start time; [] when none.`

type analysisAnswer struct {
	Results map[string]json.RawMessage `json:"results"`
}

// Analyze asks the model to answer the checklist questions from their text.
// The answer is validated per question: a question missing from it, or
// answered out of shape, is "unclear" with the reason; a completion that
// is not a valid answer at all makes every question "unclear". Only a model
// that cannot be reached (after retries) or refuses the request is an error.
func (c *Client) Analyze(ctx context.Context, in ports.AnalysisInput, questions []domain.Question) (map[string]domain.QuestionResult, error) {
	var qs strings.Builder
	for _, q := range questions {
		fmt.Fprintf(&qs, "- id %s: %s\n", strconv.Quote(q.ID), q.Text)
	}
	body, err := c.chat(ctx, AnalysisPrompt, "Transcript:\n"+shorten(transcriptLines(in), c.cfg.MaxInput)+"\n\nChecklist:\n"+qs.String())
	if err != nil {
		return nil, err
	}
	return ParseAnalysis(body, questions), nil
}

// transcriptLines writes the transcript with start times and speakers.
func transcriptLines(in ports.AnalysisInput) string {
	if len(in.Segments) == 0 {
		return in.Transcription
	}
	var b strings.Builder
	for _, s := range in.Segments {
		speaker := "-"
		if in.Type == domain.TypePhoneCall && s.Speaker != "" {
			speaker = domain.SpeakerLabel + " " + s.Speaker
		}
		fmt.Fprintf(&b, "[%.1f] %s: %s\n", s.Start, speaker, strings.TrimSpace(s.Text))
	}
	return b.String()
}

// ParseAnalysis reads a chat completion body into one result per question,
// never failing: what cannot be used becomes "unclear" with the reason.
func ParseAnalysis(body []byte, questions []domain.Question) map[string]domain.QuestionResult {
	out := make(map[string]domain.QuestionResult, len(questions))
	unclear := func(q domain.Question, reason string) domain.QuestionResult {
		return domain.QuestionResult{Question: q.Text, Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}, Reason: reason}
	}
	obj, err := completionObject(body)
	var ans analysisAnswer
	if err == nil {
		if raw, ok := obj["results"]; !ok || json.Unmarshal(raw, &ans.Results) != nil || ans.Results == nil {
			err = invalid(`the answer has no "results" object`)
		}
	}
	if err != nil {
		for _, q := range questions {
			out[q.ID] = unclear(q, "the chat model's answer was invalid: "+err.Error())
		}
		return out
	}
	for _, q := range questions {
		raw, ok := ans.Results[q.ID]
		if !ok {
			out[q.ID] = unclear(q, "the chat model did not answer this question")
			continue
		}
		r, err := checkResult(raw)
		if err != nil {
			out[q.ID] = unclear(q, "the chat model's answer to this question was invalid: "+err.Error())
			continue
		}
		r.Question = q.Text
		out[q.ID] = r
	}
	return out
}

func checkResult(raw json.RawMessage) (domain.QuestionResult, error) {
	var v struct {
		Answer   string `json:"answer"`
		Score    any    `json:"score"`
		Evidence []struct {
			Speaker *string `json:"speaker"`
			Text    string  `json:"text"`
			Start   any     `json:"start"`
		} `json:"evidence"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return domain.QuestionResult{}, fmt.Errorf("not an object of the asked shape: %v", err)
	}
	answer := strings.ToLower(strings.TrimSpace(v.Answer))
	if !domain.ValidAnswer(answer) {
		return domain.QuestionResult{}, fmt.Errorf("answer %q is not yes, no or unclear", retryhttp.Snippet([]byte(v.Answer), 40))
	}
	score, ok := v.Score.(float64)
	if !ok || math.IsNaN(score) || score < 0 || score > 1 {
		return domain.QuestionResult{}, errors.New("score is not a number from 0 to 1")
	}
	r := domain.QuestionResult{Answer: answer, Score: score, Evidence: []domain.Evidence{}}
	for _, e := range v.Evidence {
		text := strings.TrimSpace(e.Text)
		if text == "" || len(r.Evidence) == 3 {
			continue
		}
		ev := domain.Evidence{Text: text}
		if e.Speaker != nil && strings.HasPrefix(*e.Speaker, domain.SpeakerLabel) {
			s := *e.Speaker
			ev.Speaker = &s
		}
		if f, ok := e.Start.(float64); ok && f >= 0 && !math.IsInf(f, 0) {
			ev.Start = &f
		}
		r.Evidence = append(r.Evidence, ev)
	}
	return r, nil
}

// completionObject returns the JSON object in a chat completion's message.
func completionObject(body []byte) (map[string]json.RawMessage, error) {
	var res struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
				Refusal string          `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return nil, invalid("the completion is not JSON (%v)", err)
	}
	if len(res.Choices) == 0 {
		return nil, invalid("the completion has no choices")
	}
	if r := res.Choices[0].Message.Refusal; r != "" {
		return nil, invalid("the model refused: %s", retryhttp.Snippet([]byte(r), retryhttp.SnippetBytes))
	}
	content := text(res.Choices[0].Message.Content)
	if content == "" {
		return nil, invalid("the message is empty")
	}
	obj, err := object(content)
	if err != nil {
		return nil, invalid("the message is not a JSON object (%v)", err)
	}
	return obj, nil
}
