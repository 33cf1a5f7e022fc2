-- A borrower's whole picture for reviewers (issue 18, items 5 and 6; docs/API-CONSOLE.md, "Review").

-- Keyed hashes of the values that identify a borrower, to find the same value on another borrower without decrypting
-- anything: `hash` is `Secrets::mac("fingerprint/<kind>", normalised value)` (server/src/review/fingerprints.rs).
-- `kind` is `id` (PAN, NIK), `phone` (the borrower's own and the emergency contacts', E.164) or `bank` (bank code or
-- IFSC, and the account's digits); `field` names the certification field it comes from. Written in the transaction
-- that writes the encrypted value; deleted with the account's PII on erasure.
CREATE TABLE borrower_fingerprints (
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    field       TEXT NOT NULL,
    kind        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    PRIMARY KEY (borrower_id, field)
);
CREATE INDEX borrower_fingerprints_by_hash ON borrower_fingerprints (kind, hash);

-- One row until the first start after this migration has written the fingerprints (and the masked phones below) of
-- the borrowers that existed before it, in one transaction that deletes the row (server/src/store/reseal.rs).
CREATE TABLE fingerprint_backfill_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO fingerprint_backfill_pending (id) VALUES (1);

-- The phone as the console lists it (`+91 ******3210`), written with the encrypted phone: the review queue shows it
-- without decrypting a phone per row. Emptied on erasure.
ALTER TABLE borrowers ADD COLUMN phone_masked TEXT NOT NULL DEFAULT '';

-- The approval's note for the team (never shown to the borrower); `review_reason` is now only the rejection's
-- reason, which the borrower reads.
ALTER TABLE orders ADD COLUMN review_note TEXT;

-- A reviewer's claim on an application in review: who, and until when (epoch ms). A claim past `claimed_until` is
-- free to take; it is taken or released by one conditional update.
ALTER TABLE orders ADD COLUMN claimed_by TEXT REFERENCES operators (id);
ALTER TABLE orders ADD COLUMN claimed_until BIGINT;
