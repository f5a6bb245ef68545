package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/forwarded"
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

// Config is everything the environment can set (docs/architecture.md, Operating contract), declared once:
// each field's tags are its variable, its default, its help line (printed
// by `hyscribe serve|api|worker --help`) and its check, and LoadConfig,
// --help, the deploy tests and the docs all read this one list.
//
// To add a variable, add ONE field line here, e.g.
//
//	ASRTimeout time.Duration `env:"HYSCRIBE_ASR_TIMEOUT" envDefault:"10m" check:"min=1s" help:"longest wait for one recognition"`
//
// env and envDefault are read by github.com/caarlos0/env (the name, and
// the default as the variable would be written); help and check are ours:
// check is comma-separated min=N or min=DURATION, oneof=a|b|c, url (an
// absolute http(s) URL, its trailing / dropped), hostport, loglevel,
// timezone, cidrs (CIDRs or addresses). Field types: string, bool, int,
// int64, float64, time.Duration, Seconds (a duration written as whole
// seconds), []string (comma-separated). A value that does not parse or
// fails its check stops the start with a message naming the variable.
// Rules between variables are in validate below.
type Config struct {
	HTTPAddr            string        `env:"HYSCRIBE_HTTP_ADDR" envDefault:"127.0.0.1:8080" check:"hostport" help:"address the public HTTP API listens on"`
	AdminAddr           string        `env:"HYSCRIBE_ADMIN_ADDR" check:"hostport" help:"operators' listener: /metrics, /debug/pprof/, /healthz and a detailed /readyz; set, /metrics leaves the public port (docs/operations.md); empty: none"`
	HealthAddr          string        `env:"HYSCRIBE_HEALTH_ADDR" check:"hostport" help:"a worker's /healthz, /readyz and /metrics (kept for existing deployments; HYSCRIBE_ADMIN_ADDR serves the same and more); empty: none"`
	PprofAddr           string        `env:"HYSCRIBE_PPROF_ADDR" check:"hostport" help:"Go's /debug/pprof/ alone (HYSCRIBE_ADMIN_ADDR serves it too); empty: none"`
	PublicURL           string        `env:"HYSCRIBE_PUBLIC_URL" check:"url" help:"base of upload addresses and event links as customers reach them; empty: http://<bound address> (refused for a worker with DATABASE_URL)"`
	DataDir             string        `env:"HYSCRIBE_DATA_DIR" envDefault:"./data" help:"SQLite file, embedded Kafka, local uploads, scratch audio"`
	DatabaseURL         string        `env:"DATABASE_URL" help:"Postgres URL; empty: SQLite in the data dir. Set, the process is production-shaped: KAFKA_BROKERS and strong secrets are required"`
	KafkaBrokers        []string      `env:"KAFKA_BROKERS" help:"comma-separated brokers; empty: an embedded cluster (refused with DATABASE_URL)"`
	KafkaEmbeddedAddr   string        `env:"HYSCRIBE_KAFKA_EMBEDDED_ADDR" envDefault:"127.0.0.1:9092" check:"hostport" help:"where the embedded Kafka listens"`
	KafkaPartitions     int           `env:"HYSCRIBE_KAFKA_PARTITIONS" envDefault:"12" check:"min=1" help:"partitions of each topic hyscribe creates (replicas per stage that can work at once)"`
	KafkaReplication    int           `env:"HYSCRIBE_KAFKA_REPLICATION_FACTOR" envDefault:"0" check:"min=0" help:"replicas of each topic hyscribe creates; 0: 3, or every broker when the cluster has fewer; more than the cluster's brokers is refused"`
	KafkaSessionTimeout time.Duration `env:"HYSCRIBE_KAFKA_SESSION_TIMEOUT" envDefault:"45s" check:"min=1ms" help:"consumer group session timeout"`

	// How every Kafka client (producer, consumers, topic admin, lag
	// monitor) reaches KAFKA_BROKERS: TLS, SASL, or both (SASL_SSL).
	KafkaTLS          bool   `env:"KAFKA_TLS" envDefault:"false" help:"TLS to KAFKA_BROKERS, verified by KAFKA_TLS_CA_FILE or the system's roots"`
	KafkaTLSCAFile    string `env:"KAFKA_TLS_CA_FILE" help:"PEM file of the CA(s) that signed the brokers' certificates; empty: the system's roots"`
	KafkaTLSCertFile  string `env:"KAFKA_TLS_CERT_FILE" help:"PEM client certificate for brokers that require one (mutual TLS); with KAFKA_TLS_KEY_FILE"`
	KafkaTLSKeyFile   string `env:"KAFKA_TLS_KEY_FILE" help:"PEM private key of KAFKA_TLS_CERT_FILE"`
	KafkaSASLMech     string `env:"KAFKA_SASL_MECHANISM" help:"SASL to KAFKA_BROKERS: plain, scram-sha-256 or scram-sha-512 (plain only with KAFKA_TLS); empty: none"`
	KafkaSASLUser     string `env:"KAFKA_SASL_USERNAME" help:"SASL user name"`
	KafkaSASLPassword string `env:"KAFKA_SASL_PASSWORD" help:"SASL password (keep it in the Secret; never logged)"`

	OutboxLease         time.Duration `env:"HYSCRIBE_OUTBOX_LEASE" envDefault:"30s" check:"min=1ms" help:"wait before another relay takes outbox records a dead relay claimed"`
	ClickHouseDSN       string        `env:"CLICKHOUSE_DSN" help:"ClickHouse for analytics; empty: analytics off"`
	ASRURL              string        `env:"HYSCRIBE_ASR_URL" check:"url" help:"OpenAI-compatible speech engine, its /v1 base; empty: every job fails"`
	ASRAPIKey           string        `env:"HYSCRIBE_ASR_API_KEY" help:"bearer key of the speech engine"`
	ASRModel            string        `env:"HYSCRIBE_ASR_MODEL" help:"model asked of the speech engine; empty: the profile's (whisper-1 for OpenAI; vLLM needs its served name)"`
	ASRProfile          string        `env:"HYSCRIBE_ASR_PROFILE" envDefault:"auto" help:"the engine's kind: auto (from the URL and its answers), openai, azure, whispercpp, speaches, vllm or groq (README, Speech engines)"`
	ASRTimeout          time.Duration `env:"HYSCRIBE_ASR_TIMEOUT" envDefault:"10m" check:"min=1ms" help:"one request to the engine, upload and answer"`
	ASRJobBudget        time.Duration `env:"HYSCRIBE_ASR_JOB_BUDGET" envDefault:"1h" check:"min=0" help:"a job's whole recognition, from when it began converting; then it fails readably (0: no budget)"`
	ASRMaxChunk         Seconds       `env:"HYSCRIBE_ASR_MAX_CHUNK_SECONDS" envDefault:"600" check:"min=0" help:"longest piece sent in one request, in seconds; 0: no limit"`
	ASRMaxChunkBytes    int64         `env:"HYSCRIBE_ASR_MAX_CHUNK_BYTES" envDefault:"25165824" check:"min=0" help:"largest piece sent in one request; 0: no limit"`
	ASRConcurrency      int           `env:"HYSCRIBE_ASR_CONCURRENCY" envDefault:"4" check:"min=1" help:"requests in flight to the engine: its slots (on Postgres with HYSCRIBE_ASR_SHARED_SLOTS, for every worker together)"`
	ASRPieceSeconds     float64       `env:"HYSCRIBE_ASR_PIECE_SECONDS" envDefault:"30" check:"min=0" help:"length a long recording's pieces aim at, in seconds (0: as long as the engine takes)"`
	ASRWholeSeconds     float64       `env:"HYSCRIBE_ASR_WHOLE_SECONDS" envDefault:"90" check:"min=0" help:"recordings up to this many seconds go to the engine whole"`
	TranscribeJobs      int           `env:"HYSCRIBE_TRANSCRIBE_JOBS" envDefault:"16" check:"min=1" help:"jobs of one Kafka partition recognised at once"`
	ASRSharedSlots      bool          `env:"HYSCRIBE_ASR_SHARED_SLOTS" envDefault:"true" help:"on Postgres, HYSCRIBE_ASR_CONCURRENCY bounds every worker together (engine slots leased in the store)"`
	ASRSlotLease        time.Duration `env:"HYSCRIBE_ASR_SLOT_LEASE" envDefault:"30s" check:"min=3ms" help:"how long a killed worker's engine slots stay taken"`
	ASRBreakerFailures  int           `env:"HYSCRIBE_ASR_BREAKER_FAILURES" envDefault:"5" check:"min=1" help:"consecutive failures that open the engine's circuit"`
	ASRBreakerOpenFor   time.Duration `env:"HYSCRIBE_ASR_BREAKER_OPEN_FOR" envDefault:"30s" check:"min=1ms" help:"wait before a trial request to an open circuit"`
	LLMURL              string        `env:"HYSCRIBE_LLM_URL" check:"url" help:"OpenAI-compatible chat model for summaries; empty: built-in extractive ones"`
	LLMAPIKey           string        `env:"HYSCRIBE_LLM_API_KEY" help:"bearer key of the chat model"`
	LLMModel            string        `env:"HYSCRIBE_LLM_MODEL" envDefault:"gpt-4o-mini" help:"chat model name"`
	WebhookAllowPrivate bool          `env:"HYSCRIBE_WEBHOOK_ALLOW_PRIVATE" envDefault:"false" help:"allow webhook receivers on private and loopback addresses"`
	WebhookTimeout      time.Duration `env:"HYSCRIBE_WEBHOOK_TIMEOUT" envDefault:"5s" check:"min=1ms" help:"one webhook delivery's timeout"`
	UploadTTL           time.Duration `env:"HYSCRIBE_UPLOAD_TTL" envDefault:"1h" check:"min=1s" help:"validity of an upload address"`
	UploadSecret        string        `env:"HYSCRIBE_UPLOAD_SECRET" help:"key signing local upload addresses, shared by every API; empty: a key file in the data dir (refused with DATABASE_URL unless 32+ characters)"`
	MaxUploadBytes      int64         `env:"HYSCRIBE_MAX_UPLOAD_BYTES" envDefault:"536870912" check:"min=1" help:"largest upload"`
	MaxDuration         time.Duration `env:"HYSCRIBE_MAX_DURATION" envDefault:"4h" check:"min=1s" help:"longest recording accepted"`
	CreateRateLimit     int           `env:"HYSCRIBE_CREATE_RATE_LIMIT" envDefault:"600" check:"min=0" help:"createTranscription calls a minute per API key"`
	KeyCacheTTL         time.Duration `env:"HYSCRIBE_KEY_CACHE_TTL" envDefault:"5s" check:"min=0" help:"how long an API key is trusted without asking the store; 0: never"`
	StageAttempts       int           `env:"HYSCRIBE_STAGE_ATTEMPTS" envDefault:"5" check:"min=1" help:"tries of a stage's handler before the dead-letter topic"`
	StageBackoff        time.Duration `env:"HYSCRIBE_STAGE_BACKOFF" envDefault:"1s" check:"min=0" help:"first wait between those tries"`
	SweepInterval       time.Duration `env:"HYSCRIBE_SWEEP_INTERVAL" envDefault:"30s" check:"min=1ms" help:"how often stale jobs are looked for"`
	StuckAfter          time.Duration `env:"HYSCRIBE_STUCK_AFTER" envDefault:"15m" check:"min=1ms" help:"a job unchanged this long is stale"`
	RetentionInterval   time.Duration `env:"HYSCRIBE_RETENTION_INTERVAL" envDefault:"1h" check:"min=1ms" help:"how often accounts' retention rules are applied"`
	RequestTimeout      time.Duration `env:"HYSCRIBE_REQUEST_TIMEOUT" envDefault:"10s" check:"min=1ms" help:"deadline of every API request and web page (an upload's body keeps its own longer bound; its store work gets this); past it the answer is 503 with Retry-After"`
	StatementTimeout    time.Duration `env:"HYSCRIBE_STATEMENT_TIMEOUT" envDefault:"30s" check:"min=1ms" help:"on Postgres, the longest one statement of background work (stages, relay, sweeper) or a wait for a pooled connection may take, and the server's statement_timeout unless DATABASE_URL sets one"`
	ShutdownGrace       time.Duration `env:"HYSCRIBE_SHUTDOWN_GRACE" envDefault:"10s" check:"min=0" help:"time in-flight work gets at shutdown"`
	TrustedProxies      []string      `env:"HYSCRIBE_TRUSTED_PROXIES" check:"cidrs" help:"comma-separated CIDRs of the proxies in front (the ingress) whose X-Forwarded-For names the client that per-address limits count; empty: none, the peer is the client"`
	LogLevel            string        `env:"HYSCRIBE_LOG_LEVEL" envDefault:"info" check:"loglevel" help:"debug, info, warn or error"`
	FFmpeg              string        `env:"HYSCRIBE_FFMPEG" envDefault:"ffmpeg" help:"the MP3 decoder, FFmpeg: a path or a name on PATH; a worker running the transcribe stage refuses to start without it (docs/operations.md)"`

	// The web application (/app).
	SignUp        bool    `env:"HYSCRIBE_SIGNUP" envDefault:"true" help:"anyone may create an account at /app/signup"`
	SignUpPlan    string  `env:"HYSCRIBE_SIGNUP_PLAN" envDefault:"free" check:"oneof=free|business" help:"plan of accounts made by sign-up"`
	SignUpSeconds float64 `env:"HYSCRIBE_SIGNUP_SECONDS" envDefault:"0" check:"min=0" help:"their starting balance in audio seconds"`
	WebTimezone   string  `env:"HYSCRIBE_WEB_TIMEZONE" envDefault:"Asia/Yerevan" check:"timezone" help:"where the web application shows times (IANA zone)"`
	CookieSecure  string  `env:"HYSCRIBE_COOKIE_SECURE" envDefault:"auto" check:"oneof=auto|true|false" help:"Secure cookies; auto: when the public URL is https"`
	TrialSeconds  float64 `env:"HYSCRIBE_TRIAL_SECONDS" envDefault:"0" check:"min=0" help:"audio seconds a sign-up gets on the Business plan once its address is confirmed by e-mail; 0: the sign-up plan and seconds above"`
	// TrialUnconfirmed gives the trial at sign-up, unconfirmed: for a
	// laptop or a demo only, since sign-ups are cheap to repeat.
	TrialUnconfirmed bool   `env:"HYSCRIBE_TRIAL_UNCONFIRMED" envDefault:"false" help:"give HYSCRIBE_TRIAL_SECONDS at sign-up without confirming the address (laptops and demos only: anyone can farm trials)"`
	SMTPURL          string `env:"HYSCRIBE_SMTP_URL" help:"SMTP relay for invitations, password resets and low-balance notices (smtp://user:pass@host:port); empty: links are copied by hand"`
	// The mail outbox's bound (app.MailAttempts, app.MailRetryWait).
	MailAttempts  int           `env:"HYSCRIBE_MAIL_ATTEMPTS" envDefault:"8" check:"min=1" help:"tries of a letter the SMTP relay does not take before it is given up (logged, counted in hyscribe_mail_letters_total)"`
	MailRetryWait time.Duration `env:"HYSCRIBE_MAIL_RETRY_WAIT" envDefault:"30s" check:"min=1ms" help:"first wait before such a letter is tried again, doubled each try up to 15m"`

	// S3-compatible upload storage; unset endpoint: uploads on local disk.
	S3Endpoint       string        `env:"HYSCRIBE_S3_ENDPOINT" check:"hostport" help:"host:port of the S3 API as hyscribe reaches it; empty: uploads on local disk"`
	S3Bucket         string        `env:"HYSCRIBE_S3_BUCKET" envDefault:"hyscribe" help:"bucket of uploads"`
	S3AccessKey      string        `env:"HYSCRIBE_S3_ACCESS_KEY" help:"S3 access key"`
	S3SecretKey      string        `env:"HYSCRIBE_S3_SECRET_KEY" help:"S3 secret key (refused with DATABASE_URL when short or a placeholder)"`
	S3Region         string        `env:"HYSCRIBE_S3_REGION" envDefault:"us-east-1" help:"S3 region"`
	S3Secure         bool          `env:"HYSCRIBE_S3_SECURE" envDefault:"false" help:"HTTPS between hyscribe and HYSCRIBE_S3_ENDPOINT"`
	S3PublicEndpoint string        `env:"HYSCRIBE_S3_PUBLIC_ENDPOINT" check:"hostport" help:"host:port of the S3 API as customers reach it (it is signed into upload URLs); empty: HYSCRIBE_S3_ENDPOINT"`
	S3PublicSecure   string        `env:"HYSCRIBE_S3_PUBLIC_SECURE" check:"oneof=|true|false" help:"HTTPS in customers' upload URLs, apart from HYSCRIBE_S3_SECURE (plain inside, TLS at the ingress); empty: as HYSCRIBE_S3_SECURE"`
	S3NotifyARN      string        `env:"HYSCRIBE_S3_NOTIFY_ARN" envDefault:"arn:minio:sqs::HYSCRIBE:kafka" help:"notification target buckets are subscribed to; off: the operator configures it"`
	S3NotifyWait     time.Duration `env:"HYSCRIBE_S3_NOTIFY_WAIT" envDefault:"60s" check:"min=1ms" help:"how long the start waits for the store to register HYSCRIBE_S3_NOTIFY_ARN (MinIO does so after it says it is ready) before it fails"`
}

