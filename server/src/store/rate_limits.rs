//! Request limits kept in the database (`rate_limits`), so that every server sharing it counts the same requests.

use super::Db;

/// What counting a request answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// Counted within the limit.
    Allowed,
    /// Refused: the window already holds the limit; it ends at this time (epoch ms).
    Refused { window_ends_at: i64 },
}

impl Db {
    /// Counts one request under `key` at `now`, in a window of `window_ms` that starts with the key's first request
    /// after the previous window ended, unless that window already holds `limit`: one conditional upsert (a new
    /// window replaces a finished one in the same statement), so simultaneous requests can never pass the limit
    /// together, on one server or several.
    pub async fn count_in_window(
        &self,
        key: &str,
        now: i64,
        window_ms: i64,
        limit: u32,
    ) -> sqlx::Result<Counted> {
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
        .bind(key)
        .bind(now)
        .bind(now - window_ms)
        .bind(i64::from(limit))
        .fetch_optional(self.pool())
        .await?;
        if counted.is_some() {
            return Ok(Counted::Allowed);
        }
        let started: Option<i64> =
            sqlx::query_scalar("SELECT window_start FROM rate_limits WHERE key = $1")
                .bind(key)
                .fetch_optional(self.pool())
                .await?;
        Ok(Counted::Refused {
            window_ends_at: started.unwrap_or(now) + window_ms,
        })
    }
}
