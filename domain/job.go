package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// DocID identifies a transcription job. Opaque and URL-safe.
type DocID string

// AccountID identifies a customer account.
type AccountID string

// Status is the spec's job status (§3).
type Status string

// The spec's five states. Order of the non-terminal ones is docs/decisions.md's (States).
const (
	StatusUploading   Status = "uploading"
	StatusProcessing  Status = "processing"
	StatusConverting  Status = "converting"
	StatusTranscribed Status = "transcribed"
	StatusFailed      Status = "failed"
)

// Terminal reports whether no transition leaves s.
func (s Status) Terminal() bool { return s == StatusTranscribed || s == StatusFailed }

// JobType is the transcript type chosen per job (spec §1.7).
type JobType string

// The two transcript types.
const (
	TypeSingleVoice JobType = "single_voice"
	TypePhoneCall   JobType = "phone_call"
)

// Valid reports whether t is one of the spec's enum values.
func (t JobType) Valid() bool { return t == TypeSingleVoice || t == TypePhoneCall }

// LanguageArmenian is the one language the service transcribes.
const LanguageArmenian = "hy-AM"

// UploadWindow is how long an upload address stays valid (spec §8).
const UploadWindow = time.Hour

// MaxDuration is the longest recording accepted by default (docs/decisions.md, States).
const MaxDuration = 4 * time.Hour

// Job is one transcription job and everything known about it.
type Job struct {
	ID               DocID
	AccountID        AccountID
	Type             JobType
	Status           Status
	Metadata         json.RawMessage // always a JSON object
	ChecklistID      string
	ChecklistVersion int // the checklist version analyses use, fixed at creation
	CreatedAt        time.Time
	UpdatedAt        time.Time
	UploadExpiresAt  time.Time

	BlobKey    string // where the uploaded audio is kept
	AudioBytes int64
	Audio      *AudioInfo // set by the process stage
	ReservedMs int64      // balance reserved for this job, refunded on failure

	Transcription string
	Segments      []Segment
	Title         string
	Resolution    string
	LanguageCode  string
	Error         string

	Redrives int // times the sweeper re-drove this job

	// Speakers are the roles and names people gave a phone call's
	// speakers on its page, keyed by speaker ("1", "2").
	Speakers map[string]SpeakerName

	// Filename is the name of the file the recording was uploaded from in
	// the web application ("" from the API): the title until there is one,
	// and the name of its exports.
	Filename string
}

// Duration is the recording's length in seconds, nil until processed.
func (j *Job) Duration() *float64 {
	if j.Audio == nil {
		return nil
	}
	d := j.Audio.Duration
	return &d
}

// AudioInfo is what the process stage learns from the uploaded file.
type AudioInfo struct {
	Format     string  `json:"format"` // "mp3"
	Duration   float64 `json:"duration"`
	Channels   int     `json:"channels"`
	SampleRate int     `json:"sampleRate"`
	Bitrate    int     `json:"bitrate"` // bits per second, average
	Frames     int64   `json:"frames"`
}

// NewJob creates a job waiting for its upload and the event announcing it.
func NewJob(id DocID, account AccountID, req CreateRequest, now time.Time, uploadTTL time.Duration) (Job, []Event) {
	meta := req.Metadata
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	j := Job{
		ID: id, AccountID: account, Type: req.Type, Status: StatusUploading,
		Metadata: meta, ChecklistID: req.ChecklistID, ChecklistVersion: req.ChecklistVersion,
		CreatedAt: now, UpdatedAt: now, UploadExpiresAt: now.Add(uploadTTL),
	}
	return j, []Event{j.statusEvent(now, "")}
}

// UploadOpen reports whether the upload window is still open at now.
func (j *Job) UploadOpen(now time.Time) bool {
	return j.Status == StatusUploading && now.Before(j.UploadExpiresAt)
}

// The job's sub-states: where a processing or converting job is in the
// pipeline, which the status alone does not tell. Stages and the sweeper
// ask these, never the fields.

// AwaitsMeasurement reports a job uploaded and not yet measured (stage
// process's work).
func (j *Job) AwaitsMeasurement() bool { return j.Status == StatusProcessing && j.Audio == nil }

