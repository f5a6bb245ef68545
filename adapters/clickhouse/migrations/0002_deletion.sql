-- Jobs deleted by their owner or by retention (hyscribe.job.deleted.v1).
-- Their rows in every other table are dropped; this list keeps a
-- redelivered event of a deleted job from writing them again.
CREATE TABLE IF NOT EXISTS deleted_docs (
    doc_id     String,
    account_id String,
    deleted_at DateTime
) ENGINE = ReplacingMergeTree()
ORDER BY (doc_id);
