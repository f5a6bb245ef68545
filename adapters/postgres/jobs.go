package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/internal/webquery"
	"github.com/hyscribe/hyscribe/domain"
)

var jobCols = []string{
	"id", "account_id", "type", "status", "metadata", "checklist_id", "created_at", "updated_at", "upload_expires_at",
	"blob_key", "audio_bytes", "audio", "reserved_ms", "transcription", "segments", "title", "resolution",
	"language_code", "error", "redrives", "checklist_version",
}

// jobWriteCols are the columns a job row is written with: jobCols and
// search_text, which only ListJobs reads.
var jobWriteCols = append(slices.Clone(jobCols), "search_text")

var (
	jobSelect = "SELECT " + strings.Join(jobCols, ", ") + " FROM jobs"
	jobInsert = "INSERT INTO jobs (" + strings.Join(jobWriteCols, ", ") + ") VALUES (" + placeholders(1, len(jobWriteCols)) + ")"
	jobUpdate = "UPDATE jobs SET " + updateSet(jobWriteCols) + " WHERE id = $" + fmt.Sprint(len(jobWriteCols))
	// jobForUpdate reads a job and its account and locks both rows until
	// the transaction ends. NO KEY UPDATE: no key changes, so inserts that
	// merely reference the account (a new job, a new key) need not wait.
	jobForUpdate = "SELECT j." + strings.Join(jobCols, ", j.") + ", a." + strings.Join(accountCols, ", a.") + `
		FROM jobs j JOIN accounts a ON a.id = j.account_id
		WHERE j.id = $1
		FOR NO KEY UPDATE`
)

// toJobRow lists j's values in jobWriteCols order.
func toJobRow(j domain.Job) ([]any, error) {
	var meta, audio, segs *string
	if j.Metadata != nil {
		m := string(j.Metadata)
		meta = &m
	}
	if j.Audio != nil {
		b, err := json.Marshal(j.Audio)
		if err != nil {
			return nil, fmt.Errorf("encode audio: %w", err)
		}
		a := string(b)
		audio = &a
	}
	if len(j.Segments) > 0 {
		b, err := json.Marshal(j.Segments)
		if err != nil {
			return nil, fmt.Errorf("encode segments: %w", err)
		}
		s := string(b)
		segs = &s
	}
	return []any{
		string(j.ID), string(j.AccountID), string(j.Type), string(j.Status), meta, j.ChecklistID,
		toMs(j.CreatedAt), toMs(j.UpdatedAt), toMs(j.UploadExpiresAt),
		j.BlobKey, j.AudioBytes, audio, j.ReservedMs, j.Transcription, segs, j.Title, j.Resolution,
		j.LanguageCode, j.Error, j.Redrives, j.ChecklistVersion,
		webquery.SearchText(j.Title, j.Transcription, j.Metadata),
	}, nil
}

// jobScan holds a job row's columns as scanned, before decoding.
type jobScan struct {
	j                         domain.Job
	meta, audio, segs         *string
	created, updated, expires int64
}

func (r *jobScan) dest() []any {
	j := &r.j
	return []any{&j.ID, &j.AccountID, &j.Type, &j.Status, &r.meta, &j.ChecklistID, &r.created, &r.updated, &r.expires,
		&j.BlobKey, &j.AudioBytes, &r.audio, &j.ReservedMs, &j.Transcription, &r.segs, &j.Title, &j.Resolution,
		&j.LanguageCode, &j.Error, &j.Redrives, &j.ChecklistVersion}
}

func (r *jobScan) job() (domain.Job, error) {
	j := r.j
	j.CreatedAt, j.UpdatedAt, j.UploadExpiresAt = fromMs(r.created), fromMs(r.updated), fromMs(r.expires)
	if r.meta != nil {
		j.Metadata = json.RawMessage(*r.meta)
	}
	if r.audio != nil {
		j.Audio = new(domain.AudioInfo)
		if err := json.Unmarshal([]byte(*r.audio), j.Audio); err != nil {
			return domain.Job{}, fmt.Errorf("job %s: decode audio: %w", j.ID, err)
		}
	}
	if r.segs != nil {
		if err := json.Unmarshal([]byte(*r.segs), &j.Segments); err != nil {
			return domain.Job{}, fmt.Errorf("job %s: decode segments: %w", j.ID, err)
		}
	}
	return j, nil
}

