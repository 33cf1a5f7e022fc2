//! The audit trail: who did what, when, to which record, with its state before and after. Append-only.

use super::loans::placeholders;
use super::{Db, Tx, new_id};

/// One entry to append.
#[derive(Debug, Clone)]
pub struct NewAuditEntry<'a> {
    /// `borrower`, `operator` or `system`.
    pub actor_kind: &'a str,
    pub actor_id: Option<&'a str>,
    /// E.g. `order.approve`.
    pub action: &'a str,
    /// E.g. `order`.
    pub entity: &'a str,
    pub entity_id: &'a str,
    pub before_json: Option<&'a str>,
    pub after_json: Option<&'a str>,
    pub at: i64,
}

/// An entry as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AuditEntry {
    pub id: String,
    pub actor_kind: String,
    pub actor_id: Option<String>,
    pub action: String,
    pub entity: String,
    pub entity_id: String,
    pub before_json: Option<String>,
    pub after_json: Option<String>,
    pub at: i64,
}

impl Tx {
    pub async fn insert_audit(&mut self, entry: &NewAuditEntry<'_>) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(new_id())
        .bind(entry.actor_kind)
        .bind(entry.actor_id)
        .bind(entry.action)
        .bind(entry.entity)
        .bind(entry.entity_id)
        .bind(entry.before_json)
        .bind(entry.after_json)
        .bind(entry.at)
        .execute(self.conn())
        .await?;
        Ok(())
    }
}

impl Tx {
    /// Appends several entries in multi-row inserts (the batched [`Tx::insert_audit`]).
    pub async fn insert_audits(&mut self, entries: &[NewAuditEntry<'_>]) -> sqlx::Result<()> {
        for chunk in entries.chunks(300) {
            let values = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 9 + 1, 9)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
                 VALUES {values}"
            );
            let mut query = sqlx::query(&sql);
            for entry in chunk {
                query = query
                    .bind(new_id())
                    .bind(entry.actor_kind)
                    .bind(entry.actor_id)
                    .bind(entry.action)
                    .bind(entry.entity)
                    .bind(entry.entity_id)
                    .bind(entry.before_json)
                    .bind(entry.after_json)
                    .bind(entry.at);
            }
            query.execute(self.conn()).await?;
        }
        Ok(())
    }
}

impl Db {
    /// The entries about one record, oldest first.
    pub async fn audit_of(&self, entity: &str, entity_id: &str) -> sqlx::Result<Vec<AuditEntry>> {
        sqlx::query_as(
            "SELECT id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at
             FROM audit_log WHERE entity = $1 AND entity_id = $2 ORDER BY at, id",
        )
        .bind(entity)
        .bind(entity_id)
        .fetch_all(self.pool())
        .await
    }
}

/// An entry as the console's search shows it: with the operator's username and the order's number and currency,
/// where the entry has them.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AuditRow {
    #[row(flatten)]
    pub entry: AuditEntry,
    /// The acting operator's username (operators are never deleted, only disabled).
    pub actor_name: Option<String>,
    /// The order's number, for an entry about an order.
    pub order_no: Option<String>,
    /// The order's currency, for an entry about an order: what the amounts before and after are in.
    pub currency: Option<String>,
}

/// What the audit search filters on; each filter is optional.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter<'a> {
    /// Entries about this order (its id).
    pub order_id: Option<&'a str>,
    /// Entries made by this operator (their id).
    pub operator_id: Option<&'a str>,
    /// Epoch milliseconds, inclusive.
    pub from: Option<i64>,
    /// Epoch milliseconds, exclusive.
    pub to: Option<i64>,
    /// One action (`order.approve`), or a family of actions when it ends in a dot (`payment.`). Letters, digits,
    /// `_` and `.` only: the caller checks it, so it is never a LIKE pattern of the user's.
    pub action: Option<&'a str>,
    /// An operator of one market: only the entries on that market's orders and complaints, and the operator's own
    /// (`market` is its code, `own_id` the operator's id); `None` for an operator of every market.
    pub scope: Option<AuditScope<'a>>,
}

/// The entries an operator of one market reads (`AuditFilter::scope`).
#[derive(Debug, Clone, Copy)]
pub struct AuditScope<'a> {
    pub market: &'a str,
    pub own_id: &'a str,
}

impl Db {
    /// Entries matching every filter given, newest first (at most `limit`), with the names and numbers they refer to.
    pub async fn search_audit(
        &self,
        filter: &AuditFilter<'_>,
        limit: i64,
    ) -> sqlx::Result<Vec<AuditRow>> {
        let (action, family) = match filter.action {
            Some(a) if a.ends_with('.') => (None, Some(format!("{a}%"))),
            Some(a) => (Some(a), None),
            None => (None, None),
        };
        // A filter left out is bound as NULL and matches everything: one statement, no SQL built from input.
        sqlx::query_as(
            "SELECT a.id, a.actor_kind, a.actor_id, a.action, a.entity, a.entity_id, a.before_json, a.after_json,
                    a.at, op.username AS actor_name, o.order_no, o.currency
             FROM audit_log a
             LEFT JOIN operators op ON a.actor_kind = 'operator' AND op.id = a.actor_id
             LEFT JOIN orders o ON a.entity = 'order' AND o.id = a.entity_id
             LEFT JOIN complaints c ON a.entity = 'complaint' AND c.id = a.entity_id
             WHERE ($1 IS NULL OR (a.entity = 'order' AND a.entity_id = $1))
               AND ($8 IS NULL OR o.market = $8 OR c.market = $8
                    OR (a.actor_kind = 'operator' AND a.actor_id = $9))
               AND ($2 IS NULL OR (a.actor_kind = 'operator' AND a.actor_id = $2))
               AND ($3 IS NULL OR a.at >= $3)
               AND ($4 IS NULL OR a.at < $4)
               AND ($5 IS NULL OR a.action = $5)
               AND ($6 IS NULL OR a.action LIKE $6)
             ORDER BY a.at DESC, a.id DESC LIMIT $7",
        )
        .bind(filter.order_id)
        .bind(filter.operator_id)
        .bind(filter.from)
        .bind(filter.to)
        .bind(action)
        .bind(family)
        .bind(limit)
        .bind(filter.scope.map(|s| s.market))
        .bind(filter.scope.map(|s| s.own_id))
        .fetch_all(self.pool())
        .await
    }
}
