package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// engineRow is one row of the README's engine table: the settings that
// work for an engine, and the engine's exact wire shape.
type engineRow struct {
	name    string
	profile string // HYSCRIBE_ASR_PROFILE ("" = auto)
	model   string // HYSCRIBE_ASR_MODEL
	key     string // HYSCRIBE_ASR_API_KEY
	shape   asrtest.Shape
	opts    []asrtest.Option
	// whole: the engine gives word times or speakers, so the three jobs
	// take one request per file (1 single voice + 2 channels + 1 mono
	// call); otherwise calls go as utterances, one request each.
	whole bool
}

var engineRows = []engineRow{
	{name: "OpenAI whisper-1", profile: "openai", model: "whisper-1", key: "sk-test", shape: asrtest.ShapeWhisper1, whole: true},
	{name: "OpenAI gpt-4o-transcribe", profile: "openai", model: "gpt-4o-transcribe", key: "sk-test", shape: asrtest.ShapeGPT4oTranscribe},
	{name: "OpenAI gpt-4o-mini-transcribe", profile: "openai", model: "gpt-4o-mini-transcribe", key: "sk-test", shape: asrtest.ShapeGPT4oTranscribe},
	{name: "OpenAI gpt-4o-transcribe-diarize", profile: "openai", model: "gpt-4o-transcribe-diarize", key: "sk-test", shape: asrtest.ShapeGPT4oDiarize, whole: true},
	{name: "a json-only engine found out by its 400", model: "hy-asr-ft", shape: asrtest.ShapeGPT4oTranscribe},
	{name: "Azure OpenAI", key: "azure-key", shape: asrtest.ShapeAzure, whole: true}, // detected from api-version
	{name: "whisper.cpp server", profile: "whispercpp", shape: asrtest.ShapeWhisperCpp, whole: true},
	{name: "speaches", profile: "speaches", model: "Systran/faster-whisper-large-v3", shape: asrtest.ShapeSpeaches, whole: true},
	{name: "speaches, words null", profile: "speaches", model: "Systran/faster-whisper-large-v3", shape: asrtest.ShapeSpeachesNoWords},
	{name: "vLLM", profile: "vllm", model: "openai/whisper-large-v3", shape: asrtest.ShapeVLLM, opts: []asrtest.Option{asrtest.WithModels("openai/whisper-large-v3")}},
	{name: "Groq", profile: "groq", model: "whisper-large-v3-turbo", key: "gsk_test", shape: asrtest.ShapeGroq, whole: true},
}

