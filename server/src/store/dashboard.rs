//! The admin dashboard's figures, computed in SQL on either database: one query per figure, each answering
//! `(day, value)` rows for one market over a window of local days. A day is the market's calendar day, numbered
//! from the epoch (`(ms + offset) / 86 400 000`), or the ledger's business date. A new figure (complaints, when
//! that table exists) is one more query and one more field.

use super::Db;

/// One figure's value on one day: `day` is the day number (days since 1970-01-01, local).
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct DayValue {
    pub day: i64,
    pub value: i64,
}

/// One day's share of open loans that are overdue: both counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct DayShare {
    pub day: i64,
    pub overdue: i64,
    pub open: i64,
}

/// The window: market, its UTC offset in ms, and the first and last local day numbers (inclusive).
#[derive(Debug, Clone, Copy)]
pub struct Window<'a> {
    pub market: &'a str,
    pub offset_ms: i64,
    pub first_day: i64,
    pub last_day: i64,
}

const DAY_MS: i64 = 86_400_000;

impl Window<'_> {
    /// The first instant of the window and the first instant after it, epoch ms (UTC).
    fn bounds(&self) -> (i64, i64) {
        (
            self.first_day * DAY_MS - self.offset_ms,
            (self.last_day + 1) * DAY_MS - self.offset_ms,
        )
    }

    fn first_date(&self) -> String {
        date_of(self.first_day)
    }

    fn last_date(&self) -> String {
        date_of(self.last_day)
    }
}

/// `YYYY-MM-DD` of a day number.
pub fn date_of(day: i64) -> String {
    let date = time::Date::from_julian_day(
        i32::try_from(day + 2_440_588).expect("a day number within the calendar"),
    )
    .expect("a day number within the calendar");
    date.to_string()
}

/// The day number of `YYYY-MM-DD`.
pub fn day_of(date: time::Date) -> i64 {
    i64::from(date.to_julian_day()) - 2_440_588
}

impl Db {
    /// Rows of `table` (`orders` or `complaints`: a name from this module, never from input) by the market's local
    /// day of their `created_at`.
    async fn dashboard_created(&self, table: &str, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        let (from, to) = w.bounds();
        let sql = format!(
            "SELECT (created_at + $2) / 86400000 AS day, COUNT(*) AS value FROM {table}
             WHERE market = $1 AND created_at >= $3 AND created_at < $4
             GROUP BY (created_at + $2) / 86400000"
        );
        sqlx::query_as(&sql)
            .bind(w.market)
            .bind(w.offset_ms)
            .bind(from)
            .bind(to)
            .fetch_all(self.pool())
            .await
    }

    /// Orders placed (applications), by the local day they were placed.
    pub async fn dashboard_applications(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        self.dashboard_created("orders", w).await
    }

    /// Complaints received, by the local day they came in.
    pub async fn dashboard_complaints(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        self.dashboard_created("complaints", w).await
    }

    /// Orders approved, by the local day of the approval (the order's timeline).
    pub async fn dashboard_approvals(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        let (from, to) = w.bounds();
        sqlx::query_as(
            "SELECT (e.at + $2) / 86400000 AS day, COUNT(*) AS value
             FROM order_events e JOIN orders o ON o.id = e.order_id
             WHERE o.market = $1 AND e.status = 'approved' AND e.at >= $3 AND e.at < $4
             GROUP BY (e.at + $2) / 86400000",
        )
        .bind(w.market)
        .bind(w.offset_ms)
        .bind(from)
        .bind(to)
        .fetch_all(self.pool())
        .await
    }

