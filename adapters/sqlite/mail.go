package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

var mailSQL = sqlstore.SQLite.Mail()

// AddLetter stores l in the mail outbox (ports.MailOutbox).
func (s *Store) AddLetter(ctx context.Context, l domain.Letter) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, mailSQL.Insert, sqlstore.LetterRow(l)...)
		return translate(err)
	})
	if err != nil {
		return fmt.Errorf("sqlite.AddLetter: %w", err)
	}
	return nil
}

// LeaseLetters leases the due letters (ports.MailOutbox). The write
// transaction makes the selection and the leasing one step: SQLite has one
// writer at a time.
func (s *Store) LeaseLetters(ctx context.Context, now, until time.Time, limit int) ([]domain.Letter, error) {
	var out []domain.Letter
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if out, err = dueLetters(ctx, tx, now, limit); err != nil {
			return err
		}
		for _, l := range out {
			if _, err := tx.ExecContext(ctx, `UPDATE mail_outbox SET lease_until = ? WHERE id = ?`, toMs(until), l.ID); err != nil {
				return translate(err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite.LeaseLetters: %w", err)
	}
	return out, nil
}

// FinishLetter saves a try's outcome while the lease is the caller's
// (ports.MailOutbox).
func (s *Store) FinishLetter(ctx context.Context, l domain.Letter, leasedUntil time.Time) (bool, error) {
	var done bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, mailSQL.Finish, sqlstore.FinishArgs(l, leasedUntil)...)
		if err != nil {
			return translate(err)
		}
		n, err := res.RowsAffected()
		done = n == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite.FinishLetter: %w", err)
	}
	return done, nil
}

func dueLetters(ctx context.Context, tx *sql.Tx, now time.Time, limit int) ([]domain.Letter, error) {
	rows, err := tx.QueryContext(ctx, mailSQL.Due, string(domain.LetterPending), toMs(now), toMs(now), limit)
	if err != nil {
		return nil, translate(err)
	}
	defer rows.Close()
	out, err := sqlstore.Collect(rows, sqlstore.ScanLetter)
	return out, translate(err)
}
