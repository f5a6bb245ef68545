// Package llm is the chat-model adapter: a client of any OpenAI-compatible
// POST {BaseURL}/chat/completions endpoint implementing ports.Summarizer and
// ports.ChecklistAnalyzer (analyze.go).
//
// The model is asked, in JSON mode, for an Armenian title and summary of a
// transcript. Its answer is checked rather than trusted: it must be a JSON
// object with both fields non-empty Armenian strings, and they are folded to
// one line or paragraph and clipped at a word boundary to the service's
// limits. Transient failures are retried as in package asr (the two share
// adapters/internal/retryhttp); an answer that fails the check is an error
// wrapping ErrInvalidAnswer, so the caller can fall back to another
// summariser.
package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hyscribe/hyscribe/adapters/internal/retryhttp"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Limits of the two fields, in characters (runes): docs/decisions.md, Transcripts.
const (
	MaxTitle      = 80
	MaxResolution = 600
)

// Defaults for the Config fields left zero.
const (
	DefaultModel         = "gpt-4o-mini"
	DefaultTimeout       = 2 * time.Minute
	DefaultMaxAttempts   = 4
	DefaultBackoffBase   = time.Second
	DefaultMaxBackoff    = 30 * time.Second
	DefaultMaxRetryAfter = time.Minute
	DefaultMaxInput      = 60000
)

// Config configures a Client. Zero fields take the defaults above.
type Config struct {
	BaseURL       string        // the model server's /v1 base: "https://api.openai.com/v1"
	APIKey        string        // sent as a Bearer token when set; never logged
	Model         string        // "gpt-4o-mini"
	Timeout       time.Duration // per attempt
	MaxAttempts   int           // attempts in all before giving up
	BackoffBase   time.Duration // wait before the first retry, doubled each retry
	MaxBackoff    time.Duration // cap on one backoff
	MaxRetryAfter time.Duration // cap on the wait a Retry-After answer asks for
	MaxInput      int           // transcript characters sent; the middle of a longer one is left out
	HTTPClient    *http.Client  // nil: a client with no overall timeout
	Logger        *slog.Logger  // nil: retries are not logged
}

// Validate reports a malformed base URL or a negative setting.
func (c Config) Validate() error {
	if _, err := endpoint(c.BaseURL); err != nil {
		return err
	}
	switch {
	case c.Timeout < 0, c.BackoffBase < 0, c.MaxBackoff < 0, c.MaxRetryAfter < 0:
		return errors.New("llm: durations must not be negative")
	case c.MaxAttempts < 0, c.MaxInput < 0:
		return errors.New("llm: MaxAttempts and MaxInput must not be negative")
	}
	return nil
}

// String describes the configuration with the API key hidden.
func (c Config) String() string {
	key := ""
	if c.APIKey != "" {
		key = "[hidden]"
	}
	return fmt.Sprintf("llm.Config{BaseURL:%q APIKey:%q Model:%q Timeout:%s MaxAttempts:%d}",
		c.BaseURL, key, c.Model, c.Timeout, c.MaxAttempts)
}

// GoString hides the API key from %#v as well.
func (c Config) GoString() string { return c.String() }

// LogValue hides the API key from slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

func endpoint(base string) (string, error) {
	return retryhttp.Endpoint("llm", base, "/chat/completions", "the model server's /v1 base")
}

// ErrInvalidAnswer is wrapped by the error for an answer that is not the
// title and summary asked for.
var ErrInvalidAnswer = errors.New("chat model gave an invalid answer")

// Client asks a chat model for titles and summaries. It is safe for
// concurrent use.
type Client struct {
	cfg  Config
	post *retryhttp.Client
}

var _ ports.Summarizer = (*Client)(nil)

// New checks cfg, fills in its defaults and returns a Client.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ep, _ := endpoint(cfg.BaseURL)
	cfg.Model = cmp.Or(cfg.Model, DefaultModel)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.BackoffBase = cmp.Or(cfg.BackoffBase, DefaultBackoffBase)
	cfg.MaxBackoff = cmp.Or(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxRetryAfter = cmp.Or(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	cfg.MaxInput = cmp.Or(cfg.MaxInput, DefaultMaxInput)
	return &Client{cfg: cfg, post: retryhttp.NewClient(ep, cfg.APIKey, cfg.HTTPClient, retryhttp.Policy{
		Service:       "chat model",
		MaxAttempts:   cfg.MaxAttempts,
		BackoffBase:   cfg.BackoffBase,
		MaxBackoff:    cfg.MaxBackoff,
		MaxRetryAfter: cfg.MaxRetryAfter,
		Timeout:       cfg.Timeout,
		Logger:        cfg.Logger,
	})}, nil
}

// SystemPrompt is what the model is told to do.
const SystemPrompt = `You summarise transcripts of Armenian phone calls and voice recordings.
Reply with one JSON object and nothing else, exactly of this shape:
{"title": "...", "resolution": "..."}
- "title": in Armenian, one line of at most 80 characters naming what the conversation is about.
- "resolution": in Armenian, one paragraph of at most 600 characters saying what was discussed and how it ended: what was agreed, decided or promised, and what remains open.
Use only facts stated in the transcript; do not invent names, numbers or dates.
Lines of a call start with speaker labels such as "Խոսնակ 1:"; refer to the speakers by their roles when the transcript makes them clear.`

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []message         `json:"messages"`
	ResponseFormat map[string]string `json:"response_format"`
}

