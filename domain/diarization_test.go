package domain

import (
	"reflect"
	"strings"
	"testing"
)

func TestAssignSpeakers(t *testing.T) {
	turns := []Turn{{0, 2, "B"}, {2, 4, "A"}, {4.5, 6, "B"}}
	cases := []struct {
		name  string
		segs  []Segment
		words []Word
		want  []Segment
	}{
		{"words split a segment across a change of speaker", []Segment{{Start: 0, End: 4, Text: "ա բ գ դ"}},
			[]Word{{0.1, 0.9, "ա"}, {1, 1.9, "բ"}, {2.1, 2.9, "գ"}, {3, 3.9, "դ"}},
			[]Segment{{0.1, 1.9, "ա բ", "B", ""}, {2.1, 3.9, "գ դ", "A", ""}}},
		{"a word across a boundary goes where most of it is", nil,
			[]Word{{1.5, 2.9, "ե"}, {4.2, 4.4, "զ"}, {5, 7, "է"}},
			[]Segment{{1.5, 2.9, "ե", "A", ""}, {4.2, 7, "զ է", "B", ""}}},
		{"a word in a gap goes to the nearest turn", nil,
			[]Word{{4.3, 4.4, "ը"}},
			[]Segment{{4.3, 4.4, "ը", "B", ""}}},
		{"without words whole segments are assigned, in time order", []Segment{{Start: 4.6, End: 5.5, Text: "երկու"}, {Start: 0, End: 1.9, Text: "մեկ"}}, nil,
			[]Segment{{0, 1.9, "մեկ", "B", ""}, {4.6, 5.5, "երկու", "B", ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := AssignSpeakers(c.segs, c.words, turns); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
	if got := AssignSpeakers([]Segment{{Start: 0, End: 1, Text: "x"}}, nil, nil); got[0].Speaker != "A" {
		t.Fatalf("no turns: %+v", got)
	}
}

func TestAssignedCallFormatsTwoSpeakersInOrder(t *testing.T) {
	turns := []Turn{{0, 2, "B"}, {2, 4, "A"}, {4, 6, "B"}}
	words := []Word{{0.5, 1, "Բարև"}, {2.5, 3, "Ողջույն"}, {4.5, 5, "Ցտեսություն"}}
	got := FormatPhoneCall(NumberSpeakers(AssignSpeakers(nil, words, turns)))
	want := "Խոսնակ 1: Բարև\nԽոսնակ 2: Ողջույն\nԽոսնակ 1: Ցտեսություն"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestStitch(t *testing.T) {
	// Three pieces cut at silences; the second and third start one frame
	// early (warm-up audio the previous piece already has).
	chunks := []ChunkResult{
		{Offset: -0.05, From: -0.05, End: 600, Rec: Recognition{Text: "ա բ", Language: "hy", Segments: []Segment{{Start: 0, End: 599, Text: "ա բ"}},
			Words: []Word{{0.01, 2, "ա"}, {598, 599, "բ"}}}},
		{Offset: 599.9, From: 600, End: 1200, Rec: Recognition{Text: "հմ գ", Segments: []Segment{{Start: 0, End: 0.1, Text: "հմ"}, {Start: 0.6, End: 3.1, Text: "գ"}},
			Words: []Word{{0, 0.1, "հմ"}, {0.6, 3.1, "գ"}}}},
		{Offset: 1199.9, From: 1200, End: 1300, Rec: Recognition{Text: "դ", Segments: []Segment{{Start: 99, End: 101, Text: "դ"}},
			Words: []Word{{99.1, 101, "դ"}}}},
	}
	got := Stitch(chunks)
	wantWords := []Word{{0, 1.95, "ա"}, {597.95, 598.95, "բ"}, {600.5, 603, "գ"}, {1299, 1300, "դ"}}
	if len(got.Words) != len(wantWords) {
		t.Fatalf("words %+v", got.Words)
	}
	for i, w := range got.Words {
		if w.Word != wantWords[i].Word || abs(w.Start-wantWords[i].Start) > 1e-9 || abs(w.End-wantWords[i].End) > 1e-9 {
			t.Fatalf("word %d: %+v, want %+v", i, w, wantWords[i])
		}
	}
	if got.Text != "ա բ գ դ" || got.Duration != 1300 || got.Language != "hy" || len(got.Segments) != 3 {
		t.Fatalf("stitched %+v", got)
	}
}

func abs(v float64) float64 { return max(v, -v) }

func TestPlanChunks(t *testing.T) {
	// 10 s pieces at most; silences (cut candidates) scored by quietness.
	quiet := []Span{{7, 7.5}, {9, 9.2}, {15, 16}, {24, 24.1}}
	got := PlanChunks(30, 10, quiet)
	want := []Span{{0, 7.25}, {7.25, 15.5}, {15.5, 24.05}, {24.05, 30}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := PlanChunks(30, 10, nil); !reflect.DeepEqual(got, []Span{{0, 10}, {10, 20}, {20, 30}}) {
		t.Fatalf("no silences: %v", got)
	}
	if got := PlanChunks(5, 10, nil); !reflect.DeepEqual(got, []Span{{0, 5}}) {
		t.Fatalf("short: %v", got)
	}
}

func TestSettleChanges(t *testing.T) {
	// w lays words out one after another: each is 0.4 s, followed by the
	// given gap.
	w := func(gaps ...float64) []Word {
		var out []Word
		at := 0.0
		for i, g := range gaps {
			out = append(out, Word{Start: at, End: at + 0.4, Word: string(rune('ա' + i))})
			at += 0.4 + g
		}
		return out
	}
	cases := []struct {
		name     string
		words    []Word
		speakers string // one letter per word
		want     string
	}{
		// The case: the change comes a word late, after the pause.
		{"a late change moves back to the pause", w(0.02, 0.02, 0.3, 0.02, 0.02), "AAAABB", "AAABBB"},
		{"an early change moves on to the pause", w(0.02, 0.02, 0.3, 0.02, 0.02), "AABBBB", "AAABBB"},
		{"two words late", w(0.02, 0.3, 0.02, 0.02, 0.02), "AAAABB", "AABBBB"},
		{"three words late, beyond WordShift: stays", w(0.02, 0.3, 0.02, 0.02, 0.02, 0.02), "AAAAABB", "AAAAABB"},
		{"a change at a pause stays", w(0.02, 0.3, 0.02, 0.02), "AABBB", "AABBB"},
		{"the widest pause wins", w(0.2, 0.02, 0.5, 0.02), "AABBB", "AAABB"},
		{"no pause within reach: stays", w(0.02, 0.02, 0.02, 0.02, 0.02, 0.02, 0.5), "AAABBBBB", "AAABBBBB"},
		{"each side keeps a word", w(0.3, 0.02, 0.02), "ABBB", "ABBB"},
		{"a back-channel between pauses stays its own", w(0.3, 0.3, 0.02), "ABAA", "ABAA"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp := strings.Split(c.speakers, "")
			SettleChanges(c.words, sp)
			if got := strings.Join(sp, ""); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestAssignSpeakersSettlesALateChangeAtThePause(t *testing.T) {
	// The diarizer's change comes 0.6 s late: "Իհարկե," would close the
	// first speaker's line although a 0.3 s pause comes before it.
	turns := []Turn{{0, 3.1, "A"}, {3.1, 5, "B"}}
	words := []Word{{0, 0.5, "և"}, {0.52, 1.2, "միացնել"}, {1.22, 2, "ինտերնետը։"}, {2.3, 3, "Իհարկե,"}, {3.02, 3.6, "խնդրում"}, {3.62, 4, "եմ"}}
	got := FormatPhoneCall(NumberSpeakers(AssignSpeakers(nil, words, turns)))
	want := "Խոսնակ 1: և միացնել ինտերնետը։\nԽոսնակ 2: Իհարկե, խնդրում եմ"
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
