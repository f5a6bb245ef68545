package features

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cucumber/godog"
)

// ---- polling ----

func (w *world) checkJob() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	w.pace(j.owner.apiKey, time.Now().Add(time.Minute))
	r, err := w.getJob(j, j.owner.apiKey)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return fmt.Errorf("polling the job answered %d %s, want 200", r.status, clip(r.body))
	}
	return nil
}

// checkJobAny polls once and leaves the answer, whatever it is, to the next steps.
func (w *world) checkJobAny() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.getJob(j, j.owner.apiKey)
	return err
}

func (w *world) pollUntilFinished() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.waitFinished(j)
	return err
}

func (w *world) theyPollUntilFinished(name string) error {
	j, err := w.lastJob(name)
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.waitFinished(j)
	return err
}

func (w *world) askWithCredentials(phrase string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	auth, err := w.credentials(phrase)
	if err != nil {
		return err
	}
	_, err = w.doWithAuth(http.MethodGet, w.pollURL(j.docID), auth, nil, nil)
	return err
}

func (w *world) askWithoutDocID() error {
	a, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.api("/api/getTranscription"), a.apiKey, nil, nil)
	return err
}

// unknownDocID looks like a docId but names no job.
func unknownDocID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (w *world) askUnknown() error { return w.theyAskUnknown(me) }

func (w *world) theyAskUnknown(name string) error {
	a, err := w.actor(name)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodGet, w.pollURL(unknownDocID()), a.apiKey, nil, nil)
	return err
}

func (w *world) askTheirJob(name string) error {
	return w.onTheirJob(name, func(mine *actor, j *job) error {
		_, err := w.do(http.MethodGet, w.pollURL(j.docID), mine.apiKey, nil, nil)
		return err
	})
}

// sameAsUnknown checks that the last answer, about another customer's job,
// has the status and body of the one ask gets about a job that does not
// exist, and returns both. The last answer stays theirs.
func (w *world) sameAsUnknown(ask func() error) (theirs, unknown *response, err error) {
	theirs = w.last
	if err := ask(); err != nil {
		return nil, nil, err
	}
	unknown = w.last
	w.last = theirs
	if theirs.status != unknown.status || string(theirs.body) != string(unknown.body) {
		return nil, nil, fmt.Errorf("another customer's job answers %d %s, a job that does not exist answers %d %s",
			theirs.status, clip(theirs.body), unknown.status, clip(unknown.body))
	}
	return theirs, unknown, nil
}

func (w *world) identicalToUnknown() error {
	theirs, unknown, err := w.sameAsUnknown(w.askUnknown)
	if err != nil {
		return err
	}
	if ct1, ct2 := theirs.header.Get("Content-Type"), unknown.header.Get("Content-Type"); ct1 != ct2 {
		return fmt.Errorf("the Content-Types differ: %q and %q", ct1, ct2)
	}
	return nil
}

func (w *world) wrongMethodPoll(method string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	_, err = w.do(method, w.pollURL(j.docID), j.owner.apiKey, []byte(`{}`), map[string]string{"Content-Type": "application/json"})
	return err
}

// ---- the job as polled ----

// lastPoll is the latest answer about the job the scenario last polled.
func (w *world) lastPoll() (*job, poll, error) {
	j := w.subject
	if j == nil {
		return nil, poll{}, errors.New("no job has been polled yet")
	}
	p, err := j.lastPoll()
	return j, p, err
}

func (w *world) jobIs(status string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.status(); got != status {
		detail := ""
		if e := p.str("error"); e != "" {
			detail = fmt.Sprintf(" with the error %q", e)
		}
		return fmt.Errorf("the job is %q%s, want %q", got, detail, status)
	}
	return nil
}

func (w *world) jobFields(list string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got, want := fieldNames(p.fields), nameList(list); !slices.Equal(got, want) {
		return fmt.Errorf("the job shows the fields %v, want exactly %v (answer: %s)", got, want, clip(p.body))
	}
	return nil
}

var alwaysFields = []string{"createdAt", "docId", "duration", "metadata", "status", "type"}

func (w *world) noEarlyFields() error {
	j := w.subject
	if j == nil {
		return errors.New("no job has been polled yet")
	}
	early := 0
	for i, p := range j.polls {
		switch p.status() {
		case "transcribed", "failed":
			continue
		}
		early++
		if got := fieldNames(p.fields); !slices.Equal(got, alwaysFields) {
			return fmt.Errorf("poll %d, status %q, showed the fields %v, want exactly %v", i+1, p.status(), got, alwaysFields)
		}
	}
	if early == 0 {
		return errors.New("no answer was seen while the job was unfinished")
	}
	return nil
}

func (w *world) jobDocID() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("docId"); got != j.docID {
		return fmt.Errorf("the job's docId is %q, but creation gave %q", got, j.docID)
	}
	return nil
}

func (w *world) jobType(typ string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("type"); got != typ {
		return fmt.Errorf("the job's type is %q, want %q", got, typ)
	}
	return nil
}

func (w *world) jobLanguage(code string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if got := p.str("languageCode"); got != code {
		return fmt.Errorf("the job's languageCode is %q, want %q", got, code)
	}
	return nil
}

func (w *world) durationNull() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	raw, ok := p.fields["duration"]
	if !ok || string(raw) != "null" {
		return fmt.Errorf("the job's duration is %s, want null", raw)
	}
	return nil
}

func (w *world) jobDuration() (float64, error) {
	_, p, err := w.lastPoll()
	if err != nil {
		return 0, err
	}
	var d *float64
	if err := json.Unmarshal(p.fields["duration"], &d); err != nil || d == nil {
		return 0, fmt.Errorf("the job's duration is %s, not a number", p.fields["duration"])
	}
	return *d, nil
}

