package app

import "github.com/hyscribe/hyscribe/domain"

// The pipeline stages a worker can run (docs/architecture.md, Pipeline), by name: what
// `worker --stages` takes and each consumer group is named after.
const (
	// StageUploads learns of uploads from the object store's notifications;
	// it runs only with S3 uploads (HYSCRIBE_S3_ENDPOINT).
	StageUploads    = "uploads"
	StageProcess    = "process"
	StageTranscribe = "transcribe"
	StageEnrich     = "enrich"
	StageNotify     = "notify"
	StageAnalyze    = "analyze"
	// StageAnalytics is the ClickHouse sink; it runs only when
	// CLICKHOUSE_DSN is set (docs/architecture.md, Operating contract).
	StageAnalytics = "analytics"
)

// GiveUp is what becomes of an event's job when a stage stops retrying it
// (its attempts spent, or a permanent error). The record then goes to the
// stage's dead-letter topic.
type GiveUp int

// The give-up policies.
const (
	// GiveUpFailJob fails the job with GiveUpReason: a job is never left
	// stuck in a stage that gave up on it.
	GiveUpFailJob GiveUp = iota
	// GiveUpFailAnalysis records the job's analysis as failed
	// (AnalysisGiveUpReason); the job stays transcribed.
	GiveUpFailAnalysis
	// GiveUpKeepJob leaves the job as it is: its outcome is already
	// decided (notify: deliveries keep their own record of failure).
	GiveUpKeepJob
	// GiveUpNever retries until it succeeds (analytics: a batch is retried
	// until ClickHouse stores it; a sink has no job to fail).
	GiveUpNever
)

// Stage is one step of the pipeline: a consumer group reading its topics.
type Stage struct {
	Name string
	// Topics are every topic the stage's consumer group reads, and the
	// only ones: its consumer subscribes to exactly these (a test of the
	// running service checks it) and the lag monitor watches these.
	Topics []string
	GiveUp GiveUp
}

// Pipeline is every stage, in pipeline order. It is the one list of them:
// the worker's wiring and --stages, the deploy files' tests and the app's
// tests read it.
var Pipeline = []Stage{
	{StageUploads, []string{domain.TopicStorageEvents}, GiveUpFailJob},
	{StageProcess, []string{domain.TopicAudioUploaded}, GiveUpFailJob},
	{StageTranscribe, []string{domain.TopicAudioProcessed}, GiveUpFailJob},
	{StageEnrich, []string{domain.TopicTranscriptRecognized}, GiveUpFailJob},
	{StageNotify, []string{domain.TopicTranscriptReady, domain.TopicJobStatus, domain.TopicAnalysisReady, domain.TopicAnalysisReviewed}, GiveUpKeepJob},
	{StageAnalyze, []string{domain.TopicTranscriptReady}, GiveUpFailAnalysis},
	{StageAnalytics, []string{domain.TopicAnalysisReady, domain.TopicJobStatus, domain.TopicJobDeleted, domain.TopicAnalysisReviewed}, GiveUpNever},
}

// StageNames are the names of Pipeline, in order.
func StageNames() []string {
	out := make([]string, len(Pipeline))
	for i, st := range Pipeline {
		out[i] = st.Name
	}
	return out
}

// StageNamed returns the stage called name.
func StageNamed(name string) (Stage, bool) {
	for _, st := range Pipeline {
		if st.Name == name {
			return st, true
		}
	}
	return Stage{}, false
}
