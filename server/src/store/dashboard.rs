//! The admin dashboard's figures, computed in SQL on either database: one query per figure, each answering
//! `(day, value)` rows for one market over a window of local days. A day is the market's calendar day, numbered
//! from the epoch (`(ms + offset) / 86 400 000`), or the ledger's business date. A new figure (complaints, when
//! that table exists) is one more query and one more field.

use super::{Db, Tx};

/// One figure's value on one day: `day` is the day number (days since 1970-01-01, local).
#[derive(Debug, Clone, Copy, PartialEq, Eq, kilat_row::FromRow)]
pub struct DayValue {
    pub day: i64,
    pub value: i64,
}

/// One day's change in the open loans and in the overdue ones (or both counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq, kilat_row::FromRow)]
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

/// A day in milliseconds.
pub const DAY_MS: i64 = 86_400_000;

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

/// [`Db::dashboard_status_changes`]'s statement: `$1` market, `$2` offset, `$3` the window's first instant.
/// `MATERIALIZED`: the status before is read once per entry; PostgreSQL and SQLite otherwise inline `moves` and read
/// it once for each of the two sums that use it (docs/PERFORMANCE.md, "Dashboard of the book").
const STATUS_CHANGES: &str = "WITH moves AS MATERIALIZED (
                 SELECT (e.at + $2) / 86400000 AS day, e.status,
                        (SELECT p.status FROM order_events p
                         WHERE p.order_id = e.order_id AND (p.at < e.at OR (p.at = e.at AND p.id < e.id))
                         ORDER BY p.at DESC, p.id DESC LIMIT 1) AS before
                 FROM order_events e JOIN orders o ON o.id = e.order_id
                 WHERE o.market = $1 AND e.at >= $3
             )
             SELECT day,
                    COALESCE(SUM(CASE WHEN status = 'overdue' THEN 1 ELSE 0 END)
                             - SUM(CASE WHEN before = 'overdue' THEN 1 ELSE 0 END), 0) AS overdue,
                    COALESCE(SUM(CASE WHEN status IN ('disbursed', 'overdue') THEN 1 ELSE 0 END)
                             - SUM(CASE WHEN before IN ('disbursed', 'overdue') THEN 1 ELSE 0 END), 0) AS open
             FROM moves GROUP BY day";

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
        self.dashboard_entered(w, "approved").await
    }

    /// Ledger cash kept by business date for entries of `kinds` (with the reversals of such entries, whose cash and
    /// excess are the negation): paid out (`payout`), or received from borrowers and kept — a credit's excess is owed
    /// back to the borrower, never repaid (as collections' `cash_in` counts it). The reversals are a part of their own: joined to
    /// every entry of the days (a `LEFT JOIN` kept for the reversals alone), the statement's estimate grew with the
    /// days' entries and PostgreSQL planned today's few thousand with parallel workers, whose start cost more than
    /// the reads (docs/PERFORMANCE.md, "Dashboard of the book").
    async fn dashboard_cash(&self, w: Window<'_>, kinds: &[&str]) -> sqlx::Result<Vec<DayValue>> {
        let list = kinds
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows: Vec<(String, i64)> = sqlx::query_as(&format!(
            "SELECT on_date, CAST(SUM(cash) AS BIGINT)
             FROM (SELECT e.on_date, e.cash - e.excess AS cash
                   FROM ledger_entries e JOIN orders o ON o.id = e.order_id
                   WHERE o.market = $1 AND e.on_date >= $2 AND e.on_date <= $3 AND e.kind IN ({list})
                   UNION ALL
                   SELECT e.on_date, e.cash - e.excess AS cash
                   FROM ledger_entries e JOIN orders o ON o.id = e.order_id
                   JOIN ledger_entries r ON r.order_id = e.order_id AND r.seq = e.reverses
                   WHERE o.market = $1 AND e.on_date >= $2 AND e.on_date <= $3 AND e.kind = 'reversal'
                     AND r.kind IN ({list})) c
             GROUP BY on_date"
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

    /// What borrowers paid and the loans kept (repayments, payoffs, cooling-off exits, extension fees; not what is
    /// owed back), minor units, by business date.
    pub async fn dashboard_repaid(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        self.dashboard_cash(
            w,
            &["repayment", "payoff", "cooling_off_exit", "extension_fee"],
        )
        .await
    }

    /// The market's loans paid out and not ended now (`disbursed` or `overdue`), and of them `overdue`: read from the
    /// kept book and its moves not folded yet (migration 0052, [`super::book`]), not by counting the open loans.
    pub async fn dashboard_open_now(&self, market: &str) -> sqlx::Result<(i64, i64)> {
        sqlx::query_as(
            "SELECT CAST(COALESCE(SUM(loans), 0) AS BIGINT),
                    CAST(COALESCE(SUM(CASE WHEN status = 'overdue' THEN loans ELSE 0 END), 0) AS BIGINT)
             FROM (SELECT status, loans FROM book_kept WHERE market = $1
                   UNION ALL SELECT status, loans FROM book_moves WHERE market = $1) b",
        )
        .bind(market)
        .fetch_one(self.pool())
        .await
    }

    /// What the timeline entries from the window's first day on (and any later one) changed, by local day: each
    /// entry counts +1 in `open` when it enters `disbursed` or `overdue` from another status and −1 when it leaves
    /// them, and the same for `overdue` alone (the status before an entry is the order's previous entry, read through
    /// the timeline's index). The loans open at the end of day `d` are those open now less the changes of the days
    /// after `d`: only the window's entries are read, never every order ([`STATUS_CHANGES`]).
    pub async fn dashboard_status_changes(&self, w: Window<'_>) -> sqlx::Result<Vec<DayShare>> {
        let (from, _) = w.bounds();
        sqlx::query_as(STATUS_CHANGES)
            .bind(w.market)
            .bind(w.offset_ms)
            .bind(from)
            .fetch_all(self.pool())
            .await
    }

    /// How the database would read [`Db::dashboard_status_changes`]'s statement, a line a step (`EXPLAIN` on
    /// PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite): what the tests check the status before is looked up by, once.
    pub async fn dashboard_status_changes_plan(&self, w: Window<'_>) -> sqlx::Result<Vec<String>> {
        let (from, _) = w.bounds();
        let (explain, column) = self.explain();
        let rows = sqlx::query(&format!("{explain}{STATUS_CHANGES}"))
            .bind(w.market)
            .bind(w.offset_ms)
            .bind(from)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|row| sqlx::Row::try_get::<String, _>(row, column))
            .collect()
    }
}

/// The book of one market now (issue 18 item 10): its open loans (paid out, not ended: `disbursed` or `overdue`)
/// grouped by product and days-past-due bucket. The bucket is the collections' one (`server/src/collections`): the
/// loan's oldest unpaid due date from `loan_arrears` against the bucket dates of the market's today; `current` when it
/// is not past due (no date, or due today or later). Kept as the loans change ([`super::book`]).
#[derive(Debug, Clone, PartialEq, Eq, kilat_row::FromRow)]
pub struct BookRow {
    pub product_code: String,
    pub product_name: String,
    /// `current`, `1-7`, `8-30`, `31-60`, `61-90` or `90+`.
    pub bucket: String,
    pub loans: i64,
    /// Principal scheduled less principal paid, minor units (the ledger's lines).
    pub principal: i64,
    /// Everything still owed (principal, interest, fees, late charges), minor units.
    pub owed: i64,
}

impl Db {
    /// The market's open loans by product and bucket, from the kept book and the moves not folded into it yet
    /// (migration 0052, [`super::book`]): a few hundred rows however many loans are open. `dates` are the collections'
    /// bucket limits for the market's today; a group whose loans and sums are all zero is left out.
    pub async fn dashboard_book(
        &self,
        market: &str,
        dates: &super::collections::BucketDates,
    ) -> sqlx::Result<Vec<BookRow>> {
        sqlx::query_as(
            "WITH kept AS (
                 SELECT product_code, product_name, due, loans, principal, owed FROM book_kept WHERE market = $1
                 UNION ALL
                 SELECT product_code, product_name, due, loans, principal, owed FROM book_moves WHERE market = $1
             ),
             bucketed AS (
                 SELECT product_code, product_name,
                        CASE WHEN due = '' OR due > $6 THEN 'current'
                             WHEN due >= $2 THEN '1-7'
                             WHEN due >= $3 THEN '8-30'
                             WHEN due >= $4 THEN '31-60'
                             WHEN due >= $5 THEN '61-90'
                             ELSE '90+' END AS bucket,
                        loans, principal, owed
                 FROM kept
             )
             SELECT product_code, product_name, bucket, CAST(SUM(loans) AS BIGINT) AS loans,
                    CAST(SUM(principal) AS BIGINT) AS principal, CAST(SUM(owed) AS BIGINT) AS owed
             FROM bucketed GROUP BY product_code, product_name, bucket
             HAVING SUM(loans) <> 0 OR SUM(principal) <> 0 OR SUM(owed) <> 0
             ORDER BY product_code, product_name, bucket",
        )
        .bind(market)
        .bind(&dates.from_7)
        .bind(&dates.from_30)
        .bind(&dates.from_60)
        .bind(&dates.from_90)
        .bind(&dates.yesterday)
        .fetch_all(self.pool())
        .await
    }

    /// What each business date from the window's first day on (and any later one) changed in the market's
    /// outstanding principal: principal scheduled less principal paid, over every loan's ledger lines of that date (a
    /// reversal's lines are the negation of the entry it reverses). The outstanding principal at the end of day `d` is
    /// today's less the changes dated after `d`.
    pub async fn dashboard_principal_changes(&self, w: Window<'_>) -> sqlx::Result<Vec<DayValue>> {
        let rows: Vec<(String, i64)> = sqlx::query_as(
            "SELECT e.on_date, CAST(COALESCE(SUM(l.due_principal - l.paid_principal), 0) AS BIGINT)
             FROM ledger_entries e JOIN orders o ON o.id = e.order_id JOIN ledger_lines l ON l.entry_id = e.id
             WHERE o.market = $1 AND e.on_date >= $2
             GROUP BY e.on_date",
        )
        .bind(w.market)
        .bind(w.first_date())
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

    /// Orders that entered `status` (`approved`, `rejected`) in the window, by the local day of that entry of their
    /// timeline.
    pub async fn dashboard_entered(
        &self,
        w: Window<'_>,
        status: &str,
    ) -> sqlx::Result<Vec<DayValue>> {
        let (from, to) = w.bounds();
        sqlx::query_as(
            "SELECT (e.at + $2) / 86400000 AS day, COUNT(*) AS value
             FROM order_events e JOIN orders o ON o.id = e.order_id
             WHERE o.market = $1 AND e.status = $5 AND e.at >= $3 AND e.at < $4
             GROUP BY (e.at + $2) / 86400000",
        )
        .bind(w.market)
        .bind(w.offset_ms)
        .bind(from)
        .bind(to)
        .bind(status)
        .fetch_all(self.pool())
        .await
    }
}

/// The loans paid out on one local day that waited `minutes` whole minutes from the application to the payout; of
/// them, `on_the_minute` waited exactly that long (to the millisecond).
#[derive(Debug, Clone, Copy, PartialEq, Eq, kilat_row::FromRow)]
pub struct PayoutMinutes {
    pub day: i64,
    pub minutes: i64,
    pub payouts: i64,
    pub on_the_minute: i64,
}

/// Every figure of one local day that the dashboard sums or takes back: kept in `dashboard_days` once the day has
/// ended (migration 0045), computed from the tables for the days after the last one kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, kilat_row::FromRow)]
pub struct DayFlows {
    pub day: i64,
    pub applications: i64,
    pub approvals: i64,
    pub rejections: i64,
    /// Minor units.
    pub paid_out: i64,
    /// Minor units.
    pub repaid: i64,
    pub complaints: i64,
    /// Loans entering less loans leaving `disbursed`/`overdue` (open) that day, and the same for `overdue`.
    pub open_change: i64,
    pub overdue_change: i64,
    /// Minor units: principal scheduled less principal paid by the day's ledger entries.
    pub principal_change: i64,
}

/// Rows a multi-row insert of the payout minutes takes (5 values each, within SQLite's 32,766 bound values).
const MINUTES_PER_INSERT: usize = 1_000;

impl Db {
    /// The loans paid out in the window by local day and whole minutes waited since the application.
    pub async fn dashboard_payout_minutes(
        &self,
        w: Window<'_>,
    ) -> sqlx::Result<Vec<PayoutMinutes>> {
        let (from, to) = w.bounds();
        sqlx::query_as(
            "SELECT (p.created_at + $2) / 86400000 AS day, (p.created_at - o.created_at) / 60000 AS minutes,
                    COUNT(*) AS payouts,
                    CAST(COALESCE(SUM(CASE WHEN (p.created_at - o.created_at) % 60000 = 0 THEN 1 ELSE 0 END), 0)
                         AS BIGINT) AS on_the_minute
             FROM payouts p JOIN orders o ON o.id = p.order_id
             WHERE o.market = $1 AND p.created_at >= $3 AND p.created_at < $4
             GROUP BY (p.created_at + $2) / 86400000, (p.created_at - o.created_at) / 60000",
        )
        .bind(w.market)
        .bind(w.offset_ms)
        .bind(from)
        .bind(to)
        .fetch_all(self.pool())
        .await
    }

    /// The market's kept days from `first_day` to `last_day` (inclusive).
    pub async fn dashboard_kept_days(
        &self,
        market: &str,
        first_day: i64,
        last_day: i64,
    ) -> sqlx::Result<Vec<DayFlows>> {
        sqlx::query_as(
            "SELECT day, applications, approvals, rejections, paid_out, repaid, complaints, open_change,
                    overdue_change, principal_change
             FROM dashboard_days WHERE market = $1 AND day >= $2 AND day <= $3 ORDER BY day",
        )
        .bind(market)
        .bind(first_day)
        .bind(last_day)
        .fetch_all(self.pool())
        .await
    }

    /// The payout minutes of the market's kept days from `first_day` to `last_day` (inclusive).
    pub async fn dashboard_kept_payout_minutes(
        &self,
        market: &str,
        first_day: i64,
        last_day: i64,
    ) -> sqlx::Result<Vec<PayoutMinutes>> {
        sqlx::query_as(
            "SELECT day, minutes, payouts, on_the_minute FROM dashboard_payout_minutes
             WHERE market = $1 AND day >= $2 AND day <= $3",
        )
        .bind(market)
        .bind(first_day)
        .bind(last_day)
        .fetch_all(self.pool())
        .await
    }

    /// Forgets the market's kept days from `day` on (after the development clock moved back: those days will be lived
    /// again). Returns how many days were forgotten.
    pub async fn forget_dashboard_days_from(&self, market: &str, day: i64) -> sqlx::Result<u64> {
        let mut tx = self.begin().await?;
        sqlx::query("DELETE FROM dashboard_payout_minutes WHERE market = $1 AND day >= $2")
            .bind(market)
            .bind(day)
            .execute(tx.conn())
            .await?;
        let done = sqlx::query("DELETE FROM dashboard_days WHERE market = $1 AND day >= $2")
            .bind(market)
            .bind(day)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}

impl Db {
    /// How many times each of the market's days from `first` to `last` had its kept figures forgotten (a day never
    /// forgotten is not listed: none), as committed now.
    pub async fn dashboard_day_forgets(
        &self,
        market: &str,
        first: i64,
        last: i64,
    ) -> sqlx::Result<Vec<(i64, i64)>> {
        sqlx::query_as(
            "SELECT day, generation FROM dashboard_day_forgets WHERE market = $1 AND day >= $2 AND day <= $3",
        )
        .bind(market)
        .bind(first)
        .bind(last)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// How many times the market's `day` (a local day, [`day_of`]) had its kept figures forgotten, with its row locked
    /// for this transaction (migration 0075): it waits for a transaction that forgot the day meanwhile to commit, and
    /// answers the count as that left it.
    pub async fn lock_dashboard_day(&mut self, market: &str, day: i64) -> sqlx::Result<i64> {
        sqlx::query_scalar(
            "INSERT INTO dashboard_day_forgets (market, day, generation) VALUES ($1, $2, 0)
             ON CONFLICT (market, day) DO UPDATE SET generation = dashboard_day_forgets.generation
             RETURNING generation",
        )
        .bind(market)
        .bind(day)
        .fetch_one(self.conn())
        .await
    }

    /// Keeps one ended day's figures and its payout minutes in this transaction, which holds the day's row of
    /// forgets ([`Tx::lock_dashboard_day`]) and found it as it was when the figures were read. A day kept already (by
    /// another runner) is left as it is: false.
    pub async fn keep_dashboard_day(
        &mut self,
        market: &str,
        flows: &DayFlows,
        minutes: &[PayoutMinutes],
        now: i64,
    ) -> sqlx::Result<bool> {
        let kept = sqlx::query(
            "INSERT INTO dashboard_days (market, day, applications, approvals, rejections, paid_out, repaid,
                                         complaints, open_change, overdue_change, principal_change, computed_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (market, day) DO NOTHING",
        )
        .bind(market)
        .bind(flows.day)
        .bind(flows.applications)
        .bind(flows.approvals)
        .bind(flows.rejections)
        .bind(flows.paid_out)
        .bind(flows.repaid)
        .bind(flows.complaints)
        .bind(flows.open_change)
        .bind(flows.overdue_change)
        .bind(flows.principal_change)
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1;
        if !kept {
            return Ok(false);
        }
        // Minutes left by a day forgotten by hand are replaced.
        sqlx::query("DELETE FROM dashboard_payout_minutes WHERE market = $1 AND day = $2")
            .bind(market)
            .bind(flows.day)
            .execute(self.conn())
            .await?;
        for chunk in minutes.chunks(MINUTES_PER_INSERT) {
            let values = (0..chunk.len())
                .map(|r| format!("({})", super::loans::placeholders(r * 5 + 1, 5)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO dashboard_payout_minutes (market, day, minutes, payouts, on_the_minute) VALUES {values}"
            );
            let mut query = sqlx::query(&sql);
            for row in chunk {
                query = query
                    .bind(market)
                    .bind(row.day)
                    .bind(row.minutes)
                    .bind(row.payouts)
                    .bind(row.on_the_minute);
            }
            query.execute(self.conn()).await?;
        }
        Ok(true)
    }

    /// Forgets the market's kept figures of `day` (a local day, [`day_of`]), in the transaction that dates an entry
    /// on it after it ended — money confirmed today for a payment priced yesterday: the dashboard computes the day
    /// again, and the job keeps it again, with that entry.
    pub async fn forget_dashboard_day(&mut self, market: &str, day: i64) -> sqlx::Result<()> {
        // Counted first, the day's row held until this transaction commits: a job that read the day's figures before
        // this entry finds the count moved and keeps nothing; one keeping the day now is waited for, and its row is
        // deleted here.
        sqlx::query(
            "INSERT INTO dashboard_day_forgets (market, day, generation) VALUES ($1, $2, 1)
             ON CONFLICT (market, day) DO UPDATE SET generation = dashboard_day_forgets.generation + 1",
        )
        .bind(market)
        .bind(day)
        .execute(self.conn())
        .await?;
        sqlx::query("DELETE FROM dashboard_days WHERE market = $1 AND day = $2")
            .bind(market)
            .bind(day)
            .execute(self.conn())
            .await?;
        Ok(())
    }
}
