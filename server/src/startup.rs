//! Builds the application from settings, binds the listener and runs until asked to stop. Tests reuse it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::body::Bytes;
use axum::serve::ListenerExt;
use secrecy::ExposeSecret;
use socket2::{Domain, Protocol, Socket, Type};
use tokio::net::TcpListener;

use crate::catalog::Catalog;
use crate::claims::SiteClaims;
use crate::http::web::Pages;
use crate::http::{self, AppState, AppStateInner, openapi};
use crate::infra::clock::Clock;
use crate::infra::crypto::Secrets;
use crate::infra::sms::{self, Outbox};
use crate::providers::PaymentServices;
use crate::services::Services;
use crate::settings::{Mode, Settings};
use kilat_domain::Market;

/// A bound, ready-to-run server.
///
/// It serves with one single-threaded runtime per worker thread, each accepting on its own `SO_REUSEPORT` socket of
/// the same address, so the kernel spreads connections and a request never hops between threads. On two cores this
/// roughly doubles the requests per second of the default work-stealing runtime (docs/PERFORMANCE.md).
pub struct Application {
    listeners: Vec<std::net::TcpListener>,
    addr: SocketAddr,
    state: AppState,
    /// Connections of each HTTP worker's own pool for the hot reads (PostgreSQL; `Db::open_worker_pool`); 0: none.
    worker_pool_size: u32,
    /// `GET /metrics` on its own address (`[metrics] listen`), if set.
    metrics: Option<MetricsListener>,
}

/// The scrape endpoint's bound socket.
struct MetricsListener {
    listener: std::net::TcpListener,
    addr: SocketAddr,
}

impl MetricsListener {
    /// Binds the scrape address, if one is set, and only then installs the recorder: a server nobody scrapes records
    /// nothing (the metrics macros are no-ops without a recorder).
    fn bind(settings: &Settings) -> anyhow::Result<Option<Self>> {
        let Some(addr) = settings.metrics.address()? else {
            return Ok(None);
        };
        crate::infra::metrics::install();
        let listener = std::net::TcpListener::bind(addr)
            .with_context(|| format!("listening for /metrics on {addr} (KILAT_METRICS__LISTEN)"))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        Ok(Some(Self { listener, addr }))
    }

    /// Serves `GET /metrics` on the calling runtime until `stopped` turns true.
    fn serve(
        self,
        db: crate::store::Db,
        mut stopped: tokio::sync::watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let served = async {
                let listener = TcpListener::from_std(self.listener)?;
                axum::serve(listener, http::metrics_router(db))
                    .with_graceful_shutdown(async move {
                        let _ = stopped.wait_for(|stop| *stop).await;
                    })
                    .await
            };
            if let Err(err) = served.await {
                tracing::error!(%err, "serving /metrics");
            }
        })
    }
}

/// The jobs' process (`kilat worker`): the scheduled jobs on their timer and `/metrics`, no HTTP for the public, so N
/// web servers (`kilat serve --jobs off`) and one worker share one database.
pub struct Worker {
    services: Services,
    metrics: Option<MetricsListener>,
}

impl Worker {
    /// Connects and migrates the database and binds `/metrics` when set.
    pub async fn build(settings: &Settings) -> anyhow::Result<Self> {
        let metrics = MetricsListener::bind(settings)?;
        let (services, ..) = build_services(settings).await?;
        Ok(Self { services, metrics })
    }

    pub fn services(&self) -> &Services {
        &self.services
    }

    /// The address `/metrics` is served on, if any.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|m| m.addr)
    }

    /// Runs the jobs (as `runner` in the jobs' records) until `shutdown` completes, then closes the database.
    pub async fn run_until(
        self,
        runner: String,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let metrics = self
            .metrics
            .map(|m| m.serve(self.services.db.clone(), stopped));
        let jobs = tokio::spawn(crate::jobs::run_on_timer(self.services.clone(), runner));
        shutdown.await;
        jobs.abort();
        let _ = stop.send(true);
        if let Some(metrics) = metrics {
            let _ = metrics.await;
        }
        self.services.db.close().await;
        Ok(())
    }
}

