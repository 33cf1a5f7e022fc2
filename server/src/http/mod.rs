//! The HTTP edge: routes by area (`site`, `borrower`, development-only `dev`), middleware, extraction, and the
//! conversion of requests and errors to and from the envelope. Handlers extract, call one capability, and answer;
//! no rule lives here.

pub mod borrower;
pub mod console;
pub mod csv;
pub mod dev;
pub mod edge;
pub mod error;
pub mod extract;
pub mod health;
pub mod lang;
pub mod openapi;
pub mod same_origin;
pub mod site;
mod state;
pub mod web;
pub mod webhooks;

pub use state::{AppState, AppStateInner};

use axum::Router;
use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::trace::{DefaultOnResponse, TraceLayer};
use tracing::Level;

use self::error::ApiError;

/// The contact form's body limit (the issue: a body over 16 KiB gets 413).
const CONTACT_BODY_LIMIT: usize = 16 * 1024;

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
            // PUT as the docs name it; POST as the servicing issue's contract names it.
            get(dev::get_business_date)
                .put(dev::set_business_date)
                .post(dev::set_business_date),
        )
        .route("/openapi.json", get(openapi_json))
        .method_not_allowed_fallback(api_method_not_allowed)
        .fallback(api_not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            api_guard,
        ))
        // Payment providers' callbacks: not cookie-authenticated, verified by their signatures, so outside the
        // same-origin check and the session cookie's reissue.
        .merge(webhooks::routes())
        // Counted and timed by route for /metrics (infra/metrics.rs).
        .layer(axum::middleware::from_fn(record_metrics))
        // API requests are few and matter: logged at INFO with their request id.
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| request_span(req, Level::INFO))
                .on_request(())
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        );

    // Request ids (for what is logged at INFO) and error texts in the request's language: the API and the probes,
    // in `edge::Edge`.
    let dynamic = Router::new()
        .nest("/api/v1", api)
        .route("/api", get(api_not_found).fallback(api_not_found))
        .route("/api/", get(api_not_found).fallback(api_not_found))
        .route("/api/{*rest}", get(api_not_found).fallback(api_not_found))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz));

    Router::new()
        .merge(dynamic)
        // Static files are the bulk of the traffic and the hot path of the nginx comparison: no request id, and an
        // access log only at DEBUG (RUST_LOG=kilat_server=debug).
        .fallback(serve_web)
        // Security headers on every response, `no-store` under /api, request ids and localized errors on the API and
        // the probes: one layer.
        .layer(edge::EdgeLayer::new(
            state.development,
            state.trusted_proxy_hops > 0,
        ))
        .with_state(state)
}

/// `GET /metrics` for Prometheus, served on its own address (`[metrics] listen`, `startup.rs`): the shared pool's
/// gauges are read, then every metric rendered in the text format.
pub fn metrics_router(db: crate::store::Db) -> Router {
    Router::new().route(
        "/metrics",
        get(move || {
            let db = db.clone();
            async move {
                let (open, idle) = db.pool_state();
                crate::infra::metrics::pool_state(open, idle);
                (
                    [(
                        header::CONTENT_TYPE,
                        "text/plain; version=0.0.4; charset=utf-8",
                    )],
                    crate::infra::metrics::render(),
                )
            }
        }),
    )
}

/// Counts an API request by its route (the path template, so order numbers never become labels), method and status,
/// and times it.
async fn record_metrics(req: Request, next: axum::middleware::Next) -> Response {
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .cloned();
    let method = req.method().clone();
    let started = std::time::Instant::now();
    let response = next.run(req).await;
    crate::infra::metrics::http_request(
        route.as_ref().map_or("unmatched", |p| p.as_str()),
        method.as_str(),
        response.status().as_u16(),
        started.elapsed(),
    );
    response
}

fn request_span(req: &Request, level: Level) -> tracing::Span {
    let id = req
        .headers()
        .get(&edge::X_REQUEST_ID)
        .and_then(|id| id.to_str().ok())
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

/// The API's guard, one middleware rather than two: refuses an unsafe request from another site (`same_origin`), then
/// gives the `Session` extractor its slot for a re-issued session cookie (`borrower::auth::reissue_session_cookie`).
async fn api_guard(
    State(state): State<AppState>,
    req: Request,
    next: axum::middleware::Next,
) -> Response {
    match same_origin::refusal(&state, &req) {
        Some(refused) => refused,
        None => borrower::auth::reissue_session_cookie(req, next).await,
    }
}

async fn serve_web(State(state): State<AppState>, req: Request) -> Response {
    let response = state
        .pages
        .current()
        .serve(req.method(), req.uri(), req.headers())
        .await;
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
