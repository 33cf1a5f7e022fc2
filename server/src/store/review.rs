//! What the console reads and writes about orders besides their status: the review queue, an order by its number,
//! its borrower, and the reason an operator gave for a decision. Status changes stay with `crate::orders`.

use kilat_domain::{Code, Currency, Market, OrderState};

use super::orders::{COLUMNS, OrderRow};
use super::sign_in::BorrowerRow;
use super::{Db, Tx};

/// One order of the review queue, with its borrower's phone as lists show it (written with the encrypted phone: no
/// decryption per row) and its claim, if any (possibly expired: the caller compares `claimed_until` with now).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct QueueRow {
    pub order_no: String,
    pub borrower_id: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    #[row(try_from = "String")]
    pub currency: Currency,
    pub amount: i64,
    pub apr: i64,
    pub apr_display: String,
    pub created_at: i64,
    pub claimed_by: Option<String>,
    pub claimed_by_username: Option<String>,
    pub claimed_until: Option<i64>,
}

/// How many orders of a market are in a status, and how many of them hold a live claim.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StatusCount {
    pub market: String,
    pub total: i64,
    pub claimed: i64,
}

/// What the console keeps about a review besides the status: the team's note and the claim.
#[derive(Debug, Clone, Default, kilat_row::FromRow)]
pub struct ReviewMeta {
    pub review_note: Option<String>,
    pub claimed_by: Option<String>,
    pub claimed_by_username: Option<String>,
    pub claimed_until: Option<i64>,
}

/// One of a borrower's orders, for their history.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct HistoryRow {
    pub id: String,
    pub order_no: String,
    pub product_name: String,
    #[row(try_from = "String")]
    pub currency: Currency,
    pub amount: i64,
    #[row(try_from = "String")]
    pub status: OrderState,
    pub created_at: i64,
    pub closed_at: Option<i64>,
}

/// A status an order of the borrower entered, and when.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StatusEntered {
    pub order_id: String,
    pub status: String,
    pub at: i64,
}

impl Db {
    /// One market's orders in `status`, oldest first: `limit` of them after the first `offset`.
    pub async fn orders_in_status(
        &self,
        market: Market,
        status: OrderState,
        offset: i64,
        limit: i64,
    ) -> sqlx::Result<Vec<QueueRow>> {
        // The status inline (a code of a closed set, never input): PostgreSQL then plans the page on the partial
        // index of the orders in review (`orders_in_review`, migration 0040) instead of a generic plan over the book.
        sqlx::query_as(&format!(
            "SELECT o.order_no, o.borrower_id, b.phone_masked, o.product_code, o.product_name, o.term_code, o.currency,
                    o.amount, o.apr, o.apr_display, o.created_at, o.claimed_by, op.username AS claimed_by_username,
                    o.claimed_until
             FROM orders o JOIN borrowers b ON b.id = o.borrower_id
             LEFT JOIN operators op ON op.id = o.claimed_by
             WHERE o.market = $1 AND o.status = '{}'
             ORDER BY o.created_at, o.id LIMIT $2 OFFSET $3",
            status.code()
        ))
        .bind(market.code())
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await
    }

    /// Per market: the orders in review, and those of them claimed until after `now`; or the count kept since the
    /// last change ([`super::kept_counts`]: an order entering or leaving review, a claim taken or released).
    pub async fn review_counts(&self, now: i64) -> sqlx::Result<Vec<StatusCount>> {
        let db = self.clone();
        self.counts
            .review
            .get_or_count(
                (OrderState::PendingReview.code().to_owned(), String::new()),
                async move { db.status_counts(OrderState::PendingReview, now).await },
            )
            .await
    }

    /// Per market: the orders in `status`, and those of them claimed until after `now`.
    async fn status_counts(&self, status: OrderState, now: i64) -> sqlx::Result<Vec<StatusCount>> {
        // The status inline, as above: counted on the partial index, which holds `claimed_until` too.
        sqlx::query_as(&format!(
            "SELECT market, COUNT(*) AS total,
                    COALESCE(SUM(CASE WHEN claimed_until > $1 THEN 1 ELSE 0 END), 0) AS claimed
             FROM orders WHERE status = '{}' GROUP BY market ORDER BY market",
            status.code()
        ))
        .bind(now)
        .fetch_all(self.pool())
        .await
    }

    /// The team's note and the claim of an order.
    pub async fn review_meta(&self, order_id: &str) -> sqlx::Result<ReviewMeta> {
        Ok(sqlx::query_as(
            "SELECT o.review_note, o.claimed_by, op.username AS claimed_by_username, o.claimed_until
             FROM orders o LEFT JOIN operators op ON op.id = o.claimed_by WHERE o.id = $1",
        )
        .bind(order_id)
        .fetch_optional(self.pool())
        .await?
        .unwrap_or_default())
    }