/// The database (connected and migrated, its PII resealed, its fingerprints and income verdicts backfilled, the
/// dashboard's book counted), the keys, the clock, the providers, the catalog and the site's claims: everything but
/// HTTP, for the web server and the worker alike.
async fn build_services(
    settings: &Settings,
) -> anyhow::Result<(Services, Catalog, SiteClaims, Arc<Outbox>)> {
    settings.validate()?;
    // Before the database: a list that does not parse stops here; a year without holidays is logged.
    let holidays = settings.calendar.holidays()?;
    for market in [Market::India, Market::Indonesia] {
        holidays.check_year(market, Clock::real().today(market), settings.mode);
    }
    let pools = settings.pool_split(workers_of(settings));
    let db = crate::store::Db::connect(settings.database_url.expose_secret(), pools.shared).await?;
    let secrets = Secrets::from_settings(settings.secret_key.as_ref(), settings.mode)?;
    let resealed = db.reseal_unbound_pii(&secrets).await?;
    if resealed != Default::default() {
        tracing::info!(
            ?resealed,
            "bound the PII written before migration 0005 to its rows"
        );
    }
    let texts = db.seal_clear_contact_texts(&secrets).await?;
    if texts > 0 {
        tracing::info!(
            texts,
            "sealed the contact messages' text written in clear before migration 0069"
        );
    }
    let sealed = db.seal_clear_agreements(&secrets).await?;
    if sealed > 0 {
        tracing::info!(
            sealed,
            "sealed the agreements written in clear before migration 0030 to their orders"
        );
    }
    let backfilled = crate::certification::fingerprints::backfill(&db, &secrets).await?;
    if backfilled != Default::default() {
        tracing::info!(
            ?backfilled,
            "wrote the fingerprints and masked phones of the borrowers from before migration 0035"
        );
    }
    let verdicts = crate::certification::backfill_income_verdicts(&db, &secrets).await?;
    if verdicts > 0 {
        tracing::info!(
            verdicts,
            "wrote the income verdicts of the job steps saved before migration 0050"
        );
    }
    if let Some(rows) = crate::dashboard::book::count_once(&db, Clock::real().now_ms()).await? {
        tracing::info!(
            rows,
            "counted the dashboard's book from the open loans' positions (migration 0052)"
        );
    }
    let outbox = Arc::new(Outbox::default());
    let sender = sms::from_settings(&settings.sms, outbox.clone())?;
    // Production runs on the real date; development lets a test or an operator set the business date.
    let clock = match settings.mode {
        Mode::Production => Clock::real(),
        Mode::Development => Clock::adjustable(),
    };
    let limits = crate::infra::limits::Limits::from_settings(settings);
    crate::content::load()?;
    let catalog = Catalog::load(&db, &settings.caps, clock.now().date(), clock.now_ms())
        .await
        .context("loading the loan products")?;
    let claims = SiteClaims::load(&db, &settings.site, clock.now_ms())
        .await
        .context("loading the site's claims")?;
    let services = Services {
        db,
        clock,
        secrets,
        site: Arc::new(settings.site.clone()),
        caps: Arc::new(settings.caps.indonesia.clone()),
        payments: Arc::new(
            PaymentServices::from_settings(&settings.payments)
                .context("setting up the payment providers")?,
        ),
        telemetry: settings.telemetry,
        kept_records: settings.kept_records,
        payouts: settings.payouts,
        files: crate::infra::files::from_settings(&settings.files)
            .context("setting up the file store")?,
        sms: sender,
        push: crate::infra::push::from_settings(&settings.push)
            .context("setting up the push gateway")?,
        sends_at_once: settings.sms.sends_at_once,
        holidays: Arc::new(holidays),
        bounds: crate::infra::bounds::WorkBounds::from_settings(&settings.bounds),
        limits,
    };
    Ok((services, catalog, claims, outbox))
}

