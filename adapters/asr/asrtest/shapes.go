package asrtest

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"unicode"
)

// Shape makes the engine speak as one real engine does: its path, its
// key header, what it refuses and the exact shape of its answer, as the
// engine's own source writes it (adapters/asr/testdata/engines/README.md
// cites the files; the recorded answers there are the same shapes).
type Shape string

// The engines hyscribe has a profile for.
const (
	ShapeDefault Shape = "" // this package's own engine: verbose_json as OpenAI documents it
	// ShapeWhisper1 is OpenAI whisper-1: verbose_json, words without punctuation.
	ShapeWhisper1 Shape = "openai-whisper-1"
	// ShapeGPT4oTranscribe is OpenAI gpt-4o(-mini)-transcribe: json only;
	// verbose_json and timestamp granularities refused with a 400.
	ShapeGPT4oTranscribe Shape = "openai-gpt-4o-transcribe"
	// ShapeGPT4oDiarize is gpt-4o-transcribe-diarize: diarized_json with
	// speaker-labelled segments; chunking_strategy required over 30 s.
	ShapeGPT4oDiarize Shape = "openai-gpt-4o-transcribe-diarize"
	// ShapeAzure is Azure OpenAI's whisper deployment: the deployment path,
	// api-version required (404 without), the key in api-key.
	ShapeAzure Shape = "azure"
	// ShapeWhisperCpp is whisper.cpp's server: POST /inference, segments
	// wrapped at 60 characters on a token boundary unless split_on_word,
	// tokens as "words", text = segments joined by newlines.
	ShapeWhisperCpp Shape = "whispercpp"
	// ShapeSpeaches is speaches: voice-activity clips of up to 30 s as
	// segments, words only when asked for.
	ShapeSpeaches Shape = "speaches"
	// ShapeSpeachesNoWords is speaches answering "words": null even when
	// asked (speaches issue #639).
	ShapeSpeachesNoWords Shape = "speaches-words-null"
	// ShapeVLLM is vLLM: served model name required, duration a string,
	// no words.
	ShapeVLLM Shape = "vllm"
	// ShapeGroq is Groq: OpenAI's verbose_json plus x_groq.
	ShapeGroq Shape = "groq"
)

// AzureDeployment is the deployment ShapeAzure serves.
const AzureDeployment = "whisper-hy"

// WithShape makes the engine answer as shape does.
func WithShape(shape Shape) Option { return func(s *settings) { s.shape = shape } }

// Line is one utterance of a scripted recording: a tone of Hz hertz, heard
// by the engine as Text, said by Speaker.
type Line struct {
	Hz      float64
	Speaker string
	Text    string
}

// ScriptedCall is the script of testdata/scripted-call-{stereo,mono}-16k.mp3
// (make-scripted.sh): speaker A on the left channel, B on the right; in
// the mono file both mixed.
var ScriptedCall = []Line{
	{220, "A", "Բարև ձեզ, ես զանգում եմ պատվերի մասին։"},
	{820, "B", "Այո, լսում եմ ձեզ։"},
	{240, "A", "Պատվերը դեռ չի հասել, խնդրում եմ ստուգել։"},
	{860, "B", "Մի րոպե, խնդրեմ։"},
	{260, "A", "Լավ, սպասում եմ։"},
	{900, "B", "Պատվերը կառաքվի վաղը առավոտյան, ներեցեք ուշացման համար։"},
	{280, "A", "Շնորհակալություն, ցտեսություն։"},
}

// ScriptedSingle is the script of testdata/scripted-single-16k.mp3: the
// call's speaker A alone.
func ScriptedSingle() []Line {
	var out []Line
	for _, l := range ScriptedCall {
		if l.Speaker == "A" {
			out = append(out, l)
		}
	}
	return out
}

// Testdata is the absolute path of a file in this package's testdata.
func Testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata", name)
}

// WithScript makes the engine hear each stretch of sound as the line whose
// tone is nearest the stretch's (counted by zero crossings), in any piece
// of the recording it is sent.
func WithScript(lines ...Line) Option { return func(s *settings) { s.script = lines } }

