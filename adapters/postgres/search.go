package postgres

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
)

// backfillSearchText gives every job the search text of this binary
// (webquery.SearchText), after a migration that changes what search reads
// (marked webquery.BackfillMarker): the folding is Go's, not SQL's.
func backfillSearchText(ctx context.Context, tx pgx.Tx, withFilename bool) error {
	query := `SELECT id, status, title, transcription, metadata, '' FROM jobs`
	if withFilename {
		query = `SELECT id, status, title, transcription, metadata, filename FROM jobs`
	}
	rows, _ := tx.Query(ctx, query)
	type row struct{ id, text string }
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var id, status, title, tr, file string
		var meta *string
		if err := r.Scan(&id, &status, &title, &tr, &meta, &file); err != nil {
			return row{}, err
		}
		var raw json.RawMessage
		if meta != nil {
			raw = json.RawMessage(*meta)
		}
		return row{id, sqlstore.BackfillSearchText(status, title, tr, raw, file)}, nil
	})
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for _, r := range all {
		b.Queue(`UPDATE jobs SET search_text = $1 WHERE id = $2`, r.text, r.id)
	}
	return tx.SendBatch(ctx, b).Close()
}

// backfillListScores gives every analysed job its list_score
// (sqlstore.BackfillListScores), after the migration that added it.
func backfillListScores(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, sqlstore.BackfillAnalyses)
	if err != nil {
		return err
	}
	analyses, err := sqlstore.Collect(rows, sqlstore.ScanAnalysis)
	rows.Close()
	if err != nil {
		return err
	}
	if rows, err = tx.Query(ctx, sqlstore.BackfillChecklists); err != nil {
		return err
	}
	checklists, err := sqlstore.Collect(rows, sqlstore.ScanChecklist)
	rows.Close()
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	for doc, v := range sqlstore.BackfillListScores(analyses, checklists) {
		b.Queue(sqlstore.SetListScore, v, string(doc))
		b.Queue(sqlstore.BackfillAnalysisScore, v, string(doc))
	}
	return tx.SendBatch(ctx, b).Close()
}
