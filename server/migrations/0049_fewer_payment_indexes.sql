-- Each change of a payment's status writes an entry into every index of `payments` that holds the row (the status
-- and `updated_at` change, so PostgreSQL cannot update in place), and so does every new payment. Three of them no
-- statement reads, and a fourth held every payment for a read of the refunded ones (docs/PERFORMANCE.md, "Fewer
-- indexes on payments"):
-- - `payments_decided_at` and `payments_status`: no statement reads payments by their decision time, or by status
--   alone; a payment is found by its id, reference, provider id or order, and finance's queues read the waiting ones
--   on `payments_waiting` (migration 0040).
-- - `payments_currency_status`: finance's queue of one currency reads `payments_waiting`, which holds the currency.
-- - `payments_refunded_at`: the refunds export reads only refunded payments; the index now holds just those.
DROP INDEX IF EXISTS payments_decided_at;
DROP INDEX IF EXISTS payments_status;
DROP INDEX IF EXISTS payments_currency_status;
DROP INDEX IF EXISTS payments_refunded_at;
CREATE INDEX payments_refunded ON payments (refunded_at, id) WHERE status = 'refunded';
