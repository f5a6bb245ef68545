package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestDecideFixedMinuteWindow(t *testing.T) {
	base := time.Date(2026, 11, 21, 10, 7, 0, 0, time.UTC)
	cases := []struct {
		at         time.Duration
		count      int
		allowed    bool
		retryAfter int
	}{
		{0, 0, true, 0},
		{30 * time.Second, 59, true, 0},
		{30 * time.Second, 60, false, 30},
		{45*time.Second + 200*time.Millisecond, 60, false, 15},
		{59*time.Second + 999*time.Millisecond, 61, false, 1},
		{0, 60, false, 60},
	}
	for _, c := range cases {
		ok, ra := Decide(base.Add(c.at), c.count, PollRateLimit)
		if ok != c.allowed || ra != c.retryAfter {
			t.Errorf("at +%v count %d: (%v,%d), want (%v,%d)", c.at, c.count, ok, ra, c.allowed, c.retryAfter)
		}
	}
	if !RateWindow(base.Add(59*time.Second)).Equal(base) || !RateWindow(base.Add(60*time.Second)).Equal(base.Add(time.Minute)) {
		t.Fatal("window must reset at the top of each minute")
	}
	if msg := RateLimitMessage(60, 12); !strings.Contains(msg, "60 requests per minute") {
		t.Fatal(msg)
	}
}

func TestParseCreateRequest(t *testing.T) {
	ok := []struct {
		body string
		want CreateRequest
	}{
		{`{"type":"single_voice"}`, CreateRequest{Type: TypeSingleVoice}},
		{`{"type":"phone_call","metadata":{"a": [1, 2] ,"b":"Բ"},"checklistId":"c1"}`, CreateRequest{Type: TypePhoneCall, Metadata: json.RawMessage(`{"a":[1,2],"b":"Բ"}`), ChecklistID: "c1"}},
		{`{"type":"single_voice","metadata":null,"unknown":1}`, CreateRequest{Type: TypeSingleVoice}},
	}
	for _, c := range ok {
		got, err := ParseCreateRequest([]byte(c.body))
		if err != nil || got.Type != c.want.Type || string(got.Metadata) != string(c.want.Metadata) || got.ChecklistID != c.want.ChecklistID {
			t.Errorf("%s: %+v %v", c.body, got, err)
		}
	}
	bad := map[string]string{
		``:                                       "empty_body",
		`   `:                                    "empty_body",
		`{`:                                      "invalid_json",
		`[1]`:                                    "invalid_json",
		`"x"`:                                    "invalid_json",
		`null`:                                   "invalid_json",
		`{}`:                                     "missing_type",
		`{"type":null}`:                          "missing_type",
		`{"type":5}`:                             "invalid_type",
		`{"type":"video"}`:                       "invalid_type",
		`{"type":"SINGLE_VOICE"}`:                "invalid_type",
		`{"type":"single_voice","metadata":[]}`:  "invalid_metadata",
		`{"type":"single_voice","metadata":"x"}`: "invalid_metadata",
		`{"type":"single_voice","checklistId":7}`:  "invalid_checklist",
		`{"type":"single_voice","checklistId":""}`: "invalid_checklist",
	}
	for body, code := range bad {
		_, err := ParseCreateRequest([]byte(body))
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Code != code || !errors.Is(err, ErrValidation) || ve.Msg == "" {
			t.Errorf("%q: %v, want code %s", body, err, code)
		}
	}
}

func FuzzParseCreateRequest(f *testing.F) {
	for _, s := range []string{`{"type":"single_voice"}`, `{"type":"phone_call","metadata":{"a":1}}`, `{`, `[]`, `{"metadata":{}}`,
		`{"type":"single_voice","metadata":{"a":[[[[[[[[[[1]]]]]]]]]]}}`, "{\"type\":\"single_voice\",\"metadata\":{\"\xff\":1}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := ParseCreateRequest(b)
		if err != nil {
			if !errors.Is(err, ErrValidation) {
				t.Fatalf("non-validation error %v", err)
			}
			return
		}
		if !req.Type.Valid() {
			t.Fatalf("accepted type %q", req.Type)
		}
		if len(req.Metadata) > 0 && !json.Valid(req.Metadata) {
			t.Fatalf("accepted invalid metadata %q", req.Metadata)
		}
		if !utf8.Valid(b) {
			t.Fatalf("accepted a body that is not UTF-8: %q", b)
		}
		if len(req.Metadata) > 0 && checkMetadata(req.Metadata) != nil {
			t.Fatalf("accepted metadata past its limits: %q", req.Metadata)
		}
	})
}

func keys(t *testing.T, v any) map[string]json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPollViewFieldAvailability(t *testing.T) {
	always := []string{"docId", "status", "createdAt", "type", "duration", "metadata"}
	done := []string{"transcription", "title", "resolution", "languageCode"}
	j := newTestJob(TypePhoneCall)
	check := func(state string, extra []string) map[string]json.RawMessage {
		m := keys(t, NewPollView(j))
		want := append(append([]string{}, always...), extra...)
		if len(m) != len(want) {
			t.Fatalf("%s: fields %v, want %v", state, m, want)
		}
		for _, k := range want {
			if _, ok := m[k]; !ok {
				t.Fatalf("%s: missing %s", state, k)
			}
		}
		return m
	}
	m := check("uploading", nil)
	if string(m["duration"]) != "null" || string(m["metadata"]) != `{"crm":"A-1"}` || string(m["createdAt"]) != `"2026-11-21T10:00:00.000Z"` || string(m["type"]) != `"phone_call"` {
		t.Fatalf("uploading view %s", m)
	}
	j.ReceiveUpload(t0, "k", 1)
	j.Measure(t0, AudioInfo{Duration: 12.5}, business(60), 0)
	m = check("processing", nil)
	if string(m["duration"]) != "12.5" {
		t.Fatalf("duration %s", m["duration"])
	}
	j.StartConverting(t0)
	check("converting", nil)
	j.Recognize(t0, "Խոսնակ 1: Բարև", nil)
	j.Complete(t0, "Վերնագիր", "Ամփոփում", LanguageArmenian)
	m = check("transcribed", done)
	if string(m["languageCode"]) != `"hy-AM"` {
		t.Fatal(m["languageCode"])
	}
	f := newTestJob(TypeSingleVoice)
	f.Fail(t0, "the file is WAV audio, not MP3", nil)
	m = keys(t, NewPollView(f))
	if string(m["error"]) != `"the file is WAV audio, not MP3"` || m["transcription"] != nil {
		t.Fatalf("failed view %s", m)
	}
}

