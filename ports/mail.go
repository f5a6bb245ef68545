package ports

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Mail is one plain-text e-mail to one person.
type Mail struct {
	To      string // one address
	Subject string
	Text    string
	Lang    string // the text's language ("hy", "en"), for Content-Language
}

// Mailer sends e-mail. Send returns once the relay accepted the message
// (delivery beyond it is the relay's); an error means it was not accepted,
// and the caller decides whether that matters. Sending twice sends twice.
type Mailer interface {
	Send(ctx context.Context, m Mail) error
}

// MailOutbox keeps the letters to send until the mail relay accepted them
// or the sender gave up on them (app.SendMail). Several senders may run
// at once, in several processes: a letter is leased to one of them while
// it is tried.
type MailOutbox interface {
	// AddLetter stores l as it is (pending, due at l.NextAt).
	// domain.ErrConflict when l.ID is taken.
	AddLetter(ctx context.Context, l domain.Letter) error
	// LeaseLetters leases to the caller until `until`, and returns oldest
	// first, up to limit pending letters due by now (NextAt <= now) whose
	// lease is absent or passed at now. Callers at the same moment get
	// different letters.
	LeaseLetters(ctx context.Context, now, until time.Time, limit int) ([]domain.Letter, error)
	// FinishLetter saves the outcome of a try of l (status, attempts, next
	// try, error, text, finished time) and clears the lease, while l is
	// still leased until leasedUntil; false, saving nothing, when the
	// lease was lost (it passed and another caller leased l).
	FinishLetter(ctx context.Context, l domain.Letter, leasedUntil time.Time) (bool, error)
}
