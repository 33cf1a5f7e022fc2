-- Each new order, and each change of an order's status, writes an entry into every index of `orders` that holds the
-- row (the status is indexed, so PostgreSQL cannot update the row in place): seven hold every order. One of them no
-- statement reads any more (docs/PERFORMANCE.md, "Fewer indexes on orders"): `orders_market_status` (market, status,
-- created_at), made for the review queue, which with its counts reads `orders_in_review` since migration 0040 (the
-- payout list reads `orders_awaiting_payout`). `orders_market_status_id` (market, status, id) stays: the overdue job
-- no longer reads it (migration 0021), but the dashboard's principal changes read one market's order ids from it,
-- index only.
DROP INDEX IF EXISTS orders_market_status;