func (w *world) durationAbout(want float64) error {
	d, err := w.jobDuration()
	if err != nil {
		return err
	}
	if math.Abs(d-want) > 0.15 {
		return fmt.Errorf("the job's duration is %v seconds, want about %v", d, want)
	}
	return nil
}

func (w *world) jobMetadataAsSent() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if j.metadata == nil {
		return errors.New("no metadata was sent for this job")
	}
	same, err := sameJSON(j.metadata, p.fields["metadata"])
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("the job's metadata is %s, but %s was sent", clip(p.fields["metadata"]), clip(j.metadata))
	}
	return nil
}

func (w *world) jobMetadataEmpty() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if same, err := sameJSON([]byte(`{}`), p.fields["metadata"]); err != nil || !same {
		return fmt.Errorf("the job's metadata is %s, want {}", p.fields["metadata"])
	}
	return nil
}

func (w *world) createdAtISO() error {
	j, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	s := p.str("createdAt")
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return fmt.Errorf("createdAt %s is not an ISO 8601 date-time: %v", p.fields["createdAt"], err)
	}
	// The request was sent at j.created; the server stamps it a moment later.
	if t.Before(j.created.Add(-2*time.Second)) || t.After(j.created.Add(10*time.Second)) {
		return fmt.Errorf("createdAt is %s, but the job was created at %s", s, j.created.UTC().Format(time.RFC3339Nano))
	}
	return nil
}

func isArmenian(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Armenian, r) && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

func (w *world) armenianTexts() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	for _, f := range []string{"transcription", "title", "resolution"} {
		v := strings.TrimSpace(p.str(f))
		if v == "" || !isArmenian(v) {
			return fmt.Errorf("the job's %s is %s, want Armenian text", f, p.fields[f])
		}
	}
	return nil
}

func (w *world) titleShape(n int) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("title")
	if strings.ContainsAny(t, "\r\n") || utf8.RuneCountInString(t) > n || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the title %q is not one non-empty line of at most %d characters", t, n)
	}
	return nil
}

func (w *world) resolutionShape(n int) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("resolution")
	if strings.Contains(t, "\n\n") || utf8.RuneCountInString(t) > n || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the resolution %q is not one non-empty paragraph of at most %d characters", t, n)
	}
	return nil
}

var labelRE = regexp.MustCompile(`Խոսնակ\s*\d+\s*:`)

func (w *world) noSpeakerLabels() error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	if t := p.str("transcription"); labelRE.MatchString(t) || strings.TrimSpace(t) == "" {
		return fmt.Errorf("the transcription %q is empty or has speaker labels", t)
	}
	return nil
}

func (w *world) turnsInOrder(table *godog.Table) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	t := p.str("transcription")
	lines := strings.Split(strings.TrimSpace(t), "\n")
	if len(lines) != len(table.Rows) {
		return fmt.Errorf("the transcription has %d lines, want %d:\n%s", len(lines), len(table.Rows), t)
	}
	for i, row := range table.Rows {
		label := row.Cells[0].Value + ":"
		if !strings.HasPrefix(lines[i], label) || strings.TrimSpace(strings.TrimPrefix(lines[i], label)) == "" {
			return fmt.Errorf("line %d of the transcription is %q, want %q followed by what was said:\n%s", i+1, lines[i], label, t)
		}
	}
	return nil
}

func twoLabels(text, a, b string) error {
	found := map[string]bool{}
	for _, m := range labelRE.FindAllString(text, -1) {
		found[strings.TrimSuffix(m, ":")] = true
	}
	if len(found) != 2 || !found[a] || !found[b] {
		return fmt.Errorf("the transcription uses the labels %v, want exactly %q and %q:\n%s", found, a, b, text)
	}
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if !strings.HasPrefix(line, a+":") && !strings.HasPrefix(line, b+":") {
			return fmt.Errorf("the transcription line %q does not start with a speaker label", line)
		}
	}
	return nil
}

func (w *world) jobTwoLabels(a, b string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	return twoLabels(p.str("transcription"), a, b)
}

var quotedRE = regexp.MustCompile(`"([^"]*)"`)

// errorMentions accepts `"a"` or `"a" or "b"`: the error must contain one of
// them, ignoring case.
func (w *world) errorMentions(alternatives string) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	msg := p.str("error")
	if strings.TrimSpace(msg) == "" {
		return fmt.Errorf("the job has no error message (answer: %s)", clip(p.body))
	}
	var want []string
	for _, m := range quotedRE.FindAllStringSubmatch(alternatives, -1) {
		want = append(want, m[1])
		if strings.Contains(strings.ToLower(msg), strings.ToLower(m[1])) {
			return nil
		}
	}
	return fmt.Errorf("the job's error %q mentions none of %q", msg, want)
}

var balanceRE = regexp.MustCompile(`recording is (\d+(?:\.\d+)?) s, (\d+(?:\.\d+)?) s remain`)

func (w *world) balanceError(length, remain float64) error {
	_, p, err := w.lastPoll()
	if err != nil {
		return err
	}
	msg := p.str("error")
	m := balanceRE.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("the job's error %q does not say \"recording is N s, M s remain\"", msg)
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	r, _ := strconv.ParseFloat(m[2], 64)
	if math.Abs(n-length) > 0.15 || math.Abs(r-remain) > 0.05 {
		return fmt.Errorf("the job's error %q names %v s and %v s remaining, want about %v s and %v s", msg, n, r, length, remain)
	}
	return nil
}
