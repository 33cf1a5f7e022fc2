//! Collections (migration 0034): each loan's oldest unpaid due date (`loan_arrears`), the overdue queue read through
//! its index, contact attempts and promises to pay.

use super::lists::Kind::{Int, Json, Text};
use super::lists::{BindValues, Rows, Value, any_of, texts};
use super::loans::placeholders;
use super::{Db, Tx, new_id};

/// One loan's position to write beside its ledger (migration 0044): the current due date (`YYYY-MM-DD`) of its oldest
/// installment with something outstanding (`None` when nothing is owed), its total and principal outstanding in minor
/// units (migration 0046) and the money engine's balances as JSON, all from one replay (`ledger::position`).
pub struct ArrearsRow<'a> {
    pub order_id: &'a str,
    pub market: &'a str,
    pub oldest_unpaid_due: Option<String>,
    pub outstanding: i64,
    pub outstanding_principal: i64,
    pub balances_json: String,
}

impl Tx {
    /// Writes the positions of several loans (insert or replace), a few hundred rows a statement, and moves what the
    /// open ones add to the dashboard's book ([`super::book`]).
    pub async fn set_arrears(&mut self, rows: &[ArrearsRow<'_>], now: i64) -> sqlx::Result<()> {
        self.written.arrears = true;
        for chunk in rows.chunks(300) {
            self.book_reposition(chunk).await?;
            let mut values = Rows::new(self.sqlite, &[Text, Text, Text, Int, Int, Json, Int]);
            for row in chunk {
                values.push([
                    Value::Text(Some(row.order_id)),
                    Value::Text(Some(row.market)),
                    Value::Text(row.oldest_unpaid_due.as_deref()),
                    Value::Int(Some(row.outstanding)),
                    Value::Int(Some(row.outstanding_principal)),
                    Value::Text(Some(row.balances_json.as_str())),
                    Value::Int(Some(now)),
                ]);
            }
            let sql = format!(
                "INSERT INTO loan_arrears (order_id, market, oldest_unpaid_due, outstanding, outstanding_principal,
                                           balances_json, updated_at)
                 {}
                 ON CONFLICT (order_id) DO UPDATE
                 SET oldest_unpaid_due = excluded.oldest_unpaid_due, outstanding = excluded.outstanding,
                     outstanding_principal = excluded.outstanding_principal, balances_json = excluded.balances_json,
                     updated_at = excluded.updated_at",
                values.values(1)
            );
            sqlx::query(&sql)
                .bind_values(values.into_values())
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// Writes one loan's position, its market read from the order (`row.market` is not used), and moves what it adds
    /// to the dashboard's book.
    pub async fn set_arrears_of(&mut self, row: &ArrearsRow<'_>, now: i64) -> sqlx::Result<()> {
        self.written.arrears = true;
        self.book_reposition(std::slice::from_ref(row)).await?;
        sqlx::query(
            "INSERT INTO loan_arrears (order_id, market, oldest_unpaid_due, outstanding, outstanding_principal,
                                       balances_json, updated_at)
             SELECT id, market, $2, $3, $6, $4, $5 FROM orders WHERE id = $1
             ON CONFLICT (order_id) DO UPDATE
             SET oldest_unpaid_due = excluded.oldest_unpaid_due, outstanding = excluded.outstanding,
                 outstanding_principal = excluded.outstanding_principal, balances_json = excluded.balances_json,
                 updated_at = excluded.updated_at",
        )
        .bind(row.order_id)
        .bind(row.oldest_unpaid_due.as_deref())
        .bind(row.outstanding)
        .bind(row.balances_json.as_str())
        .bind(now)
        .bind(row.outstanding_principal)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// The stored balances (JSON) of these loans, read under the caller's lock of their orders; a loan without one
    /// (written before migration 0044 and not posted to or swept since) is left out.
    pub async fn positions_in_tx(
        &mut self,
        order_ids: &[&str],
    ) -> sqlx::Result<Vec<(String, String)>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT order_id, balances_json FROM loan_arrears
             WHERE order_id {} AND balances_json IS NOT NULL",
            any_of(self.sqlite, 1, order_ids.len())
        );
        sqlx::query_as(&sql)
            .bind_values(texts(self.sqlite, order_ids))
            .fetch_all(self.conn())
            .await
    }
}

