package extractive

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
)

// call is a realistic phone call: a customer whose order is late. keySentence
// is the one made of the words the call keeps returning to (order, delivery).
const (
	keySentence = "Պատվերը պետք է առաքվեր երեք օր առաջ, բայց պատվերը դեռ չի առաքվել, և ոչ ոք ինձ չի զանգել պատվերի առաքման մասին։"
	call        = `Խոսնակ 1: Բարև ձեզ, «Արմփոստ» առաքման ծառայություն, ինչո՞վ կարող եմ օգնել։
Խոսնակ 2: Բարև ձեզ։ Ես զանգում եմ իմ պատվերի առաքման հետ կապված։
Խոսնակ 1: Խնդրում եմ, ասեք պատվերի համարը։
Խոսնակ 2: Պատվերի համարը 48213 է։
Խոսնակ 1: Մի րոպե, ստուգում եմ։ Այո, տեսնում եմ ձեր պատվերը։
Խոսնակ 2: ` + keySentence + `
Խոսնակ 1: Ներողություն եմ խնդրում ուշացման համար։
Խոսնակ 1: Առաքիչը պահեստում խնդիր ուներ, և ձեր պատվերը կառաքվի վաղը ժամը տասին։
Խոսնակ 2: Իսկ կարո՞ղ եք զանգել ինձ առաքիչի գալուց առաջ։
Խոսնակ 1: Այո, իհարկե, առաքիչը կզանգի ձեզ կես ժամ առաջ։
Խոսնակ 2: Լավ, շնորհակալություն։
Խոսնակ 1: Որպես փոխհատուցում առաքման վճարը կվերադարձնենք ձեր քարտին։
Խոսնակ 2: Շատ լավ, շնորհակալ եմ։
Խոսնակ 1: Խնդրեմ, ցտեսություն։
Խոսնակ 2: Ցտեսություն։`
)

func TestSummarizeRealisticPhoneCall(t *testing.T) {
	title, resolution, err := New().Summarize(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("title: %s\nresolution: %s", title, resolution)
	checkShape(t, title, resolution)
	if !strings.Contains(resolution, keySentence) {
		t.Errorf("resolution lacks the key sentence %q", keySentence)
	}
	// The title names the topic, as a person would: the thing the call
	// keeps returning to (the order) and what is asked about it (its
	// delivery). It used to be a clause of the key sentence.
	if title != "Պատվերի առաքում" {
		t.Errorf("title %q, want the topic Պատվերի առաքում", title)
	}
	for _, filler := range []string{"ցտեսություն", "Ցտեսություն", "շնորհակալ", "Բարև ձեզ։"} {
		if strings.Contains(resolution, filler) {
			t.Errorf("resolution keeps the filler %q", filler)
		}
	}
}

// Titles are noun phrases naming the topic: the thing in the genitive and
// what was done about it, each in the form the call uses where it has one.
func TestTitleIsANounPhraseOfTheTopic(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Խոսնակ 1: Ուզում եմ երկարաձգել պայմանագիրը։\nԽոսնակ 2: Պայմանագիրը կերկարաձգենք մեկ տարով։\nԽոսնակ 1: Պայմանագիրս ավարտվում է մայիսին։",
			"Պայմանագրի երկարաձգում"}, // no genitive said: made, the ի of -իր dropped
		{"Խոսնակ 1: Մեքենայի արգելակները ձայն են հանում, ուզում եմ ստուգել։\nԽոսնակ 2: Մեքենան բերեք վաղը, ստուգումը անվճար է։",
			"Մեքենայի ստուգում"}, // the call's own genitive and action noun
		{"Երևանում գրասենյակը մեծ է, Երեւանի գրասենյակը նոր է։ Գրասենյակը կենտրոնում է։",
			"Երեւանի գրասենյակ"}, // no action: the genitive the call puts before the thing
		{"The order was delayed. The order will arrive tomorrow morning.",
			"Order will arrive tomorrow morning"}, // not Armenian: a clause, as before
	} {
		title, _, err := New().Summarize(t.Context(), tc.in)
		if err != nil || title != tc.want {
			t.Errorf("title %q, %v; want %q for %q", title, err, tc.want, tc.in)
		}
	}
}

