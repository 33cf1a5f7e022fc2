//! Development only: the SQL of `kilat dev seed` (`jobs::dataset`), a book at scale written in set-based statements.
//!
//! Borrowers carry per-row sealed PII, so they come from the application in multi-row inserts. Everything else is
//! made by the database: a staging table `dev_seed_orders` numbers the orders (`INSERT … SELECT` over a generated
//! series: `generate_series` on PostgreSQL, a recursive CTE on SQLite) and gives each its borrower, market, status and
//! age, then ranks them by creation time; orders, loans, payouts, ledgers, arrears, payments and UTRs are then
//! `INSERT … SELECT`s, a batch of that ranking at a time (oldest first, as a live book's rows are appended), joining
//! it to a few template tables the application fills once (`dev_seed_templates`: one accepted KFS per market;
//! `dev_seed_plans`, `dev_seed_entries`, `dev_seed_lines`: the plan and ledger of a loan paid out `days_back` days
//! ago, per market).
//! The helper tables are dropped at the end.

use super::certification::IncomeVerdict;
use super::loans::placeholders;
use super::{Db, Tx};

/// A borrower to write, PII sealed by the caller.
pub struct SeedBorrower {
    pub id: String,
    pub market: &'static str,
    pub phone_hash: String,
    pub phone_enc: String,
    pub phone_masked: String,
    pub created_at: i64,
    pub steps: Vec<SeedStep>,
    /// (field, kind, keyed hash).
    pub fingerprints: Vec<(&'static str, &'static str, String)>,
}

/// A certification step to write: its code, its sealed JSON, and the job step's income verdict.
pub struct SeedStep {
    pub step: &'static str,
    pub data_enc: String,
    pub income: Option<IncomeVerdict>,
}

/// The accepted KFS every seeded order of a market copies.
pub struct SeedTemplate<'a> {
    pub market: &'a str,
    pub product_code: &'a str,
    pub product_name: &'a str,
    pub product_version: i64,
    pub term_code: &'a str,
    pub currency: &'a str,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: &'a str,
    pub kfs_json: &'a str,
    pub kfs_hash: &'a str,
}

/// The plan of a loan of `market` paid out `days_back` days before the market's business date.
pub struct SeedPlan {
    pub market: &'static str,
    pub days_back: i64,
    pub payout_date: String,
    pub plan_json: String,
    /// The first installment's due date (the arrears date of a loan that paid nothing).
    pub first_due: String,
    /// Minor units: the first installment's total (a `due` payment's amount).
    pub first_total: i64,
    /// Epoch ms: when a repaid loan closed (its repayment's date).
    pub repaid_at: i64,
    /// Minor units: the repayment that closed a repaid loan.
    pub repaid_cash: i64,
}

/// One ledger entry of a template plan; `repaid_only` entries are posted only for repaid loans.
pub struct SeedEntry {
    pub market: &'static str,
    pub days_back: i64,
    pub seq: i64,
    pub kind: &'static str,
    pub on_date: String,
    pub cash: i64,
    pub excess: i64,
    pub refunded: i64,
    pub repaid_only: bool,
    /// (installment, due late charges, fees, interest, principal, paid late charges, fees, interest, principal)
    pub lines: Vec<[i64; 9]>,
}

/// What the staging step decides per order: the status codes and ages the statements use.
pub struct SeedMix<'a> {
    /// The prefix of every id (`sd<tag>-`).
    pub prefix: &'a str,
    /// The prefix of every order number (`KL-SD<tag>-`).
    pub order_prefix: &'a str,
    pub borrowers: i64,
    pub now: i64,
}

/// Rows per multi-row insert of borrowers (7 values each; their fingerprints 4, five per borrower, in one insert;
/// their steps 7, five per borrower, in inserts of [`STEPS_PER_INSERT`]): under SQLite's 32,766 parameters and
/// PostgreSQL's 65,535.
pub const BORROWERS_PER_INSERT: usize = 1_000;
const STEPS_PER_INSERT: usize = 4_000;

const DAY_MS: i64 = 86_400_000;

/// How long before `now` staged order `s` was created, in milliseconds: `days_back` days (the day of its payout for a
/// loan), then up to 12 hours within that day for the queues' newest, and an hour more. Written into each order by
/// [`Db::write_seed_orders`] and ranked by [`Db::rank_seed_orders`]: one expression, so the two cannot disagree.
fn seed_age_ms() -> String {
    format!("(s.days_back * {DAY_MS} + (s.i % 43200) * 1000 + 3600000)")
}

