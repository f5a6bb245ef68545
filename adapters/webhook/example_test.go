package webhook_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/ports"
)

// A receiver checks each delivery before trusting it: the signature proves
// the body came from hyscribe with the account's webhookSecret, and the
// timestamp bounds replays.
func ExampleVerify() {
	receiver := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify("my-webhook-secret", r.Header, body, time.Now(), webhook.DefaultTolerance); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		// Reply at once; process the event asynchronously, once per webhook-id.
		w.WriteHeader(http.StatusOK)
	})
	srv := httptest.NewServer(receiver)
	defer srv.Close()

	// A local receiver is a private address: allowed here as with
	// HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true.
	sender := webhook.NewSender(webhook.Config{AllowPrivate: true})
	for _, secret := range []string{"my-webhook-secret", "a-wrong-secret"} {
		res := sender.Send(context.Background(), ports.WebhookRequest{
			URL: srv.URL, EventID: "evt_1", Body: []byte(`{"event_type":"transcript_ready"}`),
			Secret: secret, Timestamp: time.Now(),
		})
		fmt.Println(res.Status, res.Err)
	}
	// Output:
	// 200 <nil>
	// 401 receiver answered 401 Unauthorized: webhook: signature does not match
}
