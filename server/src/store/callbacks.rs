//! Payment providers' callbacks: one row per provider event under a unique key, written in the transaction that
//! settles its payment, so a repeated callback is recognised and posts nothing.

use std::collections::{HashMap, HashSet};

use super::lists::Kind::{Int, Text};
use super::lists::{BindValues, Rows, Value, any_of, texts};
use super::loans::OrderPlanRow;
use super::orders::COLUMNS as ORDER_COLUMNS;
use super::payments::{COLUMNS, PaymentRow};
use super::{Db, Tx};

impl Db {
    /// How many callbacks of `provider` were recorded for the payment.
    pub async fn callbacks_of(&self, payment_id: &str) -> sqlx::Result<i64> {
        let (n,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM payment_callbacks WHERE payment_id = $1")
                .bind(payment_id)
                .fetch_one(self.pool())
                .await?;
        Ok(n)
    }
}

impl Tx {
    /// The payment with this reference (the one the borrower or the provider quotes), read inside the transaction after
    /// its order's lock.
    pub async fn payment_by_reference_in_tx(
        &mut self,
        reference: &str,
    ) -> sqlx::Result<Option<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.reference = $1"
        ))
        .bind(reference)
        .fetch_optional(self.conn())
        .await
    }

    /// Records the provider's event with what it did (`outcome`); false when it was recorded before (a replay), which
    /// leaves the transaction usable on both databases. On PostgreSQL a second transaction inserting the same key
    /// waits for the first and then finds it.
    pub async fn insert_callback(&mut self, row: &NewCallback<'_>, now: i64) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO payment_callbacks (provider, event_id, payment_id, amount, outcome, received_at, sent_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING",
        )
        .bind(row.provider)
        .bind(row.event_id)
        .bind(row.payment_id)
        .bind(row.amount)
        .bind(row.outcome)
        .bind(now)
        .bind(row.sent_at)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records the provider's id of the payment, unless the payment has one or another payment holds it (the column
    /// is unique); true when set.
    pub async fn set_payment_provider_id(
        &mut self,
        payment_id: &str,
        provider_id: &str,
    ) -> sqlx::Result<bool> {
        self.lock_provider_ids([provider_id]).await?;
        let done = sqlx::query(
            "UPDATE payments SET provider_id = $1 WHERE id = $2 AND provider_id IS NULL
                 AND NOT EXISTS (SELECT 1 FROM payments q WHERE q.provider_id = $1)",
        )
        .bind(provider_id)
        .bind(payment_id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// True when a payment carries this provider payment id.
    /// The reference of the payment credited under this provider payment id, if any.
    pub async fn reference_of_provider_id(
        &mut self,
        provider_id: &str,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT reference FROM payments WHERE provider_id = $1")
            .bind(provider_id)
            .fetch_optional(self.conn())
            .await
    }

    pub async fn provider_id_known(&mut self, provider_id: &str) -> sqlx::Result<bool> {
        let found: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM payments WHERE provider_id = $1")
            .bind(provider_id)
            .fetch_optional(self.conn())
            .await?;
        Ok(found.is_some())
    }
}

/// One provider event a batch records ([`Tx::insert_callbacks`]).
pub struct NewCallback<'a> {
    pub provider: &'a str,
    pub event_id: &'a str,
    pub payment_id: &'a str,
    pub amount: Option<i64>,
    pub outcome: &'a str,
    /// When the provider says the money was sent.
    pub sent_at: Option<i64>,
}

/// Rows per multi-row statement of a batch of callbacks (well under both databases' parameter limits).
const CALLBACKS_PER_STATEMENT: usize = 200;

impl Tx {
    /// The orders of the payments with these references that no other transaction holds, locked for the rest of the
    /// transaction in id order, each with its loan's plan: the first statement of a batch of callbacks, as
    /// [`Tx::loan_of_payment_locked_in_tx`] is of one. An order another transaction holds (finance deciding a
    /// payment, the overdue job's page) is left out rather than waited for, so one busy order never holds up a whole
    /// batch. The payments are read after the locks.
    pub async fn loans_of_payments_locked_in_tx(
        &mut self,
        references: &[&str],
    ) -> sqlx::Result<Vec<OrderPlanRow>> {
        if references.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {ORDER_COLUMNS}, (SELECT l.plan_json FROM loans l WHERE l.order_id = orders.id) AS plan_json
             FROM orders WHERE id IN (SELECT p.order_id FROM payments p WHERE p.reference {})
             ORDER BY id{}",
            any_of(self.sqlite, 1, references.len()),
            self.lock_free_rows_clause()
        );
        sqlx::query_as(&sql)
            .bind_values(texts(self.sqlite, references))
            .fetch_all(self.conn())
            .await
    }

    /// The payments with these references, read inside the transaction after their orders' locks.
    pub async fn payments_by_references_in_tx(
        &mut self,
        references: &[&str],
    ) -> sqlx::Result<Vec<PaymentRow>> {
        if references.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.reference {}",
            any_of(self.sqlite, 1, references.len())
        );
        sqlx::query_as(&sql)
            .bind_values(texts(self.sqlite, references))
            .fetch_all(self.conn())
            .await
    }

    /// How many payments of each of these orders hold money (`held`), by order id; orders with none are left out.
    pub async fn held_counts_in_tx(
        &mut self,
        order_ids: &[&str],
    ) -> sqlx::Result<HashMap<String, i64>> {
        if order_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let sql = format!(
            "SELECT order_id, COUNT(*) FROM payments WHERE status = 'held' AND order_id {} GROUP BY order_id",
            any_of(self.sqlite, 1, order_ids.len())
        );
        Ok(sqlx::query_as::<_, (String, i64)>(&sql)
            .bind_values(texts(self.sqlite, order_ids))
            .fetch_all(self.conn())
            .await?
            .into_iter()
            .collect())
    }

    /// Records many provider events, each with what it did, in multi-row inserts; answers the (provider, event id) of
    /// those recorded now. One recorded before (a replay) is left as it was and is not in the answer. The rows go in
    /// (provider, event id) order, so two batches inserting the same keys wait on each other in one order.
    pub async fn insert_callbacks(
        &mut self,
        rows: &[NewCallback<'_>],
        now: i64,
    ) -> sqlx::Result<HashSet<(String, String)>> {
        let mut sorted: Vec<&NewCallback<'_>> = rows.iter().collect();
        sorted.sort_by_key(|r| (r.provider, r.event_id));
        let mut taken = HashSet::with_capacity(rows.len());
        for chunk in sorted.chunks(CALLBACKS_PER_STATEMENT) {
            let mut rows = Rows::new(self.sqlite, &[Text, Text, Text, Int, Text, Int, Int]);
            for r in chunk {
                rows.push([
                    Value::Text(Some(r.provider)),
                    Value::Text(Some(r.event_id)),
                    Value::Text(Some(r.payment_id)),
                    Value::Int(r.amount),
                    Value::Text(Some(r.outcome)),
                    Value::Int(Some(now)),
                    Value::Int(r.sent_at),
                ]);
            }
            let sql = format!(
                "INSERT INTO payment_callbacks (provider, event_id, payment_id, amount, outcome, received_at, sent_at)
                 {} ON CONFLICT DO NOTHING RETURNING provider, event_id",
                rows.values(1)
            );
            taken.extend(
                sqlx::query_as::<_, (String, String)>(&sql)
                    .bind_values(rows.into_values())
                    .fetch_all(self.conn())
                    .await?,
            );
        }
        Ok(taken)
    }
}
