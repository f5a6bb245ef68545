package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Export is one rendered transcript download.
type Export struct {
	Body        []byte
	ContentType string
	Filename    string // quoted, for Content-Disposition
	// Name is the file's name unquoted (the uploaded file's, else the
	// docId), Disposition the whole Content-Disposition value.
	Name, Disposition string
}

// ExportJob renders a transcribed job as subtitles, text or JSON: the
// API's exportTranscription and the web application's downloads.
type ExportJob struct{ jobs ports.JobStore }

// NewExportJob builds the use case.
func NewExportJob(jobs ports.JobStore) *ExportJob {
	need("jobs", jobs)
	return &ExportJob{jobs: jobs}
}

// ExportCommand names the job and the format (srt, vtt, txt or json).
type ExportCommand struct {
	DocID  domain.DocID
	Format string
}

// Handle renders the actor's job in the command's format. An API key needs
// a Business plan; a person of the account may in any role. The job of
// another account is domain.ErrNotFound exactly like a missing one; a job
// not yet transcribed is domain.ErrConflict, and nothing of a transcript
// is rendered before (domain.Job.Shown).
func (uc *ExportJob) Handle(ctx context.Context, a Actor, cmd ExportCommand) (Export, error) {
	if err := a.mayRead(); err != nil {
		return Export{}, err
	}
	if cmd.DocID == "" && a.ByKey() { // a person's empty docId is not found, below
		return Export{}, domain.Invalid("missing_doc_id", "the docId query parameter is required")
	}
	f, err := domain.ParseExportFormat(cmd.Format)
	if err != nil {
		return Export{}, err
	}
	j, err := shownJob(ctx, uc.jobs, a.Account.ID, cmd.DocID)
	if err != nil {
		return Export{}, err
	}
	return render(j, f)
}

func render(j domain.Job, f domain.ExportFormat) (Export, error) {
	body, err := domain.Export(j, f)
	if err != nil {
		return Export{}, err
	}
	name := domain.ExportName(j, f)
	return Export{Body: body, ContentType: f.ContentType(), Filename: domain.ExportFilename(j.ID, f), Name: name, Disposition: domain.ContentDisposition(name)}, nil
}

// ownedJob returns the account's job, or domain.ErrNotFound for a docId that
// does not exist or belongs to another account: the two are
// indistinguishable.
func ownedJob(ctx context.Context, jobs ports.JobStore, account domain.AccountID, docID string) (domain.Job, error) {
	if !domain.PlausibleID(docID) {
		return domain.Job{}, notFound(docID)
	}
	j, err := jobs.GetJob(ctx, domain.DocID(docID))
	if errors.Is(err, domain.ErrNotFound) || (err == nil && j.AccountID != account) {
		return domain.Job{}, notFound(docID)
	}
	if err != nil {
		return domain.Job{}, fmt.Errorf("get job: %w", err)
	}
	return j, nil
}
