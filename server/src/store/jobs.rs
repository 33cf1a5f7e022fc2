//! Scheduled jobs: the claim of one run per job, market and business date; the overdue job's pages of open loans and
//! the installments waiting on a UTR; the notification outbox of reminders.

use super::lists::Kind::{Int, Text};
use super::lists::{BindValues, Rows, Value, any_of, texts};
use super::loans::placeholders;
use super::{Db, Tx, new_id};

/// An open loan (disbursed or overdue) as the overdue job reads it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OpenLoanRow {
    pub order_id: String,
    pub order_no: String,
    pub borrower_id: String,
    pub status: String,
    pub plan_json: String,
}

/// A payment waiting for finance: the order, and the installment it pays (none for the whole loan).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct VerifyingRow {
    pub order_id: String,
    pub choice: String,
    pub installment: Option<i64>,
    pub installment_to: Option<i64>,
}

/// A reminder to queue.
pub struct NewNotification<'a> {
    pub order_id: &'a str,
    pub borrower_id: &'a str,
    pub market: &'a str,
    pub installment: u32,
    pub kind: &'a str,
    pub text: String,
    /// The installment's due date the reminder is for (`YYYY-MM-DD`): an extension moves it, and the new date gets
    /// its own reminders.
    pub due_on: String,
}

/// A queued text with the borrower's sealed phone.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PendingNotification {
    pub id: String,
    pub order_id: String,
    pub installment: i64,
    pub borrower_id: String,
    pub market: String,
    pub kind: String,
    pub text: String,
    pub attempts: i64,
    pub phone_enc: String,
}

/// A stored notification (tests and the console read them).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct NotificationRow {
    pub id: String,
    pub order_id: String,
    pub borrower_id: String,
    pub installment: i64,
    pub kind: String,
    pub text: String,
    pub status: String,
    pub attempts: i64,
    pub sent_at: Option<i64>,
    /// The payment a receipt is for; none for a reminder.
    pub payment_id: Option<String>,
}

/// How long a claimed run may go unfinished before another runner takes it over: far beyond the longest run
/// (the overdue job over 1,000,000 installments takes about 20 s), short enough that a date whose run stopped is
/// done the same day. Every claimed job is safe to run again and at once with another run of itself.
pub const JOB_RUN_LEASE_MS: i64 = 30 * 60 * 1000;

impl Db {
    /// Claims the run of `job` for `market`'s `business_date`: true for the one caller whose write lands. A claim
    /// that never finished (its runner stopped, or its work failed) is taken over once it is [`JOB_RUN_LEASE_MS`]
    /// old, in the same statement, so a date is never left half done; a finished run is never claimed again.
    pub async fn claim_job_run(
        &self,
        job: &str,
        market: &str,
        business_date: &str,
        runner: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO job_runs (job, market, business_date, runner, started_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (job, market, business_date) DO UPDATE
               SET runner = excluded.runner, started_at = excluded.started_at
               WHERE job_runs.finished_at IS NULL AND job_runs.started_at <= $6",
        )
        .bind(job)
        .bind(market)
        .bind(business_date)
        .bind(runner)
        .bind(now)
        .bind(now - JOB_RUN_LEASE_MS)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Forgets the runs claimed for `market` on dates after `business_date` (the development clock moved back:
    /// those dates are to come again). Returns how many were forgotten.
    pub async fn forget_job_runs_after(
        &self,
        market: &str,
        business_date: &str,
    ) -> sqlx::Result<u64> {
        let done = sqlx::query("DELETE FROM job_runs WHERE market = $1 AND business_date > $2")
            .bind(market)
            .bind(business_date)
            .execute(self.pool())
            .await?;
        Ok(done.rows_affected())
    }

    /// Whether `job` finished its run for `market`'s `business_date`.
    pub async fn job_run_finished(
        &self,
        job: &str,
        market: &str,
        business_date: &str,
    ) -> sqlx::Result<bool> {
        let finished: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM job_runs
             WHERE job = $1 AND market = $2 AND business_date = $3 AND finished_at IS NOT NULL",
        )
        .bind(job)
        .bind(market)
        .bind(business_date)
        .fetch_one(self.pool())
        .await?;
        Ok(finished > 0)
    }

    /// The latest business date `job` finished for `market` (`YYYY-MM-DD`), if any.
    pub async fn last_finished_job_date(
        &self,
        job: &str,
        market: &str,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "SELECT MAX(business_date) FROM job_runs WHERE job = $1 AND market = $2 AND finished_at IS NOT NULL",
        )
        .bind(job)
        .bind(market)
        .fetch_one(self.pool())
        .await
    }

