-- Deletion and retention (issue 12). A deleted job's row goes; its
-- tombstone keeps who owned it, its state and its times, none of its content.
CREATE TABLE job_tombstones (
    doc_id     text PRIMARY KEY,
    account_id text NOT NULL,
    type       text NOT NULL,
    status     text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    deleted_at bigint NOT NULL,
    reason     text NOT NULL
);

-- How many days an account keeps its jobs; no row keeps them forever.
CREATE TABLE account_retention (
    account_id text PRIMARY KEY REFERENCES accounts (id),
    days       integer NOT NULL
);
