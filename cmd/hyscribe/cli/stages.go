package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/hyscribe/hyscribe/adapters/analysis"
	"github.com/hyscribe/hyscribe/adapters/clickhouse"
	"github.com/hyscribe/hyscribe/adapters/diarize"
	"github.com/hyscribe/hyscribe/adapters/extractive"
	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/llm"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/s3"
	"github.com/hyscribe/hyscribe/adapters/wavcut"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The stage names, as app.Pipeline declares them.
const (
	StageUploads    = app.StageUploads
	StageProcess    = app.StageProcess
	StageTranscribe = app.StageTranscribe
	StageEnrich     = app.StageEnrich
	StageNotify     = app.StageNotify
	StageAnalyze    = app.StageAnalyze
	StageAnalytics  = app.StageAnalytics
)

// AllStages is every stage, in pipeline order: the names of app.Pipeline.
var AllStages = app.StageNames()

func parseStages(s string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, ok := app.StageNamed(name); !ok {
			return nil, fmt.Errorf("unknown stage %q (stages: %s)", name, strings.Join(AllStages, ","))
		}
		out = append(out, name)
	}
	if len(out) == 0 {
		return nil, errors.New("--stages names no stage")
	}
	return out, nil
}

// stageEnv is what building a stage's handler may use.
type stageEnv struct {
	ctx   context.Context
	blobs ports.BlobStore
	clock ports.Clock
	log   *slog.Logger
	reg   *metrics.Registry
}

// stageRun is what a stage's builder makes: what its consumer runs, and
// what Stop closes once the consumer has stopped.
type stageRun struct {
	handler  kafka.Handler
	decode   func(topic string, value []byte) (domain.Event, error) // nil: hyscribe's envelope
	onGiveUp kafka.GiveUpFunc                                       // the stage's own, for app.GiveUpFailAnalysis
	// concurrency is how many records of one partition run at once (keys
	// apart; kafka.ConsumerConfig.Concurrency); 0 is one, in order.
	concurrency int
	// batch, instead of handler, runs the stage's topics in batches (a
	// sink that writes in bulk: analytics); onBatch is told of each.
	batch     kafka.BatchHandler
	onBatch   func(events int, latency time.Duration)
	onFailure func(err error) // a failed write of a batch (retried)
	// close, when set, runs after every consumer stopped (in-flight work
	// finished, connections closed).
	close func() error
}

// stageBuilders build the handler of each stage of app.Pipeline; a nil
// stageRun is a stage off in this configuration (the builder logs why). A
// test checks every stage has one. A builder returns what it makes and
// writes nothing to the Service.
var stageBuilders = map[string]func(*Service, stageEnv) (*stageRun, error){
	app.StageUploads:    (*Service).uploadsStage,
	app.StageProcess:    (*Service).processStage,
	app.StageTranscribe: (*Service).transcribeStage,
	app.StageEnrich:     (*Service).enrichStage,
	app.StageNotify:     (*Service).notifyStage,
	app.StageAnalyze:    (*Service).analyzeStage,
	app.StageAnalytics:  (*Service).analyticsStage,
}

func (s *Service) startStages(ctx context.Context, stages []string, blobs ports.BlobStore, clock ports.Clock, log *slog.Logger, reg *metrics.Registry) error {
	env := stageEnv{ctx: ctx, blobs: blobs, clock: clock, log: log, reg: reg}
	fail := app.NewFailJob(s.store, clock)
	handled := reg.Counter("hyscribe_stage_events_total", "Pipeline events handled, by stage, topic and result.", "stage", "topic", "result")
	latency := reg.Histogram("hyscribe_stage_duration_seconds", "Time to handle one pipeline event.", []float64{.005, .01, .05, .1, .5, 1, 5, 15, 60, 300}, "stage")
	retried := reg.Counter("hyscribe_stage_retries_total", "Handler attempts that failed and were retried.", "stage", "topic")
	dead := reg.Counter("hyscribe_stage_dead_letters_total", "Records sent to a dead-letter topic.", "stage", "topic")
	backedOff := reg.Counter("hyscribe_stage_backoffs_total", "Waits because a shared dependency was down (the speech engine's open circuit, the store out of reach); attempts not counted.", "stage", "topic")
	for _, name := range stages {
		stage, ok := app.StageNamed(name)
		if !ok {
			return fmt.Errorf("unknown stage %q", name)
		}
		run, err := stageBuilders[name](s, env)
		if err != nil {
			return err
		}
		if run == nil {
			continue
		}
		if run.close != nil {
			s.stageClosers = append(s.stageClosers, run.close)
		}
		c, err := s.stageConsumer(stage, run, env, fail, stageMetrics(stage.Name, handled, latency, retried, dead, backedOff))
		if err != nil {
			return fmt.Errorf("stage %s: %w", stage.Name, err)
		}
		s.consumers.Add(1)
		go func() {
			defer s.consumers.Done()
			if err := c.Run(ctx); err != nil {
				log.Error("stage stopped", "stage", stage.Name, "err", err)
			}
		}()
	}
	return nil
}

