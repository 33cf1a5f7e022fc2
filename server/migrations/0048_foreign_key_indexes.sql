-- Removing a row makes the database look for the rows whose foreign keys still name it (both PostgreSQL and SQLite
-- check each key on delete). These five keys had no index leading with their column, so each borrower, order or
-- payment removed scanned the whole referencing table: the records-retention job's purge of a page of deleted accounts
-- scanned `ledger_entries` once per payment, and a borrower's own account deletion scanned every reminder ever queued
-- (docs/PERFORMANCE.md, "Removing rows at scale"). The test
-- `kept_records::every_foreign_key_onto_rows_that_are_removed_has_an_index_leading_with_its_columns` keeps it so.
-- Only payments' entries name a payment, and only some complaints an order: those two indexes hold just those rows
-- (a lookup by value implies the column is not null, so both databases use them).
CREATE INDEX ledger_entries_payment ON ledger_entries (payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX complaints_order ON complaints (order_id) WHERE order_id IS NOT NULL;
CREATE INDEX notification_outbox_borrower ON notification_outbox (borrower_id);
CREATE INDEX client_events_borrower ON client_events (borrower_id);
CREATE INDEX app_ratings_borrower ON app_ratings (borrower_id);
