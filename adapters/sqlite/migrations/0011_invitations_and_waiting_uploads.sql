-- An invitation reserves no address (docs/security.md): only a person who
-- has set a password holds their email across accounts; invitations to the
-- same address may wait in several accounts, one per account, and the
-- first one accepted (or a sign-up) takes the address. SQLite cannot drop
-- a column's UNIQUE, so the table is rebuilt; nothing references it.
CREATE TABLE users_new (
    id                TEXT PRIMARY KEY,
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    email             TEXT NOT NULL,
    password_hash     TEXT NOT NULL DEFAULT '',
    role              TEXT NOT NULL,
    invite_hash       TEXT NOT NULL DEFAULT '',
    invite_expires_at INTEGER,
    created_at        INTEGER NOT NULL
) STRICT;
INSERT INTO users_new (id, account_id, email, password_hash, role, invite_hash, invite_expires_at, created_at)
    SELECT id, account_id, email, password_hash, role, invite_hash, invite_expires_at, created_at FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
CREATE INDEX users_account ON users (account_id);
CREATE UNIQUE INDEX users_invite ON users (invite_hash) WHERE invite_hash <> '';
CREATE UNIQUE INDEX users_email_signed_up ON users (email) WHERE password_hash <> '';
CREATE UNIQUE INDEX users_account_email ON users (account_id, email);

-- Creating a job counts the account's jobs waiting for their upload
-- (domain.MaxWaitingUploads): this index holds only those.
CREATE INDEX jobs_account_uploading ON jobs (account_id, created_at) WHERE status = 'uploading';
