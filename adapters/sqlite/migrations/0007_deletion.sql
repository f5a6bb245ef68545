-- Deletion and retention (issue 12). A deleted job's row goes; its
-- tombstone keeps who owned it, its state and its times, none of its content.
CREATE TABLE job_tombstones (
    doc_id     TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    type       TEXT NOT NULL,
    status     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    deleted_at INTEGER NOT NULL,
    reason     TEXT NOT NULL
) STRICT;

-- How many days an account keeps its jobs; no row keeps them forever.
CREATE TABLE account_retention (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    days       INTEGER NOT NULL
) STRICT;
