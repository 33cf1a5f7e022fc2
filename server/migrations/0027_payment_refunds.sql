-- Money after payout gets its exceptions (issue 16): the installments a `due` payment covers (all of them are frozen
-- against late charges while it waits for finance), and refunds. A payment whose money the loan did not owe, in whole
-- (a closed loan) or in part (more than owed), is `refund_due` with `refund_amount`; finance then records the bank
-- transfer back (`refunded`, with its reference, who and when).
ALTER TABLE payments ADD COLUMN installment_to BIGINT;
ALTER TABLE payments ADD COLUMN refund_amount BIGINT;
ALTER TABLE payments ADD COLUMN refund_reference TEXT;
ALTER TABLE payments ADD COLUMN refunded_by TEXT;
ALTER TABLE payments ADD COLUMN refunded_at BIGINT;

-- A due payment made before this migration covered the installments from `installment` to the last one due on the
-- day it was priced; those it does not name are at least its first.
UPDATE payments SET installment_to = installment WHERE choice IN ('due', 'extension');
