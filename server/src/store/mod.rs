//! Persistence: one pool over SQLite or PostgreSQL through sqlx's `Any` driver, portable SQL, one migrations folder.
//! All SQL of the server lives under this module. Rows map through `kilat_row::FromRow` (crates/row); closed sets
//! (market, currency, status, step) through the one codec of `kilat_domain::codes`. A write that spans statements
//! takes a [`Tx`].

pub mod account;
pub mod audit;
pub(crate) mod batch;
pub mod book;
pub mod callbacks;
pub mod certification;
pub mod collections;
pub mod complaints;
pub mod contact_messages;
pub mod dashboard;
pub mod faq;
pub mod fingerprints;
pub mod handovers;
pub mod jobs;
pub mod kept_counts;
pub mod kept_records;
pub(crate) mod lists;
pub mod loans;
pub mod operators;
pub mod orders;
pub mod payments;
pub mod payout_ops;
pub mod products;
pub mod rate_limits;
pub mod reconciliation;
pub mod reseal;
pub mod review;
pub mod seed;
pub mod sign_in;
pub mod site_claims;
pub mod standing;
pub mod telemetry;
pub mod unmatched;

use std::cell::RefCell;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use anyhow::Context;
use sqlx::any::{AnyPoolOptions, install_default_drivers};
use sqlx::pool::PoolConnection;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sqlx::{Any, AnyConnection, AnyPool, ConnectOptions, Connection, Executor};

/// A cheap, cloneable handle on the database.
#[derive(Clone, Debug)]
pub struct Db {
    pool: AnyPool,
    sqlite: bool,
    /// Tells this database's worker pools from another's (tests run several servers in one process).
    id: u64,
    url: Arc<str>,
    /// The console queues' counts, kept until what they count changes (store/kept_counts.rs).
    counts: Arc<kept_counts::Counts>,
}

static NEXT_DB_ID: AtomicU64 = AtomicU64::new(1);

/// The schema's migration files (`migrations/<version>_<description>.sql`), embedded at build time: every file of
/// the folder, of which [`migrations`] reads the `.sql` ones, as sqlx does (rust-embed's `include` filter compiles a
/// glob engine into the binary).
#[derive(rust_embed::RustEmbed)]
#[folder = "migrations/"]
struct MigrationFiles;

/// The schema's migrations, in order: applied by [`Db::connect`]; the API tests key their PostgreSQL template database
/// by them. Each file is read as `sqlx::migrate!` would (sqlx's `resolve_blocking`: version, description with `_` as
/// spaces, the type from the name, `-- no-transaction`, the checksum of the text), so a database migrated by an older
/// build keeps its checksums. Embedded with rust-embed rather than `sqlx::migrate!`, whose crate (`sqlx-macros`)
/// built sqlx's drivers a second time for the host.
pub fn migrations() -> Vec<sqlx::migrate::Migration> {
    use sqlx::migrate::{Migration, MigrationType};
    let mut migrations: Vec<Migration> = MigrationFiles::iter()
        .filter(|name| name.ends_with(".sql"))
        .map(|name| {
            let (version, rest) = name.split_once('_').unwrap_or_else(|| {
                panic!("migration {name} is not named <version>_<description>.sql")
            });
            let version: i64 = version.parse().unwrap_or_else(|_| {
                panic!("migration {name} does not start with a version number")
            });
            let kind = MigrationType::from_filename(rest);
            let description = rest.trim_end_matches(kind.suffix()).replace('_', " ");
            let file = MigrationFiles::get(&name).expect("an embedded file is there");
            let sql = String::from_utf8(file.data.into_owned())
                .unwrap_or_else(|_| panic!("migration {name} is not UTF-8"));
            let no_tx = sql.starts_with("-- no-transaction");
            Migration::new(version, description.into(), kind, sql.into(), no_tx)
        })
        .collect();
    migrations.sort_by_key(|m| m.version);
    migrations
}

/// [`migrations`] as sqlx's migrator takes them.
#[derive(Debug)]
struct EmbeddedMigrations;

