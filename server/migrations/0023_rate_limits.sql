-- Limits on a borrower's costly requests that hold across every server sharing the database (docs/ACCOUNT.md,
-- "Data export"). One row per key (`export:<borrower id>`): the start of its window (epoch ms, the first request of
-- it) and the requests counted in it. A request is counted by one conditional upsert that starts a new window once
-- the old one is over and refuses while the window holds the limit, so simultaneous requests on any number of
-- servers never pass it together.
CREATE TABLE rate_limits (
    key          TEXT PRIMARY KEY,
    window_start BIGINT NOT NULL,
    hits         BIGINT NOT NULL
);
