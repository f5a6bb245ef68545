package domain

import (
	"errors"
	"fmt"
	"time"
)

// Why a job fails: the failure causes of docs/decisions.md, States, each the readable error the
// customer reads in the job's `error`. Their wording is here and nowhere
// else; the state machine, the stages, the sweeper and the MP3 adapter build
// them with these. The errors are permanent: a stage fails the job with them
// at once instead of retrying.

// UploadExpired is the reason of a job whose audio never arrived within its
// upload window (spec: 1 hour).
func UploadExpired(window time.Duration) string {
	human := FormatSeconds(window.Seconds())
	if window == time.Hour {
		human = "1 hour"
	}
	return "upload window expired: no audio was uploaded within " + human + " of job creation"
}

// The uploaded file is not MP3, or not usable MP3.
var (
	ErrEmptyFile    = Permanent(errors.New("the file is empty"))
	ErrNoMP3Frames  = Permanent(errors.New("the file is not MP3 audio (no MPEG audio frames found)"))
	ErrSilentAudio  = Permanent(errors.New("the audio is empty: no MP3 frames with sound were found"))
	ErrAudioMissing = Permanent(errors.New("the uploaded audio is missing from storage"))
)

// NotMP3 is a file of another type: desc says what it is ("WAV audio"),
// detail (optional) more of it ("MP3 inside a WAV container").
func NotMP3(desc, detail string) error {
	what := "not MP3"
	if detail != "" {
		what += " (" + detail + ")"
	}
	return Permanent(fmt.Errorf("the file is %s, %s; only MP3 is supported", desc, what))
}

// CorruptMP3 is a file that looks like MP3 but holds too little of it.
func CorruptMP3(format string, args ...any) error {
	return Permanent(fmt.Errorf("the MP3 file is truncated or corrupt: "+format, args...))
}

// UndecodableMP3 is MP3 the decoder gives up on.
func UndecodableMP3(err error) error {
	return Permanent(fmt.Errorf("the MP3 file cannot be decoded: %v", err))
}

// TooLong is a recording over the longest accepted (default 4 hours).
func TooLong(seconds float64, limit time.Duration) error {
	return Permanent(fmt.Errorf("recording is %s, longer than the maximum of %s", FormatSeconds(seconds), FormatSeconds(limit.Seconds())))
}

// OverBalance is a recording longer than the account's seconds remaining.
func OverBalance(seconds, remaining float64) error {
	return Permanent(fmt.Errorf("recording is %s, %s remain in the account", FormatSeconds(seconds), FormatSeconds(remaining)))
}

// ErrNoSpeech (errors.go) is a recording without speech.

// ErrMonoCall is a mono phone call with nothing to tell its speakers apart.
var ErrMonoCall = Permanent(errors.New("phone_call transcription of a mono recording is not available: no diarizer is configured and the speech engine does not label speakers; upload a stereo recording with one speaker per channel, or use type single_voice"))

// WrongChannels is a recording whose decoded channels are not the want
// ("mono" or "stereo") the job's type needs.
func WrongChannels(want string, found int) error {
	if want == "mono" {
		return Permanent(fmt.Errorf("expected a mono recording, found %d channels", found))
	}
	return Permanent(fmt.Errorf("expected a %s recording, found %d channel(s)", want, found))
}

// SpeechFailed is the speech engine's failure after its retries; err says
// how (it is told as it is: the customer can do nothing about it, but may
// wait for the engine). Permanent refusals are returned unchanged.
func SpeechFailed(err error) error {
	if IsPermanent(err) {
		return err
	}
	return &speechFailure{err: err}
}

// speechFailure is SpeechFailed's error: CustomerReason finds it in a
// stage's error chain, whatever wraps it.
type speechFailure struct{ err error }

func (e *speechFailure) Error() string { return "speech recognition failed: " + e.err.Error() }
func (e *speechFailure) Unwrap() error { return e.err }

// CustomerReason is the job's error for a stage's last error err: the
// sentence a failure meant for the customer carries (a permanent failure
// of failures.go or an engine's refusal, the speech engine unavailable
// after its retries) and
// only that sentence, without what wraps it. Anything else, and anything
// that went through the service's own store (ErrStoreDown: its driver
// names hosts, users and databases), is InternalFailure(stage); its words
// stay in the log.
func CustomerReason(stage string, err error) string {
	if err == nil || errors.Is(err, ErrStoreDown) {
		return InternalFailure(stage)
	}
	var p *PermanentError
	if errors.As(err, &p) {
		return p.Err.Error()
	}
	var s *speechFailure
	if errors.As(err, &s) && errors.Is(s.err, ErrUnavailable) {
		return s.Error() // the engine out of reach after its retries
	}
	return InternalFailure(stage)
}

// Stalled is the reason of a job the sweeper re-drove attempts times
// without it leaving status.
func Stalled(status Status, attempts int) string {
	reason := fmt.Sprintf("processing stopped in the %s state and did not resume after %d attempts", status, attempts)
	if status == StatusConverting {
		// Jobs wait here while the engine's circuit is open.
		reason += " (speech recognition did not complete: the speech engine was unavailable)"
	}
	return reason
}

// InternalFailure is the reason of a job a stage gave up on for a cause
// that is not for the customer (it stays in the log).
func InternalFailure(stage string) string {
	return fmt.Sprintf("internal error in the %s stage; the recording could not be processed", stage)
}

// UploadEmpty is why an empty upload is refused (the job keeps waiting).
const UploadEmpty = "the upload is empty: PUT the bytes of one MP3 file"

// UploadTooLarge is why an upload over the size limit is refused; limit is
// the limit for people ("512 MiB").
func UploadTooLarge(limit string) string {
	return "the upload is larger than the " + limit + " limit"
}
