package webhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/client"
	"github.com/hyscribe/hyscribe/ports"
)

const readyBody = `{"event_type":"transcript_ready","secret":"s3cret","docId":"d1","transcription":"Խոսնակ 1: Բարեւ","metadata":{"crm":"A-1"},"title":"Ողջույն","resolution":"Կարճ։","link":"http://x/app/recordings/d1"}`

// TestHandlerTakesRealDeliveries sends events with the service's own
// webhook sender and checks that the handler verifies and decodes them,
// answering before the caller's function has finished.
func TestHandlerTakesRealDeliveries(t *testing.T) {
	events := make(chan client.Event, 1)
	release := make(chan struct{})
	h := client.NewWebhookHandler("s3cret", func(_ context.Context, ev client.Event) {
		<-release // a slow consumer must not delay the answer
		events <- ev
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	defer close(release)
	sender := webhook.NewSender(webhook.Config{Timeout: 10 * time.Second, AllowPrivate: true})
	res := sender.Send(context.Background(), ports.WebhookRequest{
		URL: srv.URL, EventID: "d1/transcript_ready", Body: []byte(readyBody), Secret: "s3cret", Timestamp: time.Now(),
	})
	if res.Err != nil || res.Status != 200 {
		t.Fatalf("delivery answered %d: %v", res.Status, res.Err)
	}
	release <- struct{}{}
	select {
	case ev := <-events:
		if ev.Type != client.EventTranscriptReady || ev.DocID != "d1" || ev.Title != "Ողջույն" || ev.ID != "d1/transcript_ready" ||
			string(ev.Metadata) != `{"crm":"A-1"}` || ev.Transcription != "Խոսնակ 1: Բարեւ" {
			t.Fatalf("event %+v", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the event never reached the caller's function")
	}
}

// sign makes Standard Webhooks headers as standardwebhooks.com specifies,
// independently of the service's sender.
func sign(key []byte, id string, at time.Time, body string) http.Header {
	ts := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + body))
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	h.Set("Content-Type", "application/json")
	return h
}

func post(t *testing.T, h http.Handler, headers http.Header, body string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hook", strings.NewReader(body))
	req.Header = headers
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

func TestHandlerRefusals(t *testing.T) {
	got := make(chan client.Event, 10)
	onEvent := func(_ context.Context, ev client.Event) { got <- ev }
	raw := client.NewWebhookHandler("s3cret", onEvent)
	key := []byte("0123456789abcdef0123456789abcdef")
	whsec := "whsec_" + base64.StdEncoding.EncodeToString(key)
	whsecBody := strings.Replace(readyBody, `"secret":"s3cret"`, `"secret":"`+whsec+`"`, 1)
	std := client.NewWebhookHandler(whsec, onEvent)
	now := time.Now()

	if code := post(t, raw, sign([]byte("s3cret"), "e1", now, readyBody), readyBody); code != 200 {
		t.Fatalf("raw-keyed delivery: %d", code)
	}
	if code := post(t, std, sign(key, "e2", now, whsecBody), whsecBody); code != 200 {
		t.Fatalf("whsec_ delivery keyed by the decoded secret: %d", code)
	}
	cases := []struct {
		name    string
		h       http.Handler
		headers http.Header
		body    string
	}{
		{"whsec secret used raw", std, sign([]byte(whsec), "e3", now, whsecBody), whsecBody},
		{"tampered body", raw, sign([]byte("s3cret"), "e4", now, readyBody), strings.Replace(readyBody, "Ողջույն", "Ողջույն!", 1)},
		{"old timestamp", raw, sign([]byte("s3cret"), "e5", now.Add(-10*time.Minute), readyBody), readyBody},
		{"no signature", raw, http.Header{}, readyBody},
		{"wrong body secret", &client.WebhookHandler{Secret: "other", OnEvent: onEvent}, http.Header{}, readyBody},
	}
	for _, c := range cases {
		if code := post(t, c.h, c.headers, c.body); code != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", c.name, code)
		}
	}
	// Without signature checking the body secret alone decides (spec §5).
	if code := post(t, &client.WebhookHandler{Secret: "s3cret", OnEvent: onEvent}, http.Header{}, readyBody); code != 200 {
		t.Fatalf("body secret only: %d", code)
	}
	for i := 0; i < 3; i++ {
		select {
		case <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("only %d of 3 accepted events reached the function", i)
		}
	}
	select {
	case ev := <-got:
		t.Fatalf("a refused event reached the function: %+v", ev)
	default:
	}
}