impl sqlx::migrate::MigrationSource<'static> for EmbeddedMigrations {
    fn resolve(
        self,
    ) -> futures_util::future::BoxFuture<
        'static,
        Result<Vec<sqlx::migrate::Migration>, sqlx::error::BoxDynError>,
    > {
        Box::pin(async { Ok(migrations()) })
    }
}

thread_local! {
    /// This thread's own PostgreSQL pool for the hot reads and their batchers, when it is an HTTP worker (see
    /// [`Db::open_worker_pool`]), with the id of the [`Db`] it belongs to.
    static WORKER_POOL: RefCell<Option<(u64, WorkerReads)>> = const { RefCell::new(None) };
}

/// Statements each hot read may hold out at once, per worker (`store::batch`). One: measured on two cores under
/// `wrk -c64`, two lanes gave home a p99 of 20–40 ms (a second statement out doubles the backends a worker keeps busy
/// and splits the batches), one lane 6–9 ms at the same requests/s (docs/PERFORMANCE.md).
const HOT_READ_LANES: usize = 1;
/// The most requests one batched statement answers. 16: at 1,000,000 orders on two cores under `wrk -c64`, a batch of
/// 32 kept PostgreSQL on one statement about 1.7 ms and gave home a p99 of 9.0–12.3 ms and the plan 14.4–14.8 ms;
/// batches of 16 gave 6.8–10.5 ms and 9.1–9.6 ms at the same requests/s or more (docs/PERFORMANCE.md, "At the site's
/// scale on PostgreSQL").
const HOT_READ_BATCH: usize = 16;

/// An HTTP worker's own pool and the batchers of its hot reads, which run on that pool.
#[derive(Clone)]
struct WorkerReads {
    pool: AnyPool,
    /// PostgreSQL only: SQLite's statements run on each connection's own thread, with nothing to batch.
    hot: Option<HotReads>,
}

/// The batched hot reads: the session of every request, the order list, home's standing, the loan screens' order.
#[derive(Clone)]
pub(crate) struct HotReads {
    pub session: batch::Batcher<batch::SessionKey, Option<sign_in::SessionRow>>,
    pub orders: batch::Batcher<(batch::SessionKey, i64), Option<orders::SessionOrders>>,
    pub standing: batch::Batcher<batch::SessionKey, Option<standing::SessionStanding>>,
    /// A borrower's order with its plan and balances: the loan screens (plan, repayment, payment types).
    pub own_orders: batch::Batcher<loans::OwnOrderKey, Option<loans::OwnOrderRead>>,
}

impl HotReads {
    /// Starts the lanes on the current runtime, reading through `pool`.
    fn spawn(pool: &AnyPool) -> Self {
        let (session_pool, orders_pool, standing_pool, own_pool) =
            (pool.clone(), pool.clone(), pool.clone(), pool.clone());
        Self {
            session: batch::Batcher::spawn(HOT_READ_LANES, HOT_READ_BATCH, move |keys| {
                let pool = session_pool.clone();
                Box::pin(async move { sign_in::session_borrowers_in(&pool, &keys).await })
            }),
            orders: batch::Batcher::spawn(HOT_READ_LANES, HOT_READ_BATCH, move |keys| {
                let pool = orders_pool.clone();
                Box::pin(async move { orders::session_orders_in(&pool, &keys).await })
            }),
            standing: batch::Batcher::spawn(HOT_READ_LANES, HOT_READ_BATCH, move |keys| {
                let pool = standing_pool.clone();
                // Batched on PostgreSQL only (`WorkerReads::hot`): not SQLite's statement.
                Box::pin(async move { standing::session_standings_in(&pool, false, &keys).await })
            }),
            own_orders: batch::Batcher::spawn(HOT_READ_LANES, HOT_READ_BATCH, move |keys| {
                let pool = own_pool.clone();
                Box::pin(async move { loans::own_orders_in(&pool, &keys).await })
            }),
        }
    }
}

