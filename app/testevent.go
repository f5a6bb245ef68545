package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// SendTestEvent sends a test event (domain.EventTest) now to each receiver
// the account has (webhookURL, and the analysis receiver when it is another
// address), signed with the current secret, and returns each attempt's
// outcome. The attempts belong to no recording and are not kept in any
// delivery log. An account without a receiver is a validation error.
type SendTestEvent struct {
	accounts ports.AccountStore
	sender   ports.WebhookSender
	clock    ports.Clock
}

// NewSendTestEvent builds the use case.
func NewSendTestEvent(accounts ports.AccountStore, sender ports.WebhookSender, clock ports.Clock) *SendTestEvent {
	need("accounts", accounts)
	need("sender", sender)
	need("clock", clock)
	return &SendTestEvent{accounts: accounts, sender: sender, clock: clock}
}

// Handle runs the use case (SendTestEvent).
func (uc *SendTestEvent) Handle(ctx context.Context, account domain.AccountID, by domain.Role) ([]domain.Delivery, error) {
	if err := mayManage(by, "test event"); err != nil {
		return nil, err
	}
	acct, err := uc.accounts.GetAccount(ctx, account)
	if err != nil {
		return nil, fmt.Errorf("test event: %w", err)
	}
	var urls []string
	for _, u := range []string{acct.WebhookURL, acct.AnalysisReceiver()} {
		if u != "" && (len(urls) == 0 || urls[0] != u) {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return nil, domain.Invalid("no_receiver", "the account has no receiver: set a webhook address first")
	}
	now := uc.clock.Now()
	body, err := json.Marshal(domain.TestPayload{EventType: domain.EventTest, Secret: acct.WebhookSecret, AccountID: acct.ID,
		Message: "hyscribe test event: your receiver is reachable", SentAt: now.UTC().Format(domain.TimeFormat)})
	if err != nil {
		return nil, fmt.Errorf("test event: %w", err)
	}
	out := make([]domain.Delivery, 0, len(urls))
	for _, u := range urls {
		d := domain.Delivery{ID: NewID(), EventID: "test-" + NewID(), AccountID: acct.ID, EventType: domain.EventTest,
			URL: u, Payload: body, Status: domain.DeliveryPending, CreatedAt: now}
		out = append(out, send(ctx, uc.sender, d, acct.WebhookSecret, uc.clock.Now()))
	}
	return out, nil
}
