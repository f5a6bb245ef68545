package domain

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
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
		got := strings.Contains(SearchText(c.text, "", nil, ""), FoldSearch(c.q))
		if got != c.found {
			t.Errorf("%q in %q: found %v, want %v", c.q, c.text, got, c.found)
		}
	}
}

func TestSearchTextHasMetadataValuesNotKeys(t *testing.T) {
	st := SearchText("Title", "text", json.RawMessage(`{"crm":"B-77","agent":{"name":"Արամ","ext":204},"vip":true,"tags":["ա","բ"]}`), "")
	for _, want := range []string{"b-77", "արամ", "204", "true", "title", "text"} {
		if !strings.Contains(st, want) {
			t.Errorf("search text %q lacks %q", st, want)
		}
	}
	if strings.Contains(st, "crm") || strings.Contains(st, "agent") {
		t.Errorf("search text %q has metadata keys", st)
	}
	if got := SearchText("a", "b", json.RawMessage(`not json`), ""); got != "a\nb" {
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

// foldReference is the folding as first written (a byte map kept for
// every byte of the text): the reference foldedSpan and FoldSearch must
// agree with.
func foldReference(s string) (string, []int, []int) {
	var b strings.Builder
	from, to := []int{}, []int{}
	emit := func(r rune, start, end int) {
		n := b.Len()
		b.WriteRune(r)
		for i := n; i < b.Len(); i++ {
			from, to = append(from, start), append(to, end)
		}
	}
	var prev rune
	for i, r := range s {
		end := i + utf8.RuneLen(r)
		if r == utf8.RuneError {
			end = i + 1
		}
		r = unicode.ToLower(r)
		switch {
		case r == 'և':
			emit('ե', i, end)
			r = 'վ'
		case r == 'ւ' && prev == 'ե':
			r = 'վ'
		}
		emit(r, i, end)
		prev = r
	}
	return b.String(), from, to
}

// randomText draws n runes from letters that fold in every way: Armenian
// capitals, և and its spellings, a letter whose lower case is shorter in
// bytes (İ), spaces, line breaks, and bytes that are not UTF-8.
func randomText(r *rand.Rand, n int) string {
	alphabet := []string{"ե", "Ե", "ւ", "Ւ", "և", "վ", "Վ", "ր", "Ր", "ա", "ն", " ", " ", "\n", "İ", "i", "a", "\xff", "\xe0\x80", "\uFFFD", "·"}
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func TestFoldingAgreesWithReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 14))
	for range 20000 {
		text := randomText(r, 1+r.IntN(40))
		ref, from, to := foldReference(text)
		if got := FoldSearch(text); got != ref {
			t.Fatalf("FoldSearch(%q) = %q, want %q", text, got, ref)
		}
		q := randomText(r, 1+r.IntN(3))
		fq := FoldSearch(q)
		at := strings.Index(ref, fq)
		start, end, ok := foldedSpan(text, fq)
		if ok != (at >= 0) || ok && (start != from[at] || end != to[at+len(fq)-1]) {
			t.Fatalf("foldedSpan(%q, %q) = %d, %d, %v; want %v from the reference", text, fq, start, end, ok, at >= 0)
		}
	}
}

func TestSearchExcerptShowsTheSameSnippet(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 14))
	long := strings.Repeat("Բարև ձեզ, զանգում եմ պատվերի մասին։ ", 60)
	ex := SearchExcerpt("Զանգում եմ Երևանից։ "+long, "ԵՐԵՒԱՆ", SnippetRadius)
	if !strings.HasPrefix(ex, "Զանգում եմ Երևանից") || len(ex) > 400 {
		t.Fatalf("excerpt of an early match: %d bytes %q, want the text through the match and about %d characters", len(ex), ex, SnippetRadius)
	}
	if ex := SearchExcerpt(long, "Երևան", SnippetRadius); ex != "" {
		t.Fatalf("excerpt without a match: %q", ex)
	}
	for range 20000 {
		text := randomText(r, 1+r.IntN(60))
		q := randomText(r, 1+r.IntN(3))
		radius := r.IntN(8)
		ex := SearchExcerpt(text, q, radius)
		if !strings.HasPrefix(text, ex) {
			t.Fatalf("excerpt %q is not a prefix of %q", ex, text)
		}
		want, wok := FindSnippet(text, q, radius)
		got, gok := FindSnippet(ex, q, radius)
		if got != want || gok != wok {
			t.Fatalf("FindSnippet(%q, %q, %d) = %+v, %v on the excerpt %q, want %+v, %v", text, q, radius, got, gok, ex, want, wok)
		}
	}
}
