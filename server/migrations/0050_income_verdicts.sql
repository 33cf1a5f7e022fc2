-- The job step's income against its market's minimum, written with the step, so that home and an application decide
-- eligibility without decrypting the step (docs/PERFORMANCE.md, "Home without decrypting"). The income itself stays
-- sealed in `data_enc`; these say only whether it is under the minimum:
-- - `income_minimum`: the minimum it was compared with, in minor units of the market's period (a month in India, a
--   year in Indonesia);
-- - `income_below`: 1 when the income is under that minimum, 0 when it is not.
-- NULL on the other steps. A job step without them, or compared with a minimum that is no longer the market's
-- (`certification::min_income`), is decided from its sealed value, as before. The first start after this migration
-- writes them for the job steps saved before it, while the `income_verdict_backfill_pending` row exists (deleted in
-- the same transaction, so two servers starting at once do it once).
ALTER TABLE certification_steps ADD COLUMN income_minimum BIGINT;
ALTER TABLE certification_steps ADD COLUMN income_below BIGINT;
CREATE TABLE income_verdict_backfill_pending (
    id BIGINT PRIMARY KEY
);
INSERT INTO income_verdict_backfill_pending (id) VALUES (1);
