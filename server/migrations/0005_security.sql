-- Security (issue 7 §2): encrypted values are bound to their row, and the contact form's PII is encrypted at rest.
-- Every encrypted value is now `v2.` + base64url(nonce ‖ ciphertext ‖ tag) with the row as associated data
-- (server/src/crypto.rs `Binding`), so a value copied onto another row does not decrypt.

-- The contact form's name, telephone and e-mail hold ciphertext from now on; the columns say so. Rows written before
-- this migration still hold clear text until the server's next start seals them (server/src/store/reseal.rs).
ALTER TABLE contact_messages RENAME COLUMN name TO name_enc;
ALTER TABLE contact_messages RENAME COLUMN telephone TO telephone_enc;
ALTER TABLE contact_messages RENAME COLUMN email TO email_enc;

-- One row until the first start after this migration has sealed what was written before it (unbound borrower phones
-- and certification steps, clear contact messages), in one transaction that deletes the row. Without the row nothing
-- is resealed again, so an unbound value written later (restored from an old backup, copied in by hand) is refused,
-- never adopted as its new row's.
CREATE TABLE pii_reseal_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO pii_reseal_pending (id) VALUES (1);
