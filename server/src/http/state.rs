//! The state every handler reaches: the infrastructure the capabilities work with (`Services`), what the capabilities
//! hold and are handed by the handler that calls them (the loan catalog, the site's claims), and
//! what only the HTTP layer needs (the rendered pages, the API document, the proxy and cookie settings). `startup`
//! builds it; nothing below the HTTP layer sees it.

use std::sync::Arc;

use axum::body::Bytes;

use crate::catalog::Catalog;
use crate::claims::SiteClaims;
use crate::http::web::Pages;
use crate::infra::sms::Outbox;
use crate::services::Services;

/// What every handler can reach, behind one reference count: axum clones the state for every request.
#[derive(Clone)]
pub struct AppState(pub(crate) Arc<AppStateInner>);

impl std::ops::Deref for AppState {
    type Target = AppStateInner;

    fn deref(&self) -> &AppStateInner {
        &self.0
    }
}

pub struct AppStateInner {
    /// What the capabilities work with: database, clock, keys, company settings, providers, file store, code sender.
    pub services: Services,
    /// The loan products on offer, reloaded when another server's edit moves the version counter.
    pub catalog: Arc<Catalog>,
    /// The site's claims per market, as stored (admins edit them).
    pub claims: Arc<SiteClaims>,
    /// The embedded web app, its pages rendered with the settings and the site's claims.
    pub pages: Pages,
    pub openapi: Bytes,
    /// Proxies of ours in front, counted back through `X-Forwarded-For` (settings `trusted_proxy_hops`).
    pub trusted_proxy_hops: u32,
    /// The origin browsers use, when a proxy rewrites `Host` (settings `public_origin`).
    pub public_origin: Option<String>,
    /// What the development code sender wrote; served only in development mode.
    pub outbox: Arc<Outbox>,
    pub development: bool,
    /// Cookies get `Secure` in production (served over HTTPS behind the proxy).
    pub secure_cookies: bool,
    /// Each market's product list as home shows it, serialized once per business date.
    pub products_json: crate::http::borrower::loans::ProductsJson,
    /// Providers' verified callbacks, credited in batches.
    pub crediting: crate::servicing::callbacks::Crediting,
}
