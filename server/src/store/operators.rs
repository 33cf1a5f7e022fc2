//! Operators of the console and their sessions: accounts with their password hash and roles, the conditional update
//! behind the lockout, and sessions kept as hashes of their token and CSRF token.

use super::{Db, Tx, new_id};

/// An operator as stored.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OperatorRow {
    pub id: String,
    pub username: String,
    pub password_hash: String,
    /// Comma-separated role codes.
    pub roles: String,
    pub failed_logins: i64,
    pub locked_until: Option<i64>,
    pub created_at: i64,
    pub disabled_at: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct NewOperator<'a> {
    pub username: &'a str,
    pub password_hash: &'a str,
    pub roles: &'a str,
    pub now: i64,
}

/// A username another operator already has.
#[derive(Debug)]
pub struct UsernameTaken;

/// A live console session with its operator.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OperatorSessionRow {
    #[sqlx(flatten)]
    pub operator: OperatorRow,
    pub csrf_hash: String,
    pub session_created_at: i64,
}

const COLUMNS: &str =
    "id, username, password_hash, roles, failed_logins, locked_until, created_at, disabled_at";

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

    /// Reserves one password check before the password is compared, in one conditional update, so that however many
    /// sign-ins arrive at once no more than `max_checks` are compared per lockout. The check that reaches
    /// `max_checks` also locks the operator until `lock_until`; once that time has passed the next check starts a
    /// new count at 1. Returns the check's number, or `None` when the operator is locked (or disabled).
    pub async fn reserve_password_check(
        &self,
        operator_id: &str,
        now: i64,
        max_checks: i64,
        lock_until: i64,
    ) -> sqlx::Result<Option<i64>> {
        // `locked_until` is set exactly when `failed_logins` reached the limit, so "locked, and the lock is over"
        // restarts the count and "not locked" adds one.
        sqlx::query_scalar(
            "UPDATE operators SET
               failed_logins = CASE WHEN locked_until IS NULL THEN failed_logins + 1 ELSE 1 END,
               locked_until = CASE
                 WHEN (CASE WHEN locked_until IS NULL THEN failed_logins + 1 ELSE 1 END) >= $3 THEN $4
                 ELSE NULL END
             WHERE id = $1 AND disabled_at IS NULL
               AND ((locked_until IS NULL AND failed_logins < $3) OR locked_until <= $2)
             RETURNING failed_logins",
        )
        .bind(operator_id)
        .bind(now)
        .bind(max_checks)
        .bind(lock_until)
        .fetch_optional(self.pool())
        .await
    }

    /// A right password: the count of failed checks starts again.
    pub async fn clear_failed_logins(&self, operator_id: &str) -> sqlx::Result<()> {
        sqlx::query("UPDATE operators SET failed_logins = 0, locked_until = NULL WHERE id = $1")
            .bind(operator_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }

    pub async fn insert_operator_session(
        &self,
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
        .execute(self.pool())
        .await?;
        Ok(())
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
            "SELECT o.id, o.username, o.password_hash, o.roles, o.failed_logins, o.locked_until, o.created_at,
                    o.disabled_at, s.csrf_hash, s.created_at AS session_created_at, s.last_seen_at
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
            "INSERT INTO operators (id, username, password_hash, roles, failed_logins, created_at)
             VALUES ($1, $2, $3, $4, 0, $5)",
        )
        .bind(&id)
        .bind(new.username)
        .bind(new.password_hash)
        .bind(new.roles)
        .bind(new.now)
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

    /// A new password hash; the lockout count starts again.
    pub async fn set_operator_password(
        &mut self,
        id: &str,
        password_hash: &str,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "UPDATE operators SET password_hash = $1, failed_logins = 0, locked_until = NULL WHERE id = $2",
        )
        .bind(password_hash)
        .bind(id)
        .execute(self.conn())
        .await?;
        Ok(())
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

#[derive(sqlx::FromRow)]
struct SessionWithSeen {
    #[sqlx(flatten)]
    session: OperatorSessionRow,
    last_seen_at: i64,
}
