//! The admins' dashboard: per market and local day over the last 30 days, applications, approvals, the amounts
//! paid out and repaid, the share of open loans overdue, the complaints received, and the median time from
//! application to payout (the site promises money "within 2 hours" in India). Each figure is one SQL query
//! (`store/dashboard.rs`); this module fills the days a query has no row for.

use std::collections::HashMap;

use kilat_domain::{Code, Currency, Market};

use crate::auth::operators::{Operator, Role};
use crate::error::Error;
use crate::services::Services;
use crate::store::dashboard::{DayValue, Window, date_of, day_of};

/// Who may read the dashboard.
pub const DASHBOARD_ROLES: &[Role] = &[Role::Admin];
/// Days shown, today included.
pub const DAYS: i64 = 30;

/// One local day's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayFigures {
    /// `YYYY-MM-DD`, the market's calendar day.
    pub date: String,
    pub applications: i64,
    pub approvals: i64,
    /// Minor units.
    pub paid_out: i64,
    /// Minor units.
    pub repaid: i64,
    /// Loans paid out and not ended at the day's end, and how many of them were overdue.
    pub open_loans: i64,
    pub overdue_loans: i64,
    /// Complaints received that day.
    pub complaints: i64,
    /// Of the loans paid out that day; `None` when none was.
    pub median_minutes_to_payout: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct Dashboard {
    pub market: Market,
    pub currency: Currency,
    /// Oldest first, one entry per day.
    pub days: Vec<DayFigures>,
}

/// The market's offset from UTC in milliseconds (IST, WIB), as `Market::local_date` uses.
fn offset_ms(market: Market) -> i64 {
    match market {
        Market::India => (5 * 60 + 30) * 60_000,
        Market::Indonesia => 7 * 60 * 60_000,
    }
}

/// The last [`DAYS`] days of `market`, up to its business date (admins).
pub async fn last_days(s: &Services, op: &Operator, market: Market) -> Result<Dashboard, Error> {
    op.require_any(DASHBOARD_ROLES)?;
    op.require_market(market)?;
    let last_day = day_of(s.clock.today(market));
    let window = Window {
        market: market.code(),
        offset_ms: offset_ms(market),
        first_day: last_day - DAYS + 1,
        last_day,
    };
    let by_day = |rows: Vec<DayValue>| -> HashMap<i64, i64> {
        rows.into_iter().map(|r| (r.day, r.value)).collect()
    };
    let applications = by_day(s.db.dashboard_applications(window).await?);
    let approvals = by_day(s.db.dashboard_approvals(window).await?);
    let paid_out = by_day(s.db.dashboard_paid_out(window).await?);
    let repaid = by_day(s.db.dashboard_repaid(window).await?);
    let complaints = by_day(s.db.dashboard_complaints(window).await?);
    let median = by_day(s.db.dashboard_median_minutes_to_payout(window).await?);
    let shares: HashMap<i64, (i64, i64)> =
        s.db.dashboard_overdue_share(window)
            .await?
            .into_iter()
            .map(|r| (r.day, (r.overdue, r.open)))
            .collect();
    let days = (window.first_day..=window.last_day)
        .map(|day| {
            let (overdue_loans, open_loans) = shares.get(&day).copied().unwrap_or_default();
            DayFigures {
                date: date_of(day),
                applications: applications.get(&day).copied().unwrap_or_default(),
                approvals: approvals.get(&day).copied().unwrap_or_default(),
                paid_out: paid_out.get(&day).copied().unwrap_or_default(),
                repaid: repaid.get(&day).copied().unwrap_or_default(),
                open_loans,
                overdue_loans,
                complaints: complaints.get(&day).copied().unwrap_or_default(),
                median_minutes_to_payout: median.get(&day).copied(),
            }
        })
        .collect();
    Ok(Dashboard {
        market,
        currency: market.currency(),
        days,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_agree_with_the_markets_calendars() {
        // 18:29 UTC is 23:59 in India and already the next day in Jakarta.
        let t = time::OffsetDateTime::from_unix_timestamp(1_764_008_940).unwrap(); // 2025-11-24 18:29 UTC
        for market in Market::ALL.iter().copied() {
            let ms = t.unix_timestamp() * 1000;
            let day = (ms + offset_ms(market)).div_euclid(86_400_000);
            assert_eq!(date_of(day), market.local_date(t).to_string(), "{market:?}");
        }
    }
}
