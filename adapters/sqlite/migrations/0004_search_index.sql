-- Search of an account's recordings at any size: an FTS5 trigram index of
-- jobs.search_text serves ListJobs's substring search (three characters or
-- more) without reading every transcript of the account. It holds no copy
-- of the text (content='jobs'); the triggers keep it in step with every
-- write of search_text. It is keyed by the jobs table's rowid, which only a
-- VACUUM renumbers: after a VACUUM, rebuild it with
--   INSERT INTO jobs_search(jobs_search) VALUES ('rebuild');
CREATE VIRTUAL TABLE jobs_search USING fts5(search_text, content='jobs', content_rowid='rowid', tokenize='trigram');

CREATE TRIGGER jobs_search_insert AFTER INSERT ON jobs BEGIN
    INSERT INTO jobs_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;

CREATE TRIGGER jobs_search_delete AFTER DELETE ON jobs BEGIN
    INSERT INTO jobs_search (jobs_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;

CREATE TRIGGER jobs_search_update AFTER UPDATE OF search_text ON jobs WHEN old.search_text IS NOT new.search_text BEGIN
    INSERT INTO jobs_search (jobs_search, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO jobs_search (rowid, search_text) VALUES (new.rowid, new.search_text);
END;

INSERT INTO jobs_search (jobs_search) VALUES ('rebuild');
