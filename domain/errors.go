package domain

import (
	"errors"
	"fmt"
)

// Sentinel errors. Adapters translate driver errors into these; the HTTP
// adapter maps them to status codes in one table.
var (
	ErrNotFound          = errors.New("not found")
	ErrConflict          = errors.New("conflict")
	ErrInvalidTransition = errors.New("invalid state transition")
	ErrRateLimited       = errors.New("rate limited")
	ErrUnauthorized      = errors.New("unauthorized")
	ErrForbidden         = errors.New("forbidden")
	ErrTooLarge          = errors.New("too large")
	ErrUnavailable       = errors.New("unavailable")
	// ErrNoSpeech is a recording without speech: silence, hum or hiss. Its
	// text is the job's error as the customer reads it.
	ErrNoSpeech = errors.New("no speech detected in the recording")
	// ErrBackOff marks a failure of a dependency every job shares (a speech
	// engine whose circuit breaker is open), not of the job: a consumer
	// waits and tries again without counting an attempt, so work backs up
	// in the queue instead of every job failing at once.
	ErrBackOff = errors.New("a shared dependency is down; backing off")
	// ErrStorageFull is a store or blob store out of space (ENOSPC, SQLite's
	// "database or disk is full", Postgres' disk_full). It is also
	// ErrUnavailable (a request answers 503: retry later) and ErrBackOff (a
	// stage waits for space without counting an attempt, since every job
	// would meet the same full disk): nothing fails for it, work waits.
	ErrStorageFull error = storageFull{}
	// ErrStoreDown is the service's own store out of reach: a restart, a
	// failover, a network cut. It matches ErrUnavailable (the API answers
	// 503) and ErrBackOff (a stage waits the outage out without counting an
	// attempt, whatever its length), and its words never reach a job's
	// error (CustomerReason). Adapters wrap the driver's error with it.
	ErrStoreDown error = storeDown{}
)

// RetryAfterUnavailable is the Retry-After, in seconds, of an answer
// refused because a dependency is briefly unavailable (the store silent
// past the request's deadline, down, or full): long enough not to hammer
// a database that is coming back, short enough to be one brief wait.
const RetryAfterUnavailable = 5

type storageFull struct{}

func (storageFull) Error() string { return "out of storage space" }

// Is makes errors.Is(err, ErrUnavailable) and errors.Is(err, ErrBackOff)
// true for ErrStorageFull.
func (storageFull) Is(target error) bool { return target == ErrUnavailable || target == ErrBackOff }

type storeDown struct{}

func (storeDown) Error() string { return "the store cannot be reached" }

// Is makes errors.Is(err, ErrUnavailable) and errors.Is(err, ErrBackOff) hold.
func (storeDown) Is(target error) bool { return target == ErrUnavailable || target == ErrBackOff }

// ValidationError is bad input described for a person. errors.Is(err,
// ErrValidation) holds for every ValidationError.
type ValidationError struct {
	Code string // machine code, e.g. "invalid_type"
	Msg  string // human message
}

// ErrValidation matches every *ValidationError through errors.Is.
var ErrValidation = errors.New("validation failed")

func (e *ValidationError) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrValidation) true.
func (e *ValidationError) Is(target error) bool { return target == ErrValidation }

// Invalid builds a ValidationError.
func Invalid(code, format string, args ...any) error {
	return &ValidationError{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// PermanentError marks a failure that retrying cannot fix (bad audio, refused
// balance). Pipeline stages fail the job at once instead of retrying.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so IsPermanent reports true.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err, or anything it wraps, is permanent.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
