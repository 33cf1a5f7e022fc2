//! The one-time move of PII written before migration 0005 to the bound format: unbound borrower phones and
//! certification steps re-encrypted with their row as associated data, clear contact messages encrypted.
//!
//! Re-encrypting (rather than refusing those rows) keeps databases made by `make run` working. It runs once, at the
//! first start after the migration, while the migration's `pii_reseal_pending` row exists, and it deletes that row in
//! the same transaction: afterwards an unbound value is refused by `Secrets::decrypt`, never adopted, so copying an
//! old value onto another row cannot get it bound there by a restart.

use anyhow::Context;
use sqlx::Row;

use super::Db;
use super::contact_messages::{self, EMAIL, NAME, TELEPHONE};
use crate::crypto::{BOUND_PREFIX, Binding, Secrets};

/// What a reseal changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Resealed {
    pub phones: usize,
    pub steps: usize,
    pub contact_messages: usize,
}

impl Db {
    /// Reseals everything written before migration 0005 in one transaction, if that is still to do; two servers
    /// starting at once on one database do it once (the first deletes the marker, the second waits for it and finds
    /// none). Fails, and the server does not start, when a value does not decrypt (another `secret_key`?).
    pub async fn reseal_unbound_pii(&self, secrets: &Secrets) -> anyhow::Result<Resealed> {
        let mut done = Resealed::default();
        // Writing first takes SQLite's write lock at the start (see `save_certification_step`).
        let mut tx = self.pool().begin().await?;
        let pending = sqlx::query("DELETE FROM pii_reseal_pending")
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if pending == 0 {
            tx.rollback().await?;
            return Ok(done);
        }
        let unbound = format!("{BOUND_PREFIX}%");
        let phones = sqlx::query("SELECT id, phone_enc FROM borrowers WHERE phone_enc NOT LIKE $1")
            .bind(&unbound)
            .fetch_all(&mut *tx)
            .await?;
        for row in phones {
            let id: String = row.try_get("id")?;
            let phone = secrets
                .decrypt_unbound(&row.try_get::<String, _>("phone_enc")?)
                .with_context(|| reseal_failed("borrowers.phone_enc", &id))?;
            let binding = Binding::BorrowerPhone { borrower_id: &id };
            sqlx::query("UPDATE borrowers SET phone_enc = $1 WHERE id = $2")
                .bind(secrets.encrypt(&phone, binding))
                .bind(&id)
                .execute(&mut *tx)
                .await?;
            done.phones += 1;
        }
        let steps = sqlx::query(
            "SELECT borrower_id, step, data_enc FROM certification_steps WHERE data_enc NOT LIKE $1",
        )
        .bind(&unbound)
        .fetch_all(&mut *tx)
        .await?;
        for row in steps {
            let borrower_id: String = row.try_get("borrower_id")?;
            let step: String = row.try_get("step")?;
            let data = secrets
                .decrypt_unbound(&row.try_get::<String, _>("data_enc")?)
                .with_context(|| reseal_failed("certification_steps.data_enc", &borrower_id))?;
            let binding = Binding::CertificationStep {
                borrower_id: &borrower_id,
                step: &step,
            };
            sqlx::query(
                "UPDATE certification_steps SET data_enc = $1 WHERE borrower_id = $2 AND step = $3",
            )
            .bind(secrets.encrypt(&data, binding))
            .bind(&borrower_id)
            .bind(&step)
            .execute(&mut *tx)
            .await?;
            done.steps += 1;
        }
        // Before the marker goes, every contact message is one written in clear before the migration.
        let messages =
            sqlx::query("SELECT id, name_enc, telephone_enc, email_enc FROM contact_messages")
                .fetch_all(&mut *tx)
                .await?;
        for row in messages {
            let id: String = row.try_get("id")?;
            let seal = |column: &str, clear: &str| {
                secrets.encrypt(clear, contact_messages::binding(&id, column))
            };
            let name = seal(NAME, &row.try_get::<String, _>(NAME)?);
            let telephone = seal(TELEPHONE, &row.try_get::<String, _>(TELEPHONE)?);
            let email = row
                .try_get::<Option<String>, _>(EMAIL)?
                .map(|email| seal(EMAIL, &email));
            sqlx::query(
                "UPDATE contact_messages SET name_enc = $1, telephone_enc = $2, email_enc = $3 WHERE id = $4",
            )
            .bind(name)
            .bind(telephone)
            .bind(email)
            .bind(&id)
            .execute(&mut *tx)
            .await?;
            done.contact_messages += 1;
        }
        tx.commit().await?;
        Ok(done)
    }
}

fn reseal_failed(column: &str, id: &str) -> String {
    format!(
        "resealing {column} of {id}, written before migration 0005: it does not decrypt with this KILAT_SECRET_KEY \
         (was the database written with another key?)"
    )
}
