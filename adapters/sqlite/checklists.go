package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

// The checklist's columns and row mapping are shared with the other store.
var checklistSelect = sqlstore.Select("checklists", sqlstore.ChecklistCols)

func insertChecklist(ctx context.Context, tx *sql.Tx, c domain.Checklist) error {
	row, err := sqlstore.ChecklistRow(c)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, sqlstore.SQLite.Insert("checklists", sqlstore.ChecklistCols), row...)
	return translate(err)
}

// CreateChecklist saves a checklist. domain.ErrConflict if the ID exists in
// any version or account; domain.ErrNotFound if the account does not exist.
func (s *Store) CreateChecklist(ctx context.Context, c domain.Checklist) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		// The primary key is (id, version); creating is of a new id, so any
		// version of it conflicts.
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM checklists WHERE id = ?)`, c.ID).Scan(&exists); err != nil {
			return translate(err)
		}
		if exists {
			return fmt.Errorf("checklist %s: %w", c.ID, domain.ErrConflict)
		}
		return insertChecklist(ctx, tx, c)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateChecklist: %w", err)
	}
	return nil
}

// AddChecklistVersion saves c as the next version of an existing checklist.
func (s *Store) AddChecklistVersion(ctx context.Context, c domain.Checklist) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		var latest sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(version) FROM checklists WHERE id = ? AND account_id = ?`,
			c.ID, string(c.AccountID)).Scan(&latest); err != nil {
			return translate(err)
		}
		if !latest.Valid {
			return fmt.Errorf("checklist %s: %w", c.ID, domain.ErrNotFound)
		}
		if int64(c.Version) != latest.Int64+1 {
			return fmt.Errorf("checklist %s: version %d after %d: %w", c.ID, c.Version, latest.Int64, domain.ErrConflict)
		}
		return insertChecklist(ctx, tx, c)
	})
	if err != nil {
		return fmt.Errorf("sqlite.AddChecklistVersion: %w", err)
	}
	return nil
}

// ListChecklists returns the latest version of each of the account's checklists.
func (s *Store) ListChecklists(ctx context.Context, account domain.AccountID) ([]domain.Checklist, error) {
	out, err := queryAll(ctx, s.db, sqlstore.ScanChecklist, checklistSelect+` AS c WHERE account_id = ?
		AND version = (SELECT MAX(version) FROM checklists WHERE id = c.id) ORDER BY id`, string(account))
	if err != nil {
		return nil, fmt.Errorf("sqlite.ListChecklists: %w", err)
	}
	return out, nil
}

// ArchiveChecklist marks every version of the account's checklist archived.
func (s *Store) ArchiveChecklist(ctx context.Context, account domain.AccountID, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE checklists SET archived = 1 WHERE id = ? AND account_id = ?`, id, string(account))
		if err != nil {
			return translate(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("checklist %s: %w", id, domain.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite.ArchiveChecklist: %w", err)
	}
	return nil
}
