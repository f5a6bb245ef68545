package extractive

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A title says what the call was about, as a person would write it: a
// short noun phrase, "Պատվերի առաքում" (the order's delivery), not a clause
// of the call. topicTitle builds it from the call's key terms: the thing
// the call keeps returning to, in the genitive, and what was done or asked
// about it, as a noun. The morphology is rough on purpose (no dictionary):
// Armenian marks case, number, articles and verb forms with endings, so a
// few dozen endings tell verb forms from nouns and group a word's forms
// under one key; the forms shown are the call's own where it has them.

// A term group is every form of one word in the transcript.
type termGroup struct {
	key         string
	tf, df      int
	first, last int // sentence index of the first and last mention
	pos         int // word index of the first mention, for ties
	verbal      int // verb forms and action nouns ("առաքվել", "առաքումը")
	weak        int // of them, -ում next to է: "ուշանում է", or "պահեստում է"
	nominative  map[string]int
	genitive    map[string]int
	actionNoun  string // an attested action noun: "առաքում", "վերադարձ"
	verbRoot    string // the root of a verb form: "արգելափակ"
	sentences   map[int]bool
}

func (g *termGroup) weight(n float64) float64 {
	return (float64(g.tf) - 0.5) * math.Log(1+n/float64(g.df))
}

func (g *termGroup) nominal() int { return g.tf - g.verbal }

// topicTitle returns the noun-phrase title, or "" when the transcript
// gives no term to build one from (it is not Armenian, or has no content
// words).
func (s *Summarizer) topicTitle(sents []sentence) string {
	if !mostlyArmenian(sents) {
		return ""
	}
	groups, order := s.termGroups(sents)
	n := float64(len(sents))
	rank := func(list []*termGroup) {
		sort.SliceStable(list, func(a, b int) bool {
			x, y := list[a], list[b]
			if wx, wy := x.weight(n), y.weight(n); wx != wy {
				return wx > wy
			}
			if nx, ny := total(x.nominative), total(y.nominative); nx != ny {
				return nx > ny // a subject or object before a place or time
			}
			if sx, sy := x.last-x.first, y.last-y.first; sx != sy {
				return sx > sy // what the call keeps returning to
			}
			return x.pos < y.pos
		})
	}
	var things, actions []*termGroup
	for _, k := range order {
		g := groups[k]
		if g.verbal > 0 && g.verbal >= g.nominal() {
			actions = append(actions, g)
		} else {
			things = append(things, g)
		}
	}
	rank(things)
	rank(actions)
	if len(things) == 0 {
		if len(actions) == 0 {
			return ""
		}
		return capitalise(actions[0].action())
	}
	thing := things[0]
	for _, a := range actions {
		// An action said once counts only where it is said of the thing.
		if a.tf >= 2 || sharesSentence(a, thing) {
			return capitalise(thing.genitiveForm() + " " + a.action())
		}
	}
	if mod := s.modifier(sents, thing, things); mod != "" {
		return capitalise(mod + " " + thing.nominativeForm())
	}
	return capitalise(thing.nominativeForm())
}

// modifier finds a genitive the call itself puts before the thing
// ("Երեւանի գրասենյակը"): the genitive form of another key term.
func (s *Summarizer) modifier(sents []sentence, thing *termGroup, things []*termGroup) string {
	others := map[string]bool{}
	for _, g := range things[1:min(len(things), 6)] {
		for form := range g.genitive {
			others[form] = true
		}
	}
	for _, st := range sents {
		ws := words(st.text)
		for i := 1; i < len(ws); i++ {
			if others[ws[i-1]] && s.nominalKey(ws[i]) == thing.key {
				return ws[i-1]
			}
		}
	}
	return ""
}

