-- Account deletion (docs/ACCOUNT.md). A deleted borrower's row stays as the pseudonymous owner of the loans and
-- ledger the law requires us to keep: its phone is replaced by a one-way tombstone (phone_hash = 'deleted:' || id,
-- phone_enc empty), so the same phone signs up again as a new, empty account. deleted_at marks the row; a confirm
-- and a deletion both read it under the borrower's row lock, so exactly one of two racing requests wins.
ALTER TABLE borrowers ADD COLUMN deleted_at BIGINT;
