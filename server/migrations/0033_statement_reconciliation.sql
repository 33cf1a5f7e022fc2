-- Reconciliation (issue 18, item 2): finance imports a bank statement and Kilat matches its credit lines to the UTR
-- payments waiting for finance. A statement's layout is mapped once per bank and kept (`statement_mappings`: 1-based
-- column numbers, the date format, the number format, the header rows to skip). An import keeps who, when, the file's
-- name and its SHA-256 (unique: the same file imported twice is the first import), and its lines: the amount in minor
-- units, credit or debit, the reference as printed, the narration encrypted (it names the payer), and the payment
-- whose UTR the line carries, found at import. A line confirmed through this import records who and when; the
-- payment itself is confirmed once by finance's confirmation path (servicing::payments), whatever the route.
CREATE TABLE statement_mappings (
    id                  TEXT PRIMARY KEY,
    name                TEXT NOT NULL UNIQUE,
    market              TEXT NOT NULL,
    delimiter           TEXT NOT NULL,
    skip_rows           BIGINT NOT NULL,
    date_column         BIGINT NOT NULL,
    date_format         TEXT NOT NULL,
    amount_column       BIGINT,
    credit_column       BIGINT,
    debit_column        BIGINT,
    reference_column    BIGINT NOT NULL,
    narration_column    BIGINT,
    decimal_separator   TEXT NOT NULL,
    thousands_separator TEXT NOT NULL,
    created_by          TEXT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL
);

CREATE TABLE statement_imports (
    id          TEXT PRIMARY KEY,
    market      TEXT NOT NULL,
    mapping_id  TEXT NOT NULL REFERENCES statement_mappings (id),
    file_name   TEXT NOT NULL,
    file_hash   TEXT NOT NULL UNIQUE,
    imported_by TEXT NOT NULL,
    imported_at BIGINT NOT NULL,
    line_count  BIGINT NOT NULL
);

-- The import history, newest first.
CREATE INDEX statement_imports_at ON statement_imports (imported_at);

CREATE TABLE statement_lines (
    import_id     TEXT NOT NULL REFERENCES statement_imports (id),
    line_no       BIGINT NOT NULL,
    on_date       TEXT NOT NULL,
    amount        BIGINT NOT NULL,
    credit        BIGINT NOT NULL,
    reference     TEXT NOT NULL,
    narration_enc TEXT NOT NULL,
    utr           TEXT,
    payment_id    TEXT REFERENCES payments (id),
    confirmed_by  TEXT,
    confirmed_at  BIGINT,
    PRIMARY KEY (import_id, line_no)
);

CREATE INDEX statement_lines_payment ON statement_lines (payment_id);

-- Finance's queue filtered by market (the payment's currency) and status, oldest change first.
CREATE INDEX payments_currency_status ON payments (currency, status, updated_at);
