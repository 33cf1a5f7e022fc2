//! Sign-in: one-time codes, borrowers (found by a keyed hash of their phone) and sessions. The sign-in limits are
//! counted by `crate::infra::limits`.

use std::collections::HashMap;

use kilat_domain::{Code, Market};
use sqlx::AnyPool;

use super::batch::{SessionKey, live_sessions_in, session_bounds};
use super::{Db, Tx};

/// A stored one-time code (its hash only).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LoginCode {
    pub id: String,
    pub code_hash: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub failed_attempts: i64,
    pub consumed_at: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct NewLoginCode<'a> {
    pub phone_hash: &'a str,
    /// `login`, or a sensitive change's purpose (`bank_account`).
    pub purpose: &'a str,
    pub code_hash: &'a str,
    pub channel: &'a str,
    pub client_addr: &'a str,
    pub created_at: i64,
    pub expires_at: i64,
}

/// A borrower as stored: the phone only encrypted.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct BorrowerRow {
    pub id: String,
    #[row(try_from = "String")]
    pub market: Market,
    pub phone_enc: String,
    pub created_at: i64,
}

/// A live session as read (not revoked, within its idle and absolute limits), with its borrower; its last use is
/// moved by [`Db::touch_session`], which the caller decides on.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct SessionRow {
    #[row(flatten)]
    pub borrower: BorrowerRow,
    /// When the session was opened (sign-in), epoch milliseconds.
    #[row(rename = "session_created_at")]
    pub created_at: i64,
    /// When the session was last marked used, epoch milliseconds.
    pub last_seen_at: i64,
}

/// A stored session's times and its borrower's deletion ([`Db::session_end`]).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct SessionEndRow {
    pub created_at: i64,
    pub last_seen_at: i64,
    pub revoked_at: Option<i64>,
    pub deleted_at: Option<i64>,
}

/// The conditions of a live session, as SQL over `borrower_sessions s` binding `$1` (the token's hash), `$2` (idle
/// since) and `$3` (opened since): the one definition every session read uses (a macro, so that the statements are
/// string literals, built once).
macro_rules! live_session {
    () => {
        "s.token_hash = $1 AND s.revoked_at IS NULL AND s.last_seen_at >= $2 AND s.created_at >= $3"
    };
}
pub(super) use live_session;