// S3() reports whether uploads go to an S3-compatible store.
func (c Config) S3() bool { return c.S3Endpoint != "" }

// S3PublicHTTPS reports whether customers' upload URLs are https.
func (c Config) S3PublicHTTPS() bool {
	if c.S3PublicSecure == "" {
		return c.S3Secure
	}
	return c.S3PublicSecure == "true"
}

// Variable is one entry of the declared configuration: what --help prints
// and the deploy tests check manifests against.
type Variable struct {
	Name, Default, Help string
}

// Variables is every variable the service reads, in declaration order.
func Variables() []Variable {
	t := reflect.TypeFor[Config]()
	out := make([]Variable, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if name := f.Tag.Get("env"); name != "" {
			out = append(out, Variable{Name: name, Default: f.Tag.Get("envDefault"), Help: f.Tag.Get("help")})
		}
	}
	return out
}

// variablesHelp is the list --help prints under serve, api and worker.
func variablesHelp() string {
	var b strings.Builder
	b.WriteString("\nenvironment (every variable this command reads, with its default):\n")
	for _, v := range Variables() {
		def := v.Default
		if def == "" {
			def = "(empty)"
		}
		fmt.Fprintf(&b, "  %s=%s\n      %s\n", v.Name, def, v.Help)
	}
	return b.String()
}

