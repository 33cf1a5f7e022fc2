//! The request limiter's counts (`rate_limits`, one row per limit and subject: `crate::infra::limits`), so that every server
//! sharing the database counts the same requests, and the cleanup of rows whose window ended long ago.

use super::{Db, Tx};

/// A request counted: the requests of the window so far, this one included (above the limit: refused), and when the
/// window started (epoch ms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, kilat_row::FromRow)]
pub struct Hit {
    pub hits: i64,
    pub window_start: i64,
}

/// Counts one request of `$1` at `$2` in a window that starts with the key's first request after the previous
/// window (of `$3` ms) ended: one upsert, so simultaneous requests are counted one after the other on one server or
/// several, and a new window replaces a finished one in the same statement. Every SET expression reads the row as it
/// was, so `hits` and `window_start` restart together. A row the cleanup removed counts as a finished window.
const HIT: &str = "INSERT INTO rate_limits (key, window_start, hits) VALUES ($1, $2, 1)
     ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN rate_limits.window_start <= $2 - $3 THEN 1 ELSE rate_limits.hits + 1 END,
         window_start = CASE WHEN rate_limits.window_start <= $2 - $3 THEN excluded.window_start
                             ELSE rate_limits.window_start END
     RETURNING hits, window_start";

impl Db {
    /// Counts one request of `key` (see [`HIT`]) on its own.
    pub async fn hit_rate_limit(&self, key: &str, now: i64, window_ms: i64) -> sqlx::Result<Hit> {
        sqlx::query_as(HIT)
            .bind(key)
            .bind(now)
            .bind(window_ms)
            .fetch_one(self.pool())
            .await
    }

    /// Uncounts one request of `key` in the window that started at `window_start` (a request that did nothing after
    /// all); a window that restarted since is left alone.
    pub async fn give_back_rate_limit(&self, key: &str, window_start: i64) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE rate_limits SET hits = hits - 1 WHERE key = $1 AND window_start = $2 AND hits > 0",
        )
        .bind(key)
        .bind(window_start)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Forgets one limit's count.
    pub async fn forget_rate_limit(&self, key: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM rate_limits WHERE key = $1")
            .bind(key)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Forgets the counts of `key` and of every key that starts with `prefix` (an operator's, for every address).
    pub async fn forget_rate_limits(&self, key: &str, prefix: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM rate_limits WHERE key = $1 OR key LIKE $2 ESCAPE '\\'")
            .bind(key)
            .bind(format!("{}%", like_escaped(prefix)))
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Of `keys`, those whose window started after `since` and holds at least `max` requests (the limit refuses).
    pub async fn rate_limits_at(
        &self,
        keys: &[String],
        max: i64,
        since: i64,
    ) -> sqlx::Result<Vec<String>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let list = (3..keys.len() + 3)
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT key FROM rate_limits WHERE hits >= $1 AND window_start > $2 AND key IN ({list})"
        );
        let mut query = sqlx::query_scalar(&sql).bind(max).bind(since);
        for key in keys {
            query = query.bind(key);
        }
        query.fetch_all(self.pool()).await
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

impl Tx {
    /// Counts one request of `key` (see [`HIT`]) in this transaction: on PostgreSQL its row stays locked until the
    /// transaction ends, and a rollback uncounts it.
    pub async fn hit_rate_limit(
        &mut self,
        key: &str,
        now: i64,
        window_ms: i64,
    ) -> sqlx::Result<Hit> {
        sqlx::query_as(HIT)
            .bind(key)
            .bind(now)
            .bind(window_ms)
            .fetch_one(self.conn())
            .await
    }

    /// Forgets the counts of `keys` (an erased phone's), by the primary key.
    pub async fn forget_rate_limit_keys(&mut self, keys: &[String]) -> sqlx::Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let sql = format!(
            "DELETE FROM rate_limits WHERE key IN ({})",
            super::loans::placeholders(1, keys.len())
        );
        let mut query = sqlx::query(&sql);
        for key in keys {
            query = query.bind(key);
        }
        query.execute(self.conn()).await?;
        Ok(())
    }
}

/// `s` with LIKE's wildcards taken literally (limit names have `_`), escaped by a backslash.
fn like_escaped(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}
