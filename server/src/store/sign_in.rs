//! Sign-in: one-time codes, borrowers (found by a keyed hash of their phone) and sessions.

use sqlx::Row;

use super::Db;

/// A stored one-time code (its hash only).
#[derive(Debug, Clone)]
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
    pub code_hash: &'a str,
    pub channel: &'a str,
    pub client_addr: &'a str,
    pub created_at: i64,
    pub expires_at: i64,
}

/// A borrower as stored: the phone only encrypted.
#[derive(Debug, Clone)]
pub struct BorrowerRow {
    pub id: String,
    pub market: String,
    pub phone_enc: String,
    pub created_at: i64,
}

impl Db {
    /// The most recent code sent to a phone, used or not.
    pub async fn latest_login_code(&self, phone_hash: &str) -> sqlx::Result<Option<LoginCode>> {
        let row = sqlx::query(
            "SELECT id, code_hash, created_at, expires_at, failed_attempts, consumed_at FROM login_codes
             WHERE phone_hash = $1 ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(phone_hash)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(LoginCode {
                id: row.try_get("id")?,
                code_hash: row.try_get("code_hash")?,
                created_at: row.try_get("created_at")?,
                expires_at: row.try_get("expires_at")?,
                failed_attempts: row.try_get("failed_attempts")?,
                consumed_at: row.try_get("consumed_at")?,
            })
        })
        .transpose()
    }

    /// Codes sent since `since` to this phone and from this address: the daily caps.
    pub async fn count_login_codes_since(
        &self,
        phone_hash: &str,
        client_addr: &str,
        since: i64,
    ) -> sqlx::Result<(i64, i64)> {
        let row = sqlx::query(
            "SELECT
               (SELECT COUNT(*) FROM login_codes WHERE phone_hash = $1 AND created_at >= $3) AS by_phone,
               (SELECT COUNT(*) FROM login_codes WHERE client_addr = $2 AND created_at >= $3) AS by_addr",
        )
        .bind(phone_hash)
        .bind(client_addr)
        .bind(since)
        .fetch_one(self.pool())
        .await?;
        Ok((row.try_get("by_phone")?, row.try_get("by_addr")?))
    }

    pub async fn insert_login_code(&self, new: &NewLoginCode<'_>) -> sqlx::Result<String> {
        let id = uuid::Uuid::now_v7().to_string();
        sqlx::query(
            "INSERT INTO login_codes (id, phone_hash, code_hash, channel, client_addr, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(new.phone_hash)
        .bind(new.code_hash)
        .bind(new.channel)
        .bind(new.client_addr)
        .bind(new.created_at)
        .bind(new.expires_at)
        .execute(self.pool())
        .await?;
        Ok(id)
    }

    /// A code that could not be delivered must not block a resend.
    pub async fn delete_login_code(&self, id: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM login_codes WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn record_failed_login_attempt(&self, id: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE login_codes SET failed_attempts = failed_attempts + 1 WHERE id = $1")
            .bind(id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    /// Uses the code, finds or creates the borrower and opens a session, all or nothing. `None` when another request
    /// used the code first.
    pub async fn complete_sign_in(
        &self,
        code_id: &str,
        market: &str,
        phone_hash: &str,
        phone_enc: &str,
        token_hash: &str,
        now: i64,
    ) -> sqlx::Result<Option<(BorrowerRow, bool)>> {
        let mut tx = self.pool().begin().await?;
        let used = sqlx::query(
            "UPDATE login_codes SET consumed_at = $1 WHERE id = $2 AND consumed_at IS NULL",
        )
        .bind(now)
        .bind(code_id)
        .execute(&mut *tx)
        .await?;
        if used.rows_affected() != 1 {
            return Ok(None);
        }
        let new_id = uuid::Uuid::now_v7().to_string();
        let inserted = sqlx::query(
            "INSERT INTO borrowers (id, market, phone_hash, phone_enc, created_at, last_login_at)
             VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (phone_hash) DO NOTHING",
        )
        .bind(&new_id)
        .bind(market)
        .bind(phone_hash)
        .bind(phone_enc)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let is_new = inserted.rows_affected() == 1;
        sqlx::query("UPDATE borrowers SET last_login_at = $1 WHERE phone_hash = $2")
            .bind(now)
            .bind(phone_hash)
            .execute(&mut *tx)
            .await?;
        let row = sqlx::query(
            "SELECT id, market, phone_enc, created_at FROM borrowers WHERE phone_hash = $1",
        )
        .bind(phone_hash)
        .fetch_one(&mut *tx)
        .await?;
        let borrower = BorrowerRow {
            id: row.try_get("id")?,
            market: row.try_get("market")?,
            phone_enc: row.try_get("phone_enc")?,
            created_at: row.try_get("created_at")?,
        };
        sqlx::query(
            "INSERT INTO borrower_sessions (id, token_hash, borrower_id, created_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $4)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(token_hash)
        .bind(&borrower.id)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Some((borrower, is_new)))
    }

    /// The borrower of a live session (not revoked, used since `idle_since`), marking it used now.
    pub async fn session_borrower(
        &self,
        token_hash: &str,
        idle_since: i64,
        now: i64,
    ) -> sqlx::Result<Option<BorrowerRow>> {
        let row = sqlx::query(
            "SELECT b.id, b.market, b.phone_enc, b.created_at, s.last_seen_at FROM borrower_sessions s
             JOIN borrowers b ON b.id = s.borrower_id
             WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.last_seen_at >= $2",
        )
        .bind(token_hash)
        .bind(idle_since)
        .fetch_optional(self.pool())
        .await?;
        let Some(row) = row else { return Ok(None) };
        let last_seen: i64 = row.try_get("last_seen_at")?;
        // One write a minute at most per session, not one per request.
        if now - last_seen > 60_000 {
            sqlx::query("UPDATE borrower_sessions SET last_seen_at = $1 WHERE token_hash = $2")
                .bind(now)
                .bind(token_hash)
                .execute(self.pool())
                .await?;
        }
        Ok(Some(BorrowerRow {
            id: row.try_get("id")?,
            market: row.try_get("market")?,
            phone_enc: row.try_get("phone_enc")?,
            created_at: row.try_get("created_at")?,
        }))
    }

    pub async fn revoke_session(&self, token_hash: &str, now: i64) -> sqlx::Result<()> {
        sqlx::query("UPDATE borrower_sessions SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL")
            .bind(now)
            .bind(token_hash)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}
