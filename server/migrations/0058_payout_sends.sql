-- The approved orders finance has put in a bank bulk payment file (docs/API-CONSOLE.md, "Bank bulk payment file"):
-- their money may be on its way from the moment the file is downloaded, before Kilat records any payout. One row per
-- order at most: a second download, by the same operator or another at the same moment, leaves the order out (one
-- transfer per loan), and the borrower can no longer cancel it. The row goes when the bank's result file reports the
-- transfer failed, or when finance puts the order back for the next file (the bank did not pay it), both audited.
CREATE TABLE payout_sends (
    order_id TEXT PRIMARY KEY REFERENCES orders (id),
    file_id  TEXT NOT NULL,
    sent_by  TEXT NOT NULL REFERENCES operators (id),
    sent_at  BIGINT NOT NULL
);
