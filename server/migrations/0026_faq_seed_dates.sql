-- 0018 dated the FAQ's first entries 2026-11-30, after the day they were written: the console showed them as changed
-- in the future. Entries no admin has edited since take the day the copy was written, 2026-11-25 00:00 UTC.
UPDATE faq_entries SET created_at = 1795564800000, updated_at = 1795564800000
 WHERE created_at = 1795996800000 AND updated_at = 1795996800000;
