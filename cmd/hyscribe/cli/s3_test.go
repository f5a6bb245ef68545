package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/s3"
	"github.com/hyscribe/hyscribe/adapters/s3/s3test"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/domain"
)

// TestS3UploadsEndToEnd runs the service with uploads in a real MinIO
// configured as the README says, HYSCRIBE_S3_NOTIFY_ARN unset: the
// client PUTs to the pre-signed URL, MinIO announces the object on Kafka,
// stage uploads moves the job to processing and the pipeline finishes it. A
// second PUT to the same address changes nothing; an empty or oversized
// upload fails its job and is deleted; the service's own upload route
// refuses every address.
func TestS3UploadsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO and the whole service")
	}
	k, err := kafka.StartEmbedded("127.0.0.1:0", "", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	minio := s3test.Start(t, k.Addrs(), "")
	// An engine behind a proxy that refuses chunked uploads: every request
	// must say its length, audio read from the bucket included.
	engine := asrtest.NewEngine(t, asrtest.WithLengthRequired())

	vars := map[string]string{
		"HYSCRIBE_DATA_DIR":         t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":        "127.0.0.1:0",
		"KAFKA_BROKERS":             strings.Join(k.Addrs(), ","),
		"HYSCRIBE_KAFKA_PARTITIONS": "4",
		"HYSCRIBE_ASR_URL":          engine.URL(),
		"HYSCRIBE_MAX_UPLOAD_BYTES": "40000", // the mono file fits, the stereo one does not
		"HYSCRIBE_S3_ENDPOINT":      minio.Endpoint,
		"HYSCRIBE_S3_BUCKET":        "hyscribe-e2e",
		"HYSCRIBE_S3_ACCESS_KEY":    minio.AccessKey,
		"HYSCRIBE_S3_SECRET_KEY":    minio.SecretKey,
		"HYSCRIBE_SHUTDOWN_GRACE":   "200ms",
		"HYSCRIBE_STAGE_BACKOFF":    "50ms",
		"HYSCRIBE_LOG_LEVEL":        "warn",
	}
	getenv := env(vars)
	acct := runCLI(t, getenv, "account", "create", "--name", "s3", "--plan", "business", "--seconds", "3600")
	key := acct["apiKey"].(string)
	cfg, err := cli.LoadConfig(getenv)
	if err != nil {
		t.Fatal(err)
	}
	logs, _ := os.Create(filepath.Join(t.TempDir(), "log"))
	defer logs.Close()
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, logs)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Stop()
	assertStageSubscriptions(t, svc.Brokers(), cli.StageUploads)
	api := "http://" + svc.HTTPAddr()

	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	stereo, err := os.ReadFile("../../../testdata/audio/call-stereo-22k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	var good, empty, large struct{ DocID, UploadURL string }
	call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &good)
	call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"single_voice"}`), 200, &empty)
	call(t, "POST", api+"/api/createTranscription", key, strings.NewReader(`{"type":"phone_call"}`), 200, &large)
	if !strings.HasPrefix(good.UploadURL, "http://"+minio.Endpoint+"/hyscribe-e2e/audio/"+good.DocID+".mp3?") {
		t.Fatalf("uploadUrl %s does not lead to the bucket", good.UploadURL)
	}
	call(t, "PUT", good.UploadURL, "", bytes.NewReader(mono), 200, nil)
	call(t, "PUT", empty.UploadURL, "", bytes.NewReader(nil), 200, nil) // the store takes it; the job fails
	call(t, "PUT", large.UploadURL, "", bytes.NewReader(stereo), 200, nil)
	call(t, "PUT", api+"/upload/"+good.DocID+"?expires=9999999999&signature=00", "", strings.NewReader("x"), 403, nil)

	poll := func(id string, want domain.Status) map[string]any {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			var job map[string]any
			call(t, "GET", api+"/api/getTranscription?docId="+id, key, nil, 200, &job)
			if job["status"] == string(want) {
				return job
			}
			if job["status"] == string(domain.StatusFailed) || time.Now().After(deadline) {
				t.Fatalf("job %s: %v, want %s\n%s", id, job, want, logsOf(t, logs))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	done := poll(good.DocID, domain.StatusTranscribed)
	if done["transcription"] == "" || done["duration"] == nil {
		t.Fatalf("transcribed job %v", done)
	}
	for id, want := range map[string]string{empty.DocID: "the upload is empty", large.DocID: "larger than the 40000-byte limit"} {
		var failed map[string]any
		deadline := time.Now().Add(30 * time.Second)
		for {
			call(t, "GET", api+"/api/getTranscription?docId="+id, key, nil, 200, &failed)
			if failed["status"] == string(domain.StatusFailed) || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if failed["status"] != string(domain.StatusFailed) || !strings.Contains(failed["error"].(string), want) {
			t.Fatalf("job %s: %v, want failed with %q", id, failed, want)
		}
	}
	// The refused objects are gone from the bucket.
	st, err := s3.New(s3.Config{Endpoint: minio.Endpoint, Bucket: "hyscribe-e2e", AccessKey: minio.AccessKey, SecretKey: minio.SecretKey})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{empty.DocID, large.DocID} {
		if _, err := st.Open(context.Background(), s3.AudioKey(domain.DocID(id))); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("object of refused job %s: %v, want it deleted", id, err)
		}
	}

	// A second PUT to the finished job's address: the store keeps it, the
	// notification is ignored, the job stays as it is.
	call(t, "PUT", good.UploadURL, "", bytes.NewReader(mono[:1000]), 200, nil)
	// A negative with no event to wait for: the ignored notification
	// leaves no trace, so the test gives it time to do harm.
	time.Sleep(time.Second)
	again := poll(good.DocID, domain.StatusTranscribed)
	if again["transcription"] != done["transcription"] {
		t.Fatalf("a second upload changed the transcript")
	}
}

// TestDefaultS3NotifyARNIsTheDocumentedOne: with HYSCRIBE_S3_NOTIFY_ARN
// unset the service subscribes the bucket to the target the README's table
// names, which is the one MinIO registers for the Kafka target the README,
// deploy/README.md and .ci/minio.sh configure.
func TestDefaultS3NotifyARNIsTheDocumentedOne(t *testing.T) {
	cfg, err := cli.LoadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `HYSCRIBE_S3_NOTIFY_ARN` \\| `([^`]+)` \\|").FindSubmatch(readme)
	if row == nil {
		t.Fatal("README.md: no HYSCRIBE_S3_NOTIFY_ARN row with a default in the configuration table")
	}
	if documented := string(row[1]); cfg.S3NotifyARN != documented || cfg.S3NotifyARN != s3test.ARN {
		t.Fatalf("default HYSCRIBE_S3_NOTIFY_ARN %q; the README documents %q, MinIO registers %q", cfg.S3NotifyARN, documented, s3test.ARN)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(cfg.S3NotifyARN, "arn:minio:sqs::"), ":kafka")
	for _, f := range []string{"../../../deploy/README.md", "../../../.ci/minio.sh", "../../../deploy/compose.yaml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "MINIO_NOTIFY_KAFKA_ENABLE_"+id) {
			t.Errorf("%s does not enable MinIO's Kafka target %s (MINIO_NOTIFY_KAFKA_ENABLE_%s)", f, id, id)
		}
	}
}

