-- Payouts finance can make (issue 18, item 1; docs/API-CONSOLE.md, "Payout operations").
--
-- Maker-checker: a payout above the market's approval threshold (`[payouts.in|id] approval_threshold`) is first
-- recorded by one finance operator with the bank's reference, and waits here until a second, different finance
-- operator approves it (the loan starts: the order moves to `disbursed` through the lifecycle and this row goes) or
-- rejects it (the row goes; the order stays approved, not paid). One row per order at most: the primary key makes a
-- second recording of the same order fail instead of doubling it.
CREATE TABLE payout_approvals (
    order_id       TEXT PRIMARY KEY REFERENCES orders (id),
    bank_reference TEXT NOT NULL,
    amount         BIGINT NOT NULL,
    recorded_by    TEXT NOT NULL REFERENCES operators (id),
    recorded_at    BIGINT NOT NULL
);

-- The second operator who approved a payout recorded by another (null when one operator sufficed).
ALTER TABLE payouts ADD COLUMN approved_by TEXT;

-- The month-end exports read payments by the time finance decided them or sent their refund.
CREATE INDEX payments_decided_at ON payments (decided_at);
CREATE INDEX payments_refunded_at ON payments (refunded_at);
CREATE INDEX ledger_entries_on_date ON ledger_entries (on_date);
CREATE INDEX loans_payout_date ON loans (payout_date);
