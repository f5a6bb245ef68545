package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Poll is getTranscription after authentication: the poll's rate limit,
// then the job. With a ports.PollCounter the count and the job read are
// one store round trip; the rules (limit first, then plan, docId and
// ownership) are the same either way.
type Poll struct {
	limit    *RateLimit
	get      *GetJob
	combined ports.PollCounter // nil: Allow, then GetJob
}

// NewPoll builds the use case; combined may be nil.
func NewPoll(limit *RateLimit, get *GetJob, combined ports.PollCounter) *Poll {
	need("limit", limit)
	need("get", get)
	return &Poll{limit: limit, get: get, combined: combined}
}

// Handle counts the poll in scope against limit a minute and returns the
// job's view: a *RateLimitError over the limit, else what GetJob answers.
// The combined read below applies GetJob's rules itself (ownership; an
// unread transcript is not in the view, domain.NewPollView), for the one
// round trip; any request those rules might refuse goes through GetJob.
func (uc *Poll) Handle(ctx context.Context, scope string, p Principal, docID string, limit int) (domain.PollView, error) {
	if uc.combined == nil || KeyActor(p).mayRead() != nil || !domain.PlausibleID(docID) {
		if err := uc.limit.Allow(ctx, scope, p.Key.ID, limit); err != nil {
			return domain.PollView{}, err
		}
		rec, err := uc.get.Handle(ctx, KeyActor(p), GetCommand{DocID: domain.DocID(docID)})
		if err != nil {
			return domain.PollView{}, err
		}
		return domain.NewPollView(rec.Job), nil
	}
	rl := uc.limit
	now := rl.clock.Now()
	window := domain.RateWindow(now)
	name := scope + ":" + p.Key.ID
	if err := rl.known(name, now, window, limit); err != nil {
		return domain.PollView{}, err
	}
	n, j, err := uc.combined.HitAndGetJob(ctx, name, window, domain.DocID(docID))
	if n == 0 {
		return domain.PollView{}, fmt.Errorf("rate limit: %w", err) // nothing was counted
	}
	if err := rl.decide(name, n, now, window, limit); err != nil {
		return domain.PollView{}, err
	}
	if errors.Is(err, domain.ErrNotFound) || (err == nil && j.AccountID != p.Account.ID) {
		return domain.PollView{}, notFound(docID)
	}
	if err != nil {
		return domain.PollView{}, fmt.Errorf("get job: %w", err)
	}
	return domain.NewPollView(j), nil
}
