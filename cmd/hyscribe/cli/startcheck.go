package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/app"
)

// Minimum lengths of the secrets a production-shaped process (DATABASE_URL
// set) accepts.
const (
	minUploadSecret = 32 // HMAC key of local upload addresses
	minS3Secret     = 16
	minPassword     = 12 // a password inside DATABASE_URL or CLICKHOUSE_DSN
)

// placeholderWords mark a value copied from an example rather than made
// for this deployment; placeholderValues are well-known defaults.
var (
	placeholderWords  = []string{"change-me", "changeme", "change_me", "replace-me", "replaceme", "placeholder", "example", "xxxx"}
	placeholderValues = []string{"secret", "password", "passw0rd", "hyscribe", "hyscribe-secret", "minioadmin", "postgres", "admin", "default", "test"}
)

func placeholder(v string) bool {
	l := strings.ToLower(v)
	for _, w := range placeholderWords {
		if strings.Contains(l, w) {
			return true
		}
	}
	for _, w := range placeholderValues {
		if l == w {
			return true
		}
	}
	return false
}

// checkStart refuses a configuration of serve, api or worker that would
// start and then fail silently; warnings are what it lets through but an
// operator must see. Every message names the variable to set.
func (c Config) checkStart(roles Role) (warnings []string, err error) {
	split := roles != RoleAPI|RoleWorker
	var errs []error
	if len(c.KafkaBrokers) == 0 {
		switch {
		case c.DatabaseURL != "":
			errs = append(errs, errors.New("KAFKA_BROKERS is required when DATABASE_URL is set: every process sharing one database must share one Kafka cluster, and an embedded cluster per process splits the pipeline (jobs stay in processing for ever); set KAFKA_BROKERS to the cluster's brokers"))
		case split:
			errs = append(errs, errors.New("KAFKA_BROKERS is required by `hyscribe api` and `hyscribe worker`: a split process must share the Kafka cluster of the others (each would otherwise start its own embedded cluster); run `hyscribe serve` for everything in one process"))
		}
	}
	if c.PublicURL == "" && roles&RoleAPI == 0 {
		msg := "HYSCRIBE_PUBLIC_URL is not set: every event a worker sends links to http://" + c.HTTPAddr + "/…, an address customers cannot reach; set it to the API's public base URL"
		if c.DatabaseURL != "" {
			errs = append(errs, errors.New(msg))
		} else {
			warnings = append(warnings, msg)
		}
	} else if c.PublicURL == "" && c.DatabaseURL != "" {
		warnings = append(warnings, "HYSCRIBE_PUBLIC_URL is not set: upload addresses and event links use the bound address http://"+c.HTTPAddr+", which customers behind a load balancer cannot reach; set it to the API's public base URL")
	}
	if strings.EqualFold(c.KafkaSASLMech, "plain") && !c.KafkaTLS {
		// PLAIN sends the password as it is: only TLS keeps it off the wire.
		msg := "KAFKA_SASL_MECHANISM=plain without KAFKA_TLS=true sends KAFKA_SASL_PASSWORD over the network unencrypted; set KAFKA_TLS=true, or use scram-sha-512"
		if c.DatabaseURL != "" {
			errs = append(errs, errors.New(msg))
		} else {
			warnings = append(warnings, msg)
		}
	}
	if c.DatabaseURL != "" {
		errs = append(errs, c.weakSecrets()...)
	}
	return warnings, errors.Join(errs...)
}

// checkDecoder refuses to start a process that runs the transcribe stage,
// the one that decodes MP3, without FFmpeg: every job would otherwise be
// measured, charged and then fail at decoding.
func (c Config) checkDecoder(ctx context.Context, roles Role, stages []string) error {
	if roles&RoleWorker == 0 || !slices.Contains(stages, app.StageTranscribe) {
		return nil
	}
	if _, err := mp3.CheckFFmpeg(ctx, c.FFmpeg); err != nil {
		return fmt.Errorf("ffmpeg not found on PATH or not usable (HYSCRIBE_FFMPEG=%s): the MP3 decoder needs it; install Debian's ffmpeg (apt-get install ffmpeg) or set HYSCRIBE_FFMPEG to its path: %w", c.FFmpeg, err)
	}
	return nil
}

// weakSecrets is every secret of a production-shaped process that is
// missing where several processes must share it, too short or a
// placeholder.
func (c Config) weakSecrets() []error {
	var errs []error
	weak := func(name, v string, min int) {
		switch {
		case placeholder(v):
			errs = append(errs, fmt.Errorf("%s is a placeholder (%q): with DATABASE_URL set, give it a real secret", name, v))
		case len(v) < min:
			errs = append(errs, fmt.Errorf("%s is too short (%d characters): with DATABASE_URL set it must have at least %d, e.g. from `openssl rand -hex 32`", name, len(v), min))
		}
	}
	if !c.S3() || c.UploadSecret != "" {
		if c.UploadSecret == "" {
			errs = append(errs, fmt.Errorf("HYSCRIBE_UPLOAD_SECRET is required when DATABASE_URL is set and uploads are local: every API must sign upload addresses with the same key (at least %d characters, e.g. from `openssl rand -hex 32`)", minUploadSecret))
		} else {
			weak("HYSCRIBE_UPLOAD_SECRET", c.UploadSecret, minUploadSecret)
		}
	}
	if c.S3() {
		weak("HYSCRIBE_S3_SECRET_KEY", c.S3SecretKey, minS3Secret)
	}
	for _, k := range []struct{ name, v string }{{"HYSCRIBE_ASR_API_KEY", c.ASRAPIKey}, {"HYSCRIBE_LLM_API_KEY", c.LLMAPIKey}} {
		if k.v != "" && placeholder(k.v) {
			errs = append(errs, fmt.Errorf("%s is a placeholder (%q): set the real key or leave it empty", k.name, k.v))
		}
	}
	if placeholder(c.KafkaSASLPassword) { // its value is not repeated: it is in use somewhere
		errs = append(errs, errors.New("KAFKA_SASL_PASSWORD is a placeholder: give the Kafka user a real password"))
	}
	for _, u := range []struct{ name, v string }{{"DATABASE_URL", c.DatabaseURL}, {"CLICKHOUSE_DSN", c.ClickHouseDSN}} {
		pu, err := url.Parse(u.v)
		if err != nil || pu.User == nil {
			continue
		}
		if pw, ok := pu.User.Password(); ok && pw != "" {
			switch {
			case placeholder(pw):
				errs = append(errs, fmt.Errorf("%s has a placeholder password: give the database user a real one", u.name))
			case len(pw) < minPassword:
				errs = append(errs, fmt.Errorf("%s has a password of %d characters: at least %d are required with DATABASE_URL set", u.name, len(pw), minPassword))
			}
		}
	}
	return errs
}
