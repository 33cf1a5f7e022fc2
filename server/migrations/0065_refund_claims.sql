-- A refund is sent by one finance operator: who said they are sending it, and since when, so that a second operator
-- does not send the same money again while the first is at the bank's portal (`refund_claimed`). Another operator
-- takes it over only deliberately (audited). Cleared with nothing: a refunded payment keeps who recorded it.
ALTER TABLE payments ADD COLUMN refund_claimed_by TEXT;
ALTER TABLE payments ADD COLUMN refund_claimed_at BIGINT;
