-- The site's claims (issue 9): the payout-speed and users sentences each market's site shows, edited by admins in the
-- console (audited in audit_log) rather than fixed in the settings file. One row per market, seeded at start-up from
-- the settings' `payout_claim` and `users_claim` when the market has none (`ON CONFLICT DO NOTHING`, so servers
-- starting together seed once and an admin's edit is never overwritten). An empty claim is withdrawn: the site hides it.
CREATE TABLE site_claims (
    market       TEXT PRIMARY KEY,
    payout_claim TEXT NOT NULL,
    users_claim  TEXT NOT NULL,
    updated_at   BIGINT NOT NULL,
    -- The operator who last edited them; NULL while they are the settings' seed.
    updated_by   TEXT REFERENCES operators (id)
);
