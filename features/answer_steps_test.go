package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"strconv"
	"strings"
	"time"
)

// ---- answers ----

func (w *world) statusIs(status int) error {
	if w.last == nil {
		return errors.New("no request was made")
	}
	if w.last.status != status {
		return fmt.Errorf("%s %s answered %d %s, want %d", w.last.method, redact(w.last.url), w.last.status, clip(w.last.body), status)
	}
	return nil
}

func (w *world) jsonErrorBody() (map[string]json.RawMessage, error) {
	if w.last == nil {
		return nil, errors.New("no request was made")
	}
	mt, _, _ := mime.ParseMediaType(w.last.header.Get("Content-Type"))
	if mt != "application/json" {
		return nil, fmt.Errorf("the %d answer has Content-Type %q, want application/json (body %s)", w.last.status, w.last.header.Get("Content-Type"), clip(w.last.body))
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(w.last.body, &body); err != nil {
		return nil, fmt.Errorf("the %d answer %s is not a JSON object: %v", w.last.status, clip(w.last.body), err)
	}
	return body, nil
}

func (w *world) jsonError() error {
	body, err := w.jsonErrorBody()
	if err != nil {
		return err
	}
	for _, f := range []string{"error", "code"} {
		var s string
		if err := json.Unmarshal(body[f], &s); err != nil || strings.TrimSpace(s) == "" {
			return fmt.Errorf("the %d answer %s has no non-empty string %q", w.last.status, clip(w.last.body), f)
		}
	}
	return nil
}

func (w *world) jsonErrorMentions(text string) error {
	body, err := w.jsonErrorBody()
	if err != nil {
		return err
	}
	var msg string
	if err := json.Unmarshal(body["error"], &msg); err != nil || !strings.Contains(msg, text) {
		return fmt.Errorf("the error %s does not mention %q", body["error"], text)
	}
	return nil
}

// ---- rate limit ----

func (w *world) secondsLeftInMinute(n int) error {
	now := time.Now()
	next := now.Truncate(time.Minute).Add(time.Minute)
	if next.Sub(now) < time.Duration(n)*time.Second {
		time.Sleep(time.Until(next) + 200*time.Millisecond) // the limit counts wall-clock minutes of the running service
	}
	return nil
}

func (w *world) burstPolls(n int) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.burst = w.burst[:0]
	for range n {
		r, err := w.getJob(j, j.owner.apiKey)
		if err != nil {
			return err
		}
		w.burst = append(w.burst, r)
	}
	return nil
}

func (w *world) burstAnswered(status int) error {
	if len(w.burst) == 0 {
		return errors.New("no polls were made")
	}
	first := w.burst[0].sent.Truncate(time.Minute)
	for i, r := range w.burst {
		if r.status != status {
			return fmt.Errorf("poll %d of %d answered %d %s, want %d", i+1, len(w.burst), r.status, clip(r.body), status)
		}
	}
	if last := w.burst[len(w.burst)-1].recvd.Truncate(time.Minute); !last.Equal(first) {
		return fmt.Errorf("the polls took from %s to %s, more than one wall-clock minute; the test needs them in one",
			w.burst[0].sent.Format(time.RFC3339Nano), w.burst[len(w.burst)-1].recvd.Format(time.RFC3339Nano))
	}
	return nil
}

func (w *world) retryAfter() error {
	if w.last == nil {
		return errors.New("no request was made")
	}
	h := w.last.header.Values("Retry-After")
	if len(h) != 1 {
		return fmt.Errorf("the answer has Retry-After %q, want one value", h)
	}
	secs, err := strconv.Atoi(h[0])
	if err != nil {
		return fmt.Errorf("Retry-After %q is not a whole number of seconds", h[0])
	}
	if secs < 1 || secs > 60 {
		return fmt.Errorf("Retry-After is %d, want 1 to 60", secs)
	}
	// Seconds to the top of the minute, as seen when the request was sent
	// (an upper bound) and when the answer came (a lower bound).
	next := w.last.sent.Truncate(time.Minute).Add(time.Minute)
	upper := int(math.Ceil(next.Sub(w.last.sent).Seconds()))
	lower := int(math.Floor(next.Sub(w.last.recvd).Seconds()))
	if secs > upper {
		return fmt.Errorf("Retry-After is %d, but only %d seconds were left in the minute", secs, upper)
	}
	if secs < lower {
		return fmt.Errorf("Retry-After is %d, but the next minute starts in %d seconds", secs, lower)
	}
	return nil
}

func (w *world) pollWithSecondKey() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	if a.secondKey == "" {
		return errors.New("I have no second API key")
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	_, err = w.getJob(j, a.secondKey)
	return err
}

func (w *world) waitRetryAfter() error {
	r := w.limited
	if r == nil {
		return errors.New("no request was refused with 429")
	}
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil {
		return fmt.Errorf("Retry-After %q is not a whole number of seconds", r.header.Get("Retry-After"))
	}
	time.Sleep(time.Until(r.recvd.Add(time.Duration(secs) * time.Second))) // as a client obeying Retry-After does
	return nil
}
