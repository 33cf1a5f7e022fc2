//! Money a provider reported for a reference no payment has, or took back after reporting it received
//! (`unmatched_receipts`, `kind` `unmatched` or `reversed`): recorded once per provider event, shown to finance until
//! they say what they did with it.

use super::{Db, Tx, new_id};

/// One provider event that matched no payment.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct UnmatchedRow {
    pub id: String,
    /// `unmatched` (no payment has the reference) or `reversed` (taken back from the payment named).
    pub kind: String,
    pub payment_id: Option<String>,
    /// The order of the payment named, for a `reversed` one.
    pub order_no: Option<String>,
    pub provider: String,
    pub event_id: String,
    /// `IN` or `ID`; none when neither the currency nor the provider tells.
    pub market: Option<String>,
    /// As the provider quoted it; empty when it quoted none.
    pub reference: String,
    pub provider_payment_id: Option<String>,
    pub amount: Option<i64>,
    pub currency: Option<String>,
    pub sent_at: Option<i64>,
    pub received_at: i64,
    pub resolved_at: Option<i64>,
    pub resolved_by: Option<String>,
    /// The resolving operator's username, when they still exist.
    pub resolved_by_username: Option<String>,
    pub resolution: Option<String>,
}

const COLUMNS: &str = "u.id, u.kind, u.payment_id, o.order_no, u.provider, u.event_id, u.market, u.reference, u.provider_payment_id, u.amount, \
     u.currency, u.sent_at, u.received_at, u.resolved_at, u.resolved_by, op.username AS resolved_by_username, \
     u.resolution";
const FROM: &str = "unmatched_receipts u LEFT JOIN operators op ON op.id = u.resolved_by \
     LEFT JOIN payments p ON p.id = u.payment_id LEFT JOIN orders o ON o.id = p.order_id";

/// What a provider reported, to record.
pub struct NewUnmatched<'a> {
    /// `unmatched` or `reversed`.
    pub kind: &'a str,
    /// The payment money was taken back from (`reversed`).
    pub payment_id: Option<&'a str>,
    pub provider: &'a str,
    pub event_id: &'a str,
    pub market: Option<&'a str>,
    pub reference: &'a str,
    pub provider_payment_id: Option<&'a str>,
    pub amount: Option<i64>,
    pub currency: Option<&'a str>,
    pub sent_at: Option<i64>,
}

impl Tx {
    /// Records the event; its id, or `None` when it was recorded before (a replay).
    pub async fn insert_unmatched_receipt(
        &mut self,
        row: &NewUnmatched<'_>,
        now: i64,
    ) -> sqlx::Result<Option<String>> {
        self.insert_receipt(row, now, "").await
    }

