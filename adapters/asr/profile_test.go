package asr_test

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/domain"
)

// recorded is one engine's request as it reads it and the answer it gives
// (a file of testdata/engines, see its README for the source).
type recorded struct {
	name        string
	profile     string // HYSCRIBE_ASR_PROFILE; "" detects it
	model       string
	base        string // appended to the test server's address
	key         string
	wantProfile string
	// What the engine must receive.
	path       string
	query      string
	keyHeader  string // "Authorization" or "api-key"
	keyValue   string
	fields     map[string][]string
	noFields   []string
	refuseOnce string // a 400 body sent to the first request (then fields must drop timestamps)
	answer     string // file in testdata/engines
	// What must be read from it.
	text       string
	words      []string
	speakers   []string
	untimed    bool
	timestamps bool // Client.Timestamps after the request
}

var recordedEngines = []recorded{
	{
		name: "OpenAI whisper-1", model: "whisper-1", base: "/v1", key: "sk-test", wantProfile: asr.ProfileOpenAI, profile: "openai",
		path: "/v1/audio/transcriptions", keyHeader: "Authorization", keyValue: "Bearer sk-test",
		fields: map[string][]string{"model": {"whisper-1"}, "language": {"hy"}, "response_format": {"verbose_json"}, "timestamp_granularities[]": {"segment", "word"}},
		answer: "openai-whisper-1.verbose_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։",
		words:  []string{"Բարև", "ձեզ", "ես", "զանգում", "եմ", "պատվերի", "մասին", "Շնորհակալություն"}, timestamps: true,
	},
	{
		name: "OpenAI gpt-4o-transcribe", model: "gpt-4o-transcribe", base: "/v1", key: "sk-test", wantProfile: asr.ProfileOpenAI, profile: "openai",
		path: "/v1/audio/transcriptions", keyHeader: "Authorization", keyValue: "Bearer sk-test",
		fields: map[string][]string{"model": {"gpt-4o-transcribe"}, "response_format": {"json"}}, noFields: []string{"timestamp_granularities[]"},
		answer: "openai-gpt-4o-transcribe.json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։", untimed: true,
	},
	{
		name: "OpenAI gpt-4o-mini-transcribe", model: "gpt-4o-mini-transcribe", base: "/v1", key: "sk-test", wantProfile: asr.ProfileOpenAI,
		path: "/v1/audio/transcriptions", keyHeader: "Authorization", keyValue: "Bearer sk-test",
		fields: map[string][]string{"model": {"gpt-4o-mini-transcribe"}, "response_format": {"json"}}, noFields: []string{"timestamp_granularities[]"},
		answer: "openai-gpt-4o-transcribe.json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։", untimed: true,
	},
	{
		name: "an unknown model refusing verbose_json is asked again for json", model: "hy-asr-2030", base: "/v1", wantProfile: asr.ProfileOpenAI,
		path: "/v1/audio/transcriptions", refuseOnce: "openai-gpt-4o-transcribe.400.json",
		fields: map[string][]string{"model": {"hy-asr-2030"}, "response_format": {"json"}}, noFields: []string{"timestamp_granularities[]"},
		answer: "openai-gpt-4o-transcribe.json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։", untimed: true,
	},
	{
		name: "OpenAI gpt-4o-transcribe-diarize", model: "gpt-4o-transcribe-diarize", base: "/v1", key: "sk-test", wantProfile: asr.ProfileOpenAI,
		path: "/v1/audio/transcriptions", keyHeader: "Authorization", keyValue: "Bearer sk-test",
		fields: map[string][]string{"response_format": {"diarized_json"}, "chunking_strategy": {"auto"}}, noFields: []string{"timestamp_granularities[]"},
		answer: "openai-gpt-4o-transcribe-diarize.diarized_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Խնդրում եմ ասել պատվերի համարը։ Շնորհակալություն։", speakers: []string{"A", "B", "A"}, timestamps: true,
	},
	{
		name: "Azure OpenAI", base: "/openai/deployments/whisper-hy?api-version=2024-06-01", key: "azure-key", wantProfile: asr.ProfileAzure,
		path: "/openai/deployments/whisper-hy/audio/transcriptions", query: "api-version=2024-06-01", keyHeader: "api-key", keyValue: "azure-key",
		fields: map[string][]string{"model": {"whisper-hy"}, "response_format": {"verbose_json"}, "timestamp_granularities[]": {"segment", "word"}},
		answer: "azure-whisper.verbose_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։",
		words:  []string{"Բարև", "ձեզ", "ես", "զանգում", "եմ", "պատվերի", "մասին", "Շնորհակալություն"}, timestamps: true,
	},
	{
		name: "whisper.cpp server", profile: "whispercpp", base: "", wantProfile: asr.ProfileWhisperCpp,
		path: "/inference", fields: map[string][]string{"response_format": {"verbose_json"}, "split_on_word": {"true"}, "language": {"hy"}}, noFields: []string{"model"},
		answer: "whispercpp.verbose_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին, այսօր երեկոյան կգամ։",
		words:  []string{"Բարև", "ձեզ,", "ես", "զանգում", "եմ", "պատվերի", "մասին,", "այսօր", "երեկոյան", "կգամ։"}, timestamps: true,
	},
	{
		name: "speaches with words", profile: "speaches", model: "Systran/faster-whisper-large-v3", base: "/v1", wantProfile: asr.ProfileSpeaches,
		path: "/v1/audio/transcriptions", fields: map[string][]string{"model": {"Systran/faster-whisper-large-v3"}, "timestamp_granularities[]": {"segment", "word"}},
		answer: "speaches.verbose_json.words.json",
		text:   "Բարև ձեզ, ես զանգում եմ։ Այո, լսում եմ։ Շնորհակալություն։",
		words:  []string{"Բարև", "ձեզ,", "ես", "զանգում", "եմ։", "Այո,", "լսում", "եմ։", "Շնորհակալություն։"}, timestamps: true,
	},
	{
		name: "speaches with words null", profile: "speaches", base: "/v1", wantProfile: asr.ProfileSpeaches,
		path: "/v1/audio/transcriptions", fields: map[string][]string{"model": {"Systran/faster-whisper-large-v3"}},
		answer: "speaches.verbose_json.words-null.json",
		text:   "Բարև ձեզ, ես զանգում եմ։ Այո, լսում եմ։ Շնորհակալություն։", timestamps: true,
	},
	{
		name: "vLLM verbose_json", profile: "vllm", model: "openai/whisper-large-v3", base: "/v1", wantProfile: asr.ProfileVLLM,
		path: "/v1/audio/transcriptions", fields: map[string][]string{"model": {"openai/whisper-large-v3"}, "response_format": {"verbose_json"}},
		answer: "vllm.verbose_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։", timestamps: true,
	},
	{
		name: "vLLM json", profile: "vllm", model: "whisper", base: "/v1", wantProfile: asr.ProfileVLLM,
		path: "/v1/audio/transcriptions", answer: "vllm.json.json",
		text: "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։", untimed: true, timestamps: true,
	},
	{
		name: "Groq", base: "/openai/v1", profile: "groq", key: "gsk_test", wantProfile: asr.ProfileGroq,
		path: "/openai/v1/audio/transcriptions", keyHeader: "Authorization", keyValue: "Bearer gsk_test",
		fields: map[string][]string{"model": {"whisper-large-v3-turbo"}, "response_format": {"verbose_json"}, "timestamp_granularities[]": {"segment", "word"}},
		answer: "groq.verbose_json.json",
		text:   "Բարև ձեզ, ես զանգում եմ պատվերի մասին։ Շնորհակալություն։",
		words:  []string{"Բարև", "ձեզ", "ես", "զանգում", "եմ", "պատվերի", "մասին", "Շնորհակալություն"}, timestamps: true,
	},
}

