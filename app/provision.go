package app

import (
	"context"
	"crypto/rand"
	"fmt"
	"math"
	"net/url"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The use cases below are the operator's and the web application's on
// accounts, API keys and receiver settings; checklists.go has those on
// checklists.

// CreateAccount creates an account with its first API key (operator CLI).
type CreateAccount struct {
	accounts ports.AccountStore
	clock    ports.Clock
}

// NewCreateAccount builds the use case.
func NewCreateAccount(accounts ports.AccountStore, clock ports.Clock) *CreateAccount {
	need("accounts", accounts)
	need("clock", clock)
	return &CreateAccount{accounts: accounts, clock: clock}
}

// Handle runs the use case (CreateAccount); the key is returned in full
// this once only.
func (uc *CreateAccount) Handle(ctx context.Context, name string, plan domain.Plan, seconds float64) (domain.Account, string, error) {
	name, err := domain.OrgName(name)
	if err != nil {
		return domain.Account{}, "", err
	}
	if !plan.Valid() {
		return domain.Account{}, "", domain.Invalid("invalid_plan", "plan must be \"business\" or \"free\", not %q", plan)
	}
	if seconds < 0 || math.IsNaN(seconds) || math.IsInf(seconds, 0) {
		return domain.Account{}, "", domain.Invalid("invalid_seconds", "seconds must be a number ≥ 0")
	}
	a := domain.Account{ID: domain.AccountID(NewID()), Name: name, Plan: plan, BalanceMs: int64(math.Round(seconds * 1000)), CreatedAt: uc.clock.Now()}
	if err := uc.accounts.CreateAccount(ctx, a); err != nil {
		return domain.Account{}, "", fmt.Errorf("create account: %w", err)
	}
	raw, _, err := addAPIKey(ctx, uc.accounts, uc.clock, a.ID)
	if err != nil {
		return domain.Account{}, "", err
	}
	return a, raw, nil
}

// CreateAPIKey adds a key to an account.
type CreateAPIKey struct {
	accounts ports.AccountStore
	clock    ports.Clock
}

// NewCreateAPIKey builds the use case.
func NewCreateAPIKey(accounts ports.AccountStore, clock ports.Clock) *CreateAPIKey {
	need("accounts", accounts)
	need("clock", clock)
	return &CreateAPIKey{accounts: accounts, clock: clock}
}

// Handle runs the use case (CreateAPIKey) and returns the key in full,
// once. An account with domain.MaxActiveAPIKeys active keys gets a
// ValidationError (too_many_api_keys): every per-key limit (creates,
// polls, lists, heavy requests in progress) would otherwise multiply with
// keys made at will.
func (uc *CreateAPIKey) Handle(ctx context.Context, id domain.AccountID, by domain.Role) (string, domain.APIKey, error) {
	if err := mayManage(by, "create API key"); err != nil {
		return "", domain.APIKey{}, err
	}
	keys, err := uc.accounts.ListAPIKeys(ctx, id)
	if err != nil {
		return "", domain.APIKey{}, fmt.Errorf("create API key: %w", err)
	}
	active := 0
	for _, k := range keys {
		if k.Active() {
			active++
		}
	}
	if active >= domain.MaxActiveAPIKeys {
		return "", domain.APIKey{}, domain.Invalid("too_many_api_keys",
			"the account already has %d active API keys, the most it may have; revoke one it no longer uses first", domain.MaxActiveAPIKeys)
	}
	return addAPIKey(ctx, uc.accounts, uc.clock, id)
}

// addAPIKey is CreateAPIKey's work, which CreateAccount shares.
func addAPIKey(ctx context.Context, accounts ports.AccountStore, clock ports.Clock, id domain.AccountID) (string, domain.APIKey, error) {
	var random [48]byte
	if _, err := rand.Read(random[:]); err != nil {
		return "", domain.APIKey{}, fmt.Errorf("create API key: %w", err)
	}
	raw, key := domain.NewAPIKey(NewID(), id, random[:], clock.Now())
	if err := accounts.AddAPIKey(ctx, key); err != nil {
		return "", domain.APIKey{}, fmt.Errorf("create API key: %w", err)
	}
	return raw, key, nil
}

// AccountChanges are the settings to change; nil leaves one as it is.
type AccountChanges struct {
	Name               *string
	Plan               *domain.Plan
	Seconds            *float64
	WebhookURL         *string
	WebhookSecret      *string
	AnalysisWebhookURL *string
	NotifyFailures     *bool
	TimeZone           *string // an IANA zone, or "" for the deployment's default
	AgentChannel       *string // "left", "right" or "" (not known)
	// ListColumns are the metadata keys the history shows as columns, as
	// an owner typed them (domain.ParseListColumns); AgentKey the key
	// naming a call's agent ("" none; domain.ValidMetadataKey).
	ListColumns *string
	AgentKey    *string
}

// UpdateAccount changes an account's settings.
type UpdateAccount struct {
	accounts ports.AccountStore
}

// NewUpdateAccount builds the use case.
func NewUpdateAccount(accounts ports.AccountStore) *UpdateAccount {
	need("accounts", accounts)
	return &UpdateAccount{accounts: accounts}
}

// Handle runs the use case (UpdateAccount): it applies changes after
// validating them.
func (uc *UpdateAccount) Handle(ctx context.Context, id domain.AccountID, by domain.Role, c AccountChanges) (domain.Account, error) {
	if err := mayManage(by, "update account"); err != nil {
		return domain.Account{}, err
	}
	return updateAccount(ctx, uc.accounts, id, c)
}

// updateAccount is UpdateAccount's work, which GenerateWebhookSecret shares.
func updateAccount(ctx context.Context, accounts ports.AccountStore, id domain.AccountID, c AccountChanges) (domain.Account, error) {
	for _, u := range []*string{c.WebhookURL, c.AnalysisWebhookURL} {
		if u != nil {
			if err := ValidateReceiverURL(*u); err != nil {
				return domain.Account{}, err
			}
		}
	}
	if c.Name != nil {
		name, err := domain.OrgName(*c.Name)
		if err != nil {
			return domain.Account{}, err
		}
		c.Name = &name
	}
	if c.Plan != nil && !c.Plan.Valid() {
		return domain.Account{}, domain.Invalid("invalid_plan", "plan must be \"business\" or \"free\", not %q", *c.Plan)
	}
	if c.Seconds != nil && (*c.Seconds < 0 || math.IsNaN(*c.Seconds) || math.IsInf(*c.Seconds, 0)) {
		return domain.Account{}, domain.Invalid("invalid_seconds", "seconds must be a number ≥ 0")
	}
	if err := validateQA(c); err != nil {
		return domain.Account{}, err
	}
	if c.ListColumns != nil {
		cols, err := domain.ParseListColumns(*c.ListColumns)
		if err != nil {
			return domain.Account{}, err
		}
		c.ListColumns = &cols
	}
	if c.AgentKey != nil && *c.AgentKey != "" {
		if err := domain.ValidMetadataKey(*c.AgentKey); err != nil {
			return domain.Account{}, err
		}
	}
	var out domain.Account
	err := accounts.UpdateAccount(ctx, id, func(a *domain.Account) error {
		set(&a.Name, c.Name)
		set(&a.Plan, c.Plan)
		set(&a.WebhookURL, c.WebhookURL)
		set(&a.WebhookSecret, c.WebhookSecret)
		set(&a.AnalysisWebhookURL, c.AnalysisWebhookURL)
		set(&a.NotifyFailures, c.NotifyFailures)
		set(&a.TimeZone, c.TimeZone)
		set(&a.AgentChannel, c.AgentChannel)
		set(&a.ListColumns, c.ListColumns)
		set(&a.AgentKey, c.AgentKey)
		if c.Seconds != nil {
			a.BalanceMs = int64(math.Round(*c.Seconds * 1000))
		}
		out = *a
		return nil
	})
	if err != nil {
		return domain.Account{}, fmt.Errorf("update account: %w", err)
	}
	return out, nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// ValidateReceiverURL accepts an absolute http(s) URL, or "" to clear.
func ValidateReceiverURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return domain.Invalid("invalid_webhook_url", "receiver URL must be an absolute http:// or https:// address without credentials, not %q", raw)
	}
	return nil
}

