package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

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
	jobInsert = "INSERT INTO jobs (" + strings.Join(jobWriteCols, ", ") + ") VALUES (" + placeholders(len(jobWriteCols)) + ")"
	jobUpdate = "UPDATE jobs SET " + updateSet(jobWriteCols) + " WHERE id = ?"
)

// toJobRow lists j's values in jobWriteCols order.
func toJobRow(j domain.Job) ([]any, error) {
	var meta, audio, segs sql.NullString
	if j.Metadata != nil {
		meta = sql.NullString{String: string(j.Metadata), Valid: true}
	}
	if j.Audio != nil {
		b, err := json.Marshal(j.Audio)
		if err != nil {
			return nil, fmt.Errorf("encode audio: %w", err)
		}
		audio = sql.NullString{String: string(b), Valid: true}
	}
	if len(j.Segments) > 0 {
		b, err := json.Marshal(j.Segments)
		if err != nil {
			return nil, fmt.Errorf("encode segments: %w", err)
		}
		segs = sql.NullString{String: string(b), Valid: true}
	}
	return []any{
		string(j.ID), string(j.AccountID), string(j.Type), string(j.Status), meta, j.ChecklistID,
		toMs(j.CreatedAt), toMs(j.UpdatedAt), toMs(j.UploadExpiresAt),
		j.BlobKey, j.AudioBytes, audio, j.ReservedMs, j.Transcription, segs, j.Title, j.Resolution,
		j.LanguageCode, j.Error, j.Redrives, j.ChecklistVersion,
		webquery.SearchText(j.Title, j.Transcription, j.Metadata),
	}, nil
}

func toDomainJob(sc scanner) (domain.Job, error) {
	var j domain.Job
	var meta, audio, segs sql.NullString
	var created, updated, expires int64
	err := sc.Scan(&j.ID, &j.AccountID, &j.Type, &j.Status, &meta, &j.ChecklistID, &created, &updated, &expires,
		&j.BlobKey, &j.AudioBytes, &audio, &j.ReservedMs, &j.Transcription, &segs, &j.Title, &j.Resolution,
		&j.LanguageCode, &j.Error, &j.Redrives, &j.ChecklistVersion)
	if err != nil {
		return domain.Job{}, translate(err)
	}
	j.CreatedAt, j.UpdatedAt, j.UploadExpiresAt = fromMs(created), fromMs(updated), fromMs(expires)
	if meta.Valid {
		j.Metadata = json.RawMessage(meta.String)
	}
	if audio.Valid {
		j.Audio = new(domain.AudioInfo)
		if err := json.Unmarshal([]byte(audio.String), j.Audio); err != nil {
			return domain.Job{}, fmt.Errorf("job %s: decode audio: %w", j.ID, err)
		}
	}
	if segs.Valid {
		if err := json.Unmarshal([]byte(segs.String), &j.Segments); err != nil {
			return domain.Job{}, fmt.Errorf("job %s: decode segments: %w", j.ID, err)
		}
	}
	return j, nil
}

// CreateJob saves a new job and its events in one transaction.
// domain.ErrConflict if the ID exists, domain.ErrNotFound if its account
// does not.
func (s *Store) CreateJob(ctx context.Context, j domain.Job, events []domain.Event) error {
	row, err := toJobRow(j)
	if err != nil {
		return fmt.Errorf("sqlite.CreateJob: %w", err)
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, jobInsert, row...); err != nil {
			return translate(err)
		}
		return insertEvents(ctx, tx, events)
	})
	if err != nil {
		return fmt.Errorf("sqlite.CreateJob: %w", err)
	}
	if len(events) > 0 {
		s.signal()
	}
	return nil
}

// GetJob returns a job or domain.ErrNotFound.
func (s *Store) GetJob(ctx context.Context, id domain.DocID) (domain.Job, error) {
	j, err := toDomainJob(s.db.QueryRowContext(ctx, jobSelect+" WHERE id = ?", string(id)))
	if err != nil {
		return domain.Job{}, fmt.Errorf("sqlite.GetJob: job %s: %w", id, err)
	}
	return j, nil
}

// UpdateJob loads the job and its account, applies fn and saves both with
// fn's events, all in one write transaction. Write transactions are
// serialised, so fn always sees the latest committed state. fn runs while
// the write lock is held: it must be quick and must not call the store.
func (s *Store) UpdateJob(ctx context.Context, id domain.DocID, fn func(*domain.Job, *domain.Account) ([]domain.Event, error)) error {
	var fnErr error
	var wrote bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		j, err := toDomainJob(tx.QueryRowContext(ctx, jobSelect+" WHERE id = ?", string(id)))
		if err != nil {
			return fmt.Errorf("job %s: %w", id, err)
		}
		a, err := toDomainAccount(tx.QueryRowContext(ctx, accountSelect+" WHERE id = ?", string(j.AccountID)))
		if err != nil {
			return fmt.Errorf("account %s: %w", j.AccountID, err)
		}
		jobID, acctID := j.ID, j.AccountID
		events, err := fn(&j, &a)
		if err != nil {
			fnErr = err
			return err
		}
		// The rows keep their keys whatever fn did to the IDs.
		j.ID, j.AccountID, a.ID = jobID, acctID, acctID
		row, err := toJobRow(j)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, jobUpdate, keyLast(row)...); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, accountUpdate, keyLast(toAccountRow(a))...); err != nil {
			return translate(err)
		}
		wrote = len(events) > 0
		return insertEvents(ctx, tx, events)
	})
	if fnErr != nil {
		return fnErr // unchanged, as the contract says
	}
	if err != nil {
		return fmt.Errorf("sqlite.UpdateJob: %w", err)
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
	rows, err := s.db.QueryContext(ctx, jobSelect+`
		WHERE (status = 'uploading' AND upload_expires_at <= ?)
		   OR (status IN ('processing', 'converting') AND updated_at < ?)
		ORDER BY created_at, id
		LIMIT ?`, toMs(now), toMs(stuckBefore), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
	}
	defer rows.Close()
	var out []domain.Job
	for rows.Next() {
		j, err := toDomainJob(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite.StaleJobs: %w", err)
	}
	return out, nil
}

// insertEvents appends events to the outbox in order, inside tx. The
// payload is the envelope a relay publishes; its topic is kept beside it
// because the envelope does not carry it.
func insertEvents(ctx context.Context, tx *sql.Tx, events []domain.Event) error {
	if len(events) == 0 {
		return nil
	}
	if err := domain.ValidateEvents(events); err != nil {
		return err
	}
	now := toMs(time.Now())
	for _, e := range events {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO outbox (event_id, topic, doc_id, payload, created_at) VALUES (?, ?, ?, ?, ?)`,
			e.ID, e.Topic, string(e.DocID), string(e.Marshal()), now); err != nil {
			return translate(err)
		}
	}
	return nil
}