    /// Records the end of a claimed run.
    pub async fn finish_job_run(
        &self,
        job: &str,
        market: &str,
        business_date: &str,
        orders_seen: i64,
        entries: i64,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE job_runs SET finished_at = $1, orders_seen = $2, entries = $3
             WHERE job = $4 AND market = $5 AND business_date = $6",
        )
        .bind(now)
        .bind(orders_seen)
        .bind(entries)
        .bind(job)
        .bind(market)
        .bind(business_date)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Up to `limit` open loans of `market` after order id `after`, by order id (keyset paging). The cursor is stated on
    /// both sides of the join: PostgreSQL does not carry `o.id > $2` over to the loans, and its merge join then read
    /// the loans from the first on every page (the pages of a run cost the square of the book: 45 ms a page, 7.5 s of
    /// a 12.5 s run at 1,000,000 installments; docs/PERFORMANCE.md, "The overdue job").
    pub async fn open_loans_page(
        &self,
        market: &str,
        after: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<OpenLoanRow>> {
        sqlx::query_as(
            "SELECT o.id AS order_id, o.order_no, o.borrower_id, o.status, l.plan_json
             FROM orders o JOIN loans l ON l.order_id = o.id
             WHERE o.market = $1 AND o.status IN ('disbursed', 'overdue') AND o.id > $2 AND l.order_id > $2
             ORDER BY o.id LIMIT $3",
        )
        .bind(market)
        .bind(after)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Up to `limit` queued texts of `market` last moved before `moved_before` (queued, or tried and put back) and due
    /// for a try by then (`next_try_at`), oldest first.
    pub async fn pending_notifications(
        &self,
        market: &str,
        moved_before: i64,
        limit: i64,
    ) -> sqlx::Result<Vec<PendingNotification>> {
        sqlx::query_as(
            "SELECT n.id, n.order_id, n.installment, n.borrower_id, n.market, n.kind, n.text, n.attempts, b.phone_enc
             FROM notification_outbox n JOIN borrowers b ON b.id = n.borrower_id
             WHERE n.status = 'pending' AND n.market = $1 AND n.updated_at < $2
                 AND (n.next_try_at IS NULL OR n.next_try_at < $2)
             ORDER BY n.created_at, n.id LIMIT $3",
        )
        .bind(market)
        .bind(moved_before)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Puts a text that failed to go back from `from` with `attempts` (`sending`: its provider failed; `pending`: its
    /// loan could not be read) to `to` (`pending`, or `failed` after the last try), the try counted with its error, not to be tried
    /// again before `next_try_at`; only while it has the `attempts` it was read with (two runners failing one text
    /// count one try).
    pub async fn put_back_notification(
        &self,
        id: &str,
        (from, attempts): (&str, i64),
        to: &str,
        error: &str,
        now: i64,
        next_try_at: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE notification_outbox SET status = $1, updated_at = $2, attempts = attempts + 1, last_error = $3,
                 next_try_at = $4
             WHERE id = $5 AND status = $6 AND attempts = $7",
        )
        .bind(to)
        .bind(now)
        .bind(error)
        .bind(next_try_at)
        .bind(id)
        .bind(from)
        .bind(attempts)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Moves a text from `from` to `to` when it is still in `from`: the claim that lets one sender only send it.
    pub async fn move_notification(
        &self,
        id: &str,
        from: &str,
        to: &str,
        error: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let sent_at = (to == "sent").then_some(now);
        let attempt = i64::from(error.is_some());
        let done = sqlx::query(
            "UPDATE notification_outbox SET status = $1, updated_at = $2, sent_at = COALESCE($3, sent_at),
                 attempts = attempts + $4, last_error = COALESCE($5, last_error)
             WHERE id = $6 AND status = $7",
        )
        .bind(to)
        .bind(now)
        .bind(sent_at)
        .bind(attempt)
        .bind(error)
        .bind(id)
        .bind(from)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Replaces the text of a text claimed for sending (`sending`): what is sent, as it reads at the time.
    pub async fn retext_notification(&self, id: &str, text: &str) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE notification_outbox SET text = $1 WHERE id = $2 AND status = 'sending'",
        )
        .bind(text)
        .bind(id)
        .execute(self.pool())
        .await?;
        Ok(())
    }

    /// Takes back the texts claimed for sending (`sending`) before `claimed_before`, which a sender that stopped left
    /// claimed: each counts as a try, recorded with `error`, and goes back to `pending`, or to `failed` when it was the
    /// last of `max_attempts`. One statement conditional on the status, so a sender still recording its outcome and
    /// this never both move a text. Answers how many were taken back.
    pub async fn take_back_notifications(
        &self,
        claimed_before: i64,
        max_attempts: i64,
        error: &str,
        now: i64,
    ) -> sqlx::Result<u64> {
        let done = sqlx::query(
            "UPDATE notification_outbox
             SET status = CASE WHEN attempts + 1 >= $1 THEN 'failed' ELSE 'pending' END, attempts = attempts + 1,
                 last_error = $2, updated_at = $3
             WHERE status = 'sending' AND updated_at < $4",
        )
        .bind(max_attempts)
        .bind(error)
        .bind(now)
        .bind(claimed_before)
        .execute(self.pool())
        .await?;
        Ok(done.rows_affected())
    }

    /// The texts queued for an order, oldest first.
    pub async fn notifications_of(&self, order_id: &str) -> sqlx::Result<Vec<NotificationRow>> {
        sqlx::query_as(
            "SELECT id, order_id, borrower_id, installment, kind, text, status, attempts, sent_at, payment_id
             FROM notification_outbox WHERE order_id = $1 ORDER BY created_at, installment, kind",
        )
        .bind(order_id)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// One order as [`Db::open_loans_page`] lists it, when it is still an open loan (paid out, or overdue).
    pub async fn open_loan_in_tx(&mut self, order_id: &str) -> sqlx::Result<Option<OpenLoanRow>> {
        sqlx::query_as(
            "SELECT o.id AS order_id, o.order_no, o.borrower_id, o.status, l.plan_json
             FROM orders o JOIN loans l ON l.order_id = o.id
             WHERE o.id = $1 AND o.status IN ('disbursed', 'overdue')",
        )
        .bind(order_id)
        .fetch_optional(self.conn())
        .await
    }

    /// The payments of a page of orders that wait for finance (`verifying`, or `held`).
    pub async fn verifying_in_tx(&mut self, order_ids: &[&str]) -> sqlx::Result<Vec<VerifyingRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT order_id, choice, installment, installment_to FROM payments
             WHERE status IN ('verifying', 'held') AND order_id {}",
            any_of(self.sqlite, 1, order_ids.len())
        );
        sqlx::query_as(&sql)
            .bind_values(texts(self.sqlite, order_ids))
            .fetch_all(self.conn())
            .await
    }

    /// Queues reminders; one already queued for the same installment, kind and due date is left as it is (unique
    /// constraint), unless it was dropped unsent (the loan did not call for it when its hour came: a UTR waiting, say,
    /// that finance has rejected since), which waits to be sent again with the new text. A reminder queued before
    /// migration 0066 has no due date (`''`): one of the same installment and kind, not dropped, stands for it, so the
    /// texts sent before the upgrade are not sent again (an installment reminded before the upgrade and extended after
    /// it is not reminded again of that kind: its old date is unknown). Returns how many were new or renewed.
    pub async fn queue_notifications(
        &mut self,
        batch: &[NewNotification<'_>],
        now: i64,
    ) -> sqlx::Result<u64> {
        let mut added = 0;
        for chunk in batch.chunks(300) {
            let mut rows = Rows::new(
                self.sqlite,
                &[Text, Text, Text, Text, Int, Text, Text, Text],
            );
            let ids: Vec<String> = chunk.iter().map(|_| new_id()).collect();
            for (n, id) in chunk.iter().zip(&ids) {
                rows.push([
                    Value::Text(Some(id.as_str())),
                    Value::Text(Some(n.order_id)),
                    Value::Text(Some(n.borrower_id)),
                    Value::Text(Some(n.market)),
                    Value::Int(Some(i64::from(n.installment))),
                    Value::Text(Some(n.kind)),
                    Value::Text(Some(n.text.as_str())),
                    Value::Text(Some(n.due_on.as_str())),
                ]);
            }
            // `v.column1…8`: the names both databases give a `VALUES` list's columns ([`Rows::relation`]); the
            // `WHERE` also keeps SQLite from reading `ON CONFLICT` as a join's `ON`.
            let sql = format!(
                "INSERT INTO notification_outbox (id, order_id, borrower_id, market, installment, kind, text, status,
                     attempts, created_at, updated_at, due_on)
                 SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, 'pending', 0,
                     $1, $1, v.column8
                 FROM {} WHERE NOT EXISTS (
                     SELECT 1 FROM notification_outbox o
                     WHERE o.order_id = v.column2 AND o.installment = v.column5 AND o.kind = v.column6
                       AND o.due_on = '' AND o.status <> 'dropped')
                 ON CONFLICT (order_id, installment, kind, due_on) DO UPDATE SET status = 'pending',
                     text = excluded.text, attempts = 0, last_error = NULL, sent_at = NULL,
                     created_at = excluded.created_at, updated_at = excluded.updated_at
                 WHERE notification_outbox.status = 'dropped'",
                rows.relation(2, "v")
            );
            added += sqlx::query(&sql)
                .bind(now)
                .bind_values(rows.into_values())
                .execute(self.conn())
                .await?
                .rows_affected();
        }
        Ok(added)
    }
}

/// A payment receipt to queue (see migration 0043): the ledger entry's sequence number stands in the installment column.
pub struct NewReceipt<'a> {
    pub order_id: &'a str,
    pub borrower_id: &'a str,
    pub market: &'a str,
    pub payment_id: &'a str,
    pub entry_seq: u64,
    pub text: &'a str,
}

impl Tx {
    /// Queues the receipt of a credited payment as a text and, when `push` is on, its push (kind `receipt_push`) if the
    /// borrower has a device that uploaded a push token, in one statement; each at most once per payment (a unique
    /// index). Answers how many were queued.
    pub async fn queue_receipts(
        &mut self,
        r: &NewReceipt<'_>,
        push: bool,
        now: i64,
    ) -> sqlx::Result<u64> {
        let seq = i64::try_from(r.entry_seq).unwrap_or(i64::MAX);
        // `WHERE true`: SQLite reads `ON CONFLICT` after a `SELECT` without `WHERE` as a join's `ON`.
        let push_row = if push {
            "UNION ALL
             SELECT $9, $2, $3, $4, $5, 'receipt_push', $6, 'pending', 0, $7, $7, $8
             WHERE EXISTS (SELECT 1 FROM device_tokens WHERE borrower_id = $3)"
        } else {
            ""
        };
        let sql = format!(
            "INSERT INTO notification_outbox (id, order_id, borrower_id, market, installment, kind, text, status,
                 attempts, created_at, updated_at, payment_id)
             SELECT $1, $2, $3, $4, $5, 'receipt', $6, 'pending', 0, $7, $7, $8 WHERE true
             {push_row}
             ON CONFLICT DO NOTHING"
        );
        let mut query = sqlx::query(&sql)
            .bind(new_id())
            .bind(r.order_id)
            .bind(r.borrower_id)
            .bind(r.market)
            .bind(seq)
            .bind(r.text)
            .bind(now)
            .bind(r.payment_id);
        if push {
            query = query.bind(new_id());
        }
        Ok(query.execute(self.conn()).await?.rows_affected())
    }

