-- Certification steps and orders (docs/API-BORROWER.md, second slice).
-- A step's data is PII: stored encrypted as one blob (XChaCha20-Poly1305), ID and account numbers included.
CREATE TABLE certification_steps (
    borrower_id  TEXT NOT NULL REFERENCES borrowers (id),
    step         TEXT NOT NULL,
    data_enc     TEXT NOT NULL,
    completed_at BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (borrower_id, step)
);

-- The advance log: each save of a step, with its time.
CREATE TABLE certification_log (
    id          TEXT PRIMARY KEY,
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    step        TEXT NOT NULL,
    event       TEXT NOT NULL,
    at          BIGINT NOT NULL
);

CREATE INDEX certification_log_borrower ON certification_log (borrower_id, at);

-- An order keeps the KFS the borrower accepted, as JSON, with its content hash; the columns beside it are copies
-- for lists. closed_at is set when the order reaches a final state.
CREATE TABLE orders (
    id               TEXT PRIMARY KEY,
    order_no         TEXT NOT NULL UNIQUE,
    borrower_id      TEXT NOT NULL REFERENCES borrowers (id),
    market           TEXT NOT NULL,
    product_code     TEXT NOT NULL,
    product_name     TEXT NOT NULL,
    term_code        TEXT NOT NULL,
    currency         TEXT NOT NULL,
    amount           BIGINT NOT NULL,
    net_disbursed    BIGINT NOT NULL,
    total_repayable  BIGINT NOT NULL,
    apr              BIGINT NOT NULL,
    apr_display      TEXT NOT NULL,
    status           TEXT NOT NULL,
    kfs_json         TEXT NOT NULL,
    kfs_hash         TEXT NOT NULL,
    idempotency_key  TEXT NOT NULL,
    request_hash     TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL,
    closed_at        BIGINT,
    UNIQUE (borrower_id, idempotency_key)
);

-- At most one open order per borrower, enforced by the database (a race of two confirms cannot make two).
CREATE UNIQUE INDEX orders_one_open ON orders (borrower_id) WHERE closed_at IS NULL;
CREATE INDEX orders_borrower ON orders (borrower_id, created_at);

-- The timeline of an order: every status it entered, with who moved it.
CREATE TABLE order_events (
    id       TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (id),
    status   TEXT NOT NULL,
    actor    TEXT NOT NULL,
    at       BIGINT NOT NULL
);

CREATE INDEX order_events_order ON order_events (order_id, at);
