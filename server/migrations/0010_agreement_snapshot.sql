-- The loan agreement as the borrower accepted it, frozen at confirm (PRODUCT.md §6): the borrower's particulars as
-- the agreement names them (masked numbers, address, bank) and the rendered title and clauses in each language, as
-- JSON (server/src/orders/agreement.rs). `GET /orders/{orderNo}/agreement` answers this snapshot with the stored
-- KFS, so a later edit of the certification (a new bank account) changes nothing in it. Orders confirmed before this
-- migration have none and are rendered from the certification as before.
ALTER TABLE orders ADD COLUMN agreement_json TEXT;
