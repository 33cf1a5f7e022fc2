-- Each order's sends in bank files are numbered (`attempt`): the file's reference is the order number for the first
-- and the order number with `-2`, `-3`… for the next, so a line of the bank's result names the send it is about. A
-- failed line of an earlier file — the same result imported again — no longer takes the order out of the newer file
-- its money may be on its way in (a third file would send it twice). A release keeps the row (`released_at`), so the
-- count goes on; an order is in a file while its row has none.
ALTER TABLE payout_sends ADD COLUMN attempt BIGINT NOT NULL DEFAULT 1;
ALTER TABLE payout_sends ADD COLUMN released_at BIGINT;
