package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/leasedoutbox"
	"github.com/hyscribe/hyscribe/ports"
)

// ClaimOutbox leases up to limit unsent records in seq order until
// now+lease. A record whose lease has not ended (leased_until > now) is
// skipped, and so is every later record of its doc: there is no claimer
// identity, so any live lease on an earlier record blocks, which keeps each
// doc's events in order across relays.
func (s *Store) ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []ports.OutboxRecord
	err := s.write(ctx, func(tx *sql.Tx) error {
		out = out[:0]
		rows, err := tx.QueryContext(ctx, `SELECT o.seq, o.topic, o.payload FROM outbox o
			WHERE (o.leased_until IS NULL OR o.leased_until <= ?1)
			  AND NOT EXISTS (SELECT 1 FROM outbox e
			                  WHERE e.doc_id = o.doc_id AND e.seq < o.seq AND e.leased_until > ?1)
			ORDER BY o.seq
			LIMIT ?2`, toMs(now), limit)
		if err != nil {
			return translate(err)
		}
		defer rows.Close()
		for rows.Next() {
			var seq int64
			var topic, payload string
			if err := rows.Scan(&seq, &topic, &payload); err != nil {
				return err
			}
			ev, err := domain.ParseEvent(topic, []byte(payload))
			if err != nil {
				return fmt.Errorf("record %d: %w", seq, err)
			}
			out = append(out, ports.OutboxRecord{Seq: seq, Event: ev})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if err := rows.Close(); err != nil {
			return err
		}
		return updateSeqs(ctx, tx, `UPDATE outbox SET leased_until = ? WHERE seq IN `, []any{toMs(now.Add(lease))}, seqsOf(out))
	})
	if err != nil {
		return nil, fmt.Errorf("sqlite.ClaimOutbox: %w", err)
	}
	return out, nil
}

// MarkSent removes published records. Unknown seqs are ignored.
func (s *Store) MarkSent(ctx context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		return updateSeqs(ctx, tx, `DELETE FROM outbox WHERE seq IN `, nil, seqs)
	})
	if err != nil {
		return fmt.Errorf("sqlite.MarkSent: %w", err)
	}
	return nil
}

// PublishOutbox leases (leasedoutbox.Publish). SQLite has one writer, so
// publishing inside the claiming transaction would hold every other write
// back for the whole publish: the lease keeps the records reserved
// instead, and a crash or a failed publish leaves them to be claimed again
// once it lapses.
func (s *Store) PublishOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int, publish func(context.Context, []ports.OutboxRecord) error) (int, error) {
	return leasedoutbox.Publish(ctx, s, now, lease, limit, publish)
}

// seqChunk keeps the number of bound values per statement well under
// SQLite's limit whatever batch size a relay uses.
const seqChunk = 500

// updateSeqs runs stmt + "(?, ?, …)" with args followed by each chunk of seqs.
func updateSeqs(ctx context.Context, tx *sql.Tx, stmt string, args []any, seqs []int64) error {
	for len(seqs) > 0 {
		n := min(len(seqs), seqChunk)
		vals := append([]any{}, args...)
		for _, q := range seqs[:n] {
			vals = append(vals, q)
		}
		if _, err := tx.ExecContext(ctx, stmt+"("+placeholders(n)+")", vals...); err != nil {
			return translate(err)
		}
		seqs = seqs[n:]
	}
	return nil
}

func seqsOf(recs []ports.OutboxRecord) []int64 {
	out := make([]int64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}