// CreateChecklist saves a checklist definition (the file format of docs/architecture.md, Operating contract).
type CreateChecklist struct {
	accounts   ports.AccountStore
	checklists ports.ChecklistStore
	clock      ports.Clock
}

// NewCreateChecklist builds the use case.
func NewCreateChecklist(accounts ports.AccountStore, checklists ports.ChecklistStore, clock ports.Clock) *CreateChecklist {
	need("accounts", accounts)
	need("checklists", checklists)
	need("clock", clock)
	return &CreateChecklist{accounts: accounts, checklists: checklists, clock: clock}
}

// Handle runs the use case (CreateChecklist).
func (uc *CreateChecklist) Handle(ctx context.Context, account domain.AccountID, by domain.Role, definition []byte) (domain.Checklist, error) {
	if err := mayManage(by, "create checklist"); err != nil {
		return domain.Checklist{}, err
	}
	f, err := domain.ParseChecklistFile(definition)
	if err != nil {
		return domain.Checklist{}, err
	}
	if _, err := uc.accounts.GetAccount(ctx, account); err != nil {
		return domain.Checklist{}, fmt.Errorf("create checklist: %w", err)
	}
	c := domain.Checklist{ID: NewID(), AccountID: account, Name: f.Name, Version: 1, Questions: f.Questions, CreatedAt: uc.clock.Now()}
	if err := uc.checklists.CreateChecklist(ctx, c); err != nil {
		return domain.Checklist{}, fmt.Errorf("create checklist: %w", err)
	}
	return c, nil
}

