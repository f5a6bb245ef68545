package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/internal/retry"
)

// runRounds is the loop of a worker that drains a table in rounds (the
// outbox relay, the mail sender): it runs once until ctx ends, at once
// again while once says more may be due, else on the next tick or wake.
// A failing round is retried after the waits of the project's one policy
// (internal/retry): interval, doubling up to maxBackoff, jittered; what
// names the worker in the log.
func runRounds(ctx context.Context, log *slog.Logger, what string, interval, maxBackoff time.Duration, wake <-chan struct{}, once func(context.Context) (more bool, err error)) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	waits := retry.Policy(interval, maxBackoff)
	for {
		more, err := once(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			d := waits.NextBackOff()
			log.Warn(what+": will retry", "err", err, "in", d)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(d):
			}
			continue
		}
		waits.Reset()
		if more {
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}
