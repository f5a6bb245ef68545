package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
)

// Reviews (issue 36) live beside their analysis, in two columns of
// analyses that an analysis's own reads and writes (AnalysisCols) leave
// alone: review, the latest review as JSON (kept when it goes stale), and
// reviewed_at, its time while it reviews the analysis as it is — NULL
// before any review and again once the call is analysed again.

// A call analysed and not reviewed since (no review, or one that went
// stale: reviewed_at IS NULL) "needs review": the history's filter
// (NeedsReview, joblist.go; issue 36 item 5).

// reviewBody is a review as its JSON column holds it; times in unix ms.
type reviewBody struct {
	AnalysisID string                           `json:"analysisId"`
	AnalysedAt int64                            `json:"analysedAtMs"`
	Answers    map[string]domain.ReviewedAnswer `json:"answers"`
	Comment    string                           `json:"comment"`
	ReviewerID string                           `json:"reviewerId"`
	Reviewer   string                           `json:"reviewer"`
	ReviewedAt int64                            `json:"reviewedAtMs"`
	Revision   int                              `json:"revision"`
}

// reviewColumns are the two columns, as selected after an analysis's.
const reviewColumns = "review, reviewed_at"

func toReviewBody(r domain.Review) (string, error) {
	b, err := json.Marshal(reviewBody{AnalysisID: r.AnalysisID, AnalysedAt: ToMs(r.AnalysedAt), Answers: r.Answers,
		Comment: r.Comment, ReviewerID: r.ReviewerID, Reviewer: r.Reviewer, ReviewedAt: ToMs(r.ReviewedAt), Revision: r.Revision})
	if err != nil {
		return "", fmt.Errorf("encode review: %w", err)
	}
	return string(b), nil
}

// toDomainReview is the review stored as body of job doc (account), stale
// when reviewedAt is NULL; nil when there is none.
func toDomainReview(doc domain.DocID, account domain.AccountID, body *string, reviewedAt *int64) (*domain.Review, error) {
	if body == nil || *body == "" {
		return nil, nil
	}
	var b reviewBody
	if err := json.Unmarshal([]byte(*body), &b); err != nil {
		return nil, fmt.Errorf("review of %s: decode: %w", doc, err)
	}
	if b.Answers == nil {
		b.Answers = map[string]domain.ReviewedAnswer{}
	}
	return &domain.Review{AnalysisID: b.AnalysisID, DocID: doc, AccountID: account, AnalysedAt: FromMs(b.AnalysedAt),
		Answers: b.Answers, Comment: b.Comment, ReviewerID: b.ReviewerID, Reviewer: b.Reviewer,
		ReviewedAt: FromMs(b.ReviewedAt), Revision: b.Revision, Stale: reviewedAt == nil}, nil
}

// withExtra is a row whose Scan fills dest and then extra.
type withExtra struct {
	sc    Scanner
	extra []any
}

func (w withExtra) Scan(dest ...any) error { return w.sc.Scan(append(dest, w.extra...)...) }

// ReplaceAnalysisSQL is the statement of ports.AnalysisReplacer: Update of
// AnalysisCols with its doc_id as parameter len(AnalysisCols)+1, which
// makes the call's review stale (reviewed_at NULL; the review is kept).
func (d Dialect) ReplaceAnalysisSQL() string {
	return strings.Replace(d.Update("analyses", AnalysisCols), " SET ", " SET reviewed_at = NULL, ", 1) +
		" AND doc_id = " + d.Param(len(AnalysisCols)+1)
}

// ModifyReview is the body of ports.ReviewStore.ReviewAnalysis inside a
// store's transaction: it reads the job's analysis and review, the row
// locked by lock (see ModifyAccount), applies fn and writes the review fn
// returns. It returns fn's events for the store to add to its outbox; fn's
// error is kept in *fnErr (see Outcome).
func (d Dialect) ModifyReview(ctx context.Context, tx Tx, lock string, doc domain.DocID, fn func(domain.Analysis, *domain.Review) (*domain.Review, []domain.Event, error), fnErr *error) ([]domain.Event, error) {
	var body *string
	var reviewedAt *int64
	a, err := ScanAnalysis(withExtra{tx.QueryRow(ctx, "SELECT "+strings.Join(AnalysisCols, ", ")+", "+reviewColumns+
		" FROM analyses WHERE doc_id = "+d.Param(1)+lock, string(doc)), []any{&body, &reviewedAt}})
	if err != nil {
		return nil, fmt.Errorf("analysis of %s: %w", doc, err)
	}
	prev, err := toDomainReview(doc, a.AccountID, body, reviewedAt)
	if err != nil {
		return nil, err
	}
	r, events, err := fn(a, prev)
	if *fnErr = err; err != nil {
		return nil, err
	}
	if r == nil {
		return nil, nil
	}
	if err := domain.ValidateEvents(events); err != nil {
		return nil, err
	}
	enc, err := toReviewBody(*r)
	if err != nil {
		return nil, err
	}
	var at *int64
	if !r.Stale {
		ms := ToMs(r.ReviewedAt)
		at = &ms
	}
	if !r.Current(a) {
		err = tx.Exec(ctx, "UPDATE analyses SET review = "+d.Param(1)+", reviewed_at = "+d.Param(2)+" WHERE doc_id = "+d.Param(3), enc, at, string(doc))
		if err != nil {
			return nil, err
		}
		return events, nil
	}
	// A current review's score is the call's in the history (its sort and
	// score filters): list_score on the analysis (NULL: not scored) and
	// on its job (domain.NoValue), until a re-analysis writes the
	// machine's again (ReplaceAnalysisSQL, SetListScore).
	err = tx.Exec(ctx, "UPDATE analyses SET review = "+d.Param(1)+", reviewed_at = "+d.Param(2)+", list_score = "+d.Param(3)+
		" WHERE doc_id = "+d.Param(4), enc, at, r.ListScore, string(doc))
	if err != nil {
		return nil, err
	}
	score := float64(domain.NoValue)
	if r.ListScore != nil {
		score = *r.ListScore
	}
	if err := tx.Exec(ctx, SetListScore, score, string(doc)); err != nil {
		return nil, err
	}
	return events, nil
}

// ReviewOf returns the job's latest review or domain.ErrNotFound.
func (r Reads) ReviewOf(ctx context.Context, doc domain.DocID) (domain.Review, error) {
	var account string
	var body *string
	var reviewedAt *int64
	err := r.db.QueryRow(ctx, "SELECT account_id, "+reviewColumns+" FROM analyses WHERE doc_id = "+r.d.Param(1), string(doc)).
		Scan(&account, &body, &reviewedAt)
	if err != nil {
		return domain.Review{}, r.fail("ReviewOf", fmt.Errorf("%s: %w", doc, r.translate(err)))
	}
	rv, err := toDomainReview(doc, domain.AccountID(account), body, reviewedAt)
	if err != nil {
		return domain.Review{}, r.fail("ReviewOf", err)
	}
	if rv == nil {
		return domain.Review{}, r.fail("ReviewOf", fmt.Errorf("no review of %s: %w", doc, domain.ErrNotFound))
	}
	return *rv, nil
}