impl Db {
    /// The stored total outstanding (minor units) of these loans; a loan without one is left out.
    pub async fn outstanding_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<(String, i64)>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT order_id, outstanding FROM loan_arrears WHERE order_id IN ({}) AND outstanding IS NOT NULL",
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }
}

/// The queue's count per bucket: loans whose oldest unpaid due date falls in each range of dates.
#[derive(Debug, Clone, Default, PartialEq, Eq, kilat_row::FromRow)]
pub struct BucketCounts {
    pub d1_7: i64,
    pub d8_30: i64,
    pub d31_60: i64,
    pub d61_90: i64,
    pub d90_plus: i64,
}

/// Due-date limits of the buckets for one business date: a loan `d` days past due has its oldest unpaid installment
/// due on `today − d`. Each bound is a `YYYY-MM-DD` date, the first bucket's `to` being yesterday.
#[derive(Debug, Clone)]
pub struct BucketDates {
    /// Due on or after this: 1–7 days (to yesterday).
    pub from_7: String,
    pub from_30: String,
    pub from_60: String,
    pub from_90: String,
    /// Yesterday: the latest due date that is past due.
    pub yesterday: String,
}

/// A page of the queue as read: the loan, its borrower's sealed phone and its plan.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct QueueRow {
    pub order_id: String,
    pub order_no: String,
    pub borrower_id: String,
    pub status: String,
    pub currency: String,
    pub product_name: String,
    pub oldest_unpaid_due: String,
    /// The loan's balances as the ledger last left them (`ledger::position`); NULL before its first entry or sweep
    /// after migration 0044 (the reader replays the ledger then).
    pub balances_json: Option<String>,
    /// As lists show it, written with the encrypted phone (empty once the account is erased): nothing is decrypted.
    pub phone_masked: String,
}

/// The queue's filter: a market, and an inclusive range of oldest unpaid due dates.
pub struct QueueFilter<'a> {
    pub market: &'a str,
    /// Due on or after (None: no lower bound).
    pub due_from: Option<&'a str>,
    /// Due on or before (always at most yesterday).
    pub due_to: &'a str,
    /// True: the most days past due first (the oldest due date first).
    pub most_overdue_first: bool,
    pub limit: i64,
    pub offset: i64,
}

/// A contact attempt as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ContactRow {
    pub id: String,
    pub order_id: String,
    pub operator_id: String,
    pub username: Option<String>,
    pub channel: String,
    pub outcome: String,
    pub note_enc: Option<String>,
    pub local_time: String,
    pub created_at: i64,
}

/// A payment of a loan waiting for finance: the borrower paid, or says so (a UTR), or the money came as another
/// amount (held). Collections does not chase what it covers until finance decides.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct WaitingPaymentRow {
    pub order_id: String,
    pub reference: String,
    /// `verifying` (a UTR to check) or `held`.
    pub status: String,
    /// Minor units asked.
    pub amount: i64,
    /// Minor units received, when money was reported.
    pub received_amount: Option<i64>,
    /// The first and last installments it pays; none for the whole loan.
    pub installment: Option<i64>,
    pub installment_to: Option<i64>,
    /// Epoch milliseconds: when the borrower started it.
    pub created_at: i64,
    /// Epoch milliseconds: when the borrower paid, as far as the server knows ([`paid_at`]).
    pub paid_at: i64,
}

/// When the borrower paid a payment `p`, as far as the server knows: the first UTR they reported for it, else the
/// provider's first report of the money (a callback), else `{fallback}` (the ledger's credit, or the payment's start).
/// Not the payment's start: a borrower may open the pay screen during a collections call and pay after it, or pay a
/// virtual account issued that morning in the evening.
fn paid_at(fallback: &str) -> String {
    format!(
        "COALESCE((SELECT MIN(u.submitted_at) FROM payment_utrs u WHERE u.payment_id = p.id),
                  (SELECT MIN(cb.received_at) FROM payment_callbacks cb WHERE cb.payment_id = p.id),
                  {fallback})"
    )
}

