package analysis

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// inWordMarks are Armenian marks written inside a word, on the stressed
// vowel (՛ emphasis, ՜ exclamation, ՞ question) or as an apostrophe (՚):
// they are dropped, so "ինչո՞վ" matches "ինչով".
var inWordMarks = map[rune]bool{'՛': true, '՜': true, '՞': true, '՚': true, '\'': true, '’': true, 'ʼ': true}

// Normalize lower-cases s, drops in-word marks, turns every other
// punctuation into a space, and writes the ligature և and the spelling եւ
// as եվ (the reformed spelling), so all three spellings compare equal.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case inWordMarks[r]:
			continue
		case r == 'և':
			b.WriteString("եվ")
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	return strings.ReplaceAll(b.String(), "եւ", "եվ")
}

// suffixes are common Armenian inflections: the plural -ներ with its case
// endings, case endings, and the definite and first-person articles; longer
// ones first so the longest wins. The plural -եր of one-syllable words and
// the article -դ are left out: too many stems end in them (պատվեր, հաճախորդ).
var suffixes = []string{
	"ներով", "ներում", "ներից", "ներին", "ների", "ները", "ներն", "ներս", "ներ",
	"ում", "ով", "ից", "ին", "ու", "ը", "ն", "ս", "ի",
}

// minStem is the shortest stem a suffix may leave, so short words such as
// "ես" or "մեր" are not cut to nothing.
const minStem = 3

// Stem strips one inflectional suffix from a normalised word.
func Stem(w string) string {
	for _, suf := range suffixes {
		if strings.HasSuffix(w, suf) && utf8.RuneCountInString(w)-utf8.RuneCountInString(suf) >= minStem {
			return strings.TrimSuffix(w, suf)
		}
	}
	return w
}

// token is a normalised word and its stem. Words are compared both ways,
// since a bare stem ending like a suffix (հաճախորդ) is cut where its
// inflected form (հաճախորդին) is not.
type token struct{ word, stem string }

// Tokens normalises s and returns its stemmed words.
func Tokens(s string) []string {
	words := strings.Fields(Normalize(s))
	for i, w := range words {
		words[i] = Stem(w)
	}
	return words
}

func tokenize(s string) []token {
	words := strings.Fields(Normalize(s))
	out := make([]token, len(words))
	for i, w := range words {
		out[i] = token{word: w, stem: Stem(w)}
	}
	return out
}

func tokenSimilarity(a, b token) float64 {
	if a.stem == b.stem || a.word == b.stem || a.stem == b.word {
		return 1
	}
	return max(similarity(a.stem, b.stem), similarity(a.word, b.word))
}

// similarity is 1 for equal tokens and falls with their edit distance; it
// is 0 when the distance is more than a short word can forgive.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	ra, rb := []rune(a), []rune(b)
	n := max(len(ra), len(rb))
	allowed := 0
	switch {
	case n >= 8:
		allowed = 2
	case n >= 4:
		allowed = 1
	}
	d := levenshtein(ra, rb, allowed)
	if d > allowed {
		return 0
	}
	return 1 - float64(d)/float64(n)
}

// levenshtein is the edit distance of a and b, or limit+1 once it is known
// to exceed limit.
func levenshtein(a, b []rune, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			best = min(best, cur[j])
		}
		if best > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// matchPhrase finds phrase (tokens) in text (tokens) in order, allowing one
// extra word between phrase words, and returns the best mean similarity.
func matchPhrase(phrase, text []token) float64 {
	if len(phrase) == 0 {
		return 0
	}
	best := 0.0
	for start := range text {
		s := tokenSimilarity(phrase[0], text[start])
		if s == 0 {
			continue
		}
		total, pos, ok := s, start, true
		for _, p := range phrase[1:] {
			found := 0.0
			next := -1
			for k := pos + 1; k <= pos+2 && k < len(text); k++ {
				if v := tokenSimilarity(p, text[k]); v > found {
					found, next = v, k
				}
			}
			if next < 0 {
				ok = false
				break
			}
			total += found
			pos = next
		}
		if ok {
			best = max(best, total/float64(len(phrase)))
		}
	}
	return best
}
