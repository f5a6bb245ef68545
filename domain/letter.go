package domain

import "time"

// LetterStatus is where a letter of the mail outbox stands.
type LetterStatus string

// The letter statuses.
const (
	LetterPending LetterStatus = "pending" // waiting for its next try
	LetterSent    LetterStatus = "sent"    // the mail relay accepted it
	LetterFailed  LetterStatus = "failed"  // the sender gave up on it
)

// Letter is one e-mail of the mail outbox: kept until the mail relay
// accepted it or its tries ran out, so a relay that is down when the
// letter is asked for (a reset link) delays it instead of losing it.
type Letter struct {
	ID      string
	Kind    string // "reset", "invite", …: for the log, never shown
	To      string
	Subject string
	Text    string // emptied once the letter is finished: it may carry a one-time link
	Lang    string
	Status  LetterStatus
	// Attempts is the tries made so far.
	Attempts   int
	CreatedAt  time.Time
	NextAt     time.Time // when a pending letter is due
	FinishedAt *time.Time
	Error      string // the last try's failure, for operators
}

// Sent records that the relay accepted the letter at now. Its text is
// dropped: a one-time link has no business staying in the store.
func (l *Letter) Sent(now time.Time) {
	l.Attempts++
	l.Status, l.Error, l.Text = LetterSent, "", ""
	l.FinishedAt = &now
}

// Refused records a failed try at now with its reason: the letter is due
// again at next, or, when giveUp, failed for good (its text dropped).
func (l *Letter) Refused(now time.Time, reason string, next time.Time, giveUp bool) {
	l.Attempts++
	l.Error = reason
	if giveUp {
		l.Status, l.Text = LetterFailed, ""
		l.FinishedAt = &now
		return
	}
	l.NextAt = next
}
