package app

import (
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// Actor is who performs an operation on an account's jobs, whichever door
// it came through: an API key's holder (the API) or a person signed in to
// the web application, with their role. The use cases that both doors
// serve (CreateJob, GetJob, ExportJob, Resend) take one and apply every
// rule to it themselves, so neither door can skip one (docs/decisions.md,
// One use case per operation).
type Actor struct {
	Account domain.Account
	// Key is the API key's (KeyActor); empty for a person.
	Key domain.APIKey
	// User is the person's, with their role; empty for an API key.
	User domain.User
	// byKey says the actor came through the API (KeyActor): an Actor
	// built otherwise is a person of the account, never a key.
	byKey bool
}

// KeyActor is the actor of an authenticated API request.
func KeyActor(p Principal) Actor { return Actor{Account: p.Account, Key: p.Key, byKey: true} }

// PersonActor is the actor of a signed-in visitor of the web application.
func PersonActor(v *Visitor) Actor { return Actor{Account: v.Account, User: v.User} }

// ByKey reports whether the actor came through the API.
func (a Actor) ByKey() bool { return a.byKey }

// mayRead is the rule for reading the account's jobs: an API key needs a
// Business plan (RequireBusiness); a person of the account may, in any role.
func (a Actor) mayRead() error {
	if a.ByKey() {
		return RequireBusiness(Principal{Account: a.Account, Key: a.Key})
	}
	return nil
}

// mayManage is the rule for what sends data out of the account or spends
// its seconds (creating a job, resending an event): an API key needs a
// Business plan, a person the owner's role.
func (a Actor) mayManage(what string) error {
	if a.ByKey() {
		return a.mayRead()
	}
	if !a.User.Role.MayManage() {
		return fmt.Errorf("%s: a %s may not, only an owner may: %w", what, roleName(a.User.Role), domain.ErrForbidden)
	}
	return nil
}
