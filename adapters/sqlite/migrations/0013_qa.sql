-- Issue 27 (a QA team's call centre): the account's time zone (empty: the
-- deployment's default) and the stereo channel its agents are on, and the
-- roles and names people give a call's speakers (JSON, keyed by speaker).
ALTER TABLE accounts ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN agent_channel TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN speakers TEXT;
