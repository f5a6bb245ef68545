package domain

import (
	"mime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFilenameRunes bounds a kept filename, in characters.
const MaxFilenameRunes = 255

// CleanFilename is the name to keep of an uploaded file's name as a
// browser gives it: its last path element, valid UTF-8 without control
// characters, trimmed, at most MaxFilenameRunes characters. "" when
// nothing is left.
func CleanFilename(raw string) string {
	if i := strings.LastIndexAny(raw, `/\`); i >= 0 {
		raw = raw[i+1:]
	}
	raw = strings.ToValidUTF8(raw, "")
	raw = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, raw)
	raw = strings.TrimSpace(raw)
	if raw == "." || raw == ".." {
		return ""
	}
	if utf8.RuneCountInString(raw) > MaxFilenameRunes {
		raw = string([]rune(raw)[:MaxFilenameRunes])
	}
	return raw
}

// DisplayName is how people know a recording: its title, else the name of
// the file it was uploaded from, else "".
func (j *Job) DisplayName() string {
	if j.Title != "" {
		return j.Title
	}
	return j.Filename
}

// ExportName is an export's file name without quoting: the uploaded
// file's name with the format's extension in place of its own, or the
// docId for a job created through the API. Characters a file system or a
// header would trip on become "_".
func ExportName(j Job, f ExportFormat) string {
	base := j.Filename
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	base = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|;`, r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, base)
	if strings.TrimSpace(base) == "" {
		base = string(j.ID)
	}
	return base + "." + string(f)
}

// ContentDisposition is the attachment header value of a download named
// name: an ASCII fallback and, for other names, the RFC 5987 UTF-8 form
// browsers prefer.
func ContentDisposition(name string) string {
	ascii := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, name)
	v := "attachment; filename=" + strconv.Quote(ascii)
	if ascii != name {
		if enc := mime.FormatMediaType("attachment", map[string]string{"filename": name}); enc != "" {
			v += "; " + strings.TrimPrefix(enc, "attachment; ")
		}
	}
	return v
}
