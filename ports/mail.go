package ports

import "context"

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
