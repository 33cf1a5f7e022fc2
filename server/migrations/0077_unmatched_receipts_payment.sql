-- Money taken back from a payment (`unmatched_receipts` of kind `reversed`, naming it) is looked up by the payment:
-- an account's deletion is refused while one is unsettled, the records-retention purge skips such an account and
-- removes the settled ones with their payments. This index finds them, not a scan of the table.
CREATE INDEX unmatched_receipts_payment ON unmatched_receipts (payment_id) WHERE payment_id IS NOT NULL;
