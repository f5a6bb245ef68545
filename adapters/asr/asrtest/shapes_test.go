package asrtest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
)

// TestShapesMatchTheRecordedAnswers holds every Shape to the answer
// recorded from its engine's source (../testdata/engines): the same keys
// at every level, each with the same JSON type (vLLM's duration a string,
// speaches' words null, whisper.cpp's words inside segments).
func TestShapesMatchTheRecordedAnswers(t *testing.T) {
	verbose := [][2]string{{"model", "m"}, {"language", "hy"}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "segment"}, {"timestamp_granularities[]", "word"}}
	for _, tc := range []struct {
		shape    asrtest.Shape
		fields   [][2]string
		recorded string
	}{
		{asrtest.ShapeWhisper1, verbose, "openai-whisper-1.verbose_json.json"},
		{asrtest.ShapeGPT4oTranscribe, [][2]string{{"model", "gpt-4o-transcribe"}, {"response_format", "json"}}, "openai-gpt-4o-transcribe.json.json"},
		{asrtest.ShapeGPT4oDiarize, [][2]string{{"model", "gpt-4o-transcribe-diarize"}, {"response_format", "diarized_json"}, {"chunking_strategy", "auto"}}, "openai-gpt-4o-transcribe-diarize.diarized_json.json"},
		{asrtest.ShapeAzure, verbose, "azure-whisper.verbose_json.json"},
		{asrtest.ShapeWhisperCpp, [][2]string{{"response_format", "verbose_json"}, {"split_on_word", "true"}}, "whispercpp.verbose_json.json"},
		{asrtest.ShapeSpeaches, verbose, "speaches.verbose_json.words.json"},
		{asrtest.ShapeSpeachesNoWords, verbose, "speaches.verbose_json.words-null.json"},
		{asrtest.ShapeVLLM, verbose, "vllm.verbose_json.json"},
		{asrtest.ShapeVLLM, [][2]string{{"model", "m"}, {"response_format", "json"}}, "vllm.json.json"},
		{asrtest.ShapeGroq, verbose, "groq.verbose_json.json"},
	} {
		t.Run(tc.recorded, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("..", "testdata", "engines", tc.recorded))
			if err != nil {
				t.Fatal(err)
			}
			e := asrtest.NewEngine(t, asrtest.WithShape(tc.shape), asrtest.WithScript(asrtest.ScriptedCall...))
			audio, err := os.ReadFile(asrtest.Testdata("scripted-call-mono-16k.mp3"))
			if err != nil {
				t.Fatal(err)
			}
			status, got := postTo(t, endpoint(e.URL(), tc.shape), tc.fields, audio)
			if status != http.StatusOK {
				t.Fatalf("%d %s", status, got)
			}
			if g, w := shapeOf(t, got), shapeOf(t, want); !slices.Equal(g, w) {
				t.Errorf("shape differs from the recorded answer:\n got  %s\n want %s", strings.Join(g, " "), strings.Join(w, " "))
			}
		})
	}
}

func endpoint(base string, shape asrtest.Shape) string {
	u, _ := url.Parse(base)
	if shape == asrtest.ShapeWhisperCpp {
		u.Path += "/inference"
	} else {
		u.Path += "/audio/transcriptions"
	}
	return u.String()
}

func postTo(t *testing.T, url string, fields [][2]string, audio []byte) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	w, _ := mw.CreateFormFile("file", "call.mp3")
	w.Write(audio)
	mw.Close()
	res, err := http.Post(url, mw.FormDataContentType(), &body)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// shapeOf lists every key path of a JSON document with its type, arrays'
// elements merged: "segments[].start:number".
func shapeOf(t *testing.T, doc []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("%v: %s", err, doc)
	}
	set := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			set[path+":object"] = true
			for k, c := range x {
				walk(strings.TrimPrefix(path+"."+k, "."), c)
			}
		case []any:
			set[path+":array"] = true
			for _, c := range x {
				walk(path+"[]", c)
			}
		case nil:
			set[path+":null"] = true
		default:
			set[fmt.Sprintf("%s:%T", path, x)] = true
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
