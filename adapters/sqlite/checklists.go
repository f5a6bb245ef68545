package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"hyscribe/domain"
)

// CreateChecklist saves a checklist. domain.ErrConflict if the ID exists in
// any version or account; domain.ErrNotFound if the account does not exist.
func (s *Store) CreateChecklist(ctx context.Context, c domain.Checklist) error {
	questions, err := json.Marshal(c.Questions)
	if err != nil {
		return fmt.Errorf("sqlite.CreateChecklist: encode questions: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		// The primary key is (id, version) so that versions can be added
		// later; creating is of a new id, so any version of it conflicts.
		var exists bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM checklists WHERE id = ?)`, c.ID).Scan(&exists); err != nil {
			return translate(err)
		}
		if exists {
			return fmt.Errorf("checklist %s: %w", c.ID, domain.ErrConflict)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO checklists (id, version, account_id, name, questions, archived, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`,
			c.ID, c.Version, string(c.AccountID), c.Name, string(questions), c.Archived, toMs(c.CreatedAt))
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateChecklist: %w", err)
	}
	return nil
}

// GetChecklist returns the latest version of the account's checklist; one
// of another account is domain.ErrNotFound, exactly like a missing one.
func (s *Store) GetChecklist(ctx context.Context, account domain.AccountID, id string) (domain.Checklist, error) {
	var c domain.Checklist
	var questions string
	var created int64
	err := s.db.QueryRowContext(ctx, `SELECT id, version, account_id, name, questions, archived, created_at
		FROM checklists WHERE id = ? AND account_id = ?
		ORDER BY version DESC LIMIT 1`, id, string(account)).
		Scan(&c.ID, &c.Version, &c.AccountID, &c.Name, &questions, &c.Archived, &created)
	if err != nil {
		return domain.Checklist{}, fmt.Errorf("sqlite.GetChecklist: checklist %s: %w", id, translate(err))
	}
	if err := json.Unmarshal([]byte(questions), &c.Questions); err != nil {
		return domain.Checklist{}, fmt.Errorf("sqlite.GetChecklist: checklist %s: decode questions: %w", id, err)
	}
	c.CreatedAt = fromMs(created)
	return c, nil
}
