package domain

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// Every reason the service writes, built by its own constructor, has its
// stable code and the details its translated sentence names.
func TestEveryFailureReasonHasItsCode(t *testing.T) {
	for _, tc := range []struct {
		reason string
		code   string
		args   []string
	}{
		{UploadExpired(time.Hour), "upload_expired", nil},
		{UploadExpired(90 * time.Second), "upload_expired", nil},
		{UploadEmpty, "upload_empty", nil},
		{UploadTooLarge("512 MiB"), "upload_too_large", []string{"512 MiB"}},
		{UploadTooLarge("512 MiB") + ": " + ErrTooLarge.Error(), "upload_too_large", []string{"512 MiB"}},
		{ErrEmptyFile.Error(), "file_empty", nil},
		{ErrNoMP3Frames.Error(), "no_mp3_frames", nil},
		{"the MP3 file changes format after 0.8 s, from 8 kHz mono MPEG-2.5 layer III to 16 kHz mono MPEG-2 layer III: files joined from recordings of different sample rates or channel counts are not supported; convert the whole recording to one format and upload it again", "mp3_format_change", []string{"0.8", "8 kHz mono MPEG-2.5 layer III", "16 kHz mono MPEG-2 layer III"}},
		{ErrSilentAudio.Error(), "silent_audio", nil},
		{ErrAudioMissing.Error(), "audio_missing", nil},
		{NotMP3("WAV audio", "").Error(), "not_mp3", []string{"WAV"}},
		{NotMP3("WAV audio", "MP3 inside a WAV container").Error(), "not_mp3", []string{"WAV"}},
		{NotMP3("a ZIP archive", "").Error(), "not_mp3", []string{"ZIP"}},
		{NotMP3("MPEG-1 Layer II audio (MP2)", "").Error(), "not_mp3", []string{"MPEG-1 Layer II (MP2)"}},
		{NotMP3("Core Audio (CAF) audio", "").Error(), "not_mp3", []string{"Core Audio (CAF)"}},
		{CorruptMP3("%d frames", 2).Error(), "corrupt_mp3", nil},
		{UndecodableMP3(errors.New("bad")).Error(), "undecodable_mp3", nil},
		{TooLong(5*3600, 4*time.Hour).Error(), "too_long", []string{"5 h", "4 h"}},
		{OverBalance(9, 2).Error(), "over_balance", []string{"9 s", "2 s"}},
		{ErrNoSpeech.Error(), "no_speech", nil},
		{Permanent(ErrNoSpeech).Error(), "no_speech", nil},
		{ErrMonoCall.Error(), "mono_call", nil},
		{WrongChannels("mono", 2).Error(), "wrong_channels", []string{"mono", "2"}},
		{WrongChannels("stereo", 1).Error(), "wrong_channels", []string{"stereo", "1"}},
		{SpeechFailed(errors.New("engine 503")).Error(), "speech_failed", nil},
		{Stalled(StatusConverting, 3), "stalled", []string{"converting"}},
		{InternalFailure("transcribe"), "internal", []string{"transcribe"}},
		{"something new", "other", nil},
	} {
		t.Run(tc.code, func(t *testing.T) {
			f := JobFailure(tc.reason)
			if f.Code != tc.code || fmt.Sprint(f.Args) != fmt.Sprint(tc.args) {
				t.Fatalf("JobFailure(%q) = %+v, want %s %q", tc.reason, f, tc.code, tc.args)
			}
		})
	}
	if f := AnalysisFailure(fmt.Sprintf("checklist %q version %d no longer exists", "cl", 2)); f.Code != "checklist_gone" {
		t.Errorf("gone checklist: %+v", f)
	}
	if f := AnalysisFailure("checklist analysis failed: model unavailable"); f.Code != "analysis_failed" {
		t.Errorf("analysis failed: %+v", f)
	}
	if f := DeliveryFailure("receiver answered 503 Service Unavailable: try later"); !reflect.DeepEqual(f, Failure{Code: "receiver_status", Args: []string{"503"}}) {
		t.Errorf("status: %+v", f)
	}
	if f := DeliveryFailure("boom"); f.Code != "delivery_other" {
		t.Errorf("unknown delivery error: %+v", f)
	}
}
