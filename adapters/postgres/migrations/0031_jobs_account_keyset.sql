-- The API's pages of an account's jobs (listTranscriptions) go by a keyset
-- cursor, (created_at, id) < (cursor), newest first. On (account_id,
-- created_at) alone the id half of the cursor was a filter: a page far in
-- walked every newer job of the account first. With id in the index the
-- cursor is a range of it and a page reads its own rows only
-- (docs/performance.md, Store growth). It replaces jobs_account_created,
-- whose columns it begins with: every query that used that one can use
-- this one (Postgres statements never name an index), and each new job
-- then costs one index insertion, not two. Migration 29 (the history's
-- keyset pages) made the same index already; IF NOT EXISTS keeps one.
CREATE INDEX IF NOT EXISTS jobs_account_created_id ON jobs (account_id, created_at, id);
DROP INDEX IF EXISTS jobs_account_created;

-- The retention sweep (ExpiredJobs) starts from account_retention, which
-- is usually empty and, never analysed, was estimated at 1,270 rows: the
-- plan then cost enough for JIT compilation (0.3-0.5 s each sweep, at a
-- worker's start and every hour) for no rows at all. Analysed, it is known
-- to be small; autovacuum keeps the figure once rules are added.
ANALYZE account_retention;