// TestEveryEngineEndToEnd runs the whole service against an engine that
// answers in each engine's exact shape: a single voice's text exactly as
// the engine wrote it; a stereo and a mono phone call with both labels
// and at least 95 % of the words on the right speaker; a 429 with
// Retry-After honoured; a refusal that fails the job readably.
func TestEveryEngineEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service once per engine")
	}
	single, _ := os.ReadFile(asrtest.Testdata("scripted-single-16k.mp3"))
	stereo, _ := os.ReadFile(asrtest.Testdata("scripted-call-stereo-16k.mp3"))
	mono, _ := os.ReadFile(asrtest.Testdata("scripted-call-mono-16k.mp3"))
	var want []string
	for _, l := range asrtest.ScriptedSingle() {
		want = append(want, l.Text)
	}
	for _, row := range engineRows {
		t.Run(row.name, func(t *testing.T) {
			opts := append([]asrtest.Option{asrtest.WithShape(row.shape), asrtest.WithScript(asrtest.ScriptedCall...)}, row.opts...)
			if row.key != "" {
				opts = append(opts, asrtest.WithAPIKey(row.key))
			}
			engine := asrtest.NewEngine(t, opts...)
			vars := map[string]string{
				"HYSCRIBE_DATA_DIR":            t.TempDir(),
				"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
				"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
				"HYSCRIBE_KAFKA_PARTITIONS":    "2",
				"HYSCRIBE_ASR_URL":             engine.URL(),
				"HYSCRIBE_ASR_PROFILE":         row.profile,
				"HYSCRIBE_ASR_MODEL":           row.model,
				"HYSCRIBE_ASR_API_KEY":         row.key,
				"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
				"HYSCRIBE_STAGE_BACKOFF":       "50ms",
				"HYSCRIBE_LOG_LEVEL":           "warn",
			}
			key := runCLI(t, env(vars), "account", "create", "--name", "engines", "--plan", "business", "--seconds", "3600")["apiKey"].(string)
			svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
			api := "http://" + svc.HTTPAddr()
			submit := func(typ string, audio []byte) string {
				var created struct{ DocID, UploadURL string }
				call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"`+typ+`"}`), 200, &created)
				call(t, "PUT", created.UploadURL, "", bytes.NewReader(audio), 200, nil)
				return created.DocID
			}
			ids := map[string]string{"single": submit("single_voice", single), "stereo": submit("phone_call", stereo), "mono": submit("phone_call", mono)}
			jobs := map[string]jobView{}
			for what, id := range ids {
				jobs[what] = waitJob(t, api, key, id)
			}
			if n := engine.Requests(); (n == 4) != row.whole {
				t.Errorf("%d requests for a single voice, a stereo and a mono call (whole files: %v)", n, row.whole)
			}
			if j := jobs["single"]; j.Status != "transcribed" || j.Transcription != strings.Join(want, " ") {
				t.Errorf("single voice: %s %q\nwant %q (error %q)", j.Status, j.Transcription, strings.Join(want, " "), j.Error)
			}
			for _, what := range []string{"stereo", "mono"} {
				j := jobs[what]
				if j.Status != "transcribed" {
					t.Errorf("%s call: %s %s", what, j.Status, j.Error)
					continue
				}
				right, total := wordsRight(j.Transcription, asrtest.ScriptedCall)
				t.Logf("%s call: %d of %d words on the right speaker", what, right, total)
				if !strings.Contains(j.Transcription, "Խոսնակ 1: ") || !strings.Contains(j.Transcription, "Խոսնակ 2: ") || float64(right) < 0.95*float64(total) {
					t.Errorf("%s call: %d of %d words right:\n%s", what, right, total, j.Transcription)
				}
			}

			// A 429 asking for a second: the job waits it out and succeeds.
			engine.FailNext(1, http.StatusTooManyRequests, "1")
			start := time.Now()
			if j := waitJob(t, api, key, submit("single_voice", single)); j.Status != "transcribed" || time.Since(start) < time.Second {
				t.Errorf("after a 429 with Retry-After 1: %s %q after %v", j.Status, j.Error, time.Since(start))
			}
			// A refusal (a wrong key) fails the job, saying so.
			engine.FailNext(1, http.StatusUnauthorized, "")
			if j := waitJob(t, api, key, submit("single_voice", single)); j.Status != "failed" || !strings.HasPrefix(j.Error, "speech engine refused the request: 401 Unauthorized: ") {
				t.Errorf("after a 401: %s %q", j.Status, j.Error)
			}
		})
	}
}

type jobView struct {
	Status        string `json:"status"`
	Transcription string `json:"transcription"`
	Error         string `json:"error"`
}

// waitJob polls a job once a second (the API allows 60 polls a minute
// per key; a 429 is waited out) until it is transcribed or failed.
func waitJob(t *testing.T, api, key, id string) jobView {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		req, _ := http.NewRequest("GET", api+"/api/getTranscription?docId="+id, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var j jobView
		err = json.NewDecoder(res.Body).Decode(&j)
		res.Body.Close()
		switch {
		case res.StatusCode == http.StatusTooManyRequests:
		case res.StatusCode != http.StatusOK || err != nil:
			t.Fatalf("getTranscription %s: %d %v", id, res.StatusCode, err)
		case j.Status == "transcribed" || j.Status == "failed":
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s", id, j.Status)
		}
		time.Sleep(time.Second)
	}
}

// wordsRight counts the script's words that the transcript has, in the
// script's order, under the right speaker (numbered by first appearance,
// as the transcript numbers them): the words of the longest common
// subsequence of the two whose labels agree. A transcript with all of one
// speaker and then all of the other matches only one speaker's words.
func wordsRight(transcript string, script []asrtest.Line) (right, total int) {
	type word struct {
		text  string
		label int
	}
	number := map[string]int{}
	var want []word
	for _, l := range script {
		if _, ok := number[l.Speaker]; !ok {
			number[l.Speaker] = len(number) + 1
		}
		for _, w := range strings.Fields(l.Text) {
			want = append(want, word{w, number[l.Speaker]})
		}
	}
	var got []word
	for _, turn := range strings.Split(transcript, "\n") {
		var n int
		var text string
		if _, err := fmt.Sscanf(turn, "Խոսնակ %d:", &n); err != nil {
			continue
		}
		_, text, _ = strings.Cut(turn, ": ")
		for _, w := range strings.Fields(text) {
			got = append(got, word{w, n})
		}
	}
	// lcs[i][j]: right words of want[i:] against got[j:].
	lcs := make([][]int, len(want)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(got)+1)
	}
	for i := len(want) - 1; i >= 0; i-- {
		for j := len(got) - 1; j >= 0; j-- {
			best := max(lcs[i+1][j], lcs[i][j+1])
			if want[i] == got[j] {
				best = max(best, lcs[i+1][j+1]+1)
			}
			lcs[i][j] = best
		}
	}
	return lcs[0][0], len(want)
}

func TestEngineSettingsAreChecked(t *testing.T) {
	cfg, err := cli.LoadConfig(env(map[string]string{}))
	if err != nil || cfg.ASRProfile != "auto" || cfg.ASRTimeout != 10*time.Minute || cfg.ASRJobBudget != time.Hour || cfg.ASRModel != "" {
		t.Fatalf("defaults %+v %v", cfg, err)
	}
	for name, v := range map[string]string{"HYSCRIBE_ASR_PROFILE": "deepgram", "HYSCRIBE_ASR_TIMEOUT": "0s", "HYSCRIBE_ASR_JOB_BUDGET": "-1m"} {
		if _, err := cli.LoadConfig(env(map[string]string{name: v})); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%s: %v", name, v, err)
		}
	}
	// vLLM's served model name cannot be guessed: the start says so.
	vars := map[string]string{"HYSCRIBE_DATA_DIR": t.TempDir(), "HYSCRIBE_HTTP_ADDR": "127.0.0.1:0", "HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_ASR_URL": "http://127.0.0.1:1/v1", "HYSCRIBE_ASR_PROFILE": "vllm", "HYSCRIBE_LOG_LEVEL": "error"}
	cfg, err = cli.LoadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := cli.Start(t.Context(), cfg, cli.RoleWorker, cli.AllStages, io.Discard)
	if err == nil {
		svc.Stop()
		t.Fatal("a vLLM profile without a model started")
	}
	if !strings.Contains(err.Error(), "HYSCRIBE_ASR_MODEL") {
		t.Errorf("err %v", err)
	}
}

// A hung engine: each request is given up after HYSCRIBE_ASR_TIMEOUT and
// the job fails readably once HYSCRIBE_ASR_JOB_BUDGET is spent.
func TestAHungEngineFailsTheJobWithinItsBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	engine := asrtest.NewEngine(t)
	engine.Delay(time.Hour)
	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS":    "2",
		"HYSCRIBE_ASR_URL":             engine.URL(),
		"HYSCRIBE_ASR_TIMEOUT":         "300ms",
		"HYSCRIBE_ASR_JOB_BUDGET":      "3s",
		"HYSCRIBE_SHUTDOWN_GRACE":      "200ms",
		"HYSCRIBE_STAGE_BACKOFF":       "50ms",
		"HYSCRIBE_LOG_LEVEL":           "error",
	}
	key := runCLI(t, env(vars), "account", "create", "--name", "hung", "--plan", "business", "--seconds", "3600")["apiKey"].(string)
	svc := startService(t, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	api := "http://" + svc.HTTPAddr()
	single, _ := os.ReadFile(asrtest.Testdata("scripted-single-16k.mp3"))
	var created struct{ DocID, UploadURL string }
	call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &created)
	start := time.Now()
	call(t, "PUT", created.UploadURL, "", bytes.NewReader(single), 200, nil)
	j := waitJob(t, api, key, created.DocID)
	const want = "speech recognition did not finish within the job's budget of 3s (the speech engine is too slow or kept failing)"
	if j.Status != "failed" || j.Error != want {
		t.Fatalf("%s %q", j.Status, j.Error)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("failed after %v", took)
	}
	if engine.Requests() < 2 {
		t.Errorf("%d requests: the timed-out request was not retried", engine.Requests())
	}
}