/// The credits of `n` orders' payments (bound from `$1`), each with when it was paid.
fn payment_credits_sql(n: usize) -> String {
    format!(
        "SELECT e.order_id, e.seq, {} AS made_at, e.on_date, e.cash, e.excess
         FROM ledger_entries e JOIN payments p ON p.id = e.payment_id
         WHERE e.order_id IN ({}) AND e.kind IN ('repayment', 'payoff', 'cooling_off_exit', 'extension_fee')",
        paid_at("e.created_at"),
        placeholders(1, n)
    )
}

/// Money a payment brought, as the ledger credited it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PaymentCreditRow {
    pub order_id: String,
    /// The ledger entry's sequence number in its order's ledger.
    pub seq: i64,
    /// Epoch milliseconds: when the borrower paid ([`paid_at`]).
    pub made_at: i64,
    /// `YYYY-MM-DD`: the business day of the credit.
    pub on_date: String,
    /// Minor units received, and the part of it owed back.
    pub cash: i64,
    pub excess: i64,
}

/// A promise to pay as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PromiseRow {
    pub id: String,
    pub order_id: String,
    pub operator_id: String,
    pub username: Option<String>,
    pub amount: i64,
    pub made_on: String,
    pub promised_on: String,
    pub created_at: i64,
}

/// A reminder in the notification outbox, without its text.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ReminderRow {
    pub order_id: String,
    pub installment: i64,
    pub kind: String,
    pub status: String,
    pub attempts: i64,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

/// A contact attempt to store.
pub struct NewContact<'a> {
    pub order_id: &'a str,
    pub operator_id: &'a str,
    pub channel: &'a str,
    pub outcome: &'a str,
    /// `HH:MM` in the market's clock when it was logged.
    pub local_time: &'a str,
    pub at: i64,
}

/// A promise to store.
pub struct NewPromise<'a> {
    pub order_id: &'a str,
    pub operator_id: &'a str,
    pub amount: i64,
    pub made_on: &'a str,
    pub promised_on: &'a str,
    pub at: i64,
}

const CONTACT_COLUMNS: &str =
    "c.id, c.order_id, c.operator_id, o.username, c.channel, c.outcome, c.note_enc,
     c.local_time, c.created_at";
const PROMISE_COLUMNS: &str =
    "p.id, p.order_id, p.operator_id, o.username, p.amount, p.made_on, p.promised_on, p.created_at";

