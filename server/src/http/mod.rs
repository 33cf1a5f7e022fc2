//! The HTTP edge: routes by area (`site`, `borrower`, development-only `dev`), middleware, extraction, and the
//! conversion of requests and errors to and from the envelope. Handlers extract, call one capability, and answer;
//! no rule lives here.

pub mod borrower;
pub mod console;
pub mod dev;
pub mod error;
pub mod extract;
pub mod health;
pub mod lang;
pub mod openapi;
pub mod rate_limit;
pub mod same_origin;
pub mod site;
pub mod web;
pub mod webhooks;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::request_id::{
    MakeRequestId, PropagateRequestIdLayer, RequestId, SetRequestIdLayer,
};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use self::error::ApiError;
use crate::startup::AppState;

/// The contact form's body limit (the issue: a body over 16 KiB gets 413).
const CONTACT_BODY_LIMIT: usize = 16 * 1024;

static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Every route of the server: the API, the probes, and the web areas as the fallback.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/site/settings", get(site::settings))
        .route(
            "/site/contact-messages",
            post(site::create_contact_message).layer(DefaultBodyLimit::max(CONTACT_BODY_LIMIT)),
        )
        .merge(borrower::routes())
        .nest("/console", console::routes())
        .route("/dev/outbox", get(dev::outbox))
        .route(
            "/dev/business-date",
            get(dev::get_business_date).put(dev::set_business_date),
        )
        .route("/openapi.json", get(openapi_json))
        .method_not_allowed_fallback(api_method_not_allowed)
        .fallback(api_not_found)
        .layer(axum::middleware::from_fn(
            borrower::auth::reissue_session_cookie,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            same_origin::refuse_cross_site,
        ))
        // Payment providers' callbacks: not cookie-authenticated, verified by their signatures, so outside the
        // same-origin check and the session cookie's reissue.
        .merge(webhooks::routes())
        // API requests are few and matter: logged at INFO with their request id.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| request_span(req, Level::INFO))
                .on_request(())
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        );

    // Request ids for what is logged at INFO: the API and the probes.
    let dynamic = Router::new()
        .nest("/api/v1", api)
        .route("/api", get(api_not_found).fallback(api_not_found))
        .route("/api/", get(api_not_found).fallback(api_not_found))
        .route("/api/{*rest}", get(api_not_found).fallback(api_not_found))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        // Error texts in the request's language, written once for every API answer.
        .layer(axum::middleware::from_fn(error::localize))
        .layer(PropagateRequestIdLayer::new(X_REQUEST_ID.clone()))
        .layer(SetRequestIdLayer::new(
            X_REQUEST_ID.clone(),
            CountingRequestId::default(),
        ));

    Router::new()
        .merge(dynamic)
        // Static files are the bulk of the traffic and the hot path of the nginx comparison: no request id, and an
        // access log only at DEBUG (RUST_LOG=kilat_server=debug).
        .fallback(serve_web)
        .layer(axum::middleware::from_fn(api_no_store))
        .layer(axum::middleware::map_response_with_state(
            state.clone(),
            security_headers,
        ))
        .with_state(state)
}

fn request_span(req: &Request, level: Level) -> tracing::Span {
    let id = req
        .extensions()
        .get::<RequestId>()
        .and_then(|id| id.header_value().to_str().ok())
        .unwrap_or_default();
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| req.uri().path(), |p| p.as_str());
    match level {
        Level::INFO => tracing::info_span!("request", id, method = %req.method(), route),
        _ => tracing::debug_span!("request", id, method = %req.method(), path = %req.uri().path()),
    }
}

async fn serve_web(State(state): State<AppState>, req: Request) -> Response {
    let response = state.assets.serve(req.method(), req.uri(), req.headers());
    if tracing::enabled!(Level::DEBUG) {
        request_span(&req, Level::DEBUG)
            .in_scope(|| tracing::debug!(status = response.status().as_u16(), "served"));
    }
    response
}

async fn openapi_json(State(state): State<AppState>) -> Response {
    let mut response = Response::new(Body::from(state.openapi.clone()));
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

async fn api_not_found() -> Response {
    ApiError::NotFound.into_response()
}

async fn api_method_not_allowed() -> Response {
    ApiError::MethodNotAllowed.into_response()
}

/// The headers every response carries. The CSP allows no inline script: settings reach pages as a JSON data block.
async fn security_headers(State(state): State<AppState>, mut response: Response) -> Response {
    const CSP: HeaderValue = HeaderValue::from_static(
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
         font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; \
         base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
    );
    let h = response.headers_mut();
    h.insert(header::CONTENT_SECURITY_POLICY, CSP);
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        HeaderName::from_static("permissions-policy"),
        HeaderValue::from_static("camera=(), microphone=(), geolocation=()"),
    );
    if !state.development {
        // Production is served over HTTPS only (behind the proxy): browsers must never try plain HTTP again.
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000; includeSubDomains"),
        );
    }
    response
}

/// `Cache-Control: no-store` on every answer under `/api` (errors, 404s and 405s included): they are per borrower and
/// per moment (sessions, codes, orders), so no browser or proxy cache may keep them. Static files keep their own,
/// deliberate caching.
async fn api_no_store(req: Request, next: axum::middleware::Next) -> Response {
    let path = req.uri().path();
    let api = path == "/api" || path.starts_with("/api/");
    let mut response = next.run(req).await;
    if api {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// Request ids: a random per-process prefix and a counter, unique without a random draw per request.
#[derive(Clone)]
struct CountingRequestId {
    prefix: Arc<str>,
    counter: Arc<AtomicU64>,
}

impl Default for CountingRequestId {
    fn default() -> Self {
        let prefix = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
        Self {
            prefix: prefix.into(),
            counter: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl MakeRequestId for CountingRequestId {
    fn make_request_id<B>(&mut self, _request: &http::Request<B>) -> Option<RequestId> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix))
            .ok()
            .map(RequestId::new)
    }
}
