-- Each loan's outstanding principal kept in its position beside the total (migration 0044; written by
-- server/src/ledger/ with every entry): the dashboard's book of the open loans (issue 20; docs/PERFORMANCE.md,
-- "Dashboard of the book") reads it instead of summing every open loan's ledger lines on each request. Filled here for
-- the open loans' positions already written, from the same lines (17 s over 100,000 open loans of 1,000,000 on
-- PostgreSQL; every position, closed loans' too, took 212 s); any position without it is summed from the ledger by
-- the reader.
ALTER TABLE loan_arrears ADD COLUMN outstanding_principal BIGINT;

UPDATE loan_arrears SET outstanding_principal = (
    SELECT COALESCE(SUM(l.due_principal - l.paid_principal), 0)
    FROM ledger_entries e JOIN ledger_lines l ON l.entry_id = e.id
    WHERE e.order_id = loan_arrears.order_id
)
WHERE outstanding IS NOT NULL AND order_id IN (SELECT id FROM orders WHERE status IN ('disbursed', 'overdue'));