// heard is one stretch of sound with what the engine makes of it.
type heard struct {
	start, end float64
	text       string
	speaker    string
}

// scripted hears the stretches of sig as lines of the script.
func (e *Engine) scripted(sig signal) []heard {
	var out []heard
	for _, s := range stretches(sig, e.set.threshold) {
		from, to := int(s[0]*float64(sig.rate)), min(int(s[1]*float64(sig.rate)), len(sig.samples))
		ups := 0
		for i := from + 1; i < to; i++ {
			if sig.samples[i-1] < 0 && sig.samples[i] >= 0 {
				ups++
			}
		}
		hz := float64(ups) / (float64(to-from) / float64(sig.rate))
		best := 0
		for i, l := range e.set.script {
			if math.Abs(l.Hz-hz) < math.Abs(e.set.script[best].Hz-hz) {
				best = i
			}
		}
		out = append(out, heard{start: s[0], end: s[1], text: e.set.script[best].Text, speaker: e.set.script[best].Speaker})
	}
	return out
}

// path is where the shape's engine answers.
func (e *Engine) path() string {
	switch e.set.shape {
	case ShapeAzure:
		return "/openai/deployments/" + AzureDeployment + "/audio/transcriptions"
	case ShapeWhisperCpp:
		return "/inference"
	case ShapeGroq:
		return "/openai/v1/audio/transcriptions"
	}
	return "/v1/audio/transcriptions"
}

// base is the URL to configure for the shape.
func (e *Engine) base() string {
	switch e.set.shape {
	case ShapeAzure:
		return e.srv.URL + "/openai/deployments/" + AzureDeployment + "?api-version=2024-06-01"
	case ShapeWhisperCpp:
		return e.srv.URL
	case ShapeGroq:
		return e.srv.URL + "/openai/v1"
	}
	return e.srv.URL + "/v1"
}

// keyOK checks the key where the shape's engine reads it.
func (e *Engine) keyOK(r *http.Request) bool {
	key := e.set.apiKey
	if key == "" {
		return true
	}
	if e.set.shape == ShapeAzure {
		return r.Header.Get("api-key") == key
	}
	return r.Header.Get("Authorization") == "Bearer "+key
}

// refuse is the shape's own refusal of a request; "" when it takes it.
func (e *Engine) refuse(r *http.Request, req Request) (int, string) {
	format := req.Field("response_format")
	grains := req.Fields["timestamp_granularities[]"]
	switch e.set.shape {
	case ShapeAzure:
		if r.URL.Query().Get("api-version") == "" {
			return http.StatusNotFound, "Resource not found"
		}
	case ShapeGPT4oTranscribe:
		if format != "" && format != "json" && format != "text" {
			return http.StatusBadRequest, fmt.Sprintf("response_format '%s' is not compatible with model '%s'. Use 'json' or 'text' instead.", format, req.Field("model"))
		}
		if len(grains) > 0 {
			return http.StatusBadRequest, fmt.Sprintf("timestamp_granularities are not supported with model '%s'.", req.Field("model"))
		}
	case ShapeGPT4oDiarize:
		if format != "" && format != "json" && format != "text" && format != "diarized_json" {
			return http.StatusBadRequest, fmt.Sprintf("response_format '%s' is not compatible with model '%s'. Use 'json', 'text' or 'diarized_json' instead.", format, req.Field("model"))
		}
		if len(grains) > 0 {
			return http.StatusBadRequest, "timestamp_granularities are not supported with model 'gpt-4o-transcribe-diarize'."
		}
	case ShapeVLLM:
		if len(e.set.models) > 0 && !slices.Contains(e.set.models, req.Field("model")) {
			return http.StatusNotFound, fmt.Sprintf("The model `%s` does not exist.", req.Field("model"))
		}
	}
	return 0, ""
}

// formatOK is whether check accepts the response format for the shape.
func (e *Engine) formatOK(format string) bool {
	if e.set.shape == ShapeGPT4oDiarize && format == "diarized_json" {
		return true
	}
	return slices.Contains(formats, format)
}

