//! The end of a deleted account's kept records (docs/ACCOUNT.md, "Retention"): which deleted accounts of a market are
//! past their retention, read a page at a time, and the purge of everything still held under their pseudonymous id,
//! in the caller's transaction.

use super::loans::placeholders;
use super::{Db, Tx};

/// The names of the limits keyed by borrower (`crate::infra::limits`), whose rows go with a purged account (a test
/// there checks that this lists every one).
pub const BORROWER_LIMITS: [&str; 5] = [
    "export",
    "documents",
    "complaints",
    "complaint_replies",
    "payments",
];

/// A deleted account whose records are past their retention: the deletion, the last order's close and how many
/// orders it had.
#[derive(Debug, Clone, PartialEq, Eq, kilat_row::FromRow)]
pub struct DueAccount {
    pub borrower_id: String,
    pub deleted_at: i64,
    /// `None` when the account never had an order.
    pub last_closed_at: Option<i64>,
    pub orders: i64,
}

impl DueAccount {
    /// The end of the relationship: the later of the deletion and the last order's close (epoch ms).
    pub fn relationship_ended_at(&self) -> i64 {
        self.last_closed_at
            .map_or(self.deleted_at, |closed| closed.max(self.deleted_at))
    }
}

/// What a purge removed, counted (logged, reported by `kilat jobs run`, asserted in tests).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purged {
    pub borrowers: u64,
    pub orders: u64,
    pub payments: u64,
    pub utrs: u64,
    pub ledger_entries: u64,
    pub audit_entries: u64,
    pub complaints: u64,
    /// The file-store keys of complaint images whose rows were removed (normally none: the deletion removed them):
    /// the caller removes the files once the transaction has committed.
    pub image_keys: Vec<String>,
}

impl Purged {
    pub fn add(&mut self, other: Purged) {
        self.borrowers += other.borrowers;
        self.orders += other.orders;
        self.payments += other.payments;
        self.utrs += other.utrs;
        self.ledger_entries += other.ledger_entries;
        self.audit_entries += other.audit_entries;
        self.complaints += other.complaints;
        self.image_keys.extend(other.image_keys);
    }
}

/// The deleted accounts of market `$1` whose relationship ended before `$2` (epoch ms): deleted before it, and every
/// order closed before it (an order still open keeps the account, whatever its dates), and no money taken back from
/// one of its payments (a chargeback, a bank's return) waiting for finance: that item stays in view, with the records
/// it names, until finance settles it. `{filter}` narrows the rows.
fn due_sql(filter: &str) -> String {
    format!(
        "SELECT b.id AS borrower_id, b.deleted_at, MAX(o.closed_at) AS last_closed_at, COUNT(o.id) AS orders
         FROM borrowers b LEFT JOIN orders o ON o.borrower_id = b.id
         WHERE b.market = $1 AND b.deleted_at IS NOT NULL AND b.deleted_at < $2
           AND NOT EXISTS (SELECT 1 FROM unmatched_receipts u JOIN payments p ON p.id = u.payment_id
                           WHERE p.borrower_id = b.id AND u.resolved_at IS NULL) {filter}
         GROUP BY b.id, b.deleted_at
         HAVING COUNT(o.id) = COUNT(o.closed_at) AND COALESCE(MAX(o.closed_at), 0) < $2
         ORDER BY b.id"
    )
}

