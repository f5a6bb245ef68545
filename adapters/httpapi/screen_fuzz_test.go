package httpapi

import (
	"bytes"
	"testing"
)

// FuzzFramingError feeds the length check raw header blocks: it must not
// panic and must refuse every block that has both a Content-Length and a
// Transfer-Encoding line.
func FuzzFramingError(f *testing.F) {
	for _, seed := range []string{"Host: x\r\nContent-Length: 5\r\n", "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
		"content-length: 1\r\ncontent-length: 2\r\n", "Content-Length: 1\r\nContent-Length: 1\r\n", "Transfer-Encoding: chunked\n", ":\r\n\r\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		err := framingError(raw)
		var lengths, encodings int
		for _, line := range bytes.Split(raw, []byte("\n")) {
			name, _, ok := bytes.Cut(line, []byte(":"))
			if !ok {
				continue
			}
			switch asciiLower(bytes.TrimSpace(name)) {
			case "content-length":
				lengths++
			case "transfer-encoding":
				encodings++
			}
		}
		if lengths > 0 && encodings > 0 && err == nil {
			t.Fatalf("accepted both a Content-Length and a Transfer-Encoding: %q", raw)
		}
		if lengths <= 1 && encodings == 0 && err != nil {
			t.Fatalf("refused a single length: %q: %v", raw, err)
		}
	})
}

func asciiLower(b []byte) string {
	out := bytes.Clone(b)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}
