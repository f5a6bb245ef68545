package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"hyscribe/domain"
)

// CreateChecklist saves a checklist. domain.ErrConflict if the ID exists in
// any version or account; domain.ErrNotFound if the account does not exist.
func (s *Store) CreateChecklist(ctx context.Context, c domain.Checklist) error {
	questions, err := json.Marshal(c.Questions)
	if err != nil {
		return fmt.Errorf("postgres.CreateChecklist: encode questions: %w", err)
	}
	// The primary key is (id, version) so that versions can be added later;
	// creating is of a new id, so any version of it conflicts. One statement:
	// it inserts nothing when the id exists. Two racing creates of one id and
	// version meet in the primary key (23505, a conflict too).
	tag, err := s.pool.Exec(ctx, `INSERT INTO checklists (id, version, account_id, name, questions, archived, created_at)
		SELECT $1, $2, $3, $4, $5, $6, $7
		WHERE NOT EXISTS (SELECT 1 FROM checklists WHERE id = $1)`,
		c.ID, c.Version, string(c.AccountID), c.Name, string(questions), c.Archived, toMs(c.CreatedAt))
	if err != nil {
		return fmt.Errorf("postgres.CreateChecklist: %w", translate(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres.CreateChecklist: checklist %s: %w", c.ID, domain.ErrConflict)
	}
	return nil
}

// GetChecklist returns the latest version of the account's checklist; one
// of another account is domain.ErrNotFound, exactly like a missing one.
func (s *Store) GetChecklist(ctx context.Context, account domain.AccountID, id string) (domain.Checklist, error) {
	var c domain.Checklist
	var questions string
	var created int64
	err := s.pool.QueryRow(ctx, `SELECT id, version, account_id, name, questions, archived, created_at
		FROM checklists WHERE id = $1 AND account_id = $2
		ORDER BY version DESC LIMIT 1`, id, string(account)).
		Scan(&c.ID, &c.Version, &c.AccountID, &c.Name, &questions, &c.Archived, &created)
	if err != nil {
		return domain.Checklist{}, fmt.Errorf("postgres.GetChecklist: checklist %s: %w", id, translate(err))
	}
	if err := json.Unmarshal([]byte(questions), &c.Questions); err != nil {
		return domain.Checklist{}, fmt.Errorf("postgres.GetChecklist: checklist %s: decode questions: %w", id, err)
	}
	c.CreatedAt = fromMs(created)
	return c, nil
}