impl Db {
    /// Creates the helper tables (dropped first if a failed run left them).
    pub async fn create_seed_tables(&self) -> sqlx::Result<()> {
        self.drop_seed_tables().await?;
        for sql in [
            "CREATE TABLE dev_seed_orders (i BIGINT PRIMARY KEY, order_id TEXT NOT NULL, borrower_id TEXT NOT NULL,
                 market TEXT NOT NULL, status TEXT NOT NULL, days_back BIGINT NOT NULL, r BIGINT)",
            "CREATE TABLE dev_seed_templates (market TEXT PRIMARY KEY, product_code TEXT NOT NULL,
                 product_name TEXT NOT NULL, product_version BIGINT NOT NULL, term_code TEXT NOT NULL,
                 currency TEXT NOT NULL, amount BIGINT NOT NULL, net_disbursed BIGINT NOT NULL,
                 total_repayable BIGINT NOT NULL, apr BIGINT NOT NULL, apr_display TEXT NOT NULL,
                 kfs_json TEXT NOT NULL, kfs_hash TEXT NOT NULL)",
            "CREATE TABLE dev_seed_plans (market TEXT NOT NULL, days_back BIGINT NOT NULL, payout_date TEXT NOT NULL,
                 plan_json TEXT NOT NULL, first_due TEXT NOT NULL, first_total BIGINT NOT NULL,
                 repaid_at BIGINT NOT NULL, repaid_cash BIGINT NOT NULL, PRIMARY KEY (market, days_back))",
            "CREATE TABLE dev_seed_entries (market TEXT NOT NULL, days_back BIGINT NOT NULL, seq BIGINT NOT NULL,
                 kind TEXT NOT NULL, on_date TEXT NOT NULL, cash BIGINT NOT NULL, excess BIGINT NOT NULL,
                 refunded BIGINT NOT NULL, repaid_only BIGINT NOT NULL, PRIMARY KEY (market, days_back, seq))",
            "CREATE TABLE dev_seed_lines (market TEXT NOT NULL, days_back BIGINT NOT NULL, seq BIGINT NOT NULL,
                 installment BIGINT NOT NULL, due_late_charges BIGINT NOT NULL, due_fees BIGINT NOT NULL,
                 due_interest BIGINT NOT NULL, due_principal BIGINT NOT NULL, paid_late_charges BIGINT NOT NULL,
                 paid_fees BIGINT NOT NULL, paid_interest BIGINT NOT NULL, paid_principal BIGINT NOT NULL,
                 PRIMARY KEY (market, days_back, seq, installment))",
        ] {
            sqlx::query(sql).execute(self.pool()).await?;
        }
        Ok(())
    }

    /// How many borrowers there are (the seeds number their phones after them).
    pub async fn borrower_count(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM borrowers")
            .fetch_one(self.pool())
            .await
    }

    /// Refreshes the planner's statistics after a bulk load.
    pub async fn analyze(&self) -> sqlx::Result<()> {
        sqlx::query("ANALYZE").execute(self.pool()).await?;
        Ok(())
    }

    pub async fn drop_seed_tables(&self) -> sqlx::Result<()> {
        for table in [
            "dev_seed_orders",
            "dev_seed_templates",
            "dev_seed_plans",
            "dev_seed_entries",
            "dev_seed_lines",
        ] {
            sqlx::query(&format!("DROP TABLE IF EXISTS {table}"))
                .execute(self.pool())
                .await?;
        }
        Ok(())
    }

    /// Fills the template tables.
    pub async fn insert_seed_templates(
        &self,
        templates: &[SeedTemplate<'_>],
        plans: &[SeedPlan],
        entries: &[SeedEntry],
    ) -> sqlx::Result<()> {
        for t in templates {
            sqlx::query(
                "INSERT INTO dev_seed_templates (market, product_code, product_name, product_version, term_code,
                     currency, amount, net_disbursed, total_repayable, apr, apr_display, kfs_json, kfs_hash)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
            )
            .bind(t.market)
            .bind(t.product_code)
            .bind(t.product_name)
            .bind(t.product_version)
            .bind(t.term_code)
            .bind(t.currency)
            .bind(t.amount)
            .bind(t.net_disbursed)
            .bind(t.total_repayable)
            .bind(t.apr)
            .bind(t.apr_display)
            .bind(t.kfs_json)
            .bind(t.kfs_hash)
            .execute(self.pool())
            .await?;
        }
        for chunk in plans.chunks(200) {
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 8 + 1, 8)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO dev_seed_plans (market, days_back, payout_date, plan_json, first_due, first_total,
                     repaid_at, repaid_cash) VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for p in chunk {
                q = q
                    .bind(p.market)
                    .bind(p.days_back)
                    .bind(p.payout_date.as_str())
                    .bind(p.plan_json.as_str())
                    .bind(p.first_due.as_str())
                    .bind(p.first_total)
                    .bind(p.repaid_at)
                    .bind(p.repaid_cash);
            }
            q.execute(self.pool()).await?;
        }
        for chunk in entries.chunks(200) {
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 9 + 1, 9)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO dev_seed_entries (market, days_back, seq, kind, on_date, cash, excess, refunded,
                     repaid_only) VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for e in chunk {
                q = q
                    .bind(e.market)
                    .bind(e.days_back)
                    .bind(e.seq)
                    .bind(e.kind)
                    .bind(e.on_date.as_str())
                    .bind(e.cash)
                    .bind(e.excess)
                    .bind(e.refunded)
                    .bind(i64::from(e.repaid_only));
            }
            q.execute(self.pool()).await?;
        }
        let lines: Vec<(&SeedEntry, &[i64; 9])> = entries
            .iter()
            .flat_map(|e| e.lines.iter().map(move |l| (e, l)))
            .collect();
        for chunk in lines.chunks(500) {
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 12 + 1, 12)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO dev_seed_lines (market, days_back, seq, installment, due_late_charges, due_fees,
                     due_interest, due_principal, paid_late_charges, paid_fees, paid_interest, paid_principal)
                 VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for (e, l) in chunk {
                q = q.bind(e.market).bind(e.days_back).bind(e.seq);
                for v in l.iter() {
                    q = q.bind(*v);
                }
            }
            q.execute(self.pool()).await?;
        }
        Ok(())
    }

    /// The series `n (i)` from `$1` to `$2`, as a CTE of this database.
    fn series(&self) -> &'static str {
        if self.is_sqlite() {
            "WITH RECURSIVE n (i) AS (SELECT CAST($1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i < $2)"
        } else {
            "WITH n (i) AS (SELECT generate_series(CAST($1 AS BIGINT), CAST($2 AS BIGINT)))"
        }
    }
}

