//! The borrower app's telemetry: client events (UI, business, errors), the device, push tokens, the one location
//! answer, app ratings, the per-session request counter, and the retention sweep over all of them.

use super::{Db, Tx, new_id};

/// One client event to store.
#[derive(Debug, Clone)]
pub struct NewClientEvent {
    /// `ui`, `business` or `error`.
    pub kind: &'static str,
    pub name: String,
    pub route: Option<String>,
    /// A small JSON object, already serialized.
    pub detail: Option<String>,
    pub occurred_at: i64,
}

/// A stored client event (tests read them).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ClientEventRow {
    pub borrower_id: String,
    pub kind: String,
    pub name: String,
    pub route: Option<String>,
    pub detail: Option<String>,
    pub occurred_at: i64,
    pub created_at: i64,
}

/// The borrower's answer to the location prompt.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LocationRow {
    pub consent: i64,
    pub latitude_e1: Option<i64>,
    pub longitude_e1: Option<i64>,
    pub created_at: i64,
}

/// What the retention sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub events: u64,
    pub devices: u64,
    pub tokens: u64,
    pub locations: u64,
    pub ratings: u64,
}

impl Removed {
    pub fn total(&self) -> u64 {
        self.events + self.devices + self.tokens + self.locations + self.ratings
    }
}

/// Rows per multi-row insert (8 values each, well under SQLite's and PostgreSQL's bind limits).
const INSERT_CHUNK: usize = 100;

