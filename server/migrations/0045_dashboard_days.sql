-- The dashboard's closed days kept (issue 20; docs/PERFORMANCE.md, "Dashboard of the book"): each figure of a market's
-- local day that has ended, as the dashboard's own queries computed it once that day was over (the job
-- `dashboard_days`, server/src/jobs/dashboard_days.rs). A day's orders, timeline entries, ledger entries, payouts and
-- complaints are all dated when they happen, so an ended day's figures do not change; the dashboard reads the kept days
-- and computes only the days after the last one kept (today, and any day the job has not kept yet) from the tables,
-- instead of aggregating 30 days of the whole book on every request (28 s over 1,000,000 orders).
CREATE TABLE dashboard_days (
    market           TEXT NOT NULL,
    day              BIGINT NOT NULL, -- the market's local day, numbered from 1970-01-01
    applications     BIGINT NOT NULL,
    approvals        BIGINT NOT NULL,
    rejections       BIGINT NOT NULL,
    paid_out         BIGINT NOT NULL, -- minor units
    repaid           BIGINT NOT NULL, -- minor units
    complaints       BIGINT NOT NULL,
    open_change      BIGINT NOT NULL, -- loans entering less loans leaving `disbursed`/`overdue` that day
    overdue_change   BIGINT NOT NULL, -- the same for `overdue` alone
    principal_change BIGINT NOT NULL, -- principal scheduled less principal paid by the day's ledger entries
    computed_at      BIGINT NOT NULL,
    PRIMARY KEY (market, day)
);

-- The minutes from application to payout of the loans paid out on a kept day, as counts per whole minute: the day's and
-- the window's medians and the share paid out within a promise are read from these counts. `on_the_minute` counts the
-- waits of exactly that many minutes (to the millisecond), so "within N minutes" stays exact: every wait of fewer
-- whole minutes, and those of exactly N.
CREATE TABLE dashboard_payout_minutes (
    market        TEXT NOT NULL,
    day           BIGINT NOT NULL,
    minutes       BIGINT NOT NULL,
    payouts       BIGINT NOT NULL,
    on_the_minute BIGINT NOT NULL,
    PRIMARY KEY (market, day, minutes)
);