    /// Every order of a borrower, newest first (at most `limit`).
    pub async fn orders_of_borrower(
        &self,
        borrower_id: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<HistoryRow>> {
        sqlx::query_as(
            "SELECT id, order_no, product_name, currency, amount, status, created_at, closed_at FROM orders
             WHERE borrower_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2",
        )
        .bind(borrower_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The statuses a borrower's orders entered, each order's in time order (their overdue spells).
    pub async fn statuses_of_borrower(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<StatusEntered>> {
        sqlx::query_as(
            "SELECT e.order_id, e.status, e.at FROM order_events e JOIN orders o ON o.id = e.order_id
             WHERE o.borrower_id = $1 ORDER BY e.order_id, e.at, e.id",
        )
        .bind(borrower_id)
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
    /// Claims an order in review for `operator_id` until `until`, when nobody holds a live claim on it (or the
    /// operator holds it already: the claim is extended). One conditional update: of simultaneous claims one wins.
    pub async fn claim_order(
        &mut self,
        order_id: &str,
        operator_id: &str,
        now: i64,
        until: i64,
    ) -> sqlx::Result<bool> {
        self.written.review = true;
        Ok(sqlx::query(
            "UPDATE orders SET claimed_by = $1, claimed_until = $2
             WHERE id = $3 AND status = $4
               AND (claimed_by IS NULL OR claimed_by = $1 OR claimed_until IS NULL OR claimed_until <= $5)",
        )
        .bind(operator_id)
        .bind(until)
        .bind(order_id)
        .bind(OrderState::PendingReview.code())
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1)
    }

    /// Releases an order's claim: `holder` only when that operator holds it (live), `None` whoever holds it (an
    /// admin). True when a live claim was released.
    pub async fn release_claim(
        &mut self,
        order_id: &str,
        holder: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        self.written.review = true;
        let live = "UPDATE orders SET claimed_by = NULL, claimed_until = NULL
             WHERE id = $1 AND claimed_by IS NOT NULL AND claimed_until > $2";
        let done = match holder {
            Some(holder) => {
                sqlx::query(&format!("{live} AND claimed_by = $3"))
                    .bind(order_id)
                    .bind(now)
                    .bind(holder)
                    .execute(self.conn())
                    .await?
            }
            None => {
                sqlx::query(live)
                    .bind(order_id)
                    .bind(now)
                    .execute(self.conn())
                    .await?
            }
        };
        Ok(done.rows_affected() == 1)
    }

    /// Releases the live review claims `operator_id` holds at `now` on orders of markets other than `keep` (disabled,
    /// or no longer a reviewer: none kept; a market taken away: the others kept): the orders' ids.
    pub async fn release_claims_of(
        &mut self,
        operator_id: &str,
        now: i64,
        keep: &[&str],
    ) -> sqlx::Result<Vec<String>> {
        self.written.review = true;
        let kept = if keep.is_empty() {
            String::new()
        } else {
            let list = (0..keep.len())
                .map(|n| format!("${}", n + 3))
                .collect::<Vec<_>>()
                .join(", ");
            format!(" AND market NOT IN ({list})")
        };
        let sql = format!(
            "UPDATE orders SET claimed_by = NULL, claimed_until = NULL
             WHERE claimed_by = $1 AND claimed_until > $2{kept} RETURNING id"
        );
        let mut query = sqlx::query_scalar(&sql).bind(operator_id).bind(now);
        for market in keep {
            query = query.bind(*market);
        }
        query.fetch_all(self.conn()).await
    }

    /// Clears the claim of an order being decided by `operator_id`, unless another operator holds it live: false
    /// then, and nothing is changed (the row stays locked to this transaction until it ends).
    pub async fn take_claim_for_decision(
        &mut self,
        order_id: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        self.written.review = true;
        Ok(sqlx::query(
            "UPDATE orders SET claimed_by = NULL, claimed_until = NULL
             WHERE id = $1 AND (claimed_by IS NULL OR claimed_by = $2 OR claimed_until IS NULL OR claimed_until <= $3)",
        )
        .bind(order_id)
        .bind(operator_id)
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1)
    }

    /// Records the team's note of an approval, in the transaction that changes the order's status.
    pub async fn set_review_note(
        &mut self,
        order_id: &str,
        note: Option<&str>,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE orders SET review_note = $1 WHERE id = $2")
            .bind(note)
            .bind(order_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// Records the reason of a rejection (the borrower reads it), in the transaction that changes the order's status.
    /// Why the lender withdrew the order (finance's words, the borrower reads them).
    pub async fn set_withdrawal_reason(
        &mut self,
        order_id: &str,
        reason: &str,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE orders SET withdrawal_reason = $1 WHERE id = $2")
            .bind(reason)
            .bind(order_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    pub async fn set_review_reason(&mut self, order_id: &str, reason: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE orders SET review_reason = $1 WHERE id = $2")
            .bind(reason)
            .bind(order_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }
}