impl Db {
    pub async fn location_of(&self, borrower_id: &str) -> sqlx::Result<Option<LocationRow>> {
        sqlx::query_as(
            "SELECT consent, latitude_e1, longitude_e1, created_at FROM borrower_locations WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await
    }

    /// A borrower's client events, oldest first (tests).
    pub async fn client_events_of(&self, borrower_id: &str) -> sqlx::Result<Vec<ClientEventRow>> {
        sqlx::query_as(
            "SELECT borrower_id, kind, name, route, detail, occurred_at, created_at FROM client_events
             WHERE borrower_id = $1 ORDER BY created_at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// A borrower's client events for their data export, newest first, at most `limit`.
    pub async fn client_events_for_export(
        &self,
        borrower_id: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<ClientEventRow>> {
        sqlx::query_as(
            "SELECT borrower_id, kind, name, route, detail, occurred_at, created_at FROM client_events
             WHERE borrower_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        )
        .bind(borrower_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The borrower's device (model, OS, app version, when it last changed, when consent was withdrawn: the details are
    /// then empty).
    #[allow(clippy::type_complexity)]
    pub async fn device_of(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<
        Option<(
            Option<String>,
            Option<String>,
            Option<String>,
            i64,
            Option<i64>,
        )>,
    > {
        sqlx::query_as(
            "SELECT model, os, app_version, updated_at, withdrawn_at FROM borrower_devices WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await
    }

    /// The borrower's push tokens (token, platform, when last sent).
    pub async fn device_tokens_of(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<(String, Option<String>, i64)>> {
        sqlx::query_as(
            "SELECT token, platform, updated_at FROM device_tokens WHERE borrower_id = $1 ORDER BY updated_at, token",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// The borrower's app ratings (score, comment, when), oldest first.
    pub async fn app_ratings_of(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<(i64, Option<String>, i64)>> {
        sqlx::query_as(
            "SELECT score, comment, created_at FROM app_ratings WHERE borrower_id = $1 ORDER BY created_at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// How many rows each telemetry table holds for a borrower: events, devices with their details, tokens, locations
    /// with coordinates, ratings (tests).
    pub async fn telemetry_counts(&self, borrower_id: &str) -> sqlx::Result<[i64; 5]> {
        let row: (i64, i64, i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM client_events WHERE borrower_id = $1),
                    (SELECT COUNT(*) FROM borrower_devices WHERE borrower_id = $1 AND withdrawn_at IS NULL),
                    (SELECT COUNT(*) FROM device_tokens WHERE borrower_id = $1),
                    (SELECT COUNT(*) FROM borrower_locations WHERE borrower_id = $1 AND latitude_e1 IS NOT NULL),
                    (SELECT COUNT(*) FROM app_ratings WHERE borrower_id = $1)",
        )
        .bind(borrower_id)
        .fetch_one(self.pool())
        .await?;
        Ok([row.0, row.1, row.2, row.3, row.4])
    }

    /// Removes telemetry stored before `cutoff` (epoch ms), `batch` rows to a statement, each statement its own
    /// transaction, oldest first: at the site's scale a first run (or one after the period was shortened) meets
    /// millions of rows, and one transaction over them would hold their locks, and a borrower writing their device
    /// row, for the whole run. A location answer keeps only the answer: its coordinates go, so a refusal or consent
    /// is still remembered and the prompt never comes back.
    pub async fn remove_telemetry_before(&self, cutoff: i64, batch: i64) -> sqlx::Result<Removed> {
        let run = async |sql: &str| -> sqlx::Result<u64> {
            let mut total = 0;
            loop {
                let done = sqlx::query(sql)
                    .bind(cutoff)
                    .bind(batch)
                    .execute(self.pool())
                    .await?
                    .rows_affected();
                total += done;
                if done < u64::try_from(batch).unwrap_or(u64::MAX) {
                    return Ok(total);
                }
            }
        };
        Ok(Removed {
            events: run(
                "DELETE FROM client_events WHERE id IN (
                     SELECT id FROM client_events WHERE created_at < $1 ORDER BY created_at LIMIT $2)",
            )
            .await?,
            devices: run(
                "DELETE FROM borrower_devices WHERE updated_at < $1 AND withdrawn_at IS NULL AND borrower_id IN (
                     SELECT borrower_id FROM borrower_devices WHERE updated_at < $1 AND withdrawn_at IS NULL
                     ORDER BY updated_at LIMIT $2)",
            )
            .await?,
            tokens: run(
                "DELETE FROM device_tokens WHERE updated_at < $1 AND (borrower_id, token) IN (
                     SELECT borrower_id, token FROM device_tokens WHERE updated_at < $1 ORDER BY updated_at LIMIT $2)",
            )
            .await?,
            locations: run(
                "UPDATE borrower_locations SET latitude_e1 = NULL, longitude_e1 = NULL
                 WHERE latitude_e1 IS NOT NULL AND borrower_id IN (
                     SELECT borrower_id FROM borrower_locations WHERE created_at < $1 AND latitude_e1 IS NOT NULL
                     ORDER BY created_at LIMIT $2)",
            )
            .await?,
            ratings: run(
                "DELETE FROM app_ratings WHERE id IN (
                     SELECT id FROM app_ratings WHERE created_at < $1 ORDER BY created_at LIMIT $2)",
            )
            .await?,
        })
    }
}

/// The telemetry's writes, each in a transaction that holds the borrower's live row (`Tx::lock_live_borrower`), so
/// none can land after the account's deletion has erased the telemetry.
impl Tx {
    /// Stores a batch of client events of one borrower.
    pub async fn insert_client_events(
        &mut self,
        borrower_id: &str,
        events: &[NewClientEvent],
        now: i64,
    ) -> sqlx::Result<()> {
        for chunk in events.chunks(INSERT_CHUNK) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| {
                    let b = i * 8;
                    format!(
                        "(${}, ${}, ${}, ${}, ${}, ${}, ${}, ${})",
                        b + 1,
                        b + 2,
                        b + 3,
                        b + 4,
                        b + 5,
                        b + 6,
                        b + 7,
                        b + 8
                    )
                })
                .collect();
            let sql = format!(
                "INSERT INTO client_events (id, borrower_id, kind, name, route, detail, occurred_at, created_at)
                 VALUES {}",
                values.join(", ")
            );
            let mut query = sqlx::query(&sql);
            for event in chunk {
                query = query
                    .bind(new_id())
                    .bind(borrower_id)
                    .bind(event.kind)
                    .bind(&event.name)
                    .bind(&event.route)
                    .bind(&event.detail)
                    .bind(event.occurred_at)
                    .bind(now);
            }
            query.execute(self.conn()).await?;
        }
        Ok(())
    }

    /// The borrower's device, replacing the one stored, unless the borrower withdrew consent to it: true when stored.
    pub async fn upsert_device(
        &mut self,
        borrower_id: &str,
        model: &str,
        os: &str,
        app_version: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO borrower_devices (borrower_id, model, os, app_version, updated_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (borrower_id) DO UPDATE
             SET model = excluded.model, os = excluded.os, app_version = excluded.app_version,
                 updated_at = excluded.updated_at
             WHERE borrower_devices.withdrawn_at IS NULL",
        )
        .bind(borrower_id)
        .bind(model)
        .bind(os)
        .bind(app_version)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Withdraws the borrower's consent to their device's details: the details are emptied and the withdrawal kept
    /// (so details sent again with an old consent are not stored); true when there were details.
    pub async fn withdraw_device(&mut self, borrower_id: &str, now: i64) -> sqlx::Result<bool> {
        let emptied = sqlx::query(
            "UPDATE borrower_devices SET model = '', os = '', app_version = '', updated_at = $2, withdrawn_at = $2
             WHERE borrower_id = $1 AND withdrawn_at IS NULL",
        )
        .bind(borrower_id)
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected();
        sqlx::query(
            "INSERT INTO borrower_devices (borrower_id, model, os, app_version, updated_at, withdrawn_at)
             VALUES ($1, '', '', '', $2, $2) ON CONFLICT (borrower_id) DO NOTHING",
        )
        .bind(borrower_id)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(emptied > 0)
    }

    /// Turns a shared location into a refusal: the position is deleted, the answer kept (the prompt is asked once).
    pub async fn withdraw_location(&mut self, borrower_id: &str) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE borrower_locations SET consent = 0, latitude_e1 = NULL, longitude_e1 = NULL
             WHERE borrower_id = $1 AND (consent <> 0 OR latitude_e1 IS NOT NULL OR longitude_e1 IS NOT NULL)",
        )
        .bind(borrower_id)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// A push token of the borrower (seen again: its time is renewed). A token names one device, which one borrower
    /// is signed in on: registered by another borrower (the phone passed on, or a second account signed in on it), it
    /// becomes theirs in the same statement, so the device no longer receives the first borrower's texts.
    pub async fn upsert_device_token(
        &mut self,
        borrower_id: &str,
        token: &str,
        platform: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO device_tokens (borrower_id, token, platform, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (token) DO UPDATE
             SET borrower_id = excluded.borrower_id, platform = excluded.platform,
                 updated_at = excluded.updated_at",
        )
        .bind(borrower_id)
        .bind(token)
        .bind(platform)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Records the borrower's answer to the location prompt unless one is stored: `false` when it was (the prompt
    /// is asked once).
    pub async fn insert_location_once(
        &mut self,
        borrower_id: &str,
        coarse: Option<(i64, i64)>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO borrower_locations (borrower_id, consent, latitude_e1, longitude_e1, created_at)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (borrower_id) DO NOTHING",
        )
        .bind(borrower_id)
        .bind(i64::from(coarse.is_some()))
        .bind(coarse.map(|c| c.0))
        .bind(coarse.map(|c| c.1))
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The borrower's rating of the app, with its comment.
    pub async fn insert_app_rating(
        &mut self,
        borrower_id: &str,
        score: i64,
        comment: Option<&str>,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO app_ratings (id, borrower_id, score, comment, created_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(new_id())
        .bind(borrower_id)
        .bind(score)
        .bind(comment)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(())
    }
}