// LoadConfig reads the environment through getenv, applying defaults, and
// names the variable of any value it cannot parse or does not accept.
// Values are trimmed and a blank one takes the default. The library
// parses; then each field in declaration order reports its parse error or
// its check's refusal, so the first bad variable is the one named.
func LoadConfig(getenv func(string) string) (Config, error) {
	set := map[string]string{}
	for _, v := range Variables() {
		if raw := strings.TrimSpace(getenv(v.Name)); raw != "" {
			set[v.Name] = raw
		}
	}
	var c Config
	unparsed := map[string]bool{} // field names
	if err := env.ParseWithOptions(&c, env.Options{Environment: set, FuncMap: parsers}); err != nil {
		var agg env.AggregateError
		if !errors.As(err, &agg) {
			return Config{}, fmt.Errorf("cli.LoadConfig: %w", err)
		}
		for _, e := range agg.Errors {
			var pe env.ParseError
			if !errors.As(e, &pe) {
				return Config{}, fmt.Errorf("cli.LoadConfig: %w", e)
			}
			unparsed[pe.Name] = true
		}
	}
	v := reflect.ValueOf(&c).Elem()
	for i, f := range reflect.VisibleFields(v.Type()) {
		name := f.Tag.Get("env")
		if unparsed[f.Name] {
			return Config{}, fmt.Errorf("%s "+refusals[f.Type], name, set[name])
		}
		if err := checkField(v.Field(i), f.Tag.Get("check")); err != nil {
			return Config{}, fmt.Errorf("%s %w", name, err)
		}
	}
	if err := c.validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	secondsType  = reflect.TypeFor[Seconds]()
)