impl Db {
    /// Up to `limit` deleted accounts of `market` after borrower id `after` whose relationship ended before `cutoff`
    /// (keyset paging over the deleted accounts' index).
    pub async fn accounts_past_retention(
        &self,
        market: &str,
        cutoff: i64,
        after: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<DueAccount>> {
        sqlx::query_as(&format!("{} LIMIT $4", due_sql("AND b.id > $3")))
            .bind(market)
            .bind(cutoff)
            .bind(after)
            .bind(limit)
            .fetch_all(self.pool())
            .await
    }
}

impl Tx {
    /// Locks the deleted accounts among `borrower_ids` (PostgreSQL, in id order; SQLite's transaction already holds
    /// the write lock) and answers those still past their retention, read again under the lock: an account another
    /// runner purged meanwhile is gone and is not answered.
    pub async fn lock_accounts_past_retention(
        &mut self,
        market: &str,
        cutoff: i64,
        borrower_ids: &[&str],
    ) -> sqlx::Result<Vec<DueAccount>> {
        if borrower_ids.is_empty() {
            return Ok(Vec::new());
        }
        if !self.lock_clause().is_empty() {
            let sql = format!(
                "SELECT id FROM borrowers WHERE id IN ({}) AND deleted_at IS NOT NULL ORDER BY id{}",
                placeholders(1, borrower_ids.len()),
                self.lock_clause()
            );
            let mut query = sqlx::query(&sql);
            for id in borrower_ids {
                query = query.bind(*id);
            }
            query.fetch_all(self.conn()).await?;
        }
        let sql = due_sql(&format!(
            "AND b.id IN ({})",
            placeholders(3, borrower_ids.len())
        ));
        let mut query = sqlx::query_as(&sql).bind(market).bind(cutoff);
        for id in borrower_ids {
            query = query.bind(*id);
        }
        query.fetch_all(self.conn()).await
    }

