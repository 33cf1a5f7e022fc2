-- When a text the SMS provider failed to send is tried again (jobs::reminders): later after each failed try (1, 2, 5,
-- 10, 20, 40 and 60 minutes), so a provider down for a while is waited out instead of every try being spent within
-- minutes and the reminder given up. Null: at the next run.
ALTER TABLE notification_outbox ADD COLUMN next_try_at BIGINT;
