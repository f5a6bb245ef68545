package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// CreateChecklist saves a checklist. domain.ErrConflict if the ID exists in
// any version or account; domain.ErrNotFound if the account does not exist.
func (s *Store) CreateChecklist(ctx context.Context, c domain.Checklist) error {
	row, err := sqlstore.ChecklistRow(c)
	if err != nil {
		return fmt.Errorf("postgres.CreateChecklist: %w", err)
	}
	// The primary key is (id, version) so that versions can be added later;
	// creating is of a new id, so any version of it conflicts. One statement:
	// it inserts nothing when the id exists. Two racing creates of one id and
	// version meet in the primary key (23505, a conflict too).
	tag, err := s.pool.Exec(ctx, `INSERT INTO checklists (`+strings.Join(sqlstore.ChecklistCols, ", ")+`)
		SELECT `+sqlstore.Postgres.Params(1, len(sqlstore.ChecklistCols))+`
		WHERE NOT EXISTS (SELECT 1 FROM checklists WHERE id = $1)`, row...)
	if err != nil {
		return fmt.Errorf("postgres.CreateChecklist: %w", translate(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres.CreateChecklist: checklist %s: %w", c.ID, domain.ErrConflict)
	}
	return nil
}

// AddChecklistVersion saves c as the next version of an existing checklist:
// c.Version must be the latest plus one, so of two racing edits one wins and
// the other is domain.ErrConflict (the primary key settles a tie).
func (s *Store) AddChecklistVersion(ctx context.Context, c domain.Checklist) error {
	row, err := sqlstore.ChecklistRow(c)
	if err != nil {
		return fmt.Errorf("postgres.AddChecklistVersion: %w", err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var latest *int64
		if err := tx.QueryRow(ctx, `SELECT MAX(version) FROM checklists WHERE id = $1 AND account_id = $2`,
			c.ID, string(c.AccountID)).Scan(&latest); err != nil {
			return translate(err)
		}
		if latest == nil {
			return fmt.Errorf("checklist %s: %w", c.ID, domain.ErrNotFound)
		}
		if int64(c.Version) != *latest+1 {
			return fmt.Errorf("checklist %s: version %d after %d: %w", c.ID, c.Version, *latest, domain.ErrConflict)
		}
		_, err := tx.Exec(ctx, sqlstore.Postgres.Insert("checklists", sqlstore.ChecklistCols), row...)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("postgres.AddChecklistVersion: %w", err)
	}
	return nil
}

// ListChecklists returns the latest version of each of the account's checklists.
func (s *Store) ListChecklists(ctx context.Context, account domain.AccountID) ([]domain.Checklist, error) {
	out, err := queryAll(ctx, s.pool, sqlstore.ScanChecklist, `SELECT DISTINCT ON (id) `+strings.Join(sqlstore.ChecklistCols, ", ")+`
		FROM checklists WHERE account_id = $1 ORDER BY id, version DESC`, string(account))
	if err != nil {
		return nil, fmt.Errorf("postgres.ListChecklists: %w", err)
	}
	return out, nil
}

// ArchiveChecklist marks every version of the account's checklist archived.
func (s *Store) ArchiveChecklist(ctx context.Context, account domain.AccountID, id string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE checklists SET archived = true WHERE id = $1 AND account_id = $2`, id, string(account))
	if err != nil {
		return fmt.Errorf("postgres.ArchiveChecklist: %w", translate(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres.ArchiveChecklist: checklist %s: %w", id, domain.ErrNotFound)
	}
	return nil
}