func TestProfilesAgainstRecordedAnswers(t *testing.T) {
	for _, tc := range recordedEngines {
		t.Run(tc.name, func(t *testing.T) {
			answer, err := os.ReadFile(filepath.Join("testdata", "engines", tc.answer))
			if err != nil {
				t.Fatal(err)
			}
			var refusal []byte
			if tc.refuseOnce != "" {
				if refusal, err = os.ReadFile(filepath.Join("testdata", "engines", tc.refuseOnce)); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			var got []*http.Request
			var forms []map[string][]string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				form := readForm(t, r)
				mu.Lock()
				got, forms = append(got, r), append(forms, form)
				n := len(got)
				mu.Unlock()
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path != tc.path {
					w.WriteHeader(http.StatusNotFound)
					io.WriteString(w, `{"error":{"message":"Resource not found"}}`)
					return
				}
				if refusal != nil && n == 1 {
					w.WriteHeader(http.StatusBadRequest)
					w.Write(refusal)
					return
				}
				w.Write(answer)
			}))
			defer srv.Close()
			c := newClient(t, srv.URL+tc.base, func(c *asr.Config) { c.Profile, c.Model, c.APIKey = tc.profile, tc.model, tc.key })
			if c.Profile() != tc.wantProfile {
				t.Errorf("profile %q, want %q", c.Profile(), tc.wantProfile)
			}
			rec, err := c.Recognize(t.Context(), memFile("call.mp3", []byte("ID3 audio"), nil))
			if err != nil {
				t.Fatal(err)
			}
			last := got[len(got)-1]
			if last.URL.RawQuery != tc.query {
				t.Errorf("query %q, want %q", last.URL.RawQuery, tc.query)
			}
			if tc.keyHeader != "" && last.Header.Get(tc.keyHeader) != tc.keyValue {
				t.Errorf("%s: %q, want %q (headers %v)", tc.keyHeader, last.Header.Get(tc.keyHeader), tc.keyValue, last.Header)
			}
			if tc.keyHeader == "api-key" && last.Header.Get("Authorization") != "" {
				t.Error("Azure got an Authorization header too")
			}
			form := forms[len(forms)-1]
			for k, want := range tc.fields {
				if !slices.Equal(form[k], want) {
					t.Errorf("field %s = %q, want %q", k, form[k], want)
				}
			}
			for _, k := range tc.noFields {
				if v, ok := form[k]; ok {
					t.Errorf("field %s sent: %q", k, v)
				}
			}
			if tc.refuseOnce != "" && len(got) != 2 {
				t.Errorf("%d requests, want the refused one and one without timestamps", len(got))
			}
			if rec.Text != tc.text {
				t.Errorf("text %q\nwant %q", rec.Text, tc.text)
			}
			var words []string
			for _, w := range rec.Words {
				words = append(words, w.Word)
			}
			if !slices.Equal(words, tc.words) {
				t.Errorf("words %q\nwant  %q", words, tc.words)
			}
			var speakers []string
			for _, s := range rec.Segments {
				if s.Speaker != "" {
					speakers = append(speakers, s.Speaker)
				}
			}
			if !slices.Equal(speakers, tc.speakers) {
				t.Errorf("speakers %q, want %q", speakers, tc.speakers)
			}
			if rec.NoTimestamps != tc.untimed {
				t.Errorf("NoTimestamps %v, want %v", rec.NoTimestamps, tc.untimed)
			}
			if !tc.untimed {
				for _, s := range rec.Segments {
					if s.End <= s.Start {
						t.Errorf("segment without times: %+v", s)
					}
				}
			}
			if c.Timestamps() != tc.timestamps {
				t.Errorf("Timestamps() = %v, want %v", c.Timestamps(), tc.timestamps)
			}
			if rec.Duration <= 0 && !tc.untimed {
				t.Errorf("duration %v", rec.Duration)
			}
		})
	}
}

