-- A trigram index of search_text (pg_trgm), so that a history search reads
-- the few jobs that contain the words instead of every job's text: the
-- LIKE '%…%' of ListJobs uses it as it is (planned for each search's own
-- words: plan_cache_mode, postgres.go). pg_trgm ships with Postgres
-- (contrib) and is a trusted extension, which a database owner may create.
-- Where it cannot be created, or another process is creating it this very
-- moment, the index is left out and searches scan, as before. The
-- extension goes to the public schema when there is one, so that dropping
-- an application schema never drops it.
DO $$
DECLARE
    ext_schema text;
BEGIN
    BEGIN
        IF EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'public') THEN
            CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public;
        ELSE
            CREATE EXTENSION IF NOT EXISTS pg_trgm;
        END IF;
    EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported
        OR unique_violation OR duplicate_object OR duplicate_function THEN
        RAISE NOTICE 'pg_trgm is not available (%): history searches scan', SQLERRM;
        RETURN;
    END;
    SELECT n.nspname INTO ext_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
    IF ext_schema IS NULL THEN
        RETURN;
    END IF;
    EXECUTE format('CREATE INDEX jobs_search_trgm ON jobs USING gin (search_text %I.gin_trgm_ops)', ext_schema);
END
$$;
