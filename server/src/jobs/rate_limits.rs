//! The rate-limit cleanup: `rate_limits` keeps one row per limit and subject (`crate::infra::limits`), and a row outlives its
//! window until the subject's next request restarts it, so without a sweep the table grows with every address, phone,
//! session and borrower ever counted. The cleanup deletes, in batches, the rows whose window ended at least the
//! longest window of any limit ago. Such a row can no longer refuse anything (a request would start a new window over
//! it), so deleting it changes no answer; the margin of a whole window covers servers whose clocks disagree.
//! Idempotent: servers running it together only delete what is there, so it takes no claim.

use crate::services::Services;

/// The longest window of any limit in `crate::infra::limits::Limits`, the one list.
pub use crate::infra::limits::LONGEST_WINDOW_MS;

/// Rows deleted per statement.
pub const BATCH: i64 = 1_000;

/// The earliest window start the cleanup keeps at `now`: a row whose window started before it ended at least
/// [`LONGEST_WINDOW_MS`] before `now`.
pub fn cutoff_ms(now: i64) -> i64 {
    now - 2 * LONGEST_WINDOW_MS
}

/// Deletes the rows whose window ended long ago, [`BATCH`] at a time; returns how many went.
pub async fn run(s: &Services) -> anyhow::Result<u64> {
    run_in_batches(s, BATCH).await
}

/// [`run`] with batches of `batch` rows.
pub async fn run_in_batches(s: &Services, batch: i64) -> anyhow::Result<u64> {
    let before = cutoff_ms(s.clock.now_ms());
    let mut removed = 0;
    loop {
        let deleted = s.db.delete_rate_limits_before(before, batch).await?;
        removed += deleted;
        // Until a batch finds nothing: a batch short of its size may only mean that another server's sweep took
        // rows from under it, with more left behind.
        if deleted == 0 {
            break;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::limits::Limits;
    use crate::settings::Settings;

    #[test]
    fn the_cleanup_keeps_every_row_of_every_limit_and_as_long_again() {
        let limits = Limits::from_settings(&Settings::load(None).unwrap());
        for limit in limits.all() {
            // A row whose window has just ended is kept, with a whole longest window to spare.
            let now = 10 * LONGEST_WINDOW_MS;
            let just_ended = now - limit.window_ms;
            assert!(
                just_ended - LONGEST_WINDOW_MS >= cutoff_ms(now),
                "{limit:?}"
            );
        }
    }
}
