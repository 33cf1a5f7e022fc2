-- The native shell's hand-over of its session to the web app it opens (docs/API-BORROWER.md, "Handing a session to
-- the web app"). A signed-in native client asks for a one-time code; the web app exchanges it once, within a minute,
-- for a browser session of its own (a new `borrower_sessions` row of the same borrower, with the same absolute age).
-- Only the code's SHA-256 is stored. A code is deleted as it is used (`DELETE … RETURNING`: one exchange wins), and
-- expired ones are removed when the next code is issued. No foreign key to the session: the records-retention purge
-- removes sessions, and a code of a revoked or removed session is refused anyway.
CREATE TABLE session_handovers (
    code_hash  TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX session_handovers_expiry ON session_handovers (expires_at);
