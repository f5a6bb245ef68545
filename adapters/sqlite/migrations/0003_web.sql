-- The web application: the people who sign in, their sessions, and the
-- search of an account's recordings.

-- One address signs in to one account: email is unique across accounts.
-- invite_hash is the SHA-256 of a pending invitation's token, '' once
-- accepted; only pending ones must be unique, and '' must never be found
-- (FindUser asks for invite_hash <> '', which also lets it use the index).
-- invite_expires_at is NULL when there is no invitation.
CREATE TABLE users (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    email             TEXT NOT NULL UNIQUE,
    password_hash     TEXT NOT NULL DEFAULT '',
    role              TEXT NOT NULL,
    invite_hash       TEXT NOT NULL DEFAULT '',
    invite_expires_at INTEGER,
    created_at        INTEGER NOT NULL
) STRICT;
CREATE INDEX users_account ON users (account_id);
CREATE UNIQUE INDEX users_invite ON users (invite_hash) WHERE invite_hash <> '';

-- id is the SHA-256 of the cookie's token, never the token itself.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    account_id TEXT NOT NULL,
    csrf       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT;
-- DeleteExpiredSessions.
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Job search: Go's strings.ToLower of title, newline, transcription, written
-- by the store with every job row (SQLite's lower() knows ASCII only, so it
-- cannot do this at query time for Armenian). The UPDATE below is a first
-- pass; the Go migration step (backfillSearchText) then rewrites every row
-- written before this migration with Go's case folding.
ALTER TABLE jobs ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE jobs SET search_text = lower(title || char(10) || transcription);
