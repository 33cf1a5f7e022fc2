//! Payment providers' callbacks: one row per provider event under a unique key, written in the transaction that
//! settles its payment, so a repeated callback is recognised and posts nothing.

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
    pub async fn insert_callback(
        &mut self,
        provider: &str,
        event_id: &str,
        payment_id: &str,
        amount: Option<i64>,
        outcome: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO payment_callbacks (provider, event_id, payment_id, amount, outcome, received_at)
             VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
        )
        .bind(provider)
        .bind(event_id)
        .bind(payment_id)
        .bind(amount)
        .bind(outcome)
        .bind(now)
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
    pub async fn provider_id_known(&mut self, provider_id: &str) -> sqlx::Result<bool> {
        let found: Option<(i64,)> = sqlx::query_as("SELECT 1 FROM payments WHERE provider_id = $1")
            .bind(provider_id)
            .fetch_optional(self.conn())
            .await?;
        Ok(found.is_some())
    }
}
