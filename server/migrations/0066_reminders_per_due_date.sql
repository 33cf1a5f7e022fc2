-- A reminder is for an installment's due date: an extension moves the date, and the new date gets its own three
-- reminders and its overdue text, which the old key (one of each kind per installment) refused once the old date's had
-- gone out. The table is rebuilt with `due_on` in its unique key (SQLite cannot drop a table's constraint); rows
-- queued before keep `''` (no date), receipts too. Its indexes are made again as migrations 0043, 0048 and 0055 left
-- them.
CREATE TABLE notification_outbox_new (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (id),
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    market      TEXT NOT NULL,
    installment BIGINT NOT NULL,
    kind        TEXT NOT NULL,
    text        TEXT NOT NULL,
    status      TEXT NOT NULL,
    attempts    BIGINT NOT NULL,
    last_error  TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL,
    sent_at     BIGINT,
    payment_id  TEXT,
    due_on      TEXT NOT NULL DEFAULT '',
    UNIQUE (order_id, installment, kind, due_on)
);
INSERT INTO notification_outbox_new (id, order_id, borrower_id, market, installment, kind, text, status, attempts,
    last_error, created_at, updated_at, sent_at, payment_id)
    SELECT id, order_id, borrower_id, market, installment, kind, text, status, attempts, last_error, created_at,
           updated_at, sent_at, payment_id
    FROM notification_outbox;
DROP TABLE notification_outbox;
ALTER TABLE notification_outbox_new RENAME TO notification_outbox;
CREATE UNIQUE INDEX notification_outbox_payment ON notification_outbox (payment_id, kind) WHERE payment_id IS NOT NULL;
CREATE INDEX notification_outbox_borrower ON notification_outbox (borrower_id);
CREATE INDEX notification_outbox_pending ON notification_outbox (market, created_at, id) WHERE status = 'pending';
CREATE INDEX notification_outbox_sending ON notification_outbox (updated_at) WHERE status = 'sending';
