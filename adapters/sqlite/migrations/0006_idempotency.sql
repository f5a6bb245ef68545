-- Idempotency-Key of createTranscription (issue 12): one row per key of an
-- account, with the fingerprint of the first request and the answer it got,
-- which retries within 24 hours get again. fingerprint is SHA-256 hex of
-- the request (domain.CreateRequest.Fingerprint); response is JSON text.
-- Rows past the window are replaced when their key comes again and deleted
-- when their account next creates with a key.
CREATE TABLE idempotency_keys (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    doc_id      TEXT NOT NULL,
    response    TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (account_id, key)
) STRICT;
CREATE INDEX idempotency_keys_created ON idempotency_keys (account_id, created_at);
