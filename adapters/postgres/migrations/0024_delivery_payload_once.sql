-- A resend of an event keeps no copy of a payload its event's first
-- delivery already holds: payload is NULL and payload_of names the
-- delivery whose payload it is. Readers take COALESCE of the two.
ALTER TABLE deliveries ADD COLUMN payload_of text;
