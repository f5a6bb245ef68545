package domain

import "time"

// ReviewReport compares the machine's answers with the reviewed ones for
// one checklist over a period (issue 36): analytics' view of the QA loop.
type ReviewReport struct {
	AccountID   AccountID `json:"accountId"`
	ChecklistID string    `json:"checklistId"`
	From        time.Time `json:"from"` // inclusive
	To          time.Time `json:"to"`   // exclusive
	// Reviewed is how many calls were reviewed; MachineScore and
	// ReviewedScore are the mean scores of those calls (ScoreOf) before and
	// after review.
	Reviewed      int64                 `json:"reviewed"`
	MachineScore  float64               `json:"machineScore"`
	ReviewedScore float64               `json:"reviewedScore"`
	Questions     []ReviewQuestionStats `json:"questions"`
}

// ReviewQuestionStats are one question's reviewed answers over the period.
type ReviewQuestionStats struct {
	QuestionID string `json:"questionId"`
	Question   string `json:"question"`
	Reviewed   int64  `json:"reviewed"`   // reviewed answers
	Agreed     int64  `json:"agreed"`     // the reviewer's answer is the machine's
	Overridden int64  `json:"overridden"` // the reviewer changed the answer
	// Agreement is Agreed / Reviewed: how far the machine can be trusted
	// on this question.
	Agreement        float64 `json:"agreement"`
	MachineYes       int64   `json:"machineYes"`
	ReviewedYes      int64   `json:"reviewedYes"`
	MachinePassRate  float64 `json:"machinePassRate"`  // MachineYes / Reviewed
	ReviewedPassRate float64 `json:"reviewedPassRate"` // ReviewedYes / Reviewed
	MachineScore     float64 `json:"machineScore"`     // mean machine score of the reviewed answers
	ReviewedScore    float64 `json:"reviewedScore"`    // mean reviewed score
}

// Finish computes the rates from the counts.
func (q *ReviewQuestionStats) Finish() {
	if q.Reviewed == 0 {
		return
	}
	n := float64(q.Reviewed)
	q.Agreement, q.MachinePassRate, q.ReviewedPassRate = float64(q.Agreed)/n, float64(q.MachineYes)/n, float64(q.ReviewedYes)/n
}