impl Db {
    /// The most recent code sent to a phone for `purpose`, used or not.
    pub async fn latest_login_code(
        &self,
        phone_hash: &str,
        purpose: &str,
    ) -> sqlx::Result<Option<LoginCode>> {
        sqlx::query_as(
            "SELECT id, code_hash, created_at, expires_at, failed_attempts, consumed_at FROM login_codes
             WHERE phone_hash = $1 AND purpose = $2 ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(phone_hash)
        .bind(purpose)
        .fetch_optional(self.pool())
        .await
    }

    /// One code by id, to tell why a try could not be reserved.
    pub async fn login_code(&self, id: &str) -> sqlx::Result<Option<LoginCode>> {
        sqlx::query_as(
            "SELECT id, code_hash, created_at, expires_at, failed_attempts, consumed_at FROM login_codes
             WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(self.pool())
        .await
    }

    /// Deletes at most `batch` codes that expired before `before` (the leftovers sweep); how many went.
    pub async fn delete_login_codes_expired_before(
        &self,
        before: i64,
        batch: i64,
    ) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "DELETE FROM login_codes WHERE id IN (
                 SELECT id FROM login_codes WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)",
        )
        .bind(before)
        .bind(batch)
        .execute(self.pool())
        .await?
        .rows_affected())
    }

    /// Deletes at most `batch` borrower sessions opened before `before` (the leftovers sweep); how many went.
    pub async fn delete_sessions_opened_before(
        &self,
        before: i64,
        batch: i64,
    ) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "DELETE FROM borrower_sessions WHERE id IN (
                 SELECT id FROM borrower_sessions WHERE created_at < $1 ORDER BY created_at LIMIT $2)",
        )
        .bind(before)
        .bind(batch)
        .execute(self.pool())
        .await?
        .rows_affected())
    }

    /// A code that could not be delivered must not block a resend.
    pub async fn delete_login_code(&self, id: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM login_codes WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Reserves one try of a live code before it is compared, in one conditional update: however many tries arrive
    /// at once, at most `max_tries` are ever reserved. Returns the try's number (1 for the first), or `None` when the
    /// code is used, expired or out of tries. `failed_attempts` thus counts the tries compared, a right one included
    /// (which uses the code, so its count no longer matters).
    pub async fn reserve_login_code_try(
        &self,
        id: &str,
        now: i64,
        max_tries: i64,
    ) -> sqlx::Result<Option<i64>> {
        sqlx::query_scalar(
            "UPDATE login_codes SET failed_attempts = failed_attempts + 1
             WHERE id = $1 AND consumed_at IS NULL AND expires_at > $2 AND failed_attempts < $3
             RETURNING failed_attempts",
        )
        .bind(id)
        .bind(now)
        .bind(max_tries)
        .fetch_optional(self.pool())
        .await
    }

    /// Uses the code, finds or creates the borrower and opens a session, all or nothing. `None` when another request
    /// used the code first. A new borrower gets `new_borrower_id`, the id `phone_enc` is bound to; a borrower who
    /// already exists keeps the id and phone their own row was encrypted for.
    #[allow(clippy::too_many_arguments)]
    pub async fn complete_sign_in(
        &self,
        code_id: &str,
        market: Market,
        phone_hash: &str,
        new_borrower_id: &str,
        phone_enc: &str,
        phone_masked: &str,
        phone_fingerprint: &super::fingerprints::Fingerprint,
        token_hash: &str,
        now: i64,
    ) -> sqlx::Result<Option<(BorrowerRow, bool)>> {
        let mut tx = self.begin().await?;
        let used = sqlx::query(
            "UPDATE login_codes SET consumed_at = $1 WHERE id = $2 AND consumed_at IS NULL",
        )
        .bind(now)
        .bind(code_id)
        .execute(tx.conn())
        .await?;
        if used.rows_affected() != 1 {
            return Ok(None);
        }
        let inserted = sqlx::query(
            "INSERT INTO borrowers (id, market, phone_hash, phone_enc, phone_masked, created_at, last_login_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (phone_hash) DO NOTHING",
        )
        .bind(new_borrower_id)
        .bind(market.code())
        .bind(phone_hash)
        .bind(phone_enc)
        .bind(phone_masked)
        .bind(now)
        .execute(tx.conn())
        .await?;
        let is_new = inserted.rows_affected() == 1;
        if is_new {
            // The phone's keyed hash (duplicates across borrowers), in the transaction that writes it.
            tx.replace_fingerprints(
                new_borrower_id,
                &[phone_fingerprint.field],
                std::slice::from_ref(phone_fingerprint),
            )
            .await?;
        }
        sqlx::query("UPDATE borrowers SET last_login_at = $1 WHERE phone_hash = $2")
            .bind(now)
            .bind(phone_hash)
            .execute(tx.conn())
            .await?;
        let borrower: BorrowerRow = sqlx::query_as(
            "SELECT id, market, phone_enc, created_at FROM borrowers WHERE phone_hash = $1",
        )
        .bind(phone_hash)
        .fetch_one(tx.conn())
        .await?;
        sqlx::query(
            "INSERT INTO borrower_sessions (id, token_hash, borrower_id, created_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $4)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(token_hash)
        .bind(&borrower.id)
        .bind(now)
        .execute(tx.conn())
        .await?;
        tx.commit().await?;
        Ok(Some((borrower, is_new)))
    }

    /// The borrower of a live session (not revoked, used since `idle_since`, opened since `created_since`). On an HTTP
    /// worker with a pool of its own, batched with the other requests' ([`super::batch`]).
    pub async fn session_borrower(
        &self,
        token_hash: &str,
        idle_since: i64,
        created_since: i64,
    ) -> sqlx::Result<Option<SessionRow>> {
        let key = SessionKey {
            token_hash: token_hash.to_owned(),
            idle_since,
            created_since,
        };
        if let Some(hot) = self.hot_reads() {
            return hot.session.get(key).await;
        }
        Ok(session_borrowers_in(&self.read_pool(), &[key])
            .await?
            .pop()
            .flatten())
    }

    /// Marks a session used now (its idle limit starts again).
    pub async fn touch_session(&self, token_hash: &str, now: i64) -> sqlx::Result<()> {
        sqlx::query("UPDATE borrower_sessions SET last_seen_at = $1 WHERE token_hash = $2")
            .bind(now)
            .bind(token_hash)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// A session as stored, live or not, with whether its borrower's account was deleted: why a token no longer
    /// signs anyone in. None for a token never issued (or purged with its account).
    pub async fn session_end(&self, token_hash: &str) -> sqlx::Result<Option<SessionEndRow>> {
        sqlx::query_as(
            "SELECT s.created_at, s.last_seen_at, s.revoked_at, b.deleted_at
             FROM borrower_sessions s JOIN borrowers b ON b.id = s.borrower_id WHERE s.token_hash = $1",
        )
        .bind(token_hash)
        .fetch_optional(self.pool())
        .await
    }

    /// Ends the session whose token hashes to `token_hash`, and with it every session handed over from it (the
    /// native shell's web views): one statement.
    pub async fn revoke_session(&self, token_hash: &str, now: i64) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE borrower_sessions SET revoked_at = $1
             WHERE revoked_at IS NULL
               AND (token_hash = $2 OR parent_id IN (SELECT id FROM borrower_sessions WHERE token_hash = $2))",
        )
        .bind(now)
        .bind(token_hash)
        .execute(self.pool())
        .await?;
        Ok(())
    }
}

