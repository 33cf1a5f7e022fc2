-- The currency of money a provider reported for a payment when it is not the payment's (a USD capture for an INR
-- payment): it is held, and never credited to the loan or owed back as if it were the payment's currency — finance
-- sends it back through the provider and rejects the payment. Null: the payment's own currency.
ALTER TABLE payments ADD COLUMN received_currency TEXT;
