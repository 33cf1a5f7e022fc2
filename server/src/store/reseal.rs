//! The one-time moves of PII to the bound format: what was written before migration 0005 (unbound borrower phones and
//! certification steps re-encrypted with their row as associated data, clear contact messages encrypted), and the
//! orders' frozen agreements written in clear before migration 0030, sealed to their orders.
//!
//! Re-encrypting (rather than refusing those rows) keeps databases made by `make run` working. It runs once, at the
//! first start after the migration, while the migration's `pii_reseal_pending` row exists, and it deletes that row in
//! the same transaction: afterwards an unbound value is refused by `Secrets::decrypt`, never adopted, so copying an
//! old value onto another row cannot get it bound there by a restart.

use anyhow::Context;

use super::contact_messages::{self, COMPANY, EMAIL, MESSAGE, NAME, TELEPHONE};
use super::orders::seal_agreement;
use super::{Db, StartupMarker};
use crate::infra::crypto::{BOUND_PREFIX, Binding, Secrets};

#[derive(kilat_row::FromRow)]
struct StoredPhone {
    id: String,
    phone_enc: String,
}

/// The step's code is kept as stored text: it is part of the binding, and every stored step is resealed, whichever.
#[derive(kilat_row::FromRow)]
struct StoredStepData {
    borrower_id: String,
    step: String,
    data_enc: String,
}

/// A contact message's columns to encrypt, in clear before the migration.
#[derive(kilat_row::FromRow)]
struct ClearContactMessage {
    id: String,
    name_enc: String,
    telephone_enc: String,
    email_enc: Option<String>,
    message: String,
    company: Option<String>,
}

/// A contact message's text and company, in clear before migration 0069.
#[derive(kilat_row::FromRow)]
struct ClearContactText {
    id: String,
    message: String,
    company: Option<String>,
}

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
        // A write transaction (`BEGIN IMMEDIATE` on SQLite): it holds the write lock from the start.
        let mut tx = self.begin().await?;
        if !tx.take_marker(StartupMarker::PiiReseal).await? {
            tx.rollback().await?;
            return Ok(done);
        }
        let unbound = format!("{BOUND_PREFIX}%");
        let phones: Vec<StoredPhone> =
            sqlx::query_as("SELECT id, phone_enc FROM borrowers WHERE phone_enc NOT LIKE $1")
                .bind(&unbound)
                .fetch_all(tx.conn())
                .await?;
        for StoredPhone { id, phone_enc } in phones {
            let phone = secrets
                .decrypt_unbound(&phone_enc)
                .with_context(|| reseal_failed("borrowers.phone_enc", &id))?;
            let binding = Binding::BorrowerPhone { borrower_id: &id };
            sqlx::query("UPDATE borrowers SET phone_enc = $1 WHERE id = $2")
                .bind(secrets.encrypt(&phone, binding))
                .bind(&id)
                .execute(tx.conn())
                .await?;
            done.phones += 1;
        }
        let steps: Vec<StoredStepData> = sqlx::query_as(
            "SELECT borrower_id, step, data_enc FROM certification_steps WHERE data_enc NOT LIKE $1",
        )
        .bind(&unbound)
        .fetch_all(tx.conn())
        .await?;
        for StoredStepData {
            borrower_id,
            step,
            data_enc,
        } in steps
        {
            let data = secrets
                .decrypt_unbound(&data_enc)
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
            .execute(tx.conn())
            .await?;
            done.steps += 1;
        }
        // Before the marker goes, every contact message is one written in clear before the migration.
        let messages: Vec<ClearContactMessage> = sqlx::query_as(
            "SELECT id, name_enc, telephone_enc, email_enc, message, company FROM contact_messages",
        )
        .fetch_all(tx.conn())
        .await?;
        for row in messages {
            let id = row.id;
            let seal = |column: &str, clear: &str| {
                secrets.encrypt(clear, contact_messages::binding(&id, column))
            };
            let name = seal(NAME, &row.name_enc);
            let telephone = seal(TELEPHONE, &row.telephone_enc);
            let email = row.email_enc.map(|email| seal(EMAIL, &email));
            // Written before migration 0069 too: its text and company in clear.
            let message = seal(MESSAGE, &row.message);
            let company = row.company.map(|company| seal(COMPANY, &company));
            sqlx::query(
                "UPDATE contact_messages SET name_enc = $1, telephone_enc = $2, email_enc = $3, message = $4,
                     company = $5 WHERE id = $6",
            )
            .bind(name)
            .bind(telephone)
            .bind(email)
            .bind(message)
            .bind(company)
            .bind(&id)
            .execute(tx.conn())
            .await?;
            done.contact_messages += 1;
        }
        tx.commit().await?;
        Ok(done)
    }
}