func logsOf(t *testing.T, f *os.File) string {
	t.Helper()
	b, _ := os.ReadFile(f.Name())
	return string(b)
}

// TestS3StartWaitsForTheNotificationTarget: a target the store has not
// registered (MinIO registers its own shortly after it says it is ready)
// is waited for, each retry logged, for HYSCRIBE_S3_NOTIFY_WAIT; then the
// start fails saying what it waited for and which variable bounds it.
func TestS3StartWaitsForTheNotificationTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts MinIO")
	}
	k, err := kafka.StartEmbedded("127.0.0.1:0", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	minio := s3test.Start(t, k.Addrs(), "")
	cfg, err := cli.LoadConfig(env(map[string]string{
		"HYSCRIBE_DATA_DIR":       t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":      "127.0.0.1:0",
		"KAFKA_BROKERS":           strings.Join(k.Addrs(), ","),
		"HYSCRIBE_S3_ENDPOINT":    minio.Endpoint,
		"HYSCRIBE_S3_ACCESS_KEY":  minio.AccessKey,
		"HYSCRIBE_S3_SECRET_KEY":  minio.SecretKey,
		"HYSCRIBE_S3_NOTIFY_ARN":  "arn:minio:sqs::NOSUCH:kafka",
		"HYSCRIBE_S3_NOTIFY_WAIT": "2s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	svc, err := cli.Start(context.Background(), cfg, cli.RoleAPI, nil, &logs)
	if err == nil {
		svc.Stop()
		t.Fatal("started with a notification target the store does not have")
	}
	for _, want := range []string{"HYSCRIBE_S3_NOTIFY_WAIT", "had not registered the target after", "destination ARN does not exist"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the start error does not say %q: %v", want, err)
		}
	}
	if n := strings.Count(logs.String(), "has not registered the notification target yet"); n < 2 {
		t.Errorf("%d retries logged in 2s:\n%s", n, logs.String())
	}
}
