-- Postgres's 0031 adds jobs_account_created_id (account_id, created_at, id)
-- for the API's keyset pages. SQLite needs none: it answers the cursor
-- (created_at, id) < (?, ?) as the range created_at <= ? of
-- jobs_account_created and sorts only the ties. Such an index was tried and
-- left out: without statistics SQLite then preferred it to the partial
-- jobs_account_uploading for the count of an account's waiting uploads
-- that every create makes, walking all the account's jobs (create+upload
-- fell to 0.35x at 300,000 jobs; docs/performance.md, Store growth).
SELECT 1;
