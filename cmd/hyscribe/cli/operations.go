package cli

import (
	"context"
	"encoding/json"
	"time"

	"github.com/hyscribe/hyscribe/adapters/kafka"
	"github.com/hyscribe/hyscribe/adapters/metrics"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// How often the operations gauges are refreshed.
const (
	outboxPollEvery   = 15 * time.Second
	consumerPollEvery = 30 * time.Second
)

// pipelineGroups is every consumer group the pipeline runs, with the topics
// it reads: what some process of a deployment must consume. The two
// optional stages are left out when they are off (uploads without S3,
// analytics without ClickHouse).
func pipelineGroups(cfg Config) map[string][]string {
	g := map[string][]string{}
	for _, st := range app.Pipeline {
		switch {
		case st.Name == StageUploads && !cfg.S3(), st.Name == StageAnalytics && cfg.ClickHouseDSN == "":
			continue
		}
		g["hyscribe-"+st.Name] = st.Topics
	}
	return g
}

// watchConsumers reports, in /metrics and the log, the lag of every
// pipeline group per topic and any topic no process consumes.
func (s *Service) watchConsumers(ctx context.Context, reg *metrics.Registry) error {
	m, err := kafka.NewLagMonitor(s.brokers, pipelineGroups(s.cfg), s.log, s.kafkaOpts...)
	if err != nil {
		return err
	}
	lag := reg.GaugeVec("hyscribe_kafka_consumer_lag", "Records of a topic its consumer group has yet to handle.", "group", "topic")
	members := reg.GaugeVec("hyscribe_kafka_consumer_members", "Members of a consumer group consuming a topic now.", "group", "topic")
	unconsumed := reg.GaugeVec("hyscribe_kafka_topic_unconsumed_seconds",
		"How long a topic has had no member of its consumer group behind it (0 while consumed): a stage no process runs.", "group", "topic")
	s.goBackground(func() {
		defer m.Close()
		m.Run(ctx, consumerPollEvery, func(res []kafka.GroupTopic) {
			for _, r := range res {
				lag.Set(float64(r.Lag), r.Group, r.Topic)
				members.Set(float64(r.Members), r.Group, r.Topic)
				unconsumed.Set(r.UnconsumedFor.Seconds(), r.Group, r.Topic)
			}
		})
	})
	return nil
}

// watchOutbox keeps the outbox's backlog and the age of its oldest record
// in /metrics: a relay that falls behind shows as a growing age.
func (s *Service) watchOutbox(ctx context.Context, reg *metrics.Registry, clock ports.Clock) {
	ob := s.store
	backlog := reg.GaugeVec("hyscribe_outbox_backlog", "Outbox records not yet published to Kafka.")
	age := reg.GaugeVec("hyscribe_outbox_oldest_age_seconds", "Age of the oldest outbox record not yet published (0 when none).")
	s.goBackground(func() {
		tick := time.NewTicker(outboxPollEvery)
		defer tick.Stop()
		for {
			qctx, cancel := context.WithTimeout(ctx, outboxPollEvery)
			n, oldest, err := ob.OutboxBacklog(qctx)
			cancel()
			if err == nil {
				backlog.Set(float64(n))
				a := 0.0
				if !oldest.IsZero() {
					a = max(0, clock.Now().Sub(oldest).Seconds())
				}
				age.Set(a)
			} else if ctx.Err() == nil {
				s.log.Warn("outbox backlog", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	})
}

// observedPublisher counts jobs reaching a terminal state as their
// job.status events leave the outbox (each is published once; a relay that
// dies between publishing and marking may count one twice).
type observedPublisher struct {
	ports.Publisher
	finished *metrics.CounterVec
}

func observePublisher(p ports.Publisher, reg *metrics.Registry) ports.Publisher {
	return observedPublisher{Publisher: p, finished: reg.Counter("hyscribe_jobs_finished_total",
		"Jobs that reached a terminal state, by state (transcribed, failed) and type.", "state", "type")}
}

func (o observedPublisher) Publish(ctx context.Context, events []domain.Event) error {
	if err := o.Publisher.Publish(ctx, events); err != nil {
		return err
	}
	for _, ev := range events {
		if ev.Topic != domain.TopicJobStatus {
			continue
		}
		var d domain.JobStatusData
		if ev.DecodeData(&d) == nil && d.Status.Terminal() {
			o.finished.With(string(d.Status), string(d.Type)).Inc()
		}
	}
	return nil
}

// Webhook delivery outcomes in /metrics.
const (
	webhookOK       = "ok"       // 2xx
	webhookRejected = "rejected" // the receiver answered with another status
	webhookFailed   = "failed"   // no answer: refused target, timeout, open circuit
)

// observedSender counts webhook deliveries by event and outcome, with their
// duration.
type observedSender struct {
	next     ports.WebhookSender
	total    *metrics.CounterVec
	duration *metrics.HistogramVec
}

func observeSender(next ports.WebhookSender, reg *metrics.Registry) ports.WebhookSender {
	return observedSender{next: next,
		total: reg.Counter("hyscribe_webhook_deliveries_total", "Webhook POSTs, by event type and outcome (ok, rejected, failed).", "event", "outcome"),
		duration: reg.Histogram("hyscribe_webhook_delivery_duration_seconds", "Time of one webhook POST, by event type and outcome.",
			[]float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30}, "event", "outcome"),
	}
}

func (o observedSender) Send(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
	res := o.next.Send(ctx, req)
	var body struct {
		Event string `json:"event_type"`
	}
	_ = json.Unmarshal(req.Body, &body)
	if body.Event == "" {
		body.Event = "unknown"
	}
	outcome := webhookOK
	switch {
	case res.Err == nil:
	case res.Status != 0:
		outcome = webhookRejected
	default:
		outcome = webhookFailed
	}
	o.total.With(body.Event, outcome).Inc()
	o.duration.With(body.Event, outcome).Observe(res.Latency.Seconds())
	return res
}
