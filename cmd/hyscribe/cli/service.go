package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/blob"
	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	"github.com/hyscribe/hyscribe/adapters/forwarded"
	httpapi "github.com/hyscribe/hyscribe/adapters/httpapi"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/adapters/redact"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/adapters/webhook"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// Role says which parts of hyscribe a process runs.
type Role int

// Roles; serve is both.
const (
	RoleAPI Role = 1 << iota
	RoleWorker
)

// storeCloser is every store port both stores offer, plus Close.
type storeCloser interface {
	ports.Stores
	ports.JobDeleter
	ports.RetentionStore
	ports.TeamStore
	ports.UsageReader
	ports.APIKeyToucher
	ports.OutboxBacklog
	ports.JobHistory
	ports.AnalysisReplacer
	ports.MailOutbox
	ports.JobPager
	Close() error
}

// openStore opens Postgres when DATABASE_URL is set, else the SQLite file
// in the data dir. Both bring the schema up to date as they open. pg is
// the same store when it is Postgres (nil on SQLite), for what only the
// shared store offers: the poll's combined count and read, the engine's
// shared slots.
func openStore(ctx context.Context, cfg Config) (_ storeCloser, pg *postgres.Store, _ error) {
	if cfg.DatabaseURL != "" {
		s, err := postgres.OpenWith(ctx, cfg.DatabaseURL, postgres.Options{StatementTimeout: cfg.StatementTimeout})
		if err != nil {
			return nil, nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
		return s, s, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		return nil, nil, fmt.Errorf("data dir: %w", err)
	}
	s, err := sqlite.Open(ctx, filepath.Join(cfg.DataDir, "hyscribe.db"))
	if err != nil {
		return nil, nil, err
	}
	return s, nil, nil
}

// Service is a running hyscribe process: what Start started, stopped in
// order by Stop.
type Service struct {
	cfg       Config
	log       *slog.Logger
	httpAddr  string
	publicURL string
	letters   *app.Letters // e-mail (HYSCRIBE_SMTP_URL); without a mailer it sends nothing
	brokers   []string
	kafkaOpts []kgo.Opt // TLS and SASL (KAFKA_TLS*, KAFKA_SASL_*) of every Kafka client

	store    storeCloser
	pg       *postgres.Store // the store when it is Postgres; nil on SQLite
	embedded *kafka.Embedded
	pub      *kafka.Publisher
	web      *fiber.App
	health   *http.Server // a worker's /healthz and /metrics
	healthAt string
	admin    *http.Server // HYSCRIBE_ADMIN_ADDR
	adminAt  string
	webhooks ports.WebhookSender // one per process: every delivery to a receiver shares its circuit breaker
	reports  *clickhouse.Store   // the web application's analytics

	cancelStages context.CancelFunc // stage consumers
	stageClosers []func() error     // what the stages' builders made, closed once the consumers stopped
	cancelWork   context.CancelFunc // relay, sweeper
	relay        *app.Relay
	consumers    sync.WaitGroup
	background   sync.WaitGroup
	ready        chan struct{}
	stopOnce     sync.Once
	stopping     atomic.Bool
	stopErr      error
}

// HTTPAddr is the address the API listens on (useful with port 0).
func (s *Service) HTTPAddr() string { return s.httpAddr }

// HealthAddr is where a worker answers /healthz ("" when it does not).
func (s *Service) HealthAddr() string { return s.healthAt }

// AdminAddr is where the operators' listener answers ("" when
// HYSCRIBE_ADMIN_ADDR is unset).
func (s *Service) AdminAddr() string { return s.adminAt }

// PublicURL is the base of upload addresses and event links.
func (s *Service) PublicURL() string { return s.publicURL }

// Brokers are the Kafka brokers the service talks to.
func (s *Service) Brokers() []string { return s.brokers }

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		lvl = slog.LevelInfo
	}
	// Every line goes through redact: one-time tokens in paths, query
	// values, URL passwords and keys never reach the log.
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl, ReplaceAttr: redact.ReplaceAttr}))
}

// startEmbeddedKafka starts the embedded broker of cfg: the one `serve`
// runs when KAFKA_BROKERS is unset, and all that `hyscribe kafka` runs. Its
// log is kept in HYSCRIBE_DATA_DIR/kafka.
func startEmbeddedKafka(cfg Config, log *slog.Logger) (*kafka.Embedded, error) {
	e, err := kafka.StartEmbedded(cfg.KafkaEmbeddedAddr, filepath.Join(cfg.DataDir, "kafka"), cfg.KafkaPartitions)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("embedded kafka on %s (HYSCRIBE_KAFKA_EMBEDDED_ADDR): the address is in use, probably by another hyscribe's embedded Kafka; processes that work together must share one cluster: set KAFKA_BROKERS to it: %w", cfg.KafkaEmbeddedAddr, err)
	}
	if err != nil {
		return nil, fmt.Errorf("embedded kafka on %s (HYSCRIBE_KAFKA_EMBEDDED_ADDR): %w", cfg.KafkaEmbeddedAddr, err)
	}
	log.Info("embedded kafka listening", "addrs", e.Addrs(), "dir", filepath.Join(cfg.DataDir, "kafka"))
	return e, nil
}

