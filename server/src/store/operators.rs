//! Operators of the console and their sessions: accounts with their password hash and roles, the conditional update
//! behind the lockout, and sessions kept as hashes of their token and CSRF token.

use super::{Db, Tx, new_id};

/// An operator as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OperatorRow {
    pub id: String,
    pub username: String,
    pub password_hash: String,
    /// Comma-separated role codes.
    pub roles: String,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
    /// Comma-separated market codes (`IN,ID`).
    pub markets: String,
    /// 1 while the password is one an admin set.
    pub password_change_required: i64,
}

#[derive(Debug, Clone)]
pub struct NewOperator<'a> {
    pub username: &'a str,
    pub password_hash: &'a str,
    pub roles: &'a str,
    pub markets: &'a str,
    pub password_change_required: bool,
    pub now: i64,
}

/// A username another operator already has.
#[derive(Debug)]
pub struct UsernameTaken;

/// A live console session with its operator.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OperatorSessionRow {
    #[row(flatten)]
    pub operator: OperatorRow,
    pub csrf_hash: String,
    pub session_created_at: i64,
}

const COLUMNS: &str = "id, username, password_hash, roles, created_at, disabled_at, markets, password_change_required";

impl Db {
    pub async fn operator_by_username(&self, username: &str) -> sqlx::Result<Option<OperatorRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM operators WHERE username = $1"
        ))
        .bind(username)
        .fetch_optional(self.pool())
        .await
    }

    pub async fn operator_by_id(&self, id: &str) -> sqlx::Result<Option<OperatorRow>> {
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM operators WHERE id = $1"))
            .bind(id)
            .fetch_optional(self.pool())
            .await
    }

    pub async fn count_operators(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM operators")
            .fetch_one(self.pool())
            .await
    }

    /// Every operator, by username.
    pub async fn operators(&self) -> sqlx::Result<Vec<OperatorRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM operators ORDER BY username"
        ))
        .fetch_all(self.pool())
        .await
    }

    /// When each operator last signed in (from any address), for those who ever did.
    pub async fn last_sign_ins(&self) -> sqlx::Result<Vec<(String, i64)>> {
        sqlx::query_as(
            "SELECT operator_id, MAX(signed_in_at) FROM operator_addresses GROUP BY operator_id",
        )
        .fetch_all(self.pool())
        .await
    }

    /// When one operator last signed in, or `None` when they never did.
    pub async fn last_sign_in(&self, operator_id: &str) -> sqlx::Result<Option<i64>> {
        sqlx::query_scalar(
            "SELECT MAX(signed_in_at) FROM operator_addresses WHERE operator_id = $1",
        )
        .bind(operator_id)
        .fetch_one(self.pool())
        .await
    }

    /// True when the operator signed in from `address` (a limit's address key) since `since`.
    pub async fn operator_address_known(
        &self,
        operator_id: &str,
        address: &str,
        since: i64,
    ) -> sqlx::Result<bool> {
        let found: Option<i64> = sqlx::query_scalar(
            "SELECT signed_in_at FROM operator_addresses
             WHERE operator_id = $1 AND address = $2 AND signed_in_at >= $3",
        )
        .bind(operator_id)
        .bind(address)
        .bind(since)
        .fetch_optional(self.pool())
        .await?;
        Ok(found.is_some())
    }

    /// A right password from `address`: the address is known from now on, and its count of checks (the limiter's row
    /// `checks_key`) starts again, together.
    pub async fn operator_signed_in_from(
        &self,
        operator_id: &str,
        address: &str,
        checks_key: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        let mut tx = self.begin().await?;
        sqlx::query(
            "INSERT INTO operator_addresses (operator_id, address, signed_in_at) VALUES ($1, $2, $3)
             ON CONFLICT (operator_id, address) DO UPDATE SET signed_in_at = excluded.signed_in_at",
        )
        .bind(operator_id)
        .bind(address)
        .bind(now)
        .execute(tx.conn())
        .await?;
        sqlx::query("DELETE FROM rate_limits WHERE key = $1")
            .bind(checks_key)
            .execute(tx.conn())
            .await?;
        tx.commit().await
    }

    /// The operator of a live session: not revoked, opened since `created_since` (and not after `now`), its operator
    /// not disabled. Marks the session used now at most once a minute.
    pub async fn session_operator(
        &self,
        token_hash: &str,
        created_since: i64,
        now: i64,
    ) -> sqlx::Result<Option<OperatorSessionRow>> {
        let row: Option<(OperatorSessionRow, i64)> = sqlx::query_as::<_, SessionWithSeen>(
            "SELECT o.id, o.username, o.password_hash, o.roles, o.created_at,
                    o.disabled_at, o.markets, o.password_change_required, s.csrf_hash, s.created_at AS session_created_at, s.last_seen_at
             FROM operator_sessions s JOIN operators o ON o.id = s.operator_id
             WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.created_at >= $2 AND s.created_at <= $3
               AND o.disabled_at IS NULL",
        )
        .bind(token_hash)
        .bind(created_since)
        .bind(now)
        .fetch_optional(self.pool())
        .await?
        .map(|r| (r.session, r.last_seen_at));
        let Some((session, last_seen_at)) = row else {
            return Ok(None);
        };
        if now - last_seen_at > 60_000 {
            sqlx::query("UPDATE operator_sessions SET last_seen_at = $1 WHERE token_hash = $2")
                .bind(now)
                .bind(token_hash)
                .execute(self.pool())
                .await?;
        }
        Ok(Some(session))
    }

    pub async fn revoke_operator_session(&self, token_hash: &str, now: i64) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE operator_sessions SET revoked_at = $1 WHERE token_hash = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(token_hash)
        .execute(self.pool())
        .await?;
        Ok(())
    }
}

