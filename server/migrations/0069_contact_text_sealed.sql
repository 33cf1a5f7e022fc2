-- A contact message's text and company are what the visitor typed, and visitors type their ID numbers, loan numbers
-- and phone numbers into them: from now on they are sealed at rest like the name, telephone and e-mail, bound to their
-- message and column (`contact_messages.message` and `.company` hold `v2.` values). A migration cannot encrypt, so the
-- messages written before this one stay in clear until the server's next start seals them, in one transaction that
-- deletes this row (server/src/store/reseal.rs); without the row, a text in clear written later is refused.
CREATE TABLE contact_text_seal_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO contact_text_seal_pending (id) VALUES (1);
