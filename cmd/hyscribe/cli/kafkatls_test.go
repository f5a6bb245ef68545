package cli_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/kafka/kafkatest"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/servicetest"
)

// secureKafkaVars configures the service for a cluster of kafkatest: mutual
// TLS and SCRAM-SHA-512 with password.
func secureKafkaVars(t *testing.T, c *kafkatest.Secure, password string) map[string]string {
	return map[string]string{
		"KAFKA_BROKERS":             strings.Join(c.Addrs, ","),
		"KAFKA_TLS":                 "true",
		"KAFKA_TLS_CA_FILE":         c.CAFile,
		"KAFKA_TLS_CERT_FILE":       c.CertFile,
		"KAFKA_TLS_KEY_FILE":        c.KeyFile,
		"KAFKA_SASL_MECHANISM":      "scram-sha-512",
		"KAFKA_SASL_USERNAME":       c.User,
		"KAFKA_SASL_PASSWORD":       password,
		"HYSCRIBE_DATA_DIR":         t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":        "127.0.0.1:0",
		"HYSCRIBE_KAFKA_PARTITIONS": "2",
		"HYSCRIBE_STAGE_BACKOFF":    "50ms",
		"HYSCRIBE_SHUTDOWN_GRACE":   "500ms",
		"HYSCRIBE_LOG_LEVEL":        "debug",
	}
}

// A job goes from upload to transcribed through a cluster that demands
// mutual TLS and SCRAM: the topic admin, the outbox's producer, every
// stage's consumer and the lag monitor all reach it with the KAFKA_TLS* and
// KAFKA_SASL_* settings, and the password is in no line of the log, even
// at debug.
func TestServiceRunsThroughAKafkaWithTLSAndSASL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the service")
	}
	const password = "kafka-pw-5e0c7a19d2"
	c := kafkatest.StartSecure(t, "SCRAM-SHA-512", "hyscribe", password)
	engine := asrtest.NewEngine(t)
	vars := secureKafkaVars(t, c, password)
	vars["HYSCRIBE_ASR_URL"] = engine.URL()
	created := runCLI(t, env(vars), "account", "create", "--name", "tls", "--plan", "business", "--seconds", "3600")
	key := created["apiKey"].(string)
	var logs servicetest.LockedBuffer
	svc := startLoggingTo(t, &logs, vars, cli.RoleAPI|cli.RoleWorker, cli.AllStages)
	mono, err := os.ReadFile("../../../testdata/audio/speech-mono-16k.mp3")
	if err != nil {
		t.Fatal(err)
	}
	id := createAndUpload(t, svc.HTTPAddr(), key, "single_voice", mono)
	var polled time.Time
	last := "not polled yet"
	waitFor(t, "the job through the secured Kafka", 60*time.Second, func() (bool, string) {
		if time.Since(polled) < 1500*time.Millisecond { // under the key's 60 reads a minute
			return false, last
		}
		polled = time.Now()
		a := poll(t, svc.HTTPAddr(), key, id)
		last = a.raw
		return a.body["status"] == "transcribed", a.raw
	})
	if strings.Contains(logs.String(), password) {
		t.Fatal("the service's log holds KAFKA_SASL_PASSWORD")
	}
}

// A wrong password stops the start within seconds, and the error says
// which settings to check without repeating the password.
func TestServiceWithAWrongKafkaPasswordSaysWhatToCheck(t *testing.T) {
	const password = "kafka-pw-wrong-83be21"
	c := kafkatest.StartSecure(t, "SCRAM-SHA-512", "hyscribe", "kafka-pw-right-0c91aa")
	cfg, err := cli.LoadConfig(env(secureKafkaVars(t, c, password)))
	if err != nil {
		t.Fatal(err)
	}
	var logs servicetest.LockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc, err := cli.Start(ctx, cfg, cli.RoleAPI|cli.RoleWorker, cli.AllStages, &logs)
	if err == nil {
		svc.Stop()
		t.Fatal("the service started with a wrong Kafka password")
	}
	if ctx.Err() != nil {
		t.Fatalf("the start waited for its deadline: %v", err)
	}
	for _, want := range []string{"KAFKA_SASL_PASSWORD", "scram-sha-512", `"hyscribe"`, c.CAFile} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error()+logs.String(), password) {
		t.Errorf("the error or the log holds the password: %v", err)
	}
}
