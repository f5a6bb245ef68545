-- People's reviews of analyses (issue 36). The call's latest review is
-- JSON in review (kept when the call is analysed again); reviewed_at is its
-- time while it reviews the analysis as it is, NULL before any review and
-- again after a re-analysis: "needs review" is reviewed_at IS NULL.
ALTER TABLE analyses ADD COLUMN review text;
ALTER TABLE analyses ADD COLUMN reviewed_at bigint;
