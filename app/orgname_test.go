package app_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// phishName is an organisation name that writes its own lines into a
// letter.
const phishName = "Acme\r\nSECURITY NOTICE: your account is locked, unlock it at http://phish.example/unlock"

// TestOrganisationNamesAreOneLine: sign-up, the operator's account create
// and a rename refuse a name with line breaks with invalid_name.
func TestOrganisationNamesAreOneLine(t *testing.T) {
	st := apptest.NewStore()
	clock := ports.SystemClock{}
	ctx := context.Background()
	_, err := app.NewSignUp(st, st, &countingHasher{}, app.NewRateLimit(st, clock), clock).Handle(ctx,
		app.SignUpRequest{AccountName: phishName, Email: "a@example.am", Password: "a long enough password", ClientIP: "10.0.0.1"})
	var ve *domain.ValidationError
	if !errors.As(err, &ve) || ve.Code != "invalid_name" || !strings.Contains(ve.Msg, "one line") {
		t.Fatalf("sign-up: %v, want invalid_name saying one line", err)
	}
	if _, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Acme\u2028x", domain.PlanBusiness, 0); !errors.As(err, &ve) || ve.Code != "invalid_name" {
		t.Fatalf("account create: %v, want invalid_name", err)
	}
	a, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Acme", domain.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := phishName
	if _, err := app.NewUpdateAccount(st).Handle(ctx, a.ID, domain.RoleOwner, app.AccountChanges{Name: &name}); !errors.As(err, &ve) || ve.Code != "invalid_name" {
		t.Fatalf("rename: %v, want invalid_name", err)
	}
	if got, _ := st.GetAccount(ctx, a.ID); got.Name != "Acme" {
		t.Fatalf("the refused rename changed the name to %q", got.Name)
	}
}

// noTeam is a team store the letters tested here never read.
type noTeam struct{ ports.TeamStore }

type sentMail struct{ got []ports.Mail }

func (m *sentMail) Send(_ context.Context, mail ports.Mail) error {
	m.got = append(m.got, mail)
	return nil
}

// TestLettersPutAStoredNameOnOneLine: a name stored before names were
// checked is written on one line in every letter: no line of the letter
// begins with what the name wrote.
func TestLettersPutAStoredNameOnOneLine(t *testing.T) {
	st := apptest.NewStore()
	mail := &sentMail{}
	sender := app.NewSendMail(apptest.NewMailOutbox(), mail, ports.SystemClock{}, nil)
	l := app.NewLetters(sender, noTeam{}, st, "https://hyscribe.example", nil)
	ctx := context.Background()
	u := domain.User{Email: "a@example.am", Lang: "en"}
	if err := l.Invitation(ctx, u, phishName, "tok"); err != nil {
		t.Fatal(err)
	}
	if err := l.Reset(ctx, u, phishName, "tok", false); err != nil {
		t.Fatal(err)
	}
	if _, err := sender.Once(ctx); err != nil {
		t.Fatal(err)
	}
	if len(mail.got) != 2 {
		t.Fatalf("%d letters sent, want 2", len(mail.got))
	}
	for _, m := range mail.got {
		if strings.ContainsAny(m.Subject, "\r\n") || !strings.Contains(m.Text, "Acme SECURITY NOTICE") {
			t.Errorf("letter %q: the name is not on one line:\n%s", m.Subject, m.Text)
		}
		for _, line := range strings.Split(m.Text, "\n") {
			if strings.HasPrefix(line, "SECURITY NOTICE") || strings.Contains(line, "\r") {
				t.Errorf("letter %q has a line of the name's own: %q", m.Subject, line)
			}
		}
	}
}
