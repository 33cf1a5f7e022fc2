-- The agreement frozen with an order names the borrower (full name, address, masked numbers), so from now on
-- `orders.agreement_json` holds it encrypted and bound to its order, like the rest of the PII
-- (docs/ARCHITECTURE.md, "Data at rest"): `v2.` + base64url(nonce ‖ ciphertext ‖ tag), associated data
-- `orders.agreement_json:<order id>` (server/src/crypto.rs `Binding::OrderAgreement`). A migration cannot encrypt,
-- so the agreements written before this one stay in clear until the server's next start seals them.

-- One row until the first start after this migration has sealed the agreements written before it, in one transaction
-- that deletes the row (server/src/store/reseal.rs). Without the row nothing is sealed again, so an agreement in clear
-- written later (restored from an old backup, copied in by hand) is refused, never adopted as its order's.
CREATE TABLE agreement_seal_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO agreement_seal_pending (id) VALUES (1);
