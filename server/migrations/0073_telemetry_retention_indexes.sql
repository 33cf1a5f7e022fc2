-- The telemetry retention job removes rows in batches, oldest first (jobs::retention): the devices and the located
-- answers are found by time, not by a scan of a table with a row per borrower.
CREATE INDEX borrower_devices_updated ON borrower_devices (updated_at);
CREATE INDEX borrower_locations_located ON borrower_locations (created_at) WHERE latitude_e1 IS NOT NULL;
