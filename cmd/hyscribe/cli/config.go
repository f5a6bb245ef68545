package cli

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr"
	// Zone data in the binary: HYSCRIBE_WEB_TIMEZONE must work on a
	// machine without /usr/share/zoneinfo (a scratch container).
	_ "time/tzdata"
)

// DefaultS3NotifyARN is the notification target buckets are subscribed to
// when HYSCRIBE_S3_NOTIFY_ARN is unset: the Kafka target MinIO registers for
// MINIO_NOTIFY_KAFKA_ENABLE_HYSCRIBE=on, as the README and deploy/README.md
// configure it. MinIO keeps the target ID's case, so it is HYSCRIBE, not
// hyscribe; a bucket subscribed to a target the server lacks is refused
// ("A specified destination ARN does not exist").
const DefaultS3NotifyARN = "arn:minio:sqs::HYSCRIBE:kafka"

// Config is everything the environment can set (DESIGN §4). Names are part of
// the operating contract: tests and deployments rely on them.
type Config struct {
	HTTPAddr            string        // HYSCRIBE_HTTP_ADDR
	HealthAddr          string        // HYSCRIBE_HEALTH_ADDR: /healthz and /metrics of a worker; "" none
	PprofAddr           string        // HYSCRIBE_PPROF_ADDR: Go's /debug/pprof/ for profiling; "" (the default) none
	PublicURL           string        // HYSCRIBE_PUBLIC_URL; "" means http://<bound address>
	DataDir             string        // HYSCRIBE_DATA_DIR
	DatabaseURL         string        // DATABASE_URL
	KafkaBrokers        []string      // KAFKA_BROKERS
	KafkaEmbeddedAddr   string        // HYSCRIBE_KAFKA_EMBEDDED_ADDR
	KafkaPartitions     int           // HYSCRIBE_KAFKA_PARTITIONS
	KafkaSessionTimeout time.Duration // HYSCRIBE_KAFKA_SESSION_TIMEOUT
	OutboxLease         time.Duration // HYSCRIBE_OUTBOX_LEASE
	ClickHouseDSN       string        // CLICKHOUSE_DSN
	ASRURL              string        // HYSCRIBE_ASR_URL
	ASRAPIKey           string        // HYSCRIBE_ASR_API_KEY
	ASRModel            string        // HYSCRIBE_ASR_MODEL
	ASRMaxChunk         time.Duration // HYSCRIBE_ASR_MAX_CHUNK_SECONDS: longest piece sent in one request
	ASRMaxChunkBytes    int64         // HYSCRIBE_ASR_MAX_CHUNK_BYTES: largest piece sent in one request
	ASRConcurrency      int           // HYSCRIBE_ASR_CONCURRENCY: requests in flight to the engine, per process
	ASRBreakerFailures  int           // HYSCRIBE_ASR_BREAKER_FAILURES: consecutive failures that open the circuit
	ASRBreakerOpenFor   time.Duration // HYSCRIBE_ASR_BREAKER_OPEN_FOR: wait before a trial request
	ASRProfile          string        // HYSCRIBE_ASR_PROFILE: the engine's kind (asr.Profiles); auto: from the URL
	ASRTimeout          time.Duration // HYSCRIBE_ASR_TIMEOUT: one request to the engine, upload and answer
	ASRJobBudget        time.Duration // HYSCRIBE_ASR_JOB_BUDGET: a job's whole recognition; then it fails
	LLMURL              string        // HYSCRIBE_LLM_URL
	LLMAPIKey           string        // HYSCRIBE_LLM_API_KEY
	LLMModel            string        // HYSCRIBE_LLM_MODEL
	WebhookAllowPrivate bool          // HYSCRIBE_WEBHOOK_ALLOW_PRIVATE
	WebhookTimeout      time.Duration // HYSCRIBE_WEBHOOK_TIMEOUT
	UploadTTL           time.Duration // HYSCRIBE_UPLOAD_TTL
	UploadSecret        string        // HYSCRIBE_UPLOAD_SECRET; "" means a key file in the data dir
	MaxUploadBytes      int64         // HYSCRIBE_MAX_UPLOAD_BYTES
	MaxDuration         time.Duration // HYSCRIBE_MAX_DURATION
	CreateRateLimit     int           // HYSCRIBE_CREATE_RATE_LIMIT
	KeyCacheTTL         time.Duration // HYSCRIBE_KEY_CACHE_TTL: how long an API key is trusted without asking the store (0: never)
	StageAttempts       int           // HYSCRIBE_STAGE_ATTEMPTS
	StageBackoff        time.Duration // HYSCRIBE_STAGE_BACKOFF
	SweepInterval       time.Duration // HYSCRIBE_SWEEP_INTERVAL
	StuckAfter          time.Duration // HYSCRIBE_STUCK_AFTER
	RetentionInterval   time.Duration // HYSCRIBE_RETENTION_INTERVAL: how often accounts' retention rules are applied
	ShutdownGrace       time.Duration // HYSCRIBE_SHUTDOWN_GRACE
	LogLevel            string        // HYSCRIBE_LOG_LEVEL

	// The web application (/app).
	SignUp        bool    // HYSCRIBE_SIGNUP: anyone may create an account at /app/signup
	SignUpPlan    string  // HYSCRIBE_SIGNUP_PLAN: plan of accounts made by sign-up
	SignUpSeconds float64 // HYSCRIBE_SIGNUP_SECONDS: their starting balance
	WebTimezone   string  // HYSCRIBE_WEB_TIMEZONE: where times are shown
	CookieSecure  string  // HYSCRIBE_COOKIE_SECURE: true, false or auto (HTTPS public URL)

	// S3-compatible upload storage; unset endpoint: uploads on local disk.
	S3Endpoint       string // HYSCRIBE_S3_ENDPOINT (host:port)
	S3Bucket         string // HYSCRIBE_S3_BUCKET
	S3AccessKey      string // HYSCRIBE_S3_ACCESS_KEY
	S3SecretKey      string // HYSCRIBE_S3_SECRET_KEY
	S3Region         string // HYSCRIBE_S3_REGION
	S3Secure         bool   // HYSCRIBE_S3_SECURE
	S3PublicEndpoint string // HYSCRIBE_S3_PUBLIC_ENDPOINT; "" means S3Endpoint
	S3NotifyARN      string // HYSCRIBE_S3_NOTIFY_ARN; "off": configured by the operator
}