// stageConsumer is the consumer of one stage: its group, reading exactly
// the stage's topics.
func (s *Service) stageConsumer(stage app.Stage, run *stageRun, env stageEnv, fail *app.FailJob, m kafka.Metrics) (interface{ Run(context.Context) error }, error) {
	cfg, log := s.cfg, env.log
	if run.batch != nil {
		return kafka.NewBatchConsumer(kafka.BatchConsumerConfig{
			Brokers: s.brokers, Group: "hyscribe-" + stage.Name, Topics: stage.Topics,
			Handler: run.batch, Logger: log.With("stage", stage.Name), OnBatch: run.onBatch, OnFailure: run.onFailure,
			ClientOpts: s.kafkaOpts,
		})
	}
	ccfg := kafka.ConsumerConfig{
		Brokers: s.brokers, Group: "hyscribe-" + stage.Name, Topics: stage.Topics, Handler: run.handler, Decode: run.decode,
		MaxAttempts: cfg.StageAttempts, Backoff: cfg.StageBackoff, Logger: log.With("stage", stage.Name),
		ShutdownGrace: cfg.ShutdownGrace, Concurrency: run.concurrency,
		Metrics: m,
		// A worker that dies without leaving its group holds its
		// partitions until the session times out; then the others
		// take them over.
		ClientOpts: append([]kgo.Opt{
			kgo.SessionTimeout(cfg.KafkaSessionTimeout),
			kgo.HeartbeatInterval(min(3*time.Second, cfg.KafkaSessionTimeout/3)),
		}, s.kafkaOpts...),
	}
	switch stage.GiveUp {
	case app.GiveUpFailJob:
		ccfg.OnGiveUp = func(ctx context.Context, ev domain.Event, err error) error {
			log.Error("stage gave up on a job", "stage", stage.Name, "docId", ev.DocID, "err", err)
			return fail.Handle(ctx, ev.DocID, app.GiveUpReason(stage.Name, err))
		}
	case app.GiveUpFailAnalysis:
		ccfg.OnGiveUp = run.onGiveUp
	}
	return kafka.NewConsumer(ccfg)
}

func (s *Service) uploadsStage(env stageEnv) (*stageRun, error) {
	if !s.cfg.S3() {
		env.log.Info("stage uploads not started: uploads are served by the API (set HYSCRIBE_S3_ENDPOINT for S3 uploads)")
		return nil, nil
	}
	uc := app.NewCompleteStoredUpload(s.store, env.blobs, env.clock, s.cfg.MaxUploadBytes, env.log.With("stage", app.StageUploads))
	return &stageRun{handler: uc.Handle, decode: s3.EventParser{Bucket: s.cfg.S3Bucket}.Parse}, nil
}

func (s *Service) processStage(env stageEnv) (*stageRun, error) {
	uc := app.NewProcessAudio(s.store, env.blobs, mp3.Prober{}, env.clock, s.cfg.MaxDuration, env.log)
	if s.letters.Enabled() {
		uc.LowBalance = s.letters.LowBalance
	}
	return &stageRun{handler: uc.Handle}, nil
}

func (s *Service) transcribeStage(env stageEnv) (*stageRun, error) {
	cfg := s.cfg
	leases, err := s.engineSlots(env)
	if err != nil {
		return nil, err
	}
	rec, textOnly, err := recognizer(cfg, env.log, env.reg, leases)
	if err != nil {
		return nil, err
	}
	tmp := filepath.Join(cfg.DataDir, "tmp")
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return nil, err
	}
	limits := ports.ChunkLimits{MaxBytes: cfg.ASRMaxChunkBytes, MaxSeconds: cfg.ASRMaxChunk.Duration().Seconds(),
		PieceSeconds: cfg.ASRPieceSeconds, WholeSeconds: cfg.ASRWholeSeconds, Slots: cfg.ASRConcurrency}
	uc := app.NewTranscribeAudio(s.store, env.blobs, mp3.Splitter{FFmpeg: cfg.FFmpeg}, rec, env.clock, tmp, env.log,
		app.WithDiarizer(diarize.New()), app.WithChannelInspector(diarize.New()),
		app.WithChunking(mp3.Chunker{}, limits, cfg.ASRConcurrency), app.WithRecognizedPieces(s.store),
		app.WithUtterances(diarize.New(), wavcut.Cutter{}, textOnly), app.WithBudget(cfg.ASRJobBudget))
	// Jobs of one partition are recognised side by side, so that none
	// waits for another's engine time because they hash to one partition;
	// the engine's scheduler decides who goes first (issue 28).
	return &stageRun{handler: uc.Handle, concurrency: cfg.TranscribeJobs}, nil
}

func (s *Service) enrichStage(env stageEnv) (*stageRun, error) {
	var sum ports.Summarizer = extractive.New()
	var fallback ports.Summarizer
	if chat, err := s.chatModel(); err != nil {
		return nil, err
	} else if chat != nil {
		sum, fallback = chat, extractive.New()
	}
	return &stageRun{handler: app.NewEnrichTranscript(s.store, sum, fallback, env.clock, env.log).Handle}, nil
}