// Start wires and starts the parts of hyscribe named by roles and stages.
// It returns once the service is ready; Stop shuts it down.
func Start(ctx context.Context, cfg Config, roles Role, stages []string, logw io.Writer) (svc *Service, err error) {
	log := newLogger(cfg, logw)
	s := &Service{cfg: cfg, log: log, ready: make(chan struct{})}
	defer func() {
		if err != nil {
			_ = s.Stop() // undoing a failed start: the start's error is returned
		}
	}()
	if s.store, s.pg, err = openStore(ctx, cfg); err != nil {
		return nil, err
	}
	if s.pg != nil {
		s.pg.SetLogger(log)
	}
	clock := ports.SystemClock{}
	reg := metrics.NewRegistry()
	registerProcessMetrics(reg)

	// Kafka: real brokers, or an embedded cluster outside consumers can read.
	s.brokers = cfg.KafkaBrokers
	if len(s.brokers) == 0 {
		if s.embedded, err = startEmbeddedKafka(cfg, log); err != nil {
			return nil, err
		}
		s.brokers = s.embedded.Addrs()
	}
	topics := domain.Topics
	if cfg.S3() {
		topics = append(append([]string(nil), topics...), domain.TopicStorageEvents)
	}
	if s.kafkaOpts, err = cfg.kafkaClientOpts(); err != nil {
		return nil, err
	}
	own := s.ownClientID()
	s.kafkaOpts = markOwnClients(s.kafkaOpts, own)
	if err = kafka.EnsureTopics(ctx, s.brokers, topics, kafka.TopicSettings{Partitions: int32(cfg.KafkaPartitions), ReplicationFactor: cfg.KafkaReplication, Logger: log, ClientOpts: s.kafkaOpts}); err != nil {
		return nil, fmt.Errorf("kafka topics (KAFKA_BROKERS %v): %w%s", s.brokers, err, cfg.kafkaSecurityHint())
	}
	if s.pub, err = kafka.NewPublisher(s.brokers, s.kafkaOpts...); err != nil {
		return nil, err
	}

	// HTTP listener first: the public URL defaults to the bound address.
	var ln net.Listener
	if roles&RoleAPI != 0 {
		if ln, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
			return nil, fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
		}
		s.httpAddr = ln.Addr().String()
	}
	s.publicURL = cfg.PublicURL
	if s.publicURL == "" {
		addr := s.httpAddr
		if addr == "" {
			addr = cfg.HTTPAddr
		}
		s.publicURL = "http://" + addr
	}
	blobs, signer, err := s.openBlobs(ctx)
	if err != nil {
		return nil, err
	}
	letters, mailSender := s.newLetters(log, reg)
	s.letters = letters
	s.webhooks = observeSender(webhook.NewSender(webhook.Config{Timeout: cfg.WebhookTimeout, AllowPrivate: cfg.WebhookAllowPrivate, Logger: log}), reg)

	workCtx, cancel := context.WithCancel(context.Background())
	s.cancelWork = cancel
	stageCtx, cancelStages := context.WithCancel(context.Background())
	s.cancelStages = cancelStages

	s.relay = app.NewRelay(s.store, observePublisher(s.pub, reg), clock, log)
	// Records claimed by a relay that died unpublished wait this long
	// before another relay takes them.
	s.relay.Lease = cfg.OutboxLease
	relayLatency := reg.Histogram("hyscribe_outbox_relay_latency_seconds", "Time from an event's commit to its publication.", []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 5}).With()
	s.relay.Observe = func(d time.Duration) { relayLatency.Observe(d.Seconds()) }
	s.goBackground(func() { _ = s.relay.Run(workCtx) })
	if mailSender != nil {
		s.goBackground(func() { _ = mailSender.Run(workCtx) })
	}
	s.watchOutbox(workCtx, reg, clock)

	if roles&RoleWorker != 0 {
		if err = s.startStages(stageCtx, stages, blobs, clock, log, reg); err != nil {
			return nil, err
		}
		if err = s.watchConsumers(workCtx, reg); err != nil {
			return nil, err
		}
		s.goBackground(func() { s.watchStrangers(workCtx, own, stages) })
		sweeper := app.NewSweeper(s.store, clock, log)
		sweeper.Interval, sweeper.StuckAfter = cfg.SweepInterval, cfg.StuckAfter
		skipped := reg.Counter("hyscribe_sweeper_errors_total", "Stale jobs the sweeper could not handle and skipped (logged with their docId).")
		sweeper.JobFailed = func(domain.DocID, error) { skipped.With().Inc() }
		if disk, ok := blobs.(*blob.Disk); ok {
			sweeper.Leftovers, sweeper.LeftoverAge = disk, blob.LeftoverAge
		}
		s.goBackground(func() { _ = sweeper.Run(workCtx) })
		retention := app.NewRetentionSweeper(s.store, app.NewDeleteJob(s.store, blobs, clock, log), clock, log)
		retention.Interval = cfg.RetentionInterval
		s.goBackground(func() { _ = retention.Run(workCtx) })
	}

	if roles&RoleAPI != 0 {
		auth, limit, get, poll := s.pollPath(workCtx, clock)
		reanalyze, err := s.analyzeTranscript(clock, log)
		if err != nil {
			return nil, err
		}
		uc := s.newApplication(apiPath{auth: auth, limit: limit, get: get, poll: poll}, blobs, signer, s.openReports(ctx), reanalyze, clock)
		webapp, err := s.webApp(workCtx, uc, clock, uploadOriginOf(ctx, signer, s.publicURL))
		if err != nil {
			return nil, err
		}
		proxies, err := forwarded.Parse(cfg.TrustedProxies)
		if err != nil {
			return nil, fmt.Errorf("HYSCRIBE_TRUSTED_PROXIES: %w", err)
		}
		s.web = httpapi.New(httpapi.Config{CreateLimit: cfg.CreateRateLimit, RequestTimeout: cfg.RequestTimeout, PublicURL: s.publicURL, MetricsElsewhere: cfg.AdminAddr != "", TrustedProxies: proxies}, httpapi.Deps{
			App:       uc,
			Ready:     s.isReady,
			Readiness: s.readiness,
			Web:       webapp.Register,
			Metrics:   reg,
			Logger:    log,
		})
		go func() {
			if err := s.web.Listener(ln); err != nil {
				log.Error("http server", "err", err)
			}
		}()
		log.Info("http listening", "addr", s.httpAddr, "publicURL", s.publicURL)
	}
	if roles&RoleAPI == 0 && cfg.HealthAddr != "" {
		if err = s.serveHealth(reg); err != nil {
			return nil, err
		}
	}
	if cfg.AdminAddr != "" {
		if err = s.serveAdmin(reg); err != nil {
			return nil, err
		}
	}
	close(s.ready)
	return s, nil
}