/// One write transaction that capability code passes through several store modules, committed in one place (a
/// repayment writes payment, ledger, order status and audit together). Dropped without [`Tx::commit`], it rolls back.
///
/// On SQLite it starts with `BEGIN IMMEDIATE`, taking the database's write lock at once: a transaction that reads
/// first and writes later cannot wait for that lock (SQLite answers "database is locked" at once), while one that
/// holds it from the start only waits its turn (`busy_timeout`). On PostgreSQL rows are locked where read for update
/// ([`Tx::lock_clause`]).
///
/// Cancellation-safe: a request's future may be dropped at any await (a client that goes away), inside `BEGIN`, a
/// statement or `COMMIT`. From the moment `BEGIN` may have been sent until `COMMIT` or `ROLLBACK` has answered, the
/// connection counts as possibly inside a transaction, and a `Tx` dropped in that state never goes back to the pool as
/// it is: a task rolls it back and only then returns it, or closes it when that fails or no runtime can run the task
/// (docs/ARCHITECTURE.md, "Transactions and cancelled requests"). sqlx's own `Transaction` is not used: its `begin`
/// can be dropped after the server began but before a guard exists (SQLite's `BEGIN IMMEDIATE` check, PostgreSQL's
/// `BEGIN` round trip), which left a pooled connection holding SQLite's write lock for minutes (issue 17).
/// A one-row table a migration creates to have the first start after it do some work once ([`Tx::take_marker`]).
#[derive(Debug, Clone, Copy)]
pub enum StartupMarker {
    /// Migration 0005: the PII written before it, resealed bound to its row.
    PiiReseal,
    /// Migration 0030: the agreements written in clear, sealed.
    AgreementSeal,
    /// Migration 0035: the fingerprints and masked phones of the borrowers from before it.
    Fingerprints,
    /// Migration 0050: the job steps' income verdicts.
    IncomeVerdicts,
    /// Migration 0052: the dashboard's book counted from the open loans' positions.
    BookCount,
    /// Migration 0069: the contact messages' text and company, sealed.
    ContactTextSeal,
}

impl StartupMarker {
    fn table(self) -> &'static str {
        match self {
            Self::PiiReseal => "pii_reseal_pending",
            Self::AgreementSeal => "agreement_seal_pending",
            Self::Fingerprints => "fingerprint_backfill_pending",
            Self::IncomeVerdicts => "income_verdict_backfill_pending",
            Self::BookCount => "book_count_pending",
            Self::ContactTextSeal => "contact_text_seal_pending",
        }
    }
}

pub struct Tx {
    /// `None` once committed or rolled back.
    conn: Option<PoolConnection<Any>>,
    /// Whether the connection may be inside a transaction: set before `BEGIN` is sent, cleared once `BEGIN` failed or
    /// `COMMIT`/`ROLLBACK` succeeded.
    open: bool,
    sqlite: bool,
    /// What this transaction wrote that makes kept counts stale once it commits.
    written: kept_counts::Written,
    counts: Arc<kept_counts::Counts>,
}

impl Tx {
    /// Sends `begin` on `conn`. Cancelled, the `Tx` already exists and rolls back on drop.
    async fn begin(
        conn: PoolConnection<Any>,
        begin: &'static str,
        sqlite: bool,
        counts: Arc<kept_counts::Counts>,
    ) -> sqlx::Result<Self> {
        let mut tx = Self {
            conn: Some(conn),
            open: true,
            sqlite,
            written: kept_counts::Written::default(),
            counts,
        };
        if let Err(err) = tx.run(begin).await {
            // A `BEGIN` that answered an error began nothing (SQLite's busy timeout, a PostgreSQL error): the
            // connection goes back as it is.
            tx.open = false;
            return Err(err);
        }
        Ok(tx)
    }

    pub async fn commit(mut self) -> sqlx::Result<()> {
        self.run("COMMIT").await?;
        self.open = false;
        self.counts.committed(self.written);
        Ok(())
    }