// A whisper.cpp answer keeps the words the server wrapped mid-word whole,
// with their times spanning the pieces.
func TestWhisperCppTokensBecomeWords(t *testing.T) {
	answer, err := os.ReadFile(filepath.Join("testdata", "engines", "whispercpp.verbose_json.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	}))
	defer srv.Close()
	// Detected from the answer too: t_dtw marks tokens, whatever the profile.
	for _, profile := range []string{"whispercpp", "openai"} {
		base := srv.URL
		if profile == "openai" {
			base += "/v1"
		}
		rec, err := newClient(t, base, func(c *asr.Config) { c.Profile = profile }).Recognize(t.Context(), memFile("a.wav", []byte("RIFF"), nil))
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rec.Words, func(w domain.Word) bool { return w.Word == "երեկոյան" })
		if i < 0 || rec.Words[i].Start != 3.3 || rec.Words[i].End != 3.8 {
			t.Errorf("%s: words %+v", profile, rec.Words)
		}
		if strings.Contains(rec.Text, "երեկոյ ան") || strings.Contains(rec.Text, "\n") {
			t.Errorf("%s: text %q", profile, rec.Text)
		}
	}
}

// readForm reads a multipart request's fields (not its file).
func readForm(t *testing.T, r *http.Request) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Errorf("content type %q", r.Header.Get("Content-Type"))
		return out
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return out
		}
		b, _ := io.ReadAll(p)
		if p.FileName() == "" {
			out[p.FormName()] = append(out[p.FormName()], string(b))
		}
	}
}

