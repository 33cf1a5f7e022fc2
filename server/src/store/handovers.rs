//! The native shell's session hand-over codes (`session_handovers`): issued for a live session, redeemed once for a
//! new session of the same borrower (docs/API-BORROWER.md, "Handing a session to the web app").

use super::Db;
use super::sign_in::BorrowerRow;

/// A redeemed code: the borrower of the session it was issued for, and whether a new session was opened.
#[derive(Debug, Clone)]
pub struct RedeemedHandover {
    pub borrower: BorrowerRow,
    /// When the native session was opened (sign-in): the new session keeps it, so the absolute limit still counts from
    /// the sign-in.
    pub session_created_at: i64,
    /// False when `open_if` declined (the browser already had a session).
    pub opened: bool,
}

/// The native session and its borrower, as read in the redeeming transaction.
#[derive(kilat_row::FromRow)]
struct HandedSession {
    #[row(flatten)]
    borrower: BorrowerRow,
    session_created_at: i64,
    /// The session the new one answers to: the handed one, or the one it was itself handed from.
    root_session_id: String,
}

impl Db {
    /// Stores a code's hash for the live session whose token hashes to `token_hash`, bound to the hash of the
    /// address it was asked from, and removes the codes that have expired. False when there is no such session
    /// (revoked meanwhile).
    pub async fn insert_handover(
        &self,
        code_hash: &str,
        token_hash: &str,
        client_hash: &str,
        now: i64,
        expires_at: i64,
    ) -> sqlx::Result<bool> {
        sqlx::query("DELETE FROM session_handovers WHERE expires_at <= $1")
            .bind(now)
            .execute(self.pool())
            .await?;
        let inserted = sqlx::query(
            "INSERT INTO session_handovers (code_hash, session_id, created_at, expires_at, client_hash)
             SELECT $1, id, $3, $4, $5 FROM borrower_sessions WHERE token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(code_hash)
        .bind(token_hash)
        .bind(now)
        .bind(expires_at)
        .bind(client_hash)
        .execute(self.pool())
        .await?;
        Ok(inserted.rows_affected() == 1)
    }

    /// Uses a code, all or nothing: the code is deleted (`DELETE … RETURNING`, so of simultaneous exchanges exactly
    /// one gets the row), its session must still be live (not revoked, used since `idle_since`, opened since
    /// `created_since`), and when `open_if` accepts the session's borrower a new session is opened for them under
    /// `new_token_hash`, with the native session's opening time, answering to the native session (signing that out
    /// ends it: [`Db::revoke_session`]). `None` when the code is unknown, used, expired,
    /// bound to another address than `client_hash`, or its session has ended; the code is used up either way.
    #[allow(clippy::too_many_arguments)]
    pub async fn redeem_handover(
        &self,
        code_hash: &str,
        client_hash: &str,
        now: i64,
        idle_since: i64,
        created_since: i64,
        new_token_hash: &str,
        open_if: impl FnOnce(&BorrowerRow) -> bool,
    ) -> sqlx::Result<Option<RedeemedHandover>> {
        let mut tx = self.begin().await?;
        let session_id: Option<(String, i64, Option<String>)> = sqlx::query_as(
            "DELETE FROM session_handovers WHERE code_hash = $1 RETURNING session_id, expires_at, client_hash",
        )
        .bind(code_hash)
        .fetch_optional(tx.conn())
        .await?;
        // An expired code is deleted all the same: it is of no use any more; so is one exchanged from elsewhere.
        let Some((session_id, _, bound)) =
            session_id.filter(|(_, expires_at, _)| *expires_at > now)
        else {
            tx.commit().await?;
            return Ok(None);
        };
        if bound.is_some_and(|bound| bound != client_hash) {
            tx.commit().await?;
            tracing::warn!(
                "hand-over refused: exchanged from another address than the one it was issued to"
            );
            return Ok(None);
        }
        // The borrower is locked (PostgreSQL; SQLite's write transaction holds the database) until the browser's
        // session is written: an account deletion committing meanwhile would otherwise revoke the sessions it saw
        // and leave this new one live on an erased account; one committed first is seen here (the row is read again
        // once the lock is had). Only the borrower's row, which the deletion locks first too, so the two wait in the
        // same order and never deadlock.
        let lock = if tx.lock_clause().is_empty() {
            ""
        } else {
            " FOR UPDATE OF b"
        };
        let sql = format!(
            "SELECT b.id, b.market, b.phone_enc, b.created_at, s.created_at AS session_created_at,
                    COALESCE(s.parent_id, s.id) AS root_session_id
             FROM borrower_sessions s JOIN borrowers b ON b.id = s.borrower_id
             WHERE s.id = $1 AND s.revoked_at IS NULL AND s.last_seen_at >= $2 AND s.created_at >= $3
               AND b.deleted_at IS NULL{lock}"
        );
        let handed: Option<HandedSession> = sqlx::query_as(&sql)
            .bind(&session_id)
            .bind(idle_since)
            .bind(created_since)
            .fetch_optional(tx.conn())
            .await?;
        let Some(handed) = handed else {
            tx.commit().await?;
            return Ok(None);
        };
        let opened = open_if(&handed.borrower);
        if opened {
            sqlx::query(
                "INSERT INTO borrower_sessions (id, token_hash, borrower_id, created_at, last_seen_at, parent_id)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(uuid::Uuid::now_v7().to_string())
            .bind(new_token_hash)
            .bind(&handed.borrower.id)
            .bind(handed.session_created_at)
            .bind(now)
            .bind(&handed.root_session_id)
            .execute(tx.conn())
            .await?;
        }
        tx.commit().await?;
        Ok(Some(RedeemedHandover {
            borrower: handed.borrower,
            session_created_at: handed.session_created_at,
            opened,
        }))
    }
}
