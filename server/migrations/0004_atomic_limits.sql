-- Sign-in limits that hold under concurrency and across servers sharing one database (docs/API-BORROWER.md, Limits).

-- One row per phone (its keyed hash) and per client address a limit is counted for. A transaction that checks a limit
-- first writes the row: on PostgreSQL that takes the row's lock until commit, so two requests for the same phone or
-- address check and insert one after the other; on SQLite the transaction already holds the write lock from
-- BEGIN IMMEDIATE. Keys: `phone:HASH` and `addr:IP` (sending codes), `login:IP` (signing in).
CREATE TABLE sign_in_limiters (
    key        TEXT PRIMARY KEY,
    touched_at BIGINT NOT NULL
);

-- Sign-in attempts (POST /api/v1/borrower/login) per client address; rows older than the window are deleted as the
-- address tries again.
CREATE TABLE login_attempts (
    id          TEXT PRIMARY KEY,
    client_addr TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX login_attempts_client ON login_attempts (client_addr, created_at);
