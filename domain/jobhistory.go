package domain

// StatusChange is the state change a job.status event records, if ev is
// one: the status entered and, for failed, the readable error.
func (e Event) StatusChange() (status Status, errMsg string, ok bool) {
	if e.Topic != TopicJobStatus {
		return "", "", false
	}
	var d JobStatusData
	if e.DecodeData(&d) != nil || d.Status == "" {
		return "", "", false
	}
	return d.Status, d.Error, true
}

// HistoryNote is what the job's history keeps beside an event besides its
// state: the note of a transcript.recognised event (how the recording was
// taken, e.g. a stereo call diarized as mono), "" for any other.
func (e Event) HistoryNote() string {
	if e.Topic != TopicTranscriptRecognized {
		return ""
	}
	var d struct {
		Note string `json:"note"`
	}
	if e.DecodeData(&d) != nil {
		return ""
	}
	return d.Note
}
