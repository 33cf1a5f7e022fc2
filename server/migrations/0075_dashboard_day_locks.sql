-- One row per market and local day whose kept dashboard figures were kept or forgotten: its row lock orders the
-- dashboard-days job (from before it reads a day's figures until it keeps them) against a transaction that dates a
-- ledger entry on that ended day (from forgetting the kept figures until it commits), so figures read before such an
-- entry are never kept after it (jobs::dashboard_days).
CREATE TABLE dashboard_day_locks (
    market TEXT NOT NULL,
    day    BIGINT NOT NULL,
    PRIMARY KEY (market, day)
);
