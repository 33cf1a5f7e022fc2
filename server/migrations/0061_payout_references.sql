-- Each bank reference a payout is recorded with belongs to one order (capitals: references are compared without
-- case). A transfer has its own reference, so finance pasting the previous row's reference would start a loan — and
-- charge its borrower — on money never sent; the key refuses it, whether the reference is paid out or recorded for
-- approval, even when two operators type it at the same moment. A rejected recording frees its reference. Payouts
-- recorded before this migration keep theirs (the first order per reference, should two share one).
CREATE TABLE payout_references (
    reference TEXT PRIMARY KEY,
    order_id  TEXT NOT NULL REFERENCES orders (id)
);
-- A purged account's orders take their references with them (`kept_records`).
CREATE INDEX payout_references_order ON payout_references (order_id);
INSERT INTO payout_references (reference, order_id)
    SELECT UPPER(bank_reference), MIN(order_id) FROM payouts GROUP BY UPPER(bank_reference);
INSERT INTO payout_references (reference, order_id)
    SELECT UPPER(bank_reference), MIN(order_id) FROM payout_approvals GROUP BY UPPER(bank_reference)
    ON CONFLICT (reference) DO NOTHING;
