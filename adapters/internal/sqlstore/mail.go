package sqlstore

import (
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// letterRow is a letter of the mail outbox as stored (table mail_outbox).
type letterRow struct {
	ID         string `db:"id"`
	Kind       string `db:"kind"`
	To         string `db:"to_addr"`
	Subject    string `db:"subject"`
	Text       string `db:"body"`
	Lang       string `db:"lang"`
	Status     string `db:"status"`
	Attempts   int64  `db:"attempts"`
	CreatedAt  int64  `db:"created_at"`
	NextAt     int64  `db:"next_at"`
	FinishedAt *int64 `db:"finished_at"`
	Error      string `db:"error"`
}

// LetterCols are the mail outbox's columns but its lease, in row order.
var LetterCols = Columns[letterRow]()

// MailSQL is the statements of ports.MailOutbox both stores run alike.
type MailSQL struct {
	// Insert writes a letter (LetterRow's values).
	Insert string
	// Due selects (LetterCols) the pending letters due by $2 whose lease
	// is absent or passed at $3 ($2 and $3 are both now: SQLite's ?
	// cannot be repeated), oldest first, at most $4; $1 is the pending
	// status.
	Due string
	// Finish writes a try's outcome: status, attempts, next_at, body,
	// finished_at, error ($1–$6), clearing the lease, of the letter $7
	// while its lease is $8.
	Finish string
}

// Mail is the mail outbox's statements in d.
func (d Dialect) Mail() MailSQL {
	p := d.Param
	return MailSQL{
		Insert: d.Insert("mail_outbox", LetterCols),
		Due: Select("mail_outbox", LetterCols) + " WHERE status = " + p(1) + " AND next_at <= " + p(2) +
			" AND (lease_until IS NULL OR lease_until <= " + p(3) + ") ORDER BY created_at, id LIMIT " + p(4),
		Finish: "UPDATE mail_outbox SET status = " + p(1) + ", attempts = " + p(2) + ", next_at = " + p(3) +
			", body = " + p(4) + ", finished_at = " + p(5) + ", error = " + p(6) + ", lease_until = NULL WHERE id = " +
			p(7) + " AND lease_until = " + p(8),
	}
}

// LetterRow is l's values for MailSQL.Insert.
func LetterRow(l domain.Letter) []any {
	return Values(&letterRow{ID: l.ID, Kind: l.Kind, To: l.To, Subject: l.Subject, Text: l.Text, Lang: l.Lang,
		Status: string(l.Status), Attempts: int64(l.Attempts), CreatedAt: ToMs(l.CreatedAt), NextAt: ToMs(l.NextAt),
		FinishedAt: ToNullMs(l.FinishedAt), Error: l.Error})
}

// FinishArgs are MailSQL.Finish's arguments for l leased until leasedUntil.
func FinishArgs(l domain.Letter, leasedUntil time.Time) []any {
	return []any{string(l.Status), int64(l.Attempts), ToMs(l.NextAt), l.Text, ToNullMs(l.FinishedAt), l.Error, l.ID, ToMs(leasedUntil)}
}

// ScanLetter reads one row of LetterCols.
func ScanLetter(sc Scanner) (domain.Letter, error) {
	var r letterRow
	if err := sc.Scan(Pointers(&r)...); err != nil {
		return domain.Letter{}, err
	}
	return domain.Letter{ID: r.ID, Kind: r.Kind, To: r.To, Subject: r.Subject, Text: r.Text, Lang: r.Lang,
		Status: domain.LetterStatus(r.Status), Attempts: int(r.Attempts), CreatedAt: FromMs(r.CreatedAt),
		NextAt: FromMs(r.NextAt), FinishedAt: FromNullMs(r.FinishedAt), Error: r.Error}, nil
}

// LetterIDs lists the letters' ids, for a lease's UPDATE.
func LetterIDs(ls []domain.Letter) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.ID
	}
	return out
}
