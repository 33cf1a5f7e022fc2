-- A refund's bank transfer has its own reference too: finance pasting another refund's (or a payout's) reference onto
-- a refund would mark money as sent back that never left. Payouts' and refunds' references share one key
-- (`transfer_references`, formerly `payout_references`, migration 0061): a reference belongs to one order and one kind
-- of transfer (`payout`, `refund`); one transfer may send back two refunds of the same order. Refunds recorded before
-- this migration keep theirs where no payout had it (the first order per reference, should two share one). The index
-- `payout_references_order` keeps its name.
ALTER TABLE payout_references RENAME TO transfer_references;
ALTER TABLE transfer_references ADD COLUMN kind TEXT NOT NULL DEFAULT 'payout';
INSERT INTO transfer_references (reference, order_id, kind)
    SELECT UPPER(refund_reference), MIN(order_id), 'refund' FROM payments
    WHERE refund_reference IS NOT NULL GROUP BY UPPER(refund_reference)
    ON CONFLICT (reference) DO NOTHING;
