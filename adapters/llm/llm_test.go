package llm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/adapters/llm"
	"github.com/hyscribe/hyscribe/domain"
)

// chat is a fake OpenAI-compatible chat server answering with the message
// content its answer function returns, after the statuses queued in fail.
type chat struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	fail   []int
	header http.Header
	body   map[string]any
	calls  int
	answer func() (status int, content string)
}

func newChat(t *testing.T, content string) *chat {
	c := &chat{t: t, answer: func() (int, string) { return http.StatusOK, content }}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *chat) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.header = r.Header.Clone()
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	c.body = nil
	if err := json.NewDecoder(r.Body).Decode(&c.body); err != nil {
		c.t.Errorf("request body: %v", err)
	}
	w.Header().Set("Content-Type", "application/json")
	if len(c.fail) > 0 {
		status := c.fail[0]
		c.fail = c.fail[1:]
		w.WriteHeader(status)
		io.WriteString(w, `{"error":{"message":"The server is overloaded","type":"server_error"}}`)
		return
	}
	status, content := c.answer()
	w.WriteHeader(status)
	if status != http.StatusOK {
		io.WriteString(w, content)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content},
		}},
	})
}

// seen returns what the last request carried and the number of calls.
func (c *chat) seen() (http.Header, map[string]any, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.header, c.body, c.calls
}

func fmtAll(v any) string { return fmt.Sprintf("%v %+v %#v", v, v, v) }

func (c *chat) client(t *testing.T, change ...func(*llm.Config)) *llm.Client {
	t.Helper()
	cfg := llm.Config{BaseURL: c.srv.URL + "/v1", APIKey: "sk-chat", BackoffBase: time.Millisecond, MaxBackoff: 5 * time.Millisecond}
	for _, ch := range change {
		ch(&cfg)
	}
	cl, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

const transcript = "Խոսնակ 1: Բարև ձեզ, ես զանգում եմ պատվերի մասին։\nԽոսնակ 2: Պատվերը կառաքվի վաղը։"

func TestSummarize(t *testing.T) {
	c := newChat(t, `{"title": "Պատվերի առաքում", "resolution": "Հաճախորդը հարցրեց պատվերի մասին։\nՊատվերը կառաքվի վաղը։"}`)
	title, resolution, err := c.client(t, func(cfg *llm.Config) { cfg.Model = "gpt-test" }).Summarize(t.Context(), transcript)
	if err != nil {
		t.Fatal(err)
	}
	if title != "Պատվերի առաքում" || resolution != "Հաճախորդը հարցրեց պատվերի մասին։ Պատվերը կառաքվի վաղը։" {
		t.Errorf("title %q resolution %q", title, resolution)
	}

	header, body, _ := c.seen()
	if got := header.Get("Authorization"); got != "Bearer sk-chat" {
		t.Errorf("Authorization %q", got)
	}
	if body["model"] != "gpt-test" {
		t.Errorf("model %v", body["model"])
	}
	if rf, _ := body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", body["response_format"])
	}
	msgs, _ := body["messages"].([]any)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", body["messages"])
	}
	system, user := msgs[0].(map[string]any), msgs[1].(map[string]any)
	if system["role"] != "system" || !strings.Contains(system["content"].(string), `"title"`) || !strings.Contains(system["content"].(string), "Armenian") {
		t.Errorf("system message %v", system)
	}
	if user["role"] != "user" || !strings.Contains(user["content"].(string), transcript) {
		t.Errorf("user message %v", user)
	}
}

func TestSummarizeShortensALongTranscript(t *testing.T) {
	c := newChat(t, `{"title":"Զանգ","resolution":"Ամփոփում"}`)
	long := "ՍԿԻԶԲ " + strings.Repeat("բառ ", 50000) + " ՎԵՐՋ"
	if _, _, err := c.client(t, func(cfg *llm.Config) { cfg.MaxInput = 1000 }).Summarize(t.Context(), long); err != nil {
		t.Fatal(err)
	}
	_, body, _ := c.seen()
	sent := body["messages"].([]any)[1].(map[string]any)["content"].(string)
	if n := utf8.RuneCountInString(sent); n > 1100 || !strings.Contains(sent, "ՍԿԻԶԲ") || !strings.Contains(sent, "ՎԵՐՋ") {
		t.Errorf("sent %d characters, keeping start and end: %v", n, strings.Contains(sent, "ՎԵՐՋ"))
	}
}

