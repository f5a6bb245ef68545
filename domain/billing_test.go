package domain

import (
	"testing"
	"time"
)

// jobAt returns a job of an account with 60 s brought to stage: 0
// uploading, 1 processing (unmeasured), 2 measured, 3 converting, 4
// recognised, 5 transcribed.
func jobAt(t *testing.T, stage int) (Job, *Account) {
	t.Helper()
	j, acct := newTestJob(TypeSingleVoice), business(60)
	steps := []func() ([]Event, error){
		func() ([]Event, error) { return j.ReceiveUpload(t0, "blob", 10) },
		func() ([]Event, error) {
			return j.Measure(t0, AudioInfo{Format: "mp3", Duration: 12, Channels: 1, SampleRate: 16000}, acct, time.Hour)
		},
		func() ([]Event, error) { return j.StartConverting(t0) },
		func() ([]Event, error) {
			return j.Recognize(t0, "secret words", []Segment{{Start: 0, End: 1, Text: "secret words"}})
		},
		func() ([]Event, error) { return j.Complete(t0, "title", "summary", LanguageArmenian) },
	}
	for _, s := range steps[:stage] {
		if _, err := s(); err != nil {
			t.Fatal(err)
		}
	}
	return j, acct
}

func TestDeleteRefundsOnlySecondsNotYetSentToRecognition(t *testing.T) {
	for _, tc := range []struct {
		stage  int
		remain float64
	}{{0, 60}, {1, 60}, {2, 60}, {3, 48}, {4, 48}, {5, 48}} {
		j, acct := jobAt(t, tc.stage)
		if _, _, err := j.Delete(t0, DeletedOnRequest, acct); err != nil {
			t.Fatal(err)
		}
		if got := float64(acct.BalanceMs) / 1000; got != tc.remain {
			t.Errorf("deleting a %s job (stage %d) leaves %.3f s, want %.3f", j.Status, tc.stage, got, tc.remain)
		}
	}
	// Failing is the service's doing: it refunds even a converting job.
	j, acct := jobAt(t, 4)
	if _, err := j.Fail(t0, "engine failed", acct); err != nil || acct.BalanceMs != 60000 {
		t.Errorf("failing a recognised job: %v, balance %d ms, want 60000", err, acct.BalanceMs)
	}
}

func TestShownHidesTheTranscriptUntilTranscribed(t *testing.T) {
	for stage := 0; stage <= 5; stage++ {
		j, _ := jobAt(t, stage)
		s := j.Shown()
		hidden := s.Transcription == "" && s.Segments == nil && s.Title == "" && s.Resolution == "" && s.LanguageCode == ""
		if want := j.Status != StatusTranscribed; hidden != want {
			t.Errorf("%s (stage %d): Shown hides the transcript %v, want %v", j.Status, stage, hidden, want)
		}
		if s.Status != j.Status || s.ID != j.ID || string(s.Metadata) != string(j.Metadata) {
			t.Errorf("%s: Shown changed more than the transcript", j.Status)
		}
	}
}