/// HTTP worker threads: the setting, or one per core.
fn workers_of(settings: &Settings) -> usize {
    match settings.workers {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

impl Application {
    /// Connects and migrates the database, renders the pages and binds the listeners (port 0 picks a free port).
    pub async fn build(settings: &Settings) -> anyhow::Result<Self> {
        let metrics = MetricsListener::bind(settings)?;
        let workers = workers_of(settings);
        // The shared pool and the workers' pools together stay within `database_max_connections`.
        let pools = settings.pool_split(workers);
        let (services, catalog, claims, outbox) = build_services(settings).await?;
        let claims = Arc::new(claims);
        let pages = Pages::load(&services, &claims).context("preparing the embedded web app")?;
        if !pages.current().has_site() {
            tracing::warn!(
                "the web app was not built into this binary: `make build` builds web/dist first"
            );
        }
        let crediting = crate::servicing::callbacks::Crediting::start(
            services.clone(),
            settings.payments.callback_batch,
            settings.payments.callback_lanes,
        );
        let state = AppState(Arc::new(AppStateInner {
            services,
            crediting,
            catalog: Arc::new(catalog),
            claims,
            pages,
            openapi: Bytes::from(openapi::document()),
            trusted_proxy_hops: settings.proxy_hops(),
            public_origin: settings.public_origin.clone(),
            outbox,
            development: settings.mode == Mode::Development,
            secure_cookies: settings.mode == Mode::Production,
            products_json: Default::default(),
        }));
        let (listeners, addr) = bind(settings.listen, workers).with_context(|| {
            format!(
                "listening on {} (is another server using it? set KILAT_LISTEN)",
                settings.listen
            )
        })?;
        // `bind` opens one listener per worker (at least one), so each has its pool of the size counted above.
        let worker_pool_size = pools.per_worker;
        Ok(Self {
            listeners,
            addr,
            state,
            worker_pool_size,
            metrics,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address `/metrics` is served on, if any.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics.as_ref().map(|m| m.addr)
    }

    pub fn db(&self) -> &crate::store::Db {
        &self.state.services.db
    }

    /// The infrastructure the capabilities work with, for tests and commands that act without HTTP.
    pub fn services(&self) -> &Services {
        &self.state.services
    }

    /// The loan products on offer, as this server holds them.
    pub fn catalog(&self) -> &Arc<Catalog> {
        &self.state.catalog
    }

    /// The site's claims, as this server holds them.
    pub fn claims(&self) -> &Arc<SiteClaims> {
        &self.state.claims
    }

    /// The keys the server encrypts with (tests read stored rows with them).
    pub fn secrets(&self) -> &Secrets {
        &self.state.services.secrets
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight and closes the database.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        // Another server's product edit reaches this one's catalog within `catalog::REFRESH_EVERY_MS`: one read of
        // the version counter, and a reload only when it moved.
        let services = self.state.services.clone();
        let catalog = self.state.catalog.clone();
        let catalog_refresher = tokio::spawn(async move {
            let every = Duration::from_millis(crate::catalog::REFRESH_EVERY_MS as u64);
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let s = &services;
                if let Err(e) = catalog
                    .refresh(&s.db, s.clock.now().date(), s.clock.now_ms(), false)
                    .await
                {
                    tracing::warn!("reading the catalog's version: {e:#}");
                }
            }
        });
        // Another server's edit of the site's claims reaches this one within `claims::REFRESH_EVERY_MS`: one read of
        // two rows, and the pages rendered again only when they moved.
        let state = self.state.clone();
        let claims_refresher = tokio::spawn(async move {
            let every = Duration::from_millis(crate::claims::REFRESH_EVERY_MS as u64);
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let s = &state.services;
                if let Err(e) = state.claims.reload(&s.db).await {
                    tracing::warn!("reading the site's claims: {e:#}");
                }
                if let Err(e) = state.pages.refresh(s, &state.claims).await {
                    tracing::warn!("rendering the pages with the site's claims: {e:#}");
                }
            }
        });
        let db = self.state.services.db.clone();
        let worker_pool_size = self.worker_pool_size;
        let router = http::router(self.state);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let metrics = self.metrics.map(|m| m.serve(db.clone(), stopped.clone()));
        let mut workers = Vec::with_capacity(self.listeners.len());
        for (n, listener) in self.listeners.into_iter().enumerate() {
            let router = router.clone();
            let db = db.clone();
            let mut stopped = stopped.clone();
            let worker = std::thread::Builder::new()
                .name(format!("kilat-http-{n}"))
                .spawn(move || -> anyhow::Result<()> {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .context("starting an HTTP worker runtime")?;
                    runtime.block_on(async move {
                        db.open_worker_pool(worker_pool_size)?;
                        let listener = TcpListener::from_std(listener)?.tap_io(|tcp| {
                            // Small responses go out at once rather than waiting on Nagle's algorithm.
                            if let Err(err) = tcp.set_nodelay(true) {
                                tracing::debug!(%err, "cannot set TCP_NODELAY");
                            }
                        });
                        let app = router.into_make_service_with_connect_info::<SocketAddr>();
                        let served = axum::serve(listener, app)
                            .with_graceful_shutdown(async move {
                                let _ = stopped.wait_for(|stop| *stop).await;
                            })
                            .await
                            .context("serving HTTP");
                        db.close_worker_pool().await;
                        served
                    })
                })
                .context("starting an HTTP worker thread")?;
            workers.push(worker);
        }
        shutdown.await;
        let _ = stop.send(true);
        let results = tokio::task::spawn_blocking(move || {
            workers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|_| Err(anyhow::anyhow!("an HTTP worker panicked")))
                })
                .collect::<Vec<_>>()
        })
        .await
        .context("waiting for the HTTP workers")?;
        catalog_refresher.abort();
        claims_refresher.abort();
        if let Some(metrics) = metrics {
            let _ = metrics.await;
        }
        db.close().await;
        results.into_iter().collect()
    }
}

/// Binds `workers` sockets to one address with `SO_REUSEPORT`. A plain bind first makes sure no other server already
/// holds the address (`SO_REUSEPORT` alone would quietly share it with another Kilat of the same user).
fn bind(
    addr: SocketAddr,
    workers: usize,
) -> std::io::Result<(Vec<std::net::TcpListener>, SocketAddr)> {
    let addr = std::net::TcpListener::bind(addr)?.local_addr()?;
    let listeners = (0..workers.max(1))
        .map(|_| {
            let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
            socket.set_reuse_address(true)?;
            #[cfg(unix)]
            socket.set_reuse_port(true)?;
            socket.set_nonblocking(true)?;
            socket.bind(&addr.into())?;
            socket.listen(1024)?;
            Ok(socket.into())
        })
        .collect::<std::io::Result<Vec<_>>>()?;
    Ok((listeners, addr))
}

/// Completes on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(err) => {
                tracing::error!(%err, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing the requests in flight");
}
