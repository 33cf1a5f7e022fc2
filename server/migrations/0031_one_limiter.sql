-- One limiter (issue 17; docs/ARCHITECTURE.md, "Security: limits"): every request limit is counted in `rate_limits`
-- (migration 0023) by one conditional upsert per request, under keys `<limit>:<subject>` (server/src/limits.rs). The
-- limiters of their own go: the sign-in's locks and attempt log, the telemetry's per-minute counters, and the
-- operators' per-account lockout columns (their password checks are counted per account and address now).
DROP TABLE login_attempts;
DROP TABLE sign_in_limiters;
DROP TABLE telemetry_limits;
ALTER TABLE operators DROP COLUMN failed_logins;
ALTER TABLE operators DROP COLUMN locked_until;

-- The addresses (a limit's address key: IPv4, or an IPv6 /64) each operator signed in from, with the latest time: a
-- stranger's wrong passwords never refuse an operator at one of them.
CREATE TABLE operator_addresses (
    operator_id  TEXT NOT NULL REFERENCES operators (id),
    address      TEXT NOT NULL,
    signed_in_at BIGINT NOT NULL,
    PRIMARY KEY (operator_id, address)
);
