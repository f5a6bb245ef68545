package smtp_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/smtp"
	"github.com/hyscribe/hyscribe/adapters/smtp/smtptest"
	"github.com/hyscribe/hyscribe/ports"
)

func TestSendThroughARealServer(t *testing.T) {
	srv := smtptest.Start(t)
	m, err := smtp.New(srv.URL("hyscribe@example.am"))
	if err != nil {
		t.Fatal(err)
	}
	text := "Բարեւ։ Սեղմեք հղումը՝ գաղտնաբառը փոխելու համար.\nhttps://hyscribe.example.am/app/reset/abc?x=1&y=2\n" +
		strings.Repeat("երկար տող ", 30) + "\n.\n.. a line that is only dots must survive SMTP's dot-stuffing\n"
	err = m.Send(context.Background(), ports.Mail{To: "anna@example.am", Subject: "Գաղտնաբառի վերականգնում — hyscribe", Text: text, Lang: "hy"})
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Await(t, "anna@example.am", 1, 5*time.Second)[0]
	if got.From != "hyscribe@example.am" || got.Subject != "Գաղտնաբառի վերականգնում — hyscribe" || got.Lang != "hy" {
		t.Fatalf("headers: from %q subject %q lang %q", got.From, got.Subject, got.Lang)
	}
	if strings.TrimRight(got.Text, "\n") != strings.TrimRight(text, "\n") {
		t.Fatalf("text came back changed:\n%q\nwant\n%q", got.Text, text)
	}
	if got.Header.Get("Message-ID") == "" || got.Header.Get("Date") == "" {
		t.Fatalf("no Message-ID or Date: %v", got.Header)
	}
}

func TestRefusesAnAddressThatWouldAddRecipients(t *testing.T) {
	m, err := smtp.New("smtp://127.0.0.1:1?from=hyscribe@example.am")
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"a@example.am\r\nBcc: b@example.am", "a@example.am, b@example.am", "Anna <a@example.am>", ""} {
		if err := m.Send(context.Background(), ports.Mail{To: to, Subject: "x", Text: "x"}); err == nil || !strings.Contains(err.Error(), "not one e-mail address") {
			t.Errorf("Send to %q: %v", to, err)
		}
	}
}

func TestSubjectStaysOneLine(t *testing.T) {
	srv := smtptest.Start(t)
	m, _ := smtp.New(srv.URL("hyscribe@example.am"))
	if err := m.Send(context.Background(), ports.Mail{To: "a@example.am", Subject: "one\r\nBcc: b@example.am", Text: "x"}); err != nil {
		t.Fatal(err)
	}
	got := srv.Await(t, "a@example.am", 1, 5*time.Second)[0]
	if got.Header.Get("Bcc") != "" || got.Subject != "one Bcc: b@example.am" {
		t.Fatalf("subject %q, Bcc %q", got.Subject, got.Header.Get("Bcc"))
	}
}

func TestBadURLs(t *testing.T) {
	for raw, want := range map[string]string{
		"http://mail.example.am?from=a@example.am":          "scheme",
		"smtp://?from=a@example.am":                         "host",
		"smtp://mail.example.am":                            "from",
		"smtp://mail.example.am?from=not-an-email":          "from",
		"smtp://mail.example.am?from=Anna%20<a@example.am>": "from",
	} {
		if _, err := smtp.New(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q) = %v, want an error about %s", raw, err, want)
		}
	}
}

func TestDeadEndRelayFailsWithinTheContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and never greets
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	m, _ := smtp.New("smtp://" + ln.Addr().String() + "?from=hyscribe@example.am")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := m.Send(ctx, ports.Mail{To: "a@example.am", Subject: "x", Text: "x"}); err == nil {
		t.Fatal("a relay that never greets accepted the message")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Send took %s past a 300 ms context", d)
	}
}
