package app

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Usage reports what an account used: seconds per day, jobs per day by
// status and the largest recordings.
type Usage struct {
	reader ports.UsageReader
	clock  ports.Clock
}

// NewUsage builds the use case.
func NewUsage(reader ports.UsageReader, clock ports.Clock) *Usage {
	need("reader", reader)
	need("clock", clock)
	return &Usage{reader: reader, clock: clock}
}

// Handle reports the last days days (one of domain.UsagePeriods) in loc.
func (uc *Usage) Handle(ctx context.Context, account domain.AccountID, days int, loc *time.Location) (domain.UsageReport, error) {
	if !slices.Contains(domain.UsagePeriods, days) {
		return domain.UsageReport{}, domain.Invalid("invalid_period", "the period must be one of %v days", domain.UsagePeriods)
	}
	now := uc.clock.Now()
	jobs, err := uc.reader.JobUsage(ctx, account, domain.UsageFrom(now, days, loc))
	if err != nil {
		return domain.UsageReport{}, fmt.Errorf("usage: %w", err)
	}
	return domain.BuildUsage(jobs, now, days, loc, 5), nil
}
