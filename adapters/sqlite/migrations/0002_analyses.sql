-- QA checklist analyses (issue 5). A job records the checklist version it was
-- created with, so a checklist edited later does not change its analysis.
ALTER TABLE jobs ADD COLUMN checklist_version INTEGER NOT NULL DEFAULT 0;

-- One analysis per job: doc_id is UNIQUE, so a replayed analyze stage
-- conflicts instead of writing a second row. results is JSON text keyed by
-- question id.
CREATE TABLE analyses (
    id                TEXT PRIMARY KEY,
    doc_id            TEXT NOT NULL UNIQUE,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    checklist_id      TEXT NOT NULL,
    checklist_version INTEGER NOT NULL,
    checklist_name    TEXT NOT NULL,
    status            TEXT NOT NULL,
    error             TEXT NOT NULL DEFAULT '',
    results           TEXT NOT NULL,
    created_at        INTEGER NOT NULL
) STRICT;
-- The web application's history of an account's analyses.
CREATE INDEX analyses_account_created ON analyses (account_id, created_at);
