-- Operators scoped to markets, and passwords an admin set (issue 18 item 7; docs/API-CONSOLE.md, "Markets of an
-- operator" and "A password an admin set").

-- The markets an operator sees, their codes joined by commas (`IN`, `ID` or `IN,ID`): every console read and action
-- is limited to them (server/src/auth/operators.rs, `Operator::may_see`). The operators that exist keep both.
ALTER TABLE operators ADD COLUMN markets TEXT NOT NULL DEFAULT 'IN,ID';

-- 1 while the operator signs in with a password an admin set (created in the console, or reset): until they choose
-- their own, every console endpoint but `me`, `logout` and `password` answers 403 `password_change_required`.
ALTER TABLE operators ADD COLUMN password_change_required BIGINT NOT NULL DEFAULT 0;
