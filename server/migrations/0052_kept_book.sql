-- The dashboard's book kept as the loans change (issue 20; docs/PERFORMANCE.md, "Dashboard of the book"): every open
-- loan (`disbursed` or `overdue`) counted once under its market, product, status and arrears date, with its
-- outstanding principal and total from its position (`loan_arrears`, migrations 0044 and 0046). The book, and the
-- open and overdue loans now, were counted over every open loan on each request: 0.5 s and 0.2 s of PostgreSQL at
-- 1,000,000 orders (100,000 open), growing with the book.
--
-- Each statement that changes what a loan adds to the book (its position written, its status changed while open or
-- into or out of the open ones, a purge) appends the change to `book_moves` in the same transaction
-- (server/src/store/book.rs): an insert, so writers never wait on each other for a shared row. The worker folds the
-- moves into `book_kept` each tick, in one transaction; a reader sums both, so the book it reads is exact whether or
-- not the moves were folded. A loan's arrears date is kept rather than its bucket: the buckets move with the date, the
-- dates do not. '' when nothing is past due.
CREATE TABLE book_kept (
    market       TEXT NOT NULL,
    product_code TEXT NOT NULL,
    product_name TEXT NOT NULL,
    status       TEXT NOT NULL,
    due          TEXT NOT NULL,
    loans        BIGINT NOT NULL,
    principal    BIGINT NOT NULL,
    owed         BIGINT NOT NULL,
    PRIMARY KEY (market, product_code, product_name, status, due)
);

CREATE TABLE book_moves (
    market       TEXT NOT NULL,
    product_code TEXT NOT NULL,
    product_name TEXT NOT NULL,
    status       TEXT NOT NULL,
    due          TEXT NOT NULL,
    loans        BIGINT NOT NULL,
    principal    BIGINT NOT NULL,
    owed         BIGINT NOT NULL
);

-- The first start after this migration writes the positions of open loans that have none or lack their amounts (from
-- before migrations 0044 and 0046; their ledgers replayed), then counts the book from the positions, while this row
-- exists (deleted in the same transaction as the count, so two servers starting at once count it once).
CREATE TABLE book_count_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO book_count_pending (id) VALUES (1);
