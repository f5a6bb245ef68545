package domain

import (
	"reflect"
	"strings"
	"testing"
)

func TestAlignWordsKeepsTheEnginesText(t *testing.T) {
	// whisper-1: words without punctuation.
	text := "Բարև ձեզ, ես զանգում եմ։ Այո։"
	words := []Word{{0, 0.4, "Բարև"}, {0.4, 0.8, "ձեզ"}, {0.9, 1.1, "ես"}, {1.1, 1.6, "զանգում"}, {1.6, 1.8, "եմ"}, {3, 3.4, "Այո"}}
	got := AlignWords(text, words)
	want := []Word{{0, 0.4, "Բարև"}, {0.4, 0.8, "ձեզ,"}, {0.9, 1.1, "ես"}, {1.1, 1.6, "զանգում"}, {1.6, 1.8, "եմ։"}, {3, 3.4, "Այո։"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	// Pieces of words (whisper.cpp tokens) take the span of their pieces.
	pieces := []Word{{0, 0.2, "Բար"}, {0.2, 0.4, "և"}, {0.4, 0.8, "ձեզ"}, {0.8, 0.8, ","}}
	if got := AlignWords("Բարև ձեզ,", pieces); !reflect.DeepEqual(got, []Word{{0, 0.4, "Բարև"}, {0.4, 0.8, "ձեզ,"}}) {
		t.Errorf("pieces: %v", got)
	}
	// Text and words that differ: matched word by word past the difference.
	got = AlignWords("Բարև ձեզ, պարոն Պետրոսյան։ Ես եմ։", []Word{{0, 0.4, "Բարև"}, {0.4, 0.8, "ձեզ"}, {1.5, 1.9, "Պետրոսյան"}, {2.5, 2.7, "Ես"}, {2.7, 2.9, "էմ"}})
	if len(got) != 6 || got[3].Start != 1.5 || got[4].Start != 2.5 || got[5].Word != "եմ։" || got[5].Start != 2.7 || got[2].Start != 0.8 {
		t.Errorf("mismatch: %v", got)
	}
	if got := AlignWords("", words); !reflect.DeepEqual(got, words) {
		t.Errorf("no text: %v", got)
	}
}

// A mono call keeps every "։" and comma through speaker labelling (the
// words carry none, as whisper-1's do).
func TestAssignSpeakersToTextKeepsPunctuation(t *testing.T) {
	text := "Բարև ձեզ, ինչո՞վ կարող եմ օգնել։ Պատվերի մասին եմ զանգում։"
	words := []Word{{0, .5, "Բարև"}, {.5, 1, "ձեզ"}, {1.1, 1.6, "ինչո՞վ"}, {1.6, 2, "կարող"}, {2, 2.2, "եմ"}, {2.2, 2.8, "օգնել"},
		{3.5, 4, "Պատվերի"}, {4, 4.4, "մասին"}, {4.4, 4.6, "եմ"}, {4.6, 5.2, "զանգում"}}
	turns := []Turn{{0, 3, "A"}, {3.3, 5.5, "B"}}
	got := FormatPhoneCall(NumberSpeakers(AssignSpeakersToText(text, words, turns)))
	want := "Խոսնակ 1: Բարև ձեզ, ինչո՞վ կարող եմ օգնել։\nԽոսնակ 2: Պատվերի մասին եմ զանգում։"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// The old path, words alone, loses them: the test above needs the text.
	if old := FormatPhoneCall(NumberSpeakers(AssignSpeakers(nil, words, turns))); strings.Contains(old, "։") {
		t.Errorf("words alone kept punctuation? %s", old)
	}
}

func TestPhrasesBreakAtPauses(t *testing.T) {
	// speaches: one 30 s voice-activity segment, words with times.
	got := Phrases("Բարև ձեզ։ Այո։ Լավ։", []Word{{0, .5, "Բարև"}, {.5, 1, "ձեզ։"}, {5, 5.5, "Այո։"}, {12, 12.4, "Լավ։"}}, 0.5)
	want := []Segment{{Start: 0, End: 1, Text: "Բարև ձեզ։"}, {Start: 5, End: 5.5, Text: "Այո։"}, {Start: 12, End: 12.4, Text: "Լավ։"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v", got)
	}
}

func TestPlanUtterances(t *testing.T) {
	speech := []Span{{0.3, 2}, {2.1, 4.8}, {5.4, 10.2}, {10.8, 80}}
	// A stereo channel: stretches, the short gap joined, the long one cut.
	got := PlanUtterances(speech, nil, 30, 81)
	if len(got) != 5 || got[0].Start != 0.15 || got[0].End != 4.95 || got[1].Start != 5.25 {
		t.Fatalf("stereo: %+v", got)
	}
	for i, p := range got {
		if p.End-p.Start > 30+2*UtterancePad || (i > 0 && p.Start < got[i-1].End) || p.End > 81 {
			t.Errorf("piece %d %+v", i, p)
		}
	}
	// A mono call: a stretch split where the speaker changes.
	turns := []Turn{{0, 3, "A"}, {3, 10.5, "B"}, {10.5, 80, "A"}}
	got = PlanUtterances([]Span{{0.3, 4.8}, {5.4, 10.2}, {10.8, 20}}, turns, 30, 0)
	var sp []string
	for _, p := range got {
		sp = append(sp, p.Speaker)
	}
	if !reflect.DeepEqual(sp, []string{"A", "B", "B", "A"}) || got[0].End != 3 || got[1].Start != 3 {
		t.Errorf("mono: %+v", got)
	}
}

func TestStitchKeepsTheEnginesText(t *testing.T) {
	// whisper.cpp wrapped a segment mid-word; its text has the word whole.
	rec := Recognition{Text: "այսօր երեկոյան կգամ։", Segments: []Segment{{Start: 0, End: 3.6, Text: "այսօր երեկոյ"}, {Start: 3.6, End: 4.6, Text: "ան կգամ։"}}}
	if got := Stitch([]ChunkResult{{End: 5, Rec: rec}}).Text; got != "այսօր երեկոյան կգամ։" {
		t.Errorf("text %q", got)
	}
}

func TestPlanUtterancesSendsNoBitTooShort(t *testing.T) {
	// A turn boundary 0.05 s before the end of a stretch, and a lone blip.
	turns := []Turn{{0, 2.95, "A"}, {2.95, 9, "B"}}
	got := PlanUtterances([]Span{{1, 3}, {6, 6.1}}, turns, 30, 0)
	if len(got) != 2 || got[0].Speaker != "A" || got[0].End < 3 || got[1].End-got[1].Start < UtteranceMinSeconds-1e-9 {
		t.Fatalf("%+v", got)
	}
}
