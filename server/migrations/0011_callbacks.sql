-- Payment providers' callbacks (server/src/servicing/callbacks.rs, docs/API-WEBHOOKS.md): one row per provider event,
-- written in the same transaction that credits (or holds) its payment, so a callback repeated, or twenty at once,
-- finds its row and posts nothing. `event_id` is the provider's id of the event: Razorpay's event id, Xendit's
-- `payment_id`, Dragonpay's `refno:status`. `outcome` is what it did: `confirmed`, `held`, `ignored` (a status that
-- credits nothing, e.g. Dragonpay's pending), or `not_open` (the payment was settled already).
CREATE TABLE payment_callbacks (
    provider    TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    payment_id  TEXT NOT NULL REFERENCES payments (id),
    amount      BIGINT,
    outcome     TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (provider, event_id)
);

CREATE INDEX payment_callbacks_payment ON payment_callbacks (payment_id);
