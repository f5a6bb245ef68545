package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/kafka/kafkatest"
)

// kafkaEnv is a getenv of the brokers and vars.
func kafkaEnv(vars map[string]string) func(string) string {
	return func(k string) string {
		if k == "KAFKA_BROKERS" {
			if v, ok := vars[k]; ok {
				return v
			}
			return "kafka-0:9093"
		}
		return vars[k]
	}
}

// The TLS and SASL settings that cannot work together are refused at
// start, the message naming the variable to fix and never the password;
// the ones that can are accepted, the mechanism in either case.
func TestKafkaSecuritySettingsAreCheckedTogether(t *testing.T) {
	const password = "pw-4b1d9e-secret"
	sasl := map[string]string{"KAFKA_SASL_MECHANISM": "scram-sha-512", "KAFKA_SASL_USERNAME": "hyscribe", "KAFKA_SASL_PASSWORD": password}
	with := func(base map[string]string, set ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(set); i += 2 {
			m[set[i]] = set[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name string
		vars map[string]string
		says string
	}{
		{"an unknown mechanism", with(sasl, "KAFKA_SASL_MECHANISM", "gssapi"), "KAFKA_SASL_MECHANISM must be one of plain, scram-sha-256, scram-sha-512"},
		{"a mechanism without a password", with(sasl, "KAFKA_SASL_PASSWORD", ""), "KAFKA_SASL_PASSWORD"},
		{"a mechanism without a user", with(sasl, "KAFKA_SASL_USERNAME", ""), "KAFKA_SASL_USERNAME"},
		{"credentials without a mechanism", with(sasl, "KAFKA_SASL_MECHANISM", ""), "without KAFKA_SASL_MECHANISM"},
		{"a certificate without its key", with(nil, "KAFKA_TLS", "true", "KAFKA_TLS_CERT_FILE", "/etc/kafka/client.pem"), "KAFKA_TLS_KEY_FILE"},
		{"a key without its certificate", with(nil, "KAFKA_TLS", "true", "KAFKA_TLS_KEY_FILE", "/etc/kafka/client-key.pem"), "KAFKA_TLS_CERT_FILE"},
		{"a CA without TLS", with(nil, "KAFKA_TLS_CA_FILE", "/etc/kafka/ca.pem"), "KAFKA_TLS is not true"},
		{"TLS of maybe", with(nil, "KAFKA_TLS", "maybe"), "KAFKA_TLS"},
		{"SASL to the embedded cluster", with(sasl, "KAFKA_BROKERS", ""), "KAFKA_BROKERS"},
		{"TLS to the embedded cluster", with(nil, "KAFKA_TLS", "true", "KAFKA_BROKERS", ""), "KAFKA_BROKERS"},
	} {
		_, err := LoadConfig(kafkaEnv(tc.vars))
		switch {
		case err == nil:
			t.Errorf("%s: accepted", tc.name)
		case !strings.Contains(err.Error(), tc.says):
			t.Errorf("%s: %v, want it to say %q", tc.name, err, tc.says)
		case strings.Contains(err.Error(), password):
			t.Errorf("%s: the message holds the password: %v", tc.name, err)
		}
	}
	for _, vars := range []map[string]string{
		sasl,
		with(sasl, "KAFKA_SASL_MECHANISM", "SCRAM-SHA-256"),
		with(sasl, "KAFKA_SASL_MECHANISM", "plain", "KAFKA_TLS", "true"),
		with(nil, "KAFKA_TLS", "true"),
		with(nil, "KAFKA_TLS", "true", "KAFKA_TLS_CA_FILE", "/etc/kafka/ca.pem", "KAFKA_TLS_CERT_FILE", "/etc/kafka/client.pem", "KAFKA_TLS_KEY_FILE", "/etc/kafka/client-key.pem"),
	} {
		if _, err := LoadConfig(kafkaEnv(vars)); err != nil {
			t.Errorf("%v: refused: %v", vars, err)
		}
	}
}

// The files are read at start: one that is missing, holds no certificate or
// pairs a certificate with another key is refused naming its variable.
func TestKafkaTLSFilesAreReadNamingTheVariable(t *testing.T) {
	c := kafkatest.NewCerts(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		ca, cert, key    string
		says             string
		wantCA, wantCert bool
	}{
		{name: "all three", ca: c.CAFile, cert: c.CertFile, key: c.KeyFile, wantCA: true, wantCert: true},
		{name: "the system's roots", wantCA: false},
		{name: "a missing CA", ca: filepath.Join(dir, "nowhere.pem"), says: "KAFKA_TLS_CA_FILE"},
		{name: "a CA file without a certificate", ca: notPEM, says: "KAFKA_TLS_CA_FILE"},
		{name: "a certificate with the CA's file as its key", cert: c.CertFile, key: c.CAFile, says: "KAFKA_TLS_KEY_FILE"},
	} {
		cfg, err := LoadConfig(kafkaEnv(map[string]string{
			"KAFKA_TLS": "true", "KAFKA_TLS_CA_FILE": tc.ca, "KAFKA_TLS_CERT_FILE": tc.cert, "KAFKA_TLS_KEY_FILE": tc.key,
		}))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sec, err := cfg.kafkaSecurity()
		if tc.says != "" {
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s: %v, want a refusal naming %s", tc.name, err, tc.says)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if sec.TLS == nil || (sec.TLS.RootCAs != nil) != tc.wantCA || (len(sec.TLS.Certificates) == 1) != tc.wantCert {
			t.Errorf("%s: TLS config %+v", tc.name, sec.TLS)
		}
	}
}
