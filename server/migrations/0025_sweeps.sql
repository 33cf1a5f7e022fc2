-- Housekeeping sweeps (server/src/jobs/orphan_files.rs, server/src/jobs/rate_limits.rs).
-- The orphan-files sweep asks, a page of stored files at a time, which keys a complaint image's record names.
CREATE INDEX complaint_images_storage_key ON complaint_images (storage_key);
-- The rate-limit cleanup deletes, oldest first and a batch at a time, the rows whose window ended long ago.
CREATE INDEX rate_limits_window_start ON rate_limits (window_start);
