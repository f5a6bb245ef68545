-- An analysis with an answer left "unclear" because its question is limited
-- to a role nobody in the call has yet (domain.NeedsSpeakerNames): the
-- history's "needs speaker names" filter. Kept by every write of an
-- analysis (sqlstore.AnalysisRow); existing analyses are marked from the
-- reason the service wrote (domain.RoleUnknownReason).
ALTER TABLE analyses ADD COLUMN needs_names INTEGER NOT NULL DEFAULT 0;
UPDATE analyses SET needs_names = 1
 WHERE results LIKE '%"reason":"the call''s agent is not identified: name the speakers on the recording''s page"%'
    OR results LIKE '%"reason":"the call''s customer is not identified: name the speakers on the recording''s page"%';
-- The filter reads only the marked analyses of the account.
CREATE INDEX analyses_needs_names ON analyses (account_id, doc_id) WHERE needs_names = 1;