func (s *Service) notifyStage(env stageEnv) (*stageRun, error) {
	notify := app.NewDeliverEvents(s.store, s.store, s.store, s.webhooks, env.clock, s.publicURL, 256, env.log)
	// A send lasts at most the webhook timeout: a lease past it means the
	// worker died; any live worker then takes the delivery over.
	notify.LeaseFor = s.cfg.WebhookTimeout + 10*time.Second
	s.goBackground(func() { notify.RunTakeOver(env.ctx) })
	// Deliveries started by the handler finish before Stop goes on.
	return &stageRun{handler: notify.Handle, close: func() error { notify.Wait(); return nil }}, nil
}

func (s *Service) analyzeStage(env stageEnv) (*stageRun, error) {
	uc, err := s.analyzeTranscript(env.clock, env.log)
	if err != nil {
		return nil, err
	}
	return &stageRun{handler: uc.Handle, onGiveUp: func(ctx context.Context, ev domain.Event, err error) error {
		// A failed analysis never fails the job: it is recorded as failed.
		env.log.Error("analysis gave up", "docId", ev.DocID, "err", err)
		return uc.GiveUp(ctx, ev, app.AnalysisGiveUpReason(err))
	}}, nil
}

// analyticsStage is the ClickHouse sink of the stage's events, when
// CLICKHOUSE_DSN is set; without it analytics is off (results stay in the
// store) and the stage is skipped. The DSN's database is created when
// missing. A ClickHouse that cannot be reached or opened does not stop the
// worker: the stage's batches fail and are retried, logged each time, and
// the events wait in Kafka until ClickHouse takes them.
func (s *Service) analyticsStage(env stageEnv) (*stageRun, error) {
	if s.cfg.ClickHouseDSN == "" {
		env.log.Info("analytics stage off: CLICKHOUSE_DSN is not set")
		return nil, nil
	}
	sink := clickhouse.NewSink(s.cfg.ClickHouseDSN)
	ctx, cancel := context.WithTimeout(env.ctx, 30*time.Second)
	defer cancel()
	if err := sink.Open(ctx); err != nil {
		env.log.Warn("analytics waits for ClickHouse (CLICKHOUSE_DSN): its events stay in Kafka until it can write them; the other stages run", "err", err)
	}
	rows := env.reg.Counter("hyscribe_analytics_events_total", "Events stored in ClickHouse.")
	failures := env.reg.Counter("hyscribe_analytics_write_failures_total", "Failed writes of a batch of events to ClickHouse (each is retried; the events wait in Kafka).")
	failures.With() // 0 from the start, so a rate over it exists before the first failure
	return &stageRun{batch: sink.Write, close: sink.Close,
		onBatch:   func(n int, _ time.Duration) { rows.With().Add(float64(n)) },
		onFailure: func(error) { failures.With().Inc() }}, nil
}

// chatModel is the outside model enrich and analyze use when HYSCRIBE_LLM_URL
// is set; nil without it.
// analyzeTranscript is the analyse stage's use case: the chat model when
// one is configured (the built-in analyser its fallback), else the
// built-in one. The web application uses it too, to analyse a call again
// when its speakers are given other roles.
func (s *Service) analyzeTranscript(clock ports.Clock, log *slog.Logger) (*app.AnalyzeTranscript, error) {
	var an ports.ChecklistAnalyzer = analysis.New()
	var fallback ports.ChecklistAnalyzer
	if chat, err := s.chatModel(); err != nil {
		return nil, err
	} else if chat != nil {
		an, fallback = chat, analysis.New()
	}
	return app.NewAnalyzeTranscript(s.store, s.store, s.store, an, fallback, clock, log), nil
}

func (s *Service) chatModel() (*llm.Client, error) {
	if s.cfg.LLMURL == "" {
		return nil, nil
	}
	chat, err := llm.New(llm.Config{BaseURL: s.cfg.LLMURL, APIKey: s.cfg.LLMAPIKey, Model: s.cfg.LLMModel})
	if err != nil {
		return nil, fmt.Errorf("HYSCRIBE_LLM_URL: %w", err)
	}
	return chat, nil
}

func stageMetrics(stage string, handled *metrics.CounterVec, latency *metrics.HistogramVec, retried, dead, backedOff *metrics.CounterVec) kafka.Metrics {
	return kafka.Metrics{
		Handled: func(topic string, d time.Duration, err error) {
			result := "ok"
			if err != nil {
				result = "error"
			}
			handled.With(stage, topic, result).Inc()
			latency.With(stage).Observe(d.Seconds())
		},
		Retried:      func(topic string, _ int) { retried.With(stage, topic).Inc() },
		DeadLettered: func(topic string) { dead.With(stage, topic).Inc() },
		BackedOff:    func(topic string) { backedOff.With(stage, topic).Inc() },
	}
}
