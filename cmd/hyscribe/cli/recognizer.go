package cli

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// recognizer is the speech engine behind its guard: a concurrency limit and
// a circuit breaker, with its latency, failures and circuit in /metrics.
// textOnly reports whether the engine is known to give no timestamps.
func recognizer(cfg Config, log *slog.Logger, reg *metrics.Registry, leases asr.SlotLeases) (_ ports.SpeechRecognizer, textOnly func() bool, _ error) {
	if cfg.ASRURL == "" {
		log.Warn("NO SPEECH ENGINE CONFIGURED: every job will fail with \"no speech engine configured (set HYSCRIBE_ASR_URL)\"; set HYSCRIBE_ASR_URL to an OpenAI-compatible /v1 base")
		return asr.NotConfigured{}, nil, nil
	}
	c, err := asr.New(asr.Config{BaseURL: cfg.ASRURL, APIKey: cfg.ASRAPIKey, Profile: cfg.ASRProfile, Model: cfg.ASRModel, Timeout: cfg.ASRTimeout, Logger: log})
	if err != nil {
		return nil, nil, fmt.Errorf("HYSCRIBE_ASR_URL: %w", err)
	}
	log.Info("speech engine", "profile", c.Profile(), "model", c.Model(), "timestamps", c.Timestamps())
	latency := reg.Histogram("hyscribe_asr_request_duration_seconds", "Time the speech engine took per recognition (retries included), by result.",
		[]float64{.1, .5, 1, 2, 5, 10, 30, 60, 120, 300, 600}, "result")
	failures := reg.Counter("hyscribe_asr_failures_total", "Recognitions that failed, by kind: unavailable (after retries) or refused (permanent).", "kind")
	g := asr.Guard(c, asr.GuardConfig{
		Name: engineName(cfg.ASRURL), Concurrency: cfg.ASRConcurrency, Leases: leases, FailuresToOpen: cfg.ASRBreakerFailures, OpenFor: cfg.ASRBreakerOpenFor, Logger: log,
		Observe: func(d time.Duration, err error) {
			result := "ok"
			switch {
			case err == nil:
			case domain.IsPermanent(err):
				result = "refused"
				failures.With(result).Inc()
			default:
				result = "unavailable"
				failures.With(result).Inc()
			}
			latency.With(result).Observe(d.Seconds())
		},
	})
	reg.Gauge("hyscribe_asr_circuit_state", "The speech engine's circuit breaker: 0 closed, 1 half-open (trial), 2 open (jobs wait in Kafka).", func() float64 { return float64(g.State()) })
	reg.Gauge("hyscribe_asr_requests_in_flight", "Recognitions being sent to the speech engine now.", func() float64 { return float64(g.InFlight()) })
	schedulerMetrics(reg, g)
	return g, func() bool { return !c.Timestamps() }, nil
}