    /// Ledger cash by business date for entries of `kinds` (with the reversals of such entries, whose cash is the
    /// negation): paid out (`payout`), or received from borrowers.
    async fn dashboard_cash(&self, w: Window<'_>, kinds: &[&str]) -> sqlx::Result<Vec<DayValue>> {
        let list = kinds
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows: Vec<(String, i64)> = sqlx::query_as(&format!(
            "SELECT e.on_date, CAST(SUM(e.cash) AS BIGINT)
             FROM ledger_entries e JOIN orders o ON o.id = e.order_id
             LEFT JOIN ledger_entries r ON e.kind = 'reversal' AND r.order_id = e.order_id AND r.seq = e.reverses
             WHERE o.market = $1 AND e.on_date >= $2 AND e.on_date <= $3
               AND (e.kind IN ({list}) OR r.kind IN ({list}))
             GROUP BY e.on_date"
        ))
        .bind(w.market)
        .bind(w.first_date())
        .bind(w.last_date())
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .into_iter()
            .filter_map(|(date, value)| {
                super::loans::parse_date(&date).ok().map(|d| DayValue {
                    day: day_of(d),
                    value,
                })
            })
            .collect())
    }

    /// The net amounts paid out, minor units, by business date.
    pub async fn dashboard_paid_out(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        self.dashboard_cash(w, &["payout"]).await
    }

    /// What borrowers paid (repayments, payoffs, cooling-off exits, extension fees), minor units, by business date.
    pub async fn dashboard_repaid(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        self.dashboard_cash(
            w,
            &["repayment", "payoff", "cooling_off_exit", "extension_fee"],
        )
        .await
    }

    /// At the end of each day: loans paid out and not ended (`disbursed` or `overdue` as their last status by then)
    /// and how many of them were overdue.
    pub async fn dashboard_overdue_share(&self, w: Window<'_>) -> sqlx::Result<Vec<DayShare>> {
        let days = w.last_day - w.first_day + 1;
        sqlx::query_as(
            "WITH RECURSIVE days (day, day_end) AS (
                 SELECT $2, ($2 + 1) * 86400000 - $3
                 UNION ALL SELECT day + 1, day_end + 86400000 FROM days WHERE day < $2 + $4 - 1
             ),
             latest AS (
                 SELECT d.day, o.id,
                        (SELECT e.status FROM order_events e WHERE e.order_id = o.id AND e.at < d.day_end
                         ORDER BY e.at DESC, e.id DESC LIMIT 1) AS status
                 FROM days d JOIN orders o ON o.market = $1 AND o.created_at < d.day_end
             )
             SELECT day, COALESCE(SUM(CASE WHEN status = 'overdue' THEN 1 ELSE 0 END), 0) AS overdue,
                    COUNT(*) AS open
             FROM latest WHERE status IN ('disbursed', 'overdue')
             GROUP BY day",
        )
        .bind(w.market)
        .bind(w.first_day)
        .bind(w.offset_ms)
        .bind(days)
        .fetch_all(self.pool())
        .await
    }

    /// The median minutes from application to payout of the loans paid out each local day (the lower of the two
    /// middle values when their number is even).
    pub async fn dashboard_median_minutes_to_payout(
        &self,
        w: Window<'_>,
    ) -> sqlx::Result<Vec<DayValue>> {
        let (from, to) = w.bounds();
        sqlx::query_as(
            "WITH waits AS (
                 SELECT (p.created_at + $2) / 86400000 AS day, (p.created_at - o.created_at) / 60000 AS minutes
                 FROM payouts p JOIN orders o ON o.id = p.order_id
                 WHERE o.market = $1 AND p.created_at >= $3 AND p.created_at < $4
             ),
             ranked AS (
                 SELECT day, minutes,
                        ROW_NUMBER() OVER (PARTITION BY day ORDER BY minutes) AS n,
                        COUNT(*) OVER (PARTITION BY day) AS total
                 FROM waits
             )
             SELECT day, minutes AS value FROM ranked WHERE n = (total + 1) / 2",
        )
        .bind(w.market)
        .bind(w.offset_ms)
        .bind(from)
        .bind(to)
        .fetch_all(self.pool())
        .await
    }
}