func (s *Service) goBackground(fn func()) {
	s.background.Add(1)
	go func() { defer s.background.Done(); fn() }()
}

// flushOutbox publishes what the stopped stages committed last, so the
// next start has nothing to catch up on (it would, were this skipped: the
// outbox keeps every event until it is published).
func (s *Service) flushOutbox() {
	if s.relay == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	for ctx.Err() == nil {
		n, err := s.relay.Once(ctx)
		if err != nil {
			s.log.Warn("outbox flush at shutdown", "err", err)
			return
		}
		if n == 0 {
			return
		}
	}
}

// Stop shuts down in order: HTTP, consumers (in-flight handlers finish or are
// handed back uncommitted), webhook deliveries, relay and sweeper, producer,
// embedded Kafka, store.
func (s *Service) Stop() error {
	s.stopOnce.Do(func() {
		s.stopping.Store(true)
		var errs []error
		if s.web != nil {
			errs = append(errs, s.web.ShutdownWithTimeout(s.cfg.ShutdownGrace))
		}
		if s.cancelStages != nil {
			s.cancelStages()
		}
		s.consumers.Wait()
		for _, closeStage := range s.stageClosers {
			errs = append(errs, closeStage())
		}
		if s.reports != nil {
			errs = append(errs, s.reports.Close())
		}
		s.flushOutbox()
		if s.cancelWork != nil {
			s.cancelWork()
		}
		s.background.Wait()
		if s.pub != nil {
			s.pub.Close()
		}
		if s.embedded != nil {
			s.embedded.Close()
		}
		for _, srv := range []*http.Server{s.health, s.admin} {
			if srv != nil {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				errs = append(errs, srv.Shutdown(ctx))
				cancel()
			}
		}
		if s.store != nil {
			errs = append(errs, s.store.Close())
		}
		s.stopErr = errors.Join(errs...)
	})
	return s.stopErr
}
