package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// CompleteStoredUpload is the upload's completion when clients PUT straight
// to an S3-compatible store: the API never sees the bytes, so the store's
// notification (s3:ObjectCreated) is what moves the job from uploading to
// processing. The store has already checked the pre-signed URL's signature
// and expiry; what a pre-signed PUT cannot check (size) is checked here.
type CompleteStoredUpload struct {
	jobs     ports.JobStore
	blobs    ports.BlobStore
	clock    ports.Clock
	maxBytes int64
	log      *slog.Logger
}

// NewCompleteStoredUpload builds the use case; maxBytes <= 0 means
// DefaultMaxUploadBytes, log nil means slog.Default().
func NewCompleteStoredUpload(jobs ports.JobStore, blobs ports.BlobStore, clock ports.Clock, maxBytes int64, log *slog.Logger) *CompleteStoredUpload {
	need("jobs", jobs)
	need("blobs", blobs)
	need("clock", clock)
	if maxBytes <= 0 {
		maxBytes = DefaultMaxUploadBytes
	}
	if log == nil {
		log = slog.Default()
	}
	return &CompleteStoredUpload{jobs: jobs, blobs: blobs, clock: clock, maxBytes: maxBytes, log: log}
}

// Handle takes one domain.EventTypeObjectCreated event (other events are
// ignored). The object becomes the job's audio (uploading → processing)
// unless it is empty or over the size limit: then the job fails with a
// readable error and the object is deleted. An object for a job that is
// not uploading any more (a repeated notification, a second PUT to the same
// address, a job the sweeper already failed) changes nothing; the object is
// deleted only if the job does not refer to it. Objects of unknown jobs are
// ignored. Errors are the store's, worth a retry.
func (uc *CompleteStoredUpload) Handle(ctx context.Context, ev domain.Event) error {
	if ev.Type != domain.EventTypeObjectCreated {
		return nil
	}
	var obj domain.ObjectCreatedData
	if err := ev.DecodeData(&obj); err != nil {
		return domain.Permanent(err)
	}
	log := uc.log.With("docId", ev.DocID, "key", obj.Key, "size", obj.Size)
	j, err := uc.jobs.GetJob(ctx, ev.DocID)
	if errors.Is(err, domain.ErrNotFound) {
		// No job, or one deleted before its audio arrived: keep nothing.
		log.Warn("stored object of no known job; deleted")
		return uc.delete(ctx, obj.Key)
	}
	if err != nil {
		return fmt.Errorf("complete stored upload: %w", err)
	}
	if j.Status != domain.StatusUploading {
		return uc.late(ctx, j, obj, log)
	}

	var reason string
	switch {
	case obj.Size == 0:
		reason = domain.UploadEmpty
	case obj.Size > uc.maxBytes:
		reason = domain.UploadTooLarge(sizeLimit(uc.maxBytes))
	}
	now := uc.clock.Now()
	accepted := false
	err = uc.jobs.UpdateJob(ctx, ev.DocID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		if j.Status != domain.StatusUploading {
			return nil, errReplay
		}
		if reason != "" {
			return j.Fail(now, reason, a)
		}
		accepted = true
		return j.ReceiveUpload(now, obj.Key, obj.Size)
	})
	if errors.Is(err, errReplay) {
		j, err = uc.jobs.GetJob(ctx, ev.DocID)
		if err != nil {
			return fmt.Errorf("complete stored upload: %w", err)
		}
		return uc.late(ctx, j, obj, log)
	}
	if errors.Is(err, domain.ErrNotFound) {
		log.Warn("stored object of a job deleted meanwhile; deleted")
		return uc.delete(ctx, obj.Key)
	}
	if err != nil {
		return fmt.Errorf("complete stored upload: %w", err)
	}
	if !accepted {
		log.Info("stored upload refused", "reason", reason)
		return uc.delete(ctx, obj.Key)
	}
	log.Info("stored upload received")
	return nil
}

// late handles an object arriving for a job no longer uploading.
func (uc *CompleteStoredUpload) late(ctx context.Context, j domain.Job, obj domain.ObjectCreatedData, log *slog.Logger) error {
	if j.BlobKey == obj.Key {
		// A repeated notification, or a second PUT that replaced the
		// object: the job keeps the key it has (see docs/decisions.md).
		log.Info("stored object of a job already past uploading; ignored", "status", j.Status)
		return nil
	}
	log.Info("stored object of a job that will not use it; deleted", "status", j.Status)
	return uc.delete(ctx, obj.Key)
}

func (uc *CompleteStoredUpload) delete(ctx context.Context, key string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := uc.blobs.Delete(ctx, key); err != nil {
		return fmt.Errorf("complete stored upload: deleting %s: %w", key, err)
	}
	return nil
}

// sizeLimit says a byte count as people read it: whole MiB when it is one.
func sizeLimit(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d-byte", n)
}