/// `{alias}.id IN (…)` over the newest row of `table` (by `created_at`, then `id`) of each of `n` orders bound from
/// `$1`, and matching `also` (over `n`): one probe of the table's `(order_id, …)` index per order, whatever the
/// orders' histories hold. A queue page asks for its loans' latest contact, promise and reminder only, so loans
/// collections has worked for months cost it no more than new ones.
fn newest_of_each_order(alias: &str, table: &str, also: &str, n: usize) -> String {
    let orders = (1..=n)
        .map(|i| format!("(${i})"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{alias}.id IN (SELECT (SELECT n.id FROM {table} n WHERE n.order_id = w.column1 {also}
                                 ORDER BY n.created_at DESC, n.id DESC LIMIT 1)
                        FROM (VALUES {orders}) AS w)"
    )
}

impl Db {
    /// How many loans of `market` are in each bucket: counted on the arrears index (every overdue loan of the
    /// market's index entries), or the count kept since the last change ([`super::kept_counts`]).
    pub async fn arrears_counts(
        &self,
        market: &str,
        dates: &BucketDates,
    ) -> sqlx::Result<BucketCounts> {
        let db = self.clone();
        let (market, dates) = (market.to_owned(), dates.clone());
        let key = (market.clone(), dates.yesterday.clone());
        self.counts
            .arrears
            .get_or_count(key, async move { db.count_arrears(&market, &dates).await })
            .await
    }

    async fn count_arrears(&self, market: &str, dates: &BucketDates) -> sqlx::Result<BucketCounts> {
        sqlx::query_as(
            "SELECT
                 COALESCE(SUM(CASE WHEN oldest_unpaid_due >= $2 THEN 1 ELSE 0 END), 0) AS d1_7,
                 COALESCE(SUM(CASE WHEN oldest_unpaid_due >= $3 AND oldest_unpaid_due < $2 THEN 1 ELSE 0 END), 0)
                     AS d8_30,
                 COALESCE(SUM(CASE WHEN oldest_unpaid_due >= $4 AND oldest_unpaid_due < $3 THEN 1 ELSE 0 END), 0)
                     AS d31_60,
                 COALESCE(SUM(CASE WHEN oldest_unpaid_due >= $5 AND oldest_unpaid_due < $4 THEN 1 ELSE 0 END), 0)
                     AS d61_90,
                 COALESCE(SUM(CASE WHEN oldest_unpaid_due < $5 THEN 1 ELSE 0 END), 0) AS d90_plus
             FROM loan_arrears WHERE market = $1 AND oldest_unpaid_due <= $6",
        )
        .bind(market)
        .bind(&dates.from_7)
        .bind(&dates.from_30)
        .bind(&dates.from_60)
        .bind(&dates.from_90)
        .bind(&dates.yesterday)
        .fetch_one(self.pool())
        .await
    }

    /// One page of the queue, in due-date order (then order id), read through the arrears index.
    pub async fn arrears_page(&self, f: &QueueFilter<'_>) -> sqlx::Result<Vec<QueueRow>> {
        let direction = if f.most_overdue_first { "ASC" } else { "DESC" };
        let sql = format!(
            "SELECT a.order_id, o.order_no, o.borrower_id, o.status, o.currency, o.product_name,
                    a.oldest_unpaid_due, a.balances_json, b.phone_masked
             FROM loan_arrears a
             JOIN orders o ON o.id = a.order_id
             JOIN borrowers b ON b.id = o.borrower_id
             WHERE a.market = $1 AND a.oldest_unpaid_due <= $2 AND a.oldest_unpaid_due >= $3
             ORDER BY a.oldest_unpaid_due {direction}, a.order_id {direction}
             LIMIT $4 OFFSET $5"
        );
        sqlx::query_as(&sql)
            .bind(f.market)
            .bind(f.due_to)
            // No lower bound: the empty text sorts before every date.
            .bind(f.due_from.unwrap_or(""))
            .bind(f.limit)
            .bind(f.offset)
            .fetch_all(self.pool())
            .await
    }

    /// A loan's arrears date, if written.
    pub async fn arrears_of(&self, order_id: &str) -> sqlx::Result<Option<Option<String>>> {
        sqlx::query_scalar("SELECT oldest_unpaid_due FROM loan_arrears WHERE order_id = $1")
            .bind(order_id)
            .fetch_optional(self.pool())
            .await
    }

    /// The contact attempts with these orders, newest first.
    pub async fn contacts_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<ContactRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {CONTACT_COLUMNS} FROM collection_contacts c LEFT JOIN operators o ON o.id = c.operator_id
             WHERE c.order_id IN ({}) ORDER BY c.created_at DESC, c.id DESC",
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The newest contact attempt with each of these orders (a queue page's "last contact").
    pub async fn latest_contacts_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<ContactRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {CONTACT_COLUMNS} FROM collection_contacts c LEFT JOIN operators o ON o.id = c.operator_id
             WHERE {}",
            newest_of_each_order("c", "collection_contacts", "", order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The newest promise to pay of each of these orders (a queue page's promise).
    pub async fn latest_promises_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<PromiseRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {PROMISE_COLUMNS} FROM promises_to_pay p LEFT JOIN operators o ON o.id = p.operator_id
             WHERE {}",
            newest_of_each_order("p", "promises_to_pay", "", order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The newest reminder queued for each of these orders (a queue page's "last reminder").
    pub async fn latest_reminders_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<ReminderRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT r.order_id, r.installment, r.kind, r.status, r.attempts, r.created_at, r.sent_at
             FROM notification_outbox r WHERE {}",
            newest_of_each_order(
                "r",
                "notification_outbox",
                "AND n.kind NOT IN ('receipt', 'receipt_push')",
                order_ids.len()
            )
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The promises to pay of these orders, newest first.
    pub async fn promises_of(&self, order_ids: &[&str]) -> sqlx::Result<Vec<PromiseRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {PROMISE_COLUMNS} FROM promises_to_pay p LEFT JOIN operators o ON o.id = p.operator_id
             WHERE p.order_id IN ({}) ORDER BY p.created_at DESC, p.id DESC",
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The payments of these orders waiting for finance (a UTR to check, or money held), oldest first.
    pub async fn waiting_payments_of(
        &self,
        order_ids: &[&str],
    ) -> sqlx::Result<Vec<WaitingPaymentRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT p.order_id, p.reference, p.status, p.amount, p.received_amount, p.installment, p.installment_to,
                    p.created_at, {} AS paid_at
             FROM payments p WHERE p.status IN ('verifying', 'held') AND p.order_id IN ({})
             ORDER BY p.created_at, p.id",
            paid_at("p.created_at"),
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The money payments of these orders brought, as the ledger credited it: when each payment was paid, the day of
    /// its credit, the cash and the part of it owed back.
    pub async fn payment_credits_of(
        &self,
        order_ids: &[&str],
    ) -> sqlx::Result<Vec<PaymentCreditRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = payment_credits_sql(order_ids.len());
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }

    /// The reminders queued for these orders, newest first (not the payment receipts the outbox also carries).
    pub async fn order_reminders(&self, order_ids: &[&str]) -> sqlx::Result<Vec<ReminderRow>> {
        if order_ids.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT order_id, installment, kind, status, attempts, created_at, sent_at FROM notification_outbox
             WHERE order_id IN ({}) AND kind NOT IN ('receipt', 'receipt_push') ORDER BY created_at DESC, id DESC",
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.pool()).await
    }
}

impl Tx {
    /// [`Db::payment_credits_of`] for one order inside the transaction that locked it: the credits of the very ledger
    /// it loaded.
    pub async fn payment_credits_in_tx(
        &mut self,
        order_id: &str,
    ) -> sqlx::Result<Vec<PaymentCreditRow>> {
        sqlx::query_as(&payment_credits_sql(1))
            .bind(order_id)
            .fetch_all(self.conn())
            .await
    }

    /// Stores a contact attempt; `seal` turns the note into its stored form, bound to the new row's id.
    pub async fn insert_contact(
        &mut self,
        c: &NewContact<'_>,
        note: Option<&str>,
        seal: impl FnOnce(&str, &str) -> String,
    ) -> sqlx::Result<String> {
        let id = new_id();
        let note_enc = note.map(|n| seal(&id, n));
        sqlx::query(
            "INSERT INTO collection_contacts (id, order_id, operator_id, channel, outcome, note_enc, local_time,
                 created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&id)
        .bind(c.order_id)
        .bind(c.operator_id)
        .bind(c.channel)
        .bind(c.outcome)
        .bind(note_enc)
        .bind(c.local_time)
        .bind(c.at)
        .execute(self.conn())
        .await?;
        Ok(id)
    }

    /// The order's promises, newest first, read under the order's lock.
    pub async fn promises_in_tx(&mut self, order_id: &str) -> sqlx::Result<Vec<PromiseRow>> {
        let sql = format!(
            "SELECT {PROMISE_COLUMNS} FROM promises_to_pay p LEFT JOIN operators o ON o.id = p.operator_id
             WHERE p.order_id = $1 ORDER BY p.created_at DESC, p.id DESC"
        );
        sqlx::query_as(&sql)
            .bind(order_id)
            .fetch_all(self.conn())
            .await
    }

    /// Stores a promise to pay.
    pub async fn insert_promise(&mut self, p: &NewPromise<'_>) -> sqlx::Result<String> {
        let id = new_id();
        sqlx::query(
            "INSERT INTO promises_to_pay (id, order_id, operator_id, amount, made_on, promised_on, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(p.order_id)
        .bind(p.operator_id)
        .bind(p.amount)
        .bind(p.made_on)
        .bind(p.promised_on)
        .bind(p.at)
        .execute(self.conn())
        .await?;
        Ok(id)
    }
}
