-- The leftovers sweep (jobs::leftovers) also removes borrower sessions 180 days after sign-in (every one has ended by
-- then: 30 days unused or 90 days old; the record of how it ended is kept 90 days at least), and contact-form messages
-- a year after support handled them (name, telephone, e-mail and the sender's address had served their purpose).
-- Each is found by these indexes, not a scan of the table.
CREATE INDEX borrower_sessions_created ON borrower_sessions (created_at);
CREATE INDEX contact_messages_handled ON contact_messages (handled_at) WHERE handled_at IS NOT NULL;
