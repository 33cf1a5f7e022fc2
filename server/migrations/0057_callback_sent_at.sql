-- When the provider says a callback's money was sent (Razorpay's `created_at`, Xendit's `transaction_timestamp`), in
-- ms since the epoch: the money is priced for that day, not for the day the callback came, and finance's later credit
-- of money a callback held prices it for that day too. None when the provider does not say (Dragonpay), or for the
-- callbacks of before: the day they came.
ALTER TABLE payment_callbacks ADD COLUMN sent_at BIGINT;
