-- The call's time (its job's creation: analysis.ready's callAt). Reports
-- count a call on its own day and select periods by it, so an analysis made
-- again days later (speakers named) stays on the call's day. Rows written
-- before take their analysed_at (the first analysis follows the call within
-- minutes). 18.16 has no ADD COLUMN IF NOT EXISTS: Migrate skips a column
-- that exists (addsExisting), so the statements stay safe to run twice.
ALTER TABLE checklist_results ADD COLUMN call_at DateTime DEFAULT analysed_at;
ALTER TABLE analyses ADD COLUMN call_at DateTime DEFAULT analysed_at;
