-- The console's audit search filters by action (`order.approve`) or by a family of actions (`payment.`), newest first.
CREATE INDEX audit_log_action ON audit_log (action, at);
