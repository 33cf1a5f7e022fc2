-- Scheduled jobs (server/src/jobs/): one runner per job, market and business date, and the notification outbox the
-- reminders go through.

-- A job's run for one market's business date. The primary key is the claim: of several servers starting the same
-- run, the one whose insert lands runs it; the others skip. `finished_at` stays NULL while it runs (or if it died).
CREATE TABLE job_runs (
    job           TEXT NOT NULL,
    market        TEXT NOT NULL,
    business_date TEXT NOT NULL,
    runner        TEXT NOT NULL,
    started_at    BIGINT NOT NULL,
    finished_at   BIGINT,
    orders_seen   BIGINT,
    entries       BIGINT,
    PRIMARY KEY (job, market, business_date)
);

-- Texts to a borrower's phone (reminders), sent through the same delivery as sign-in codes and only within the
-- market's sending hours. `kind` is the reminder (`due_in_3`, `due_in_1`, `due_today`, `overdue`); at most one of each
-- per installment. `status`: `pending` → `sending` (claimed by one sender) → `sent`, or `failed` after repeated errors.
CREATE TABLE notification_outbox (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (id),
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    market      TEXT NOT NULL,
    installment BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    text        TEXT NOT NULL,
    status      TEXT NOT NULL,
    attempts    BIGINT NOT NULL,
    last_error  TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    sent_at     BIGINT,
    UNIQUE (order_id, installment, kind)
);

CREATE INDEX notification_outbox_pending ON notification_outbox (status, market, created_at);
-- The overdue job pages through the open loans of a market.
CREATE INDEX orders_market_status_id ON orders (market, status, id);
