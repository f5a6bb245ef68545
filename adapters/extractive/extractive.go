// Package extractive is hyscribe's built-in summariser: it writes a
// transcript's title and one-paragraph summary (resolution) from the
// transcript's own sentences, in pure Go, with no model and no network.
//
// It is the default when no chat model is configured and the fallback when
// one fails (docs/architecture.md, Adapters), so it must always answer, quickly and within the
// limits: title one line of at most 80 characters, resolution one paragraph
// of at most 600 (docs/decisions.md, Transcripts). It is tuned for Armenian — phone-call speaker
// labels, Armenian punctuation, the և ligature, an Armenian stop-word list and
// a light suffix stripper — and still works on any other language.
//
// Sentences are scored by how much of the transcript's vocabulary they carry:
// the sum of TF-IDF-like weights of their content words, so a sentence made
// of words the conversation keeps returning to scores high, greetings and
// fillers score nothing. Early sentences get a small boost, since calls tend
// to state their purpose first. The summary is the best sentences in their
// original order.
//
// The title is a short noun phrase naming the topic, as a person would
// title the call ("Պատվերի առաքում"), built from the call's key terms by a
// rough Armenian morphology (topic.go): the thing the call keeps returning
// to, in the genitive, and what was done or asked about it, as a noun.
// Without such terms (a transcript not in Armenian, or without content
// words) it falls back to the best sentence, shortened to its best run of
// clauses when it is too long.
package extractive

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Limits on the output, in characters (runes): docs/decisions.md, Transcripts.
const (
	MaxTitleRunes      = 80
	MaxResolutionRunes = 600
)

const (
	// earlyBoost is the extra weight of the first sentence, fading linearly
	// to nothing at the last one.
	earlyBoost = 0.25
	// redundancy is the share of content words two sentences may have in
	// common before the lower-scoring one is left out of the summary.
	redundancy = 0.6
)

// Summarizer implements ports.Summarizer. It holds no state between calls
// and is safe for concurrent use.
type Summarizer struct {
	stop map[string]bool
}

var _ ports.Summarizer = (*Summarizer)(nil)

// New returns the summariser.
func New() *Summarizer {
	stop := make(map[string]bool, 256)
	for _, w := range strings.Fields(stopWords) {
		stop[normWord(w)] = true
	}
	return &Summarizer{stop: stop}
}

// sentence is one sentence of the transcript.
type sentence struct {
	text  string   // as shown: one line, labels removed, ends with punctuation
	terms []string // distinct content terms, in order of first appearance
	score float64
}

// Summarize returns a title naming the call's topic and a resolution made
// of the transcript's own sentences. The same transcript always gives the same result. An empty
// transcript is a permanent error: no retry can summarise it.
func (s *Summarizer) Summarize(ctx context.Context, transcript string) (title, resolution string, err error) {
	if strings.TrimSpace(transcript) == "" {
		return "", "", domain.Permanent(errors.New("transcript is empty"))
	}
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	sents := splitSentences(transcript)
	if len(sents) == 0 {
		return "", "", domain.Permanent(errors.New("transcript has no words"))
	}
	weights := s.score(sents)
	best := 0
	for i, st := range sents {
		if st.score > sents[best].score {
			best = i
		}
	}
	title = s.topicTitle(sents)
	if title == "" {
		title = s.title(sents[best], weights)
	} else if cut, ok := cutWords(title, MaxTitleRunes); ok {
		title = cut
	}
	return title, resolve(sents), nil
}

// score sets each sentence's terms and score and returns the term weights.
func (s *Summarizer) score(sents []sentence) map[string]float64 {
	tf := map[string]int{}
	df := map[string]int{}
	for i := range sents {
		seen := map[string]bool{}
		for _, t := range s.contentTerms(sents[i].text) {
			tf[t]++
			if !seen[t] {
				seen[t] = true
				df[t]++
				sents[i].terms = append(sents[i].terms, t)
			}
		}
	}
	n := float64(len(sents))
	weights := make(map[string]float64, len(tf))
	for t, f := range tf {
		// A word said often weighs more, and one said in every sentence
		// weighs less. A word said once counts half: in a conversation the
		// topic is what people come back to, not what they mention in passing.
		weights[t] = (float64(f) - 0.5) * math.Log(1+n/float64(df[t]))
	}
	for i := range sents {
		sum := 0.0
		for _, t := range sents[i].terms {
			sum += weights[t]
		}
		sents[i].score = sum * (1 + earlyBoost*(1-float64(i)/n))
	}
	return weights
}

