package cli

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/caarlos0/env/v11"
)

// TestConfigRefusalsWordForWord pins the exact refusal of each kind of
// value, so that the parser behind LoadConfig (a kept library) can change
// without an operator seeing another message: one bad value per type and
// per check, spaces around a value ignored, an empty value taking the
// default, and the first bad variable in declaration order reported.
func TestConfigRefusalsWordForWord(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string // "" means accepted
	}{
		{map[string]string{"HYSCRIBE_SWEEP_INTERVAL": "soon"}, `HYSCRIBE_SWEEP_INTERVAL must be a duration such as 30s or 1h, not "soon"`},
		{map[string]string{"HYSCRIBE_SWEEP_INTERVAL": "0"}, `HYSCRIBE_SWEEP_INTERVAL must be at least 1ms, not 0s`},
		{map[string]string{"HYSCRIBE_STAGE_BACKOFF": "-1s"}, `HYSCRIBE_STAGE_BACKOFF must not be negative, not -1s`},
		{map[string]string{"HYSCRIBE_UPLOAD_TTL": "500ms"}, `HYSCRIBE_UPLOAD_TTL must be at least 1s, not 500ms`},
		{map[string]string{"HYSCRIBE_ASR_MAX_CHUNK_SECONDS": "10m"}, `HYSCRIBE_ASR_MAX_CHUNK_SECONDS must be a whole number of seconds, not "10m"`},
		{map[string]string{"HYSCRIBE_ASR_MAX_CHUNK_SECONDS": "-5"}, `HYSCRIBE_ASR_MAX_CHUNK_SECONDS must not be negative, not -5s`},
		{map[string]string{"KAFKA_TLS": "yes"}, `KAFKA_TLS must be true or false, not "yes"`},
		{map[string]string{"HYSCRIBE_KAFKA_PARTITIONS": "twelve"}, `HYSCRIBE_KAFKA_PARTITIONS must be an integer, not "twelve"`},
		{map[string]string{"HYSCRIBE_KAFKA_PARTITIONS": "0"}, `HYSCRIBE_KAFKA_PARTITIONS must be at least 1, not 0`},
		{map[string]string{"HYSCRIBE_MAX_UPLOAD_BYTES": "1.5"}, `HYSCRIBE_MAX_UPLOAD_BYTES must be an integer, not "1.5"`},
		{map[string]string{"HYSCRIBE_CREATE_RATE_LIMIT": "-1"}, `HYSCRIBE_CREATE_RATE_LIMIT must not be negative, not -1`},
		{map[string]string{"HYSCRIBE_SIGNUP_SECONDS": "many"}, `HYSCRIBE_SIGNUP_SECONDS must be a number, not "many"`},
		{map[string]string{"HYSCRIBE_SIGNUP_SECONDS": "-0.5"}, `HYSCRIBE_SIGNUP_SECONDS must not be negative, not -0.5`},
		{map[string]string{"HYSCRIBE_SIGNUP_PLAN": "gold"}, `HYSCRIBE_SIGNUP_PLAN must be one of free, business, not "gold"`},
		{map[string]string{"HYSCRIBE_S3_PUBLIC_SECURE": "maybe"}, `HYSCRIBE_S3_PUBLIC_SECURE must be one of true, false, not "maybe"`},
		{map[string]string{"HYSCRIBE_ASR_URL": "ftp://x"}, `HYSCRIBE_ASR_URL must be an absolute http(s) URL, not "ftp://x"`},
		{map[string]string{"HYSCRIBE_HTTP_ADDR": "http://0.0.0.0:8080"}, `HYSCRIBE_HTTP_ADDR is host:port, not a URL: "http://0.0.0.0:8080"`},
		{map[string]string{"HYSCRIBE_LOG_LEVEL": "info+2"}, `HYSCRIBE_LOG_LEVEL must be debug, info, warn or error, not "info+2"`},
		{map[string]string{"HYSCRIBE_WEB_TIMEZONE": "Mars/Olympus"}, `HYSCRIBE_WEB_TIMEZONE must be an IANA zone such as Asia/Yerevan or UTC, not "Mars/Olympus"`},
		{map[string]string{"HYSCRIBE_TRUSTED_PROXIES": "10.0.0.0/8, nowhere"}, `HYSCRIBE_TRUSTED_PROXIES must be comma-separated CIDRs such as 10.0.0.0/8: `},
		{map[string]string{"HYSCRIBE_ASR_PROFILE": "whisperx"}, `HYSCRIBE_ASR_PROFILE must be one of `},
		// The first refused variable in declaration order, whether it
		// fails to parse or fails its check.
		{map[string]string{"HYSCRIBE_KAFKA_PARTITIONS": "0", "HYSCRIBE_SWEEP_INTERVAL": "soon"}, `HYSCRIBE_KAFKA_PARTITIONS must be at least 1, not 0`},
		{map[string]string{"HYSCRIBE_KAFKA_PARTITIONS": "x", "HYSCRIBE_SWEEP_INTERVAL": "0"}, `HYSCRIBE_KAFKA_PARTITIONS must be an integer, not "x"`},
		// Accepted: spaces trimmed, blanks take the default.
		{map[string]string{"HYSCRIBE_KAFKA_PARTITIONS": " 3 ", "KAFKA_TLS": " ", "HYSCRIBE_SWEEP_INTERVAL": "\t2s\n"}, ""},
	} {
		_, err := LoadConfig(func(k string) string { return tc.env[k] })
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v refused: %v", tc.env, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%v: %v\n want %s", tc.env, err, tc.want)
		}
	}
}

