-- Migration 0044 created `orders_open_loans` on (market, id) for the open loans, the same index as 0021's
-- `orders_open_by_market_id`: every status change of an open loan wrote both. The older one stays.
DROP INDEX IF EXISTS orders_open_loans;
