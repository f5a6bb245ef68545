-- Times are unix milliseconds, UTC: they sort and compare as integers and
-- round-trip exactly at the precision the ports promise.
-- Tables are STRICT so a wrongly typed value fails the write instead of
-- being stored as something else.

CREATE TABLE accounts (
    id                   TEXT PRIMARY KEY,
    name                 TEXT NOT NULL,
    plan                 TEXT NOT NULL,
    balance_ms           INTEGER NOT NULL,
    webhook_url          TEXT NOT NULL DEFAULT '',
    webhook_secret       TEXT NOT NULL DEFAULT '',
    analysis_webhook_url TEXT NOT NULL DEFAULT '',
    notify_failures      INTEGER NOT NULL DEFAULT 0,
    created_at           INTEGER NOT NULL
) STRICT;

-- Only the SHA-256 of a key is stored; hash is how requests find it.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    prefix       TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

-- metadata, audio and segments are JSON text. metadata is kept byte for
-- byte: customers get back exactly what they sent.
CREATE TABLE jobs (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    type              TEXT NOT NULL,
    status            TEXT NOT NULL,
    metadata          TEXT,
    checklist_id      TEXT NOT NULL DEFAULT '',
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL,
    upload_expires_at INTEGER NOT NULL,
    blob_key          TEXT NOT NULL DEFAULT '',
    audio_bytes       INTEGER NOT NULL DEFAULT 0,
    audio             TEXT,
    reserved_ms       INTEGER NOT NULL DEFAULT 0,
    transcription     TEXT NOT NULL DEFAULT '',
    segments          TEXT,
    title             TEXT NOT NULL DEFAULT '',
    resolution        TEXT NOT NULL DEFAULT '',
    language_code     TEXT NOT NULL DEFAULT '',
    error             TEXT NOT NULL DEFAULT '',
    redrives          INTEGER NOT NULL DEFAULT 0
) STRICT;
-- The sweeper's two questions: stuck in a state, and upload window closed.
CREATE INDEX jobs_status_updated ON jobs (status, updated_at);
CREATE INDEX jobs_upload_expires ON jobs (upload_expires_at);
-- The web application's history of an account's recordings.
CREATE INDEX jobs_account_created ON jobs (account_id, created_at);

-- A checklist keeps every version under one id; readers take the latest.
CREATE TABLE checklists (
    id         TEXT NOT NULL,
    version    INTEGER NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    name       TEXT NOT NULL,
    questions  TEXT NOT NULL,
    archived   INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (id, version)
) STRICT;
CREATE INDEX checklists_account ON checklists (account_id, id);

-- window is the start of the fixed window; old windows are deleted by Hit.
CREATE TABLE rate_counters (
    key    TEXT NOT NULL,
    window INTEGER NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (key, window)
) STRICT, WITHOUT ROWID;
CREATE INDEX rate_counters_window ON rate_counters (window);

-- AUTOINCREMENT: a seq is never reused after its record is deleted, so seq
-- order stays commit order for the life of the database.
CREATE TABLE outbox (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id     TEXT NOT NULL,
    topic        TEXT NOT NULL,
    doc_id       TEXT NOT NULL,
    payload      TEXT NOT NULL,
    leased_until INTEGER,
    created_at   INTEGER NOT NULL
) STRICT;
-- "Is an earlier record of this doc leased?" for every claim.
CREATE INDEX outbox_doc_seq ON outbox (doc_id, seq);

-- One delivery per event: the UNIQUE event_id is what makes a repeated
-- event a no-op.
CREATE TABLE deliveries (
    id           TEXT PRIMARY KEY,
    event_id     TEXT NOT NULL UNIQUE,
    doc_id       TEXT NOT NULL,
    account_id   TEXT NOT NULL,
    event_type   TEXT NOT NULL,
    url          TEXT NOT NULL,
    payload      BLOB,
    status       TEXT NOT NULL,
    http_status  INTEGER NOT NULL DEFAULT 0,
    latency_ms   INTEGER NOT NULL DEFAULT 0,
    error        TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    attempted_at INTEGER
) STRICT;
CREATE INDEX deliveries_doc ON deliveries (doc_id, created_at);
CREATE INDEX deliveries_status ON deliveries (status, created_at);
