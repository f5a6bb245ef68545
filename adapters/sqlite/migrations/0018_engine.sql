-- Issue 28. The recognitions of a recording's pieces that came back, kept
-- while its job is converting: a job recognised again after its worker died
-- re-sends only the pieces missing here. Deleted with the job.
CREATE TABLE recognized_pieces (
    doc_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    piece       TEXT NOT NULL,
    recognition TEXT NOT NULL, -- JSON of domain.Recognition
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (doc_id, piece)
);
