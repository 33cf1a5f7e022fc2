-- Payment providers wired (server/src/servicing/payments.rs) and verification codes for sensitive changes
-- (server/src/auth/sign_in.rs).

-- What a provider issued for a payment, stored with it when it is created, so a retry with the same Idempotency-Key
-- answers the same account and never asks the provider for a second one. `provider` is the issuer (`simulated`,
-- `xendit`, `dragonpay`; NULL for India's transfers to the collection account), `provider_ref` its id of what it issued
-- (Xendit's virtual-account id), `va_*` the virtual account (Indonesia), `expires_at` when the instructions stop
-- working (epoch milliseconds; NULL: they do not expire).
ALTER TABLE payments ADD COLUMN provider TEXT;
ALTER TABLE payments ADD COLUMN provider_ref TEXT;
ALTER TABLE payments ADD COLUMN va_bank_code TEXT;
ALTER TABLE payments ADD COLUMN va_number TEXT;
ALTER TABLE payments ADD COLUMN va_name TEXT;
ALTER TABLE payments ADD COLUMN expires_at BIGINT;

-- One-time codes serve sign-in (`login`) and sensitive changes of a signed-in borrower (`bank_account`): the same
-- table, hashing and limits (the resend minute and the daily caps count every purpose), but a code is only ever
-- compared for its own purpose.
ALTER TABLE login_codes ADD COLUMN purpose TEXT NOT NULL DEFAULT 'login';

CREATE INDEX login_codes_phone_purpose ON login_codes (phone_hash, purpose, created_at);
