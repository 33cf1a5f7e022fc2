-- A borrower corrects a mistyped UTR while finance has not acted on the payment (issue 19, item 7): the UTR replaced
-- leaves payment_utrs (so a real transfer with that number is never refused as used) and is kept here, with the one
-- that replaced it. At most a few per payment (servicing::payments::MAX_UTR_CORRECTIONS, counted with the order
-- locked). The same SQL on SQLite and PostgreSQL.
CREATE TABLE payment_utr_corrections (
    payment_id TEXT NOT NULL REFERENCES payments (id),
    seq        INTEGER NOT NULL,
    old_utr    TEXT NOT NULL,
    new_utr    TEXT NOT NULL,
    at         BIGINT NOT NULL,
    PRIMARY KEY (payment_id, seq)
);
