-- Complaints as a conversation until closed (issue 18 item 11, issue 19 item 13). Portable SQL.

-- Support's assignee of a complaint (an operator with the support or admin role), set and changed by one conditional
-- update each, audited; NULL while unassigned.
ALTER TABLE complaints ADD COLUMN assignee_id TEXT;
ALTER TABLE complaints ADD COLUMN assigned_at BIGINT;
CREATE INDEX complaints_assignee ON complaints (assignee_id, created_at);

-- The message a photo was sent with: the borrower's replies may carry photos too. Photos of complaints filed before
-- replies existed came with the complaint's text, its first message.
ALTER TABLE complaint_images ADD COLUMN message_id TEXT;
UPDATE complaint_images SET message_id = (
    SELECT m.id FROM complaint_messages m
    WHERE m.complaint_id = complaint_images.complaint_id AND m.author_kind = 'borrower'
    ORDER BY m.created_at, m.id LIMIT 1
) WHERE complaint_id IS NOT NULL;

-- Support's canned replies, per language (`en` India, `id` Indonesia), kept by support and admins in the console
-- (every change in the audit trail). Inserting one fills the reply box, editable before sending.
CREATE TABLE canned_replies (
    id         TEXT PRIMARY KEY,
    lang       TEXT NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX canned_replies_lang ON canned_replies (lang, title);

-- The market of the site a contact message came from (`IN`, `ID`); NULL for messages sent before it was kept.
ALTER TABLE contact_messages ADD COLUMN market TEXT;
