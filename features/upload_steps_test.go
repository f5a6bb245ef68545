package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// ---- uploading ----

func (w *world) uploadToJob(recording string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	r, err := w.upload(j.uploadURL, recording)
	if err != nil {
		return err
	}
	if r.status == http.StatusOK && j.recording == "" {
		j.recording = recording
	}
	return nil
}

// tamper changes one part of an upload address. The address's shape is the
// service's own business; what it holds is the docId, an expiry time and a
// signature, each of which this finds wherever it is.
func tamper(raw, part, otherDocID, docID string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	switch part {
	case "the signature":
		for k, vs := range q {
			if strings.Contains(strings.ToLower(k), "sig") && len(vs) == 1 && vs[0] != "" {
				v := []byte(vs[0])
				// Change one character to another of the same alphabet.
				i := len(v) / 2
				switch {
				case v[i] >= '0' && v[i] <= '8', v[i] >= 'a' && v[i] <= 'e', v[i] >= 'A' && v[i] <= 'E':
					v[i]++
				default:
					v[i] = '0'
				}
				q.Set(k, string(v))
				u.RawQuery = q.Encode()
				return u.String(), nil
			}
		}
		return "", fmt.Errorf("found no signature in the upload address %s", redact(raw))
	case "the expiry time":
		for k, vs := range q {
			if !strings.Contains(strings.ToLower(k), "exp") || len(vs) != 1 {
				continue
			}
			if n, err := strconv.ParseInt(vs[0], 10, 64); err == nil {
				q.Set(k, strconv.FormatInt(n+24*3600, 10)) // a day longer
			} else if t, err := time.Parse(time.RFC3339, vs[0]); err == nil {
				q.Set(k, t.Add(24*time.Hour).Format(time.RFC3339))
			} else {
				return "", fmt.Errorf("cannot read the expiry %q of the upload address", vs[0])
			}
			u.RawQuery = q.Encode()
			return u.String(), nil
		}
		return "", fmt.Errorf("found no expiry time in the upload address %s", redact(raw))
	case "the docId, to that of another of my jobs":
		if !strings.Contains(raw, docID) {
			return "", fmt.Errorf("the upload address %s does not contain the docId", redact(raw))
		}
		return strings.ReplaceAll(raw, docID, otherDocID), nil
	}
	return "", fmt.Errorf("unknown part %q", part)
}

func (w *world) uploadTampered(recording, part string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	j, err := w.myJob()
	if err != nil {
		return err
	}
	other := ""
	if strings.HasPrefix(part, "the docId") {
		o, err := w.createJob(a, "single_voice", nil)
		if err != nil {
			return err
		}
		other = o.docID
		// The job being tampered with stays the scenario's job.
		a.jobs = append(slices.DeleteFunc(a.jobs, func(x *job) bool { return x == j }), j)
	}
	u, err := tamper(j.uploadURL, part, other, j.docID)
	if err != nil {
		return err
	}
	if _, err := w.upload(u, recording); err != nil {
		return err
	}
	if other != "" {
		// The other job must not have received the audio either.
		saved := w.last
		oj := a.jobs[len(a.jobs)-2]
		r, err := w.getJob(oj, a.apiKey)
		if err != nil {
			return err
		}
		if r.status != http.StatusOK {
			return fmt.Errorf("polling the other job answered %d %s", r.status, clip(r.body))
		}
		if st := oj.polls[len(oj.polls)-1].status(); st != "uploading" {
			return fmt.Errorf("the other job is %q after an upload to a tampered address, want uploading", st)
		}
		w.last = saved
	}
	return nil
}

// fixtureSeconds are the durations of the recordings in testdata/audio.
var fixtureSeconds = map[string]float64{
	"speech-mono-16k.mp3": 5.58,
	"call-stereo-22k.mp3": 6.06,
	"id3-stereo-44k.mp3":  2.04,
	"vbr-stereo-44k.mp3":  3.03,
}

