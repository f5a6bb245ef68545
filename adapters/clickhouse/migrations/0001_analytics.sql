-- Checklist results, one row per analysis and question. The sorting key
-- starts with the account and checklist (every report filters on them) and
-- ends with (analysis_id, question_id), which identify a row: a redelivered
-- analysis.ready replaces its rows instead of adding to them (read with FINAL).
-- analysed_at is the analysis's own time, so a repeat lands in the same
-- partition as the original and is merged with it.
CREATE TABLE IF NOT EXISTS checklist_results (
    account_id        String,
    checklist_id      String,
    analysis_id       String,
    question_id       String,
    doc_id            String,
    checklist_version UInt32,
    checklist_name    String,
    question          String,
    answer            String,
    score             Float64,
    weight            Float64,
    evidence_count    UInt16,
    analysed_at       DateTime,
    analysed_ms       UInt16
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(analysed_at)
ORDER BY (account_id, checklist_id, analysis_id, question_id);

-- One row per analysis, failed ones included (status, error), with its
-- weighted score: the per-day volumes and averages.
CREATE TABLE IF NOT EXISTS analyses (
    account_id        String,
    checklist_id      String,
    analysis_id       String,
    doc_id            String,
    checklist_version UInt32,
    checklist_name    String,
    status            String,
    error             String,
    questions         UInt16,
    yes               UInt16,
    no                UInt16,
    unclear           UInt16,
    score             Float64,
    analysed_at       DateTime,
    analysed_ms       UInt16
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(analysed_at)
ORDER BY (account_id, checklist_id, analysis_id);

-- Every job state change (hyscribe.job.status.v1), keyed by the event's
-- deterministic id.
CREATE TABLE IF NOT EXISTS job_status_events (
    event_id     String,
    doc_id       String,
    account_id   String,
    status       String,
    previous     String,
    type         String,
    duration     Nullable(Float64),
    error        String,
    checklist_id String,
    occurred_at  DateTime,
    occurred_ms  UInt16
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (event_id);
