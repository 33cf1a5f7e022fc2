-- Complaint-image uploads under way (server/src/support/mod.rs, `upload_image`). An upload takes one of the borrower's
-- three waiting places before its image is decoded, counted with the waiting images under the borrower's row lock,
-- and gives it back when its image is recorded or refused; so a burst from one borrower is refused before any
-- decoding. A slot left by a server stopped mid-upload stops counting after a few minutes and is removed by the
-- borrower's next upload.
CREATE TABLE complaint_upload_slots (
    id          TEXT PRIMARY KEY,
    borrower_id TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX complaint_upload_slots_borrower ON complaint_upload_slots (borrower_id, created_at);
