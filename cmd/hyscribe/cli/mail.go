package cli

import (
	"fmt"
	"log/slog"

	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/adapters/smtp"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// checkMail validates the e-mail and trial settings.
func (c Config) checkMail() error {
	if c.TrialSeconds < 0 {
		return fmt.Errorf("HYSCRIBE_TRIAL_SECONDS must not be negative")
	}
	if c.SMTPURL == "" {
		return nil
	}
	if _, err := smtp.New(c.SMTPURL); err != nil {
		return fmt.Errorf("HYSCRIBE_SMTP_URL: %w", err)
	}
	return nil
}

// newLetters builds the service's e-mail: through HYSCRIBE_SMTP_URL's
// relay, or none (then invitations and reset links are copied by hand).
// Letters go through the mail outbox; the sender returned (nil without
// e-mail) sends them and is run by the caller. Every process with e-mail
// runs one: the outbox leases each letter to one of them.
func (s *Service) newLetters(log *slog.Logger, reg *metrics.Registry) (*app.Letters, *app.SendMail) {
	if s.cfg.SMTPURL == "" {
		return app.NewLetters(nil, s.store, s.store, s.publicURL, log), nil
	}
	m, err := smtp.New(s.cfg.SMTPURL) // checked by LoadConfig
	if err != nil {
		return app.NewLetters(nil, s.store, s.store, s.publicURL, log), nil
	}
	log.Info("e-mail on", "from", m.From())
	sender := app.NewSendMail(s.store, m, ports.SystemClock{}, log.With("part", "mail"))
	sender.Attempts, sender.RetryWait = s.cfg.MailAttempts, s.cfg.MailRetryWait
	letters := reg.Counter("hyscribe_mail_letters_total", "Letters finished by the mail outbox: sent (the SMTP relay took them) or failed (given up after HYSCRIBE_MAIL_ATTEMPTS tries).", "kind", "outcome")
	sender.Finished = func(l domain.Letter) { letters.With(l.Kind, string(l.Status)).Inc() }
	return app.NewLetters(sender, s.store, s.store, s.publicURL, log), sender
}
