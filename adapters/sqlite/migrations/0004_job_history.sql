-- Every event a job's changes wrote, kept after the outbox has published
-- and dropped it, for `hyscribe job show`: ids, types, states and times
-- only, no payload.
CREATE TABLE job_history (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id      TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    topic       TEXT NOT NULL,
    type        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT '',
    error       TEXT NOT NULL DEFAULT '',
    occurred_at INTEGER NOT NULL
) STRICT;
CREATE INDEX job_history_doc ON job_history (doc_id, seq);
