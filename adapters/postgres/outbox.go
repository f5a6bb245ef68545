package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// ClaimOutbox leases up to limit unsent records in seq order until
// now+lease (see claimOutbox for which records it may hand out).
func (s *Store) ClaimOutbox(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]ports.OutboxRecord, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []ports.OutboxRecord
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = claimOutbox(ctx, tx, now, limit)
		if err != nil || len(out) == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE outbox SET leased_until = $1 WHERE seq = ANY($2)`, toMs(now.Add(lease)), seqsOf(out))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres.ClaimOutbox: %w", translate(err))
	}
	return out, nil
}

// PublishOutbox locks up to limit unsent records in seq order (as
// ClaimOutbox picks them), hands them to publish, deletes them and
// commits, all in one transaction: no lease is written. The row locks
// stand in for the lease while publish runs: a concurrent claim skips the
// locked records (SKIP LOCKED) and holds back the later records of their
// docs (claimOutbox's second statement still sees them). A crash or a
// failed publish rolls back, and the records come again. The transaction
// stays open for as long as publish takes, so publish should be bounded
// (the relay's producer is); lease is not used.
func (s *Store) PublishOutbox(ctx context.Context, now time.Time, _ time.Duration, limit int, publish func(context.Context, []ports.OutboxRecord) error) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var n int
	var published error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		recs, err := claimOutbox(ctx, tx, now, limit)
		if err != nil || len(recs) == 0 {
			return err
		}
		if err := publish(ctx, recs); err != nil {
			published = err
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM outbox WHERE seq = ANY($1)`, seqsOf(recs)); err != nil {
			return err
		}
		n = len(recs)
		return nil
	})
	switch {
	case published != nil:
		return 0, published
	case err != nil:
		return 0, fmt.Errorf("postgres.PublishOutbox: %w", translate(err))
	}
	return n, nil
}

func seqsOf(recs []ports.OutboxRecord) []int64 {
	seqs := make([]int64, len(recs))
	for i, r := range recs {
		seqs[i] = r.Seq
	}
	return seqs
}

// claimOutbox locks up to limit unsent records in seq order in tx and
// returns them. A record is handed out only when every earlier record of its
// doc is handed out with it: an earlier record leased to someone else, or
// locked by a claim running at this moment, holds back the rest of its doc,
// which keeps each doc's events in order across relays.
//
// It takes two statements. The first locks candidates with SKIP LOCKED, so
// concurrent relays divide the outbox between them instead of queueing; its
// NOT EXISTS already skips docs with a live lease on an earlier record. But
// a concurrent claim that has locked a doc's first record and not yet
// committed (its lease, or its publish and delete) is invisible to that test
// (its snapshot shows the record unleased, and SKIP LOCKED merely skips it),
// so the second statement, with a fresh snapshot, lists the earlier records
// of the candidates' docs, and a candidate is kept only if none of them is
// missing from the claim. Records are deleted when sent, so any earlier
// record still present is unsent.
func claimOutbox(ctx context.Context, tx pgx.Tx, now time.Time, limit int) ([]ports.OutboxRecord, error) {
	rows, err := tx.Query(ctx, `SELECT o.seq, o.doc_id, o.topic, o.payload FROM outbox o
		WHERE (o.leased_until IS NULL OR o.leased_until <= $1)
		  AND NOT EXISTS (SELECT 1 FROM outbox e
		                  WHERE e.doc_id = o.doc_id AND e.seq < o.seq AND e.leased_until > $1)
		ORDER BY o.seq
		LIMIT $2
		FOR UPDATE SKIP LOCKED`, toMs(now), limit)
	if err != nil {
		return nil, err
	}
	type candidate struct {
		seq            int64
		doc            string
		topic, payload string
	}
	cands, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (candidate, error) {
		var c candidate
		err := r.Scan(&c.seq, &c.doc, &c.topic, &c.payload)
		return c, err
	})
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	claimed := make(map[int64]bool, len(cands))
	docs := make([]string, 0, len(cands))
	seen := map[string]bool{}
	for _, c := range cands {
		claimed[c.seq] = true
		if !seen[c.doc] {
			seen[c.doc] = true
			docs = append(docs, c.doc)
		}
	}
	// blockedFrom[doc] is the first seq of the doc that is not in the
	// claim: it and everything after it in the doc stay behind.
	blockedFrom := map[string]int64{}
	rows, err = tx.Query(ctx, `SELECT doc_id, seq FROM outbox
		WHERE doc_id = ANY($1) AND seq <= $2 ORDER BY seq`, docs, cands[len(cands)-1].seq)
	if err != nil {
		return nil, err
	}
	var doc string
	var seq int64
	_, err = pgx.ForEachRow(rows, []any{&doc, &seq}, func() error {
		if _, blocked := blockedFrom[doc]; !blocked && !claimed[seq] {
			blockedFrom[doc] = seq
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []ports.OutboxRecord
	for _, c := range cands {
		if b, blocked := blockedFrom[c.doc]; blocked && c.seq > b {
			continue
		}
		ev, err := domain.ParseEvent(c.topic, []byte(c.payload))
		if err != nil {
			return nil, fmt.Errorf("record %d: %w", c.seq, err)
		}
		out = append(out, ports.OutboxRecord{Seq: c.seq, Event: ev})
	}
	return out, nil
}

// MarkSent removes published records. Unknown seqs are ignored.
func (s *Store) MarkSent(ctx context.Context, seqs []int64) error {
	if len(seqs) == 0 {
		return nil
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM outbox WHERE seq = ANY($1)`, seqs); err != nil {
		return fmt.Errorf("postgres.MarkSent: %w", translate(err))
	}
	return nil
}
