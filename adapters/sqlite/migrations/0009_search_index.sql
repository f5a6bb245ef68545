-- A trigram index of search_text, so that a history search reads the few
-- jobs that contain the words instead of every job's text (LIKE '%…%'
-- cannot use a b-tree). The index is an FTS5 table without its own copy of
-- the text (contentless); each job names its index row in search_id, set
-- and kept by the triggers below, so the store's Go code never writes it
-- and rowids that VACUUM may renumber are never relied on. Searches of
-- fewer than three characters have no trigram and scan as before.
ALTER TABLE jobs ADD COLUMN search_id INTEGER;
CREATE VIRTUAL TABLE job_search USING fts5(search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1');
INSERT INTO job_search (rowid, search_text) SELECT rowid, search_text FROM jobs;
UPDATE jobs SET search_id = rowid;
CREATE INDEX jobs_search_id ON jobs (search_id);

CREATE TRIGGER job_search_insert AFTER INSERT ON jobs BEGIN
    INSERT INTO job_search (search_text) VALUES (new.search_text);
    UPDATE jobs SET search_id = last_insert_rowid() WHERE id = new.id;
END;
CREATE TRIGGER job_search_update AFTER UPDATE OF search_text ON jobs
WHEN old.search_text IS NOT new.search_text BEGIN
    DELETE FROM job_search WHERE rowid = new.search_id;
    INSERT INTO job_search (rowid, search_text) VALUES (new.search_id, new.search_text);
END;
CREATE TRIGGER job_search_delete AFTER DELETE ON jobs BEGIN
    DELETE FROM job_search WHERE rowid = old.search_id;
END;
