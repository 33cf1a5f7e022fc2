-- The notification outbox keeps every text it queued until the borrower's records are purged, while its sender reads
-- only the few still to send. Its index for that (status, market, created_at) held every text ever queued, and every
-- text's moves (pending → sending → sent) wrote a new entry into it. It now holds the pending texts alone, in the
-- sender's order. A second partial index holds the texts claimed for sending, which the sender takes back when their
-- claim is older than a send can take (a sender that stopped between its claim and its record: `jobs::reminders`).
DROP INDEX IF EXISTS notification_outbox_pending;
CREATE INDEX notification_outbox_pending ON notification_outbox (market, created_at, id) WHERE status = 'pending';
CREATE INDEX notification_outbox_sending ON notification_outbox (updated_at) WHERE status = 'sending';

-- At most one receipt per payment (migration 0043): only receipts name a payment, and the reminders, most of the
-- outbox, each wrote a (NULL, kind) entry into this unique index. It now holds the receipts alone.
DROP INDEX IF EXISTS notification_outbox_payment;
CREATE UNIQUE INDEX notification_outbox_payment ON notification_outbox (payment_id, kind) WHERE payment_id IS NOT NULL;
