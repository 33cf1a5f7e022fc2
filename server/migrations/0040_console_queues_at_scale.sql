-- The console's queues over a book of 1,000,000 orders (issue 18 "Done when", issue 20; docs/PERFORMANCE.md, "The
-- console's queues at scale"). Each queue reads a page and counts of a small, moving subset of a large table; these
-- partial indexes hold only that subset, in the queue's order, so a page is the first rows of an index and a count an
-- index-only scan of a few thousand entries, whatever the size of the book. The statements name the status as a
-- literal (store/review.rs, store/loans.rs, store/reconciliation.rs) so that PostgreSQL may use them. Portable: SQLite
-- has partial indexes too.

-- The review queue: a market's orders in review, oldest first; `claimed_until` for the count of live claims.
CREATE INDEX orders_in_review ON orders (market, created_at, id, claimed_until) WHERE status = 'pending_review';

-- Finance's payout list: a market's approved orders in the order of their approval (their last change).
CREATE INDEX orders_awaiting_payout ON orders (market, updated_at, id) WHERE status = 'approved';

-- Finance's repayments queue: the payments waiting for finance, oldest change first, with the columns its counts
-- group by.
CREATE INDEX payments_waiting ON payments (updated_at, id, currency, status)
    WHERE status IN ('verifying', 'held', 'refund_due');
