package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
)

// Every variable is validated at start, and the refusal names it: a zero
// interval once reached time.NewTicker and panicked, a bad log level once
// became info without a word.
func TestLoadConfigRefusesBadValuesNamingTheVariable(t *testing.T) {
	if _, err := LoadConfig(func(string) string { return "" }); err != nil {
		t.Fatalf("the defaults are refused: %v", err)
	}
	for _, tc := range []struct{ name, value, says string }{
		{"HYSCRIBE_SWEEP_INTERVAL", "0", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_SWEEP_INTERVAL", "-5s", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_SWEEP_INTERVAL", "soon", "HYSCRIBE_SWEEP_INTERVAL"},
		{"HYSCRIBE_RETENTION_INTERVAL", "0", "HYSCRIBE_RETENTION_INTERVAL"},
		{"HYSCRIBE_RETENTION_INTERVAL", "0s", "HYSCRIBE_RETENTION_INTERVAL"},
		{"HYSCRIBE_LOG_LEVEL", "loud", "HYSCRIBE_LOG_LEVEL"},
	} {
		_, err := LoadConfig(func(k string) string {
			if k == tc.name {
				return tc.value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s=%q: %v, want a refusal naming %s", tc.name, tc.value, err, tc.says)
		}
	}
	for _, level := range []string{"debug", "info", "warn", "error"} {
		if _, err := LoadConfig(func(k string) string {
			if k == "HYSCRIBE_LOG_LEVEL" {
				return level
			}
			return ""
		}); err != nil {
			t.Errorf("HYSCRIBE_LOG_LEVEL=%s refused: %v", level, err)
		}
	}
}

// A refused variable stops the command before anything starts.
func TestServeRefusesAZeroSweepInterval(t *testing.T) {
	var out, errOut bytes.Buffer
	err := Run(context.Background(), []string{"serve"}, func(k string) string {
		if k == "HYSCRIBE_SWEEP_INTERVAL" {
			return "0"
		}
		return ""
	}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error()+errOut.String(), "HYSCRIBE_SWEEP_INTERVAL") {
		t.Fatalf("serve with HYSCRIBE_SWEEP_INTERVAL=0: %v (stderr %q)", err, errOut.String())
	}
}

// A process that runs the transcribe stage refuses to start, at once and
// naming the decoder and its variable, on a machine without FFmpeg; one
// that does not decode starts without it. On the old code serve started
// and every job failed at decoding.
func TestServeWithoutTheDecoderRefusesToStart(t *testing.T) {
	env := map[string]string{
		"HYSCRIBE_FFMPEG":              "/nonexistent/ffmpeg",
		"HYSCRIBE_DATA_DIR":            t.TempDir(),
		"HYSCRIBE_HTTP_ADDR":           "127.0.0.1:0",
		"HYSCRIBE_KAFKA_EMBEDDED_ADDR": "127.0.0.1:0",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	err := Run(ctx, []string{"serve"}, func(k string) string { return env[k] }, &out, &errOut)
	if ctx.Err() != nil {
		t.Fatal("serve started without the decoder")
	}
	for _, want := range []string{"ffmpeg not found", "MP3 decoder", "HYSCRIBE_FFMPEG", "/nonexistent/ffmpeg"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("serve with HYSCRIBE_FFMPEG=/nonexistent/ffmpeg: %v; want it to say %q", err, want)
		}
	}

	cfg, err := LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.checkDecoder(ctx, RoleAPI, nil); err != nil {
		t.Errorf("api: %v", err)
	}
	if err := cfg.checkDecoder(ctx, RoleWorker, []string{app.StageProcess, app.StageEnrich}); err != nil {
		t.Errorf("a worker of stages that do not decode: %v", err)
	}
}