// AwaitsRecognition reports a measured job with no transcript yet (stage
// transcribe's work): processing, or converting when a worker died
// mid-recognition.
func (j *Job) AwaitsRecognition() bool {
	return (j.Status == StatusProcessing && j.Audio != nil) || j.Recognizing()
}

// Recognizing reports a job whose speech recognition began and has not
// finished: converting with no transcript.
func (j *Job) Recognizing() bool { return j.Status == StatusConverting && j.Transcription == "" }

// AwaitsEnrichment reports a recognised job waiting for its title and
// summary (stage enrich's work).
func (j *Job) AwaitsEnrichment() bool { return j.Status == StatusConverting && j.Transcription != "" }

// TranscriptShown reports whether anything of the transcript (text,
// segments, title, summary, language) may leave the pipeline: to a page, a
// search, an export or an event. Only a transcribed job's may: the
// transcript is stored at recognition, while the job is still converting,
// so that nothing of it is seen until the whole job is done (docs/decisions.md, Transcripts).
func (j *Job) TranscriptShown() bool { return j.Status == StatusTranscribed }

// Shown returns the job as people, searches and exports may see it: before
// it is transcribed, without its transcript, segments, title, summary and
// language (TranscriptShown).
func (j Job) Shown() Job {
	if !j.TranscriptShown() {
		j.Transcription, j.Segments, j.Title, j.Resolution, j.LanguageCode = "", nil, "", "", ""
	}
	return j
}

// SpentOnRecognition reports whether the job's reserved seconds were spent:
// its audio went to the speech engine (converting or later). Deleting such
// a job refunds nothing; failing it still does, since the failure is the
// service's.
func (j *Job) SpentOnRecognition() bool {
	return j.Status == StatusConverting || j.Status == StatusTranscribed
}

// ReceiveUpload records the uploaded audio: uploading → processing.
func (j *Job) ReceiveUpload(now time.Time, blobKey string, size int64) ([]Event, error) {
	if j.Status != StatusUploading {
		return nil, fmt.Errorf("receive upload in %s: %w", j.Status, ErrInvalidTransition)
	}
	j.BlobKey, j.AudioBytes, j.Error = blobKey, size, ""
	return j.move(now, StatusProcessing, newEvent(TopicAudioUploaded, j, now, AudioUploadedData{
		BlobKey: blobKey, Bytes: size, Type: j.Type,
	})), nil
}

// RefuseUpload records why an upload to the job was refused (empty, too
// large). The job keeps waiting for its upload until the window closes, and
// the web application shows the reason; the API shows no error until the
// job fails. A received upload clears it.
func (j *Job) RefuseUpload(now time.Time, reason string) error {
	if j.Status != StatusUploading {
		return fmt.Errorf("refuse upload in %s: %w", j.Status, ErrInvalidTransition)
	}
	j.Error, j.UpdatedAt = reason, now
	return nil
}

// Measure records the audio's properties and reserves its length from the
// account's balance. It requires processing with no measurement yet, so a
// replayed measurement is refused. A balance too small for the recording is
// returned as a permanent error: the caller fails the job with it.
func (j *Job) Measure(now time.Time, info AudioInfo, acct *Account, maxDuration time.Duration) ([]Event, error) {
	if !j.AwaitsMeasurement() {
		return nil, fmt.Errorf("measure in %s: %w", j.Status, ErrInvalidTransition)
	}
	if info.Duration <= 0 {
		return nil, ErrSilentAudio
	}
	if maxDuration > 0 && info.Duration > maxDuration.Seconds() {
		return nil, TooLong(info.Duration, maxDuration)
	}
	ms, err := acct.Reserve(info.Duration)
	if err != nil {
		return nil, err
	}
	j.Audio, j.ReservedMs, j.UpdatedAt = &info, ms, now
	return []Event{newEvent(TopicAudioProcessed, j, now, AudioProcessedData{Audio: info, Type: j.Type})}, nil
}

// StartConverting marks speech recognition as begun: processing → converting.
// A job already converting (a worker died mid-recognition) is accepted again
// with no events, so the redelivered message resumes the work.
func (j *Job) StartConverting(now time.Time) ([]Event, error) {
	switch {
	case j.Recognizing():
		return nil, nil
	case j.AwaitsRecognition():
		return j.move(now, StatusConverting), nil
	}
	return nil, fmt.Errorf("start converting in %s: %w", j.Status, ErrInvalidTransition)
}

