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
#[derive(Debug, Clone, sqlx::FromRow)]
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
}

impl Db {
    /// Entries matching every filter given, newest first (at most `limit`).
    pub async fn search_audit(
        &self,
        filter: &AuditFilter<'_>,
        limit: i64,
    ) -> sqlx::Result<Vec<AuditEntry>> {
        // A filter left out is bound as NULL and matches everything: one statement, no SQL built from input.
        sqlx::query_as(
            "SELECT id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at
             FROM audit_log
             WHERE ($1 IS NULL OR (entity = 'order' AND entity_id = $1))
               AND ($2 IS NULL OR (actor_kind = 'operator' AND actor_id = $2))
               AND ($3 IS NULL OR at >= $3)
               AND ($4 IS NULL OR at < $4)
             ORDER BY at DESC, id DESC LIMIT $5",
        )
        .bind(filter.order_id)
        .bind(filter.operator_id)
        .bind(filter.from)
        .bind(filter.to)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }
}