// A 413 is the piece's size, for the caller to cut smaller; it is not
// retried as it is.
func TestRecognizeTooLargeIsAPieceTooLargeError(t *testing.T) {
	e := asrtest.NewEngine(t, asrtest.WithMaxFileBytes(100))
	_, err := newClient(t, e.URL()).Recognize(t.Context(), diskFile(t, "a.wav", twoTones))
	var tl *domain.PieceTooLargeError
	if !errors.As(err, &tl) || !domain.IsPermanent(err) || !errors.Is(err, domain.ErrTooLarge) || tl.Bytes != int64(len(twoTones)) || e.Requests() != 1 {
		t.Fatalf("err %v (%+v) after %d requests", err, tl, e.Requests())
	}
	if !strings.Contains(err.Error(), "413 Request Entity Too Large: Maximum content size limit (100) exceeded") {
		t.Errorf("message %q", err)
	}
}

func TestProfileSettingsAreChecked(t *testing.T) {
	if _, err := asr.New(asr.Config{BaseURL: "http://x/v1", Profile: "deepgram"}); err == nil || !strings.Contains(err.Error(), `unknown profile "deepgram"`) {
		t.Errorf("err %v", err)
	}
	if _, err := asr.New(asr.Config{BaseURL: "http://x/v1", Profile: "vllm"}); err == nil || !strings.Contains(err.Error(), "served") {
		t.Errorf("vLLM without a model: %v", err)
	}
	for base, want := range map[string]string{
		"https://api.openai.com/v1":                                   asr.ProfileOpenAI,
		"https://res.openai.azure.com/openai/deployments/w":           asr.ProfileAzure,
		"http://10.0.0.5/openai/deployments/w?api-version=2024-06-01": asr.ProfileAzure,
		"https://api.groq.com/openai/v1":                              asr.ProfileGroq,
		"http://127.0.0.1:8080/inference":                             asr.ProfileWhisperCpp,
		"http://127.0.0.1:8000/v1":                                    asr.ProfileOpenAI,
	} {
		c, err := asr.New(asr.Config{BaseURL: base})
		if err != nil || c.Profile() != want {
			t.Errorf("%s: %v %v, want %s", base, c, err, want)
		}
	}
}
