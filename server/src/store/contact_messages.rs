//! Contact-form messages from the marketing site. Name, telephone, e-mail, the text and the company are encrypted at
//! rest, each bound to its message and column (visitors type ID and loan numbers into the text).

use anyhow::Context;
use serde::Serialize;

use sqlx::Any;
use sqlx::any::AnyArguments;
use sqlx::query::QueryAs;

use super::lists::BindValues;
use super::{Db, Tx};
use crate::infra::crypto::{Binding, Secrets};

/// A validated message, ready to store.
#[derive(Debug, Clone)]
pub struct NewContactMessage {
    pub name: String,
    pub telephone: String,
    pub message: String,
    pub email: Option<String>,
    pub company: Option<String>,
    pub client_addr: String,
    /// The market of the site the form was sent from (`IN`, `ID`), when the site said.
    pub market: Option<String>,
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
    /// When an operator marked it handled (epoch ms), and who; `None` while it waits.
    pub handled_at: Option<i64>,
    pub handled_by: Option<String>,
    /// `IN` or `ID`: the market of the site it came from; `None` for messages kept before the market was.
    pub market: Option<String>,
}

/// A message as stored: name, telephone and e-mail encrypted.
#[derive(kilat_row::FromRow)]
struct StoredContactMessage {
    id: String,
    name_enc: String,
    telephone_enc: String,
    message: String,
    email_enc: Option<String>,
    company: Option<String>,
    client_addr: String,
    created_at: i64,
    handled_at: Option<i64>,
    handled_by: Option<String>,
    market: Option<String>,
}

/// The encrypted columns, by name (the name is part of each value's binding).
pub(super) const NAME: &str = "name_enc";
pub(super) const TELEPHONE: &str = "telephone_enc";
pub(super) const EMAIL: &str = "email_enc";
pub(super) const MESSAGE: &str = "message";
pub(super) const COMPANY: &str = "company";

/// Which contact messages a reader sees.
#[derive(Debug, Clone, Copy)]
pub enum ContactScope<'a> {
    /// Every message (an operator of every market).
    Every,
    /// Those stored with this market's code, and of those whose stored market names none
    /// ([`Db::undecided_contact_telephones`]) the ones in `ids` (the caller read their telephones).
    Market { market: &'a str, ids: &'a [String] },
}

