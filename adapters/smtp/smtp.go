// Package smtp sends hyscribe's e-mail (invitations, password resets,
// low-balance notices) through an SMTP relay named by one URL,
// HYSCRIBE_SMTP_URL:
//
//	smtp://[user[:password]@]host[:port]?from=hyscribe@example.am
//	smtps://…   (TLS from the first byte, port 465 by default)
//
// A plain smtp:// relay (port 25 by default; 587 for submission) is asked
// for STARTTLS whenever it offers it; a password is sent only over TLS or
// to a relay on loopback (net/smtp refuses otherwise). Messages are plain
// text in UTF-8, quoted-printable, with an RFC 2047 subject, so any relay
// carries Armenian.
package smtp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/ports"
)

// Mailer is a ports.Mailer over one SMTP relay.
type Mailer struct {
	addr     string // host:port
	host     string
	implicit bool // smtps: TLS from the start
	user     string
	password string
	from     string
	// Timeout bounds one message's whole conversation when ctx has no
	// earlier deadline (default 30 s).
	Timeout time.Duration
	// TLS is the client configuration of TLS connections (nil: verify the
	// relay's certificate for its host name).
	TLS *tls.Config
}

var _ ports.Mailer = (*Mailer)(nil)

// New reads an SMTP URL; what is wrong with a bad one is said in the error.
func New(raw string) (*Mailer, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %w", err)
	}
	m := &Mailer{Timeout: 30 * time.Second}
	port := ""
	switch u.Scheme {
	case "smtp":
		port = "25"
	case "smtps":
		port, m.implicit = "465", true
	default:
		return nil, fmt.Errorf("scheme must be smtp or smtps, not %q", u.Scheme)
	}
	m.host = u.Hostname()
	if m.host == "" {
		return nil, errors.New("the relay's host is missing")
	}
	if p := u.Port(); p != "" {
		port = p
	}
	m.addr = net.JoinHostPort(m.host, port)
	if u.User != nil {
		m.user = u.User.Username()
		m.password, _ = u.User.Password()
	}
	from := u.Query().Get("from")
	a, err := mail.ParseAddress(from)
	if from == "" || err != nil || a.Name != "" {
		return nil, fmt.Errorf("?from= must be the sender's address (hyscribe@example.am), not %q", from)
	}
	m.from = a.Address
	return m, nil
}

// From is the sender's address.
func (m *Mailer) From() string { return m.from }

// Send hands one message to the relay. The relay accepting it is success;
// an error says what the relay or the network answered.
func (m *Mailer) Send(ctx context.Context, msg ports.Mail) error {
	if err := checkAddress(msg.To); err != nil {
		return err
	}
	body, err := m.compose(msg, time.Now())
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok && m.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.Timeout)
		defer cancel()
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", m.addr)
	if err != nil {
		return fmt.Errorf("smtp: %w", err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// A cancelled context ends the conversation at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if m.implicit {
		conn = tls.Client(conn, m.tlsConfig())
	}
	c, err := smtp.NewClient(conn, m.host)
	if err != nil {
		return fmt.Errorf("smtp %s: greeting: %w", m.addr, err)
	}
	defer c.Close() //nolint:errcheck // after Quit the connection is done; on a failed step that step's error is returned
	if err := c.Hello(helloName(m.from)); err != nil {
		return fmt.Errorf("smtp %s: EHLO: %w", m.addr, err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok && !m.implicit {
		if err := c.StartTLS(m.tlsConfig()); err != nil {
			return fmt.Errorf("smtp %s: STARTTLS: %w", m.addr, err)
		}
	}
	if m.user != "" {
		if err := c.Auth(smtp.PlainAuth("", m.user, m.password, m.host)); err != nil {
			return fmt.Errorf("smtp %s: AUTH: %w", m.addr, err)
		}
	}
	if err := c.Mail(m.from); err != nil {
		return fmt.Errorf("smtp %s: MAIL FROM: %w", m.addr, err)
	}
	if err := c.Rcpt(msg.To); err != nil {
		return fmt.Errorf("smtp %s: RCPT TO: %w", m.addr, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp %s: DATA: %w", m.addr, err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("smtp %s: message: %w", m.addr, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp %s: message refused: %w", m.addr, err)
	}
	_ = c.Quit()
	return nil
}

func (m *Mailer) tlsConfig() *tls.Config {
	if m.TLS != nil {
		return m.TLS
	}
	return &tls.Config{ServerName: m.host, MinVersion: tls.VersionTLS12}
}

// checkAddress refuses what could add a header or a recipient.
func checkAddress(to string) error {
	a, err := mail.ParseAddress(to)
	if err != nil || a.Address != to || strings.ContainsAny(to, "\r\n<>,") {
		return fmt.Errorf("smtp: %q is not one e-mail address", to)
	}
	return nil
}

func helloName(from string) string {
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i+1 < len(from) {
		return from[i+1:]
	}
	return "localhost"
}

// compose writes the message: headers, then the text quoted-printable.
func (m *Mailer) compose(msg ports.Mail, now time.Time) ([]byte, error) {
	var id [12]byte
	_, _ = rand.Read(id[:])
	var b bytes.Buffer
	subject := strings.Join(strings.Fields(msg.Subject), " ") // one line
	fmt.Fprintf(&b, "From: %s\r\n", m.from)
	fmt.Fprintf(&b, "To: %s\r\n", msg.To)
	fmt.Fprintf(&b, "Subject: %s\r\n", mime.QEncoding.Encode("utf-8", subject))
	fmt.Fprintf(&b, "Date: %s\r\n", now.Format(time.RFC1123Z))
	fmt.Fprintf(&b, "Message-ID: <%s@%s>\r\n", hex.EncodeToString(id[:]), helloName(m.from))
	if msg.Lang != "" {
		fmt.Fprintf(&b, "Content-Language: %s\r\n", msg.Lang)
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\nAuto-Submitted: auto-generated\r\n\r\n")
	qp := quotedprintable.NewWriter(&b)
	text := strings.ReplaceAll(strings.ReplaceAll(msg.Text, "\r\n", "\n"), "\n", "\r\n")
	if _, err := qp.Write([]byte(text)); err != nil {
		return nil, err
	}
	if err := qp.Close(); err != nil {
		return nil, err
	}
	b.WriteString("\r\n")
	return b.Bytes(), nil
}
