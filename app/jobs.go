package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// CreateJob creates a transcription job and its pre-signed upload address.
type CreateJob struct {
	jobs       jobCreator
	checklists ports.ChecklistStore
	signer     ports.UploadSigner
	clock      ports.Clock
	uploadTTL  time.Duration
}

// jobCreator is the store's side of creating jobs: plainly, or once per
// Idempotency-Key (idempotency.go).
type jobCreator interface {
	ports.JobStore
	ports.IdempotencyStore
	ports.JobLister // counts the account's jobs waiting for their upload
}

// NewCreateJob builds the use case; uploadTTL is the upload window (spec: 1 hour).
func NewCreateJob(jobs jobCreator, checklists ports.ChecklistStore, signer ports.UploadSigner, clock ports.Clock, uploadTTL time.Duration) *CreateJob {
	need("jobs", jobs)
	need("checklists", checklists)
	need("signer", signer)
	need("clock", clock)
	if uploadTTL <= 0 {
		uploadTTL = domain.UploadWindow
	}
	return &CreateJob{jobs: jobs, checklists: checklists, signer: signer, clock: clock, uploadTTL: uploadTTL}
}

// CreateCommand is the job asked for: the API's createTranscription body
// (domain.ParseCreateRequest) or the web application's upload form.
type CreateCommand struct {
	Request domain.CreateRequest
	// Filename is the uploaded file's name (the web application's); the
	// job keeps domain.CleanFilename of it.
	Filename string
	// IdempotencyKey is the API's Idempotency-Key header ("": none).
	IdempotencyKey string
}

// Allowed is Handle's first rule, which a door may ask before it reads a
// large request: an API key needs a Business plan, a person the owner's
// role (creating a job spends the account's seconds).
func (uc *CreateJob) Allowed(a Actor) error { return a.mayManage("create a job") }

// Handle validates the command and creates the job for the actor's
// account: the account must be on the Business plan whoever asks (API
// keys and people alike), with fewer than domain.MaxWaitingUploads jobs
// waiting for their upload, and a checklist it names must be the
// account's. Under an IdempotencyKey a retry gets the first answer again,
// replayed (idempotency.go).
func (uc *CreateJob) Handle(ctx context.Context, a Actor, cmd CreateCommand) (res domain.CreateResult, replayed bool, err error) {
	if err := uc.Allowed(a); err != nil {
		return domain.CreateResult{}, false, err
	}
	if err := RequireBusiness(Principal{Account: a.Account}); err != nil {
		return domain.CreateResult{}, false, err
	}
	req, err := cmd.Request.Check()
	if err != nil {
		return domain.CreateResult{}, false, err
	}
	if cmd.IdempotencyKey != "" {
		return uc.once(ctx, a, req, cmd.IdempotencyKey)
	}
	job, events, uploadURL, err := uc.newJob(ctx, a.Account.ID, req)
	if err != nil {
		return domain.CreateResult{}, false, err
	}
	job.Filename = domain.CleanFilename(cmd.Filename)
	if err := uc.jobs.CreateJob(ctx, job, events); err != nil {
		return domain.CreateResult{}, false, fmt.Errorf("create job: %w", err)
	}
	return domain.CreateResult{DocID: job.ID, UploadURL: uploadURL}, false, nil
}

// newJob makes the job req asks for, in memory, with its upload address.
// The address is signed before the job is saved: a job is never saved
// without the answer its creator gets.
func (uc *CreateJob) newJob(ctx context.Context, account domain.AccountID, req domain.CreateRequest) (domain.Job, []domain.Event, string, error) {
	_, waiting, err := uc.jobs.ListJobs(ctx, ports.JobQuery{Account: account, Status: domain.StatusUploading, Limit: 1})
	if err != nil {
		return domain.Job{}, nil, "", fmt.Errorf("create job: %w", err)
	}
	if err := domain.CheckWaitingUploads(waiting); err != nil {
		return domain.Job{}, nil, "", err
	}
	if req.ChecklistID != "" {
		if !domain.PlausibleID(req.ChecklistID) {
			return domain.Job{}, nil, "", domain.ErrUnknownChecklist(req.ChecklistID)
		}
		c, err := uc.checklists.GetChecklist(ctx, account, req.ChecklistID)
		if errors.Is(err, domain.ErrNotFound) || (err == nil && c.Archived) {
			return domain.Job{}, nil, "", domain.ErrUnknownChecklist(req.ChecklistID)
		}
		if err != nil {
			return domain.Job{}, nil, "", fmt.Errorf("create job: %w", err)
		}
		// The job keeps the version it was created with: editing the
		// checklist later does not change what this job is analysed against.
		req.ChecklistVersion = c.Version
	}
	now := uc.clock.Now()
	job, events := domain.NewJob(domain.DocID(NewID()), account, req, now, uc.uploadTTL)
	uploadURL, err := uc.signer.SignUpload(ctx, job.ID, job.UploadExpiresAt)
	if err != nil {
		return domain.Job{}, nil, "", fmt.Errorf("create job: %w", err)
	}
	return job, events, uploadURL, nil
}