impl Tx {
    /// True when a borrower whose account is live signed up with this phone (its keyed hash).
    pub async fn is_live_borrower_phone(&mut self, phone_hash: &str) -> sqlx::Result<bool> {
        let found: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM borrowers WHERE phone_hash = $1 AND deleted_at IS NULL",
        )
        .bind(phone_hash)
        .fetch_one(self.conn())
        .await?;
        Ok(found > 0)
    }
}

impl Tx {
    /// Uses a code (a verification code, with the change it allows, in the caller's transaction); false when another
    /// request used it first.
    pub async fn use_login_code(&mut self, id: &str, now: i64) -> sqlx::Result<bool> {
        let used = sqlx::query(
            "UPDATE login_codes SET consumed_at = $1 WHERE id = $2 AND consumed_at IS NULL AND expires_at > $1",
        )
        .bind(now)
        .bind(id)
        .execute(self.conn())
        .await?;
        Ok(used.rows_affected() == 1)
    }

    /// Inserts a code (in the transaction that counted it under the sending limits); returns its id.
    pub async fn insert_login_code(&mut self, new: &NewLoginCode<'_>) -> sqlx::Result<String> {
        let id = uuid::Uuid::now_v7().to_string();
        sqlx::query(
            "INSERT INTO login_codes (id, phone_hash, code_hash, channel, client_addr, created_at, expires_at, purpose)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&id)
        .bind(new.phone_hash)
        .bind(new.code_hash)
        .bind(new.channel)
        .bind(new.client_addr)
        .bind(new.created_at)
        .bind(new.expires_at)
        .bind(new.purpose)
        .execute(self.conn())
        .await?;
        Ok(id)
    }
}

/// A live session's row tagged with its token's hash, as a batch reads it.
#[derive(kilat_row::FromRow)]
struct TaggedSessionRow {
    token_hash: String,
    #[row(flatten)]
    session: SessionRow,
}

/// The live session of each key with its borrower, in the keys' order (`None`: no live session), in one statement.
pub(super) async fn session_borrowers_in(
    pool: &AnyPool,
    keys: &[SessionKey],
) -> sqlx::Result<Vec<Option<SessionRow>>> {
    let (idle_since, created_since, tokens) = session_bounds(keys);
    let sql = format!(
        "SELECT s.token_hash, b.id, b.market, b.phone_enc, b.created_at, s.created_at AS session_created_at,
           s.last_seen_at
         FROM borrower_sessions s JOIN borrowers b ON b.id = s.borrower_id WHERE {}",
        live_sessions_in(&tokens)
    );
    let mut query = sqlx::query_as::<_, TaggedSessionRow>(&sql)
        .bind(idle_since)
        .bind(created_since);
    for key in keys {
        query = query.bind(key.token_hash.as_str());
    }
    let rows = query.fetch_all(pool).await?;
    let found: HashMap<&str, &SessionRow> = rows
        .iter()
        .map(|row| (row.token_hash.as_str(), &row.session))
        .collect();
    Ok(keys
        .iter()
        .map(|key| {
            found
                .get(key.token_hash.as_str())
                .filter(|session| key.admits(session.created_at, session.last_seen_at))
                .map(|session| (*session).clone())
        })
        .collect())
}
