-- A browser session opened by a native shell's hand-over (`POST /session/exchange`) names the session it was handed
-- from (`parent_id`; the first one, when that was itself handed over): signing the shell out ends the web view's
-- session too, so the next person on a shared phone never finds the previous borrower signed in there.
ALTER TABLE borrower_sessions ADD COLUMN parent_id TEXT;
CREATE INDEX borrower_sessions_parent ON borrower_sessions (parent_id);
