-- A loan after payout (server/src/servicing/, docs/MONEY.md §9): the plan fixed at payout, the append-only ledger that
-- replays to every balance, the payments a borrower makes with their UTRs, and the payout's bank reference.

-- The plan at payout: the accepted KFS's schedule moved to the payout date (same amounts, same APR), as the JSON of
-- kilat_domain::Plan, from which the ledger is replayed. One per paid-out order.
CREATE TABLE loans (
    order_id    TEXT PRIMARY KEY REFERENCES orders (id),
    payout_date TEXT NOT NULL,
    plan_json   TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

-- The payout: who released it, through which provider, and the bank's reference for the transfer. One per order.
CREATE TABLE payouts (
    id             TEXT PRIMARY KEY,
    order_id       TEXT NOT NULL UNIQUE REFERENCES orders (id),
    provider       TEXT NOT NULL,
    bank_reference TEXT NOT NULL,
    amount         BIGINT NOT NULL,
    operator_id    TEXT,
    created_at     BIGINT NOT NULL
);

-- A payment the borrower starts: what for (`due`, `payoff`, `cooling_off`, `extension`), how (`upi`,
-- `bank_transfer`, `virtual_account`), the amount expected as priced on `priced_on`, and where it stands
-- (`pending` → `verifying` with a UTR → `confirmed`, `rejected`, or `held` when the amount received differs).
-- `reference` is quoted by the borrower with the transfer; `provider_id` is a gateway's id for it (unique, so a
-- callback repeated is recognised).
CREATE TABLE payments (
    id               TEXT PRIMARY KEY,
    order_id         TEXT NOT NULL REFERENCES orders (id),
    borrower_id      TEXT NOT NULL REFERENCES borrowers (id),
    choice           TEXT NOT NULL,
    method           TEXT NOT NULL,
    installment      BIGINT,
    amount           BIGINT NOT NULL,
    currency         TEXT NOT NULL,
    priced_on        TEXT NOT NULL,
    status           TEXT NOT NULL,
    reference        TEXT NOT NULL UNIQUE,
    idempotency_key  TEXT NOT NULL,
    provider_id      TEXT UNIQUE,
    received_amount  BIGINT,
    decision_reason  TEXT,
    decided_by       TEXT,
    decided_at       BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    UNIQUE (borrower_id, idempotency_key)
);

CREATE INDEX payments_order ON payments (order_id, created_at);
-- Finance's queue: payments in one status, oldest first.
CREATE INDEX payments_status ON payments (status, updated_at);

-- Every UTR (the bank's transfer reference) a borrower submitted: unique across all payments, so one transfer is
-- never counted twice.
CREATE TABLE payment_utrs (
    utr          TEXT PRIMARY KEY,
    payment_id   TEXT NOT NULL REFERENCES payments (id),
    submitted_at BIGINT NOT NULL
);

CREATE INDEX payment_utrs_payment ON payment_utrs (payment_id);

-- The ledger (docs/MONEY.md §9): append-only entries numbered per order from 0 (the payout); `kind` is the entry's
-- code (kilat_domain::EntryKind), `on_date` its business date (YYYY-MM-DD); a repayment names its payment.
-- Corrections are reversals (`reverses` = the sequence number undone), never edits.
CREATE TABLE ledger_entries (
    id         TEXT PRIMARY KEY,
    order_id   TEXT NOT NULL REFERENCES orders (id),
    seq        BIGINT NOT NULL,
    kind       TEXT NOT NULL,
    on_date    TEXT NOT NULL,
    cash       BIGINT NOT NULL,
    excess     BIGINT NOT NULL,
    refunded   BIGINT NOT NULL,
    reverses   BIGINT,
    payment_id TEXT REFERENCES payments (id),
    created_at BIGINT NOT NULL,
    UNIQUE (order_id, seq)
);

-- What an entry adds to one installment's due and paid amounts, per bucket.
CREATE TABLE ledger_lines (
    entry_id          TEXT NOT NULL REFERENCES ledger_entries (id),
    installment       BIGINT NOT NULL,
    due_late_charges  BIGINT NOT NULL,
    due_fees          BIGINT NOT NULL,
    due_interest      BIGINT NOT NULL,
    due_principal     BIGINT NOT NULL,
    paid_late_charges BIGINT NOT NULL,
    paid_fees         BIGINT NOT NULL,
    paid_interest     BIGINT NOT NULL,
    paid_principal    BIGINT NOT NULL,
    PRIMARY KEY (entry_id, installment)
);

-- The borrower's rating of an ended loan (repaid or exited in cooling-off): once per order.
CREATE TABLE order_ratings (
    order_id   TEXT PRIMARY KEY REFERENCES orders (id),
    score      BIGINT NOT NULL,
    comment    TEXT,
    created_at BIGINT NOT NULL
);