    /// Records a statement's debit taking back a payment's money (`row.kind` `reversed`, provider `statement`), once
    /// per bank row (`row.event_id`), and not when an import before this rule (its event id the import's line) kept one
    /// for the same UTR and amount already. Its id, or `None` when it was recorded before.
    pub async fn insert_statement_reversal(
        &mut self,
        row: &NewUnmatched<'_>,
        now: i64,
    ) -> sqlx::Result<Option<String>> {
        self.insert_receipt(
            row,
            now,
            "WHERE NOT EXISTS (SELECT 1 FROM unmatched_receipts k WHERE k.provider = $2 AND k.kind = $11
                 AND k.reference = $5 AND k.amount = $7 AND k.event_id NOT LIKE 'reversed:%')",
        )
        .await
    }

    /// Inserts `row` unless its (provider, event) is recorded already or `condition` (a `WHERE` over the row's
    /// parameters, or empty) says not to; its id when inserted.
    async fn insert_receipt(
        &mut self,
        row: &NewUnmatched<'_>,
        now: i64,
        condition: &str,
    ) -> sqlx::Result<Option<String>> {
        let id = new_id();
        let done = sqlx::query(&format!(
            "INSERT INTO unmatched_receipts (id, provider, event_id, market, reference, provider_payment_id, amount,
                 currency, sent_at, received_at, kind, payment_id)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 {condition}
             ON CONFLICT DO NOTHING"
        ))
        .bind(&id)
        .bind(row.provider)
        .bind(row.event_id)
        .bind(row.market)
        .bind(row.reference)
        .bind(row.provider_payment_id)
        .bind(row.amount)
        .bind(row.currency)
        .bind(row.sent_at)
        .bind(now)
        .bind(row.kind)
        .bind(row.payment_id)
        .execute(self.conn())
        .await?;
        Ok((done.rows_affected() == 1).then_some(id))
    }

    /// Marks a waiting receipt resolved by `operator_id` with what they did; false when there is none waiting with
    /// this id (resolved before, or none at all).
    pub async fn resolve_unmatched_receipt(
        &mut self,
        id: &str,
        operator_id: &str,
        resolution: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE unmatched_receipts SET resolved_at = $1, resolved_by = $2, resolution = $3
             WHERE id = $4 AND resolved_at IS NULL",
        )
        .bind(now)
        .bind(operator_id)
        .bind(resolution)
        .bind(id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The money `provider` reported that a reversal took back: kept for finance as `unmatched` with `payment_id`
    /// (the payment whose reference it quoted, or none), the oldest, found by its payment id at the provider, or, when
    /// the provider names none (Dragonpay's reversal, of a whole transaction), by the reference it quoted among those
    /// not taken back already.
    pub async fn unmatched_money_in_tx(
        &mut self,
        provider: &str,
        provider_payment_id: Option<&str>,
        reference: &str,
        payment_id: Option<&str>,
    ) -> sqlx::Result<Option<UnmatchedRow>> {
        let (by, key) = match provider_payment_id {
            Some(id) => ("u.provider_payment_id = $2", id),
            None if !reference.is_empty() => (
                "u.reference = $2 AND NOT EXISTS (SELECT 1 FROM unmatched_receipts r
                     WHERE r.kind = 'reversed' AND r.provider = u.provider AND r.reference = u.reference
                       AND r.payment_id IS NOT DISTINCT FROM u.payment_id
                       AND r.provider_payment_id IS NOT DISTINCT FROM u.provider_payment_id)",
                reference,
            ),
            None => return Ok(None),
        };
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE u.provider = $1 AND u.kind = 'unmatched'
                 AND u.payment_id IS NOT DISTINCT FROM $3 AND {by}
             ORDER BY u.received_at, u.id LIMIT 1"
        ))
        .bind(provider)
        .bind(key)
        .bind(payment_id)
        .fetch_optional(self.conn())
        .await
    }

    /// One receipt, read inside the transaction.
    pub async fn unmatched_receipt_in_tx(
        &mut self,
        id: &str,
    ) -> sqlx::Result<Option<UnmatchedRow>> {
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM {FROM} WHERE u.id = $1"))
            .bind(id)
            .fetch_optional(self.conn())
            .await
    }
}

impl Db {
    /// The receipts of `markets` (and those of no known market), waiting ones only unless `all`, newest first, at
    /// most `limit`.
    pub async fn unmatched_receipts(
        &self,
        markets: &[&str],
        all: bool,
        limit: i64,
    ) -> sqlx::Result<Vec<UnmatchedRow>> {
        let in_markets = (0..markets.len())
            .map(|i| format!("${}", i + 3))
            .collect::<Vec<_>>()
            .join(", ");
        let in_markets = if in_markets.is_empty() {
            "NULL".to_owned()
        } else {
            in_markets
        };
        let sql = format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE ($1 = 1 OR u.resolved_at IS NULL) AND (u.market IS NULL OR u.market IN ({in_markets}))
             ORDER BY u.received_at DESC, u.id DESC LIMIT $2"
        );
        let mut query = sqlx::query_as(&sql).bind(i64::from(all)).bind(limit);
        for market in markets {
            query = query.bind(*market);
        }
        query.fetch_all(self.pool()).await
    }

    /// How many receipts wait, per market code (`None`: no known market).
    pub async fn unmatched_receipts_waiting(&self) -> sqlx::Result<Vec<(Option<String>, i64)>> {
        sqlx::query_as(
            "SELECT market, COUNT(*) FROM unmatched_receipts WHERE resolved_at IS NULL GROUP BY market",
        )
        .fetch_all(self.pool())
        .await
    }
}
