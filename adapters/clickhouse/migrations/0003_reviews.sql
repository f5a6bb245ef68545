-- People's reviews of analyses (hyscribe.analysis.reviewed.v1, issue 36).
-- One row per analysis and question with the machine's answer beside the
-- reviewed one, and one row per analysis with both scores. A call's review
-- has revisions: ReplacingMergeTree(revision) keeps a key's highest
-- revision, so read with FINAL to see each call's latest review, and a
-- redelivered revision collapses into itself. No partitions: all revisions
-- of a call must meet in one partition to be merged, and a re-analysed
-- call's analysed_at moves.
CREATE TABLE IF NOT EXISTS review_results (
    account_id     String,
    checklist_id   String,
    analysis_id    String,
    question_id    String,
    doc_id         String,
    revision       UInt32,
    question       String,
    machine_answer String,
    machine_score  Float64,
    answer         String,
    score          Float64,
    overridden     UInt8,
    reason         String,
    weight         Float64,
    reviewer_id    String,
    reviewed_at    DateTime,
    reviewed_ms    UInt16,
    analysed_at    DateTime,
    analysed_ms    UInt16
) ENGINE = ReplacingMergeTree(revision)
ORDER BY (account_id, checklist_id, analysis_id, question_id);

CREATE TABLE IF NOT EXISTS reviews (
    account_id        String,
    checklist_id      String,
    analysis_id       String,
    doc_id            String,
    revision          UInt32,
    checklist_version UInt32,
    reviewer_id       String,
    comment           String,
    questions         UInt16,
    overridden        UInt16,
    machine_score     Float64,
    reviewed_score    Float64,
    reviewed_at       DateTime,
    reviewed_ms       UInt16,
    analysed_at       DateTime,
    analysed_ms       UInt16
) ENGINE = ReplacingMergeTree(revision)
ORDER BY (account_id, checklist_id, analysis_id);
