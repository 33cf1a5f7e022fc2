-- The records-retention job (server/src/jobs/records_retention.rs, docs/ACCOUNT.md "Retention") pages through each
-- market's deleted accounts by id, looking for those whose records' retention has passed. This partial index holds
-- exactly the deleted accounts, in id order, so a run reads them and not every borrower.
CREATE INDEX borrowers_deleted_by_market_id ON borrowers (market, id) WHERE deleted_at IS NOT NULL;