func TestPayloadsHaveExactlyTheSpecFields(t *testing.T) {
	j := newTestJob(TypeSingleVoice)
	j.Transcription, j.Title, j.Resolution = "text", "title", "res"
	tr := keys(t, NewTranscriptReady(j, "s3cret", "http://h:1/"))
	want := []string{"event_type", "secret", "docId", "transcription", "metadata", "title", "resolution", "link"}
	if len(tr) != len(want) {
		t.Fatalf("transcript_ready fields %v", tr)
	}
	for _, k := range want {
		if tr[k] == nil {
			t.Fatalf("missing %s", k)
		}
	}
	if string(tr["link"]) != `"http://h:1/app/recordings/doc1"` || string(tr["event_type"]) != `"transcript_ready"` || string(tr["secret"]) != `"s3cret"` {
		t.Fatalf("%s", tr)
	}
	ar := keys(t, AnalysisReadyPayload{EventType: EventAnalysisReady, Results: map[string]QuestionResult{}})
	for _, k := range []string{"event_type", "secret", "docId", "analysisId", "metadata", "checklistId", "checklistName", "results", "link"} {
		if _, ok := ar[k]; !ok {
			t.Fatalf("analysis_ready missing %s", k)
		}
	}
	if len(ar) != 9 {
		t.Fatalf("analysis_ready fields %v", ar)
	}
	j.Error = "boom"
	tf := keys(t, NewTranscriptFailed(j, "s", "http://h"))
	if len(tf) != 6 || string(tf["error"]) != `"boom"` {
		t.Fatalf("transcript_failed %s", tf)
	}
}

func TestFormatPhoneCall(t *testing.T) {
	segs := []Segment{
		{Start: 0, Text: "Բարև ձեզ։", Speaker: "R"},
		{Start: 1, Text: "Բարև։", Speaker: "L"},
		{Start: 2, Text: "Ինչո՞վ", Speaker: "L"},
		{Start: 3, Text: "  ", Speaker: "R"},
		{Start: 4, Text: "Պատվերի մասին։", Speaker: "R"},
	}
	want := "Խոսնակ 1: Բարև ձեզ։\nԽոսնակ 2: Բարև։ Ինչո՞վ\nԽոսնակ 1: Պատվերի մասին։"
	if got := FormatPhoneCall(segs); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	third := append(segs, Segment{Start: 5, Text: "երրորդ", Speaker: "X"})
	if got := FormatPhoneCall(third); strings.Contains(got, "Խոսնակ 3") {
		t.Fatalf("a third label was written: %s", got)
	}
	merged := MergeChannels([]Segment{{Start: 0, Text: "a"}, {Start: 2, Text: "c"}}, []Segment{{Start: 1, Text: "b"}}, "L", "R")
	if FormatPhoneCall(merged) != "Խոսնակ 1: a\nԽոսնակ 2: b\nԽոսնակ 1: c" {
		t.Fatal(FormatPhoneCall(merged))
	}
	nums := NumberSpeakers(segs)
	if nums[0].Speaker != "1" || nums[1].Speaker != "2" || nums[4].Speaker != "1" {
		t.Fatalf("%+v", nums)
	}
}

func TestAPIKeys(t *testing.T) {
	random := []byte(strings.Repeat("\x01\x7f\xfe", 20))
	raw, k := NewAPIKey("k1", "a1", random, t0)
	if !ValidAPIKeyFormat(raw) || !strings.HasPrefix(raw, "hsk_") || len(raw) != 44 {
		t.Fatalf("key %q", raw)
	}
	if k.Hash != HashAPIKey(raw) || strings.Contains(k.Hash, raw) || !strings.HasPrefix(raw, k.Prefix) {
		t.Fatalf("stored %+v", k)
	}
	for _, bad := range []string{"", "hsk_", "hsk_" + strings.Repeat("a", 39), "xsk_" + strings.Repeat("a", 40), "hsk_" + strings.Repeat("-", 40)} {
		if ValidAPIKeyFormat(bad) {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestParseChecklistFile(t *testing.T) {
	if _, err := ParseChecklistFile([]byte(`{"name":"QA","questions":[{"id":"greet","text":"Greeted?","expect":["բարև"]}]}`)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`{`, `{"name":"","questions":[{"id":"a","text":"b"}]}`, `{"name":"x","questions":[]}`, `{"name":"x","questions":[{"id":"a","text":"b"},{"id":"a","text":"c"}]}`, `{"name":"x","questions":[{"id":"","text":"b"}]}`} {
		if _, err := ParseChecklistFile([]byte(bad)); !errors.Is(err, ErrValidation) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
