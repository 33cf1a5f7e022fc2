-- Money a provider reports, signed, for a reference no payment has (a borrower who paid through the gateway without
-- the reference, or with a mistyped one). It is recorded once per provider event and shown to finance until they say
-- what they did with it (returned it, or credited it by hand), instead of refused with an error the provider retries
-- for days and then gives up on: money received is never lost from view.
CREATE TABLE unmatched_receipts (
    id                  TEXT PRIMARY KEY,
    provider            TEXT NOT NULL,
    event_id            TEXT NOT NULL,
    -- The market of its currency, or the provider's only one; null when neither tells (Dragonpay's postback).
    market              TEXT,
    -- As the provider quoted it; empty when it quoted none.
    reference           TEXT NOT NULL,
    provider_payment_id TEXT,
    amount              BIGINT,
    currency            TEXT,
    sent_at             BIGINT,
    received_at         BIGINT NOT NULL,
    resolved_at         BIGINT,
    resolved_by         TEXT,
    resolution          TEXT,
    UNIQUE (provider, event_id)
);

CREATE INDEX unmatched_receipts_waiting ON unmatched_receipts (resolved_at, received_at);
