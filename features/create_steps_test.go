package features

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
)

// ---- creating jobs ----

func (w *world) createPlain(typ string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.createJob(a, typ, nil)
	return err
}

func (w *world) theyCreate(name, typ string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.create(a, []byte(`{"type": "`+typ+`"}`))
	return err
}

func (w *world) createWithMetadata(typ string, doc *godog.DocString) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	meta := json.RawMessage(doc.Content)
	if !json.Valid(meta) {
		return fmt.Errorf("the metadata in the scenario is not JSON: %s", doc.Content)
	}
	body, err := json.Marshal(map[string]any{"type": typ, "metadata": meta})
	if err != nil {
		return err
	}
	r, err := w.create(a, body)
	if err != nil || r.status != http.StatusOK {
		return err // the status is checked by the next step
	}
	j, err := w.recordJob(a, r)
	if err != nil {
		return err
	}
	j.typ, j.metadata = typ, meta
	return nil
}

func (w *world) createRaw(body string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.create(a, []byte(body))
	return err
}

func (w *world) createBigMetadata(typ string, n int, unit string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	size := n << 10
	if unit == "MiB" {
		size = n << 20
	}
	// Armenian and ASCII text, so the size is in bytes of real UTF-8.
	chunk := "Բարև ձեզ, hello. "
	text := strings.Repeat(chunk, size/len(chunk)+1)
	meta, err := json.Marshal(map[string]any{"note": text, "crmId": "C-big"})
	if err != nil {
		return err
	}
	body, err := json.Marshal(map[string]any{"type": typ, "metadata": json.RawMessage(meta)})
	if err != nil {
		return err
	}
	r, err := w.create(a, body)
	if err != nil {
		return err
	}
	if r.status == http.StatusOK {
		j, err := w.recordJob(a, r)
		if err != nil {
			return err
		}
		j.typ, j.metadata = typ, meta
	}
	return nil
}

// credentials turns a phrase of the scenario into an Authorization header
// value ("" for none).
func (w *world) credentials(phrase string) (string, error) {
	a, err := w.actor(me)
	if err != nil {
		return "", err
	}
	switch {
	case phrase == "without an API key":
		return "", nil
	case strings.HasPrefix(phrase, `with the API key "`):
		return "Bearer " + strings.TrimSuffix(strings.TrimPrefix(phrase, `with the API key "`), `"`), nil
	case phrase == "with a well-formed API key that was never issued":
		return "Bearer " + neverIssuedKey(), nil
	case phrase == `sending my API key with the "Basic" scheme`:
		return "Basic " + a.apiKey, nil
	}
	return "", fmt.Errorf("unknown credentials %q", phrase)
}

// neverIssuedKey looks exactly like a key ("hsk_" + 40 base62) but is random.
func neverIssuedKey() string {
	const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 40)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = base62[int(b[i])%len(base62)]
	}
	return "hsk_" + string(b)
}

func (w *world) doWithAuth(method, rawURL, auth string, body []byte, header map[string]string) (*response, error) {
	h := map[string]string{}
	for k, v := range header {
		h[k] = v
	}
	if auth != "" {
		h["Authorization"] = auth
	}
	return w.do(method, rawURL, "", body, h)
}

func (w *world) createWithCredentials(typ, phrase string) error {
	auth, err := w.credentials(phrase)
	if err != nil {
		return err
	}
	_, err = w.doWithAuth(http.MethodPost, w.api("/api/createTranscription"), auth, []byte(`{"type": "`+typ+`"}`), map[string]string{"Content-Type": "application/json"})
	return err
}

func (w *world) getCreate() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.api("/api/createTranscription"), a.apiKey, nil, nil)
	return err
}

func (w *world) createAnswered() error {
	if w.last == nil || w.last.status != http.StatusOK {
		return errors.New("the job was not created")
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if len(j.docID) < 16 {
		return fmt.Errorf("the docId %q is too short to be unguessable", j.docID)
	}
	if _, err := url.Parse(j.uploadURL); err != nil {
		return fmt.Errorf("the upload address %q is not a URL: %v", j.uploadURL, err)
	}
	return nil
}
