package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// List columns. An account chooses which keys of its calls' metadata the
// web history shows as columns (an agent's extension, a phone number, a
// campaign), and which of them names the call's agent, whose value the
// history filters by (Account.AgentKey).

// MaxListColumns is how many metadata keys an account may show as
// history columns: a 390 px phone shows each row's columns stacked, and
// more than four crowd the title out of a desktop row.
const MaxListColumns = 4

// MaxListColumnKeyLen is the longest metadata key a column names: keys
// integrations send are short words (agent, phone, campaign).
const MaxListColumnKeyLen = 40

// ParseListColumns reads the keys an owner typed (separated by commas,
// spaces or lines) into the list kept (Account.ListColumns, joined by
// commas): each a ValidMetadataKey, no repeats, at most MaxListColumns.
// Empty text is no columns.
func ParseListColumns(text string) (string, error) {
	fields := strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' || r == ';' })
	var out []string
	for _, f := range fields {
		if err := ValidMetadataKey(f); err != nil {
			return "", err
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) > MaxListColumns {
		return "", Invalid("too_many_columns", "at most %d metadata keys may be columns; got %d", MaxListColumns, len(out))
	}
	return strings.Join(out, ","), nil
}

// ValidMetadataKey checks a key named by a list column or the agent key:
// 1 to MaxListColumnKeyLen letters, digits, '_', '-' or '.' (no commas,
// which separate the stored list, and no spaces).
func ValidMetadataKey(key string) error {
	if key == "" || len([]rune(key)) > MaxListColumnKeyLen {
		return Invalid("invalid_column_key", "a metadata key is 1 to %d characters; got %q", MaxListColumnKeyLen, clipText(key, MaxListColumnKeyLen))
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r > 127 && unicode.IsLetter(r)) {
			return Invalid("invalid_column_key", "a metadata key is made of letters, digits, _ - and .; got %q", clipText(key, MaxListColumnKeyLen))
		}
	}
	return nil
}

// ListColumnKeys are the account's list columns, in the owner's order.
func (a Account) ListColumnKeys() []string {
	if a.ListColumns == "" {
		return nil
	}
	return strings.Split(a.ListColumns, ",")
}

// MetadataValue is the text of metadata's top-level key as a column shows
// it and the agent filter compares it: a string as written, a number or
// boolean as JSON writes it; "" when absent, null, an object or an array.
func MetadataValue(metadata json.RawMessage, key string) string {
	if len(metadata) == 0 || key == "" {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(metadata, &m) != nil {
		return ""
	}
	raw, ok := m[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	t := strings.TrimSpace(string(raw))
	if t == "" || t == "null" || t[0] == '{' || t[0] == '[' {
		return ""
	}
	return t
}
