-- Finding and triaging calls in the web history (issue 36).
--
-- An account chooses which metadata keys its history shows as columns,
-- and which one names a call's agent (domain.Account.ListColumns,
-- AgentKey); the list is stored comma-separated (keys hold no commas).
ALTER TABLE accounts ADD COLUMN list_columns text NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN agent_key text NOT NULL DEFAULT '';

-- The history sorts by duration and by checklist score with keyset
-- pages: each sort reads one index in order (account, value, created_at,
-- id). list_duration is the recording's seconds (audio's duration), and
-- list_score the analysis's total (domain.Analysis.ListScore); -1 where
-- there is none yet, so neither is ever NULL and "not scored" sorts
-- below every score. list_duration is written with the job;
-- list_score with its analysis.
ALTER TABLE jobs ADD COLUMN list_duration double precision NOT NULL DEFAULT -1;
ALTER TABLE jobs ADD COLUMN list_score double precision NOT NULL DEFAULT -1;
UPDATE jobs SET list_duration = coalesce((audio::json ->> 'duration')::double precision, -1) WHERE audio IS NOT NULL AND audio <> '';
CREATE INDEX jobs_account_created_id ON jobs (account_id, created_at, id);
CREATE INDEX jobs_account_duration ON jobs (account_id, list_duration, created_at, id);
CREATE INDEX jobs_account_score ON jobs (account_id, list_score, created_at, id);
-- The analysis keeps the score it gave its job (NULL: failed, or made
-- before this migration until the backfill below).
ALTER TABLE analyses ADD COLUMN list_score double precision;

-- Search also reads the uploaded file's name (ext115_2026-11-20_1312.mp3),
-- so the search text of every job is recomputed:
-- go: recompute search_text
-- and the scores of the analyses made before list_score existed, from
-- each analysis and its checklist version's weights:
-- go: recompute list_score