// S3 reports whether uploads go to an S3-compatible store.
func (c Config) S3() bool { return c.S3Endpoint != "" }

// LoadConfig reads the environment through getenv, applying defaults, and
// names the variable of any value it cannot parse.
func LoadConfig(getenv func(string) string) (Config, error) {
	p := parser{getenv: getenv}
	c := Config{
		HTTPAddr:            p.str("HYSCRIBE_HTTP_ADDR", "127.0.0.1:8080"),
		HealthAddr:          p.str("HYSCRIBE_HEALTH_ADDR", ""),
		PprofAddr:           p.str("HYSCRIBE_PPROF_ADDR", ""),
		PublicURL:           strings.TrimRight(p.str("HYSCRIBE_PUBLIC_URL", ""), "/"),
		DataDir:             p.str("HYSCRIBE_DATA_DIR", "./data"),
		DatabaseURL:         p.str("DATABASE_URL", ""),
		KafkaBrokers:        p.list("KAFKA_BROKERS"),
		KafkaEmbeddedAddr:   p.str("HYSCRIBE_KAFKA_EMBEDDED_ADDR", "127.0.0.1:9092"),
		KafkaPartitions:     p.int("HYSCRIBE_KAFKA_PARTITIONS", 12),
		KafkaSessionTimeout: p.dur("HYSCRIBE_KAFKA_SESSION_TIMEOUT", 45*time.Second),
		OutboxLease:         p.dur("HYSCRIBE_OUTBOX_LEASE", 30*time.Second),
		ClickHouseDSN:       p.str("CLICKHOUSE_DSN", ""),
		ASRURL:              strings.TrimRight(p.str("HYSCRIBE_ASR_URL", ""), "/"),
		ASRAPIKey:           p.str("HYSCRIBE_ASR_API_KEY", ""),
		ASRModel:            p.str("HYSCRIBE_ASR_MODEL", ""),
		ASRMaxChunk:         time.Duration(p.int("HYSCRIBE_ASR_MAX_CHUNK_SECONDS", 600)) * time.Second,
		ASRMaxChunkBytes:    int64(p.int("HYSCRIBE_ASR_MAX_CHUNK_BYTES", 24<<20)),
		ASRConcurrency:      p.int("HYSCRIBE_ASR_CONCURRENCY", 4),
		ASRBreakerFailures:  p.int("HYSCRIBE_ASR_BREAKER_FAILURES", 5),
		ASRBreakerOpenFor:   p.dur("HYSCRIBE_ASR_BREAKER_OPEN_FOR", 30*time.Second),
		ASRProfile:          p.str("HYSCRIBE_ASR_PROFILE", "auto"),
		ASRTimeout:          p.dur("HYSCRIBE_ASR_TIMEOUT", 10*time.Minute),
		ASRJobBudget:        p.dur("HYSCRIBE_ASR_JOB_BUDGET", time.Hour),
		LLMURL:              strings.TrimRight(p.str("HYSCRIBE_LLM_URL", ""), "/"),
		LLMAPIKey:           p.str("HYSCRIBE_LLM_API_KEY", ""),
		LLMModel:            p.str("HYSCRIBE_LLM_MODEL", "gpt-4o-mini"),
		WebhookAllowPrivate: p.bool("HYSCRIBE_WEBHOOK_ALLOW_PRIVATE", false),
		WebhookTimeout:      p.dur("HYSCRIBE_WEBHOOK_TIMEOUT", 5*time.Second),
		UploadTTL:           p.dur("HYSCRIBE_UPLOAD_TTL", time.Hour),
		UploadSecret:        p.str("HYSCRIBE_UPLOAD_SECRET", ""),
		MaxUploadBytes:      int64(p.int("HYSCRIBE_MAX_UPLOAD_BYTES", 512<<20)),
		MaxDuration:         p.dur("HYSCRIBE_MAX_DURATION", 4*time.Hour),
		CreateRateLimit:     p.int("HYSCRIBE_CREATE_RATE_LIMIT", 600),
		KeyCacheTTL:         p.dur("HYSCRIBE_KEY_CACHE_TTL", 5*time.Second),
		StageAttempts:       p.int("HYSCRIBE_STAGE_ATTEMPTS", 5),
		StageBackoff:        p.dur("HYSCRIBE_STAGE_BACKOFF", time.Second),
		SweepInterval:       p.dur("HYSCRIBE_SWEEP_INTERVAL", 30*time.Second),
		StuckAfter:          p.dur("HYSCRIBE_STUCK_AFTER", 15*time.Minute),
		RetentionInterval:   p.dur("HYSCRIBE_RETENTION_INTERVAL", time.Hour),
		ShutdownGrace:       p.dur("HYSCRIBE_SHUTDOWN_GRACE", 10*time.Second),
		LogLevel:            p.str("HYSCRIBE_LOG_LEVEL", "info"),
		SignUp:              p.bool("HYSCRIBE_SIGNUP", true),
		SignUpPlan:          p.str("HYSCRIBE_SIGNUP_PLAN", "free"),
		SignUpSeconds:       p.float("HYSCRIBE_SIGNUP_SECONDS", 0),
		WebTimezone:         p.str("HYSCRIBE_WEB_TIMEZONE", "Asia/Yerevan"),
		CookieSecure:        p.str("HYSCRIBE_COOKIE_SECURE", "auto"),
		S3Endpoint:          p.str("HYSCRIBE_S3_ENDPOINT", ""),
		S3Bucket:            p.str("HYSCRIBE_S3_BUCKET", "hyscribe"),
		S3AccessKey:         p.str("HYSCRIBE_S3_ACCESS_KEY", ""),
		S3SecretKey:         p.str("HYSCRIBE_S3_SECRET_KEY", ""),
		S3Region:            p.str("HYSCRIBE_S3_REGION", "us-east-1"),
		S3Secure:            p.bool("HYSCRIBE_S3_SECURE", false),
		S3PublicEndpoint:    p.str("HYSCRIBE_S3_PUBLIC_ENDPOINT", ""),
		S3NotifyARN:         p.str("HYSCRIBE_S3_NOTIFY_ARN", DefaultS3NotifyARN),
	}
	if p.err != nil {
		return Config{}, p.err
	}
	for _, u := range []struct{ name, v string }{{"HYSCRIBE_PUBLIC_URL", c.PublicURL}, {"HYSCRIBE_ASR_URL", c.ASRURL}, {"HYSCRIBE_LLM_URL", c.LLMURL}} {
		if u.v == "" {
			continue
		}
		if pu, err := url.Parse(u.v); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return Config{}, fmt.Errorf("%s must be an absolute http(s) URL, not %q", u.name, u.v)
		}
	}
	if c.ASRMaxChunk < 0 || c.ASRMaxChunkBytes < 0 || c.ASRConcurrency <= 0 || c.ASRBreakerFailures <= 0 || c.ASRBreakerOpenFor <= 0 {
		return Config{}, fmt.Errorf("HYSCRIBE_ASR_MAX_CHUNK_SECONDS and HYSCRIBE_ASR_MAX_CHUNK_BYTES must not be negative (0: no limit); HYSCRIBE_ASR_CONCURRENCY, HYSCRIBE_ASR_BREAKER_FAILURES and HYSCRIBE_ASR_BREAKER_OPEN_FOR must be positive")
	}
	if c.ASRTimeout <= 0 || c.ASRJobBudget < 0 {
		return Config{}, fmt.Errorf("HYSCRIBE_ASR_TIMEOUT must be positive and HYSCRIBE_ASR_JOB_BUDGET not negative (0: no budget)")
	}
	if !slices.Contains(asr.Profiles, strings.ToLower(c.ASRProfile)) {
		return Config{}, fmt.Errorf("HYSCRIBE_ASR_PROFILE must be one of %s, not %q", strings.Join(asr.Profiles, ", "), c.ASRProfile)
	}
	if c.UploadTTL <= 0 || c.KafkaPartitions <= 0 || c.MaxUploadBytes <= 0 || c.StageAttempts <= 0 || c.KafkaSessionTimeout <= 0 || c.OutboxLease <= 0 {
		return Config{}, fmt.Errorf("HYSCRIBE_UPLOAD_TTL, HYSCRIBE_KAFKA_PARTITIONS, HYSCRIBE_KAFKA_SESSION_TIMEOUT, HYSCRIBE_OUTBOX_LEASE, HYSCRIBE_MAX_UPLOAD_BYTES and HYSCRIBE_STAGE_ATTEMPTS must be positive")
	}
	if plan := c.SignUpPlan; plan != "free" && plan != "business" {
		return Config{}, fmt.Errorf("HYSCRIBE_SIGNUP_PLAN must be free or business, not %q", plan)
	}
	if c.SignUpSeconds < 0 {
		return Config{}, fmt.Errorf("HYSCRIBE_SIGNUP_SECONDS must not be negative")
	}
	if _, err := time.LoadLocation(c.WebTimezone); err != nil {
		return Config{}, fmt.Errorf("HYSCRIBE_WEB_TIMEZONE must be an IANA zone such as Asia/Yerevan or UTC, not %q", c.WebTimezone)
	}
	if v := c.CookieSecure; v != "auto" && v != "true" && v != "false" {
		return Config{}, fmt.Errorf("HYSCRIBE_COOKIE_SECURE must be auto, true or false, not %q", v)
	}
	if c.S3() {
		if c.S3AccessKey == "" || c.S3SecretKey == "" {
			return Config{}, fmt.Errorf("HYSCRIBE_S3_ENDPOINT is set: HYSCRIBE_S3_ACCESS_KEY and HYSCRIBE_S3_SECRET_KEY are required too")
		}
		if strings.Contains(c.S3Endpoint, "://") || strings.Contains(c.S3PublicEndpoint, "://") {
			return Config{}, fmt.Errorf("HYSCRIBE_S3_ENDPOINT and HYSCRIBE_S3_PUBLIC_ENDPOINT are host:port (HTTPS is HYSCRIBE_S3_SECURE=true), not URLs")
		}
		if c.UploadTTL > 7*24*time.Hour {
			return Config{}, fmt.Errorf("HYSCRIBE_UPLOAD_TTL must be at most 168h with S3 uploads (pre-signed URLs last at most 7 days)")
		}
	}
	return c, nil
}

type parser struct {
	getenv func(string) string
	err    error
}

func (p *parser) str(name, def string) string {
	if v := strings.TrimSpace(p.getenv(name)); v != "" {
		return v
	}
	return def
}

func (p *parser) list(name string) []string {
	var out []string
	for _, s := range strings.Split(p.getenv(name), ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (p *parser) int(name string, def int) int {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s must be an integer, not %q", name, v)
	}
	return n
}

func (p *parser) bool(name string, def bool) bool {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	b, err := strconv.ParseBool(v)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s must be true or false, not %q", name, v)
	}
	return b
}

func (p *parser) float(name string, def float64) float64 {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s must be a number, not %q", name, v)
	}
	return f
}

func (p *parser) dur(name string, def time.Duration) time.Duration {
	v := p.str(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("%s must be a duration such as 30s or 1h, not %q", name, v)
	}
	return d
}