func notFound(docID string) error {
	_ = docID // the message must not reveal whether the job exists elsewhere
	return fmt.Errorf("no transcription with this docId: %w", domain.ErrNotFound)
}

// UploadRequest is one PUT to an upload address.
type UploadRequest struct {
	DocID         domain.DocID
	Expires       time.Time
	Signature     string
	Body          io.Reader
	ContentLength int64 // -1 when unknown
}

// ReceiveUpload stores the uploaded audio and starts processing.
type ReceiveUpload struct {
	jobs     ports.JobStore
	blobs    ports.BlobStore
	signer   ports.UploadSigner
	clock    ports.Clock
	maxBytes int64
}

// DefaultMaxUploadBytes is the upload size limit (docs/decisions.md, Upload).
const DefaultMaxUploadBytes = 512 << 20

// NewReceiveUpload builds the use case.
func NewReceiveUpload(jobs ports.JobStore, blobs ports.BlobStore, signer ports.UploadSigner, clock ports.Clock, maxBytes int64) *ReceiveUpload {
	need("jobs", jobs)
	need("blobs", blobs)
	need("signer", signer)
	need("clock", clock)
	if maxBytes <= 0 {
		maxBytes = DefaultMaxUploadBytes
	}
	return &ReceiveUpload{jobs: jobs, blobs: blobs, signer: signer, clock: clock, maxBytes: maxBytes}
}

// MaxBytes is the largest upload accepted.
func (uc *ReceiveUpload) MaxBytes() int64 { return uc.maxBytes }

// Handle checks the signature and the job, streams the body to the blob store
// and moves the job to processing. Errors: domain.ErrForbidden (bad or expired
// signature), domain.ErrConflict (already uploaded), domain.ErrTooLarge,
// a validation error for an empty body.
func (uc *ReceiveUpload) Handle(ctx context.Context, req UploadRequest) error {
	sctx, cancel := storeWork(ctx)
	err := uc.Check(sctx, req)
	cancel()
	if err != nil {
		return err
	}
	// A fresh key per attempt: a racing second PUT can never overwrite the
	// audio of the upload that won.
	key := "audio/" + string(req.DocID) + "/" + NewID() + ".mp3"
	n, err := uc.blobs.Put(ctx, key, req.Body, uc.maxBytes)
	if errors.Is(err, domain.ErrTooLarge) {
		return uc.refuse(req.DocID, tooLarge(uc.maxBytes))
	}
	if err != nil {
		return fmt.Errorf("receive upload: %w", err)
	}
	if n == 0 {
		uc.discard(key)
		return uc.refuse(req.DocID, domain.Invalid("empty_body", "%s", domain.UploadEmpty))
	}
	sctx, cancel = storeWork(ctx)
	defer cancel()
	err = uc.jobs.UpdateJob(sctx, req.DocID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		if err := uploadable(*j, uc.clock.Now()); err != nil {
			return nil, err
		}
		return j.ReceiveUpload(uc.clock.Now(), key, n)
	})
	if err != nil {
		uc.discard(key) // the upload that lost a race, or a failed commit, keeps no audio
	}
	if errors.Is(err, domain.ErrInvalidTransition) {
		return alreadyUploaded()
	}
	return err
}

// refuse records why an upload was refused on the job, which keeps
// waiting for its upload (Job.RefuseUpload), and returns why. Recording is
// best effort and detached from the request: the uploader gets the reason
// in the answer either way.
func (uc *ReceiveUpload) refuse(doc domain.DocID, why error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = uc.jobs.UpdateJob(ctx, doc, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
		return nil, j.RefuseUpload(uc.clock.Now(), why.Error())
	})
	return why
}

// discard removes audio no job refers to. It runs detached from the request,
// whose context may already be over; a failure only leaves an orphan file.
func (uc *ReceiveUpload) discard(key string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = uc.blobs.Delete(ctx, key)
}

func uploadable(j domain.Job, now time.Time) error {
	if j.Status != domain.StatusUploading {
		if j.Status == domain.StatusFailed && j.BlobKey == "" {
			return fmt.Errorf("the upload window of this job has closed: %w", domain.ErrForbidden)
		}
		return alreadyUploaded()
	}
	if !j.UploadOpen(now) {
		return fmt.Errorf("the upload address has expired: %w", domain.ErrForbidden)
	}
	return nil
}

func alreadyUploaded() error {
	return fmt.Errorf("audio was already uploaded for this job: %w", domain.ErrConflict)
}

func tooLarge(max int64) error {
	return fmt.Errorf("%s: %w", domain.UploadTooLarge(fmt.Sprintf("%d MiB", max>>20)), domain.ErrTooLarge)
}
