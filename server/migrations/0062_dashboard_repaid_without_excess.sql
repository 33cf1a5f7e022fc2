-- The dashboard's `repaid` counted a credit's excess, which is owed back to the borrower and never repaid: the kept
-- days are forgotten, and the job keeps them again with the figure the dashboard computes now (a day not kept is
-- computed on request meanwhile).
DELETE FROM dashboard_days;
