// Package kafka is hyscribe's event bus on Kafka, written with franz-go.
//
// It holds the four pieces the pipeline needs (docs/architecture.md, Pipeline): an in-process
// kfake cluster that listens on TCP and persists to disk (Embedded, the
// default of `make run`), topic provisioning with dead-letter twins
// (EnsureTopics), the outbox relay's producer (Publisher, implementing
// ports.Publisher) and the per-stage consumer group (Consumer) that retries a
// failing handler a bounded number of times, then hands the event to the
// application (OnGiveUp) and writes the record to the stage's dead-letter
// topic. Offsets are committed only for records whose handling finished, so
// delivery is at least once: handlers must be idempotent.
package kafka
