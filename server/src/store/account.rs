//! The borrower's account as a whole: the row lock that settles a deletion racing a confirm, the erasure of a deleted
//! account's personal data in one transaction, and the reads of a data export (docs/ACCOUNT.md).

use super::orders::{open_agreement, seal_agreement};
use super::{Db, Tx};
use crate::infra::crypto::Secrets;

/// An open order of a borrower, read inside the deletion's transaction.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OpenOrderRef {
    pub id: String,
    pub order_no: String,
    pub status: String,
}

/// An order's frozen agreement, to be rewritten without the borrower's particulars.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AgreementRef {
    pub id: String,
    /// Sealed to the order's row (`store::orders::seal_agreement`).
    pub agreement_json: Option<String>,
}

impl AgreementRef {
    /// The agreement in clear (JSON), if the order has one.
    pub fn agreement(&self, secrets: &Secrets) -> anyhow::Result<Option<String>> {
        open_agreement(secrets, &self.id, self.agreement_json.as_deref())
    }
}

/// A session as the export lists it (never its token or hash).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct SessionRecord {
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked_at: Option<i64>,
}

/// A step of the certification log, as the export lists it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct CertificationLogRecord {
    pub step: String,
    pub event: String,
    pub at: i64,
}

/// A reminder sent or queued to the borrower, as the export lists it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct NotificationRecord {
    pub kind: String,
    pub installment: i64,
    pub text: String,
    pub status: String,
    pub created_at: i64,
    pub sent_at: Option<i64>,
}

/// A rating the borrower gave an order.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct RatingRecord {
    pub score: i64,
    pub comment: Option<String>,
    pub created_at: i64,
}

/// What the erasure removed, counted (logged, and asserted in tests).
#[derive(Debug, Clone, Default)]
pub struct Erased {
    pub sessions_revoked: u64,
    pub certification_steps: u64,
    pub login_codes: u64,
    pub notifications: u64,
    /// The file-store keys of the complaint images whose rows were deleted: the caller removes the files once the
    /// transaction has committed.
    pub image_keys: Vec<String>,
}

/// The order number of a payment of the borrower that is not settled at `$2`: a UTR waiting for finance, money held,
/// money owed back to the borrower and not yet sent, a virtual account or Dragonpay slip a provider still takes
/// money for (a slip paid after its loan closed is owed back, to the bank account the deletion would erase), or money
/// a provider or the bank took back after it was credited (a chargeback, a return) that finance has yet to settle:
/// the loan's credit stands on money the lender no longer has, and finance needs the borrower to settle it.
const UNSETTLED_PAYMENT: &str =
    "SELECT o.order_no FROM payments p JOIN orders o ON o.id = p.order_id
     WHERE p.borrower_id = $1 AND (p.status IN ('verifying', 'held', 'refund_due')
         OR (p.status = 'pending' AND p.expires_at > $2)
         OR EXISTS (SELECT 1 FROM unmatched_receipts u WHERE u.payment_id = p.id AND u.resolved_at IS NULL))
     ORDER BY p.created_at LIMIT 1";

impl Db {
    /// The order of one of the borrower's payments still unsettled at `now` (see [`UNSETTLED_PAYMENT`]): the account
    /// keeps the bank account the money goes back to until it is settled.
    pub async fn unsettled_payment_of(
        &self,
        borrower_id: &str,
        now: i64,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(UNSETTLED_PAYMENT)
            .bind(borrower_id)
            .bind(now)
            .fetch_optional(self.pool())
            .await
    }

    /// Begins a write transaction that holds the borrower's row while the account is live ([`Tx::lock_live_borrower`]);
    /// `None` once the account is deleted. Every write of a borrower's personal data starts here, so that it either
    /// commits before a deletion (which then erases it) or sees the deletion and writes nothing.
    pub async fn begin_for_live_borrower(&self, borrower_id: &str) -> sqlx::Result<Option<Tx>> {
        let mut tx = self.begin().await?;
        if tx.lock_live_borrower(borrower_id).await?.is_some() {
            Ok(Some(tx))
        } else {
            tx.rollback().await?;
            Ok(None)
        }
    }
}

