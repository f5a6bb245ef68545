-- Issue 27. The name of the file a recording was uploaded from (the web
-- application's title fallback and export file names; '' from the API),
-- and the language a person reads e-mail in ('' until known: Armenian).
ALTER TABLE jobs ADD COLUMN filename TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN lang TEXT NOT NULL DEFAULT '';
