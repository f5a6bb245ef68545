package clickhouse

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// reviewResultCols and reviewCols hold a batch of reviews column by column
// (see resultCols).
type reviewResultCols struct {
	account, checklist, analysis, question, doc, text, machine, answer, reason, reviewer []string
	revision                                                                             []uint32
	machineScore, score, weight                                                          []float64
	overridden                                                                           []uint8
	reviewedMs, analysedMs                                                               []uint16
	reviewedAt, analysedAt                                                               []time.Time
}

type reviewCols struct {
	account, checklist, analysis, doc, reviewer, comment []string
	revision, version                                    []uint32
	questions, overridden, reviewedMs, analysedMs        []uint16
	machineScore, reviewedScore                          []float64
	reviewedAt, analysedAt                               []time.Time
}

// writeReviews stores analysis.reviewed events: a row per question in
// review_results, a row per review in reviews, each INSERT with its
// column list.
func (s *Store) writeReviews(ctx context.Context, events []domain.Event) error {
	var r reviewResultCols
	var a reviewCols
	for _, ev := range events {
		var d domain.AnalysisReviewedData
		if err := ev.DecodeData(&d); err != nil {
			return domain.Permanent(fmt.Errorf("clickhouse.Write: %w", err))
		}
		rAt, rMs := splitMs(d.ReviewedAt)
		aAt, aMs := splitMs(d.AnalysedAt)
		var overridden uint16
		for qid, ans := range d.Answers {
			w := d.Weights[qid]
			if w <= 0 {
				w = 1
			}
			var o uint8
			if ans.Overridden {
				o, overridden = 1, overridden+1
			}
			r.account = append(r.account, string(ev.AccountID))
			r.checklist = append(r.checklist, d.ChecklistID)
			r.analysis = append(r.analysis, d.AnalysisID)
			r.question = append(r.question, qid)
			r.doc = append(r.doc, string(ev.DocID))
			r.revision = append(r.revision, uint32(d.Revision))
			r.text = append(r.text, ans.Question)
			r.machine = append(r.machine, ans.MachineAnswer)
			r.machineScore = append(r.machineScore, ans.MachineScore)
			r.answer = append(r.answer, ans.Answer)
			r.score = append(r.score, ans.Score)
			r.overridden = append(r.overridden, o)
			r.reason = append(r.reason, ans.Reason)
			r.weight = append(r.weight, w)
			r.reviewer = append(r.reviewer, d.Reviewer.ID)
			r.reviewedAt, r.reviewedMs = append(r.reviewedAt, rAt), append(r.reviewedMs, rMs)
			r.analysedAt, r.analysedMs = append(r.analysedAt, aAt), append(r.analysedMs, aMs)
		}
		a.account = append(a.account, string(ev.AccountID))
		a.checklist = append(a.checklist, d.ChecklistID)
		a.analysis = append(a.analysis, d.AnalysisID)
		a.doc = append(a.doc, string(ev.DocID))
		a.revision = append(a.revision, uint32(d.Revision))
		a.version = append(a.version, uint32(d.ChecklistVersion))
		a.reviewer = append(a.reviewer, d.Reviewer.ID)
		a.comment = append(a.comment, d.Comment)
		a.questions = append(a.questions, uint16(min(len(d.Answers), 65535)))
		a.overridden = append(a.overridden, overridden)
		a.machineScore = append(a.machineScore, d.MachineScore)
		a.reviewedScore = append(a.reviewedScore, d.ReviewedScore)
		a.reviewedAt, a.reviewedMs = append(a.reviewedAt, rAt), append(a.reviewedMs, rMs)
		a.analysedAt, a.analysedMs = append(a.analysedAt, aAt), append(a.analysedMs, aMs)
	}
	if len(r.account) > 0 {
		b, err := s.conn.PrepareBatch(ctx, `INSERT INTO review_results (account_id, checklist_id, analysis_id, question_id, doc_id,
			revision, question, machine_answer, machine_score, answer, score, overridden, reason, weight, reviewer_id,
			reviewed_at, reviewed_ms, analysed_at, analysed_ms)`)
		if err != nil {
			return fmt.Errorf("clickhouse.Write: review results: %w", err)
		}
		defer b.Abort()
		if err := appendColumns(b, r.account, r.checklist, r.analysis, r.question, r.doc, r.revision, r.text, r.machine,
			r.machineScore, r.answer, r.score, r.overridden, r.reason, r.weight, r.reviewer,
			r.reviewedAt, r.reviewedMs, r.analysedAt, r.analysedMs); err != nil {
			return fmt.Errorf("clickhouse.Write: review results: %w", err)
		}
		if err := b.Send(); err != nil {
			return fmt.Errorf("clickhouse.Write: review results: %w", err)
		}
	}
	b, err := s.conn.PrepareBatch(ctx, `INSERT INTO reviews (account_id, checklist_id, analysis_id, doc_id, revision,
		checklist_version, reviewer_id, comment, questions, overridden, machine_score, reviewed_score,
		reviewed_at, reviewed_ms, analysed_at, analysed_ms)`)
	if err != nil {
		return fmt.Errorf("clickhouse.Write: reviews: %w", err)
	}
	defer b.Abort()
	if err := appendColumns(b, a.account, a.checklist, a.analysis, a.doc, a.revision, a.version, a.reviewer, a.comment,
		a.questions, a.overridden, a.machineScore, a.reviewedScore, a.reviewedAt, a.reviewedMs, a.analysedAt, a.analysedMs); err != nil {
		return fmt.Errorf("clickhouse.Write: reviews: %w", err)
	}
	if err := b.Send(); err != nil {
		return fmt.Errorf("clickhouse.Write: reviews: %w", err)
	}
	return nil
}