impl Tx {
    /// Locks the borrower's row (PostgreSQL; SQLite's transaction holds the write lock already) and answers its
    /// phone hash while the account is not deleted, `None` once it is. A confirm and a deletion both start here,
    /// so whichever comes second sees what the first wrote.
    pub async fn lock_live_borrower(&mut self, borrower_id: &str) -> sqlx::Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as(&format!(
            "SELECT phone_hash FROM borrowers WHERE id = $1 AND deleted_at IS NULL{}",
            self.lock_clause()
        ))
        .bind(borrower_id)
        .fetch_optional(self.conn())
        .await?;
        Ok(row.map(|(hash,)| hash))
    }

    /// The borrower's open orders, read inside the transaction that holds their row.
    pub async fn open_orders_of(&mut self, borrower_id: &str) -> sqlx::Result<Vec<OpenOrderRef>> {
        sqlx::query_as(
            "SELECT id, order_no, status FROM orders WHERE borrower_id = $1 AND closed_at IS NULL",
        )
        .bind(borrower_id)
        .fetch_all(self.conn())
        .await
    }

    /// The order of one of the borrower's payments still unsettled, read inside the transaction that holds their row:
    /// see [`Db::unsettled_payment_of`].
    pub async fn unsettled_payment_of_in_tx(
        &mut self,
        borrower_id: &str,
        now: i64,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(UNSETTLED_PAYMENT)
            .bind(borrower_id)
            .bind(now)
            .fetch_optional(self.conn())
            .await
    }

    /// Every order's frozen agreement, to rewrite without the borrower's particulars.
    pub async fn agreements_of(&mut self, borrower_id: &str) -> sqlx::Result<Vec<AgreementRef>> {
        sqlx::query_as("SELECT id, agreement_json FROM orders WHERE borrower_id = $1 ORDER BY id")
            .bind(borrower_id)
            .fetch_all(self.conn())
            .await
    }

    /// Replaces an order's agreement with `json`, sealed to the order's row.
    pub async fn set_agreement_json(
        &mut self,
        secrets: &Secrets,
        order_id: &str,
        json: &str,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE orders SET agreement_json = $1 WHERE id = $2")
            .bind(seal_agreement(secrets, order_id, json))
            .bind(order_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// Erases a borrower's personal data and marks the row deleted, after [`Tx::lock_live_borrower`] answered
    /// `phone_hash`: every session revoked; the certification (names, ID and account numbers, addresses, emergency
    /// contacts) and its log deleted; the phone's codes and sign-in limiter dropped; the reminders not yet sent
    /// dropped; rating comments (free text) cleared; the complaints' conversation and images deleted (the ticket, its
    /// category, dates and status stay as the grievance record) and their rating comment cleared; the app's telemetry
    /// (events, device, push tokens, location, app ratings) deleted; the phone replaced by a tombstone that no phone
    /// hashes to.
    /// Orders, loans, payments and the ledger stay, owned by the pseudonymous row id. A table added later that holds
    /// a borrower's personal data must be erased here too: the deletion test scans every table and fails otherwise.
    pub async fn erase_borrower(
        &mut self,
        borrower_id: &str,
        phone_hash: &str,
        limit_keys: &[String],
        now: i64,
    ) -> sqlx::Result<Erased> {
        let sessions_revoked = sqlx::query(
            "UPDATE borrower_sessions SET revoked_at = $1 WHERE borrower_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(borrower_id)
        .execute(self.conn())
        .await?
        .rows_affected();
        let certification_steps =
            sqlx::query("DELETE FROM certification_steps WHERE borrower_id = $1")
                .bind(borrower_id)
                .execute(self.conn())
                .await?
                .rows_affected();
        sqlx::query("DELETE FROM certification_log WHERE borrower_id = $1")
            .bind(borrower_id)
            .execute(self.conn())
            .await?;
        let login_codes = sqlx::query("DELETE FROM login_codes WHERE phone_hash = $1")
            .bind(phone_hash)
            .execute(self.conn())
            .await?
            .rows_affected();
        // The phone's sending limits (`crate::infra::limits`: keyed by its hash), by their keys.
        self.forget_rate_limit_keys(limit_keys).await?;
        let notifications = sqlx::query(
            "DELETE FROM notification_outbox WHERE borrower_id = $1 AND status <> 'sent'",
        )
        .bind(borrower_id)
        .execute(self.conn())
        .await?
        .rows_affected();
        sqlx::query(
            "UPDATE order_ratings SET comment = NULL
             WHERE order_id IN (SELECT id FROM orders WHERE borrower_id = $1)",
        )
        .bind(borrower_id)
        .execute(self.conn())
        .await?;
        let image_keys: Vec<String> =
            sqlx::query_scalar("SELECT storage_key FROM complaint_images WHERE borrower_id = $1")
                .bind(borrower_id)
                .fetch_all(self.conn())
                .await?;
        for sql in [
            "DELETE FROM complaint_images WHERE borrower_id = $1",
            "DELETE FROM complaint_messages
             WHERE complaint_id IN (SELECT id FROM complaints WHERE borrower_id = $1)",
            "UPDATE complaints SET score_comment = NULL WHERE borrower_id = $1",
            "UPDATE collection_contacts SET note_enc = NULL
             WHERE order_id IN (SELECT id FROM orders WHERE borrower_id = $1)",
            "DELETE FROM client_events WHERE borrower_id = $1",
            "DELETE FROM borrower_devices WHERE borrower_id = $1",
            "DELETE FROM device_tokens WHERE borrower_id = $1",
            "DELETE FROM borrower_locations WHERE borrower_id = $1",
            "DELETE FROM app_ratings WHERE borrower_id = $1",
            "DELETE FROM borrower_fingerprints WHERE borrower_id = $1",
            // The trail keeps that the bank account changed, and when; not the accounts (masked numbers, banks).
            "UPDATE audit_log SET before_json = NULL, after_json = NULL
             WHERE entity = 'borrower' AND entity_id = $1 AND action = 'certification.bank_account_change'",
        ] {
            sqlx::query(sql)
                .bind(borrower_id)
                .execute(self.conn())
                .await?;
        }
        sqlx::query(
            "UPDATE borrowers SET phone_hash = $1, phone_enc = '', phone_masked = '', deleted_at = $2
             WHERE id = $3 AND deleted_at IS NULL",
        )
        .bind(format!("deleted:{borrower_id}"))
        .bind(now)
        .bind(borrower_id)
        .execute(self.conn())
        .await?;
        Ok(Erased {
            sessions_revoked,
            certification_steps,
            login_codes,
            notifications,
            image_keys,
        })
    }
}

impl Db {
    pub async fn sessions_of(&self, borrower_id: &str) -> sqlx::Result<Vec<SessionRecord>> {
        sqlx::query_as(
            "SELECT created_at, last_seen_at, revoked_at FROM borrower_sessions
             WHERE borrower_id = $1 ORDER BY created_at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    pub async fn certification_log_of(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<CertificationLogRecord>> {
        sqlx::query_as(
            "SELECT step, event, at FROM certification_log WHERE borrower_id = $1 ORDER BY at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    pub async fn reminders_of(&self, borrower_id: &str) -> sqlx::Result<Vec<NotificationRecord>> {
        sqlx::query_as(
            "SELECT kind, installment, text, status, created_at, sent_at FROM notification_outbox
             WHERE borrower_id = $1 ORDER BY created_at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    pub async fn rating_of(&self, order_id: &str) -> sqlx::Result<Option<RatingRecord>> {
        sqlx::query_as("SELECT score, comment, created_at FROM order_ratings WHERE order_id = $1")
            .bind(order_id)
            .fetch_optional(self.pool())
            .await
    }
}
