// Package app holds hyscribe's use cases: one type per use case, each with a
// Handle method, constructed with only the outbound ports it calls, so that
// its constructor is its dependency list (NewSignIn takes users, sessions,
// a hasher, a rate limit and a clock, nothing else). Work two use cases
// share is an unexported function, not a type with many methods
// (startSession, for SignUp, SignIn, AcceptInvite and ResetPassword).
//
// Application collects every use case the inbound adapters serve, split into
// Commands and Queries; cmd/hyscribe wires it in one literal and hands it
// to the HTTP API and the web application whole. The pipeline's stage
// handlers are listed in Pipeline. Inbound adapters (HTTP, Kafka consumers,
// the CLI) call these types directly; the operator CLI builds the few it runs
// (CreateAccount, CreateUser, ResetLink, …) where it runs them.
package app

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// NewID returns an opaque, URL-safe identifier of 128 random bits.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS has no entropy: nothing safe to do
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func need(name string, v any) {
	if v == nil {
		panic("app: " + name + " is required")
	}
}

// errReplay marks a transition the job has already made: the message that
// asked for it is a repeat and is acknowledged without effect.
var errReplay = errors.New("replayed transition")

// transition applies fn to the job in one store transaction. A permanent
// error from fn fails the job with its message instead (refunding any
// reserved balance); an invalid transition means the message is a repeat and
// is ignored, and so does a job deleted meanwhile.
func transition(ctx context.Context, jobs ports.JobStore, now time.Time, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	err := jobs.UpdateJob(ctx, id, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		evs, err := fn(j, a)
		switch {
		case err == nil:
			return evs, nil
		case domain.IsPermanent(err):
			return j.Fail(now, err.Error(), a)
		case errors.Is(err, domain.ErrInvalidTransition):
			return nil, errReplay
		}
		return nil, err
	})
	if errors.Is(err, errReplay) || errors.Is(err, domain.ErrInvalidTransition) {
		return nil
	}
	// A job deleted while its stage ran is gone: nothing is left to do.
	return ignoreMissing(err, "transition")
}