// Summarize asks the model for a title and a summary of the transcript.
func (c *Client) Summarize(ctx context.Context, transcript string) (title, resolution string, err error) {
	transcript = strings.TrimSpace(transcript)
	if transcript == "" {
		return "", "", domain.Permanent(errors.New("nothing to summarise: the transcript is empty"))
	}
	body, err := c.chat(ctx, SystemPrompt, "Transcript:\n"+shorten(transcript, c.cfg.MaxInput))
	if err != nil {
		return "", "", err
	}
	return Parse(body)
}

// chat asks the model, in JSON mode, to answer user as system tells it,
// and returns the completion's body. A refusal is domain.Permanent; the
// errors are the customer's to read as they are (the job's or analysis's
// error).
func (c *Client) chat(ctx context.Context, system, user string) ([]byte, error) {
	body, err := json.Marshal(chatRequest{
		Model:          c.cfg.Model,
		Messages:       []message{{Role: "system", Content: system}, {Role: "user", Content: user}},
		ResponseFormat: map[string]string{"type": "json_object"},
	})
	if err != nil {
		return nil, fmt.Errorf("llm: encode the request: %w", err)
	}
	res, err := c.post.PostJSON(ctx, body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return nil, domain.Permanent(fmt.Errorf("chat model refused the request: %s", retryhttp.Refusal(res)))
	}
	return res.Body, nil
}

// shorten keeps at most limit characters of a transcript: its beginning and
// its end, where calls state their purpose and their outcome.
func shorten(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	head := limit * 2 / 3
	return string(r[:head]) + "\n…\n" + string(r[len(r)-(limit-head):])
}

// Parse reads a chat completion body and returns its checked, clipped
// title and resolution.
func Parse(body []byte) (title, resolution string, err error) {
	var res struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
				Refusal string          `json:"refusal"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return "", "", invalid("the completion is not JSON (%v): %q", err, retryhttp.Snippet(body, retryhttp.SnippetBytes))
	}
	if len(res.Choices) == 0 {
		return "", "", invalid("the completion has no choices")
	}
	choice := res.Choices[0]
	if choice.Message.Refusal != "" {
		return "", "", invalid("the model refused: %s", retryhttp.Snippet([]byte(choice.Message.Refusal), retryhttp.SnippetBytes))
	}
	content := text(choice.Message.Content)
	if content == "" {
		return "", "", invalid("the message is empty (finish_reason %q)", choice.FinishReason)
	}
	obj, err := object(content)
	if err != nil {
		reason := fmt.Sprintf("the message is not a JSON object (%v): %q", err, retryhttp.Snippet([]byte(content), retryhttp.SnippetBytes))
		if choice.FinishReason == "length" {
			reason += "; it was cut off at the token limit"
		}
		return "", "", invalid("%s", reason)
	}
	title, err = field(obj, "title", MaxTitle)
	if err != nil {
		return "", "", err
	}
	resolution, err = field(obj, "resolution", MaxResolution)
	if err != nil {
		return "", "", err
	}
	return title, resolution, nil
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidAnswer, fmt.Sprintf(format, args...))
}

// text reads message content: a string, or a list of text parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s)
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return strings.TrimSpace(b.String())
	}
	return ""
}

// object decodes the model's JSON object, forgiving a Markdown code fence or
// words around it, which models outside JSON mode add.
func object(content string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	err := json.Unmarshal([]byte(content), &obj)
	if err == nil {
		return obj, nil
	}
	if i, j := strings.Index(content, "{"), strings.LastIndex(content, "}"); i >= 0 && j > i {
		if json.Unmarshal([]byte(content[i:j+1]), &obj) == nil {
			return obj, nil
		}
	}
	return nil, err
}

// field checks one field of the answer and fits it to its limit.
func field(obj map[string]json.RawMessage, name string, limit int) (string, error) {
	raw, ok := obj[name]
	if !ok {
		return "", invalid("%q is missing", name)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalid("%q is not a string: %s", name, retryhttp.Snippet(raw, 80))
	}
	s = Clip(s, limit)
	switch {
	case s == "":
		return "", invalid("%q is empty", name)
	case !armenian(s):
		return "", invalid("%q is not in Armenian: %q", name, retryhttp.Snippet([]byte(s), 80))
	}
	return s, nil
}

func armenian(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Armenian, r) {
			return true
		}
	}
	return false
}

// Clip folds s onto one line and fits it into limit characters, cutting at
// the last word boundary that keeps at least half of it and marking the cut
// with "…".
func Clip(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	if limit <= 1 {
		return string([]rune(s)[:max(limit, 0)])
	}
	r := []rune(s)[:limit] // the rune at limit-1 gives way to "…"
	cut := limit - 1
	if r[cut] != ' ' { // not already at a boundary: back up to one
		for i := cut - 1; i >= limit/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
	}
	out := strings.TrimRightFunc(string(r[:cut]), func(c rune) bool {
		return unicode.IsSpace(c) || strings.ContainsRune(",;:-–—՝", c)
	})
	return out + "…"
}
