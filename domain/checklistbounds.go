package domain

import (
	"unicode/utf8"
)

// Bounds of a checklist (docs/security.md). The built-in analyser compares
// every expected phrase with every passage of a transcript, so its work
// grows with their product: a 242 KiB form of 62,000 one-letter phrases
// took 6.6 s of CPU per Preview. Within these bounds a checklist holds at
// most 1,000 phrases of at most 100 characters.
const (
	MaxChecklistQuestions = 50
	MaxQuestionPhrases    = 20
	MaxPhraseRunes        = 100
	MaxQuestionTextRunes  = 500
	MaxQuestionIDBytes    = 64
	MaxChecklistNameRunes = 200
)

// CheckChecklistBounds refuses a checklist beyond the bounds, naming the
// question and the bound.
func CheckChecklistBounds(name string, questions []Question) error {
	if n := utf8.RuneCountInString(name); n > MaxChecklistNameRunes {
		return Invalid("checklist_too_large", "the checklist name is %d characters; at most %d are allowed", n, MaxChecklistNameRunes)
	}
	if len(questions) > MaxChecklistQuestions {
		return Invalid("checklist_too_large", "the checklist has %d questions; at most %d are allowed", len(questions), MaxChecklistQuestions)
	}
	for i, q := range questions {
		if len(q.ID) > MaxQuestionIDBytes {
			return Invalid("checklist_too_large", "question %d: its id is %d bytes; at most %d are allowed", i+1, len(q.ID), MaxQuestionIDBytes)
		}
		if n := utf8.RuneCountInString(q.Text); n > MaxQuestionTextRunes {
			return Invalid("checklist_too_large", "question %q is %d characters; at most %d are allowed", q.ID, n, MaxQuestionTextRunes)
		}
		if len(q.Expect) > MaxQuestionPhrases {
			return Invalid("checklist_too_large", "question %q has %d expected phrases; at most %d are allowed", q.ID, len(q.Expect), MaxQuestionPhrases)
		}
		for _, p := range q.Expect {
			if n := utf8.RuneCountInString(p); n > MaxPhraseRunes {
				return Invalid("checklist_too_large", "question %q: an expected phrase is %d characters; at most %d are allowed", q.ID, n, MaxPhraseRunes)
			}
		}
	}
	return nil
}
