// Package domain holds hyscribe's pure business rules: the job state machine,
// the fixed-window rate limit, request validation, the poll view's field
// availability, event payloads and transcript formatting.
//
// It imports the standard library only, never performs I/O and never reads the
// clock: callers pass `now`.
package domain