    /// Ends the transaction now, releasing its locks before the call returns (a dropped one rolls back too, but on a
    /// task of its own, shortly after).
    pub async fn rollback(mut self) -> sqlx::Result<()> {
        self.run("ROLLBACK").await?;
        self.open = false;
        Ok(())
    }

    /// Deletes a migration's marker: true when it was there, and the start-up work it stands for is this
    /// transaction's to do. Two servers starting at once do it once: the second waits for the first's transaction and
    /// finds no marker; a transaction that fails leaves it for the next start.
    pub async fn take_marker(&mut self, marker: StartupMarker) -> sqlx::Result<bool> {
        Ok(sqlx::query(&format!("DELETE FROM {}", marker.table()))
            .execute(self.conn())
            .await?
            .rows_affected()
            > 0)
    }

    /// One statement without arguments (PostgreSQL's simple protocol: one message, no prepared statement).
    async fn run(&mut self, sql: &'static str) -> sqlx::Result<()> {
        self.conn().execute(sql).await.map(drop)
    }

    /// A PostgreSQL setting's value in this transaction (`current_setting`).
    pub async fn setting(&mut self, name: &str) -> sqlx::Result<String> {
        sqlx::query_scalar("SELECT current_setting($1)")
            .bind(name)
            .fetch_one(self.conn())
            .await
    }

    pub(crate) fn conn(&mut self) -> &mut AnyConnection {
        self.conn
            .as_mut()
            .expect("a Tx holds its connection until it is consumed")
    }

    /// The row-lock suffix of a `SELECT … FOR UPDATE`, which only PostgreSQL takes (as [`Tx::lock_free_rows_clause`]).
    /// SQLite has no row locks; its transaction already holds the write lock.
    pub(crate) fn lock_clause(&self) -> &'static str {
        if self.sqlite { "" } else { " FOR UPDATE" }
    }

    /// Holds, until the transaction ends, a lock on each provider payment id of `ids` (PostgreSQL's transaction
    /// advisory locks, taken in sorted order so two holders never wait on each other in a cycle; SQLite's transaction
    /// already holds the write lock). A statement that writes an id only when no payment carries it yet (a unique
    /// column) then sees any other transaction's write of it committed, instead of both passing the check and the
    /// second failing on the constraint.
    pub(crate) async fn lock_provider_ids<'a>(
        &mut self,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> sqlx::Result<()> {
        if self.sqlite {
            return Ok(());
        }
        let mut ids: Vec<&str> = ids.into_iter().collect();
        ids.sort_unstable();
        ids.dedup();
        // One statement a batch: the locks taken row by row in the list's (sorted) order.
        for chunk in ids.chunks(500) {
            let values = (1..=chunk.len())
                .map(|i| format!("(${i})"))
                .collect::<Vec<_>>()
                .join(", ");
            // Counted (as text: the lock returns nothing the driver reads), so every row's lock is taken.
            let sql = format!(
                "SELECT COUNT(CAST(pg_advisory_xact_lock(hashtextextended('provider-payment:' || v.column1, 7431))
                     AS TEXT))
                 FROM (VALUES {values}) v"
            );
            let mut query = sqlx::query_scalar::<_, i64>(&sql);
            for id in chunk {
                query = query.bind(*id);
            }
            query.fetch_one(self.conn()).await?;
        }
        Ok(())
    }

    /// [`Tx::lock_clause`] for a statement that takes only the rows no other transaction holds (PostgreSQL's
    /// `SKIP LOCKED`): it never waits, and a row held elsewhere is left out of its answer.
    pub(crate) fn lock_free_rows_clause(&self) -> &'static str {
        if self.sqlite {
            ""
        } else {
            " FOR UPDATE SKIP LOCKED"
        }
    }
}

impl Drop for Tx {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take()
            && self.open
        {
            roll_back_then_release(conn);
        }
    }
}

/// A connection that may be inside a transaction: dropped, it is closed, never pooled (closing ends the transaction on
/// both databases). [`Unsettled::release`] returns it to the pool once it is known to be clean.
struct Unsettled(Option<PoolConnection<Any>>);

