package extractive

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
)

// Armenian punctuation, by code point, since several look like Latin marks
// (։ is not a colon) and three of them sit on a word rather than after it.
const (
	armFullStop   = '\u0589' // ։ ends a sentence
	armComma      = '\u055D' // ՝
	armApostrophe = '\u055A' // ՚ inside a word
	armEmphasis   = '\u055B' // ՛ on the stressed vowel: inside a word
	armExclaim    = '\u055C' // ՜ on the stressed vowel: inside a word
	armQuestion   = '\u055E' // ՞ on the stressed vowel: inside a word
	armLigatureEw = '\u0587' // և, the ligature of ե and ւ
)

// sentenceEnds always end a sentence. '.' and ':' end one only when not
// followed by a letter or digit (3.5, 10:30, example.com): recognisers and
// Armenian typists often write ':' for ։, which it resembles.
const sentenceEnds = "\u0589?!…"

// closers may follow the end mark and still belong to the sentence.
const closers = "»\"”’')]"

// clauseBreaks split a long sentence into clauses for the title.
const clauseBreaks = ",;:—–\u055D"

// trailingPunct must not end a title or a cut resolution.
const trailingPunct = ".,;:!?…-—–«(“\"'\u0589\u055D\u055C\u055B"

// splitSentences turns a transcript into sentences: phone-call labels at line
// starts removed, split at end marks and line breaks, whitespace collapsed.
// Pieces without a letter or digit are dropped.
func splitSentences(transcript string) []sentence {
	transcript = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u2028", "\n", "\u2029", "\n").Replace(transcript)
	var out []sentence
	add := func(piece string) {
		text := strings.Join(strings.Fields(strings.Map(dropControl, piece)), " ")
		if strings.IndexFunc(text, isWordRune) < 0 {
			return
		}
		out = append(out, sentence{text: terminate(text)})
	}
	for line := range strings.SplitSeq(transcript, "\n") {
		line = stripLabel(line)
		start := 0
		for i := 0; i < len(line); {
			r, n := utf8.DecodeRuneInString(line[i:])
			i += n
			if !endsSentence(r, line, i-n, i) {
				continue
			}
			for i < len(line) { // the rest of "?!", "...", "։»"
				r, n := utf8.DecodeRuneInString(line[i:])
				if !strings.ContainsRune(sentenceEnds+".:"+closers, r) {
					break
				}
				i += n
			}
			add(line[start:i])
			start = i
		}
		add(line[start:])
	}
	return out
}

// endsSentence reports whether r, at line[at:next], ends a sentence.
func endsSentence(r rune, line string, at, next int) bool {
	if strings.ContainsRune(sentenceEnds, r) {
		return true
	}
	if r != '.' && r != ':' {
		return false
	}
	after, _ := utf8.DecodeRuneInString(line[next:])
	return next == len(line) || !(unicode.IsLetter(after) || unicode.IsDigit(after))
}

// terminate ends a sentence that has no end mark (a line break ended it), so
// sentences joined into one paragraph stay apart; Armenian text gets ։.
func terminate(text string) string {
	trimmed := strings.TrimRight(text, closers)
	last, _ := utf8.DecodeLastRuneInString(trimmed)
	if strings.ContainsRune(sentenceEnds+".:", last) {
		return text
	}
	text = strings.TrimRightFunc(text, func(r rune) bool { return strings.ContainsRune(",;—–-\u055D", r) || unicode.IsSpace(r) })
	for _, r := range text {
		if unicode.Is(unicode.Armenian, r) {
			return text + string(armFullStop)
		}
	}
	return text + "."
}

// stripLabel removes a speaker label ("Խոսնակ 1:") from the start of a line.
func stripLabel(line string) string {
	rest := strings.TrimLeftFunc(line, unicode.IsSpace)
	rest, ok := strings.CutPrefix(rest, domain.SpeakerLabel)
	if !ok {
		return line
	}
	rest = strings.TrimLeft(rest, " \t")
	rest = strings.TrimLeftFunc(rest, unicode.IsDigit)
	rest = strings.TrimLeft(rest, " \t")
	for _, colon := range []string{":", string(armFullStop)} {
		if after, ok := strings.CutPrefix(rest, colon); ok {
			return after
		}
	}
	return line // "Խոսնակ" used as a word, not a label
}

// contentTerms returns the terms of text that carry meaning: normalised,
// stemmed words that are neither stop words nor single letters.
func (s *Summarizer) contentTerms(text string) []string {
	var terms []string
	for _, w := range words(text) {
		if utf8.RuneCountInString(w) < 2 || s.stop[w] {
			continue
		}
		if t := stem(w); !s.stop[t] {
			terms = append(terms, t)
		}
	}
	return terms
}

// words splits text into normalised words. Marks that sit inside a word
// (՞ ՛ ՜ ՚ and apostrophes) are part of it and dropped by normWord, so
// "ինչո՞ւ" is "ինչու"; any other non-letter separates words.
func words(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		inWord := isWordRune(r) || isInWordMark(r)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord && start >= 0:
			out = appendWord(out, text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = appendWord(out, text[start:])
	}
	return out
}

func appendWord(out []string, w string) []string {
	if w = normWord(w); w != "" {
		out = append(out, w)
	}
	return out
}

