package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func newTestJob(typ JobType) Job {
	j, _ := NewJob("doc1", "acct1", CreateRequest{Type: typ, Metadata: json.RawMessage(`{"crm":"A-1"}`)}, t0, time.Hour)
	return j
}

func business(seconds float64) *Account {
	return &Account{ID: "acct1", Plan: PlanBusiness, BalanceMs: int64(seconds * 1000)}
}

func TestLifecycleHappyPath(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	acct := business(60)
	steps := []struct {
		name   string
		do     func() ([]Event, error)
		status Status
		topics []string
	}{
		{"upload", func() ([]Event, error) { return j.ReceiveUpload(t0, "k", 10) }, StatusProcessing, []string{TopicAudioUploaded, TopicJobStatus}},
		{"measure", func() ([]Event, error) {
			return j.Measure(t0, AudioInfo{Format: "mp3", Duration: 9.5, Channels: 1}, acct, MaxDuration)
		}, StatusProcessing, []string{TopicAudioProcessed}},
		{"convert", func() ([]Event, error) { return j.StartConverting(t0) }, StatusConverting, []string{TopicJobStatus}},
		{"recognize", func() ([]Event, error) { return j.Recognize(t0, "Բարև", nil) }, StatusConverting, []string{TopicTranscriptRecognized}},
		{"complete", func() ([]Event, error) { return j.Complete(t0, "T", "R", LanguageArmenian) }, StatusTranscribed, []string{TopicTranscriptReady, TopicJobStatus}},
	}
	for _, s := range steps {
		evs, err := s.do()
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if j.Status != s.status {
			t.Fatalf("%s: status %s, want %s", s.name, j.Status, s.status)
		}
		var got []string
		for _, e := range evs {
			got = append(got, e.Topic)
			if e.DocID != j.ID || e.AccountID != j.AccountID || e.ID == "" || e.Version != EnvelopeVersion {
				t.Fatalf("%s: bad envelope %+v", s.name, e)
			}
		}
		if strings.Join(got, ",") != strings.Join(s.topics, ",") {
			t.Fatalf("%s: topics %v, want %v", s.name, got, s.topics)
		}
	}
	if acct.BalanceMs != 50500 || j.ReservedMs != 9500 {
		t.Fatalf("balance %d reserved %d", acct.BalanceMs, j.ReservedMs)
	}
}

func TestReplayedAndIllegalTransitionsAreRefused(t *testing.T) {
	acct := business(60)
	info := AudioInfo{Duration: 5, Channels: 1}
	cases := []struct {
		name  string
		setup func(*Job)
		do    func(*Job) ([]Event, error)
	}{
		{"upload twice", func(j *Job) { j.ReceiveUpload(t0, "k", 1) }, func(j *Job) ([]Event, error) { return j.ReceiveUpload(t0, "k2", 1) }},
		{"measure before upload", func(j *Job) {}, func(j *Job) ([]Event, error) { return j.Measure(t0, info, acct, 0) }},
		{"measure twice", func(j *Job) { j.ReceiveUpload(t0, "k", 1); j.Measure(t0, info, acct, 0) }, func(j *Job) ([]Event, error) { return j.Measure(t0, info, acct, 0) }},
		{"convert unmeasured", func(j *Job) { j.ReceiveUpload(t0, "k", 1) }, func(j *Job) ([]Event, error) { return j.StartConverting(t0) }},
		{"complete without transcript", func(j *Job) {
			j.ReceiveUpload(t0, "k", 1)
			j.Measure(t0, info, acct, 0)
			j.StartConverting(t0)
		}, func(j *Job) ([]Event, error) { return j.Complete(t0, "t", "r", LanguageArmenian) }},
		{"fail a failed job", func(j *Job) { j.Fail(t0, "x", nil) }, func(j *Job) ([]Event, error) { return j.Fail(t0, "y", nil) }},
		{"upload after failure", func(j *Job) { j.Fail(t0, "x", nil) }, func(j *Job) ([]Event, error) { return j.ReceiveUpload(t0, "k", 1) }},
		{"redrive uploading", func(j *Job) {}, func(j *Job) ([]Event, error) { return j.Redrive(t0) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := newTestJob(TypeSingleVoice)
			c.setup(&j)
			before := j.Status
			evs, err := c.do(&j)
			if !errors.Is(err, ErrInvalidTransition) {
				t.Fatalf("err = %v, want ErrInvalidTransition", err)
			}
			if evs != nil || j.Status != before {
				t.Fatalf("refused transition changed the job: %v %s", evs, j.Status)
			}
		})
	}
}

func TestStartConvertingResumesAnInterruptedJob(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	j.ReceiveUpload(t0, "k", 1)
	j.Measure(t0, AudioInfo{Duration: 1}, business(10), 0)
	if _, err := j.StartConverting(t0); err != nil {
		t.Fatal(err)
	}
	evs, err := j.StartConverting(t0)
	if err != nil || evs != nil {
		t.Fatalf("resume: %v %v", evs, err)
	}
}

