//! Orders: created on confirm with the accepted KFS, listed for their borrower, with their timeline.

use sqlx::Row;
use sqlx::any::AnyRow;

use super::Db;

/// A new order in its first state.
#[derive(Debug, Clone)]
pub struct NewOrder<'a> {
    pub order_no: &'a str,
    pub borrower_id: &'a str,
    pub market: &'a str,
    pub product_code: &'a str,
    pub product_name: &'a str,
    pub term_code: &'a str,
    pub currency: &'a str,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: &'a str,
    pub status: &'a str,
    pub kfs_json: &'a str,
    pub kfs_hash: &'a str,
    pub idempotency_key: &'a str,
    pub request_hash: &'a str,
    pub now: i64,
}

#[derive(Debug, Clone)]
pub struct OrderRow {
    pub id: String,
    pub order_no: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: String,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: String,
    pub status: String,
    pub kfs_json: String,
    pub request_hash: String,
    pub created_at: i64,
}

#[derive(Debug, Clone)]
pub struct OrderEventRow {
    pub status: String,
    pub at: i64,
}

/// What inserting an order did.
#[derive(Debug)]
pub enum Inserted {
    Created(OrderRow),
    /// The borrower already used this idempotency key: the order it made.
    Existing(OrderRow),
    /// Another order of the borrower is open.
    OpenOrderExists,
}

const COLUMNS: &str = "id, order_no, product_code, product_name, term_code, currency, amount, net_disbursed, \
     total_repayable, apr, apr_display, status, kfs_json, request_hash, created_at";

fn order_row(row: &AnyRow) -> sqlx::Result<OrderRow> {
    Ok(OrderRow {
        id: row.try_get("id")?,
        order_no: row.try_get("order_no")?,
        product_code: row.try_get("product_code")?,
        product_name: row.try_get("product_name")?,
        term_code: row.try_get("term_code")?,
        currency: row.try_get("currency")?,
        amount: row.try_get("amount")?,
        net_disbursed: row.try_get("net_disbursed")?,
        total_repayable: row.try_get("total_repayable")?,
        apr: row.try_get("apr")?,
        apr_display: row.try_get("apr_display")?,
        status: row.try_get("status")?,
        kfs_json: row.try_get("kfs_json")?,
        request_hash: row.try_get("request_hash")?,
        created_at: row.try_get("created_at")?,
    })
}

impl Db {
    /// The borrower's order made with this idempotency key.
    pub async fn order_by_idempotency_key(
        &self,
        borrower_id: &str,
        key: &str,
    ) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 AND idempotency_key = $2"
        ))
        .bind(borrower_id)
        .bind(key)
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(order_row)
        .transpose()
    }

    /// The borrower's open order, if any.
    pub async fn open_order(&self, borrower_id: &str) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 AND closed_at IS NULL"
        ))
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(order_row)
        .transpose()
    }

    /// Creates the order and its first timeline entry, all or nothing. The database's unique indexes settle races:
    /// a second confirm with the same key finds the first order; a second open order is refused.
    pub async fn insert_order(&self, new: &NewOrder<'_>) -> sqlx::Result<Inserted> {
        let id = uuid::Uuid::now_v7().to_string();
        let mut tx = self.pool().begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO orders (id, order_no, borrower_id, market, product_code, product_name, term_code, currency,
                 amount, net_disbursed, total_repayable, apr, apr_display, status, kfs_json, kfs_hash,
                 idempotency_key, request_hash, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19)",
        )
        .bind(&id)
        .bind(new.order_no)
        .bind(new.borrower_id)
        .bind(new.market)
        .bind(new.product_code)
        .bind(new.product_name)
        .bind(new.term_code)
        .bind(new.currency)
        .bind(new.amount)
        .bind(new.net_disbursed)
        .bind(new.total_repayable)
        .bind(new.apr)
        .bind(new.apr_display)
        .bind(new.status)
        .bind(new.kfs_json)
        .bind(new.kfs_hash)
        .bind(new.idempotency_key)
        .bind(new.request_hash)
        .bind(new.now)
        .execute(&mut *tx)
        .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                drop(tx);
                if let Some(existing) = self
                    .order_by_idempotency_key(new.borrower_id, new.idempotency_key)
                    .await?
                {
                    return Ok(Inserted::Existing(existing));
                }
                if self.open_order(new.borrower_id).await?.is_some() {
                    return Ok(Inserted::OpenOrderExists);
                }
                // The order number was taken (one chance in a billion a day): the caller tries another.
                return Err(sqlx::Error::Database(e));
            }
            Err(e) => return Err(e),
        }
        sqlx::query(
            "INSERT INTO order_events (id, order_id, status, actor, at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(&id)
        .bind(new.status)
        .bind("borrower")
        .bind(new.now)
        .execute(&mut *tx)
        .await?;
        let row = sqlx::query(&format!("SELECT {COLUMNS} FROM orders WHERE id = $1"))
            .bind(&id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Inserted::Created(order_row(&row)?))
    }

    /// The borrower's orders, newest first.
    pub async fn orders_of(&self, borrower_id: &str, limit: i64) -> sqlx::Result<Vec<OrderRow>> {
        let rows = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        ))
        .bind(borrower_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter().map(order_row).collect()
    }

    /// One order of this borrower; another borrower's order is as good as missing.
    pub async fn order_of(
        &self,
        borrower_id: &str,
        order_no: &str,
    ) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 AND order_no = $2"
        ))
        .bind(borrower_id)
        .bind(order_no)
        .fetch_optional(self.pool())
        .await?
        .as_ref()
        .map(order_row)
        .transpose()
    }

    /// The order's timeline, oldest first.
    pub async fn order_events(&self, order_id: &str) -> sqlx::Result<Vec<OrderEventRow>> {
        let rows =
            sqlx::query("SELECT status, at FROM order_events WHERE order_id = $1 ORDER BY at, id")
                .bind(order_id)
                .fetch_all(self.pool())
                .await?;
        rows.iter()
            .map(|row| {
                Ok(OrderEventRow {
                    status: row.try_get("status")?,
                    at: row.try_get("at")?,
                })
            })
            .collect()
    }
}
