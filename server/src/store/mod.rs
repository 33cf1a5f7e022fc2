//! Persistence: one pool over SQLite or PostgreSQL through sqlx's `Any` driver, portable SQL, one migrations folder.

pub mod certification;
pub mod contact_messages;
pub mod orders;
pub mod sign_in;

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{AnyPool, ConnectOptions, Connection, Executor};

/// A cheap, cloneable handle on the database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
}

impl Db {
    /// Connects, creating a SQLite file (and its folder) when missing, and applies pending migrations.
    pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<Self> {
        install_default_drivers();
        let is_sqlite = url.starts_with("sqlite:");
        if is_sqlite {
            prepare_sqlite(url).await?;
        }
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if is_sqlite {
                        // Per connection: wait for a writer instead of failing with SQLITE_BUSY; enforce foreign keys.
                        conn.execute("PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL")
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .with_context(|| format!("connecting to the database ({})", redact(url)))?;
        sqlx::migrate!("./migrations")
            .run(&pool)
            .await
            .context("applying the database migrations")?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// True when the database answers a trivial query.
    pub async fn is_ready(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Creates the file and its folder, and switches the file to WAL (a property of the file, so once is enough).
async fn prepare_sqlite(url: &str) -> anyhow::Result<()> {
    let options = SqliteConnectOptions::from_str(url)
        .with_context(|| format!("KILAT_DATABASE_URL is not a valid SQLite URL: {url}"))?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal);
    let path = options.get_filename();
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating the data folder {}", parent.display()))?;
    }
    let conn = options
        .connect()
        .await
        .with_context(|| format!("opening the SQLite database {}", path.display()))?;
    conn.close().await.ok();
    Ok(())
}

/// The URL without its password, for error messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            let user = userinfo.split(':').next().unwrap_or_default();
            format!("{}://{}@{}", &url[..scheme], user, &url[at + 1..])
        }
        _ => url.to_owned(),
    }
}

/// Milliseconds since the Unix epoch, the only time format the store keeps.
pub fn now_ms() -> i64 {
    let now = time::OffsetDateTime::now_utc();
    i64::try_from(now.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn redact_hides_the_password_but_keeps_user_and_host() {
        assert_eq!(
            redact("postgres://kilat:s3cret@db:5432/kilat"),
            "postgres://kilat@db:5432/kilat"
        );
        assert_eq!(redact("sqlite://data/kilat.db"), "sqlite://data/kilat.db");
    }
}