    /// Removes every record still held under the deleted accounts `borrower_ids` (which the caller locked and found
    /// past their retention with [`Tx::lock_accounts_past_retention`]): their orders with the accepted KFS and
    /// frozen agreement, timelines, loans, payouts, the ledger, payments with their UTRs and providers' callbacks,
    /// sent reminders, ratings, complaints, the audit entries about those orders, complaints and accounts, what is
    /// left of sessions, certification and telemetry, and the account row itself. Nothing is anonymised and kept:
    /// the records are deleted. Children go first, so the foreign keys hold at every statement.
    pub async fn purge_accounts(&mut self, borrower_ids: &[&str]) -> sqlx::Result<Purged> {
        self.written = super::kept_counts::Written::ALL;
        if borrower_ids.is_empty() {
            return Ok(Purged::default());
        }
        let ids = placeholders(1, borrower_ids.len());
        let orders = format!("SELECT id FROM orders WHERE borrower_id IN ({ids})");
        let payments = format!("SELECT id FROM payments WHERE borrower_id IN ({ids})");
        let complaints = format!("SELECT id FROM complaints WHERE borrower_id IN ({ids})");
        let mut purged = Purged::default();
        // A deleted account's loans ended before its retention began; were one still open, the book forgets it too.
        self.book_leave_of_borrowers(borrower_ids).await?;

        let sql = format!("SELECT storage_key FROM complaint_images WHERE borrower_id IN ({ids})");
        let mut keys = sqlx::query_scalar(&sql);
        for id in borrower_ids {
            keys = keys.bind(*id);
        }
        purged.image_keys = keys.fetch_all(self.conn()).await?;

        // The audit entries about them, while the orders and complaints they name can still be listed.
        purged.audit_entries = self
            .execute_for(
                &format!(
                    "DELETE FROM audit_log WHERE (entity = 'order' AND entity_id IN ({orders}))
                     OR (entity = 'complaint' AND entity_id IN ({complaints}))
                     OR (entity = 'borrower' AND entity_id IN ({ids}))"
                ),
                borrower_ids,
            )
            .await?;
        purged.utrs = self
            .execute_for(
                &format!("DELETE FROM payment_utrs WHERE payment_id IN ({payments})"),
                borrower_ids,
            )
            .await?;
        self.execute_for(
            &format!("DELETE FROM payment_utr_corrections WHERE payment_id IN ({payments})"),
            borrower_ids,
        )
        .await?;
        self.execute_for(
            &format!("DELETE FROM payment_callbacks WHERE payment_id IN ({payments})"),
            borrower_ids,
        )
        .await?;
        // Money taken back from one of its payments, settled by finance (an unsettled one keeps the account).
        self.execute_for(
            &format!("DELETE FROM unmatched_receipts WHERE payment_id IN ({payments})"),
            borrower_ids,
        )
        .await?;
        self.execute_for(
            &format!(
                "DELETE FROM ledger_lines WHERE entry_id IN
                 (SELECT id FROM ledger_entries WHERE order_id IN ({orders}))"
            ),
            borrower_ids,
        )
        .await?;
        purged.ledger_entries = self
            .execute_for(
                &format!("DELETE FROM ledger_entries WHERE order_id IN ({orders})"),
                borrower_ids,
            )
            .await?;
        // A bank statement's line stays the company's record of its bank account; only its link to the payment goes.
        self.execute_for(
            &format!(
                "UPDATE statement_lines SET payment_id = NULL WHERE payment_id IN ({payments})"
            ),
            borrower_ids,
        )
        .await?;
        purged.payments = self
            .execute_for(
                &format!("DELETE FROM payments WHERE borrower_id IN ({ids})"),
                borrower_ids,
            )
            .await?;
        for table in [
            "payouts",
            "payout_approvals",
            "payout_sends",
            "transfer_references",
            "loans",
            "loan_arrears",
            "collection_contacts",
            "promises_to_pay",
            "order_events",
            "order_ratings",
        ] {
            self.execute_for(
                &format!("DELETE FROM {table} WHERE order_id IN ({orders})"),
                borrower_ids,
            )
            .await?;
        }
        self.execute_for(
            &format!("DELETE FROM complaint_messages WHERE complaint_id IN ({complaints})"),
            borrower_ids,
        )
        .await?;
        for table in ["complaint_images", "notification_outbox"] {
            self.execute_for(
                &format!("DELETE FROM {table} WHERE borrower_id IN ({ids})"),
                borrower_ids,
            )
            .await?;
        }
        purged.complaints = self
            .execute_for(
                &format!("DELETE FROM complaints WHERE borrower_id IN ({ids})"),
                borrower_ids,
            )
            .await?;
        purged.orders = self
            .execute_for(
                &format!("DELETE FROM orders WHERE borrower_id IN ({ids})"),
                borrower_ids,
            )
            .await?;
        // What the deletion already emptied (sessions are revoked, not removed), so the row can go.
        for table in [
            "borrower_sessions",
            "certification_steps",
            "certification_log",
            "client_events",
            "borrower_devices",
            "device_tokens",
            "borrower_locations",
            "app_ratings",
            "borrower_fingerprints",
        ] {
            self.execute_for(
                &format!("DELETE FROM {table} WHERE borrower_id IN ({ids})"),
                borrower_ids,
            )
            .await?;
        }
        // The borrower's limit rows (`<limit>:<borrower id>`).
        let limit_keys = (1..=borrower_ids.len())
            .flat_map(|n| BORROWER_LIMITS.map(|limit| format!("'{limit}:' || ${n}")))
            .collect::<Vec<_>>()
            .join(", ");
        self.execute_for(
            &format!("DELETE FROM rate_limits WHERE key IN ({limit_keys})"),
            borrower_ids,
        )
        .await?;
        purged.borrowers = self
            .execute_for(
                &format!("DELETE FROM borrowers WHERE id IN ({ids}) AND deleted_at IS NOT NULL"),
                borrower_ids,
            )
            .await?;
        Ok(purged)
    }

    /// Runs `sql`, whose placeholders `$1…$n` are `borrower_ids`, and answers the rows it affected.
    async fn execute_for(&mut self, sql: &str, borrower_ids: &[&str]) -> sqlx::Result<u64> {
        let mut query = sqlx::query(sql);
        for id in borrower_ids {
            query = query.bind(*id);
        }
        Ok(query.execute(self.conn()).await?.rows_affected())
    }
}