func (w *world) uploadTwiceAtOnce(first, second string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	names := []string{first, second}
	bodies := make([][]byte, 2)
	for i, n := range names {
		if bodies[i], err = w.audio(n); err != nil {
			return err
		}
	}
	start := make(chan struct{})
	results := make([]*response, 2)
	errs := make([]error, 2)
	done := make(chan int)
	for i := range names {
		go func() {
			<-start
			results[i], errs[i] = send(http.MethodPut, j.uploadURL, "", bodies[i], map[string]string{"Content-Type": "audio/mpeg"})
			done <- i
		}()
	}
	close(start)
	<-done
	<-done
	w.burst = w.burst[:0]
	for i := range names {
		if errs[i] != nil {
			return errs[i]
		}
		if err := results[i].failed(); err != nil {
			return err
		}
		w.burst = append(w.burst, results[i])
		if results[i].status == http.StatusOK {
			j.recording = names[i]
		}
	}
	w.last = results[1]
	return nil
}

func (w *world) oneUploadWon(status int) error {
	if len(w.burst) != 2 {
		return errors.New("two uploads were not made")
	}
	a, b := w.burst[0], w.burst[1]
	if a.status == http.StatusOK {
		a, b = b, a
	}
	// Now b should be the accepted one and a the refused one.
	if b.status != http.StatusOK || a.status != status {
		return fmt.Errorf("the two uploads answered %d %s and %d %s, want one 200 and one %d",
			w.burst[0].status, clip(w.burst[0].body), w.burst[1].status, clip(w.burst[1].body), status)
	}
	w.last = a
	return w.jsonError()
}

func (w *world) durationOfWinner() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	want, ok := fixtureSeconds[j.recording]
	if !ok {
		return fmt.Errorf("the duration of %q is not known", j.recording)
	}
	return w.durationAbout(want)
}

func (w *world) uploadAccepted() error {
	if w.last == nil || w.last.method != http.MethodPut {
		return errors.New("no upload was made")
	}
	if w.last.status != http.StatusOK {
		return fmt.Errorf("the upload answered %d %s, want 200", w.last.status, clip(w.last.body))
	}
	if len(w.last.body) != 0 {
		return fmt.Errorf("the upload answered 200 with a body %s; the upload answer has an empty body", clip(w.last.body))
	}
	return nil
}

func (w *world) uploadRefused(status int) error {
	if w.last == nil || w.last.method != http.MethodPut {
		return errors.New("no upload was made")
	}
	if err := w.statusIs(status); err != nil {
		return err
	}
	return w.jsonError()
}

func (w *world) iSubmit(recording, typ string) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.submit(a, recording, typ, nil)
	return err
}

func (w *world) iSubmitWithMetadata(recording, typ string, doc *godog.DocString) error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	meta := json.RawMessage(doc.Content)
	if !json.Valid(meta) {
		return fmt.Errorf("the metadata in the scenario is not JSON: %s", doc.Content)
	}
	_, err = w.submit(a, recording, typ, meta)
	return err
}

func (w *world) theySubmit(name, recording, typ string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.submit(a, recording, typ, nil)
	return err
}

func (w *world) uploadAddressOutside(prefix string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	u, err := url.Parse(j.uploadURL)
	if err != nil {
		return fmt.Errorf("the upload address %q is not a URL: %v", j.uploadURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the upload address %s is not an absolute http(s) address", redact(j.uploadURL))
	}
	if u.Path == prefix || strings.HasPrefix(u.Path, strings.TrimRight(prefix, "/")+"/") {
		return fmt.Errorf("the upload address %s is under %s", redact(j.uploadURL), prefix)
	}
	return nil
}

func (w *world) waitUploadExpired() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if w.inst.uploadTTL > time.Minute {
		return fmt.Errorf("this service's upload window is %s: too long to wait for", w.inst.uploadTTL)
	}
	// The address is signed to the second; wait one more to be past it.
	time.Sleep(time.Until(j.created.Add(w.inst.uploadTTL + 1100*time.Millisecond)))
	return nil
}
