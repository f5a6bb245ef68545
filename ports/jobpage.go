package ports

import "context"

// JobPager pages through an account's jobs for the API
// (listTranscriptions): newest first (ties by ID), after q.After, without
// the total ListJobs counts, so that a page costs the same however many
// jobs the account has and however far in it is. Jobs of other accounts
// never appear; q.Search and q.Offset are not used.
type JobPager interface {
	PageJobs(ctx context.Context, q JobQuery) ([]ListedJob, error)
}
