package asr

import (
	"strings"
	"testing"
)

// FuzzParse feeds the answer parser engine bytes: it must never panic, and
// what it accepts must hold no empty or backwards segment.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"text":"Բարև","segments":[{"start":0,"end":1.5,"text":" Բարև","speaker":0}],"words":[{"word":"Բարև","start":0,"end":1}]}`), "application/json")
	f.Add([]byte(`{"text":"Բարև","duration":"3.5"}`), "application/json")
	f.Add([]byte(`{"segments":[{"start":"2","end":1,"text":"x","words":[{"word":"x","start":-1,"end":null}]}]}`), "")
	f.Add([]byte("Բարև\n"), "text/plain")
	f.Add([]byte(`{"text":" a\n b","segments":[{"id":0,"text":" a","start":0,"end":1,"words":[{"word":" a","start":0,"end":1,"t_dtw":-1}]}]}`), "application/json")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		rec, err := parse(body, contentType, profiles[ProfileWhisperCpp])
		if err != nil {
			return
		}
		for _, s := range rec.Segments {
			if s.Start < 0 || s.End < s.Start || (strings.TrimSpace(s.Text) == "" && rec.Text != "") {
				t.Errorf("segment %+v", s)
			}
		}
		for _, w := range rec.Words {
			if w.Start < 0 || w.End < w.Start || strings.TrimSpace(w.Word) == "" {
				t.Errorf("word %+v", w)
			}
		}
		if rec.Duration < 0 {
			t.Errorf("duration %v", rec.Duration)
		}
	})
}
