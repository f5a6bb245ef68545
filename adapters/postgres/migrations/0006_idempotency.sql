-- Idempotency-Key of createTranscription (issue 12): one row per key of an
-- account, with the fingerprint of the first request and the answer it got,
-- which retries within 24 hours get again. fingerprint is SHA-256 hex of
-- the request (domain.CreateRequest.Fingerprint); response is JSON text.
-- Rows past the window are replaced when their key comes again and deleted
-- when their account next creates with a key.
CREATE TABLE idempotency_keys (
    account_id  text NOT NULL REFERENCES accounts (id),
    key         text NOT NULL,
    fingerprint text NOT NULL,
    doc_id      text NOT NULL,
    response    text NOT NULL,
    created_at  bigint NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (account_id, created_at);
