package llm_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/adapters/llm"
)

// FuzzParse feeds the completion parser model output: it must never panic,
// and what it accepts must fit the service's limits.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"content":"{\"title\":\"Զանգ\",\"resolution\":\"Ամփոփում\"}"}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":[{"type":"text","text":"{\"title\":\"Զ\",\"resolution\":\"Ա\"}"}]}}]}`))
	f.Add([]byte(`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		title, resolution, err := llm.Parse(body)
		if err != nil {
			return
		}
		if title == "" || utf8.RuneCountInString(title) > llm.MaxTitle || strings.ContainsAny(title, "\r\n") {
			t.Errorf("title %q", title)
		}
		if resolution == "" || utf8.RuneCountInString(resolution) > llm.MaxResolution || strings.ContainsAny(resolution, "\r\n") {
			t.Errorf("resolution %q", resolution)
		}
	})
}
