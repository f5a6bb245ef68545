package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hyscribe/hyscribe/domain"
)

// once is Handle under an Idempotency-Key (the IETF httpapi draft's
// header), for a checked request. The first request with a key creates
// the job; a retry with the same body within domain.IdempotencyWindow gets
// the first answer again (same docId, same uploadUrl) and creates nothing,
// so nothing is charged twice; a retry with another body is
// domain.ErrIdempotencyKeyReused. The store decides which request is first,
// so this holds across API processes. replayed reports a repeated answer.
func (uc *CreateJob) once(ctx context.Context, a Actor, req domain.CreateRequest, key string) (res domain.CreateResult, replayed bool, err error) {
	job, events, uploadURL, err := uc.newJob(ctx, a.Account.ID, req)
	if err != nil {
		return domain.CreateResult{}, false, err
	}
	res = domain.CreateResult{DocID: job.ID, UploadURL: uploadURL}
	answer, err := json.Marshal(res)
	if err != nil {
		return domain.CreateResult{}, false, fmt.Errorf("create job: %w", err)
	}
	fingerprint := req.Fingerprint()
	first, created, err := uc.jobs.CreateJobOnce(ctx, domain.Idempotency{
		AccountID: a.Account.ID, Key: key, Fingerprint: fingerprint, DocID: job.ID,
		Response: answer, CreatedAt: job.CreatedAt,
	}, job, events)
	if err != nil {
		return domain.CreateResult{}, false, fmt.Errorf("create job: %w", err)
	}
	if created {
		return res, false, nil
	}
	stored, err := first.Replay(fingerprint)
	if err != nil {
		return domain.CreateResult{}, false, fmt.Errorf("the Idempotency-Key %q was first used %s with a different request body; send a new key for a new job: %w",
			clipKey(key), first.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), err)
	}
	var again domain.CreateResult
	if err := json.Unmarshal(stored, &again); err != nil {
		return domain.CreateResult{}, false, fmt.Errorf("create job: stored answer of key: %w", err)
	}
	return again, true, nil
}

// clipKey bounds a client's key echoed in a message.
func clipKey(key string) string {
	if len(key) > 64 {
		return key[:64] + "…"
	}
	return key
}
