-- An invitation reserves no address (docs/security.md): only a person who
-- has set a password holds their email across accounts; invitations to the
-- same address may wait in several accounts, one per account, and the
-- first one accepted (or a sign-up) takes the address.
ALTER TABLE users DROP CONSTRAINT users_email_key;
CREATE UNIQUE INDEX users_email_signed_up ON users (email) WHERE password_hash <> '';
CREATE UNIQUE INDEX users_account_email ON users (account_id, email);

-- Creating a job counts the account's jobs waiting for their upload
-- (domain.MaxWaitingUploads): this index holds only those.
CREATE INDEX jobs_account_uploading ON jobs (account_id, created_at) WHERE status = 'uploading';
