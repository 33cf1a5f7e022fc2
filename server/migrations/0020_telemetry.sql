-- The borrower app's telemetry (server/src/insights/, docs/API-BORROWER.md "Telemetry"), each row kept for
-- `telemetry.retention_days` and then removed by the `telemetry-retention` job. Nothing here holds contacts, SMS,
-- call logs, installed apps or media (PRODUCT.md §2): the columns are the whole of what is collected.

-- UI events (buried points, `kind` = 'ui'), single business events ('business') and client errors ('error'), by
-- borrower. `name` is a short code; `route` the app's route; `detail` a small JSON object (an error's message and
-- stack, an event's properties). `occurred_at` is the client's clock, `created_at` ours (retention counts from it).
CREATE TABLE client_events (
    id          TEXT PRIMARY KEY,
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    route       TEXT,
    detail      TEXT,
    occurred_at BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX client_events_created ON client_events (created_at);

-- The borrower's device: model, OS and app version only, one row per borrower, replaced when it changes.
CREATE TABLE borrower_devices (
    borrower_id TEXT PRIMARY KEY REFERENCES borrowers (id),
    model       TEXT NOT NULL,
    os          TEXT NOT NULL,
    app_version TEXT NOT NULL,
    updated_at  BIGINT NOT NULL
);

-- Push tokens (device-token upload): one row per borrower and token.
CREATE TABLE device_tokens (
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    token       TEXT NOT NULL,
    platform    TEXT NOT NULL,
    updated_at  BIGINT NOT NULL,
    PRIMARY KEY (borrower_id, token)
);

CREATE INDEX device_tokens_updated ON device_tokens (updated_at);

-- The borrower's answer to the location prompt, once: refused (no coordinates), or agreed with the position rounded
-- to a tenth of a degree (about 11 km), kept as whole tenths so no float is stored.
CREATE TABLE borrower_locations (
    borrower_id    TEXT PRIMARY KEY REFERENCES borrowers (id),
    consent        BIGINT NOT NULL,
    latitude_e1    BIGINT,
    longitude_e1   BIGINT,
    created_at     BIGINT NOT NULL
);

-- App ratings (score save): 1 to 5 and an optional comment.
CREATE TABLE app_ratings (
    id          TEXT PRIMARY KEY,
    borrower_id TEXT NOT NULL REFERENCES borrowers (id),
    score       BIGINT NOT NULL,
    comment     TEXT,
    created_at  BIGINT NOT NULL
);

CREATE INDEX app_ratings_created ON app_ratings (created_at);

-- Telemetry requests per session and minute: one conditional upsert counts a request and refuses it past the limit,
-- atomically on both databases. `window_start` is the minute (epoch ms, floored); old windows go with the retention
-- job.
CREATE TABLE telemetry_limits (
    session_key  TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    hits         BIGINT NOT NULL,
    PRIMARY KEY (session_key, window_start)
);
