-- Operators of the console (PRODUCT.md §6): admin, reviewer, finance, support; an operator may hold several roles.
-- The password is an Argon2id PHC string. `roles` is a comma-separated list of role codes (`reviewer,support`).
-- Lockout: `failed_logins` counts the password checks reserved since the last success; the check that reaches the
-- limit also sets `locked_until`, and both move in one conditional update (server/src/auth/operators.rs).
CREATE TABLE operators (
    id            TEXT PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    roles         TEXT NOT NULL,
    failed_logins BIGINT NOT NULL DEFAULT 0,
    locked_until  BIGINT,
    created_at    BIGINT NOT NULL,
    disabled_at   BIGINT
);

-- Console sessions: the token and the CSRF token only as SHA-256 hashes. A session lives 12 hours from sign-in.
CREATE TABLE operator_sessions (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL UNIQUE,
    csrf_hash    TEXT NOT NULL,
    operator_id  TEXT NOT NULL REFERENCES operators (id),
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    revoked_at   BIGINT
);

CREATE INDEX operator_sessions_operator ON operator_sessions (operator_id, created_at);

-- The reason an operator gave when approving or rejecting, shown to the borrower.
ALTER TABLE orders ADD COLUMN review_reason TEXT;

-- The review queue: one market's orders in one status, oldest first.
CREATE INDEX orders_market_status ON orders (market, status, created_at);
