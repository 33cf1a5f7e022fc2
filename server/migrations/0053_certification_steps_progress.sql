-- Every column home reads of a borrower's steps, in one index (docs/PERFORMANCE.md, "Home's statement on
-- PostgreSQL"): home's statement (`store::standing`) then reads the steps from the index alone, without visiting the
-- table's rows, which a borrower writes at different times and so lie on different pages. The primary key
-- (borrower_id, step) still guards uniqueness.
CREATE INDEX certification_steps_progress
    ON certification_steps (borrower_id, step, completed_at, income_minimum, income_below);
