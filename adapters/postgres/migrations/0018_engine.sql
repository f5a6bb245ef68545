-- Issue 28. The recognitions of a recording's pieces that came back, kept
-- while its job is converting: a job recognised again after its worker died
-- re-sends only the pieces missing here. Deleted with the job.
CREATE TABLE recognized_pieces (
    doc_id      text NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    piece       text NOT NULL,
    recognition text NOT NULL, -- JSON of domain.Recognition
    created_at  bigint NOT NULL,
    PRIMARY KEY (doc_id, piece)
);

-- Leases of the speech engine's slots, shared by every worker process: a
-- request goes to the engine only with one (adapters/postgres/engineslots.go).
CREATE TABLE engine_slots (
    engine      text NOT NULL,
    slot        integer NOT NULL,
    holder      text NOT NULL DEFAULT '',
    lease_until bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (engine, slot)
);
