//! What the console reads and writes about orders besides their status: the review queue, an order by its number,
//! its borrower, and the reason an operator gave for a decision. Status changes stay with `crate::orders`.

use kilat_domain::{Code, Currency, Market, OrderState};

use super::orders::{COLUMNS, OrderRow};
use super::sign_in::BorrowerRow;
use super::{Db, Tx};

/// One order of the review queue, with its borrower's encrypted phone.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct QueueRow {
    pub order_no: String,
    pub borrower_id: String,
    pub phone_enc: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    #[sqlx(try_from = "String")]
    pub currency: Currency,
    pub amount: i64,
    pub apr: i64,
    pub apr_display: String,
    pub created_at: i64,
}

impl Db {
    /// One market's orders in `status`, oldest first (at most `limit`).
    pub async fn orders_in_status(
        &self,
        market: Market,
        status: OrderState,
        limit: i64,
    ) -> sqlx::Result<Vec<QueueRow>> {
        sqlx::query_as(
            "SELECT o.order_no, o.borrower_id, b.phone_enc, o.product_code, o.product_name, o.term_code, o.currency,
                    o.amount, o.apr, o.apr_display, o.created_at
             FROM orders o JOIN borrowers b ON b.id = o.borrower_id
             WHERE o.market = $1 AND o.status = $2
             ORDER BY o.created_at, o.id LIMIT $3",
        )
        .bind(market.code())
        .bind(status.code())
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Any borrower's order, by its number.
    pub async fn order_by_no(&self, order_no: &str) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM orders WHERE order_no = $1"))
            .bind(order_no)
            .fetch_optional(self.pool())
            .await
    }

    pub async fn borrower_by_id(&self, id: &str) -> sqlx::Result<Option<BorrowerRow>> {
        sqlx::query_as("SELECT id, market, phone_enc, created_at FROM borrowers WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await
    }
}

impl Tx {
    /// Records the reason of a decision, in the transaction that changes the order's status.
    pub async fn set_review_reason(&mut self, order_id: &str, reason: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE orders SET review_reason = $1 WHERE id = $2")
            .bind(reason)
            .bind(order_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }
}