// The review report's queries, also in docs/analytics.md. FINAL keeps each
// call's latest review revision.
const (
	reviewQuestionsSQL = `SELECT question_id, argMax(question, reviewed_at) AS question, count() AS reviewed,
	countIf(answer = machine_answer) AS agreed, countIf(overridden = 1) AS overridden,
	countIf(machine_answer = 'yes') AS machine_yes, countIf(answer = 'yes') AS reviewed_yes,
	avg(machine_score) AS machine_score, avg(score) AS reviewed_score
FROM review_results FINAL
WHERE account_id = ? AND checklist_id = ? AND analysed_at >= toDateTime(?) AND analysed_at < toDateTime(?)
GROUP BY question_id
ORDER BY question_id`

	reviewTotalsSQL = `SELECT count() AS reviewed, avg(machine_score) AS machine_score, avg(reviewed_score) AS reviewed_score
FROM reviews FINAL
WHERE account_id = ? AND checklist_id = ? AND analysed_at >= toDateTime(?) AND analysed_at < toDateTime(?)`
)

// ReviewReport compares the machine with the people who reviewed it, for
// the account's checklist over [from, to) (calls by their analysis time):
// per question how often the reviewers agreed with the machine, and the
// machine's and the reviewed scores of the reviewed calls.
func (s *Store) ReviewReport(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) (domain.ReviewReport, error) {
	if err := domain.ValidateReportPeriod(from, to); err != nil {
		return domain.ReviewReport{}, err
	}
	rep := domain.ReviewReport{AccountID: account, ChecklistID: checklistID, From: from.UTC(), To: to.UTC(), Questions: []domain.ReviewQuestionStats{}}
	args := []any{string(account), checklistID, from.Unix(), to.Unix()}
	rows, err := s.conn.Query(ctx, reviewQuestionsSQL, args...)
	if err != nil {
		return rep, fmt.Errorf("clickhouse.ReviewReport: questions: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var q domain.ReviewQuestionStats
		var reviewed, agreed, overridden, myes, ryes uint64
		if err := rows.Scan(&q.QuestionID, &q.Question, &reviewed, &agreed, &overridden, &myes, &ryes, &q.MachineScore, &q.ReviewedScore); err != nil {
			return rep, fmt.Errorf("clickhouse.ReviewReport: questions: %w", err)
		}
		q.Reviewed, q.Agreed, q.Overridden, q.MachineYes, q.ReviewedYes = int64(reviewed), int64(agreed), int64(overridden), int64(myes), int64(ryes)
		q.Finish()
		rep.Questions = append(rep.Questions, q)
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("clickhouse.ReviewReport: questions: %w", err)
	}
	var n uint64
	if err := s.conn.QueryRow(ctx, reviewTotalsSQL, args...).Scan(&n, &rep.MachineScore, &rep.ReviewedScore); err != nil {
		return rep, fmt.Errorf("clickhouse.ReviewReport: totals: %w", err)
	}
	rep.Reviewed = int64(n)
	if math.IsNaN(rep.MachineScore) || math.IsNaN(rep.ReviewedScore) { // avg over no review
		rep.MachineScore, rep.ReviewedScore = 0, 0
	}
	return rep, nil
}