func TestSummarizeClipsToTheLimits(t *testing.T) {
	longTitle := strings.Repeat("Պատվերի առաքման ժամկետի ", 6) + "\nերկրորդ տող"
	longResolution := strings.Repeat("Հաճախորդը հարցրեց պատվերի մասին, և օպերատորը պատասխանեց։\n\n", 20)
	answer, _ := json.Marshal(map[string]string{"title": longTitle, "resolution": longResolution})
	c := newChat(t, string(answer))
	title, resolution, err := c.client(t).Summarize(t.Context(), transcript)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name, value, source string
		limit               int
	}{{"title", title, longTitle, llm.MaxTitle}, {"resolution", resolution, longResolution, llm.MaxResolution}} {
		if n := utf8.RuneCountInString(f.value); n > f.limit || n < f.limit/2 {
			t.Errorf("%s has %d characters, limit %d: %q", f.name, n, f.limit, f.value)
		}
		if strings.ContainsAny(f.value, "\n\r") || strings.Contains(f.value, "  ") {
			t.Errorf("%s is not one line: %q", f.name, f.value)
		}
		if !strings.HasSuffix(f.value, "…") {
			t.Errorf("%s does not mark its cut: %q", f.name, f.value)
		}
		// Cut at a word boundary: what is kept is whole words of the source.
		kept := strings.TrimSuffix(f.value, "…")
		folded := strings.Join(strings.Fields(f.source), " ")
		if !strings.HasPrefix(folded, kept) || folded[len(kept)] != ' ' && folded[len(kept)] != ',' {
			t.Errorf("%s cut inside a word: %q", f.name, f.value)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"  կարճ \n վերնագիր ", 80, "կարճ վերնագիր"},
		{"աբգ դեզ էըթ", 11, "աբգ դեզ էըթ"},
		{"աբգ դեզ էըթ", 10, "աբգ դեզ…"},
		{"աբգ դեզ, էըթ", 10, "աբգ դեզ…"},
		{"աբգդեզէըթժի", 6, "աբգդե…"}, // no boundary in reach: cut the word
		{"աբգ դեզ", 1, "ա"},
	} {
		if got := llm.Clip(tc.in, tc.limit); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

func TestSummarizeForgivesAFence(t *testing.T) {
	c := newChat(t, "```json\n{\"title\":\"Զանգ\",\"resolution\":\"Ամփոփում\"}\n```")
	if title, _, err := c.client(t).Summarize(t.Context(), transcript); err != nil || title != "Զանգ" {
		t.Errorf("title %q err %v", title, err)
	}
}

func TestSummarizeRefusesInvalidAnswers(t *testing.T) {
	for _, tc := range []struct{ name, content, reason string }{
		{"not JSON", "Ահա ամփոփումը՝ զանգը պատվերի մասին էր։", "not a JSON object"},
		{"truncated", `{"title": "Զանգ", "resolution": "Ամփո`, "not a JSON object"},
		{"no title", `{"resolution":"Ամփոփում"}`, `"title" is missing`},
		{"empty resolution", `{"title":"Զանգ","resolution":"  "}`, `"resolution" is empty`},
		{"title not a string", `{"title":["Զանգ"],"resolution":"Ամփոփում"}`, `"title" is not a string`},
		{"English", `{"title":"Order delivery","resolution":"The customer asked."}`, `"title" is not in Armenian`},
		{"empty message", ``, "the message is empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChat(t, tc.content)
			_, _, err := c.client(t).Summarize(t.Context(), transcript)
			if !errors.Is(err, llm.ErrInvalidAnswer) || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("err = %v, want the reason %q", err, tc.reason)
			}
			if !strings.HasPrefix(err.Error(), "chat model gave an invalid answer: ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

func TestSummarizeRetriesThenSucceeds(t *testing.T) {
	c := newChat(t, `{"title":"Զանգ","resolution":"Ամփոփում"}`)
	c.fail = []int{http.StatusServiceUnavailable, http.StatusTooManyRequests}
	if _, _, err := c.client(t).Summarize(t.Context(), transcript); err != nil {
		t.Fatal(err)
	}
	if _, _, calls := c.seen(); calls != 3 {
		t.Errorf("%d calls, want 3", calls)
	}
}

func TestSummarizeGivesUp(t *testing.T) {
	c := newChat(t, "")
	c.fail = []int{500, 502, 503, 504, 500}
	_, _, err := c.client(t, func(cfg *llm.Config) { cfg.MaxAttempts = 3 }).Summarize(t.Context(), transcript)
	want := `chat model unavailable after 3 attempts: 503 Service Unavailable: {"error":{"message":"The server is overloaded","type":"server_error"}}`
	if !errors.Is(err, domain.ErrUnavailable) || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

func TestSummarizeRefusalIsPermanent(t *testing.T) {
	c := newChat(t, "")
	c.answer = func() (int, string) {
		return http.StatusBadRequest, `{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}`
	}
	_, _, err := c.client(t).Summarize(t.Context(), transcript)
	if !domain.IsPermanent(err) || err.Error() != "chat model refused the request: 400 Bad Request: This model's maximum context length is 8192 tokens" {
		t.Errorf("err = %v", err)
	}
	if _, _, calls := c.seen(); calls != 1 {
		t.Errorf("%d calls: a refusal must not be retried", calls)
	}
	if _, _, err := c.client(t).Summarize(t.Context(), " \n "); !domain.IsPermanent(err) {
		t.Errorf("empty transcript: %v", err)
	}
}

func TestNewRefusesAMalformedBaseURL(t *testing.T) {
	for _, base := range []string{"", "localhost:11434/v1", "http://", "https://api.openai.com/v1/chat/completions"} {
		if _, err := llm.New(llm.Config{BaseURL: base}); err == nil {
			t.Errorf("New accepted %q", base)
		}
	}
	cfg := llm.Config{BaseURL: "http://127.0.0.1:11434/v1", APIKey: "sk-secret-llm"}
	if _, err := llm.New(cfg); err != nil {
		t.Fatal(err)
	}
	if s := fmtAll(cfg); strings.Contains(s, "sk-secret-llm") {
		t.Errorf("config prints its key: %s", s)
	}
}
