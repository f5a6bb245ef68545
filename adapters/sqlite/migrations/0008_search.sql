-- Search folds both spellings of Armenian "ev" (և, եւ, եվ) and also reads
-- metadata values (a CRM id such as B-77): the store recomputes every
-- job's search_text in Go after this migration (webquery.BackfillMarker).
-- go: recompute search_text
UPDATE jobs SET search_text = '' WHERE 0;