// needsModel is whether a request without a model is refused.
func (e *Engine) needsModel() bool { return e.set.shape != ShapeWhisperCpp }

// shaped renders the answer as the shape's engine does.
func (e *Engine) shaped(req Request, hs []heard, duration float64) (body []byte, contentType string, status int) {
	format := cmpOr(req.Field("response_format"), "json")
	if e.set.shape == ShapeWhisperCpp {
		format = cmpOr(req.Field("response_format"), "json")
	}
	grains := req.Fields["timestamp_granularities[]"]
	var texts []string
	for _, h := range hs {
		texts = append(texts, h.text)
	}
	all := strings.Join(texts, " ")
	js := func(v any) ([]byte, string, int) {
		b, _ := json.Marshal(v)
		return b, "application/json", http.StatusOK
	}
	if format == "text" {
		return []byte(all + "\n"), "text/plain; charset=utf-8", http.StatusOK
	}
	switch e.set.shape {
	case ShapeGPT4oTranscribe:
		return js(map[string]any{"text": all, "usage": map[string]any{"type": "tokens", "input_tokens": 10 * len(hs), "output_tokens": len(strings.Fields(all)), "total_tokens": 11 * len(hs), "input_token_details": map[string]int{"text_tokens": 0, "audio_tokens": 10 * len(hs)}}})
	case ShapeGPT4oDiarize:
		if duration > 30 && req.Field("chunking_strategy") == "" {
			return errorBody("chunking_strategy is required for diarization models when the input audio is longer than 30 seconds")
		}
		if format != "diarized_json" {
			return js(map[string]any{"text": all})
		}
		segs := []map[string]any{}
		for i, h := range hs {
			segs = append(segs, map[string]any{"type": "transcript.text.segment", "id": fmt.Sprintf("seg_%d", i), "start": round(h.start), "end": round(h.end), "text": h.text, "speaker": h.speaker})
		}
		return js(map[string]any{"task": "transcribe", "duration": round(duration), "text": all, "segments": segs, "usage": map[string]any{"type": "duration", "seconds": math.Ceil(duration)}})
	case ShapeWhisperCpp:
		return e.whisperCpp(req, hs, duration, format)
	}
	if format != "verbose_json" {
		if e.set.shape == ShapeVLLM {
			return js(map[string]any{"text": all, "usage": map[string]any{"type": "duration", "seconds": math.Ceil(duration)}})
		}
		return js(map[string]any{"text": all})
	}
	var segs []map[string]any
	var words []map[string]any
	segment := func(id int, start, end float64, text string) map[string]any {
		return map[string]any{"id": id, "seek": 0, "start": round(start), "end": round(end), "text": " " + text, "tokens": []int{50364 + id}, "temperature": 0.0, "avg_logprob": -0.2, "compression_ratio": 1.1, "no_speech_prob": 0.01}
	}
	for i, h := range hs {
		segs = append(segs, segment(i, h.start, h.end, h.text))
		for _, w := range words0(h) {
			word := w.Word
			if e.set.shape == ShapeWhisper1 || e.set.shape == ShapeAzure || e.set.shape == ShapeGroq {
				word = strings.TrimFunc(strings.TrimSpace(word), unicode.IsPunct) // OpenAI's words carry no punctuation
			}
			words = append(words, map[string]any{"word": word, "start": w.Start, "end": w.End})
		}
	}
	res := map[string]any{"task": "transcribe", "language": "armenian", "duration": round(duration), "text": all, "segments": segs}
	wantWords := slices.Contains(grains, "word")
	switch e.set.shape {
	case ShapeSpeaches, ShapeSpeachesNoWords:
		// Voice-activity clips of up to 30 s, text run together.
		segs = nil
		for i := 0; i < len(hs); {
			j, text := i, hs[i].text
			for j+1 < len(hs) && hs[j+1].end-hs[i].start <= 30 {
				j++
				text += " " + hs[j].text
			}
			segs = append(segs, segment(len(segs)+1, hs[i].start, hs[j].end, text))
			i = j + 1
		}
		res["segments"], res["language"] = segs, "hy"
		if e.set.shape == ShapeSpeachesNoWords {
			wantWords = false
		}
	case ShapeVLLM:
		for _, sg := range segs {
			sg["no_speech_prob"] = nil
		}
		res = map[string]any{"text": " " + all, "language": req.Field("language"), "duration": fmt.Sprint(round(duration)), "segments": segs, "words": nil}
		wantWords = false
	case ShapeGroq:
		res["x_groq"] = map[string]string{"id": "req_01jz000000000000000000test"}
		res["language"] = "Armenian"
	case ShapeWhisper1, ShapeAzure:
		res["usage"] = map[string]any{"type": "duration", "seconds": math.Ceil(duration)}
	}
	if wantWords {
		res["words"] = words
	} else if e.set.shape != ShapeVLLM {
		res["words"] = nil
	}
	if len(grains) > 0 && !slices.Contains(grains, "segment") && e.set.shape != ShapeSpeaches && e.set.shape != ShapeSpeachesNoWords {
		delete(res, "segments")
	}
	return js(res)
}

