-- QA checklist analyses. A job records the checklist version it was created
-- with, so a checklist edited later does not change its analysis.
ALTER TABLE jobs ADD COLUMN checklist_version integer NOT NULL DEFAULT 0;

-- One analysis per job: doc_id is UNIQUE, so a replayed analyze stage
-- conflicts instead of writing a second row. results is JSON text keyed by
-- question id (text, not jsonb, like every JSON column here).
CREATE TABLE analyses (
    id                text PRIMARY KEY,
    doc_id            text NOT NULL UNIQUE,
    account_id        text NOT NULL REFERENCES accounts (id),
    checklist_id      text NOT NULL,
    checklist_version integer NOT NULL,
    checklist_name    text NOT NULL,
    status            text NOT NULL,
    error             text NOT NULL DEFAULT '',
    results           text NOT NULL,
    created_at        bigint NOT NULL
);
-- The web application's history of an account's analyses.
CREATE INDEX analyses_account_created ON analyses (account_id, created_at);