// TestConfigReadsEveryType: values of each type reach the struct, URLs
// lose their trailing slash and lists their blanks.
func TestConfigReadsEveryType(t *testing.T) {
	env := map[string]string{
		"HYSCRIBE_KAFKA_PARTITIONS":      " 3 ",
		"HYSCRIBE_SWEEP_INTERVAL":        "2s",
		"HYSCRIBE_ASR_MAX_CHUNK_SECONDS": "90",
		"HYSCRIBE_MAX_UPLOAD_BYTES":      "1024",
		"HYSCRIBE_SIGNUP_SECONDS":        "1.5",
		"KAFKA_TLS":                      "true",
		"HYSCRIBE_SIGNUP":                "false",
		"KAFKA_BROKERS":                  "a:9092, ,b:9092,",
		"HYSCRIBE_ASR_URL":               "https://engine.example/v1//",
		"HYSCRIBE_DATA_DIR":              "  ",
	}
	c, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%d %s %s %d %v %v %v %q %s %s %s", c.KafkaPartitions, c.SweepInterval, c.ASRMaxChunk.Duration(), c.MaxUploadBytes,
		c.SignUpSeconds, c.KafkaTLS, c.SignUp, c.KafkaBrokers, c.ASRURL, c.DataDir, c.StuckAfter)
	if want := `3 2s 1m30s 1024 1.5 true false ["a:9092" "b:9092"] https://engine.example/v1 ./data 15m0s`; got != want {
		t.Errorf("read %s\nwant %s", got, want)
	}
	if c.TrustedProxies != nil {
		t.Errorf("HYSCRIBE_TRUSTED_PROXIES unset read as %q, want nil", c.TrustedProxies)
	}
}

// TestHelpShowsWhatTheLibraryApplies: the variables and defaults --help
// prints are the ones github.com/caarlos0/env reads and applies, field by
// field, so the list cannot drift from the parser.
func TestHelpShowsWhatTheLibraryApplies(t *testing.T) {
	params, err := env.GetFieldParams(&Config{})
	if err != nil {
		t.Fatal(err)
	}
	vars := Variables()
	if len(params) != len(vars) {
		t.Fatalf("the library reads %d variables, --help lists %d", len(params), len(vars))
	}
	for i, p := range params {
		if v := vars[i]; p.Key != v.Name || p.DefaultValue != v.Default {
			t.Errorf("the library reads %s=%q where --help lists %s=%q", p.Key, p.DefaultValue, v.Name, v.Default)
		}
	}
	// The old parser's tag was default:"…"; the library ignores it, so a
	// field written the old way (a merge from an older branch) would lose
	// its default without a word.
	ct := reflect.TypeOf(Config{})
	for i := range ct.NumField() {
		if d, ok := ct.Field(i).Tag.Lookup("default"); ok {
			t.Errorf("%s has default:%q, which the library does not read: write envDefault", ct.Field(i).Name, d)
		}
	}
}
