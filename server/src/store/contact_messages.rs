//! Contact-form messages from the marketing site.

use serde::Serialize;
use sqlx::Row;

use super::Db;

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

/// A stored message, as operators read it.
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

impl Db {
    pub async fn insert_contact_message(
        &self,
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
        sqlx::query(
            "INSERT INTO contact_messages (id, name, telephone, message, email, company, client_addr, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&stored.id)
        .bind(&stored.name)
        .bind(&stored.telephone)
        .bind(&stored.message)
        .bind(&stored.email)
        .bind(&stored.company)
        .bind(&stored.client_addr)
        .bind(stored.created_at)
        .execute(self.pool())
        .await?;
        Ok(stored)
    }

    /// Newest first.
    pub async fn list_contact_messages(&self, limit: i64) -> sqlx::Result<Vec<ContactMessage>> {
        let rows = sqlx::query(
            "SELECT id, name, telephone, message, email, company, client_addr, created_at
             FROM contact_messages ORDER BY created_at DESC, id DESC LIMIT $1",
        )
        .bind(limit)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(ContactMessage {
                    id: row.try_get("id")?,
                    name: row.try_get("name")?,
                    telephone: row.try_get("telephone")?,
                    message: row.try_get("message")?,
                    email: row.try_get("email")?,
                    company: row.try_get("company")?,
                    client_addr: row.try_get("client_addr")?,
                    created_at: row.try_get("created_at")?,
                })
            })
            .collect()
    }
}

fn time_now_ms() -> i64 {
    i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}