// Recognize stores the recognised transcript; the job stays converting until
// it is enriched with a title and a summary.
func (j *Job) Recognize(now time.Time, transcription string, segments []Segment) ([]Event, error) {
	return j.RecognizeNoted(now, transcription, segments, "")
}

// RecognizeNoted is Recognize with a note for the job's history on how the
// audio was taken (ChannelLayout.Note); "" for none.
func (j *Job) RecognizeNoted(now time.Time, transcription string, segments []Segment, note string) ([]Event, error) {
	if !j.Recognizing() {
		return nil, fmt.Errorf("recognize in %s: %w", j.Status, ErrInvalidTransition)
	}
	if transcription == "" {
		return nil, Permanent(ErrNoSpeech)
	}
	j.Transcription, j.Segments, j.UpdatedAt = transcription, segments, now
	return []Event{newEvent(TopicTranscriptRecognized, j, now, RecognizedData{Transcription: transcription, Segments: segments, Type: j.Type, Note: note})}, nil
}

// Complete adds the title, summary and language: converting → transcribed.
func (j *Job) Complete(now time.Time, title, resolution, language string) ([]Event, error) {
	if !j.AwaitsEnrichment() {
		return nil, fmt.Errorf("complete in %s: %w", j.Status, ErrInvalidTransition)
	}
	j.Title, j.Resolution, j.LanguageCode = title, resolution, language
	return j.move(now, StatusTranscribed, newEvent(TopicTranscriptReady, j, now, TranscriptReadyData{
		Type: j.Type, Transcription: j.Transcription, Title: title, Resolution: resolution,
		LanguageCode: language, ChecklistID: j.ChecklistID, ChecklistVersion: j.ChecklistVersion, Metadata: j.Metadata,
	})), nil
}

// Fail ends the job with a readable reason and refunds any reserved balance
// to acct (which may be nil when nothing was reserved).
func (j *Job) Fail(now time.Time, reason string, acct *Account) ([]Event, error) {
	if j.Status.Terminal() {
		return nil, fmt.Errorf("fail in %s: %w", j.Status, ErrInvalidTransition)
	}
	if j.ReservedMs > 0 && acct != nil {
		acct.BalanceMs += j.ReservedMs
		j.ReservedMs = 0
	}
	j.Error = reason
	return j.move(now, StatusFailed), nil
}

// Redrive re-emits the event that starts the job's current stage, for a job
// stuck past its deadline (its message lost or its worker gone). Uploading
// jobs wait for their upload and are never re-driven.
func (j *Job) Redrive(now time.Time) ([]Event, error) {
	var ev Event
	switch {
	case j.AwaitsMeasurement():
		ev = newEvent(TopicAudioUploaded, j, now, AudioUploadedData{BlobKey: j.BlobKey, Bytes: j.AudioBytes, Type: j.Type})
	case j.AwaitsRecognition():
		ev = newEvent(TopicAudioProcessed, j, now, AudioProcessedData{Audio: *j.Audio, Type: j.Type})
	case j.AwaitsEnrichment():
		ev = newEvent(TopicTranscriptRecognized, j, now, RecognizedData{Transcription: j.Transcription, Segments: j.Segments, Type: j.Type})
	default:
		return nil, fmt.Errorf("redrive in %s: %w", j.Status, ErrInvalidTransition)
	}
	j.Redrives++
	j.UpdatedAt = now
	ev.ID = fmt.Sprintf("%s/redrive-%d", ev.ID, j.Redrives)
	return []Event{ev}, nil
}

func (j *Job) move(now time.Time, to Status, extra ...Event) []Event {
	from := j.Status
	j.Status, j.UpdatedAt = to, now
	return append(extra, j.statusEvent(now, from))
}

func (j *Job) statusEvent(now time.Time, from Status) Event {
	return newEvent(TopicJobStatus, j, now, JobStatusData{
		Status: j.Status, Previous: from, Type: j.Type, Duration: j.Duration(), Error: j.Error,
		ChecklistID: j.ChecklistID,
	})
}
