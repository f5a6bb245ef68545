package features

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cucumber/godog"
)

// exportSteps are the steps of export.feature and deletion.feature.
func (w *world) exportSteps(sc *godog.ScenarioContext) {
	sc.Step(`^I export the job as "([^"]*)"$`, w.exportMine)
	sc.Step(`^I export "([^"]+)"'s job as "([^"]*)"$`, w.exportTheirs)
	sc.Step(`^the export is a "([^"]*)" download named after the job with the extension "([^"]*)"$`, w.exportDownload)
	sc.Step(`^every cue lasts at most (\d+) seconds and holds at most (\d+) characters$`, w.cueLimits)
	sc.Step(`^the cues name the speakers "([^"]*)" and "([^"]*)"$`, w.cueSpeakers)
	sc.Step(`^the cues carry the voice tags "([^"]*)" and "([^"]*)"$`, w.cueVoiceTags)
	sc.Step(`^the export starts with "([^"]*)"$`, w.exportStarts)
	sc.Step(`^the export is the job's transcription$`, w.exportIsTranscription)
	sc.Step(`^the export has segments and words, each with a start, an end and a speaker, in time order$`, w.exportJSON)
	sc.Step(`^the response body is identical to the one for (exporting|deleting) a job that does not exist$`, w.identicalToUnknownFor)

	sc.Step(`^I delete the job$`, w.deleteMine)
	sc.Step(`^I delete "([^"]+)"'s job$`, w.deleteTheirs)
	sc.Step(`^I delete a job without giving its docId$`, w.deleteWithoutDocID)
	sc.Step(`^the response says the job was deleted$`, w.saysDeleted)
	sc.Step(`^"([^"]+)"'s job is still transcribed$`, w.theirJobTranscribed)
}

func (w *world) exportURL(docID, format string) string {
	return w.api("/api/exportTranscription?docId=" + url.QueryEscape(docID) + "&format=" + url.QueryEscape(format))
}

func (w *world) exportMine(format string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.do(http.MethodGet, w.exportURL(j.docID, format), j.owner.apiKey, nil, nil)
	return err
}

func (w *world) exportTheirs(name, format string) error {
	return w.onTheirJob(name, func(mine *actor, j *job) error {
		_, err := w.do(http.MethodGet, w.exportURL(j.docID, format), mine.apiKey, nil, nil)
		return err
	})
}

func (w *world) exportDownload(mediaType, ext string) error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	mt, params, err := mime.ParseMediaType(w.last.header.Get("Content-Type"))
	if err != nil || mt != mediaType || !strings.EqualFold(params["charset"], "utf-8") {
		return fmt.Errorf("Content-Type %q, want %s; charset=utf-8", w.last.header.Get("Content-Type"), mediaType)
	}
	disp, dparams, err := mime.ParseMediaType(w.last.header.Get("Content-Disposition"))
	if err != nil || disp != "attachment" || dparams["filename"] != j.docID+"."+ext {
		return fmt.Errorf("Content-Disposition %q, want an attachment named %s.%s", w.last.header.Get("Content-Disposition"), j.docID, ext)
	}
	return nil
}

// cueTiming is a cue's time line in SRT (comma) or VTT (dot) form.
var cueTiming = regexp.MustCompile(`^(\d\d):(\d\d):(\d\d)[,.](\d\d\d) --> (\d\d):(\d\d):(\d\d)[,.](\d\d\d)$`)

type cue struct {
	start, end float64
	text       string
}

// cues reads the cues of the last SRT or VTT answer.
func (w *world) cues() ([]cue, error) {
	var out []cue
	blocks := strings.Split(strings.ReplaceAll(string(w.last.body), "\r\n", "\n"), "\n\n")
	for _, b := range blocks {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		for i, l := range lines {
			m := cueTiming.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			secs := func(h, mi, s, ms string) float64 {
				var a, b2, c, d int
				fmt.Sscan(h, &a)
				fmt.Sscan(mi, &b2)
				fmt.Sscan(s, &c)
				fmt.Sscan(ms, &d)
				return float64(a*3600+b2*60+c) + float64(d)/1000
			}
			out = append(out, cue{start: secs(m[1], m[2], m[3], m[4]), end: secs(m[5], m[6], m[7], m[8]), text: strings.Join(lines[i+1:], " ")})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cues in %s", clip(w.last.body))
	}
	return out, nil
}

var speakerPrefix = regexp.MustCompile(`^(<v [^>]+>|Խոսնակ \d: )`)

func (w *world) cueLimits(seconds, chars int) error {
	cs, err := w.cues()
	if err != nil {
		return err
	}
	for i, c := range cs {
		if c.end < c.start || c.end-c.start > float64(seconds)+0.001 {
			return fmt.Errorf("cue %d runs %.3f → %.3f s", i+1, c.start, c.end)
		}
		if i > 0 && c.start < cs[i-1].end {
			return fmt.Errorf("cue %d starts before cue %d ends", i+1, i)
		}
		if n := utf8.RuneCountInString(speakerPrefix.ReplaceAllString(c.text, "")); n > chars {
			return fmt.Errorf("cue %d holds %d characters: %q", i+1, n, c.text)
		}
	}
	return nil
}

func (w *world) cueSpeakers(a, b string) error {
	return w.cuePrefixes(a+": ", b+": ")
}

func (w *world) cueVoiceTags(a, b string) error { return w.cuePrefixes(a, b) }

// cuePrefixes checks that every cue begins with one of the two and both occur.
func (w *world) cuePrefixes(a, b string) error {
	cs, err := w.cues()
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range cs {
		switch {
		case strings.HasPrefix(c.text, a):
			seen[a] = true
		case strings.HasPrefix(c.text, b):
			seen[b] = true
		default:
			return fmt.Errorf("cue %d names no speaker: %q", i+1, c.text)
		}
	}
	if !seen[a] || !seen[b] {
		return fmt.Errorf("the cues do not name both speakers: %v", seen)
	}
	return nil
}

func (w *world) exportStarts(prefix string) error {
	if !strings.HasPrefix(string(w.last.body), prefix) {
		return fmt.Errorf("the export begins %q", clip(w.last.body))
	}
	return nil
}

func (w *world) exportIsTranscription() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	if len(j.polls) == 0 {
		return errors.New("the job was never polled")
	}
	var text string
	if err := json.Unmarshal(j.polls[len(j.polls)-1].fields["transcription"], &text); err != nil {
		return err
	}
	if strings.TrimRight(string(w.last.body), "\n") != text {
		return fmt.Errorf("the export %q is not the transcription %q", clip(w.last.body), text)
	}
	return nil
}

