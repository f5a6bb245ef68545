package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// webhookSecretBytes is the length of a generated secret's key: 32 bytes,
// inside the 24 to 64 that Standard Webhooks asks for.
const webhookSecretBytes = 32

// NewWebhookSecret is a fresh Standard Webhooks secret: "whsec_" and the
// base64 of 32 random bytes, which are the HMAC key of the signatures.
func NewWebhookSecret() string {
	b := make([]byte, webhookSecretBytes)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS has no entropy: nothing safe to do
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// GenerateWebhookSecret gives an account a new webhookSecret made by
// NewWebhookSecret.
type GenerateWebhookSecret struct {
	accounts ports.AccountStore
}

// NewGenerateWebhookSecret builds the use case.
func NewGenerateWebhookSecret(accounts ports.AccountStore) *GenerateWebhookSecret {
	need("accounts", accounts)
	return &GenerateWebhookSecret{accounts: accounts}
}

// Handle runs the use case (GenerateWebhookSecret) and returns the secret:
// the only time it is shown whole. Events sent from then on carry it and
// are signed with it.
func (uc *GenerateWebhookSecret) Handle(ctx context.Context, id domain.AccountID, by domain.Role) (string, error) {
	if err := mayManage(by, "generate webhook secret"); err != nil {
		return "", err
	}
	secret := NewWebhookSecret()
	if _, err := updateAccount(ctx, uc.accounts, id, AccountChanges{WebhookSecret: &secret}); err != nil {
		return "", fmt.Errorf("generate webhook secret: %w", err)
	}
	return secret, nil
}
