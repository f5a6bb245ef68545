package domain

import "testing"

// Each job a stage can meet awaits exactly the work of one stage, or none.
func TestJobSubStates(t *testing.T) {
	audio := &AudioInfo{Duration: 3}
	for _, c := range []struct {
		name                                          string
		job                                           Job
		measurement, recognition, recognising, enrich bool
	}{
		{"uploading", Job{Status: StatusUploading}, false, false, false, false},
		{"uploaded", Job{Status: StatusProcessing}, true, false, false, false},
		{"measured", Job{Status: StatusProcessing, Audio: audio}, false, true, false, false},
		{"recognition begun", Job{Status: StatusConverting, Audio: audio}, false, true, true, false},
		{"recognised", Job{Status: StatusConverting, Audio: audio, Transcription: "Բարև"}, false, false, false, true},
		{"transcribed", Job{Status: StatusTranscribed, Audio: audio, Transcription: "Բարև"}, false, false, false, false},
		{"failed", Job{Status: StatusFailed}, false, false, false, false},
	} {
		j := c.job
		got := [4]bool{j.AwaitsMeasurement(), j.AwaitsRecognition(), j.Recognizing(), j.AwaitsEnrichment()}
		if want := [4]bool{c.measurement, c.recognition, c.recognising, c.enrich}; got != want {
			t.Errorf("%s: measurement, recognition, recognising, enrichment = %v, want %v", c.name, got, want)
		}
	}
}
