package webquery

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// UsageSelect is the column list of ports.UsageReader.JobUsage, read by
// UsageRow.Job: the light columns of a job, never its transcript.
const UsageSelect = "SELECT id, type, status, created_at, audio, audio_bytes, title, error FROM jobs"

// UsageRow is one row of UsageSelect as both stores scan it.
type UsageRow struct {
	ID, Type, Status string
	CreatedMs        int64
	Audio            *string
	AudioBytes       int64
	Title, Error     string
}

// Dest is the Scan destination list of UsageSelect's columns.
func (r *UsageRow) Dest() []any {
	return []any{&r.ID, &r.Type, &r.Status, &r.CreatedMs, &r.Audio, &r.AudioBytes, &r.Title, &r.Error}
}

// Job is the row as the light domain.Job JobUsage returns.
func (r *UsageRow) Job(account domain.AccountID) (domain.Job, error) {
	j := domain.Job{ID: domain.DocID(r.ID), AccountID: account, Type: domain.JobType(r.Type), Status: domain.Status(r.Status),
		CreatedAt: time.UnixMilli(r.CreatedMs).UTC(), AudioBytes: r.AudioBytes, Title: r.Title, Error: r.Error}
	if r.Audio != nil && *r.Audio != "" {
		j.Audio = &domain.AudioInfo{}
		if err := json.Unmarshal([]byte(*r.Audio), j.Audio); err != nil {
			return domain.Job{}, fmt.Errorf("job %s: decode audio: %w", r.ID, err)
		}
	}
	return j, nil
}
