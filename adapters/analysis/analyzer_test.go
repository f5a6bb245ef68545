package analysis_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Բարև Ձեզ։", "բարեվ ձեզ "},
		{"բարեւ ձեզ", "բարեվ ձեզ"},
		{"ԲԱՐԵՎ", "բարեվ"},
		{"Ինչո՞վ կարող եմ օգնել", "ինչով կարող եմ օգնել"},
		{"Շնորհակալությու՛ն, ցտեսություն", "շնորհակալություն  ցտեսություն"},
		{"«Արմենիա»—բանկ", " արմենիա  բանկ"},
		{"Երևան, Եւրոպա", "երեվան  եվրոպա"},
	}
	for _, tt := range tests {
		if got := analysis.Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		{"պատվերը", "պատվեր"},      // definite article
		{"պատվերներով", "պատվեր"},  // plural + instrumental
		{"զանգում", "զանգ"},        // locative
		{"հաճախորդին", "հաճախորդ"}, // dative
		{"մեր", "մեր"},             // too short to cut
		{"ես", "ես"},
	}
	for _, tt := range tests {
		if got := analysis.Stem(tt.in); got != tt.want {
			t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func call(lines ...[2]string) ports.AnalysisInput {
	in := ports.AnalysisInput{Type: domain.TypePhoneCall}
	for i, l := range lines {
		in.Segments = append(in.Segments, domain.Segment{Start: float64(i) * 2.5, End: float64(i)*2.5 + 2, Speaker: l[0], Text: l[1]})
	}
	return in
}

func TestAnalyze(t *testing.T) {
	in := call(
		[2]string{"1", "Բարև ձեզ, «Արմենիա» ընկերություն, ես Անին եմ։"},
		[2]string{"2", "Բարեւ, ուզում եմ պատվերս հաստատել։"},
		[2]string{"1", "Ձեր պատվերը հաստատված է, շնորհակալությու՛ն զանգի համար։"},
	)
	tests := []struct {
		name        string
		q           domain.Question
		answer      string
		minScore    float64
		speaker     string
		start       float64
		noEvidence  bool
		wantsReason bool
	}{
		{name: "ligature and եւ spelling", q: domain.Question{ID: "greet", Text: "Ողջունե՞ց", Expect: []string{"բարեւ ձեզ"}}, answer: "yes", minScore: 1, speaker: "Խոսնակ 1", start: 0},
		{name: "suffix and stress mark", q: domain.Question{ID: "thanks", Text: "Շնորհակալություն հայտնե՞ց", Expect: []string{"շնորհակալություն զանգի համար"}}, answer: "yes", minScore: 1, speaker: "Խոսնակ 1", start: 5},
		{name: "inflected form", q: domain.Question{ID: "order", Text: "Պատվերը հաստատվե՞ց", Expect: []string{"պատվերները հաստատված"}}, answer: "yes", minScore: 1, speaker: "Խոսնակ 1", start: 5},
		{name: "recognition typo", q: domain.Question{ID: "company", Text: "Ընկերությունը ներկայացրե՞ց", Expect: []string{"Արմենյա ընկերություն"}}, answer: "yes", minScore: 0.85, speaker: "Խոսնակ 1", start: 0},
		{name: "absent", q: domain.Question{ID: "bye", Text: "Հրաժեշտ տվե՞ց", Expect: []string{"ցտեսություն", "հաջողություն"}}, answer: "no", noEvidence: true},
		{name: "no phrases", q: domain.Question{ID: "tone", Text: "Քաղաքավարի՞ էր"}, answer: "unclear", noEvidence: true, wantsReason: true},
	}
	var qs []domain.Question
	for _, tt := range tests {
		qs = append(qs, tt.q)
	}
	got, err := analysis.New().Analyze(context.Background(), in, qs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(qs) {
		t.Fatalf("%d results for %d questions", len(got), len(qs))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := got[tt.q.ID]
			if r.Answer != tt.answer || r.Score < tt.minScore || r.Question != tt.q.Text {
				t.Fatalf("result %+v, want answer %s score ≥ %v", r, tt.answer, tt.minScore)
			}
			if tt.noEvidence {
				if len(r.Evidence) != 0 {
					t.Fatalf("evidence %+v, want none", r.Evidence)
				}
			} else {
				if len(r.Evidence) == 0 || r.Evidence[0].Speaker == nil || *r.Evidence[0].Speaker != tt.speaker || r.Evidence[0].Start == nil || *r.Evidence[0].Start != tt.start {
					t.Fatalf("evidence %s, want speaker %s at %v", dump(r.Evidence), tt.speaker, tt.start)
				}
			}
			if tt.wantsReason != (r.Reason != "") {
				t.Fatalf("reason %q", r.Reason)
			}
		})
	}
}

func TestAnalyzeSingleVoiceText(t *testing.T) {
	in := ports.AnalysisInput{Type: domain.TypeSingleVoice, Transcription: "Բարև, սա հիշեցում է ձեր այցելության մասին։"}
	got, err := analysis.New().Analyze(context.Background(), in, []domain.Question{{ID: "remind", Text: "Հիշեցո՞ւմ է", Expect: []string{"հիշեցում"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := got["remind"]
	if r.Answer != "yes" || len(r.Evidence) != 1 || r.Evidence[0].Speaker != nil || r.Evidence[0].Start != nil {
		t.Fatalf("got %s", dump(r))
	}
}

func BenchmarkAnalyze(b *testing.B) {
	var lines [][2]string
	for i := 0; i < 200; i++ {
		lines = append(lines, [2]string{"1", "Բարև ձեզ, ինչո՞վ կարող եմ օգնել, ձեր պատվերը հաստատված է։"}, [2]string{"2", "Շնորհակալություն, ցտեսություն։"})
	}
	in := call(lines...)
	qs := []domain.Question{
		{ID: "a", Text: "a", Expect: []string{"բարի օր", "բարև ձեզ"}},
		{ID: "b", Text: "b", Expect: []string{"պատվերը հաստատված"}},
		{ID: "c", Text: "c", Expect: []string{"ունե՞ք այլ հարցեր"}},
	}
	for b.Loop() {
		if _, err := analysis.New().Analyze(context.Background(), in, qs); err != nil {
			b.Fatal(err)
		}
	}
}

// bigInput is a transcript of n passages of ten words each.
func bigInput(n int) ports.AnalysisInput {
	segs := make([]domain.Segment, n)
	for i := range segs {
		segs[i] = domain.Segment{Start: float64(i), End: float64(i) + 1, Text: "բարև ձեզ ես զանգում եմ պատվերի մասին խնդրում եմ ասել"}
	}
	return ports.AnalysisInput{Type: domain.TypeSingleVoice, Segments: segs}
}

// endingCtx is a context that ends after its Err was asked n times: the
// analysis must notice it inside a question, not only between questions.
type endingCtx struct {
	context.Context
	n, asked int
}

func (c *endingCtx) Err() error {
	c.asked++
	if c.asked > c.n {
		return context.Canceled
	}
	return nil
}

func TestAnalysisStopsInsideAQuestionWhenCancelled(t *testing.T) {
	q := domain.Question{ID: "q1", Text: "one question", Expect: []string{"պատվերի մասին"}}
	ctx := &endingCtx{Context: context.Background(), n: 3}
	_, err := analysis.New().Analyze(ctx, bigInput(100), []domain.Question{q})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a context that ended while the one question was matched: %v (asked %d times), want context.Canceled", err, ctx.asked)
	}
}

func TestAnalysisWorkIsBounded(t *testing.T) {
	// 10,000 words: a question of 20 phrases costs 200,000 comparisons.
	in := bigInput(1000)
	var qs []domain.Question
	per := 20 * 10000
	n := analysis.MaxComparisons/per + 3
	for i := 0; i < n; i++ {
		q := domain.Question{ID: "q" + strconv.Itoa(i), Text: "q"}
		for k := 0; k < 20; k++ {
			q.Expect = append(q.Expect, "ոչ մի նման բան")
		}
		qs = append(qs, q)
	}
	res, err := analysis.New().Analyze(context.Background(), in, qs)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for _, r := range res {
		if r.Answer == domain.AnswerNo {
			answered++
		}
	}
	if want := analysis.MaxComparisons / per; answered != want || len(res) != n {
		t.Fatalf("%d of %d questions answered, want %d within the budget and the rest unclear", answered, n, want)
	}
}
