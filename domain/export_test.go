package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func transcribedCall() Job {
	return Job{
		ID: "d1", Type: TypePhoneCall, Status: StatusTranscribed, LanguageCode: LanguageArmenian,
		Transcription: "Խոսնակ 1: Բարեւ ձեզ\nԽոսնակ 2: Բարեւ",
		Segments: []Segment{
			{Start: 0.5, End: 2, Text: "Բարեւ ձեզ", Speaker: "1"},
			{Start: 2.25, End: 3, Text: "Բարեւ", Speaker: "2"},
		},
	}
}

func TestExportSRTAndVTTCarrySpeakers(t *testing.T) {
	j := transcribedCall()
	srt, _ := Export(j, ExportSRT)
	want := "1\n00:00:00,500 --> 00:00:02,000\nԽոսնակ 1: Բարեւ ձեզ\n\n2\n00:00:02,250 --> 00:00:03,000\nԽոսնակ 2: Բարեւ\n\n"
	if string(srt) != want {
		t.Fatalf("srt:\n%q\nwant\n%q", srt, want)
	}
	vtt, _ := Export(j, ExportVTT)
	if !strings.HasPrefix(string(vtt), "WEBVTT\n\n1\n00:00:00.500 --> 00:00:02.000\n<v Խոսնակ 1>Բարեւ ձեզ\n") {
		t.Fatalf("vtt:\n%s", vtt)
	}
	j.Type = TypeSingleVoice
	srt, _ = Export(j, ExportSRT)
	if strings.Contains(string(srt), SpeakerLabel) {
		t.Fatalf("single_voice cues must carry no speaker:\n%s", srt)
	}
}

func TestCuesStayShortAndCoverTheSegment(t *testing.T) {
	long := strings.Repeat("բառերի շարք առանց վերջի ", 20) // 480 characters over 40 s
	j := Job{ID: "d", Type: TypeSingleVoice, Status: StatusTranscribed, Segments: []Segment{{Start: 10, End: 50, Text: long}}}
	cues := Cues(j)
	if len(cues) < 6 {
		t.Fatalf("a 40 s, 480-character segment gave %d cues", len(cues))
	}
	var words []string
	for i, c := range cues {
		if n := utf8.RuneCountInString(c.Text); n > CueMaxChars {
			t.Errorf("cue %d has %d characters", i, n)
		}
		if c.End-c.Start > CueMaxSeconds+0.001 {
			t.Errorf("cue %d lasts %.3f s", i, c.End-c.Start)
		}
		if i > 0 && c.Start < cues[i-1].End {
			t.Errorf("cue %d overlaps the one before", i)
		}
		words = append(words, strings.Fields(c.Text)...)
	}
	if cues[0].Start != 10 || cues[len(cues)-1].End != 50 {
		t.Fatalf("cues span %.3f..%.3f, want 10..50", cues[0].Start, cues[len(cues)-1].End)
	}
	if strings.Join(words, " ") != strings.Join(strings.Fields(long), " ") {
		t.Fatal("cues lost or reordered words")
	}
}

func TestExportJSONHasSegmentsAndWords(t *testing.T) {
	b, err := Export(transcribedCall(), ExportJSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc ExportDocument
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Segments) != 2 || *doc.Segments[1].Speaker != "Խոսնակ 2" || len(doc.Words) != 3 {
		t.Fatalf("%s", b)
	}
	w := doc.Words[1]
	if w.Word != "ձեզ" || *w.Speaker != "Խոսնակ 1" || w.Start <= 0.5 || w.End != 2 {
		t.Fatalf("word %+v", w)
	}
}

func TestExportRefusesUnfinishedJobs(t *testing.T) {
	for _, st := range []Status{StatusUploading, StatusProcessing, StatusConverting, StatusFailed} {
		if _, err := Export(Job{Status: st}, ExportTXT); !errors.Is(err, ErrConflict) {
			t.Errorf("%s: %v", st, err)
		}
	}
	if _, err := ParseExportFormat("docx"); !errors.Is(err, ErrValidation) {
		t.Fatal(err)
	}
}

// BenchmarkExportHourLongCall renders a one-hour phone call (1,200 segments
// of 3 s, about 40,000 words) in each format: the work of one export request.
func BenchmarkExportHourLongCall(b *testing.B) {
	j := Job{ID: "bench", Type: TypePhoneCall, Status: StatusTranscribed, Audio: &AudioInfo{Duration: 3600}}
	line := strings.Repeat("Բարեւ ձեզ, ես զանգում եմ պատվերի մասին ", 4)
	for i := 0; i < 1200; i++ {
		j.Segments = append(j.Segments, Segment{Start: float64(i) * 3, End: float64(i)*3 + 2.9, Text: line, Speaker: []string{"1", "2"}[i%2]})
	}
	j.Transcription = FormatPhoneCall(j.Segments)
	for _, f := range ExportFormats {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Export(j, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
