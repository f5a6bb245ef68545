package app_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/app/apptest"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TestActiveAPIKeysPerAccountAreBounded: an account has at most
// domain.MaxActiveAPIKeys active keys (its first, made with the account,
// counts); the next is refused with too_many_api_keys, and revoking one
// makes room again. Another account is not affected.
func TestActiveAPIKeysPerAccountAreBounded(t *testing.T) {
	st := apptest.NewStore()
	clock := ports.SystemClock{}
	ctx := context.Background()
	a, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Acme", domain.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	create := app.NewCreateAPIKey(st, clock)
	var last domain.APIKey
	for i := 1; i < domain.MaxActiveAPIKeys; i++ {
		if _, last, err = create.Handle(ctx, a.ID, domain.RoleOwner); err != nil {
			t.Fatalf("key %d: %v", i+1, err)
		}
	}
	var ve *domain.ValidationError
	if _, _, err := create.Handle(ctx, a.ID, domain.RoleOwner); !errors.As(err, &ve) || ve.Code != "too_many_api_keys" {
		t.Fatalf("key %d: %v, want too_many_api_keys", domain.MaxActiveAPIKeys+1, err)
	}
	if err := app.NewRevokeAPIKey(st, clock).Handle(ctx, a.ID, domain.RoleOwner, last.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := create.Handle(ctx, a.ID, domain.RoleOwner); err != nil {
		t.Fatalf("a key after revoking one: %v", err)
	}
	b, _, err := app.NewCreateAccount(st, clock).Handle(ctx, "Other", domain.PlanBusiness, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := create.Handle(ctx, b.ID, domain.RoleOwner); err != nil {
		t.Fatalf("another account's second key: %v", err)
	}
}
