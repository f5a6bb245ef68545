package domain

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"
)

// The web history's order and pages (issue 36). The history sorts by a
// call's date, checklist score or duration, either way; every sort breaks
// ties by creation time and then docId, so the order is total and a page
// ends at a HistoryKey from which the next one starts (keyset paging: a
// deep page costs what the first does, and calls created meanwhile never
// shift a later page).

// HistorySort is one of the history's orders.
type HistorySort string

// The history's orders; the zero value is the newest first.
const (
	SortNewest    HistorySort = ""
	SortOldest    HistorySort = "date-asc"
	SortScoreHigh HistorySort = "score-desc"
	SortScoreLow  HistorySort = "score-asc"
	SortLongest   HistorySort = "duration-desc"
	SortShortest  HistorySort = "duration-asc"
)

// HistorySorts lists every order, as the history offers them.
var HistorySorts = []HistorySort{SortNewest, SortOldest, SortScoreHigh, SortScoreLow, SortLongest, SortShortest}

// HistoryField is what an order sorts by before the creation time.
type HistoryField string

// The fields an order sorts by.
const (
	FieldDate     HistoryField = "date"
	FieldScore    HistoryField = "score"
	FieldDuration HistoryField = "duration"
)

// ParseHistorySort reads the history's sort parameter.
func ParseHistorySort(s string) (HistorySort, error) {
	for _, h := range HistorySorts {
		if string(h) == s {
			return h, nil
		}
	}
	return "", Invalid("invalid_sort", "sort must be one of date-asc, score-desc, score-asc, duration-desc, duration-asc or empty (newest first); got %q", clipText(s, 20))
}

// Field is what s sorts by.
func (s HistorySort) Field() HistoryField {
	switch s {
	case SortScoreHigh, SortScoreLow:
		return FieldScore
	case SortLongest, SortShortest:
		return FieldDuration
	}
	return FieldDate
}

// Ascending reports whether s lists the smallest first.
func (s HistorySort) Ascending() bool {
	return s == SortOldest || s == SortScoreLow || s == SortShortest
}

// NoValue is the sort value of a call without one: not yet measured, or
// without a scored analysis. It is below every score and duration, so such
// calls come last highest-first and first lowest-first, never mixed with
// a real 0.
const NoValue = -1

// HistoryKey is a row's place in an order: its sort value (a score or a
// duration; unused by the date orders), creation time (milliseconds, as
// stored) and docId.
type HistoryKey struct {
	Value     float64
	CreatedAt time.Time
	ID        DocID
}

// IsZero reports whether k is no key (the first page).
func (k HistoryKey) IsZero() bool { return k.ID == "" }

// KeyOf is the key of a row in order s.
func KeyOf(s HistorySort, value float64, created time.Time, id DocID) HistoryKey {
	if s.Field() == FieldDate {
		value = 0
	}
	return HistoryKey{Value: value, CreatedAt: time.UnixMilli(created.UnixMilli()).UTC(), ID: id}
}

// Before reports whether a comes before b in order s.
func (s HistorySort) Before(a, b HistoryKey) bool {
	c := compareKeys(s.Field(), a, b)
	if s.Ascending() {
		return c < 0
	}
	return c > 0
}

// compareKeys orders two keys ascending by field (the value unless by
// date), creation time, then docId: -1, 0 or 1.
func compareKeys(f HistoryField, a, b HistoryKey) int {
	if f != FieldDate && a.Value != b.Value {
		if a.Value < b.Value {
			return -1
		}
		return 1
	}
	am, bm := a.CreatedAt.UnixMilli(), b.CreatedAt.UnixMilli()
	switch {
	case am != bm:
		if am < bm {
			return -1
		}
		return 1
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// HistoryCursor is where a history page starts: after Key in Sort's
// order (the next page), or, with Back, before it (the previous page).
type HistoryCursor struct {
	Sort HistorySort
	Key  HistoryKey
	Back bool
}

const historyCursorPrefix = "h1"

// String is the cursor as a link carries it.
func (c HistoryCursor) String() string {
	dir := "a"
	if c.Back {
		dir = "b"
	}
	raw := strings.Join([]string{historyCursorPrefix, string(c.Sort), dir, strconv.FormatFloat(c.Key.Value, 'g', -1, 64),
		strconv.FormatInt(c.Key.CreatedAt.UnixMilli(), 10), string(c.Key.ID)}, ":")
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// ParseHistoryCursor reads a history link's cursor for order s; one of
// another order, or not one this service wrote, is a ValidationError.
func ParseHistoryCursor(text string, s HistorySort) (HistoryCursor, error) {
	bad := Invalid("invalid_cursor", "this page's link is not one the history gave for this order: start from the first page")
	if len(text) > 160 {
		return HistoryCursor{}, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return HistoryCursor{}, bad
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 6 || parts[0] != historyCursorPrefix || HistorySort(parts[1]) != s || (parts[2] != "a" && parts[2] != "b") || !docIDSyntax(parts[5]) {
		return HistoryCursor{}, bad
	}
	v, err := strconv.ParseFloat(parts[3], 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return HistoryCursor{}, bad
	}
	ms, err := strconv.ParseInt(parts[4], 10, 64)
	if err != nil || ms < 0 || ms > maxCursorMillis {
		return HistoryCursor{}, bad
	}
	c := HistoryCursor{Sort: s, Back: parts[2] == "b", Key: HistoryKey{Value: v, CreatedAt: time.UnixMilli(ms).UTC(), ID: DocID(parts[5])}}
	if c.String() != text {
		return HistoryCursor{}, bad
	}
	return c, nil
}

// ParseScoreBound reads a score bound of the history's filter: a number
// from 0 to 1 ("0.5", "0,5"), or a percentage ("50%"). Empty is no bound
// (nil).
func ParseScoreBound(name, text string) (*float64, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, nil
	}
	pct := strings.HasSuffix(t, "%")
	t = strings.ReplaceAll(strings.TrimSuffix(t, "%"), ",", ".")
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if pct {
		v /= 100
	}
	if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
		return nil, Invalid("invalid_score", "%s must be a score from 0 to 1 (such as 0.5) or a percentage; got %q", name, clipText(text, 20))
	}
	return &v, nil
}
