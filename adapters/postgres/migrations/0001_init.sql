-- Times are unix milliseconds, UTC (bigint), as in the SQLite store: they
-- round-trip exactly at the precision the ports promise, and lease and
-- window arithmetic is integer arithmetic.
-- metadata, audio, segments and questions are JSON kept as text, not jsonb:
-- jsonb reorders keys and drops whitespace, and customers must get their
-- metadata back byte for byte.

CREATE TABLE accounts (
    id                   text PRIMARY KEY,
    name                 text NOT NULL,
    plan                 text NOT NULL,
    balance_ms           bigint NOT NULL,
    webhook_url          text NOT NULL DEFAULT '',
    webhook_secret       text NOT NULL DEFAULT '',
    analysis_webhook_url text NOT NULL DEFAULT '',
    notify_failures      boolean NOT NULL DEFAULT false,
    created_at           bigint NOT NULL
);

-- Only the SHA-256 of a key is stored; hash is how requests find it.
-- ord is insertion order, the tie-break of "newest first".
CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    ord          bigint GENERATED ALWAYS AS IDENTITY,
    account_id   text NOT NULL REFERENCES accounts (id),
    prefix       text NOT NULL,
    hash         text NOT NULL UNIQUE,
    created_at   bigint NOT NULL,
    last_used_at bigint,
    revoked_at   bigint
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE jobs (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES accounts (id),
    type              text NOT NULL,
    status            text NOT NULL,
    metadata          text,
    checklist_id      text NOT NULL DEFAULT '',
    created_at        bigint NOT NULL,
    updated_at        bigint NOT NULL,
    upload_expires_at bigint NOT NULL,
    blob_key          text NOT NULL DEFAULT '',
    audio_bytes       bigint NOT NULL DEFAULT 0,
    audio             text,
    reserved_ms       bigint NOT NULL DEFAULT 0,
    transcription     text NOT NULL DEFAULT '',
    segments          text,
    title             text NOT NULL DEFAULT '',
    resolution        text NOT NULL DEFAULT '',
    language_code     text NOT NULL DEFAULT '',
    error             text NOT NULL DEFAULT '',
    redrives          integer NOT NULL DEFAULT 0
);
-- The sweeper's two questions: stuck in a state, and upload window closed.
CREATE INDEX jobs_status_updated ON jobs (status, updated_at);
CREATE INDEX jobs_uploading_expires ON jobs (upload_expires_at) WHERE status = 'uploading';
-- The web application's history of an account's recordings.
CREATE INDEX jobs_account_created ON jobs (account_id, created_at);

-- A checklist keeps every version under one id; readers take the latest.
CREATE TABLE checklists (
    id         text NOT NULL,
    version    integer NOT NULL,
    account_id text NOT NULL REFERENCES accounts (id),
    name       text NOT NULL,
    questions  text NOT NULL,
    archived   boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL,
    PRIMARY KEY (id, version)
);
CREATE INDEX checklists_account ON checklists (account_id, id);

-- window_start is the start of the fixed window ("window" is reserved in
-- Postgres); old windows are deleted by Hit. Counters are rewritten on every
-- request and worthless after a crash, so the table is UNLOGGED: no WAL.
CREATE UNLOGGED TABLE rate_counters (
    key          text NOT NULL,
    window_start bigint NOT NULL,
    count        integer NOT NULL,
    PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_counters_window ON rate_counters (window_start);

-- seq comes from an identity sequence: never reused, so seq order is the
-- order records were written. Across docs two transactions may commit out
-- of seq order, which nothing relies on; within a doc, writes hold the
-- job's row lock, so seq order is commit order.
CREATE TABLE outbox (
    seq          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     text NOT NULL,
    topic        text NOT NULL,
    doc_id       text NOT NULL,
    payload      text NOT NULL,
    leased_until bigint,
    created_at   bigint NOT NULL
);
-- "Is an earlier record of this doc still here?" for every claim.
CREATE INDEX outbox_doc_seq ON outbox (doc_id, seq);

-- One delivery per event: the UNIQUE event_id is what makes a repeated
-- event a no-op. ord is insertion order, the tie-break of "oldest first".
CREATE TABLE deliveries (
    id           text PRIMARY KEY,
    ord          bigint GENERATED ALWAYS AS IDENTITY,
    event_id     text NOT NULL UNIQUE,
    doc_id       text NOT NULL,
    account_id   text NOT NULL,
    event_type   text NOT NULL,
    url          text NOT NULL,
    payload      bytea,
    status       text NOT NULL,
    http_status  integer NOT NULL DEFAULT 0,
    latency_ms   bigint NOT NULL DEFAULT 0,
    error        text NOT NULL DEFAULT '',
    created_at   bigint NOT NULL,
    attempted_at bigint
);
CREATE INDEX deliveries_doc ON deliveries (doc_id, created_at);
CREATE INDEX deliveries_status ON deliveries (status, created_at);