func (w *world) exportJSON() error {
	var doc struct {
		DocID    string `json:"docId"`
		Segments []struct {
			Start, End *float64
			Speaker    *string
			Text       string
		} `json:"segments"`
		Words []struct {
			Start, End *float64
			Speaker    *string
			Word       string
		} `json:"words"`
	}
	if err := json.Unmarshal(w.last.body, &doc); err != nil {
		return fmt.Errorf("the export is not JSON: %v", err)
	}
	if len(doc.Segments) == 0 || len(doc.Words) < len(doc.Segments) {
		return fmt.Errorf("%d segments and %d words", len(doc.Segments), len(doc.Words))
	}
	last := -1.0
	for i, s := range doc.Segments {
		if s.Start == nil || s.End == nil || s.Speaker == nil || !strings.HasPrefix(*s.Speaker, "Խոսնակ ") || *s.Start < last || *s.End < *s.Start || s.Text == "" {
			return fmt.Errorf("segment %d: %+v", i, s)
		}
		last = *s.Start
	}
	last = -1
	for i, wd := range doc.Words {
		if wd.Start == nil || wd.End == nil || wd.Speaker == nil || *wd.Start < last || *wd.End < *wd.Start || wd.Word == "" {
			return fmt.Errorf("word %d: %+v", i, wd)
		}
		last = *wd.Start
	}
	return nil
}

func (w *world) identicalToUnknownFor(what string) error {
	_, _, err := w.sameAsUnknown(func() error {
		mine, err := w.actor(me)
		if err != nil {
			return err
		}
		if what == "exporting" {
			_, err = w.do(http.MethodGet, w.exportURL(unknownDocID(), "txt"), mine.apiKey, nil, nil)
		} else {
			_, err = w.deleteDoc(mine, unknownDocID())
		}
		return err
	})
	return err
}

func (w *world) deleteDoc(a *actor, docID string) (*response, error) {
	body, _ := json.Marshal(map[string]string{"docId": docID})
	return w.do(http.MethodPost, w.api("/api/deleteTranscription"), a.apiKey, body, map[string]string{"Content-Type": "application/json"})
}

func (w *world) deleteMine() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	w.subject = j
	_, err = w.deleteDoc(j.owner, j.docID)
	return err
}

func (w *world) deleteTheirs(name string) error {
	return w.onTheirJob(name, func(mine *actor, j *job) error {
		_, err := w.deleteDoc(mine, j.docID)
		return err
	})
}

func (w *world) deleteWithoutDocID() error {
	mine, err := w.actor(me)
	if err != nil {
		return err
	}
	_, err = w.do(http.MethodPost, w.api("/api/deleteTranscription"), mine.apiKey, []byte(`{}`), map[string]string{"Content-Type": "application/json"})
	return err
}

func (w *world) saysDeleted() error {
	j, err := w.myJob()
	if err != nil {
		return err
	}
	var got map[string]any
	if err := json.Unmarshal(w.last.body, &got); err != nil {
		return fmt.Errorf("the answer %s is not JSON", clip(w.last.body))
	}
	if len(got) != 2 || got["docId"] != j.docID || got["deleted"] != true {
		return fmt.Errorf("the answer %s is not {\"docId\": %q, \"deleted\": true}", clip(w.last.body), j.docID)
	}
	return nil
}

func (w *world) theirJobTranscribed(name string) error {
	j, err := w.lastJob(name)
	if err != nil {
		return err
	}
	saved := w.last
	defer func() { w.last = saved }()
	deadline := time.Now().Add(finishDeadline)
	for {
		r, err := w.getJob(j, j.owner.apiKey)
		if err != nil {
			return err
		}
		if r.status == http.StatusOK {
			break
		}
		if r.status != http.StatusTooManyRequests || time.Now().After(deadline) {
			return fmt.Errorf("%s's job answers %d %s", name, r.status, clip(r.body))
		}
		time.Sleep(time.Second)
	}
	var status string
	_ = json.Unmarshal(j.polls[len(j.polls)-1].fields["status"], &status)
	if status != "transcribed" {
		return fmt.Errorf("%s's job is %q", name, status)
	}
	return nil
}
