//! The rate-limit cleanup: `rate_limits` keeps one row per key and window (`export:<borrower id>`), and a key's row
//! outlives its window until the key's next request restarts it, so without a sweep the table grows with every
//! borrower who ever exported. The cleanup deletes, in batches, the rows whose window ended at least the longest
//! window of [`COUNTED`] ago. Such a row can no longer refuse anything (a request would start a new window over it),
//! so deleting it changes no answer; the margin of a whole window covers servers whose clocks disagree. Idempotent:
//! servers running it together only delete what is there, so it takes no claim.

use crate::account;
use crate::services::Services;
use crate::store::rate_limits::Limit;

/// Every limit counted in `rate_limits`. A new one must be listed here (a test in `architecture.rs` fails otherwise),
/// so that its window is within [`LONGEST_WINDOW_MS`] and the cleanup never removes a row still inside its window.
pub const COUNTED: &[&Limit] = &[&account::EXPORT_LIMIT];

/// The longest window of [`COUNTED`].
pub const LONGEST_WINDOW_MS: i64 = longest_window_ms(COUNTED);

/// Rows deleted per statement.
pub const BATCH: i64 = 1_000;

const fn longest_window_ms(limits: &[&Limit]) -> i64 {
    let mut longest = 0;
    let mut i = 0;
    while i < limits.len() {
        if limits[i].window_ms > longest {
            longest = limits[i].window_ms;
        }
        i += 1;
    }
    longest
}

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
        if deleted < u64::try_from(batch)? {
            break;
        }
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cleanup_keeps_every_row_of_the_longest_window_and_as_long_again() {
        assert_eq!(LONGEST_WINDOW_MS, account::EXPORT_LIMIT.window_ms);
        assert_eq!(LONGEST_WINDOW_MS, 60 * 60 * 1000);
        let longer = Limit {
            scope: "x",
            window_ms: 7 * 24 * 60 * 60 * 1000,
            max: 1,
        };
        assert_eq!(
            longest_window_ms(&[&account::EXPORT_LIMIT, &longer]),
            longer.window_ms
        );
        for limit in COUNTED {
            // A row whose window has just ended is kept, with a whole longest window to spare.
            let now = 10 * LONGEST_WINDOW_MS;
            let just_ended = now - limit.window_ms;
            assert!(just_ended - LONGEST_WINDOW_MS >= cutoff_ms(now));
        }
    }
}
