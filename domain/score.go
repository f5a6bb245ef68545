package domain

// Score is a call's checklist total, the one every page, export and report
// shows: how many questions were answered yes out of how many were
// answered (yes or no), and the weighted mean of the answered questions'
// scores (each question's weight from the checklist version analysed; a
// missing or non-positive weight counts 1).
//
// An "unclear" answer is no answer (Counts): it stays out of the score and
// out of every pass rate, so a call whose answers are all unclear is not
// scored (Scored), never "scored 0", and a call with some unclear answers
// says how many (Unclear) and whether they wait for the speakers to be
// named (NeedsNames).
type Score struct {
	Yes     int
	Of      int // questions answered yes or no
	Unclear int // questions answered "unclear": in neither Yes, Of nor Value
	Value   float64
	// NeedsNames: some answer is unclear because its question is limited to
	// a role (agent, customer) nobody in the call has yet
	// (RoleUnknownReason): naming the speakers answers it.
	NeedsNames bool
}

// Scored reports whether the call has a score: at least one question was
// answered yes or no. A failed analysis is not scored either.
func (s Score) Scored() bool { return s.Of > 0 }

// Counts reports whether an answer counts in a score and in a pass rate's
// denominator: yes and no do, "unclear" does not. The ClickHouse report's
// SQL says the same (`answer != 'unclear'`, docs/analytics.md).
func Counts(answer string) bool { return answer == AnswerYes || answer == AnswerNo }

// WeightedScore is the weighted mean of the scores of results' answered
// questions (Counts) under weights (question id → weight; missing or
// non-positive counts 1). No answered question: 0, and the call is not
// scored (ScoreOf).
func WeightedScore(results map[string]QuestionResult, weights map[string]float64) float64 {
	var weighted, total float64
	for qid, r := range results {
		if !Counts(r.Answer) {
			continue
		}
		w := weights[qid]
		if w <= 0 || w != w {
			w = 1
		}
		weighted += w * clamp01(r.Score)
		total += w
	}
	if total == 0 {
		return 0
	}
	return weighted / total
}

// ScoreOf is the total of an analysis under its checklist version's
// weights (ChecklistWeights). A failed analysis has no answers: 0 of 0,
// not scored.
func ScoreOf(a Analysis, weights map[string]float64) Score {
	s := Score{Value: WeightedScore(a.Results, weights), NeedsNames: NeedsSpeakerNames(a.Results)}
	for _, r := range a.Results {
		switch {
		case r.Answer == AnswerYes:
			s.Yes++
			s.Of++
		case Counts(r.Answer):
			s.Of++
		default:
			s.Unclear++
		}
	}
	return s
}

// NeedsSpeakerNames reports whether some of results is "unclear" because
// its question is limited to a role nobody in the call has
// (RoleUnknownReason): a mono call whose agent is not named yet.
func NeedsSpeakerNames(results map[string]QuestionResult) bool {
	for _, r := range results {
		if r.Answer == AnswerUnclear && (r.Reason == RoleUnknownReason(SpeakerAgent) || r.Reason == RoleUnknownReason(SpeakerCustomer)) {
			return true
		}
	}
	return false
}
