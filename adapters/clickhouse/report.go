package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// The report's queries, also in docs/analytics.md for analysts. FINAL makes
// a redelivered analysis count once even before background merges. A call
// counts on its own day (call_at), however late it was analysed again; an
// "unclear" answer is no answer (domain.Counts): out of pass rates and
// average scores, and a call with no yes or no answer is not scored.
const (
	questionStatsSQL = `SELECT question_id, argMax(question, analysed_at) AS question, count() AS answers,
	countIf(answer = 'yes') AS yes, countIf(answer = 'no') AS no, countIf(answer = 'unclear') AS unclear,
	avgIf(score, answer != 'unclear') AS avg_score
FROM checklist_results FINAL
WHERE account_id = ? AND checklist_id = ? AND call_at >= toDateTime(?) AND call_at < toDateTime(?)
GROUP BY question_id
ORDER BY question_id`

	dayStatsSQL = `SELECT toString(toDate(call_at, ?)) AS day, count() AS analyses, countIf(status = 'failed') AS failed,
	countIf(status = 'ok' AND yes + no > 0) AS scored, avgIf(score, status = 'ok' AND yes + no > 0) AS avg_score
FROM analyses FINAL
WHERE account_id = ? AND checklist_id = ? AND call_at >= toDateTime(?) AND call_at < toDateTime(?)
GROUP BY day
ORDER BY day`
)

// ChecklistReport summarises the account's checklist over [from, to).
func (s *Store) ChecklistReport(ctx context.Context, account domain.AccountID, checklistID string, from, to time.Time) (domain.ChecklistReport, error) {
	if err := domain.ValidateReportPeriod(from, to); err != nil {
		return domain.ChecklistReport{}, err
	}
	rep := domain.ChecklistReport{AccountID: account, ChecklistID: checklistID, From: from.UTC(), To: to.UTC(),
		Questions: []domain.QuestionStats{}, Days: []domain.DayStats{}}
	args := []any{string(account), checklistID, from.Unix(), to.Unix()}
	rows, err := s.conn.Query(ctx, questionStatsSQL, args...)
	if err != nil {
		return rep, fmt.Errorf("clickhouse.ChecklistReport: questions: %w", err)
	}
	for rows.Next() {
		var q domain.QuestionStats
		var answers, yes, no, unclear uint64
		if err := rows.Scan(&q.QuestionID, &q.Question, &answers, &yes, &no, &unclear, &q.AvgScore); err != nil {
			rows.Close()
			return rep, fmt.Errorf("clickhouse.ChecklistReport: questions: %w", err)
		}
		q.Answers, q.Yes, q.No, q.Unclear = int64(answers), int64(yes), int64(no), int64(unclear)
		if yes+no > 0 {
			q.PassRate = float64(yes) / float64(yes+no)
		}
		if q.AvgScore != q.AvgScore { // avgIf over no answered question is nan
			q.AvgScore = 0
		}
		rep.Questions = append(rep.Questions, q)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("clickhouse.ChecklistReport: questions: %w", err)
	}
	// Days are the account's calendar days (domain.ReportZone).
	rows, err = s.conn.Query(ctx, dayStatsSQL, append([]any{domain.ReportZone(from).String()}, args...)...)
	if err != nil {
		return rep, fmt.Errorf("clickhouse.ChecklistReport: days: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var d domain.DayStats
		var n, failed, scored uint64
		if err := rows.Scan(&d.Day, &n, &failed, &scored, &d.AvgScore); err != nil {
			return rep, fmt.Errorf("clickhouse.ChecklistReport: days: %w", err)
		}
		d.Analyses, d.Failed, d.Scored = int64(n), int64(failed), int64(scored)
		if d.AvgScore != d.AvgScore { // avgIf over no scored analysis is nan
			d.AvgScore = 0
		}
		rep.Days = append(rep.Days, d)
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("clickhouse.ChecklistReport: days: %w", err)
	}
	return rep, nil
}
