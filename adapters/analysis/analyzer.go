package analysis

import (
	"context"
	"math"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Thresholds of the best phrase match: at or above Yes the answer is "yes";
// between Unclear and Yes the match is too loose to decide.
const (
	YesThreshold     = 0.85
	UnclearThreshold = 0.6
	maxEvidence      = 3
)

// Analyzer is the built-in ports.ChecklistAnalyzer.
type Analyzer struct{}

var _ ports.ChecklistAnalyzer = Analyzer{}

// New returns the built-in analyser.
func New() Analyzer { return Analyzer{} }

type passage struct {
	seg    domain.Segment
	tokens []token
	timed  bool
}

// MaxComparisons bounds one analysis's work: phrases times transcript
// words, summed over the questions; about 0.7 s of CPU here. A checklist
// within the domain's bounds (1,000 phrases) fits it against 10,000 words,
// about an hour of speech; questions past it are "unclear" with a reason
// (docs/security.md).
const MaxComparisons = 10_000_000

// Analyze answers each question from its expected phrases. A question
// without phrases cannot be decided by matching: it is "unclear" with a
// reason saying so. The work is bounded by MaxComparisons and stops when
// ctx ends, inside a question as between them.
func (Analyzer) Analyze(ctx context.Context, in ports.AnalysisInput, questions []domain.Question) (map[string]domain.QuestionResult, error) {
	passages := split(in)
	words := 0
	for _, p := range passages {
		words += len(p.tokens)
	}
	out := make(map[string]domain.QuestionResult, len(questions))
	spent := 0
	for _, q := range questions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cost := len(q.Expect) * words
		if spent+cost > MaxComparisons {
			out[q.ID] = domain.QuestionResult{Question: q.Text, Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{},
				Reason: "the checklist is too large for this transcript: the built-in analyser stopped before this question"}
			continue
		}
		spent += cost
		r, err := answer(ctx, q, passages)
		if err != nil {
			return nil, err
		}
		out[q.ID] = r
	}
	return out, nil
}

func answer(ctx context.Context, q domain.Question, passages []passage) (domain.QuestionResult, error) {
	r := domain.QuestionResult{Question: q.Text, Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}}
	if len(q.Expect) == 0 {
		r.Reason = domain.ReasonNoPhrases
		return r, nil
	}
	type hit struct {
		p     passage
		score float64
	}
	phrases := make([][]token, len(q.Expect))
	for i, phrase := range q.Expect {
		phrases[i] = tokenize(phrase)
	}
	var hits []hit
	best := 0.0
	for _, p := range passages {
		// At every passage: a cancelled analysis stops within one.
		if err := ctx.Err(); err != nil {
			return r, err
		}
		score := 0.0
		for _, phrase := range phrases {
			score = max(score, matchPhrase(phrase, p.tokens))
		}
		if score >= UnclearThreshold {
			hits = append(hits, hit{p, score})
		}
		best = max(best, score)
	}
	switch {
	case best >= YesThreshold:
		r.Answer = domain.AnswerYes
	case best >= UnclearThreshold:
		r.Reason = domain.ReasonApproximate
	default:
		r.Answer = domain.AnswerNo
		r.Score = 0
		return r, nil
	}
	r.Score = math.Round(best*1000) / 1000
	for _, h := range hits {
		if len(r.Evidence) == maxEvidence {
			break
		}
		if r.Answer == domain.AnswerYes && h.score < YesThreshold {
			continue
		}
		r.Evidence = append(r.Evidence, evidence(h.p))
	}
	return r, nil
}

func evidence(p passage) domain.Evidence {
	e := domain.Evidence{Text: p.seg.Text}
	if p.seg.Speaker != "" {
		label := domain.SpeakerLabel + " " + p.seg.Speaker
		e.Speaker = &label
	}
	if p.timed {
		start := p.seg.Start
		e.Start = &start
	}
	return e
}

// split turns the transcript into passages: its segments when it has them,
// else its lines (phone_call "Խոսնակ N:" lines keep their speaker).
func split(in ports.AnalysisInput) []passage {
	var out []passage
	if len(in.Segments) > 0 {
		for _, s := range in.Segments {
			if in.Type != domain.TypePhoneCall {
				s.Speaker = ""
			}
			out = append(out, passage{seg: s, tokens: tokenize(s.Text), timed: true})
		}
		return out
	}
	for _, line := range strings.Split(in.Transcription, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		seg := domain.Segment{Text: line}
		if rest, ok := strings.CutPrefix(line, domain.SpeakerLabel+" "); ok {
			if n, text, ok := strings.Cut(rest, ":"); ok && len(n) == 1 {
				seg.Speaker, seg.Text = n, strings.TrimSpace(text)
			}
		}
		out = append(out, passage{seg: seg, tokens: tokenize(seg.Text)})
	}
	return out
}