// resolve picks the best sentences that fit in MaxResolutionRunes and
// joins them in their original order. A short transcript is not repeated
// whole: at most a quarter of its sentences are kept.
func resolve(sents []sentence) string {
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sents[order[a]].score > sents[order[b]].score })

	maxCount := max(1, (len(sents)+3)/4)
	var chosen []int
	used := 0
	for _, i := range order {
		st := sents[i]
		if len(chosen) == maxCount || (st.score <= 0 && len(chosen) > 0) {
			break
		}
		if redundant(st, sents, chosen) {
			continue
		}
		n := utf8.RuneCountInString(st.text)
		if len(chosen) > 0 {
			n++ // the joining space
		}
		if used+n > MaxResolutionRunes {
			if len(chosen) == 0 {
				// The best sentence alone is too long: keep as much of it
				// as fits, in whole words, and say that it goes on.
				return ellipsize(st.text, MaxResolutionRunes)
			}
			continue
		}
		chosen = append(chosen, i)
		used += n
	}
	sort.Ints(chosen)
	parts := make([]string, len(chosen))
	for k, i := range chosen {
		parts[k] = sents[i].text
	}
	return strings.Join(parts, " ")
}

// redundant reports whether st repeats a chosen sentence: the same text, or
// mostly the same content words.
func redundant(st sentence, sents []sentence, chosen []int) bool {
	for _, i := range chosen {
		c := sents[i]
		if strings.EqualFold(c.text, st.text) {
			return true
		}
		if len(st.terms) == 0 || len(c.terms) == 0 {
			continue
		}
		common := 0
		for _, a := range st.terms {
			for _, b := range c.terms {
				if a == b {
					common++
					break
				}
			}
		}
		union := len(st.terms) + len(c.terms) - common
		if float64(common)/float64(union) >= redundancy {
			return true
		}
	}
	return false
}

// title makes the headline from the best sentence: without its final
// punctuation or a leading conjunction, reduced to its best run of clauses
// when longer than MaxTitleRunes, cut at a word boundary if still too long,
// capitalised.
func (s *Summarizer) title(best sentence, weights map[string]float64) string {
	text := trimEnd(best.text)
	if utf8.RuneCountInString(text) > MaxTitleRunes {
		text = s.bestSpan(text, weights)
	}
	text = dropLeadingJoiner(s.dropGreeting(text))
	if cut, ok := cutWords(text, MaxTitleRunes); ok {
		text = cutBeforeJoiner(cut)
	}
	return capitalise(trimEnd(balance(text)))
}

// dropGreeting removes a first clause that carries no content ("Բարև,",
// "Այո, ...") when content follows: a title does not greet.
func (s *Summarizer) dropGreeting(text string) string {
	i := strings.IndexAny(text, clauseBreaks)
	if i < 0 {
		return text
	}
	_, n := utf8.DecodeRuneInString(text[i:])
	head, rest := text[:i], strings.TrimSpace(text[i+n:])
	if len(s.contentTerms(head)) == 0 && len(s.contentTerms(rest)) > 0 {
		return rest
	}
	return text
}

// cutBeforeJoiner shortens a title cut in the middle of a phrase to the end
// of its last complete clause: before its last conjunction ("և", "իսկ", …),
// when that keeps at least half of the title. A dangling "… and the car's"
// reads worse than a shorter, whole clause.
func cutBeforeJoiner(text string) string {
	fields := strings.Fields(text)
	for i := len(fields) - 1; i > 0; i-- {
		if joiners[normWord(fields[i])] {
			head := strings.Join(fields[:i], " ")
			if utf8.RuneCountInString(head) >= MaxTitleRunes/2 {
				return head
			}
			break
		}
	}
	return text
}