// normWord lower-cases a word, drops in-word marks and spells the ligature
// և as ե + ւ, so both spellings of a word (և / եւ, արև / արեւ) count as one.
// Most words need none of it and are returned without copying.
func normWord(w string) string {
	clean := true
	for _, r := range w {
		if r == armLigatureEw || isInWordMark(r) || unicode.ToLower(r) != r {
			clean = false
			break
		}
	}
	if clean {
		return w
	}
	var b strings.Builder
	b.Grow(len(w) + 2)
	for _, r := range w {
		switch {
		case isInWordMark(r):
		case r == armLigatureEw:
			b.WriteString("եւ")
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// suffixes are Armenian number, case and article endings, longest first.
// Stripping them is crude, but it only has to give the forms of one word
// (պատվեր, պատվերը, պատվերի, պատվերներից) one key, not a real stem.
var suffixes = []string{
	// -ություն nouns decline on their own pattern (ծառայություն, ծառայության).
	"ությունների", "ություններ", "ությունից", "ությունը", "ությունն", "ությունում",
	"ություն", "ությանը", "ությանն", "ության", "ությամբ",
	"ներից", "ներում", "ներով", "ներին", "ների", "ները", "ներն",
	"երից", "երում", "երով", "երին", "երի", "երը", "երն",
	"ներ", "ից", "ում", "ով", "ին", "եր",
	"ի", "ը", "ն", "ս", "դ",
}

// minStem is the fewest runes a stem keeps, so short words stay whole.
const minStem = 3

// stem strips up to two endings from an Armenian word; other words are
// returned as they are.
func stem(w string) string {
	if !strings.ContainsFunc(w, func(r rune) bool { return unicode.Is(unicode.Armenian, r) }) {
		return w
	}
	for range 2 {
		stripped := false
		for _, suf := range suffixes {
			if base, ok := strings.CutSuffix(w, suf); ok && utf8.RuneCountInString(base) >= minStem {
				w, stripped = base, true
				break
			}
		}
		if !stripped {
			break
		}
	}
	return w
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isInWordMark(r rune) bool {
	switch r {
	case armApostrophe, armEmphasis, armExclaim, armQuestion, '\'', '’', '\u00AD':
		return true
	}
	return false
}

func dropControl(r rune) rune {
	if unicode.IsControl(r) && !unicode.IsSpace(r) {
		return -1
	}
	if r == '\uFEFF' || r == '\u200B' { // byte-order mark, zero-width space
		return ' '
	}
	return r
}

// joiners are words that join to what follows and must not end a title or
// start one: conjunctions and prepositions, Armenian and a few English ones.
// Armenian postpositions (համար, մասին, հետ…) close their phrase and may
// end a title, so they are not here.
var joiners = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		և եւ եվ ու որ բայց կամ թե իսկ եթե որովհետեւ քանի քանզի ապա ուստի սակայն
		ուրեմն թեեւ չնայած որպեսզի մինչեւ մինչ դեպի առանց
		and or but that so because if of to in for with the a an`) {
		m[normWord(w)] = true
	}
	return m
}()

// stopWords carry no topic: function words, pronouns, auxiliaries, and the
// greetings and fillers of phone calls. Written as spoken; normWord is
// applied when loaded. A few English and Russian fillers are included because
// Armenian speech mixes them in.
const stopWords = `
և եւ եվ ու որ է են եմ ես ենք եք էր էի էիր էին էինք էիք էլ էլի չէ այո ոչ հա հը ըհը
բայց կամ թե իսկ եթե քանի որովհետեւ քանզի ապա ուստի սակայն ուրեմն հետեւաբար թեեւ
չնայած որպեսզի մինչ մինչեւ նաեւ նույնպես
նա դա սա ինչ ինչպես ինչու ինչի ինչը ինչով ինչից ինչում ինչքան որքան
դու դուք մենք նրանք ինձ քեզ նրան մեզ ձեզ նրանց իմ իմը քո նրա մեր ձեր ձերը իր իրենց
ինքը ինքս ինքներդ ինքներս իրեն սրա դրա սրան դրան սրանք դրանք սրանից դրանից
այդ այս այն այդպես այսպես այնպես այնքան այսքան այդքան այստեղ այդտեղ այնտեղ
որտեղ երբ ով ովքեր որը որոնք ում որի որին որից որով որեւէ ոք ոչինչ ոչ-ոք
մի մեկ մեկը ամեն ամենը բոլոր բոլորը ամբողջ յուրաքանչյուր որոշ ուրիշ այլ
հետ համար մասին վրա մեջ տակ մոտ կողմից պես նման դեպի առանց շուրջ միջոցով
վերաբերյալ համաձայն ըստ դեմ փոխարեն միջեւ կապված
կա կան կար կային չկա չկան չկար չեմ չես չի չենք չեք չեն չէր չէի չէին
պետք պիտի կարող կարողա լինել լինի կլինի եղել եղավ
ուզում ուզեմ ուզեի ասում ասել ասացի ասեմ ասեք ասա անել անում արել անեմ անենք
գիտեմ գիտեք գիտես ունեմ ունես ունի ունենք ունեք ունեն ուներ ունեի ունեին որպես
միայն արդեն դեռ հենց նույնիսկ գուցե միգուցե թերեւս իհարկե հավանաբար ուղղակի
շատ քիչ ավելի պակաս հիմա այժմ հետո առաջ նորից կրկին
լավ դե ախր բա հո ալո ալլո օքեյ օկ բարեւ բարեւձեզ ցտեսություն
շնորհակալություն շնորհակալ մերսի խնդրեմ խնդրում կներեք ներեցեք
the a an and or but of to in on at for with is are was were be it this that
i you we he she they yes no ok okay hello thanks please
да нет ну вот так ладно хорошо это и в на что
`