func sharesSentence(a, b *termGroup) bool {
	for i := range a.sentences {
		if b.sentences[i] {
			return true
		}
	}
	return false
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// mostlyArmenian reports whether most letters of the transcript are
// Armenian: the morphology below is Armenian's.
func mostlyArmenian(sents []sentence) bool {
	arm, all := 0, 0
	for _, st := range sents {
		for _, r := range st.text {
			if unicode.IsLetter(r) {
				all++
				if unicode.Is(unicode.Armenian, r) {
					arm++
				}
			}
		}
	}
	return all > 0 && 2*arm > all
}

// termGroups classifies every content word of the transcript and groups its
// forms; order lists the keys by first mention.
func (s *Summarizer) termGroups(sents []sentence) (map[string]*termGroup, []string) {
	groups := map[string]*termGroup{}
	var order []string
	pos := 0
	for i, st := range sents {
		ws := words(st.text)
		for k, w := range ws {
			pos++
			if !s.topical(w) {
				continue
			}
			key, root, verbal, weak := s.verbKey(ws, k)
			noun := actionNoun(w)
			switch {
			case verbal:
			case noun != "":
				key, root = stem(noun), strings.TrimSuffix(noun, "ում")
			default:
				key, root = s.nominalKey(w), w
			}
			if utf8.RuneCountInString(key) < minStem || s.stop[key] || notTopic(key) || notTopic(root) {
				continue
			}
			g := groups[key]
			if g == nil {
				g = &termGroup{key: key, first: i, pos: pos, nominative: map[string]int{}, genitive: map[string]int{}, sentences: map[int]bool{}}
				groups[key] = g
				order = append(order, key)
			}
			g.tf++
			if !g.sentences[i] {
				g.sentences[i] = true
				g.df++
			}
			g.last = i
			switch {
			case verbal:
				g.verbal++
				if weak {
					g.weak++
				}
				if g.verbRoot == "" {
					g.verbRoot = root
				}
			case noun != "":
				g.verbal++
				if g.actionNoun == "" {
					g.actionNoun = noun
				}
			default:
				if nom, ok := nominativeOf(w); ok {
					g.nominative[nom]++
				} else if strings.HasSuffix(w, "ի") || strings.HasSuffix(w, "ության") {
					g.genitive[w]++
				}
			}
		}
	}
	// A form ending in -ի said bare ("տաքսի") is a nominative, not a genitive.
	// -ում next to է is a verb ("ուշանում է") only if the word has other
	// verb forms; else it is a place ("պահեստում է": is in the warehouse).
	for _, g := range groups {
		if g.weak == g.verbal && g.actionNoun == "" {
			g.verbal, g.weak, g.verbRoot = 0, 0, ""
		}
		for form := range g.genitive {
			if g.nominative[form] > 0 {
				delete(g.genitive, form)
			}
		}
	}
	return groups, order
}

// topical reports whether w may name a topic: an Armenian content word,
// not a number.
func (s *Summarizer) topical(w string) bool {
	if utf8.RuneCountInString(w) < minStem || s.stop[w] {
		return false
	}
	for _, r := range w {
		if !unicode.Is(unicode.Armenian, r) {
			return false
		}
	}
	return true
}

// nominalKey is the key of a noun's forms: the summariser's stem, without
// the glide a final vowel takes before -ի ("մեքենայի", "մեքենան": մեքենա).
func (s *Summarizer) nominalKey(w string) string {
	k := stem(w)
	if base, ok := strings.CutSuffix(k, "յ"); ok {
		if last, _ := utf8.DecodeLastRuneInString(base); strings.ContainsRune("աոեէ", last) {
			return base
		}
	}
	return k
}

// Verb endings, longest first. A future or conditional form is կ + stem +
// personal ending; the infinitive and perfect end in -ել/-ալ; the past in
// -եց-/-աց-; the plural imperative in -եք; the passive inserts վ.
var (
	futureEndings = []string{"վենք", "վեմ", "վեն", "վի", "ենք", "եմ", "եք", "են", "ես", "անք", "աք"}
	verbEndings   = []string{
		"եցինք", "եցին", "եցիր", "եցի", "ացինք", "ացին", "ացի", "եցեք", "ացեք",
		"ելու", "ալու", "վել", "ել", "ալ", "եց", "եք", "ված",
	}
	auxiliaries = map[string]bool{}
)

func init() {
	for _, w := range strings.Fields("եմ ես է ենք եք են էի էիր էր էինք էիք էին չեմ չես չի չենք չեք չեն չէի չէր չէին") {
		auxiliaries[w] = true
	}
}

// verbKey reports whether ws[k] is a verb form, with the key its group
// shares with the word's nouns and its bare root ("առաքվել": "առաք"); weak
// marks a form that may be a noun after all (see termGroups).
func (s *Summarizer) verbKey(ws []string, k int) (key, root string, ok, weak bool) {
	w := ws[k]
	cut := func(w, ending string) (string, string, bool, bool) {
		r := strings.TrimSuffix(w, ending)
		if base, passive := strings.CutSuffix(r, "վ"); passive && utf8.RuneCountInString(base) >= minStem {
			r = base
		}
		if utf8.RuneCountInString(r) < minStem {
			return "", "", false, false
		}
		return stem(r), r, true, false
	}
	if rest, fut := strings.CutPrefix(w, "կ"); fut && utf8.RuneCountInString(rest) >= 4 {
		for _, e := range futureEndings {
			if strings.HasSuffix(rest, e) {
				return cut(rest, e)
			}
		}
	}
	if utf8.RuneCountInString(w) >= 5 {
		for _, e := range verbEndings {
			if strings.HasSuffix(w, e) {
				return cut(w, e)
			}
		}
	}
	// The present participle (-ում) next to its auxiliary: "ուշանում է",
	// "չի աշխատում", "եք օգտագործում". Alone, -ում is a place: "շենքում";
	// next to է it may be one too.
	prev, next := "", ""
	if k > 0 {
		prev = ws[k-1]
	}
	if k+1 < len(ws) {
		next = ws[k+1]
	}
	if strings.HasSuffix(w, "ում") && (auxiliaries[prev] || auxiliaries[next]) {
		ending := "ում"
		if strings.HasSuffix(w, "վում") {
			ending = "վում"
		}
		key, root, ok, _ := cut(w, ending)
		third := func(a string) bool { return a == "է" || a == "էր" }
		return key, root, ok, ok && (third(next) || (third(prev) && !auxiliaries[next]))
	}
	return "", "", false, false
}

// actionNoun returns the action noun a form of one belongs to: -ում with an
// article or a case ending ("առաքումը", "ստուգումն"), or its genitive in
// -ման ("ամրագրման": ամրագրում); "" for other words.
func actionNoun(w string) string {
	for _, e := range []string{"ումը", "ումն", "ումից", "ումով", "ումներ"} {
		if base, ok := strings.CutSuffix(w, e); ok && utf8.RuneCountInString(base) >= minStem {
			return base + "ում"
		}
	}
	for _, e := range []string{"ման", "մամբ", "մանը"} {
		if base, ok := strings.CutSuffix(w, e); ok && utf8.RuneCountInString(base) >= minStem {
			return base + "ում"
		}
	}
	return ""
}

// obliqueEndings mark a noun form that is not the nominative.
var obliqueEndings = []string{"ից", "ով", "ում", "ին", "ի", "ու", "ան", "ոջ"}

// nominativeOf returns the nominative a noun form shows, articles dropped
// ("պատվերը": պատվեր, "մեքենան": մեքենա), or false for a case form.
func nominativeOf(w string) (string, bool) {
	if base, ok := strings.CutSuffix(w, "ը"); ok {
		return base, true
	}
	if base, ok := strings.CutSuffix(w, "ն"); ok {
		if last, _ := utf8.DecodeLastRuneInString(base); strings.ContainsRune("աեէիոօն", last) {
			return base, true
		}
	}
	for _, e := range obliqueEndings {
		if strings.HasSuffix(w, e) {
			return "", false
		}
	}
	return w, true
}

// nominativeForm is how the thing is named on its own: its most frequent
// nominative in the call (the shortest on a tie, which drops a possessive
// -ս/-դ), else its key.
func (g *termGroup) nominativeForm() string {
	best, count := "", 0
	for form, c := range g.nominative {
		if c > count || (c == count && (utf8.RuneCountInString(form) < utf8.RuneCountInString(best) || (utf8.RuneCountInString(form) == utf8.RuneCountInString(best) && form < best))) {
			best, count = form, c
		}
	}
	if best == "" {
		for form := range g.genitive {
			if base, ok := strings.CutSuffix(form, "ի"); ok && (best == "" || base < best) {
				best = strings.TrimSuffix(base, "յ")
			}
		}
	}
	if best == "" {
		best = g.key
	}
	return best
}

// genitiveForm is the thing as a modifier: its genitive as the call says
// it, else made from its nominative.
func (g *termGroup) genitiveForm() string {
	best, count := "", 0
	for form, c := range g.genitive {
		if c > count || (c == count && form < best) {
			best, count = form, c
		}
	}
	if best != "" {
		return best
	}
	return genitive(g.nominativeForm())
}

// genitive makes the genitive of a nominative: -ություն → -ության, a final
// vowel takes -յի, a final -ի becomes -ու, -ի- and -ու- of a last syllable in -իր, -իվ, -ին, -ուր
// drop (պայմանագիր → պայմանագրի, հաշիվ → հաշվի, ջուր → ջրի), and
// anything else takes -ի.
func genitive(nom string) string {
	if base, ok := strings.CutSuffix(nom, "ություն"); ok {
		return base + "ության"
	}
	runes := []rune(nom)
	n := len(runes)
	switch last := runes[n-1]; {
	case strings.ContainsRune("աոեէ", last):
		return nom + "յի"
	case last == 'ի':
		return nom[:len(nom)-len("ի")] + "ու" // տաքսի → տաքսու
	}
	if n >= 3 && runes[n-2] == 'ի' && strings.ContainsRune("րվն", runes[n-1]) && runes[n-3] != 'յ' {
		return string(runes[:n-2]) + string(runes[n-1]) + "ի"
	}
	if strings.HasSuffix(nom, "ուր") && !strings.HasSuffix(nom, "յուր") {
		return strings.TrimSuffix(nom, "ուր") + "րի"
	}
	return nom + "ի"
}

// action is what was done, as a noun: the call's own action noun, else a
// noun of the same word the call uses ("վերադարձ"), else the verb's root
// with -ում ("արգելափակվել": արգելափակում).
func (g *termGroup) action() string {
	switch {
	case g.actionNoun != "":
		return g.actionNoun
	case len(g.nominative) > 0:
		return g.nominativeForm()
	case g.verbRoot != "":
		return g.verbRoot + "ում"
	}
	return g.key
}

// notTopic reports keys that name no topic of a call: times, dates,
// numbers and amounts ("չորեքշաբթի", "ժամը", "հազար"), and what every call
// does (calling, wanting, asking, hearing, helping, waiting, knowing).
func notTopic(key string) bool {
	if nonTopics[key] {
		return true
	}
	for _, p := range nonTopicPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

var nonTopics = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		երկուշաբթի երեքշաբթի չորեքշաբթի հինգշաբթի ուրբաթ շաբաթ կիրակի
		հունվար փետրվար մարտ ապրիլ մայիս հունիս հուլիս օգոստոս սեպտեմբեր հոկտեմբեր նոյեմբեր դեկտեմբեր
		ժամ ժամը րոպե վայրկյան օր օրը օրվա ամիս ամսվա տարի տարվա առավոտ առավոտյան երեկո երեկոյան գիշեր
		այսօր վաղը վաղվա երեկ անգամ դրամ դոլար եվրո
		մեկ երկու երեք չորս հինգ վեց յոթ ութ ինը տասը տաս քսան երեսուն քառասուն հիսուն
		վաթսուն յոթանասուն ութսուն իննսուն հարյուր հազար միլիոն
		առաջին երկրորդ երրորդ հաջորդ նախորդ`) {
		m[stem(normWord(w))] = true
		m[normWord(w)] = true
	}
	return m
}()

var nonTopicPrefixes = []string{
	"տասն", "զանգ", "ցանկան", "ուզ", "կարողան", "լս", "օգն", "սպաս", "հասկա", "ցավ",
	"ներող", "խնդր", "գիտ", "տեսն", "մտած",
}