func TestGenitive(t *testing.T) {
	for nom, want := range map[string]string{
		"պատվեր": "պատվերի", "մեքենա": "մեքենայի", "պայմանագիր": "պայմանագրի", "հաշիվ": "հաշվի",
		"սակագին": "սակագնի", "ջուր": "ջրի", "հյուր": "հյուրի", "ծառայություն": "ծառայության",
		"տաքսի": "տաքսու", "ռադիո": "ռադիոյի", "կոշիկներ": "կոշիկների",
	} {
		if got := genitive(nom); got != want {
			t.Errorf("genitive(%q) = %q, want %q", nom, got, want)
		}
	}
}

func TestEmptyTranscriptIsAPermanentError(t *testing.T) {
	for _, in := range []string{"", "   ", "\n\t \r\n"} {
		_, _, err := New().Summarize(t.Context(), in)
		if err == nil || err.Error() != "transcript is empty" || !domain.IsPermanent(err) {
			t.Errorf("Summarize(%q) error = %v, want permanent \"transcript is empty\"", in, err)
		}
	}
	_, _, err := New().Summarize(t.Context(), "Խոսնակ 1:\nԽոսնակ 2: ...\n«»")
	if err == nil || !domain.IsPermanent(err) {
		t.Errorf("labels and punctuation only: error = %v, want a permanent error", err)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := New().Summarize(ctx, call); err == nil {
		t.Error("Summarize ignored a cancelled context")
	}
}

func TestLabelsRemovedTextKept(t *testing.T) {
	in := "Խոսնակ 1: Մեքենան դեռ կանգնած է ավտոտնակում։\n  Խոսնակ 2 : Մեքենան վերանորոգված չէ, մեքենան սպասում է մասերի։\nԽոսնակ 1։ Մեքենայի մասերը կգան վաղը։"
	title, resolution, err := New().Summarize(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{title, resolution} {
		if strings.Contains(out, "Խոսնակ") || strings.Contains(out, "1:") || strings.Contains(out, "2 :") {
			t.Errorf("label left in %q", out)
		}
		if !strings.Contains(strings.ToLower(out), "մեքենա") {
			t.Errorf("text lost with the label: %q", out)
		}
	}
	// "Խոսնակ" as a word is not a label.
	if got := stripLabel("Խոսնակը հայտարարեց։"); got != "Խոսնակը հայտարարեց։" {
		t.Errorf("stripLabel removed a word: %q", got)
	}
}

func TestSplitSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Բարև։ Ինչպե՞ս ես։", []string{"Բարև։", "Ինչպե՞ս ես։"}},
		{"Ի՛նչ լավ է։Գնանք", []string{"Ի՛նչ լավ է։", "Գնանք։"}}, // ՛ and ՞ sit inside words
		{"Ինչո՞ւ։ Որովհետև!", []string{"Ինչո՞ւ։", "Որովհետև!"}},
		{"Գինը 3.5 դոլար է. Ժամը 10:30 է", []string{"Գինը 3.5 դոլար է.", "Ժամը 10:30 է։"}},
		{"Այո: Ոչ", []string{"Այո:", "Ոչ։"}}, // ':' written for ։
		{"Նա ասաց «Գալիս եմ։» Հետո գնաց", []string{"Նա ասաց «Գալիս եմ։»", "Հետո գնաց։"}},
		{"Սպասեք...   իսկ հիմա?!\nնոր տող", []string{"Սպասեք...", "իսկ հիմա?!", "նոր տող։"}},
		{"Hello there\r\nsecond line, with comma,", []string{"Hello there.", "second line, with comma."}},
		{"Խոսնակ 1: Այո։\nԽոսնակ 2: — ։\n\n", []string{"Այո։"}},
	} {
		var got []string
		for _, s := range splitSentences(tc.in) {
			got = append(got, s.text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("splitSentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestWordsNormalise(t *testing.T) {
	got := words("Ինչո՞ւ ԵՎ Սև «արև», արեւ, և Ի՛նչ աշխարհ՚ OK")
	want := []string{"ինչու", "եվ", "սեւ", "արեւ", "արեւ", "եւ", "ինչ", "աշխարհ", "ok"}
	if !slices.Equal(got, want) {
		t.Errorf("words\n got %q\nwant %q", got, want)
	}
	s := New()
	if !s.stop["եւ"] || len(s.contentTerms("և եւ ու Ու ԵՎ")) != 0 {
		t.Error("the conjunction և / եւ is not a stop word in both spellings")
	}
}

func TestLigatureSpellingsAreOneWord(t *testing.T) {
	s := New()
	sents := splitSentences("Մեր գրասենյակը տեղափոխվել է Երևան։\nԵրեւանում նոր գրասենյակը մեծ է։\nԵրեւանի կենտրոնում ենք։\nԵս և դու և նա և մենք։\nԿատուն քնած էր։")
	s.score(sents)
	if !slices.Contains(sents[0].terms, "երեւա") || !slices.Contains(sents[1].terms, "երեւա") || !slices.Contains(sents[2].terms, "երեւա") {
		t.Errorf("Երևան / Երեւանում / Երեւանի are not one term: %q, %q, %q", sents[0].terms, sents[1].terms, sents[2].terms)
	}
	if len(sents[3].terms) != 0 || sents[3].score != 0 {
		t.Errorf("a sentence of pronouns and և scored %v with terms %q", sents[3].score, sents[3].terms)
	}
	title, _, err := s.Summarize(t.Context(), "Ես և դու և նա և մենք և դուք։\nԵրևանում գրասենյակը մեծ է, Երեւանի գրասենյակը նոր է։\nԿատուն քնած էր։")
	if err != nil || !strings.Contains(title, "գրասենյակ") {
		t.Errorf("title = %q, %v; want the office sentence", title, err)
	}
}

func TestResolutionKeepsSentenceOrder(t *testing.T) {
	// Later sentences carry the topic; the summary must still read in order.
	in := strings.Join([]string{
		"Երեկ եղանակը լավ էր։",
		"Կատուն քնած էր պատուհանի մոտ։",
		"Հաշիվը սխալ է, հաշվի գումարը կրկնակի է գանձվել։",
		"Ես նայեցի հեռուստացույց։",
		"Հաշվի սխալը պետք է ուղղել, գումարը վերադարձնել քարտին։",
		"Մենք գնացինք այգի։",
		"Բանկը խոստացավ ստուգել հաշիվը և գումարը։",
		"Երեկոյան անձրև եկավ։",
		"Գումարը կվերադարձվի հաշվին երեք օրում, հաշվի սխալի պատճառով։",
	}, "\n")
	_, resolution, err := New().Summarize(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	texts := sentenceTexts(in)
	if !isOrderedJoin(resolution, texts) {
		t.Errorf("resolution is not whole sentences in their order:\n%s", resolution)
	}
	if !strings.Contains(resolution, "Գումարը կվերադարձվի") || strings.Contains(resolution, "Կատուն") {
		t.Errorf("resolution picked the wrong sentences: %s", resolution)
	}
}

func TestLongSentenceIsCutAtAWordWithEllipsis(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ws []string
	for range 400 {
		ws = append(ws, randomWord(rng))
	}
	in := strings.Join(ws, " ") // no punctuation at all
	title, resolution, err := New().Summarize(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	checkShape(t, title, resolution)
	if !strings.HasSuffix(resolution, "…") {
		t.Errorf("cut resolution does not end with …: %q", resolution)
	}
	if body := strings.TrimSuffix(resolution, "…"); !strings.HasPrefix(in, body) || in[len(body)] != ' ' {
		t.Errorf("resolution is not the text cut at a word boundary: %q", resolution)
	}
	if n := utf8.RuneCountInString(resolution); n < MaxResolutionRunes-20 {
		t.Errorf("resolution has %d runes: the cut wasted room", n)
	}
}

func TestTitleHasNoTrailingJoinerOrPunctuation(t *testing.T) {
	s := New()
	for _, in := range []string{
		"Վարորդը վաղը կբերի բեռը պահեստ և կզանգի մենեջերին բեռի մասին, բայց բեռի փաստաթղթերը դեռ պատրաստ չեն և",
		"Բեռը, բեռի փաստաթղթերը, բեռի ապահովագրությունը, բեռի մաքսազերծումը, բեռի հասցեն ու",
		"Բեռը սպասում է մաքսատանը որովհետև բեռի փաստաթղթերը սխալ են լրացվել բեռ ուղարկողի կողմից որ",
	} {
		title, _, err := s.Summarize(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		ws := strings.Fields(title)
		last := ws[len(ws)-1]
		if joiners[normWord(last)] {
			t.Errorf("title %q ends with the joiner %q", title, last)
		}
		if r, _ := utf8.DecodeLastRuneInString(title); strings.ContainsRune(trailingPunct, r) {
			t.Errorf("title %q ends with punctuation", title)
		}
		if utf8.RuneCountInString(title) > MaxTitleRunes {
			t.Errorf("title %q too long", title)
		}
	}
}

func TestDeterministic(t *testing.T) {
	s := New()
	t1, r1, _ := s.Summarize(t.Context(), call)
	for range 20 {
		t2, r2, _ := New().Summarize(t.Context(), call)
		if t1 != t2 || r1 != r2 {
			t.Fatalf("different results for one transcript:\n%q %q\n%q %q", t1, r1, t2, r2)
		}
	}
}

// TestLimitsHoldForGeneratedTranscripts is a property test over many
// generated transcripts of every shape.
func TestLimitsHoldForGeneratedTranscripts(t *testing.T) {
	s := New()
	rng := rand.New(rand.NewPCG(20240601, 7))
	for i := range 400 {
		in := randomTranscript(rng, i%6)
		title, resolution, err := s.Summarize(t.Context(), in)
		if err != nil {
			t.Fatalf("case %d: %v\n%s", i, err, in)
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("case %d (mode %d): %s\ntitle: %q\nresolution: %q\ninput: %q", i, i%6, fmt.Sprintf(format, args...), title, resolution, in)
		}
		if msg := shapeProblem(title, resolution); msg != "" {
			fail("%s", msg)
		}
		inputWords := map[string]bool{}
		for _, w := range words(in) {
			inputWords[w] = true
		}
		for _, w := range words(resolution) {
			if !inputWords[w] {
				fail("word %q is not a word of the input: cut inside a word?", w)
			}
		}
		for _, w := range words(title) {
			if !formOfSome(w, inputWords) {
				fail("title word %q is no form of a word of the input", w)
			}
		}
		texts := sentenceTexts(in)
		if !isOrderedJoin(resolution, texts) && !isCutSentence(resolution, texts) {
			fail("resolution is neither whole sentences in order nor one sentence cut with …")
		}
		if !isRunOfSomeSentence(words(title), texts) && len(strings.Fields(title)) > 2 {
			fail("title is neither a noun phrase of two words nor a run of words of one sentence")
		}
		if tw := strings.Fields(title); len(tw) > 1 && joiners[normWord(tw[len(tw)-1])] {
			fail("title ends with a joiner")
		}
		if t2, r2, _ := s.Summarize(t.Context(), in); t2 != title || r2 != resolution {
			fail("not deterministic")
		}
	}
}

func BenchmarkSummarize10kWords(b *testing.B) {
	in := benchTranscript(10_000)
	s := New()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if _, _, err := s.Summarize(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// formOfSome reports whether w is a form of one of the words: the same
// consonants as its beginning but for an ending, vowels aside (Armenian drops a vowel when it
// inflects: հաշիվ → հաշվի, ջուր → ջրի), a future prefix կ- aside. It
// catches a word cut in the middle or made up, not a wrong ending.
func formOfSome(w string, words map[string]bool) bool {
	if words[w] {
		return true
	}
	sk := skeleton(w)
	if len(sk) == 0 { // vowels only: the same first two
		head := string([]rune(w)[:min(2, utf8.RuneCountInString(w))])
		for v := range words {
			if strings.HasPrefix(v, head) {
				return true
			}
		}
		return false
	}
	need := max(min(3, len(sk)-1), 1) // the last consonant may be the new ending
	for v := range words {
		for _, cand := range []string{v, strings.TrimPrefix(v, "կ")} {
			vs := skeleton(cand)
			k := 0
			for k < len(sk) && k < len(vs) && sk[k] == vs[k] {
				k++
			}
			if k >= need && need > 0 {
				return true
			}
		}
	}
	return false
}

// skeleton is a word's consonants but the glide յ.
func skeleton(w string) []rune {
	var out []rune
	for _, r := range w {
		if !strings.ContainsRune("աեէըիոօւյaeiouy", r) { // յ: the glide of -յի
			out = append(out, r)
		}
	}
	return out
}

// checkShape asserts the output limits.
func checkShape(t *testing.T, title, resolution string) {
	t.Helper()
	if msg := shapeProblem(title, resolution); msg != "" {
		t.Errorf("%s\ntitle: %q\nresolution: %q", msg, title, resolution)
	}
}

func shapeProblem(title, resolution string) string {
	for _, o := range []struct {
		name, text string
		limit      int
	}{{"title", title, MaxTitleRunes}, {"resolution", resolution, MaxResolutionRunes}} {
		switch {
		case o.text == "":
			return o.name + " is empty"
		case utf8.RuneCountInString(o.text) > o.limit:
			return fmt.Sprintf("%s has %d runes, over %d", o.name, utf8.RuneCountInString(o.text), o.limit)
		case strings.ContainsAny(o.text, "\n\r\t\u2028\u2029"), strings.Contains(o.text, "  "), strings.TrimSpace(o.text) != o.text:
			return o.name + " is not one clean line"
		case strings.Contains(o.text, domain.SpeakerLabel):
			return o.name + " keeps a speaker label"
		case !utf8.ValidString(o.text):
			return o.name + " is not valid UTF-8"
		}
	}
	return ""
}

func sentenceTexts(in string) []string {
	var texts []string
	for _, s := range splitSentences(in) {
		texts = append(texts, s.text)
	}
	return texts
}

// isOrderedJoin reports whether r is some of texts, in their order, joined
// by single spaces.
func isOrderedJoin(r string, texts []string) bool {
	var walk func(rest string, from int) bool
	walk = func(rest string, from int) bool {
		for i := from; i < len(texts); i++ {
			after, ok := strings.CutPrefix(rest, texts[i])
			if !ok {
				continue
			}
			if after == "" {
				return true
			}
			if next, ok := strings.CutPrefix(after, " "); ok && walk(next, i+1) {
				return true
			}
		}
		return false
	}
	return walk(r, 0)
}

// isCutSentence reports whether r is the start of one of texts, ending at a
// word boundary and marked with "…".
func isCutSentence(r string, texts []string) bool {
	body, ok := strings.CutSuffix(r, "…")
	if !ok {
		return false
	}
	for _, t := range texts {
		if strings.HasPrefix(t, body) && len(t) > len(body) {
			return true
		}
	}
	return false
}

// isRunOfSomeSentence reports whether ws occur consecutively in one text.
func isRunOfSomeSentence(ws []string, texts []string) bool {
	for _, t := range texts {
		tw := words(t)
		for i := 0; i+len(ws) <= len(tw); i++ {
			if slices.Equal(tw[i:i+len(ws)], ws) {
				return true
			}
		}
	}
	return false
}

var (
	lowerArmenian = []rune("աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ")
	englishWords  = []string{"OK", "email", "iPhone", "Visa", "online", "app"}
)

func randomWord(rng *rand.Rand) string {
	switch rng.IntN(40) {
	case 0:
		return englishWords[rng.IntN(len(englishWords))]
	case 1:
		return fmt.Sprint(rng.IntN(100000))
	case 2:
		return "և"
	}
	n := 1 + rng.IntN(11)
	rs := make([]rune, 0, n+1)
	for range n {
		rs = append(rs, lowerArmenian[rng.IntN(len(lowerArmenian))])
	}
	if rng.IntN(8) == 0 {
		rs = append(rs, 'և')
	}
	if rng.IntN(10) == 0 {
		rs = slices.Insert(rs, rng.IntN(len(rs))+1, []rune{'՞', '՛', '՜', '՚'}[rng.IntN(4)])
	}
	if rng.IntN(5) == 0 {
		rs[0] = []rune(strings.ToUpper(string(rs[0])))[0]
	}
	return string(rs)
}

// randomTranscript makes a transcript of one of six shapes: labelled
// phone-call lines, a single-voice paragraph, one very long sentence, lines
// without punctuation, a few repeated sentences, and messy whitespace.
func randomTranscript(rng *rand.Rand, mode int) string {
	vocab := make([]string, 5+rng.IntN(60)) // small vocabularies make repeats
	for i := range vocab {
		vocab[i] = randomWord(rng)
	}
	word := func() string {
		if rng.IntN(3) == 0 {
			return randomWord(rng)
		}
		return vocab[rng.IntN(len(vocab))]
	}
	sentence := func(maxWords int, punct bool) string {
		n := 1 + rng.IntN(maxWords)
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(word())
			if punct && i < n-1 && rng.IntN(8) == 0 {
				b.WriteString([]string{",", "՝", ";", " —"}[rng.IntN(4)])
			}
		}
		s := b.String()
		if punct {
			s += []string{"։", "։", "?", "!", ".", "…", "?!", "", "։»"}[rng.IntN(9)]
			if strings.HasSuffix(s, "»") {
				s = "«" + s
			}
		}
		return s
	}
	var lines []string
	switch mode {
	case 0: // phone call
		for i := range 1 + rng.IntN(30) {
			line := fmt.Sprintf("Խոսնակ %d: ", i%2+1)
			for range 1 + rng.IntN(3) {
				line += sentence(20, true) + " "
			}
			lines = append(lines, line)
		}
	case 1: // single voice
		var b strings.Builder
		for range 1 + rng.IntN(40) {
			b.WriteString(sentence(30, true) + " ")
		}
		lines = append(lines, b.String())
	case 2: // one very long sentence, no punctuation
		lines = append(lines, sentence(1500, false))
	case 3: // lines without punctuation
		for range 1 + rng.IntN(20) {
			lines = append(lines, sentence(60, false))
		}
	case 4: // repeats
		base := []string{sentence(15, true), sentence(15, true)}
		for range 1 + rng.IntN(10) {
			lines = append(lines, base[rng.IntN(2)])
		}
	case 5: // messy whitespace and labels with odd spacing
		for range 1 + rng.IntN(15) {
			lines = append(lines, "  Խոսնակ 2 :\t"+sentence(25, true)+"   \t"+sentence(10, true)+"\r")
		}
	}
	return strings.Join(lines, "\n")
}

// benchTranscript is a phone call of about n words drawn from a Zipf
// vocabulary, as speech is.
func benchTranscript(n int) string {
	rng := rand.New(rand.NewPCG(42, 42))
	vocab := make([]string, 2000)
	for i := range vocab {
		vocab[i] = randomWord(rng)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	var b strings.Builder
	written := 0
	for turn := 0; written < n; turn++ {
		fmt.Fprintf(&b, "Խոսնակ %d: ", turn%2+1)
		for range 1 + rng.IntN(3) {
			k := 4 + rng.IntN(16)
			for i := range k {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(vocab[zipf.Uint64()])
			}
			written += k
			b.WriteString("։ ")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
