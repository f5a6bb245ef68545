package domain

import (
	"fmt"
	"time"
)

// TopicJobDeleted announces that a job's content was deleted (by its owner
// or by the account's retention rule). Consumers drop what they hold of it.
const TopicJobDeleted = "hyscribe.job.deleted.v1"

// Why a job was deleted.
const (
	DeletedOnRequest   = "request"
	DeletedByRetention = "retention"
)

// Tombstone is all that is kept of a deleted job: enough to answer "it was
// deleted" to its owner and to account for it, none of its content.
type Tombstone struct {
	DocID     DocID
	AccountID AccountID
	Type      JobType
	Status    Status // the state the job was in when deleted
	CreatedAt time.Time
	UpdatedAt time.Time
	DeletedAt time.Time
	Reason    string // DeletedOnRequest or DeletedByRetention
}

// JobDeletedData is the data of hyscribe.job.deleted.v1.
type JobDeletedData struct {
	Status    Status    `json:"status"`
	Type      JobType   `json:"type"`
	CreatedAt time.Time `json:"createdAt"`
	Reason    string    `json:"reason"`
}

// Delete ends the job for good: the balance reserved for a job still in the
// pipeline whose audio has not yet gone to the speech engine goes back to
// acct (nil when nothing was reserved); seconds spent on recognition stay
// spent (SpentOnRecognition), so deleting a converting job refunds
// nothing. The
// tombstone and the job.deleted event are what the store keeps and sends.
// Any state may be deleted; the caller removes the job's content and audio.
func (j *Job) Delete(now time.Time, reason string, acct *Account) (Tombstone, []Event, error) {
	if reason != DeletedOnRequest && reason != DeletedByRetention {
		return Tombstone{}, nil, fmt.Errorf("delete %s: unknown reason %q", j.ID, reason)
	}
	if !j.Status.Terminal() && !j.SpentOnRecognition() && j.ReservedMs > 0 && acct != nil {
		acct.BalanceMs += j.ReservedMs
		j.ReservedMs = 0
	}
	t := Tombstone{
		DocID: j.ID, AccountID: j.AccountID, Type: j.Type, Status: j.Status,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt, DeletedAt: now, Reason: reason,
	}
	ev := newEvent(TopicJobDeleted, j, now, JobDeletedData{Status: j.Status, Type: j.Type, CreatedAt: j.CreatedAt.UTC(), Reason: reason})
	return t, []Event{ev}, nil
}

// RetentionCutoff is the creation time before which an account keeping
// jobs for days deletes them; ok is false when the account keeps them
// forever (days ≤ 0).
func RetentionCutoff(now time.Time, days int) (cutoff time.Time, ok bool) {
	if days <= 0 {
		return time.Time{}, false
	}
	return now.Add(-time.Duration(days) * 24 * time.Hour), true
}

// MaxRetentionDays bounds the setting: ten years.
const MaxRetentionDays = 3650

// ValidRetentionDays checks the account setting; 0 means keep forever.
func ValidRetentionDays(days int) error {
	if days < 0 || days > MaxRetentionDays {
		return Invalid("invalid_retention_days", "retentionDays must be between 0 (keep forever) and %d; got %d", MaxRetentionDays, days)
	}
	return nil
}
