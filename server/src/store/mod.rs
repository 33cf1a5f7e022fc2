//! Persistence: one pool over SQLite or PostgreSQL through sqlx's `Any` driver, portable SQL, one migrations folder.

/// EXPERIMENT: runs one query on whichever native pool (the body is expanded once per driver).
macro_rules! on_native {
    ($native:expr, |$p:ident| $body:expr) => {
        match $native {
            $crate::store::Native::Sqlite($p) => $body,
            $crate::store::Native::Pg($p) => $body,
        }
    };
}

pub mod certification;
pub mod contact_messages;
pub mod orders;
pub mod sign_in;

use std::str::FromStr;
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{AnyPool, ConnectOptions, Connection, Executor, PgPool, SqlitePool};

/// A cheap, cloneable handle on the database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    /// EXPERIMENT: a native pool beside the `Any` one, used by the hot reads when `KILAT_EXP` has `native`.
    native: Native,
    /// EXPERIMENT (`pin`): one native pool per HTTP worker, so a connection is only used on the runtime that opened it.
    pinned: Vec<Native>,
}

thread_local! {
    /// EXPERIMENT (`pin`): the HTTP worker this thread is.
    pub static WORKER: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

#[derive(Clone, Debug)]
pub enum Native {
    Sqlite(SqlitePool),
    Pg(PgPool),
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
            .test_before_acquire(!crate::exp::on("noping"))
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
        let native = native_pool(url, is_sqlite, max_connections)?;
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        let per_worker = (max_connections / u32::try_from(workers).unwrap_or(1)).max(1);
        let pinned = (0..workers)
            .map(|_| native_pool(url, is_sqlite, per_worker))
            .collect::<anyhow::Result<_>>()?;
        Ok(Self {
            pool,
            native,
            pinned,
        })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// EXPERIMENT: the native pool, when `KILAT_EXP` has `native` (with `pin`, this HTTP worker's own).
    pub fn native(&self) -> Option<&Native> {
        if crate::exp::on("pin")
            && let Some(n) = WORKER.with(std::cell::Cell::get)
        {
            return Some(&self.pinned[n % self.pinned.len()]);
        }
        crate::exp::on("native").then_some(&self.native)
    }

    /// True when the database answers a trivial query.
    pub async fn is_ready(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }

    pub async fn close(&self) {
        match &self.native {
            Native::Sqlite(p) => p.close().await,
            Native::Pg(p) => p.close().await,
        }
        self.pool.close().await;
    }
}

/// EXPERIMENT: a lazily connecting native pool with the settings of the `Any` one.
fn native_pool(url: &str, is_sqlite: bool, max_connections: u32) -> anyhow::Result<Native> {
    Ok(if is_sqlite {
        let options = SqliteConnectOptions::from_str(url)?
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true)
            .synchronous(SqliteSynchronous::Normal);
        Native::Sqlite(
            SqlitePoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(Duration::from_secs(10))
                .test_before_acquire(!crate::exp::on("noping"))
                .connect_lazy_with(options),
        )
    } else {
        Native::Pg(
            PgPoolOptions::new()
                .max_connections(max_connections)
                .acquire_timeout(Duration::from_secs(10))
                .test_before_acquire(!crate::exp::on("noping"))
                .connect_lazy_with(PgConnectOptions::from_str(url)?),
        )
    })
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