impl Unsettled {
    fn release(mut self) {
        drop(self.0.take());
    }
}

impl Drop for Unsettled {
    fn drop(&mut self) {
        if let Some(conn) = self.0.take() {
            // Detached, the pool forgets it (its slot frees at once) and dropping it closes it, without a runtime.
            drop(conn.detach());
        }
    }
}

/// Rolls back a dropped transaction's connection on a task of the current runtime (a request's own, or a job's) and
/// only then returns it to the pool; closes it when the `ROLLBACK` fails, when that runtime stops before the task
/// runs, or when there is no runtime.
fn roll_back_then_release(conn: PoolConnection<Any>) {
    let mut unsettled = Unsettled(Some(conn));
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    runtime.spawn(async move {
        let Some(conn) = unsettled.0.as_mut() else {
            return;
        };
        match conn.execute("ROLLBACK").await {
            Ok(_) => unsettled.release(),
            // SQLite answers an error when nothing was begun (a `COMMIT` that succeeded unacknowledged): closing is
            // right either way, and rare.
            Err(err) => tracing::debug!(%err, "closing the connection of a dropped transaction"),
        }
    });
}

/// What every PostgreSQL connection of kilat's sets first: no JIT compilation. PostgreSQL compiles a statement whose
/// estimated cost passes `jit_above_cost` (100,000 by default), at some 17 ms each time. kilat's statements read a few
/// rows by their keys, but the planner's estimates grow with the book. At 3,000,000 borrowers it estimated 17 rows for
/// each lookup of one borrower's certification step, where the key allows one, so home's statement (five such lookups)
/// came to a cost of 224,000 and was compiled on every execution: 16.8 ms, nearly all of it compiling, for a
/// statement that reads 197 buffers; home answered 1,689 requests/s with a p99 of 60 ms (docs/PERFORMANCE.md, "At the
/// site's scale on PostgreSQL").
pub(crate) const POSTGRES_SESSION: &str = "SET jit = off";

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
            // No ping before handing out each connection: that doubled the round trips of a one-query request. A
            // connection that died meanwhile fails its query once and is then dropped from the pool.
            .test_before_acquire(false)
            // A connection that sqlx itself counts inside a transaction (its `Transaction`, as the migrations use) is
            // closed rather than pooled: a check of a counter, without a round trip. [`Tx`] does not rely on it.
            .after_release(|conn, _meta| Box::pin(async move { Ok(!conn.is_in_transaction()) }))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if is_sqlite {
                        // Per connection: wait for a writer instead of failing with SQLITE_BUSY; enforce foreign keys;
                        // overwrite what a statement deletes with zeros (`secure_delete`), so an erased account's data
                        // does not live on in the file's free space (issue 17; see `Db::checkpoint` for the WAL).
                        conn.execute(
                            "PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; \
                             PRAGMA secure_delete = ON",
                        )
                        .await?;
                    } else {
                        conn.execute(POSTGRES_SESSION).await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await
            .with_context(|| format!("connecting to the database ({})", redact(url)))?;
        sqlx::migrate::Migrator::new(EmbeddedMigrations)
            .await
            .context("reading the embedded migrations")?
            .run(&pool)
            .await
            .context("applying the database migrations")?;
        Ok(Self {
            pool,
            sqlite: is_sqlite,
            id: NEXT_DB_ID.fetch_add(1, Ordering::Relaxed),
            url: url.into(),
            counts: Arc::default(),
        })
    }

    pub fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// A connection of the shared pool for a transaction, the wait for it timed for /metrics.
    async fn acquire(&self) -> sqlx::Result<PoolConnection<Any>> {
        let started = std::time::Instant::now();
        let conn = self.pool.acquire().await;
        crate::infra::metrics::pool_acquired(started.elapsed());
        conn
    }

    /// The shared pool's open and idle connections, for /metrics.
    pub fn pool_state(&self) -> (u32, usize) {
        (self.pool.size(), self.pool.num_idle())
    }

    /// Gives the calling thread, an HTTP worker on its own single-threaded runtime, a pool of its own of
    /// `max_connections` for the hot reads (the session with the order list or home, [`Db::read_pool`]); connections
    /// open lazily, on that runtime. On PostgreSQL the session reads go through that worker's batchers
    /// ([`Db::hot_reads`], `store::batch`), started here on the worker's runtime: a connection of the shared pool
    /// opened by one worker's runtime and used by another's costs extra wake-ups on every query, about 2 context
    /// switches a request (docs/PERFORMANCE.md). On SQLite, whose statements run on each connection's own thread, the
    /// worker's own connections keep its requests from waiting on the other worker's releases
    /// (`settings::SQLITE_WORKER_READS`). Nothing when `max_connections` is 0 (`Settings::pool_split`): the hot reads
    /// then use the shared pool.
    pub fn open_worker_pool(&self, max_connections: u32) -> anyhow::Result<()> {
        if max_connections == 0 {
            return Ok(());
        }
        let sqlite = self.sqlite;
        let pool = AnyPoolOptions::new()
            .max_connections(max_connections)
            .acquire_timeout(Duration::from_secs(10))
            .test_before_acquire(false)
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if sqlite {
                        // Reads only: wait for a writer's checkpoint rather than fail.
                        conn.execute("PRAGMA busy_timeout = 5000").await?;
                    } else {
                        conn.execute(POSTGRES_SESSION).await?;
                    }
                    Ok(())
                })
            })
            .connect_lazy(&self.url)
            .with_context(|| format!("a worker's pool on the database ({})", redact(&self.url)))?;
        let hot = (!sqlite).then(|| HotReads::spawn(&pool));
        WORKER_POOL.with(|w| *w.borrow_mut() = Some((self.id, WorkerReads { pool, hot })));
        Ok(())
    }

    /// Closes the calling thread's worker pool, if it has one (before its runtime stops).
    pub async fn close_worker_pool(&self) {
        let pool = WORKER_POOL.with(|w| {
            let mut w = w.borrow_mut();
            match &*w {
                // Dropping the batchers ends their lanes.
                Some((id, _)) if *id == self.id => w.take().map(|(_, reads)| reads.pool),
                _ => None,
            }
        });
        if let Some(pool) = pool {
            pool.close().await;
        }
    }

    /// The pool for a hot read: the calling worker's own when it has one ([`Db::open_worker_pool`]), else the
    /// shared one. Reads only: writes and transactions stay on the shared pool.
    pub(crate) fn read_pool(&self) -> AnyPool {
        WORKER_POOL.with(|w| match &*w.borrow() {
            Some((id, reads)) if *id == self.id => reads.pool.clone(),
            _ => self.pool.clone(),
        })
    }

    /// The calling worker's batched session reads, when it has a pool of its own (PostgreSQL).
    pub(crate) fn hot_reads(&self) -> Option<HotReads> {
        WORKER_POOL.with(|w| match &*w.borrow() {
            Some((id, reads)) if *id == self.id => reads.hot.clone(),
            _ => None,
        })
    }

    /// Starts a write transaction (see [`Tx`]).
    pub async fn begin(&self) -> sqlx::Result<Tx> {
        let begin = if self.sqlite {
            "BEGIN IMMEDIATE"
        } else {
            "BEGIN"
        };
        Tx::begin(
            self.acquire().await?,
            begin,
            self.sqlite,
            self.counts.clone(),
        )
        .await
    }

    /// [`Db::begin`] for a transaction of batched statements, whose texts are the same whatever their lists' length
    /// (`store::lists`): on PostgreSQL it plans each of its prepared statements once per connection, generically
    /// (`SET LOCAL plan_cache_mode = force_generic_plan`, which ends with the transaction). By default PostgreSQL plans
    /// a prepared statement again, for its parameters' values, on each of its first five runs on a connection, and
    /// reads each array of a batch's lists while planning; those plans came to about a fifth of PostgreSQL's time
    /// in a burst of callbacks, and a batch's plan does not depend on its values (docs/PERFORMANCE.md, "Planned once").
    pub async fn begin_generic(&self) -> sqlx::Result<Tx> {
        let mut tx = self.begin().await?;
        if !self.sqlite {
            tx.run("SET LOCAL plan_cache_mode = force_generic_plan")
                .await?;
        }
        Ok(tx)
    }

    /// Starts a transaction that only reads, for several reads that must agree: on SQLite a deferred `BEGIN`, which
    /// does not take the write lock. Writing through it would fail at once on SQLite when another writer is active.
    pub async fn begin_read(&self) -> sqlx::Result<Tx> {
        Tx::begin(
            self.acquire().await?,
            "BEGIN",
            self.sqlite,
            self.counts.clone(),
        )
        .await
    }

    pub fn is_sqlite(&self) -> bool {
        self.sqlite
    }

    /// What asks this database how it would read a statement (`EXPLAIN` on PostgreSQL, `EXPLAIN QUERY PLAN` on
    /// SQLite), and the column of the answer's rows that holds each step's text: for the tests that check a plan.
    pub(crate) fn explain(&self) -> (&'static str, usize) {
        if self.sqlite {
            ("EXPLAIN QUERY PLAN ", 3)
        } else {
            ("EXPLAIN ", 0)
        }
    }

    /// Whether a migration's marker is still there (its start-up work not done yet), without taking it.
    pub async fn marker_pending(&self, marker: StartupMarker) -> sqlx::Result<bool> {
        let rows: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {}", marker.table()))
            .fetch_one(self.pool())
            .await?;
        Ok(rows > 0)
    }

    /// After an erasure: on SQLite, copies the write-ahead log into the database file and truncates it to nothing.
    /// `secure_delete` zeroes erased rows in the pages written from now on, but the log still holds the pages as
    /// they were before, until it is truncated. Waits for readers up to the busy timeout; a log that stays in use
    /// (busy) is logged, and the next erasure's checkpoint retries. On PostgreSQL nothing: its WAL and dead tuples
    /// are the server's own (docs/ARCHITECTURE.md, "Data at rest").
    pub async fn checkpoint(&self) -> sqlx::Result<()> {
        if !self.sqlite {
            return Ok(());
        }
        let (busy, log_frames, checkpointed): (i64, i64, i64) =
            sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
                .fetch_one(&self.pool)
                .await?;
        if busy != 0 {
            tracing::warn!(
                log_frames,
                checkpointed,
                "the SQLite log could not be truncated after an erasure: readers kept it in use"
            );
        }
        Ok(())
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

/// A new row id: a UUIDv7 (time-ordered, so indexes stay compact), generated by the application.
pub fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}