impl Tx {
    /// Inserts an operator; `Err(UsernameTaken)` when the username is in use (the unique constraint decides; the
    /// transaction is then spoilt on PostgreSQL and the caller drops it).
    pub async fn insert_operator(
        &mut self,
        new: &NewOperator<'_>,
    ) -> sqlx::Result<Result<String, UsernameTaken>> {
        let id = new_id();
        let inserted = sqlx::query(
            "INSERT INTO operators (id, username, password_hash, roles, created_at, markets,
                                    password_change_required)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(new.username)
        .bind(new.password_hash)
        .bind(new.roles)
        .bind(new.now)
        .bind(new.markets)
        .bind(i64::from(new.password_change_required))
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => Ok(Ok(id)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Err(UsernameTaken)),
            Err(e) => Err(e),
        }
    }

    /// The ids of the enabled operators who hold the admin role, locked in id order until the transaction ends (on
    /// PostgreSQL; SQLite's transaction holds the write lock already). Every change that could leave no admin takes
    /// this first, so two such changes at once run one after the other and the second sees the first's result.
    pub async fn lock_enabled_admins(&mut self) -> sqlx::Result<Vec<String>> {
        let sql = format!(
            "SELECT id FROM operators
             WHERE disabled_at IS NULL AND (',' || roles || ',') LIKE '%,admin,%'
             ORDER BY id{}",
            self.lock_clause()
        );
        sqlx::query_scalar(&sql).fetch_all(self.conn()).await
    }

    /// A new console session, in the transaction that checked its operator's password is still the one signed in with.
    pub async fn insert_operator_session(
        &mut self,
        operator_id: &str,
        token_hash: &str,
        csrf_hash: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO operator_sessions (id, token_hash, csrf_hash, operator_id, created_at, last_seen_at)
             VALUES ($1, $2, $3, $4, $5, $5)",
        )
        .bind(new_id())
        .bind(token_hash)
        .bind(csrf_hash)
        .bind(operator_id)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// An operator, read inside the transaction (and locked on PostgreSQL).
    pub async fn operator_for_update(&mut self, id: &str) -> sqlx::Result<Option<OperatorRow>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM operators WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(self.conn())
            .await
    }

    pub async fn set_operator_roles(&mut self, id: &str, roles: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE operators SET roles = $1 WHERE id = $2")
            .bind(roles)
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// Disables (`Some(now)`) or enables (`None`) an operator.
    pub async fn set_operator_disabled(
        &mut self,
        id: &str,
        disabled_at: Option<i64>,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE operators SET disabled_at = $1 WHERE id = $2")
            .bind(disabled_at)
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    pub async fn set_operator_markets(&mut self, id: &str, markets: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE operators SET markets = $1 WHERE id = $2")
            .bind(markets)
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// A new password hash; `change_required` when an admin set it (the operator chooses their own at sign-in).
    pub async fn set_operator_password(
        &mut self,
        id: &str,
        password_hash: &str,
        change_required: bool,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE operators SET password_hash = $1, password_change_required = $2 WHERE id = $3",
        )
        .bind(password_hash)
        .bind(i64::from(change_required))
        .bind(id)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// An operator's own change of password: to `new_hash`, their choice (no change required any more), only while the
    /// stored hash is still `checked_hash` (the one their current password was checked against) and the session of
    /// `token_hash` is live — an admin's reset or a disabling meanwhile wins. True when it was changed.
    pub async fn change_own_operator_password(
        &mut self,
        id: &str,
        checked_hash: &str,
        new_hash: &str,
        token_hash: &str,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE operators SET password_hash = $1, password_change_required = 0
             WHERE id = $2 AND password_hash = $3 AND disabled_at IS NULL
               AND EXISTS (SELECT 1 FROM operator_sessions s
                           WHERE s.token_hash = $4 AND s.operator_id = $2 AND s.revoked_at IS NULL)",
        )
        .bind(new_hash)
        .bind(id)
        .bind(checked_hash)
        .bind(token_hash)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Ends every live session of an operator but the one of `kept_token_hash`; returns how many.
    pub async fn revoke_other_operator_sessions(
        &mut self,
        id: &str,
        kept_token_hash: &str,
        now: i64,
    ) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "UPDATE operator_sessions SET revoked_at = $1
             WHERE operator_id = $2 AND revoked_at IS NULL AND token_hash <> $3",
        )
        .bind(now)
        .bind(id)
        .bind(kept_token_hash)
        .execute(self.conn())
        .await?
        .rows_affected())
    }

    /// Ends every live session of an operator; returns how many.
    pub async fn revoke_operator_sessions(&mut self, id: &str, now: i64) -> sqlx::Result<u64> {
        Ok(sqlx::query(
            "UPDATE operator_sessions SET revoked_at = $1 WHERE operator_id = $2 AND revoked_at IS NULL",
        )
        .bind(now)
        .bind(id)
        .execute(self.conn())
        .await?
        .rows_affected())
    }
}

#[derive(kilat_row::FromRow)]
struct SessionWithSeen {
    #[row(flatten)]
    session: OperatorSessionRow,
    last_seen_at: i64,
}
