package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestChecklistBoundsNameTheBound(t *testing.T) {
	phrases := func(n, runes int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("ա", runes)
		}
		return out
	}
	qs := func(n int) []Question {
		out := make([]Question, n)
		for i := range out {
			out[i] = Question{ID: "q" + strings.Repeat("x", i), Text: "t"}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		qs   []Question
		want string // "" accepted
	}{
		{"at the bounds", []Question{{ID: "q", Text: strings.Repeat("ա", MaxQuestionTextRunes), Expect: phrases(MaxQuestionPhrases, MaxPhraseRunes)}}, ""},
		{"questions", qs(MaxChecklistQuestions + 1), "at most 50 are allowed"},
		{"phrases", []Question{{ID: "q", Text: "t", Expect: phrases(MaxQuestionPhrases+1, 1)}}, "21 expected phrases; at most 20"},
		{"phrase length", []Question{{ID: "q", Text: "t", Expect: phrases(1, MaxPhraseRunes+1)}}, "101 characters; at most 100"},
		{"question text", []Question{{ID: "q", Text: strings.Repeat("ա", MaxQuestionTextRunes+1)}}, "at most 500"},
		{"question id", []Question{{ID: strings.Repeat("q", MaxQuestionIDBytes+1), Text: "t"}}, "at most 64"},
	} {
		err := CheckChecklistBounds("QA", tc.qs)
		var ve *ValidationError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.As(err, &ve) || ve.Code != "checklist_too_large" || !strings.Contains(ve.Msg, tc.want)):
			t.Errorf("%s: %v, want checklist_too_large saying %q", tc.name, err, tc.want)
		}
	}
}
