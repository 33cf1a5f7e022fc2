-- The leftovers sweep (jobs::leftovers, hourly): sign-in codes a day after they expired (with the phone's hash and
-- the address that asked), and complaint photos uploaded but never sent with a complaint, a week after their upload.
-- Each is found by these indexes, not a scan of the table.
CREATE INDEX login_codes_expires ON login_codes (expires_at);
CREATE INDEX complaint_images_waiting ON complaint_images (created_at) WHERE complaint_id IS NULL;
