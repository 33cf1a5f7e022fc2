-- Messages sent from the marketing site's contact form (PRODUCT.md §2: every lead reaches the company).
-- Portable SQL for SQLite and PostgreSQL: TEXT ids made by the application, BIGINT epoch-millisecond times.
CREATE TABLE contact_messages (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    telephone   TEXT NOT NULL,
    message     TEXT NOT NULL,
    email       TEXT,
    company     TEXT,
    client_addr TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX contact_messages_created_at ON contact_messages (created_at);
