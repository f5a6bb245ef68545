-- A note beside an event of a job's history, for operators (`hyscribe job
-- show`): how the audio was taken, e.g. a stereo call whose channels carry
-- the same audio diarized as mono (issue 21).
ALTER TABLE job_history ADD COLUMN note TEXT NOT NULL DEFAULT '';
