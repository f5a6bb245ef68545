package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// The report's queries, also in docs/analytics.md for analysts. FINAL makes
// a redelivered analysis count once even before background merges.
const (
	questionStatsSQL = `SELECT question_id, argMax(question, analysed_at) AS question, count() AS answers,
	countIf(answer = 'yes') AS yes, countIf(answer = 'no') AS no, countIf(answer = 'unclear') AS unclear,
	avg(score) AS avg_score
FROM checklist_results FINAL
WHERE account_id = ? AND checklist_id = ? AND analysed_at >= toDateTime(?) AND analysed_at < toDateTime(?)
GROUP BY question_id
ORDER BY question_id`

	dayStatsSQL = `SELECT toString(toDate(analysed_at, ?)) AS day, count() AS analyses, countIf(status = 'failed') AS failed,
	avgIf(score, status = 'ok') AS avg_score
FROM analyses FINAL
WHERE account_id = ? AND checklist_id = ? AND analysed_at >= toDateTime(?) AND analysed_at < toDateTime(?)
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
		if answers > 0 {
			q.PassRate = float64(yes) / float64(answers)
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
		var n, failed uint64
		if err := rows.Scan(&d.Day, &n, &failed, &d.AvgScore); err != nil {
			return rep, fmt.Errorf("clickhouse.ChecklistReport: days: %w", err)
		}
		d.Analyses, d.Failed = int64(n), int64(failed)
		if d.AvgScore != d.AvgScore { // avgIf over no ok analysis is nan
			d.AvgScore = 0
		}
		rep.Days = append(rep.Days, d)
	}
	if err := rows.Err(); err != nil {
		return rep, fmt.Errorf("clickhouse.ChecklistReport: days: %w", err)
	}
	return rep, nil
}