// bestSpan returns the run of consecutive clauses of text (split after
// commas, semicolons, colons and dashes) that fits in MaxTitleRunes and
// whose content words weigh most: the earliest and shortest on a tie. When
// no clause fits, it returns the weightiest clause, to be cut.
func (s *Summarizer) bestSpan(text string, weights map[string]float64) string {
	var ends []int // byte offsets just after each clause break, then len(text)
	for i, r := range text {
		if strings.ContainsRune(clauseBreaks, r) {
			ends = append(ends, i+utf8.RuneLen(r))
		}
	}
	ends = append(ends, len(text))
	terms := make([][]string, len(ends))
	for k, start := 0, 0; k < len(ends); k++ {
		terms[k] = s.contentTerms(text[start:ends[k]])
		start = ends[k]
	}
	spanScore := func(from, to int) float64 {
		seen := map[string]bool{}
		sum := 0.0
		for k := from; k <= to; k++ {
			for _, t := range terms[k] {
				if !seen[t] {
					seen[t] = true
					sum += weights[t]
				}
			}
		}
		return sum
	}

	best, bestScore := "", -1.0
	start := 0
	for i := range ends {
		for j := i; j < len(ends); j++ {
			span := trimEnd(strings.TrimSpace(text[start:ends[j]]))
			if utf8.RuneCountInString(span) > MaxTitleRunes {
				break
			}
			if sc := spanScore(i, j); sc > bestScore {
				best, bestScore = span, sc
			}
		}
		start = ends[i]
	}
	if best != "" {
		return best
	}
	start = 0
	for i := range ends {
		if sc := spanScore(i, i); sc > bestScore {
			best, bestScore = strings.TrimSpace(text[start:ends[i]]), sc
		}
		start = ends[i]
	}
	return best
}

// ellipsize cuts text to at most limit runes in whole words and marks the cut.
func ellipsize(text string, limit int) string {
	cut, _ := cutWords(text, limit-1)
	if t := trimEnd(cut); t != "" {
		cut = t
	}
	return cut + "…"
}

// cutWords shortens text to at most limit runes, ending at the end of a
// word, and reports whether it cut. Only a single word longer than limit is
// cut inside, since nothing else would fit.
func cutWords(text string, limit int) (string, bool) {
	if utf8.RuneCountInString(text) <= limit {
		return text, false
	}
	runes := []rune(text)
	for i := limit; i > 0; i-- {
		if unicode.IsSpace(runes[i]) {
			return strings.TrimRightFunc(string(runes[:i]), unicode.IsSpace), true
		}
	}
	return string(runes[:limit]), true
}

// trimEnd removes what should not end a title or a cut: punctuation, and
// words that only join to what follows (conjunctions, prepositions).
// If nothing would be left, text is returned as it was.
func trimEnd(text string) string {
	out := text
	for {
		before := out
		out = strings.TrimRightFunc(out, func(r rune) bool {
			return unicode.IsSpace(r) || strings.ContainsRune(trailingPunct, r)
		})
		if i := strings.LastIndexFunc(out, unicode.IsSpace); i >= 0 && joiners[normWord(out[i+1:])] {
			out = out[:i]
		}
		if out == before {
			break
		}
	}
	if strings.IndexFunc(out, isWordRune) < 0 {
		return text
	}
	return out
}

// dropLeadingJoiner removes a conjunction a clause starts with ("but the
// order…"), when words remain after it.
func dropLeadingJoiner(text string) string {
	first, rest, ok := strings.Cut(text, " ")
	if ok && joiners[normWord(first)] && strings.IndexFunc(rest, isWordRune) >= 0 {
		return strings.TrimSpace(rest)
	}
	return text
}

// balance removes quotes and brackets left unpaired by a cut.
func balance(text string) string {
	for _, pair := range [][2]string{{"«", "»"}, {"(", ")"}, {"“", "”"}} {
		if strings.Count(text, pair[0]) != strings.Count(text, pair[1]) {
			text = strings.NewReplacer(pair[0], "", pair[1], "").Replace(text)
		}
	}
	if strings.Count(text, `"`)%2 == 1 {
		text = strings.ReplaceAll(text, `"`, "")
	}
	return strings.Join(strings.Fields(text), " ")
}

// capitalise upper-cases the first letter.
func capitalise(text string) string {
	i := strings.IndexFunc(text, unicode.IsLetter)
	if i < 0 {
		return text
	}
	r, n := utf8.DecodeRuneInString(text[i:])
	return text[:i] + string(unicode.ToUpper(r)) + text[i+n:]
}
