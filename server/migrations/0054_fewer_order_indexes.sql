-- Each new order, and each change of an order's status, writes an entry into every index of `orders` that holds the
-- row (the status is indexed, so PostgreSQL cannot update the row in place): seven hold every order. Two of them
-- no statement reads any more (docs/PERFORMANCE.md, "Fewer indexes on orders"):
-- - `orders_market_status_id` (market, status, id), made for the overdue job's pages: since migration 0021 they read
--   `orders_open_by_market_id`, which holds only the open loans;
-- - `orders_market_status` (market, status, created_at), made for the review queue: since migration 0040 the queue
--   and its counts read `orders_in_review`, and the payout list `orders_awaiting_payout`; no other statement reads a
--   market's orders by status.
DROP INDEX IF EXISTS orders_market_status_id;
DROP INDEX IF EXISTS orders_market_status;