/// A message whose stored market names no market: its telephone decides (`support::contact_market`).
const UNDECIDED: &str = "(market IS NULL OR market NOT IN ('IN', 'ID'))";

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
            handled_at: None,
            handled_by: None,
            market: new.market,
        };
        let id = stored.id.as_str();
        sqlx::query(
            "INSERT INTO contact_messages (id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at, market)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(id)
        .bind(secrets.encrypt(&stored.name, binding(id, NAME)))
        .bind(secrets.encrypt(&stored.telephone, binding(id, TELEPHONE)))
        .bind(secrets.encrypt(&stored.message, binding(id, MESSAGE)))
        .bind(
            stored
                .email
                .as_deref()
                .map(|email| secrets.encrypt(email, binding(id, EMAIL))),
        )
        .bind(
            stored
                .company
                .as_deref()
                .map(|company| secrets.encrypt(company, binding(id, COMPANY))),
        )
        .bind(&stored.client_addr)
        .bind(stored.created_at)
        .bind(&stored.market)
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
        let (rows, _) = self
            .contact_messages(secrets, ContactScope::Every, false, limit, 0)
            .await?;
        Ok(rows)
    }

    /// The messages whose stored market names no market (`NULL`: kept before migration 0039, or sent by a form that
    /// did not say), only those not handled yet when `waiting_only`: each id with its telephone decrypted, for the
    /// caller to read their market from the telephone, which SQL cannot (it is encrypted).
    pub async fn undecided_contact_telephones(
        &self,
        secrets: &Secrets,
        waiting_only: bool,
    ) -> anyhow::Result<Vec<(String, String)>> {
        let rows: Vec<(String, String)> = sqlx::query_as(&format!(
            "SELECT id, telephone_enc FROM contact_messages
             WHERE ($1 = 0 OR handled_at IS NULL) AND {UNDECIDED} ORDER BY created_at, id"
        ))
        .bind(i64::from(waiting_only))
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|(id, telephone_enc)| {
                let telephone = secrets
                    .decrypt(&telephone_enc, binding(&id, TELEPHONE))
                    .with_context(|| format!("contact message {id}"))?;
                Ok((id, telephone))
            })
            .collect()
    }

    /// A page of messages (`limit` from `offset`), decrypted, with how many match in all: only those not handled yet
    /// when `waiting_only`, oldest first (the longest waiting first); else all, newest first. `scope` says which ones
    /// the reader sees; the total counts the same rows as the pages, so pages are full and agree with it.
    pub async fn contact_messages(
        &self,
        secrets: &Secrets,
        scope: ContactScope<'_>,
        waiting_only: bool,
        limit: i64,
        offset: i64,
    ) -> anyhow::Result<(Vec<ContactMessage>, i64)> {
        let sqlite = self.is_sqlite();
        // $1 the waiting flag, $2 the market (scoped only), then the ids' list; the page's limit and offset after.
        let (filter, next) = match scope {
            ContactScope::Every => ("($1 = 0 OR handled_at IS NULL)".to_owned(), 2),
            ContactScope::Market { ids: [], .. } => (
                "($1 = 0 OR handled_at IS NULL) AND market = $2".to_owned(),
                3,
            ),
            ContactScope::Market { ids, .. } => (
                format!(
                    "($1 = 0 OR handled_at IS NULL) AND (market = $2 OR id {})",
                    super::lists::any_of(sqlite, 3, ids.len())
                ),
                if sqlite { 3 + ids.len() } else { 4 },
            ),
        };
        let order = if waiting_only {
            "created_at, id"
        } else {
            "created_at DESC, id DESC"
        };
        let page = format!(
            "SELECT id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at, handled_at,
               handled_by, market
             FROM contact_messages WHERE {filter} ORDER BY {order} LIMIT ${next} OFFSET ${}",
            next + 1
        );
        let count = format!("SELECT COUNT(*) FROM contact_messages WHERE {filter}");
        let rows: Vec<StoredContactMessage> =
            bind_scope(sqlx::query_as(&page), scope, waiting_only, sqlite)
                .bind(limit)
                .bind(offset)
                .fetch_all(self.pool())
                .await?;
        let (total,): (i64,) = bind_scope(sqlx::query_as(&count), scope, waiting_only, sqlite)
            .fetch_one(self.pool())
            .await?;
        let rows = rows
            .into_iter()
            .map(|row| opened(secrets, row))
            .collect::<anyhow::Result<_>>()?;
        Ok((rows, total))
    }

    /// One message, decrypted; `None` when there is no such message.
    pub async fn contact_message(
        &self,
        secrets: &Secrets,
        id: &str,
    ) -> anyhow::Result<Option<ContactMessage>> {
        let row: Option<StoredContactMessage> = sqlx::query_as(
            "SELECT id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at, handled_at,
               handled_by, market
             FROM contact_messages WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| opened(secrets, row)).transpose()
    }

    /// Deletes at most `batch` contact messages handled before `before` (the leftovers sweep); how many went. A
    /// message still waiting is never touched, however old.
    pub async fn delete_contact_messages_handled_before(
        &self,
        before: i64,
        batch: i64,
    ) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "DELETE FROM contact_messages WHERE id IN (
                 SELECT id FROM contact_messages WHERE handled_at IS NOT NULL AND handled_at < $1
                 ORDER BY handled_at LIMIT $2)",
        )
        .bind(before)
        .bind(batch)
        .execute(self.pool())
        .await?
        .rows_affected())
    }
}

/// Binds a contact list's filter: the waiting flag, then (one market) the market and the ids' list.
fn bind_scope<'q, O>(
    query: QueryAs<'q, Any, O, AnyArguments<'q>>,
    scope: ContactScope<'q>,
    waiting_only: bool,
    sqlite: bool,
) -> QueryAs<'q, Any, O, AnyArguments<'q>> {
    let query = query.bind(i64::from(waiting_only));
    match scope {
        ContactScope::Every => query,
        ContactScope::Market { market, ids } => {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            let query = query.bind(market);
            if ids.is_empty() {
                query
            } else {
                query.bind_values(super::lists::texts(sqlite, &ids))
            }
        }
    }
}

/// A stored message with its encrypted columns opened.
fn opened(secrets: &Secrets, row: StoredContactMessage) -> anyhow::Result<ContactMessage> {
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
        message: open(MESSAGE, &row.message)?,
        company: row.company.map(|c| open(COMPANY, &c)).transpose()?,
        client_addr: row.client_addr,
        created_at: row.created_at,
        handled_at: row.handled_at,
        handled_by: row.handled_by,
        market: row.market,
        id,
    })
}

impl Tx {
    /// Marks a message handled by `operator_id`, once: the first operator's mark stands, and a second answers false
    /// (so two operators never both think they were first). `None` when there is no such message.
    pub async fn mark_contact_message_handled(
        &mut self,
        id: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<Option<bool>> {
        let done = sqlx::query(
            "UPDATE contact_messages SET handled_at = $2, handled_by = $3 WHERE id = $1 AND handled_at IS NULL",
        )
        .bind(id)
        .bind(now)
        .bind(operator_id)
        .execute(self.conn())
        .await?;
        if done.rows_affected() == 1 {
            return Ok(Some(true));
        }
        let exists: Option<String> =
            sqlx::query_scalar("SELECT id FROM contact_messages WHERE id = $1")
                .bind(id)
                .fetch_optional(self.conn())
                .await?;
        Ok(exists.map(|_| false))
    }
}

fn time_now_ms() -> i64 {
    i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}
