-- Search of an account's recordings at any size: a trigram index on
-- search_text serves ListJobs's `search_text LIKE '%…%'` (three characters
-- or more) without reading every transcript of the account.
--
-- pg_trgm ships with Postgres (contrib) and is a trusted extension: any
-- role that may create objects in the database may create it. It lives in
-- schema public whatever the search_path, so that every schema of a
-- database (the tests' schemas) shares it; the lock keeps two schemas
-- migrating at once from both creating it.
SELECT pg_advisory_xact_lock(1752790883, 14);
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
CREATE INDEX jobs_search_trgm ON jobs USING gin (search_text public.gin_trgm_ops);
