package cli

import (
	"fmt"
	"log/slog"

	"github.com/hyscribe/hyscribe/adapters/smtp"
	"github.com/hyscribe/hyscribe/app"
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
func (s *Service) newLetters(log *slog.Logger) *app.Letters {
	var mailer ports.Mailer
	if s.cfg.SMTPURL != "" {
		m, err := smtp.New(s.cfg.SMTPURL) // checked by LoadConfig
		if err == nil {
			mailer = m
			log.Info("e-mail on", "from", m.From())
		}
	}
	return app.NewLetters(mailer, s.store, s.store, s.publicURL, log)
}
