-- A borrower who withdraws consent to their phone's details (`DELETE /borrower/device`) keeps a row with no details and
-- `withdrawn_at` set: the native shell, which cannot know, may send the details again with its old consent, and they
-- are not stored while the withdrawal stands. The telemetry retention sweep keeps the marker (it holds nothing but the
-- time); deleting the account removes it with the rest.
ALTER TABLE borrower_devices ADD COLUMN withdrawn_at BIGINT;
