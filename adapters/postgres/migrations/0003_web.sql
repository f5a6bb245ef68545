-- The web application: the people who sign in, their sessions, and the
-- search of an account's recordings.

-- One address signs in to one account: email is unique across accounts.
-- invite_hash is the SHA-256 of a pending invitation's token, '' once
-- accepted; only pending ones must be unique, and '' must never be found
-- (FindUser asks for invite_hash <> '', which also lets it use the index).
-- invite_expires_at is NULL when there is no invitation.
CREATE TABLE users (
    id                text PRIMARY KEY,
    account_id        text NOT NULL REFERENCES accounts (id),
    email             text NOT NULL UNIQUE,
    password_hash     text NOT NULL DEFAULT '',
    role              text NOT NULL,
    invite_hash       text NOT NULL DEFAULT '',
    invite_expires_at bigint,
    created_at        bigint NOT NULL
);
CREATE INDEX users_account ON users (account_id);
CREATE UNIQUE INDEX users_invite ON users (invite_hash) WHERE invite_hash <> '';

-- id is the SHA-256 of the cookie's token, never the token itself.
CREATE TABLE sessions (
    id         text PRIMARY KEY,
    user_id    text NOT NULL,
    account_id text NOT NULL,
    csrf       text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
-- DeleteExpiredSessions.
CREATE INDEX sessions_expires ON sessions (expires_at);

-- Job search: Go's strings.ToLower of title, newline, transcription, written
-- by the store with every job row (lower() depends on the database's
-- locale, so it is not trusted at query time). Rows written before this
-- migration get lower() as this database does it, until the job is next
-- written.
ALTER TABLE jobs ADD COLUMN search_text text NOT NULL DEFAULT '';
UPDATE jobs SET search_text = lower(title || chr(10) || transcription);