#[cfg(test)]
mod tests {
    use super::redact;

    /// The embedded migrations are what `sqlx::migrate!` made of the folder (sqlx's own reader, which the macro
    /// used): same versions, descriptions, types, transaction flags and checksums, so databases migrated by builds
    /// before the change are not taken for changed ones.
    #[test]
    fn the_embedded_migrations_are_what_sqlx_reads_from_the_folder() {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut expected: Vec<_> = sqlx::migrate::resolve_blocking(&folder)
            .expect("sqlx reads the folder")
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        expected.sort_by_key(|m| m.version);
        let embedded = super::migrations();
        assert!(embedded.len() >= 44, "{} migrations", embedded.len());
        let key = |m: &sqlx::migrate::Migration| {
            (
                m.version,
                m.description.to_string(),
                m.migration_type.label(),
                m.no_tx,
                m.checksum.to_vec(),
            )
        };
        assert_eq!(
            embedded.iter().map(key).collect::<Vec<_>>(),
            expected.iter().map(key).collect::<Vec<_>>()
        );
    }

    #[test]
    fn redact_hides_the_password_but_keeps_user_and_host() {
        assert_eq!(
            redact("postgres://kilat:s3cret@db:5432/kilat"),
            "postgres://kilat@db:5432/kilat"
        );
        assert_eq!(redact("sqlite://data/kilat.db"), "sqlite://data/kilat.db");
    }
}
