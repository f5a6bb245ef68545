package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Letters sends the service's e-mail: invitations, password reset links
// and low-balance notices, each in its recipient's language (User.Lang, or
// the language given for someone not yet known). A letter goes into the
// mail outbox (SendMail), so a mail relay that is down delays it instead
// of losing it; a method returns once the letter is stored. Without a
// sender every method does nothing and Enabled is false: the web
// application then shows links to copy by hand, as before.
type Letters struct {
	mail     *SendMail
	team     ports.TeamStore
	accounts ports.AccountStore
	base     string // the public URL the links start with
	log      *slog.Logger
}

// NewLetters builds the use case; a nil sender sends nothing.
func NewLetters(mail *SendMail, team ports.TeamStore, accounts ports.AccountStore, publicURL string, log *slog.Logger) *Letters {
	need("team", team)
	need("accounts", accounts)
	if log == nil {
		log = slog.Default()
	}
	return &Letters{mail: mail, team: team, accounts: accounts, base: strings.TrimRight(publicURL, "/"), log: log}
}

// Enabled reports whether e-mail is sent.
func (l *Letters) Enabled() bool { return l != nil && l.mail != nil }

// InvitePath and ResetPath are the web application's pages of the one-time
// links: accept an invitation, set a new password.
func InvitePath(token string) string { return "/app/invite/" + url.PathEscape(token) }

// ResetPath is the page of a password reset token; for a person who has
// not accepted their invitation the token is a renewed invitation.
func ResetPath(token string, invited bool) string {
	if invited {
		return InvitePath(token)
	}
	return "/app/reset/" + url.PathEscape(token)
}

// Invitation e-mails u the link to accept their invitation to org.
func (l *Letters) Invitation(ctx context.Context, u domain.User, org, token string) error {
	return l.send(ctx, u.Email, u.Lang, "invite", org, l.base+InvitePath(token), "")
}

// Reset e-mails u a password reset link (or, for someone who never
// accepted their invitation, the renewed invitation).
func (l *Letters) Reset(ctx context.Context, u domain.User, org, token string, invited bool) error {
	if invited {
		return l.Invitation(ctx, u, org, token)
	}
	return l.send(ctx, u.Email, u.Lang, "reset", org, l.base+ResetPath(token, false), "")
}

// ConfirmTrial e-mails the person who signed up the link that confirms
// their address and gives the account its trial seconds.
func (l *Letters) ConfirmTrial(ctx context.Context, u domain.User, org, token string, seconds float64) error {
	return l.send(ctx, u.Email, u.Lang, "confirm", org, l.base+ConfirmPath(token), domain.FormatSeconds(seconds))
}

// NoPassword tells the address asking to reset a password that it has
// none, only invitations: it names no organisation and renews nothing.
func (l *Letters) NoPassword(ctx context.Context, to, lang string) error {
	return l.send(ctx, to, lang, "nopassword", "", "", "")
}

// LowBalance tells every owner of the account (who has accepted their
// invitation) how many seconds remain. Each owner is tried; the first
// failure is returned.
func (l *Letters) LowBalance(ctx context.Context, id domain.AccountID) error {
	if !l.Enabled() {
		return nil
	}
	a, err := l.accounts.GetAccount(ctx, id)
	if err != nil {
		return fmt.Errorf("low-balance notice: %w", err)
	}
	us, err := l.team.ListUsers(ctx, id)
	if err != nil {
		return fmt.Errorf("low-balance notice: %w", err)
	}
	var first error
	for _, u := range us {
		if u.Role != domain.RoleOwner || u.Invited() {
			continue
		}
		err := l.send(ctx, u.Email, u.Lang, "lowbalance", a.Name, l.base+"/app/usage", domain.FormatSeconds(a.SecondsRemaining()))
		first = errors.Join(first, err)
	}
	return first
}

func (l *Letters) send(ctx context.Context, to, lang, kind string, args ...string) error { // args: org, link, left
	if !l.Enabled() {
		return nil
	}
	lang = letterLang(lang)
	t := letterTexts[lang][kind]
	// A name stored before names were checked (domain.OrgName) is still
	// put on one line: it must not write lines of its own into the letter.
	fill := strings.NewReplacer("{org}", domain.OneLine(args[0]), "{link}", args[1], "{left}", args[2])
	m := ports.Mail{To: to, Subject: fill.Replace(t[0]), Text: fill.Replace(t[1]), Lang: lang}
	if err := l.mail.Enqueue(ctx, kind, m); err != nil {
		l.log.Warn("e-mail not stored for sending", "kind", kind, "err", err)
		return fmt.Errorf("e-mail %s: %w", kind, err)
	}
	return nil
}

