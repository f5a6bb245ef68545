-- Every event a job's changes wrote, kept after the outbox has published
-- and dropped it, for `hyscribe job show`: ids, types, states and times
-- only, no payload.
CREATE TABLE job_history (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    doc_id      text NOT NULL,
    event_id    text NOT NULL,
    topic       text NOT NULL,
    type        text NOT NULL,
    status      text NOT NULL DEFAULT '',
    error       text NOT NULL DEFAULT '',
    occurred_at bigint NOT NULL
);
CREATE INDEX job_history_doc ON job_history (doc_id, seq);
