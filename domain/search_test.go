package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSearchFindsEitherSpellingOfEv(t *testing.T) {
	for _, c := range []struct {
		text, q string
		found   bool
	}{
		{"Երևան", "ԵՐԵՎԱՆ", true},
		{"Երևան", "երեվան", true},
		{"Երևան", "ԵՐԵՒԱՆ", true},
		{"Երևան", "Երևան", true},
		{"բարև ձեզ", "Բարեւ", true},
		{"Բարեւ Ձեզ", "բարև", true},
		{"ԵՎ", "և", true},
		{"Եվրոպա", "եւրոպա", true},
		{"ուրախ", "ւ", true},    // ու is left alone
		{"Երևան", "երեւ", true}, // a prefix
		{"Երևան", "երան", false},
		{"Hello World", "hello w", true},
	} {
		got := strings.Contains(SearchText(c.text, "", nil), FoldSearch(c.q))
		if got != c.found {
			t.Errorf("%q in %q: found %v, want %v", c.q, c.text, got, c.found)
		}
	}
}

func TestSearchTextHasMetadataValuesNotKeys(t *testing.T) {
	st := SearchText("Title", "text", json.RawMessage(`{"crm":"B-77","agent":{"name":"Արամ","ext":204},"vip":true,"tags":["ա","բ"]}`))
	for _, want := range []string{"b-77", "արամ", "204", "true", "title", "text"} {
		if !strings.Contains(st, want) {
			t.Errorf("search text %q lacks %q", st, want)
		}
	}
	if strings.Contains(st, "crm") || strings.Contains(st, "agent") {
		t.Errorf("search text %q has metadata keys", st)
	}
	if got := SearchText("a", "b", json.RawMessage(`not json`)); got != "a\nb" {
		t.Errorf("invalid metadata: %q", got)
	}
}

func TestFindSnippet(t *testing.T) {
	text := "Բարև ձեզ, ես զանգում եմ Երևանից պատվերի առաքման հարցով, խնդրում եմ օգնել"
	sn, ok := FindSnippet(text, "ԵՐԵՎԱՆ", 12)
	if !ok || sn.Match != "Երևան" {
		t.Fatalf("snippet %+v, %v; want the match Երևան as written", sn, ok)
	}
	if !strings.HasPrefix(sn.Before, "…") || !strings.HasSuffix(sn.After, "…") {
		t.Errorf("snippet %+v is not marked as cut on both sides", sn)
	}
	whole := strings.TrimSuffix(strings.TrimPrefix(sn.Before, "…"), "…") + sn.Match + strings.TrimSuffix(sn.After, "…")
	if !strings.Contains(text, whole) || strings.HasPrefix(strings.TrimPrefix(sn.Before, "…"), "ս ") {
		t.Errorf("snippet %q is not a piece of the text cut at spaces", whole)
	}
	if sn, ok := FindSnippet("բարեւ", "Բարև", 10); !ok || sn.Match != "բարեւ" || sn.Before != "" || sn.After != "" {
		t.Errorf("whole-text match: %+v, %v", sn, ok)
	}
	if _, ok := FindSnippet(text, "Գյումրի", 10); ok {
		t.Error("found a word that is not there")
	}
	if _, ok := FindSnippet(text, "  ", 10); ok {
		t.Error("a blank search matched")
	}
}
