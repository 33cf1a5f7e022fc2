//! Builds the application from settings, binds the listener and runs until asked to stop. Tests reuse it.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::body::Bytes;
use secrecy::ExposeSecret;
use tokio::net::TcpListener;

use crate::http::{self, openapi, rate_limit::AddressLimiter};
use crate::settings::{Settings, SiteSettings};
use crate::store::Db;
use crate::web::Assets;

/// What every handler can reach: cheap handles only.
#[derive(Clone)]
pub struct AppState {
    pub db: Db,
    pub site: Arc<SiteSettings>,
    pub assets: Arc<Assets>,
    pub openapi: Bytes,
    pub contact_limiter: AddressLimiter,
    pub trust_forwarded_for: bool,
}

/// A bound, ready-to-run server.
pub struct Application {
    listener: TcpListener,
    state: AppState,
}

impl Application {
    /// Connects and migrates the database, renders the pages and binds the listener (port 0 picks a free port).
    pub async fn build(settings: &Settings) -> anyhow::Result<Self> {
        let db = Db::connect(
            settings.database_url.expose_secret(),
            settings.database_max_connections,
        )
        .await?;
        let assets = Assets::load(&settings.site).context("preparing the embedded web app")?;
        if !assets.has_site() {
            tracing::warn!(
                "the web app was not built into this binary: `make build` builds web/dist first"
            );
        }
        let per_minute = NonZeroU32::new(settings.contact.per_minute)
            .context("contact.per_minute must be ≥ 1")?;
        let state = AppState {
            db,
            site: Arc::new(settings.site.clone()),
            assets: Arc::new(assets),
            openapi: Bytes::from(openapi::document()),
            contact_limiter: AddressLimiter::per_minute(per_minute),
            trust_forwarded_for: settings.trust_forwarded_for,
        };
        let listener = TcpListener::bind(settings.listen).await.with_context(|| {
            format!(
                "listening on {} (is another server using it? set KILAT_LISTEN)",
                settings.listen
            )
        })?;
        Ok(Self { listener, state })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    pub fn db(&self) -> &Db {
        &self.state.db
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight and closes the database.
    pub async fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let limiter = self.state.contact_limiter.clone();
        let sweeper = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                limiter.forget_idle();
            }
        });
        let db = self.state.db.clone();
        let app = http::router(self.state).into_make_service_with_connect_info::<SocketAddr>();
        axum::serve(self.listener, app)
            .with_graceful_shutdown(shutdown)
            .await
            .context("serving HTTP")?;
        sweeper.abort();
        db.close().await;
        Ok(())
    }
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
