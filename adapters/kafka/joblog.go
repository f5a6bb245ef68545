package kafka

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Handler outcomes in the per-job log line.
const (
	OutcomeOK      = "ok"      // handled; the offset will be committed
	OutcomeRetry   = "error"   // failed; retried while attempts remain
	OutcomeFailed  = "failed"  // failed for good (permanent): the job gives up
	OutcomeBackOff = "backoff" // a shared dependency is down; the attempt is not counted
)

// logHandled writes the one line per handler call that lets an operator
// follow a job through the stages (the consumer's logger already names the
// stage): its docId, the event, the attempt, how long it took, the outcome
// and the error. Only identifiers and the error go in it: never the
// event's data (a transcript, a webhook secret).
func logHandled(log *slog.Logger, ev domain.Event, attempt int, d time.Duration, err error) {
	outcome, level := OutcomeOK, slog.LevelInfo
	switch {
	case err == nil:
	case errors.Is(err, domain.ErrBackOff) && !domain.IsPermanent(err):
		outcome, level = OutcomeBackOff, slog.LevelWarn
	case domain.IsPermanent(err):
		outcome, level = OutcomeFailed, slog.LevelWarn
	default:
		outcome, level = OutcomeRetry, slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("docId", string(ev.DocID)),
		slog.String("event", ev.Type),
		slog.Int("attempt", attempt),
		slog.Float64("durationMs", float64(d.Microseconds())/1000),
		slog.String("outcome", outcome),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	log.LogAttrs(context.Background(), level, "job handled", attrs...)
}
