-- Each loan's position kept beside its ledger (issue 18 "Done when", issue 20; docs/PERFORMANCE.md, "The console's
-- queues at scale" and "The overdue job"): the money engine's replay of the ledger (kilat_domain::LoanBalances, as
-- JSON) and its total outstanding, written by server/src/ledger/ in the same transaction as every entry, as the arrears
-- date already is. The ledger stays the record: every posting replays it. The position is what the queues show (finance's
-- outstanding, collections' arrears) and what the overdue job reads to find the loans with something to do on a day,
-- without reading and replaying every open loan's ledger. NULL until a loan's first entry after this migration or the
-- overdue job's next sweep of it; a reader replays the ledger then.
ALTER TABLE loan_arrears ADD COLUMN outstanding BIGINT;
ALTER TABLE loan_arrears ADD COLUMN balances_json TEXT;

-- The overdue job's pages of a market's open loans (store/jobs.rs `open_loans_page`): the open loans alone, in id
-- order, so a page is the next entries of this index instead of the primary key's with two of three rows filtered out.
-- Portable: SQLite has partial indexes too.
CREATE INDEX orders_open_loans ON orders (market, id) WHERE status IN ('disbursed', 'overdue');
