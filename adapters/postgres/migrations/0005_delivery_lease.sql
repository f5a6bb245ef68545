-- A notify worker leases a pending delivery before sending it; a delivery
-- whose lease has passed (its worker died) is taken over by another worker
-- (ports.DeliveryLeases). NULL: never leased.
ALTER TABLE deliveries ADD COLUMN lease_until bigint;
CREATE INDEX deliveries_lease ON deliveries (status, lease_until);
