-- Money a provider took back after it had reported it received (a refund it made, a chargeback the payer won, a void):
-- kept for finance beside the money no payment matches, as a `reversed` item naming the payment, until finance says
-- what they did (the loan's credit stands until they act). `kind` is `unmatched` for the rows before.
ALTER TABLE unmatched_receipts ADD COLUMN kind TEXT NOT NULL DEFAULT 'unmatched';
ALTER TABLE unmatched_receipts ADD COLUMN payment_id TEXT;