// whisperCpp renders examples/server/server.cpp's answers: segments wrap
// at 60 characters (max_len's default) on a token boundary, or on a word
// boundary with split_on_word; "words" are its tokens.
func (e *Engine) whisperCpp(req Request, hs []heard, duration float64, format string) ([]byte, string, int) {
	splitOnWord := req.Field("split_on_word") == "true"
	type tok struct {
		text       string
		start, end float64
	}
	type seg struct {
		text       string
		start, end float64
		toks       []tok
	}
	var segs []seg
	for _, h := range hs {
		var toks []tok
		for _, w := range words0(h) {
			// Words cut into tokens of at most 4 letters, the first with its space.
			r := []rune(w.Word)
			n := (len(r) + 3) / 4
			for k := 0; k < n; k++ {
				part := string(r[k*4 : min(len(r), (k+1)*4)])
				d := (w.End - w.Start) / float64(n)
				toks = append(toks, tok{text: part, start: round(w.Start + float64(k)*d), end: round(w.Start + float64(k+1)*d)})
			}
		}
		cur := seg{start: h.start}
		for _, t := range toks {
			wordStart := strings.HasPrefix(t.text, " ")
			if len([]rune(cur.text+t.text)) > 60 && cur.text != "" && (!splitOnWord || wordStart) {
				cur.end = t.start
				segs = append(segs, cur)
				cur = seg{start: t.start}
			}
			cur.text += t.text
			cur.toks = append(cur.toks, t)
		}
		cur.end = h.end
		segs = append(segs, cur)
	}
	var out strings.Builder
	for _, s := range segs {
		out.WriteString(s.text + "\n")
	}
	if format != "verbose_json" {
		b, _ := json.Marshal(map[string]string{"text": out.String()})
		return b, "application/json", http.StatusOK
	}
	jsegs := []map[string]any{}
	for i, s := range segs {
		var words []map[string]any
		for _, t := range s.toks {
			words = append(words, map[string]any{"word": t.text, "start": t.start, "end": t.end, "t_dtw": -1, "probability": 0.9})
		}
		jsegs = append(jsegs, map[string]any{"id": i, "text": s.text, "start": round(s.start), "end": round(s.end), "tokens": []int{1, 2}, "words": words, "temperature": 0.0, "avg_logprob": -0.3, "no_speech_prob": 0.01})
	}
	b, _ := json.Marshal(map[string]any{"task": "transcribe", "language": "armenian", "duration": duration, "text": out.String(), "segments": jsegs,
		"detected_language": "armenian", "detected_language_probability": 0.97, "language_probabilities": map[string]float64{"hy": 0.97}})
	return b, "application/json", http.StatusOK
}

// words0 spreads a heard line's words over its time (each with its space).
func words0(h heard) []Word {
	return words(Segment{Start: h.start, End: h.end, Text: " " + h.text})
}

func errorBody(msg string) ([]byte, string, int) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
	return b, "application/json", http.StatusBadRequest
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
