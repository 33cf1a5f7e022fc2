-- Payment receipts (issue 19 item 16): when a payment is credited, a text to the borrower goes through the same
-- notification outbox as the reminders, queued in the transaction that credits it. Its `kind` is `receipt`, its
-- `installment` the sequence number of the ledger entry the payment posted (unique per order, so the outbox's own
-- unique key still holds), and `payment_id` the payment: at most one receipt per payment, whatever path or how many
-- callbacks confirm it. (No foreign key: the records retention purges payments before the outbox.)
ALTER TABLE notification_outbox ADD COLUMN payment_id TEXT;

CREATE UNIQUE INDEX notification_outbox_payment ON notification_outbox (payment_id, kind);
