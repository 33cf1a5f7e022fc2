//! Liveness and readiness for process supervisors and load balancers.

use axum::extract::State;
use axum::http::StatusCode;

use crate::http::AppState;

/// The process is up.
pub async fn healthz() -> &'static str {
    "ok"
}

/// The database answers.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if state.services.db.is_ready().await {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "database unavailable")
    }
}
