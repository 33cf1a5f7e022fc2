//! Request limits kept in the database (`rate_limits`), so that every server sharing it counts the same requests, and
//! the cleanup of rows whose window ended long ago.

use super::Db;

/// A limit counted in `rate_limits`: at most `max` requests per subject in a window of `window_ms` that starts with
/// the subject's first request. Its rows are keyed `<scope>:<subject>`. Every such limit is a `const` listed in
/// `jobs::rate_limits::COUNTED`, whose longest window decides which rows the cleanup may remove (a test in
/// `architecture.rs` holds that).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub scope: &'static str,
    pub window_ms: i64,
    pub max: u32,
}

/// What counting a request answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Counted within the limit.
    Allowed,
    /// Refused: the window already holds the limit; it ends at this time (epoch ms).
    Refused { window_ends_at: i64 },
}

impl Db {
    /// Counts one request of `subject` under `limit` at `now`, in a window that starts with the subject's first
    /// request after the previous window ended, unless that window already holds `limit.max`: one conditional upsert
    /// (a new window replaces a finished one in the same statement), so simultaneous requests can never pass the
    /// limit together, on one server or several. A row the cleanup removed counts as a finished window.
    pub async fn count_in_window(
        &self,
        limit: &Limit,
        subject: &str,
        now: i64,
    ) -> sqlx::Result<Counted> {
        let key = format!("{}:{subject}", limit.scope);
        let window_ms = limit.window_ms;
        // Every SET expression reads the row as it was, so `hits` and `window_start` restart together.
        let counted: Option<i64> = sqlx::query_scalar(
            "INSERT INTO rate_limits (key, window_start, hits) VALUES ($1, $2, 1)
             ON CONFLICT (key) DO UPDATE SET
                 hits = CASE WHEN rate_limits.window_start <= $3 THEN 1 ELSE rate_limits.hits + 1 END,
                 window_start = CASE WHEN rate_limits.window_start <= $3 THEN excluded.window_start
                                     ELSE rate_limits.window_start END
             WHERE rate_limits.window_start <= $3 OR rate_limits.hits < $4
             RETURNING hits",
        )
        .bind(&key)
        .bind(now)
        .bind(now - window_ms)
        .bind(i64::from(limit.max))
        .fetch_optional(self.pool())
        .await?;
        if counted.is_some() {
            return Ok(Counted::Allowed);
        }
        let started: Option<i64> =
            sqlx::query_scalar("SELECT window_start FROM rate_limits WHERE key = $1")
                .bind(&key)
                .fetch_optional(self.pool())
                .await?;
        Ok(Counted::Refused {
            window_ends_at: started.unwrap_or(now) + window_ms,
        })
    }

    /// Deletes up to `batch` rows whose window started before `before` (the cleanup passes a time long enough ago that
    /// every such window has ended), oldest first, in one statement; returns how many went. The delete checks the
    /// window again on the row itself, so a row a request restarted meanwhile (a new window) is kept: on PostgreSQL
    /// the delete waits for that request's statement and reads the row as it left it; SQLite runs one at a time.
    pub async fn delete_rate_limits_before(&self, before: i64, batch: i64) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "DELETE FROM rate_limits WHERE window_start < $1 AND key IN (
                 SELECT key FROM rate_limits WHERE window_start < $1 ORDER BY window_start LIMIT $2)",
        )
        .bind(before)
        .bind(batch)
        .execute(self.pool())
        .await?
        .rows_affected())
    }
}
