-- The console's audit search filters by a family of actions (`payment.`: every action starting with it). As
-- `action LIKE 'payment.%'` that read the whole trail on both databases: LIKE takes no index on SQLite (it ignores
-- case there) nor on PostgreSQL outside the C collation, and one that matched nothing read every entry (425 ms at
-- 5,000,000 entries on PostgreSQL, 1.6 s on SQLite; docs/PERFORMANCE.md, "The audit search at scale"). This index
-- keys each entry by its action's first part with its dot (`payment.` for `payment.utr`, `site.` for
-- `site.claims.update`, '' for `view_unmasked`), then its time: the search reads one family's entries newest first.
-- Written with `rtrim`, which both databases have, for actions of at most three parts (every entry a debug build
-- writes is checked for it, `store::audit::NewAuditEntry::action`); the search repeats the expression word for word
-- (`store::audit::FAMILY_OF_ACTION`), which is how both databases recognise it.
CREATE INDEX audit_log_family ON audit_log ((CASE WHEN rtrim(rtrim(rtrim(action, 'abcdefghijklmnopqrstuvwxyz0123456789_'), '.'), 'abcdefghijklmnopqrstuvwxyz0123456789_') = '' THEN rtrim(action, 'abcdefghijklmnopqrstuvwxyz0123456789_') ELSE rtrim(rtrim(rtrim(action, 'abcdefghijklmnopqrstuvwxyz0123456789_'), '.'), 'abcdefghijklmnopqrstuvwxyz0123456789_') END), at);
-- The planner's figures for the new index's keys: PostgreSQL gathers an expression's only when it analyses the table,
-- and without them it took a family for 0.5 % of the trail and sorted all of a common one's entries (406 ms for
-- `complaint.`, 3 % of 5,000,000, against 2 ms read in order).
ANALYZE audit_log;