    /// [`Tx::queue_receipts`] for many credited payments at once (a batch of callbacks), in multi-row inserts: the
    /// texts, then (when `push` is on) the pushes of the borrowers with a device that uploaded a token. Each at most
    /// once per payment, as there. Answers how many were queued.
    pub async fn queue_receipts_many(
        &mut self,
        receipts: &[NewReceipt<'_>],
        push: bool,
        now: i64,
    ) -> sqlx::Result<u64> {
        let mut queued = 0;
        for chunk in receipts.chunks(200) {
            // `v.column1…8`: the names both databases give a `VALUES` list's columns ([`Rows::relation`]). `WHERE
            // true`: SQLite reads `ON CONFLICT` after a `SELECT` without `WHERE` as a join's `ON`.
            let kinds: &[(&str, &str)] = if push {
                &[
                    ("receipt", "true"),
                    (
                        "receipt_push",
                        "EXISTS (SELECT 1 FROM device_tokens d WHERE d.borrower_id = v.column3)",
                    ),
                ]
            } else {
                &[("receipt", "true")]
            };
            for (kind, filter) in kinds {
                let ids: Vec<String> = chunk.iter().map(|_| new_id()).collect();
                let mut rows =
                    Rows::new(self.sqlite, &[Text, Text, Text, Text, Int, Text, Int, Text]);
                for (r, id) in chunk.iter().zip(&ids) {
                    rows.push([
                        Value::Text(Some(id.as_str())),
                        Value::Text(Some(r.order_id)),
                        Value::Text(Some(r.borrower_id)),
                        Value::Text(Some(r.market)),
                        Value::Int(Some(i64::try_from(r.entry_seq).unwrap_or(i64::MAX))),
                        Value::Text(Some(r.text)),
                        Value::Int(Some(now)),
                        Value::Text(Some(r.payment_id)),
                    ]);
                }
                let sql = format!(
                    "INSERT INTO notification_outbox (id, order_id, borrower_id, market, installment, kind, text,
                         status, attempts, created_at, updated_at, payment_id)
                     SELECT v.column1, v.column2, v.column3, v.column4, v.column5, '{kind}', v.column6, 'pending', 0,
                         v.column7, v.column7, v.column8
                     FROM {} WHERE {filter}
                     ON CONFLICT DO NOTHING",
                    rows.relation(1, "v")
                );
                queued += sqlx::query(&sql)
                    .bind_values(rows.into_values())
                    .execute(self.conn())
                    .await?
                    .rows_affected();
            }
        }
        Ok(queued)
    }
}