// letterLang is a person's language as far as letters go: English when
// they chose it, else Armenian, the service's first language.
func letterLang(lang string) string {
	if lang == "en" {
		return "en"
	}
	return "hy"
}

// letterTexts are each letter's subject and text by language, where
// {org} is the organisation's name, {link} the link and {left} (low
// balance) the time remaining.
var letterTexts = map[string]map[string][2]string{
	"hy": {
		"invite": {"Հրավեր {org}-ին hyscribe-ում",
			"Ձեզ հրավիրել են {org} կազմակերպությանը hyscribe-ում՝ ձայնագրությունների սղագրության ծառայությունում։\n\n" +
				"Ընդունելու համար բացեք հղումը և ընտրեք գաղտնաբառ (հղումը գործում է 7 օր, մեկ անգամ).\n{link}\n\n" +
				"Եթե չէիք սպասում այս նամակին, պարզապես անտեսեք այն։\n"},
		"reset": {"Գաղտնաբառի վերականգնում — hyscribe",
			"Ինչ-որ մեկը (հավանաբար դուք) խնդրել է փոխել ձեր գաղտնաբառը hyscribe-ում ({org})։\n\n" +
				"Նոր գաղտնաբառ ընտրելու համար բացեք հղումը (գործում է 24 ժամ, մեկ անգամ).\n{link}\n\n" +
				"Եթե դա դուք չէիք, անտեսեք այս նամակը․ ձեր գաղտնաբառը չի փոխվի։\n"},
		"confirm": {"Հաստատեք ձեր հասցեն — hyscribe",
			"Դուք գրանցել եք {org} կազմակերպությունը hyscribe-ում։\n\n" +
				"Հաստատեք ձեր էլ. հասցեն, և հաշիվը կստանա {left} փորձնական ձայնագրության ժամանակ (հղումը գործում է 7 օր, մեկ անգամ).\n{link}\n\n" +
				"Եթե դա դուք չէիք, անտեսեք այս նամակը։\n"},
		"nopassword": {"Գաղտնաբառի վերականգնում — hyscribe",
			"Ինչ-որ մեկը (հավանաբար դուք) խնդրել է վերականգնել այս հասցեի գաղտնաբառը hyscribe-ում, բայց այն դեռ գաղտնաբառ չունի՝ միայն հրավիրված է։\n\n" +
				"Միանալու համար բացեք ստացած հրավերի նամակը (գործում է 7 օր) կամ խնդրեք ձեզ հրավիրողին այն նորից ուղարկել։\n\n" +
				"Եթե դա դուք չէիք, անտեսեք այս նամակը։\n"},
		"lowbalance": {"hyscribe. մնացել է {left} — {org}",
			"{org} հաշվին մնացել է {left} ձայնագրության ժամանակ։ Երբ այն սպառվի, նոր ձայնագրությունները կմերժվեն։\n\n" +
				"Օգտագործումը և մնացորդը՝\n{link}\n\nՄնացորդը համալրելու համար դիմեք ծառայության օպերատորին։\n"},
	},
	"en": {
		"invite": {"Invitation to {org} on hyscribe",
			"You have been invited to {org} on hyscribe, the transcription service.\n\n" +
				"Open this link and choose a password to accept (it works once, for 7 days):\n{link}\n\n" +
				"If you did not expect this e-mail, ignore it.\n"},
		"reset": {"Password reset — hyscribe",
			"Someone (probably you) asked to change your hyscribe password ({org}).\n\n" +
				"Open this link to choose a new one (it works once, for 24 hours):\n{link}\n\n" +
				"If it was not you, ignore this e-mail: your password stays as it is.\n"},
		"confirm": {"Confirm your address — hyscribe",
			"You signed up {org} on hyscribe.\n\n" +
				"Confirm your e-mail address and the account gets {left} of trial audio (the link works once, for 7 days):\n{link}\n\n" +
				"If it was not you, ignore this e-mail.\n"},
		"nopassword": {"Password reset — hyscribe",
			"Someone (probably you) asked to reset the hyscribe password of this address, but it has no password yet: it has only been invited.\n\n" +
				"To join, open the invitation letter you received (it works for 7 days), or ask whoever invited you to send it again.\n\n" +
				"If it was not you, ignore this e-mail.\n"},
		"lowbalance": {"hyscribe: {left} left — {org}",
			"{org} has {left} of audio left. Once it runs out, new recordings are refused.\n\n" +
				"Usage and balance:\n{link}\n\nAsk your service operator to add seconds.\n"},
	},
}