// ListAPIKeys returns an account's keys (their prefixes, never the keys),
// newest first.
type ListAPIKeys struct {
	accounts ports.AccountStore
}

// NewListAPIKeys builds the use case.
func NewListAPIKeys(accounts ports.AccountStore) *ListAPIKeys {
	need("accounts", accounts)
	return &ListAPIKeys{accounts: accounts}
}

// Handle runs the use case (ListAPIKeys).
func (uc *ListAPIKeys) Handle(ctx context.Context, id domain.AccountID) ([]domain.APIKey, error) {
	ks, err := uc.accounts.ListAPIKeys(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	return ks, nil
}

// RevokeAPIKey revokes one of an account's keys.
type RevokeAPIKey struct {
	accounts ports.AccountStore
	clock    ports.Clock

	// Revoked, when set, hears of each key revoked here (the process's
	// key cache forgets it).
	Revoked func(keyID string)
}

// NewRevokeAPIKey builds the use case.
func NewRevokeAPIKey(accounts ports.AccountStore, clock ports.Clock) *RevokeAPIKey {
	need("accounts", accounts)
	need("clock", clock)
	return &RevokeAPIKey{accounts: accounts, clock: clock}
}

// Handle runs the use case (RevokeAPIKey): the API refuses the key (401)
// from the next request on in this process, and within the key cache's TTL
// in every other (Authenticate.KeyTTL). domain.ErrNotFound if the account
// has no such key.
func (uc *RevokeAPIKey) Handle(ctx context.Context, id domain.AccountID, by domain.Role, keyID string) error {
	if err := mayManage(by, "revoke API key"); err != nil {
		return err
	}
	if err := uc.accounts.RevokeAPIKey(ctx, id, keyID, uc.clock.Now()); err != nil {
		return fmt.Errorf("revoke API key: %w", err)
	}
	if uc.Revoked != nil {
		uc.Revoked(keyID)
	}
	return nil
}
