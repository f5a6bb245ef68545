package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/sqlstore"
	"github.com/hyscribe/hyscribe/domain"
)

var mailSQL = sqlstore.Postgres.Mail()

// AddLetter stores l in the mail outbox (ports.MailOutbox).
func (s *Store) AddLetter(ctx context.Context, l domain.Letter) error {
	if _, err := s.pool.Exec(ctx, mailSQL.Insert, sqlstore.LetterRow(l)...); err != nil {
		return fmt.Errorf("postgres.AddLetter: %w", translate(err))
	}
	return nil
}

// LeaseLetters leases the due letters (ports.MailOutbox). Letters another
// sender is leasing at the same moment are skipped (SKIP LOCKED), so
// concurrent senders get different letters.
func (s *Store) LeaseLetters(ctx context.Context, now, until time.Time, limit int) ([]domain.Letter, error) {
	rows, err := s.pool.Query(ctx, `UPDATE mail_outbox SET lease_until = $5
		WHERE id IN (`+strings.Replace(mailSQL.Due, "SELECT "+strings.Join(sqlstore.LetterCols, ", "), "SELECT id", 1)+` FOR UPDATE SKIP LOCKED)
		RETURNING `+strings.Join(sqlstore.LetterCols, ", "),
		string(domain.LetterPending), toMs(now), toMs(now), limit, toMs(until))
	if err != nil {
		return nil, fmt.Errorf("postgres.LeaseLetters: %w", translate(err))
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (domain.Letter, error) { return sqlstore.ScanLetter(r) })
	if err != nil {
		return nil, fmt.Errorf("postgres.LeaseLetters: %w", translate(err))
	}
	// RETURNING keeps no order.
	slices.SortFunc(out, func(a, b domain.Letter) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// FinishLetter saves a try's outcome while the lease is the caller's
// (ports.MailOutbox).
func (s *Store) FinishLetter(ctx context.Context, l domain.Letter, leasedUntil time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, mailSQL.Finish, sqlstore.FinishArgs(l, leasedUntil)...)
	if err != nil {
		return false, fmt.Errorf("postgres.FinishLetter: %w", translate(err))
	}
	return tag.RowsAffected() == 1, nil
}
