-- Loan products in the database, edited by admins in the console (server/src/catalog/admin.rs). The demo product files
-- (server/products/*.toml) are the seed, inserted at start-up when `products` is empty.
-- `products`: one row per product code with the version on offer; a disabled product is not offered to new
-- applications (orders already made keep theirs). Market and currency never change (currency follows the market).
CREATE TABLE products (
    code        TEXT PRIMARY KEY,
    market      TEXT NOT NULL,
    version     BIGINT NOT NULL,
    disabled_at BIGINT,
    updated_at  BIGINT NOT NULL
);

-- Every version of every product, append-only: an edit writes version + 1. `definition` is the product as JSON
-- (kilat_domain::Product). `created_by` is the operator; NULL for the seed.
CREATE TABLE product_versions (
    code       TEXT NOT NULL REFERENCES products (code),
    version    BIGINT NOT NULL,
    definition TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    created_by TEXT,
    PRIMARY KEY (code, version)
);

-- One row: a counter every product change moves in its transaction, so each server notices a change with one cheap
-- read (every few seconds) and reloads its catalog.
CREATE TABLE catalog_state (
    id      BIGINT PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO catalog_state (id, version) VALUES (1, 0);

-- The product version an order was made on (NULL for orders made before products were stored: version 1, the seed),
-- so the order's plan, payout schedule and repayment choices follow its own terms after the product is edited.
ALTER TABLE orders ADD COLUMN product_version BIGINT;