func TestMeasureRefusesWhatTheAccountCannotPayOrIsTooLong(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	j.ReceiveUpload(t0, "k", 1)
	acct := business(2)
	_, err := j.Measure(t0, AudioInfo{Duration: 9}, acct, MaxDuration)
	if !IsPermanent(err) || err.Error() != "recording is 9 s, 2 s remain in the account" {
		t.Fatalf("err = %v", err)
	}
	if acct.BalanceMs != 2000 || j.Audio != nil {
		t.Fatal("refused measurement changed state")
	}
	_, err = j.Measure(t0, AudioInfo{Duration: 5 * 3600}, business(1e6), MaxDuration)
	if !IsPermanent(err) || !strings.Contains(err.Error(), "longer than the maximum of 4 h") {
		t.Fatalf("err = %v", err)
	}
	_, err = j.Measure(t0, AudioInfo{Duration: 0}, business(10), MaxDuration)
	if !IsPermanent(err) || !strings.Contains(err.Error(), "empty") {
		t.Fatalf("err = %v", err)
	}
}

func TestFailRefundsTheReservation(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	acct := business(10)
	j.ReceiveUpload(t0, "k", 1)
	j.Measure(t0, AudioInfo{Duration: 4.0001}, acct, 0)
	if acct.BalanceMs != 5999 {
		t.Fatalf("balance after reserve %d", acct.BalanceMs)
	}
	evs, err := j.Fail(t0, "speech engine failed", acct)
	if err != nil || j.Status != StatusFailed || j.Error != "speech engine failed" {
		t.Fatalf("%v %s", err, j.Status)
	}
	if acct.BalanceMs != 10000 || j.ReservedMs != 0 {
		t.Fatalf("balance after refund %d", acct.BalanceMs)
	}
	var st JobStatusData
	if err := evs[0].DecodeData(&st); err != nil || st.Status != StatusFailed || st.Previous != StatusProcessing || st.Error != "speech engine failed" {
		t.Fatalf("status event %+v %v", st, err)
	}
}

func TestRedriveReemitsTheCurrentStage(t *testing.T) {
	acct := business(10)
	j := newTestJob(TypeSingleVoice)
	j.ReceiveUpload(t0, "k", 1)
	for _, want := range []string{TopicAudioUploaded, TopicAudioProcessed, TopicAudioProcessed, TopicTranscriptRecognized} {
		evs, err := j.Redrive(t0)
		if err != nil || len(evs) != 1 || evs[0].Topic != want {
			t.Fatalf("in %s: %v %v, want %s", j.Status, evs, err, want)
		}
		switch want {
		case TopicAudioUploaded:
			j.Measure(t0, AudioInfo{Duration: 1}, acct, 0)
		case TopicAudioProcessed:
			if j.Status == StatusProcessing {
				j.StartConverting(t0)
			} else {
				j.Recognize(t0, "x", nil)
			}
		}
	}
	if j.Redrives != 4 {
		t.Fatalf("redrives %d", j.Redrives)
	}
}

func TestEventIDsAreDeterministicAndEnvelopeRoundTrips(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	evs, _ := j.ReceiveUpload(t0, "k", 7)
	if evs[0].ID != "doc1/audio.uploaded" || evs[1].ID != "doc1/job.status/processing" {
		t.Fatalf("ids %s %s", evs[0].ID, evs[1].ID)
	}
	back, err := ParseEvent(TopicAudioUploaded, evs[0].Marshal())
	if err != nil || back.ID != evs[0].ID || back.Topic != TopicAudioUploaded || !back.OccurredAt.Equal(t0) {
		t.Fatalf("%+v %v", back, err)
	}
	var d AudioUploadedData
	if err := back.DecodeData(&d); err != nil || d.Bytes != 7 || d.BlobKey != "k" {
		t.Fatalf("%+v %v", d, err)
	}
	for _, bad := range []string{"", "{", `{"id":"x"}`, "[]"} {
		if _, err := ParseEvent("t", []byte(bad)); err == nil {
			t.Fatalf("ParseEvent(%q) accepted", bad)
		}
	}
}

func TestFormatSeconds(t *testing.T) {
	for in, want := range map[float64]string{0: "0 s", 9: "9 s", 9.44: "9.4 s", 60: "1 min", 3725: "1 h 2 min 5 s", 14400: "4 h"} {
		if got := FormatSeconds(in); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestValidateEvents(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	evs, _ := j.ReceiveUpload(t0, "k", 1)
	if err := ValidateEvents(evs); err != nil {
		t.Fatal(err)
	}
	bad := []Event{
		{ID: "a", DocID: "d", Type: "t"},                                         // no topic
		{ID: "b", Topic: "x", Type: "t"},                                         // no docId
		{ID: "c", Topic: "x", DocID: "d", Type: "t", Data: json.RawMessage("{")}, // data not JSON
	}
	for _, e := range bad {
		if err := ValidateEvents([]Event{e}); err == nil {
			t.Errorf("event %s accepted", e.ID)
		}
	}
}
