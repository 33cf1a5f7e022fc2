-- Why the lender withdrew an approved order it could not pay out (`POST /console/orders/{orderNo}/withdraw`), which
-- the borrower reads. Its own column: an order is told withdrawn by the lender only by this, never by a review
-- reason (approvals before migration 0035 kept the reviewer's words there).
ALTER TABLE orders ADD COLUMN withdrawal_reason TEXT;