func toDomainJob(row pgx.Row) (domain.Job, error) {
	var r jobScan
	if err := row.Scan(r.dest()...); err != nil {
		return domain.Job{}, translate(err)
	}
	return r.job()
}

// CreateJob saves a new job and its events in one transaction.
// domain.ErrConflict if the ID exists, domain.ErrNotFound if its account
// does not.
func (s *Store) CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error {
	row, err := toJobRow(j)
	if err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if err := domain.ValidateEvents(events); err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue(jobInsert, row...)
		queueEvents(b, events)
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if err != nil {
		return fmt.Errorf("postgres.CreateJob: %w", translate(err))
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	j, err := toDomainJob(s.pool.QueryRow(ctx, jobSelect+" WHERE id = $1", string(id)))
	if err != nil {
		return domain.Job{}, fmt.Errorf("postgres.GetJob: job %s: %w", id, err)
	}
	return j, nil
}

// UpdateJob loads and locks the job and its account, applies fn and saves
// both with fn's events, all in one transaction. Concurrent updates of the
// job (or of another job of the account) wait for the lock, so fn always
// sees the latest committed state. fn runs while the rows are locked: it
// must be quick and must not call the store.
func (s *Store) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	var fnErr error
	var wrote bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var r jobScan
		var a domain.Account
		var aCreated int64
		if err := tx.QueryRow(ctx, jobForUpdate, string(id)).Scan(append(r.dest(), accountDest(&a, &aCreated)...)...); err != nil {
			return fmt.Errorf("job %s: %w", id, translate(err))
		}
		a.CreatedAt = fromMs(aCreated)
		j, err := r.job()
		if err != nil {
			return err
		}
		before := a
		jobID, acctID := j.ID, j.AccountID
		events, err := fn(&j, &a)
		if err != nil {
			fnErr = err
			return err
		}
		if err := domain.ValidateEvents(events); err != nil {
			return err
		}
		// The rows keep their keys whatever fn did to the IDs.
		j.ID, j.AccountID, a.ID = jobID, acctID, acctID
		row, err := toJobRow(j)
		if err != nil {
			return err
		}
		// One round trip for every write of the step.
		b := &pgx.Batch{}
		b.Queue(jobUpdate, keyLast(row)...)
		if a != before { // most steps leave the account alone
			b.Queue(accountUpdate, keyLast(toAccountRow(a))...)
		}
		queueEvents(b, events)
		wrote = len(events) > 0
		return translate(tx.SendBatch(ctx, b).Close())
	})
	if fnErr != nil {
		return fnErr // unchanged, as the contract says
	}
	if err != nil {
		return fmt.Errorf("postgres.UpdateJob: %w", translate(err))
	}
	if wrote {
		s.signal()
	}
	return nil
}

// StaleJobs lists jobs whose upload window closed at or before now, and
// processing or converting jobs last updated before stuckBefore, oldest
// (created) first.
func (s *Store) StaleJobs(ctx context.Context, now, stuckBefore time.Time, limit int) ([]domain.Job, error) {
	rows, err := s.pool.Query(ctx, jobSelect+`
		WHERE (status = 'uploading' AND upload_expires_at <= $1)
		   OR (status IN ('processing', 'converting') AND updated_at < $2)
		ORDER BY created_at, id
		LIMIT $3`, toMs(now), toMs(stuckBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
	}
	defer rows.Close()
	var out []domain.Job
	for rows.Next() {
		j, err := toDomainJob(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres.StaleJobs: %w", translate(err))
	}
	return out, nil
}

const outboxInsert = `INSERT INTO outbox (event_id, topic, doc_id, payload, created_at) VALUES ($1, $2, $3, $4, $5)`

// queueEvents appends events to the outbox in order, in the batch, and
// notifies listening relays. The
// payload is the envelope a relay publishes; its topic is kept beside it
// because the envelope does not carry it.
func queueEvents(b *pgx.Batch, events []domain.Event) {
	if len(events) == 0 {
		return
	}
	now := toMs(time.Now())
	for _, e := range events {
		b.Queue(outboxInsert, e.ID, e.Topic, string(e.DocID), string(e.Marshal()), now)
	}
	// Delivered at commit to the listeners of every process (see listen).
	b.Queue(`SELECT pg_notify('` + notifyChannel + `', '')`)
}
