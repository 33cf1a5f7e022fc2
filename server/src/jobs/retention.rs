//! The telemetry retention job: removes the app's telemetry older than `telemetry.retention_days` (events, errors,
//! devices, push tokens, ratings; a location answer keeps only the answer); its request counters are the limiter's
//! (`rate_limits`), which the rate-limit cleanup removes. In batches of [`BATCH`] rows, each its own transaction, found
//! by the tables' time indexes (migration 0073 adds the devices' and the locations'). Idempotent, so two servers running
//! it at once only delete what is there.

use crate::services::Services;
use crate::store::telemetry::Removed;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// Rows removed per statement, each statement its own transaction.
pub const BATCH: i64 = 1_000;

/// Removes what is older than the retention period, counted from now.
pub async fn run(s: &Services) -> anyhow::Result<Removed> {
    run_in_batches(s, BATCH).await
}

/// [`run`] with batches of `batch` rows.
pub async fn run_in_batches(s: &Services, batch: i64) -> anyhow::Result<Removed> {
    let now = s.clock.now_ms();
    let cutoff = now - i64::from(s.telemetry.retention_days) * DAY_MS;
    Ok(s.db.remove_telemetry_before(cutoff, batch.max(1)).await?)
}