// refusals complete "NAME ..." for a value the library could not parse
// as its field's type.
var refusals = map[reflect.Type]string{
	durationType:               "must be a duration such as 30s or 1h, not %q",
	secondsType:                "must be a whole number of seconds, not %q",
	reflect.TypeFor[bool]():    "must be true or false, not %q",
	reflect.TypeFor[int]():     "must be an integer, not %q",
	reflect.TypeFor[int64]():   "must be an integer, not %q",
	reflect.TypeFor[float64](): "must be a number, not %q",
}

// parsers replace two of the library's: an int of 64 bits (it reads 32),
// and a list whose items are trimmed and blanks dropped.
var parsers = map[reflect.Type]env.ParserFunc{
	reflect.TypeFor[int](): func(raw string) (any, error) { return strconv.Atoi(raw) },
	reflect.TypeFor[[]string](): func(raw string) (any, error) {
		var out []string
		for _, s := range strings.Split(raw, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out, nil
	},
}

// Seconds is a duration written as a whole number of seconds
// (HYSCRIBE_ASR_MAX_CHUNK_SECONDS=600).
type Seconds time.Duration

// UnmarshalText reads a whole number of seconds.
func (s *Seconds) UnmarshalText(text []byte) error {
	n, err := strconv.Atoi(string(text))
	*s = Seconds(time.Duration(n) * time.Second)
	return err
}

// Duration is s as a time.Duration.
func (s Seconds) Duration() time.Duration { return time.Duration(s) }

// checkField applies a field's check tag; the error completes "NAME ...".
func checkField(fv reflect.Value, checks string) error {
	for _, c := range strings.Split(checks, ",") {
		kind, arg, _ := strings.Cut(c, "=")
		switch kind {
		case "":
		case "min":
			if fv.Type() == durationType || fv.Type() == secondsType {
				min, _ := time.ParseDuration(arg)
				if d := time.Duration(fv.Int()); d < min {
					if min == 0 {
						return fmt.Errorf("must not be negative, not %s", d)
					}
					return fmt.Errorf("must be at least %s, not %s", min, d)
				}
				continue
			}
			min, _ := strconv.ParseFloat(arg, 64)
			var x float64
			if fv.Kind() == reflect.Float64 {
				x = fv.Float()
			} else {
				x = float64(fv.Int())
			}
			if x < min {
				if min == 0 {
					return fmt.Errorf("must not be negative, not %v", x)
				}
				return fmt.Errorf("must be at least %s, not %v", arg, x)
			}
		case "oneof":
			ok := false
			for _, o := range strings.Split(arg, "|") {
				ok = ok || fv.String() == o
			}
			if !ok {
				return fmt.Errorf("must be one of %s, not %q", strings.Join(strings.Split(strings.Trim(arg, "|"), "|"), ", "), fv.String())
			}
		case "url":
			fv.SetString(strings.TrimRight(fv.String(), "/"))
			if s := fv.String(); s != "" {
				if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return fmt.Errorf("must be an absolute http(s) URL, not %q", s)
				}
			}
		case "hostport":
			if s := fv.String(); strings.Contains(s, "://") {
				return fmt.Errorf("is host:port, not a URL: %q", s)
			}
		case "loglevel":
			var lvl slog.Level
			s := fv.String()
			if err := lvl.UnmarshalText([]byte(s)); err != nil || strings.ContainsAny(s, "+-") {
				return fmt.Errorf("must be debug, info, warn or error, not %q", s)
			}
		case "cidrs":
			list, _ := fv.Interface().([]string)
			if _, err := forwarded.Parse(list); err != nil {
				return fmt.Errorf("must be comma-separated CIDRs such as 10.0.0.0/8: %w", err)
			}
		case "timezone":
			if _, err := time.LoadLocation(fv.String()); err != nil || fv.String() == "" {
				return fmt.Errorf("must be an IANA zone such as Asia/Yerevan or UTC, not %q", fv.String())
			}
		default:
			panic("cli.Config: unknown check " + kind)
		}
	}
	return nil
}

// validate holds the rules between variables.
func (c Config) validate() error {
	if !slices.Contains(asr.Profiles, strings.ToLower(c.ASRProfile)) {
		return fmt.Errorf("HYSCRIBE_ASR_PROFILE must be one of %s, not %q", strings.Join(asr.Profiles, ", "), c.ASRProfile)
	}
	if err := c.checkMail(); err != nil {
		return err
	}
	if err := c.checkKafkaSecurity(); err != nil {
		return err
	}
	if c.S3() {
		if c.S3AccessKey == "" || c.S3SecretKey == "" {
			return errors.New("HYSCRIBE_S3_ENDPOINT is set: HYSCRIBE_S3_ACCESS_KEY and HYSCRIBE_S3_SECRET_KEY are required too")
		}
		if c.UploadTTL > 7*24*time.Hour {
			return errors.New("HYSCRIBE_UPLOAD_TTL must be at most 168h with S3 uploads (pre-signed URLs last at most 7 days)")
		}
	}
	return nil
}
