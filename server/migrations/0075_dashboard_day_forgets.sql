-- How many times each market's local day had its kept dashboard figures forgotten by a ledger entry dated on it after
-- it ended (money confirmed late). The dashboard-days job reads a day's count before it computes the figures and keeps
-- them only while the count is the same, checked with the row locked (a transaction that forgets the day holds the
-- row from its increment until it commits), so figures read before such an entry are never kept after it, and no lock
-- is held while the figures are computed (jobs::dashboard_days).
CREATE TABLE dashboard_day_forgets (
    market     TEXT NOT NULL,
    day        BIGINT NOT NULL,
    generation BIGINT NOT NULL,
    PRIMARY KEY (market, day)
);
