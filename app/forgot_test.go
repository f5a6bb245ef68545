package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// mailbox hands each letter sent to the test.
type mailbox chan ports.Mail

func (m mailbox) Send(_ context.Context, mail ports.Mail) error {
	m <- mail
	return nil
}

// TestForgotPasswordRenewsNoStrangersInvitation: an address with only a
// stranger's pending invitation asks "Forgot password?": the letter it
// gets names no organisation and carries no link, and the invitation is
// not renewed (its token and expiry are unchanged). A person with a
// password still gets a reset link.
func TestForgotPasswordRenewsNoStrangersInvitation(t *testing.T) {
	st := apptest.NewStore()
	clock := ports.SystemClock{}
	ctx := t.Context()
	stranger, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Stranger Unlock Desk", domain.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Millisecond)
	inv := domain.User{ID: "inv", AccountID: stranger.ID, Email: "victim@example.am", Role: domain.RoleMember,
		InviteHash: domain.HashToken("stranger-token"), InviteExpiresAt: expires, CreatedAt: time.Now(), Lang: "en"}
	if err := st.CreateUser(ctx, inv); err != nil {
		t.Fatal(err)
	}
	box := make(mailbox, 4)
	sender := app.NewSendMail(apptest.NewMailOutbox(), box, clock, nil)
	go func() { _ = sender.Run(ctx) }()
	letters := app.NewLetters(sender, noTeam{}, st, "https://hyscribe.example", nil)
	forgot := app.NewForgotPassword(st, st, app.NewRateLimit(st, clock), clock)
	if err := forgot.Handle(ctx, letters, "victim@example.am", "10.0.0.1", "hy"); err != nil {
		t.Fatal(err)
	}
	var m ports.Mail
	select {
	case m = <-box:
	case <-time.After(10 * time.Second):
		t.Fatal("no letter within 10 s")
	}
	if m.To != "victim@example.am" || strings.Contains(m.Subject+m.Text, "Stranger") || strings.Contains(m.Text, "https://") || !strings.Contains(m.Text, "no password") {
		t.Fatalf("the letter to an invited-only address: %+v", m)
	}
	after, err := st.FindUser(ctx, ports.UserKey{ID: "inv"})
	if err != nil || after.InviteHash != inv.InviteHash || !after.InviteExpiresAt.Equal(expires) {
		t.Fatalf("the stranger's invitation changed: %+v %v", after, err)
	}

	// A person with a password: the reset link, with the person's own
	// organisation.
	own, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Own Clinic", domain.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CreateUser(ctx, domain.User{ID: "person", AccountID: own.ID, Email: "person@example.am", PasswordHash: "x", Role: domain.RoleOwner, CreatedAt: time.Now(), Lang: "en"}); err != nil {
		t.Fatal(err)
	}
	if err := forgot.Handle(ctx, letters, "person@example.am", "10.0.0.1", "en"); err != nil {
		t.Fatal(err)
	}
	select {
	case m = <-box:
	case <-time.After(10 * time.Second):
		t.Fatal("no reset letter within 10 s")
	}
	if !strings.Contains(m.Text, "Own Clinic") || !strings.Contains(m.Text, "https://hyscribe.example/app/reset/") {
		t.Fatalf("the reset letter: %+v", m)
	}
}
