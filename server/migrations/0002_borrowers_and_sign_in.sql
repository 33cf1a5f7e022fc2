-- Borrowers, one-time sign-in codes and sessions (docs/API-BORROWER.md).
-- Phone numbers are PII: stored encrypted (phone_enc) and found by a keyed hash (phone_hash), never in clear.
-- Codes and session tokens are stored only as hashes.
CREATE TABLE borrowers (
    id            TEXT PRIMARY KEY,
    market        TEXT NOT NULL,
    phone_hash    TEXT NOT NULL UNIQUE,
    phone_enc     TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    last_login_at BIGINT NOT NULL
);

CREATE TABLE login_codes (
    id              TEXT PRIMARY KEY,
    phone_hash      TEXT NOT NULL,
    code_hash       TEXT NOT NULL,
    channel         TEXT NOT NULL,
    client_addr     TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    failed_attempts BIGINT NOT NULL DEFAULT 0,
    consumed_at     BIGINT
);

CREATE INDEX login_codes_phone ON login_codes (phone_hash, created_at);
CREATE INDEX login_codes_client ON login_codes (client_addr, created_at);

CREATE TABLE borrower_sessions (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    borrower_id  TEXT NOT NULL REFERENCES borrowers (id),
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    revoked_at   BIGINT
);

CREATE INDEX borrower_sessions_borrower ON borrower_sessions (borrower_id);
