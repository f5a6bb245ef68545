package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// DeletionStore is what deleting jobs needs of the store.
type DeletionStore interface {
	ports.JobStore
	ports.JobDeleter
}

// DeleteJob deletes one of the caller's jobs: its audio, transcript, title,
// summary, analysis and delivery records, keeping a tombstone. A job still
// in the pipeline stops there: the stages find no job and do nothing more.
type DeleteJob struct {
	store DeletionStore
	blobs ports.BlobStore
	clock ports.Clock
	log   *slog.Logger
}

// NewDeleteJob builds the use case; log receives audio that could not be
// removed (nil: slog.Default).
func NewDeleteJob(store DeletionStore, blobs ports.BlobStore, clock ports.Clock, log *slog.Logger) *DeleteJob {
	need("store", store)
	need("blobs", blobs)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &DeleteJob{store: store, blobs: blobs, clock: clock, log: log}
}

// parseDeleteRequest reads {"docId": "…"}.
func parseDeleteRequest(body []byte) (string, error) {
	if strings.TrimSpace(string(body)) == "" {
		return "", domain.Invalid("empty_body", `the request body is empty: send {"docId": "…"}`)
	}
	var req struct {
		DocID *json.RawMessage `json:"docId"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", domain.Invalid("invalid_json", `the request body is not a JSON object: send {"docId": "…"}`)
	}
	if req.DocID == nil || string(*req.DocID) == "null" {
		return "", domain.Invalid("missing_doc_id", "docId is required")
	}
	var id string
	if err := json.Unmarshal(*req.DocID, &id); err != nil {
		return "", domain.Invalid("invalid_doc_id", "docId must be a string")
	}
	if id == "" {
		return "", domain.Invalid("missing_doc_id", "docId is required")
	}
	return id, nil
}

// Handle deletes the job named by the body. Deleting a job the caller
// already deleted answers the same again, so a retried request is safe; a
// job of another account is domain.ErrNotFound exactly like a missing one.
func (uc *DeleteJob) Handle(ctx context.Context, p Principal, body []byte) (domain.DeleteResult, error) {
	if err := RequireBusiness(p); err != nil {
		return domain.DeleteResult{}, err
	}
	docID, err := parseDeleteRequest(body)
	if err != nil {
		return domain.DeleteResult{}, err
	}
	if len(docID) > 128 {
		return domain.DeleteResult{}, notFound(docID)
	}
	err = uc.Delete(ctx, p.Account.ID, domain.DocID(docID), domain.DeletedOnRequest)
	if errors.Is(err, domain.ErrNotFound) {
		t, terr := uc.store.GetTombstone(ctx, domain.DocID(docID))
		if terr == nil && t.AccountID == p.Account.ID {
			return domain.DeleteResult{DocID: t.DocID, Deleted: true}, nil
		}
		if terr != nil && !errors.Is(terr, domain.ErrNotFound) {
			return domain.DeleteResult{}, fmt.Errorf("delete job: %w", terr)
		}
		return domain.DeleteResult{}, notFound(docID)
	}
	if err != nil {
		return domain.DeleteResult{}, err
	}
	return domain.DeleteResult{DocID: domain.DocID(docID), Deleted: true}, nil
}

// Delete deletes the account's job and then its audio. domain.ErrNotFound
// when the account has no such job (never had, or deleted it already).
func (uc *DeleteJob) Delete(ctx context.Context, account domain.AccountID, doc domain.DocID, reason string) error {
	now := uc.clock.Now()
	old, err := uc.store.DeleteJob(ctx, doc, func(j *domain.Job, a *domain.Account) (domain.Tombstone, []domain.Event, error) {
		if j.AccountID != account {
			return domain.Tombstone{}, nil, domain.ErrNotFound
		}
		return j.Delete(now, reason, a)
	})
	if errors.Is(err, domain.ErrNotFound) {
		return notFound(string(doc))
	}
	if err != nil {
		return fmt.Errorf("delete job: %w", err)
	}
	uc.removeAudio(old)
	return nil
}

// removeAudio deletes the job's audio once the job is gone. It runs
// detached from the request, whose context may end first; the store
// already holds no reference to the audio, so a failure is logged for an
// operator and never reported as a failed deletion.
func (uc *DeleteJob) removeAudio(j domain.Job) {
	if j.BlobKey == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = uc.blobs.Delete(ctx, j.BlobKey); err == nil {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	uc.log.Error("deleted job's audio could not be removed", "docId", j.ID, "blobKey", j.BlobKey, "err", err)
}

// RetentionSweeper deletes the jobs of accounts that keep them for a number
// of days, once they are older than that.
type RetentionSweeper struct {
	store    ports.RetentionStore
	deleter  *DeleteJob
	clock    ports.Clock
	log      *slog.Logger
	Interval time.Duration
}

// NewRetentionSweeper builds the sweeper; it sweeps hourly by default.
func NewRetentionSweeper(store ports.RetentionStore, deleter *DeleteJob, clock ports.Clock, log *slog.Logger) *RetentionSweeper {
	need("store", store)
	need("deleter", deleter)
	need("clock", clock)
	if log == nil {
		log = slog.Default()
	}
	return &RetentionSweeper{store: store, deleter: deleter, clock: clock, log: log, Interval: time.Hour}
}

// Run sweeps every Interval until ctx ends.
func (s *RetentionSweeper) Run(ctx context.Context) error {
	t := time.NewTicker(s.Interval)
	defer t.Stop()
	for {
		if n, err := s.SweepOnce(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("retention sweeper", "err", err)
		} else if n > 0 {
			s.log.Info("retention deleted jobs", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// SweepOnce deletes every expired job, in batches, and returns how many.
func (s *RetentionSweeper) SweepOnce(ctx context.Context) (int, error) {
	deleted := 0
	for {
		jobs, err := s.store.ExpiredJobs(ctx, s.clock.Now(), 200)
		if err != nil {
			return deleted, fmt.Errorf("retention: %w", err)
		}
		if len(jobs) == 0 {
			return deleted, nil
		}
		for _, j := range jobs {
			err := s.deleter.Delete(ctx, j.AccountID, j.ID, domain.DeletedByRetention)
			if err != nil && !errors.Is(err, domain.ErrNotFound) { // deleted meanwhile: fine
				return deleted, fmt.Errorf("retention: %s: %w", j.ID, err)
			}
			deleted++
		}
	}
}

// RetentionDays reads an account's retention rule: the number of days
// after which its jobs are deleted (0: kept forever).
type RetentionDays struct{ store ports.RetentionStore }

// NewRetentionDays builds the use case.
func NewRetentionDays(store ports.RetentionStore) *RetentionDays {
	need("store", store)
	return &RetentionDays{store: store}
}

// Handle runs the use case (RetentionDays).
func (uc *RetentionDays) Handle(ctx context.Context, account domain.AccountID) (int, error) {
	d, err := uc.store.RetentionDays(ctx, account)
	if err != nil {
		return 0, fmt.Errorf("retention: %w", err)
	}
	return d, nil
}

// SetRetention changes an account's retention rule (RetentionDays).
type SetRetention struct{ store ports.RetentionStore }

// NewSetRetention builds the use case.
func NewSetRetention(store ports.RetentionStore) *SetRetention {
	need("store", store)
	return &SetRetention{store: store}
}

// Handle runs the use case (SetRetention); a number outside
// 0…MaxRetentionDays is a validation error.
func (uc *SetRetention) Handle(ctx context.Context, account domain.AccountID, by domain.Role, days int) error {
	if err := mayManage(by, "set retention"); err != nil {
		return err
	}
	if err := domain.ValidRetentionDays(days); err != nil {
		return err
	}
	return uc.store.SetRetentionDays(ctx, account, days)
}
