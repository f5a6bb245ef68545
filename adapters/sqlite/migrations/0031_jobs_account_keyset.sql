-- Postgres's 0031 keeps one jobs_account_created_id (account_id, created_at,
-- id) for the API's keyset pages. On SQLite migration 29 (the history's
-- keyset pages) already made that index; nothing more is needed here. When
-- it was first tried, without statistics SQLite preferred it to the partial
-- jobs_account_uploading for the count of an account's waiting uploads that
-- every create makes (create+upload fell to 0.35x at 300,000 jobs;
-- docs/performance.md, Store growth): TestWaitingUploadsCountOnItsIndex
-- holds the count to its own index.
SELECT 1;
