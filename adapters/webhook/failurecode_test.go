package webhook

import (
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The web application translates a failed delivery's error by its code
// (domain.DeliveryFailure): every error this sender writes must have one.
func TestEveryDeliveryErrorHasItsCode(t *testing.T) {
	var rec recorder
	failing := serve(t, rec.handler(http.StatusInternalServerError, "oops"))
	redirecting := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
	}))
	slow := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(time.Second):
		}
	}))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	s := newSender(Config{Timeout: 200 * time.Millisecond, BreakerFailures: 1, BreakerCooldown: time.Minute})
	send := func(s *Sender, url string) string {
		res := s.Send(t.Context(), ports.WebhookRequest{URL: url, EventID: "e", Body: []byte(`{}`)})
		if res.Err == nil {
			t.Fatalf("sending to %s did not fail", url)
		}
		return res.Err.Error()
	}
	cases := []struct{ err, code string }{
		{send(s, failing.URL), "receiver_status"},
		{send(s, redirecting.URL), "receiver_redirect"},
		{send(s, slow.URL), "receiver_timeout"},
		{send(s, closed), "receiver_unreachable"},
		{send(s, failing.URL), "receiver_circuit_open"}, // the first 500 opened its circuit
		{send(s, "ftp://example.com/"), "receiver_url"},
		{send(NewSender(Config{Logger: slog.New(slog.DiscardHandler)}), "http://127.0.0.1:9/"), "receiver_private"},
	}
	for _, c := range cases {
		if f := domain.DeliveryFailure(c.err); f.Code != c.code {
			t.Errorf("%q is %q, want %s", c.err, f.Code, c.code)
		}
	}
	if f := domain.DeliveryFailure(cases[0].err); len(f.Args) != 1 || f.Args[0] != "500" {
		t.Errorf("the status is not named: %+v", f)
	}
}
