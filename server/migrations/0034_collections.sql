-- Collections (issue 18 item 4; docs/API-CONSOLE.md, "Collections"): the overdue queue, contact attempts and promises
-- to pay.

-- Where each paid-out loan stands for the queue, kept beside the ledger: the current due date of its oldest
-- installment with something outstanding (NULL when nothing is owed). Written in the same transaction as every ledger
-- entry (server/src/ledger/) and by the overdue job's daily sweep for every open loan, so it is always the replay's
-- own figure. Days past due are the market's business date minus this date; the queue filters and sorts on it
-- through the index without reading a ledger.
CREATE TABLE loan_arrears (
    order_id          TEXT PRIMARY KEY REFERENCES orders (id),
    market            TEXT NOT NULL,
    oldest_unpaid_due TEXT,
    updated_at        BIGINT NOT NULL
);

CREATE INDEX loan_arrears_market_due ON loan_arrears (market, oldest_unpaid_due, order_id);

-- A contact attempt with the borrower (never anyone else): how (`call`, `sms`, `whatsapp`, `email`), what came of it,
-- the agent's note (encrypted: free text about a person), and the market's local time it was logged at.
CREATE TABLE collection_contacts (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (id),
    operator_id TEXT NOT NULL REFERENCES operators (id),
    channel     TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    note_enc    TEXT,
    local_time  TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX collection_contacts_order ON collection_contacts (order_id, created_at);

-- A promise to pay: an amount (minor units) by a date of the market's calendar, made on `made_on`. Its state is not
-- stored: it is read from the ledger's payments (kept when those received from `made_on` to `promised_on` cover the
-- amount, broken once `promised_on` has passed without that, open before).
CREATE TABLE promises_to_pay (
    id          TEXT PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (id),
    operator_id TEXT NOT NULL REFERENCES operators (id),
    amount      BIGINT NOT NULL,
    made_on     TEXT NOT NULL,
    promised_on TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX promises_to_pay_order ON promises_to_pay (order_id, created_at);
