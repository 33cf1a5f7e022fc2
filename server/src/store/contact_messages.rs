//! Contact-form messages from the marketing site. Name, telephone and e-mail are encrypted at rest, each bound to its
//! message and column; the message text and company are kept in clear.

use anyhow::Context;
use serde::Serialize;

use super::Db;
use crate::crypto::{Binding, Secrets};

/// A validated message, ready to store.
#[derive(Debug, Clone)]
pub struct NewContactMessage {
    pub name: String,
    pub telephone: String,
    pub message: String,
    pub email: Option<String>,
    pub company: Option<String>,
    pub client_addr: String,
}

/// A stored message, as operators read it (decrypted).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContactMessage {
    pub id: String,
    pub name: String,
    pub telephone: String,
    pub message: String,
    pub email: Option<String>,
    pub company: Option<String>,
    pub client_addr: String,
    /// Epoch milliseconds.
    pub created_at: i64,
}

/// A message as stored: name, telephone and e-mail encrypted.
#[derive(sqlx::FromRow)]
struct StoredContactMessage {
    id: String,
    name_enc: String,
    telephone_enc: String,
    message: String,
    email_enc: Option<String>,
    company: Option<String>,
    client_addr: String,
    created_at: i64,
}

/// The encrypted columns, by name (the name is part of each value's binding).
pub(super) const NAME: &str = "name_enc";
pub(super) const TELEPHONE: &str = "telephone_enc";
pub(super) const EMAIL: &str = "email_enc";

pub(super) fn binding<'a>(id: &'a str, column: &'a str) -> Binding<'a> {
    Binding::ContactMessage { id, column }
}

impl Db {
    pub async fn insert_contact_message(
        &self,
        secrets: &Secrets,
        new: NewContactMessage,
    ) -> sqlx::Result<ContactMessage> {
        let stored = ContactMessage {
            id: uuid::Uuid::now_v7().to_string(),
            name: new.name,
            telephone: new.telephone,
            message: new.message,
            email: new.email,
            company: new.company,
            client_addr: new.client_addr,
            created_at: time_now_ms(),
        };
        let id = stored.id.as_str();
        sqlx::query(
            "INSERT INTO contact_messages (id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(id)
        .bind(secrets.encrypt(&stored.name, binding(id, NAME)))
        .bind(secrets.encrypt(&stored.telephone, binding(id, TELEPHONE)))
        .bind(&stored.message)
        .bind(
            stored
                .email
                .as_deref()
                .map(|email| secrets.encrypt(email, binding(id, EMAIL))),
        )
        .bind(&stored.company)
        .bind(&stored.client_addr)
        .bind(stored.created_at)
        .execute(self.pool())
        .await?;
        Ok(stored)
    }

    /// Newest first, decrypted.
    pub async fn list_contact_messages(
        &self,
        secrets: &Secrets,
        limit: i64,
    ) -> anyhow::Result<Vec<ContactMessage>> {
        let rows: Vec<StoredContactMessage> = sqlx::query_as(
            "SELECT id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at
             FROM contact_messages ORDER BY created_at DESC, id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|row| {
                let id = row.id;
                let open = |column: &str, stored: &str| {
                    secrets
                        .decrypt(stored, binding(&id, column))
                        .with_context(|| format!("contact message {id}"))
                };
                Ok(ContactMessage {
                    name: open(NAME, &row.name_enc)?,
                    telephone: open(TELEPHONE, &row.telephone_enc)?,
                    email: row.email_enc.map(|e| open(EMAIL, &e)).transpose()?,
                    message: row.message,
                    company: row.company,
                    client_addr: row.client_addr,
                    created_at: row.created_at,
                    id,
                })
            })
            .collect()
    }
}

fn time_now_ms() -> i64 {
    i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}
