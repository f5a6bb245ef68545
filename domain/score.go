package domain

// Score is a call's checklist total, the one every page, export and report
// shows: how many questions were answered yes out of how many, and the
// weighted mean of the questions' scores (each question's weight from the
// checklist version analysed; a missing or non-positive weight counts 1).
type Score struct {
	Yes   int
	Of    int
	Value float64 // 0..1
}

// WeightedScore is the weighted mean of results' scores under weights
// (question id → weight; missing or non-positive counts 1). No results
// score 0.
func WeightedScore(results map[string]QuestionResult, weights map[string]float64) float64 {
	var weighted, total float64
	for qid, r := range results {
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
// weights (ChecklistWeights). A failed analysis has no answers: 0 of 0.
func ScoreOf(a Analysis, weights map[string]float64) Score {
	s := Score{Of: len(a.Results), Value: WeightedScore(a.Results, weights)}
	for _, r := range a.Results {
		if r.Answer == AnswerYes {
			s.Yes++
		}
	}
	return s
}
