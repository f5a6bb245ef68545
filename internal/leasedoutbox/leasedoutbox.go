// Package leasedoutbox publishes a transactional outbox in the two steps of
// a store that leases records: claim, then mark sent. The SQLite store and
// the in-memory store of the app's tests (app/apptest) both publish this
// way; Postgres publishes in one transaction instead.
//
// It lives here, not in ports (which holds contracts, not behaviour) nor in
// adapters/internal (which app/apptest may not import): internal/ at the
// module root is importable by both, and it depends on ports only, so the
// direction adapters → app → ports/domain is kept.
package leasedoutbox

import (
	"context"
	"time"

	"github.com/hyscribe/hyscribe/ports"
)

// Store is an outbox that leases records to the caller who claims them.
type Store interface {
	// ClaimOutbox returns up to limit unsent records in commit (Seq) order
	// and leases them to the caller until now+lease (as
	// porttest.OutboxSteps states in full).
	ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxRecord, error)
	// MarkSent removes published records. Unknown seqs are ignored.
	MarkSent(ctx context.Context, seqs []int64) error
}

// Publish is ports.Outbox.PublishOutbox for a store that leases: it claims
// up to limit records with ClaimOutbox, hands them to publish and removes
// them with MarkSent once publish returned nil. A crash or a failed publish
// leaves them leased until the lease lapses, then they are claimed again.
func Publish(ctx context.Context, o Store, now time.Time, lease time.Duration, limit int, publish func(context.Context, []ports.OutboxRecord) error) (int, error) {
	recs, err := o.ClaimOutbox(ctx, now, lease, limit)
	if err != nil || len(recs) == 0 {
		return 0, err
	}
	if err := publish(ctx, recs); err != nil {
		return 0, err
	}
	seqs := make([]int64, len(recs))
	for i, r := range recs {
		seqs[i] = r.Seq
	}
	if err := o.MarkSent(ctx, seqs); err != nil {
		return 0, err
	}
	return len(recs), nil
}
