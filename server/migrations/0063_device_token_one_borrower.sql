-- A push token names one device, and a device is signed in to one borrower at a time: the device's latest borrower
-- keeps the token (`Tx::upsert_device_token` hands it over), so a phone passed on stops receiving the texts of the
-- borrower who used it before (payment receipts name loans and amounts). Tokens held by two borrowers keep the latest.
DELETE FROM device_tokens WHERE EXISTS (
    SELECT 1 FROM device_tokens d WHERE d.token = device_tokens.token
      AND (d.updated_at > device_tokens.updated_at
           OR (d.updated_at = device_tokens.updated_at AND d.borrower_id > device_tokens.borrower_id)));
CREATE UNIQUE INDEX device_tokens_token ON device_tokens (token);
