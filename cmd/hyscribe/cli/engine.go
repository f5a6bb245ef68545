package cli

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr"
	"github.com/hyscribe/hyscribe/adapters/metrics"
)

// schedulerMetrics puts the speech engine's scheduler in /metrics: its
// slots, the requests waiting for one, and how busy the slots are kept
// while work waits (issue 28; docs/performance.md).
func schedulerMetrics(reg *metrics.Registry, g *asr.Guarded) {
	reg.Gauge("hyscribe_asr_slots", "Requests this process sends to the speech engine at once (HYSCRIBE_ASR_CONCURRENCY).",
		func() float64 { return float64(g.Stats().Slots) })
	reg.Gauge("hyscribe_asr_requests_queued", "Recognitions waiting for a slot of the speech engine now.",
		func() float64 { return float64(g.Stats().Queued) })
	reg.CounterFunc("hyscribe_asr_slot_busy_seconds_total", "Slot-seconds the speech engine's slots were in use (rate / hyscribe_asr_slots: how busy the engine is).",
		func() float64 { return g.Stats().Busy })
	reg.CounterFunc("hyscribe_asr_queue_wait_seconds_total", "Seconds during which some recognition waited for a slot of the speech engine.",
		func() float64 { return g.Stats().Waited })
	reg.CounterFunc("hyscribe_asr_slot_busy_while_queued_seconds_total", "Slot-seconds in use while some recognition waited for a slot.",
		func() float64 { return g.Stats().BusyWhileWaiting })
	reg.Gauge("hyscribe_asr_engine_busy_ratio", "Share of the speech engine's slots in use while recognitions waited, since the previous scrape (1: none idle, or nothing waited).",
		g.BusyRatio)
}

// engineName names the speech engine at u: its host.
func engineName(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		return pu.Host
	}
	return "engine"
}

// engineSlots is the leases that make HYSCRIBE_ASR_CONCURRENCY the
// engine's limit across every worker process: on Postgres (the store they
// share) unless HYSCRIBE_ASR_SHARED_SLOTS=false; nil (this process's own
// limit) on SQLite, which one process serves, or without an engine. The
// leases are freed once the stage's consumers have stopped.
func (s *Service) engineSlots(env stageEnv) (asr.SlotLeases, error) {
	if s.pg == nil || !s.cfg.ASRSharedSlots || s.cfg.ASRURL == "" {
		return nil, nil
	}
	slots, err := s.pg.EngineSlots(env.ctx, engineName(s.cfg.ASRURL), s.cfg.ASRConcurrency, s.cfg.ASRSlotLease)
	if err != nil {
		return nil, fmt.Errorf("HYSCRIBE_ASR_SHARED_SLOTS: %w", err)
	}
	env.reg.Gauge("hyscribe_asr_engine_slots_in_use", "The speech engine's slots leased now by every worker process together (HYSCRIBE_ASR_SHARED_SLOTS).",
		func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			n, err := slots.InUse(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		})
	s.goBackground(func() {
		<-env.ctx.Done()
		s.consumers.Wait()
		slots.Close()
	})
	return slots, nil
}