/// An order's agreement as written before migration 0030: JSON in clear.
#[derive(kilat_row::FromRow)]
struct ClearAgreement {
    id: String,
    agreement_json: String,
}

/// Agreements sealed per statement of the read: a page of them is held in memory at once (each some kilobytes).
const AGREEMENTS_PER_PAGE: i64 = 200;

impl Db {
    /// Seals the orders' agreements written in clear before migration 0030, in one transaction, if that is still to
    /// do (the migration's `agreement_seal_pending` row, deleted in the same transaction: two servers starting at once
    /// seal once). Afterwards an agreement in clear is refused when read, never sealed to whatever row it is on. On
    /// SQLite the old pages are then checkpointed out of the WAL ([`Db::checkpoint`]). Answers how many were sealed.
    pub async fn seal_clear_agreements(&self, secrets: &Secrets) -> anyhow::Result<usize> {
        let mut tx = self.begin().await?;
        if !tx.take_marker(StartupMarker::AgreementSeal).await? {
            tx.rollback().await?;
            return Ok(0);
        }
        let sealed_prefix = format!("{BOUND_PREFIX}%");
        let mut sealed = 0;
        let mut after = String::new();
        loop {
            let page: Vec<ClearAgreement> = sqlx::query_as(
                "SELECT id, agreement_json FROM orders
                 WHERE id > $1 AND agreement_json IS NOT NULL AND agreement_json NOT LIKE $2
                 ORDER BY id LIMIT $3",
            )
            .bind(&after)
            .bind(&sealed_prefix)
            .bind(AGREEMENTS_PER_PAGE)
            .fetch_all(tx.conn())
            .await?;
            let Some(last) = page.last() else { break };
            after.clone_from(&last.id);
            for ClearAgreement { id, agreement_json } in page {
                sqlx::query("UPDATE orders SET agreement_json = $1 WHERE id = $2")
                    .bind(seal_agreement(secrets, &id, &agreement_json))
                    .bind(&id)
                    .execute(tx.conn())
                    .await?;
                sealed += 1;
            }
        }
        tx.commit().await?;
        if sealed > 0 {
            self.checkpoint().await?;
        }
        Ok(sealed)
    }
}

impl Db {
    /// Seals the contact messages' text and company written in clear before migration 0069, in one transaction, if
    /// that is still to do (its `contact_text_seal_pending` row, deleted in the same transaction). Answers how many
    /// messages were sealed.
    pub async fn seal_clear_contact_texts(&self, secrets: &Secrets) -> anyhow::Result<usize> {
        let mut tx = self.begin().await?;
        if !tx.take_marker(StartupMarker::ContactTextSeal).await? {
            tx.rollback().await?;
            return Ok(0);
        }
        let rows: Vec<ClearContactText> =
            sqlx::query_as("SELECT id, message, company FROM contact_messages")
                .fetch_all(tx.conn())
                .await?;
        let mut sealed = 0;
        for ClearContactText {
            id,
            message,
            company,
        } in rows
        {
            // What opens with its own binding is sealed already (sealed by the reseal of migration 0005 at this same
            // start); anything else is a visitor's text in clear, even one that happens to start like a sealed value.
            let seal = |column: &str, value: &str| {
                let binding = || contact_messages::binding(&id, column);
                match secrets.decrypt(value, binding()) {
                    Ok(_) => value.to_owned(),
                    Err(_) => secrets.encrypt(value, binding()),
                }
            };
            let new_message = seal(MESSAGE, &message);
            let new_company = company.as_deref().map(|c| seal(COMPANY, c));
            if new_message == message && new_company == company {
                continue;
            }
            sqlx::query("UPDATE contact_messages SET message = $1, company = $2 WHERE id = $3")
                .bind(new_message)
                .bind(new_company)
                .bind(&id)
                .execute(tx.conn())
                .await?;
            sealed += 1;
        }
        tx.commit().await?;
        Ok(sealed)
    }
}

fn reseal_failed(column: &str, id: &str) -> String {
    format!(
        "resealing {column} of {id}, written before migration 0005: it does not decrypt with this KILAT_SECRET_KEY \
         (was the database written with another key?)"
    )
}
