-- The order list reads a borrower's orders newest first (created_at DESC, id DESC). With (borrower_id, created_at)
-- alone SQLite sorted in a temporary B-tree, copying each row there; with id in the index it walks the index backwards.
CREATE INDEX orders_borrower_recent ON orders (borrower_id, created_at, id);
DROP INDEX orders_borrower;