impl Tx {
    /// Writes borrowers with their phones, certification steps and fingerprints, in multi-row inserts.
    pub async fn insert_seed_borrowers(&mut self, borrowers: &[SeedBorrower]) -> sqlx::Result<()> {
        for chunk in borrowers.chunks(BORROWERS_PER_INSERT) {
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 7 + 1, 7)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO borrowers (id, market, phone_hash, phone_enc, phone_masked, created_at, last_login_at)
                 VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for b in chunk {
                q = q
                    .bind(b.id.as_str())
                    .bind(b.market)
                    .bind(b.phone_hash.as_str())
                    .bind(b.phone_enc.as_str())
                    .bind(b.phone_masked.as_str())
                    .bind(b.created_at)
                    .bind(b.created_at);
            }
            q.execute(self.conn()).await?;
            let steps: Vec<(&SeedBorrower, &SeedStep)> = chunk
                .iter()
                .flat_map(|b| b.steps.iter().map(move |s| (b, s)))
                .collect();
            for part in steps.chunks(STEPS_PER_INSERT) {
                let rows = (0..part.len())
                    .map(|r| format!("({})", placeholders(r * 7 + 1, 7)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let sql = format!(
                    "INSERT INTO certification_steps (borrower_id, step, data_enc, income_minimum, income_below,
                       completed_at, updated_at)
                     VALUES {rows}"
                );
                let mut q = sqlx::query(&sql);
                for (b, step) in part {
                    q = q
                        .bind(b.id.as_str())
                        .bind(step.step)
                        .bind(step.data_enc.as_str())
                        .bind(step.income.map(|v| v.minimum))
                        .bind(step.income.map(|v| i64::from(v.below)))
                        .bind(b.created_at)
                        .bind(b.created_at);
                }
                q.execute(self.conn()).await?;
            }
            let prints: Vec<(&SeedBorrower, &(&'static str, &'static str, String))> = chunk
                .iter()
                .flat_map(|b| b.fingerprints.iter().map(move |f| (b, f)))
                .collect();
            for part in prints.chunks(BORROWERS_PER_INSERT * 5) {
                let rows = (0..part.len())
                    .map(|r| format!("({})", placeholders(r * 4 + 1, 4)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let sql = format!(
                    "INSERT INTO borrower_fingerprints (borrower_id, field, kind, hash) VALUES {rows}"
                );
                let mut q = sqlx::query(&sql);
                for (b, (field, kind, hash)) in part {
                    q = q
                        .bind(b.id.as_str())
                        .bind(*field)
                        .bind(*kind)
                        .bind(hash.as_str());
                }
                q.execute(self.conn()).await?;
            }
        }
        Ok(())
    }
}

/// The status and age (`days_back`: days before the business date of its payout, or of its creation) of order `i`
/// of the staging step. The first `borrowers` orders (one per borrower) are each borrower's latest: open ones among
/// them; the rest are older, closed orders. Spread per mille by `h = i × 7919 mod 1000`, which takes each value once
/// in every thousand orders (7919 and 1000 share no factor). An overdue order's age is its `h`'s (33 to 162 days, each
/// once a thousand): its first installment is then 2 to about 132 days past due, every bucket held on every business
/// date (an age by `i` left the first week's bucket of India empty on about three days in seven, as month lengths
/// moved the due dates).
fn staging_select() -> &'static str {
    "SELECT i, $3 || 'o' || substr(CAST(1000000000 + i AS TEXT), 2),
            $3 || 'b' || substr(CAST(1000000000 + (i % $4) AS TEXT), 2),
            CASE WHEN (i % $4) % 5 < 3 THEN 'IN' ELSE 'ID' END,
            CASE WHEN i < $4 THEN
                     CASE WHEN h < 50 THEN 'pending_review' WHEN h < 70 THEN 'approved' WHEN h < 470 THEN 'disbursed'
                          WHEN h < 600 THEN 'overdue' WHEN h < 800 THEN 'repaid' WHEN h < 950 THEN 'rejected'
                          ELSE 'cancelled' END
                 ELSE CASE WHEN h < 600 THEN 'repaid' WHEN h < 900 THEN 'rejected' ELSE 'cancelled' END
            END,
            CASE WHEN i < $4 THEN
                     CASE WHEN h < 70 THEN 0 WHEN h < 470 THEN i % 21 WHEN h < 600 THEN 33 + (h - 470)
                          WHEN h < 800 THEN 181 + i % 185 ELSE 1 + i % 30 END
                 ELSE 366 + i % 365
            END
     FROM (SELECT i, (i * 7919) % 1000 AS h FROM n) x"
}

impl Db {
    /// Stages orders `first..=last`: their ids, borrowers, markets, statuses and ages.
    pub async fn stage_seed_orders(
        &self,
        mix: &SeedMix<'_>,
        first: i64,
        last: i64,
    ) -> sqlx::Result<()> {
        let sql = format!(
            "{} INSERT INTO dev_seed_orders (i, order_id, borrower_id, market, status, days_back) {}",
            self.series(),
            staging_select()
        );
        sqlx::query(&sql)
            .bind(first)
            .bind(last)
            .bind(mix.prefix)
            .bind(mix.borrowers)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Numbers the staged orders in the order they were created (`r`, from 0: the oldest first, ties by `i`), which
    /// [`Db::write_seed_orders`] writes them in. A live book's rows are appended as orders come, so the newest (the
    /// queues' rows: in review, approved, paid out today) sit together at the end of each table; written in the
    /// staging's order instead, the 15,000 orders in review of a 1,000,000-order book lay about one to a heap page
    /// across the table, and counting them touched 12,874 buffers (126 in creation order) — the console benchmark
    /// measured the seed's layout rather than the queries.
    pub async fn rank_seed_orders(&self) -> sqlx::Result<()> {
        let age = seed_age_ms();
        sqlx::query(&format!(
            "UPDATE dev_seed_orders SET r = x.r
             FROM (SELECT s.i, ROW_NUMBER() OVER (ORDER BY {age} DESC, s.i) - 1 AS r FROM dev_seed_orders s) x
             WHERE dev_seed_orders.i = x.i"
        ))
        .execute(self.pool())
        .await?;
        sqlx::query("CREATE UNIQUE INDEX dev_seed_orders_r ON dev_seed_orders (r)")
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Writes the orders ranked `first..=last` by [`Db::rank_seed_orders`] and everything that hangs off them, oldest
    /// first, one statement per table, in one transaction. Returns the rows written per table.
    pub async fn write_seed_orders(
        &self,
        mix: &SeedMix<'_>,
        first: i64,
        last: i64,
    ) -> sqlx::Result<Vec<(&'static str, u64)>> {
        let range = "s.r >= $1 AND s.r <= $2";
        let loan_statuses = "('disbursed', 'overdue', 'repaid')";
        // Orders: created `seed_age_ms` before now; closed an hour after creation (a repaid loan: on its repayment's
        // day).
        let created = format!("($3 - {})", seed_age_ms());
        let statements: Vec<(&'static str, String)> = vec![
            (
                "orders",
                format!(
                    "INSERT INTO orders (id, order_no, borrower_id, market, product_code, product_name, term_code,
                         currency, amount, net_disbursed, total_repayable, apr, apr_display, status, kfs_json,
                         kfs_hash, idempotency_key, request_hash, created_at, updated_at, closed_at, review_reason,
                         product_version)
                     SELECT s.order_id, $4 || substr(CAST(1000000000 + s.i AS TEXT), 2), s.borrower_id, s.market,
                         t.product_code, t.product_name, t.term_code, t.currency, t.amount, t.net_disbursed,
                         t.total_repayable, t.apr, t.apr_display, s.status, t.kfs_json, t.kfs_hash,
                         'seed-' || s.order_id, 'seed', {created},
                         CASE WHEN s.status = 'repaid' THEN p.repaid_at ELSE {created} + 3600000 END,
                         CASE WHEN s.status = 'repaid' THEN p.repaid_at
                              WHEN s.status IN ('rejected', 'cancelled') THEN {created} + 3600000 END,
                         CASE WHEN s.status = 'rejected' THEN 'We could not verify your income.' END,
                         t.product_version
                     FROM dev_seed_orders s JOIN dev_seed_templates t ON t.market = s.market
                     LEFT JOIN dev_seed_plans p ON p.market = s.market AND p.days_back = s.days_back
                     WHERE {range} ORDER BY s.r"
                ),
            ),
            (
                "order_events",
                format!(
                    "INSERT INTO order_events (id, order_id, status, actor, at, event)
                     SELECT s.order_id || '-approved', s.order_id, 'approved', 'operator', {created} + 1800000,
                         'approve'
                     FROM dev_seed_orders s WHERE {range} AND s.status <> 'pending_review'
                         AND s.status <> 'rejected' AND s.status <> 'cancelled'"
                ),
            ),
            (
                "loans",
                format!(
                    "INSERT INTO loans (order_id, payout_date, plan_json, created_at)
                     SELECT s.order_id, p.payout_date, p.plan_json, {created} + 3600000
                     FROM dev_seed_orders s JOIN dev_seed_plans p ON p.market = s.market AND p.days_back = s.days_back
                     WHERE {range} AND s.status IN {loan_statuses}"
                ),
            ),
            (
                "payouts",
                format!(
                    "INSERT INTO payouts (id, order_id, provider, bank_reference, amount, created_at)
                     SELECT s.order_id || '-payout', s.order_id, 'manual', 'SEED' || substr(CAST(1000000000 + s.i AS TEXT), 2),
                         t.net_disbursed, {created} + 3600000
                     FROM dev_seed_orders s JOIN dev_seed_templates t ON t.market = s.market
                     WHERE {range} AND s.status IN {loan_statuses}"
                ),
            ),
            // About one open loan in fifty has a `due` payment whose UTR waits for finance.
            (
                "payments",
                format!(
                    "INSERT INTO payments (id, order_id, borrower_id, choice, method, installment, installment_to,
                         amount, currency, priced_on, status, reference, idempotency_key, created_at, updated_at)
                     SELECT s.order_id || '-pay', s.order_id, s.borrower_id, 'due',
                         CASE WHEN s.market = 'IN' THEN 'upi' ELSE 'bank_transfer' END, 1, 1, p.first_total,
                         t.currency, p.payout_date, 'verifying', $4 || 'P' || substr(CAST(1000000000 + s.i AS TEXT), 2),
                         'seed-pay-' || s.order_id, $3 - (s.i % 86400) * 1000, $3 - (s.i % 86400) * 1000
                     FROM dev_seed_orders s JOIN dev_seed_plans p ON p.market = s.market AND p.days_back = s.days_back
                     JOIN dev_seed_templates t ON t.market = s.market
                     WHERE {range} AND s.status IN ('disbursed', 'overdue') AND s.i % 50 = 7"
                ),
            ),
            (
                "payment_utrs",
                format!(
                    "INSERT INTO payment_utrs (utr, payment_id, submitted_at)
                     SELECT '9' || substr(CAST(100000000000 + s.i AS TEXT), 2), s.order_id || '-pay',
                         $3 - (s.i % 86400) * 1000
                     FROM dev_seed_orders s
                     WHERE {range} AND s.status IN ('disbursed', 'overdue') AND s.i % 50 = 7"
                ),
            ),
            // A repaid loan's repayment: a confirmed UPI or bank-transfer payment of everything it owed, which the
            // ledger's closing entry names.
            (
                "payments",
                format!(
                    "INSERT INTO payments (id, order_id, borrower_id, choice, method, installment, installment_to,
                         amount, currency, priced_on, status, reference, idempotency_key, received_amount, decided_at,
                         created_at, updated_at)
                     SELECT s.order_id || '-repaid', s.order_id, s.borrower_id, 'payoff',
                         CASE WHEN s.market = 'IN' THEN 'upi' ELSE 'bank_transfer' END, NULL, NULL, p.repaid_cash,
                         t.currency, p.payout_date, 'confirmed', $4 || 'R' || substr(CAST(1000000000 + s.i AS TEXT), 2),
                         'seed-repaid-' || s.order_id, p.repaid_cash, p.repaid_at, p.repaid_at - 3600000, p.repaid_at
                     FROM dev_seed_orders s JOIN dev_seed_plans p ON p.market = s.market AND p.days_back = s.days_back
                     JOIN dev_seed_templates t ON t.market = s.market
                     WHERE {range} AND s.status = 'repaid'"
                ),
            ),
            (
                "ledger_entries",
                format!(
                    "INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, reverses,
                         payment_id, created_at)
                     SELECT s.order_id || '-' || CAST(e.seq AS TEXT), s.order_id, e.seq, e.kind, e.on_date, e.cash,
                         e.excess, e.refunded, NULL,
                         CASE WHEN e.repaid_only = 1 THEN s.order_id || '-repaid' END, {created} + 3600000
                     FROM dev_seed_orders s JOIN dev_seed_entries e ON e.market = s.market AND e.days_back = s.days_back
                     WHERE {range} AND s.status IN {loan_statuses} AND (e.repaid_only = 0 OR s.status = 'repaid')
                        "
                ),
            ),
            (
                "ledger_lines",
                format!(
                    "INSERT INTO ledger_lines (entry_id, installment, due_late_charges, due_fees, due_interest,
                         due_principal, paid_late_charges, paid_fees, paid_interest, paid_principal)
                     SELECT s.order_id || '-' || CAST(l.seq AS TEXT), l.installment, l.due_late_charges, l.due_fees,
                         l.due_interest, l.due_principal, l.paid_late_charges, l.paid_fees, l.paid_interest,
                         l.paid_principal
                     FROM dev_seed_orders s
                     JOIN dev_seed_entries e ON e.market = s.market AND e.days_back = s.days_back
                     JOIN dev_seed_lines l ON l.market = e.market AND l.days_back = e.days_back AND l.seq = e.seq
                     WHERE {range} AND s.status IN {loan_statuses} AND (e.repaid_only = 0 OR s.status = 'repaid')
                        "
                ),
            ),
            (
                "loan_arrears",
                format!(
                    "INSERT INTO loan_arrears (order_id, market, oldest_unpaid_due, updated_at)
                     SELECT s.order_id, s.market, CASE WHEN s.status = 'repaid' THEN NULL ELSE p.first_due END, $3
                     FROM dev_seed_orders s JOIN dev_seed_plans p ON p.market = s.market AND p.days_back = s.days_back
                     WHERE {range} AND s.status IN {loan_statuses}"
                ),
            ),
        ];
        let mut written = Vec::with_capacity(statements.len());
        let mut tx = self.begin().await?;
        for (table, sql) in &statements {
            // Each statement binds the parameters it names (PostgreSQL refuses one more).
            let mut query = sqlx::query(sql).bind(first).bind(last);
            if sql.contains("$3") || sql.contains("$4") {
                query = query.bind(mix.now);
            }
            if sql.contains("$4") {
                query = query.bind(mix.order_prefix);
            }
            let done = query.execute(tx.conn()).await?;
            written.push((*table, done.rows_affected()));
        }
        tx.commit().await?;
        Ok(written)
    }
}
