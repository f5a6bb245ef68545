package cli

import (
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
