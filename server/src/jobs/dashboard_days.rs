//! Keeps the dashboard's ended days (migration 0045, `dashboard_days`): each local day of the dashboard's window that
//! ended at least [`SETTLE_MS`] ago and is not kept yet is computed once by the dashboard's own queries
//! ([`crate::dashboard::computed_flows`]) and kept, so a request computes only today from the tables. A day's rows are
//! dated as they happen; the margin lets a transaction that took its time before midnight commit before its day is
//! kept, and an entry dated on an ended day later (money confirmed late) forgets the kept day, to be kept again with
//! it. The day's count of forgets (migration 0075), read before the figures and checked with its row locked when they
//! are kept, keeps figures read before such an entry from being kept after it, without a lock held while they are
//! computed. Runs on every tick of the scheduler (one read of at most 30 rows when
//! nothing is missing); two runners keeping the same day keep it once. The dashboard never depends on it: a day not
//! kept is computed on request.

use std::collections::{HashMap, HashSet};

use kilat_domain::{Code, Market};

use crate::dashboard::{DAYS, computed_flows, offset_ms};
use crate::services::Services;
use crate::store::dashboard::{DAY_MS, DayFlows, Window, day_of};

/// How long after its end a day is kept: a transaction that dated its rows before midnight has committed by then.
pub const SETTLE_MS: i64 = 10 * 60_000;

/// Keeps `market`'s ended days of the dashboard's window that are not kept yet; returns how many this run kept.
pub async fn run(s: &Services, market: Market) -> anyhow::Result<usize> {
    let now = s.clock.now_ms();
    let today = day_of(s.clock.today(market));
    let offset = offset_ms(market);
    // The last day that ended SETTLE_MS ago, and never today.
    let last = ((now + offset - SETTLE_MS).div_euclid(DAY_MS) - 1).min(today - 1);
    let first = today - DAYS + 1;
    if last < first {
        return Ok(0);
    }
    let kept: HashSet<i64> =
        s.db.dashboard_kept_days(market.code(), first, last)
            .await?
            .into_iter()
            .map(|d| d.day)
            .collect();
    let Some(from) = (first..=last).find(|day| !kept.contains(day)) else {
        return Ok(0);
    };
    let window = Window {
        market: market.code(),
        offset_ms: offset,
        first_day: from,
        last_day: last,
    };
    let missing: Vec<i64> = (from..=last).filter(|day| !kept.contains(day)).collect();
    // How often each day was forgotten, read before its figures: an entry dated on it (money confirmed late for a
    // payment priced then) that commits after this read moves the count, and the figures, read without it, are not
    // kept; the next run keeps the day with it. No lock is held while the figures are computed.
    let forgets: HashMap<i64, i64> =
        s.db.dashboard_day_forgets(market.code(), from, last)
            .await?
            .into_iter()
            .collect();
    let (flows, minutes) = computed_flows(s, window).await?;
    let mut tx = s.db.begin().await?;
    let mut written = 0;
    // Oldest first, as a batch of entries forgets its days; each day's row locked, so a transaction that forgot it
    // meanwhile is waited for and seen.
    for day in missing {
        let now_forgotten = tx.lock_dashboard_day(market.code(), day).await?;
        if now_forgotten != forgets.get(&day).copied().unwrap_or(0) {
            continue;
        }
        let flows = flows.get(&day).copied().unwrap_or(DayFlows {
            day,
            ..DayFlows::default()
        });
        let minutes: Vec<_> = minutes.iter().filter(|m| m.day == day).copied().collect();
        if tx
            .keep_dashboard_day(market.code(), &flows, &minutes, now)
            .await?
        {
            written += 1;
        }
    }
    tx.commit().await?;
    Ok(written)
}