/// A device's push token as its app uploaded it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PushToken {
    pub token: String,
    pub platform: String,
}

impl Db {
    /// The borrower's push tokens, the most recently uploaded first, at most `limit`.
    pub async fn push_tokens_of(
        &self,
        borrower_id: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<PushToken>> {
        sqlx::query_as(
            "SELECT token, platform FROM device_tokens WHERE borrower_id = $1
             ORDER BY updated_at DESC, token LIMIT $2",
        )
        .bind(borrower_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Forgets a push token the gateway no longer knows.
    pub async fn forget_push_token(&self, borrower_id: &str, token: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM device_tokens WHERE borrower_id = $1 AND token = $2")
            .bind(borrower_id)
            .bind(token)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

/// A paid-out loan written straight into the tables (development: the overdue job's benchmark).
pub struct SeedLoan {
    pub order_id: String,
    pub order_no: String,
    pub borrower_id: String,
    pub market: &'static str,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: &'static str,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub payout_date: String,
    pub plan_json: String,
}

impl Tx {
    /// Writes disbursed orders and their plans in multi-row inserts, for borrowers written before (with their sealed
    /// phones, `Tx::insert_seed_borrowers`); their ledgers go through [`Tx::append_entries`]. Development only.
    pub async fn insert_seed_loans(&mut self, loans: &[SeedLoan], now: i64) -> sqlx::Result<()> {
        self.written = super::kept_counts::Written::ALL;
        for chunk in loans.chunks(200) {
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 20 + 1, 20)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO orders (id, order_no, borrower_id, market, product_code, product_name, term_code,
                     currency, amount, net_disbursed, total_repayable, apr, apr_display, status, kfs_json, kfs_hash,
                     idempotency_key, request_hash, created_at, updated_at) VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for l in chunk {
                q = q
                    .bind(l.order_id.as_str())
                    .bind(l.order_no.as_str())
                    .bind(l.borrower_id.as_str())
                    .bind(l.market)
                    .bind(l.product_code.as_str())
                    .bind(l.product_name.as_str())
                    .bind(l.term_code.as_str())
                    .bind(l.currency)
                    .bind(l.amount)
                    .bind(l.net_disbursed)
                    .bind(l.total_repayable)
                    .bind(0_i64)
                    .bind("")
                    .bind("disbursed")
                    .bind("{}")
                    .bind("seed")
                    .bind("seed")
                    .bind("seed")
                    .bind(now)
                    .bind(now);
            }
            q.execute(self.conn()).await?;
            let rows = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 4 + 1, 4)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO loans (order_id, payout_date, plan_json, created_at) VALUES {rows}"
            );
            let mut q = sqlx::query(&sql);
            for l in chunk {
                q = q
                    .bind(l.order_id.as_str())
                    .bind(l.payout_date.as_str())
                    .bind(l.plan_json.as_str())
                    .bind(now);
            }
            q.execute(self.conn()).await?;
            // Open loans without a position yet: each adds itself to the dashboard's book ([`super::book`]).
            let ids: Vec<&str> = chunk.iter().map(|l| l.order_id.as_str()).collect();
            self.book_move(&ids, 1, super::book::Counted::Open, None)
                .await?;
        }
        Ok(())
    }
}

impl Tx {
    /// Copies the seeded loan `template` (its order, plan and ledger) `count` times in set-based inserts
    /// (`INSERT … SELECT` over a generated series: one statement per table, whatever `count` is), the copies numbered
    /// `first..first + count`: ids are the template's with `-NNNNNNNN` appended (so keyset paging by id keeps them
    /// together; each copy's borrower, the template's borrower id with the same suffix, is written before with its own
    /// sealed phone), order numbers `{order_prefix}NNNNNNNN`. Development only: the overdue job's benchmark seeds a million
    /// installments this way in seconds.
    pub async fn clone_seed_loan(
        &mut self,
        template: &str,
        order_prefix: &str,
        first: i64,
        count: i64,
    ) -> sqlx::Result<()> {
        self.written = super::kept_counts::Written::ALL;
        if count <= 0 {
            return Ok(());
        }
        // The series and each copy's suffix, written the same way on both databases (SQLite has no lpad, PostgreSQL no
        // printf).
        let series = "WITH RECURSIVE n (i) AS (SELECT CAST($1 AS BIGINT) UNION ALL SELECT i + 1 FROM n WHERE i < $2)";
        let suffix = "'-' || substr(CAST(100000000 + n.i AS TEXT), 2)";
        let last = first + count - 1;
        let statements = [
            format!(
                "{series} INSERT INTO orders (id, order_no, borrower_id, market, product_code, product_name, term_code,
                     currency, amount, net_disbursed, total_repayable, apr, apr_display, status, kfs_json, kfs_hash,
                     idempotency_key, request_hash, created_at, updated_at)
                 SELECT o.id || {suffix}, $4 || substr(CAST(100000000 + n.i AS TEXT), 2), o.borrower_id || {suffix},
                     o.market, o.product_code, o.product_name, o.term_code, o.currency, o.amount, o.net_disbursed,
                     o.total_repayable, o.apr, o.apr_display, o.status, o.kfs_json, o.kfs_hash, o.idempotency_key,
                     o.request_hash, o.created_at, o.updated_at
                 FROM n CROSS JOIN orders o WHERE o.id = $3"
            ),
            format!(
                "{series} INSERT INTO loans (order_id, payout_date, plan_json, created_at)
                 SELECT l.order_id || {suffix}, l.payout_date, l.plan_json, l.created_at
                 FROM n CROSS JOIN loans l WHERE l.order_id = $3"
            ),
            format!(
                "{series} INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, reverses,
                     payment_id, created_at)
                 SELECT e.id || {suffix}, e.order_id || {suffix}, e.seq, e.kind, e.on_date, e.cash, e.excess, e.refunded,
                     e.reverses, e.payment_id, e.created_at
                 FROM n CROSS JOIN ledger_entries e WHERE e.order_id = $3"
            ),
            format!(
                "{series} INSERT INTO ledger_lines (entry_id, installment, due_late_charges, due_fees, due_interest,
                     due_principal, paid_late_charges, paid_fees, paid_interest, paid_principal)
                 SELECT l.entry_id || {suffix}, l.installment, l.due_late_charges, l.due_fees, l.due_interest,
                     l.due_principal, l.paid_late_charges, l.paid_fees, l.paid_interest, l.paid_principal
                 FROM n CROSS JOIN ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id WHERE e.order_id = $3"
            ),
            format!(
                "{series} INSERT INTO loan_arrears (order_id, market, oldest_unpaid_due, outstanding,
                     outstanding_principal, balances_json, updated_at)
                 SELECT a.order_id || {suffix}, a.market, a.oldest_unpaid_due, a.outstanding, a.outstanding_principal,
                     a.balances_json, a.updated_at
                 FROM n CROSS JOIN loan_arrears a WHERE a.order_id = $3"
            ),
        ];
        for (i, sql) in statements.iter().enumerate() {
            let mut query = sqlx::query(sql).bind(first).bind(last).bind(template);
            if i == 0 {
                query = query.bind(order_prefix);
            }
            query.execute(self.conn()).await?;
        }
        // Each copy adds to the dashboard's book what the template adds.
        self.book_copies(template, count).await?;
        Ok(())
    }
}
