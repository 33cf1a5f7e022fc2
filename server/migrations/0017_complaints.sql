-- Customer service (server/src/support/): complaints with their conversation and images, the FAQ, and the handled
-- flag of the contact form's messages. Portable SQL: TEXT ids made by the application, BIGINT epoch-ms times.

-- A borrower's complaint ("user problem"). `status`: `open` (waiting for support) → `answered` (support replied)
-- → `closed` (support closed it); the borrower rates the answer once (`score`, 1 to 5). `received_on` is the market's
-- business date it came in: the resolution deadline (30 days in India, 20 working days in Indonesia) counts from it.
CREATE TABLE complaints (
    id            TEXT PRIMARY KEY,
    ticket_no     TEXT NOT NULL UNIQUE,
    borrower_id   TEXT NOT NULL REFERENCES borrowers (id),
    market        TEXT NOT NULL,
    category      TEXT NOT NULL,
    order_id      TEXT REFERENCES orders (id),
    status        TEXT NOT NULL,
    received_on   TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    answered_at   BIGINT,
    closed_at     BIGINT,
    closed_by     TEXT,
    score         BIGINT,
    score_comment TEXT,
    scored_at     BIGINT
);

CREATE INDEX complaints_borrower ON complaints (borrower_id, created_at);
CREATE INDEX complaints_status ON complaints (status, created_at);

-- The conversation: the complaint's text (the borrower's first message), then support's replies. The text is the
-- borrower's own words about their loan and may hold personal data, so it is encrypted like the other PII
-- (bound to the message id).
CREATE TABLE complaint_messages (
    id           TEXT PRIMARY KEY,
    complaint_id TEXT NOT NULL REFERENCES complaints (id),
    author_kind  TEXT NOT NULL,
    author_id    TEXT,
    body_enc     TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE INDEX complaint_messages_complaint ON complaint_messages (complaint_id, created_at);

-- Images a borrower uploaded, re-encoded (metadata stripped) and kept in the file store under `storage_key`. An
-- upload waits unattached (`complaint_id` NULL) until the complaint it was uploaded for is saved; at most 3 each.
CREATE TABLE complaint_images (
    id           TEXT PRIMARY KEY,
    borrower_id  TEXT NOT NULL REFERENCES borrowers (id),
    complaint_id TEXT REFERENCES complaints (id),
    storage_key  TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes   BIGINT NOT NULL,
    width        BIGINT NOT NULL,
    height       BIGINT NOT NULL,
    created_at   BIGINT NOT NULL
);

CREATE INDEX complaint_images_borrower ON complaint_images (borrower_id, complaint_id);
CREATE INDEX complaint_images_complaint ON complaint_images (complaint_id);

-- Questions and answers of the customer-service screen, per language (`en` India, `id` Indonesia) and category,
-- edited by admins in the console (every change in the audit trail).
CREATE TABLE faq_entries (
    id         TEXT PRIMARY KEY,
    lang       TEXT NOT NULL,
    category   TEXT NOT NULL,
    question   TEXT NOT NULL,
    answer     TEXT NOT NULL,
    position   BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX faq_entries_lang ON faq_entries (lang, category, position);

-- The contact form's messages in the console: who handled one and when (set once, conditionally on NULL).
ALTER TABLE contact_messages ADD COLUMN handled_at BIGINT;
ALTER TABLE contact_messages ADD COLUMN handled_by TEXT;
