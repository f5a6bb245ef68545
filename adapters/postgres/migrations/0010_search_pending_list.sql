-- A search reads the trigram index's pending list (rows added since the
-- last merge into the index proper, GIN's fastupdate) from end to end: at
-- the default limit of 4 MB, the text of about a thousand recent
-- recordings, that was 2 ms of every history search at 10,000 recordings
-- (0.1 ms once merged). Only autovacuum and a full list merge it, so it
-- stays large on a busy server. 256 kB keeps that read under 0.2 ms; the
-- write that fills the list merges it, sixteen times as often but each
-- time sixteen times smaller. No index (pg_trgm unavailable): nothing to do.
ALTER INDEX IF EXISTS jobs_search_trgm SET (gin_pending_list_limit = 256);
