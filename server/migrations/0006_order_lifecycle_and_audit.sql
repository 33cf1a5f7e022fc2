-- The order lifecycle (server/src/orders/): each timeline entry names the event that caused it, and every status
-- change is also written to the audit trail, in the same transaction.
ALTER TABLE order_events ADD COLUMN event TEXT;
ALTER TABLE order_events ADD COLUMN actor_id TEXT;

-- Who did what, when, to which record, with the record's state before and after (JSON). Append-only.
CREATE TABLE audit_log (
    id          TEXT PRIMARY KEY,
    actor_kind  TEXT NOT NULL,
    actor_id    TEXT,
    action      TEXT NOT NULL,
    entity      TEXT NOT NULL,
    entity_id   TEXT NOT NULL,
    before_json TEXT,
    after_json  TEXT,
    at          BIGINT NOT NULL
);

CREATE INDEX audit_log_entity ON audit_log (entity, entity_id, at);
CREATE INDEX audit_log_actor ON audit_log (actor_kind, actor_id, at);
CREATE INDEX audit_log_at ON audit_log (at);
