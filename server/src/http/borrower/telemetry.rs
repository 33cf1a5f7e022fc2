//! The borrower app's telemetry calls (docs/API-BORROWER.md, "Telemetry"): buried points, events, errors, the device,
//! push tokens, the location answer and the app rating. Each extracts, calls one `insights` function, and answers.
//!
//! `navigator.sendBeacon` cannot set headers: a beacon is authenticated by the HttpOnly session cookie the browser
//! sends with it, and the same-origin guard (`http/same_origin.rs`) refuses one from another site, as for any
//! cookie-authenticated POST. Beacons send `application/json` (a Blob with that type), which `JsonOrForm` reads.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::auth::Session;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::insights::{self, ErrorInput, EventInput, LocationInput, Reporter};

/// The body limit of every telemetry call: 50 events of at most 2 KB of properties each, with room for names.
pub const BODY_LIMIT: usize = 128 * 1024;

fn reporter(session: &Session) -> Reporter<'_> {
    Reporter {
        borrower: &session.borrower,
        session_token: &session.token,
    }
}

/// One UI or business event.
#[derive(Debug, Deserialize, ToSchema)]
pub struct EventRequest {
    /// 1 to 64 of `a-z`, `0-9`, `.`, `_`, `:`, `-`, e.g. `home.apply:tap`.
    #[schema(required = true, max_length = 64, example = "home.apply:tap")]
    pub name: Option<String>,
    /// The app's route, at most 200 characters.
    #[schema(max_length = 200, example = "/app/home")]
    pub route: Option<String>,
    /// When it happened on the device, epoch ms; the server's time when missing.
    #[schema(value_type = Option<i64>, minimum = 1)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub at: Option<i64>,
    /// At most 20 properties, each a string, number or boolean; 2 KB as JSON.
    #[schema(value_type = Option<Object>, required = false)]
    pub props: Option<Value>,
}

impl From<EventRequest> for EventInput {
    fn from(r: EventRequest) -> Self {
        Self {
            name: r.name,
            route: r.route,
            at: r.at,
            props: r.props,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct BuriedPointsRequest {
    /// 1 to 50 events.
    #[schema(required = true, max_items = 50, min_items = 1)]
    pub events: Option<Vec<EventRequest>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Stored {
    /// How many rows were stored.
    pub stored: usize,
}

/// Buried-point upload: a batch of UI events (the web client sends it with `navigator.sendBeacon` when the page
/// hides).
#[utoipa::path(post, path = "/api/v1/borrower/telemetry/buried-points", tag = "borrower",
    operation_id = "borrower_buried_points",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((BuriedPointsRequest = "application/json"))),
    responses((status = 200, body = Envelope<Stored>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `events` (missing, over 50, or an event not valid)", body = ErrorBody),
        (status = 429, description = "rate_limited: too many telemetry calls from this session in a minute", body = ErrorBody)))]
pub async fn buried_points(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<BuriedPointsRequest>,
) -> Result<Json<Envelope<Stored>>, ApiError> {
    let events = req
        .events
        .map(|events| events.into_iter().map(EventInput::from).collect());
    let stored = insights::record_ui_events(&state.services, &reporter(&session), events).await?;
    Ok(Envelope::ok(Stored { stored }))
}

/// Event save: one business event.
#[utoipa::path(post, path = "/api/v1/borrower/telemetry/events", tag = "borrower",
    operation_id = "borrower_event_save",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((EventRequest = "application/json"))),
    responses((status = 200, body = Envelope<Stored>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `name`, `route`, `at` or `props`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn event(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<EventRequest>,
) -> Result<Json<Envelope<Stored>>, ApiError> {
    insights::record_event(&state.services, &reporter(&session), req.into()).await?;
    Ok(Envelope::ok(Stored { stored: 1 }))
}

/// A client error.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ErrorInfoRequest {
    /// What was thrown, at most 1,000 characters.
    #[schema(required = true, max_length = 1000)]
    pub message: Option<String>,
    /// Its stack, at most 8,000 characters.
    #[schema(max_length = 8000)]
    pub stack: Option<String>,
    /// The app's route, at most 200 characters.
    #[schema(max_length = 200)]
    pub route: Option<String>,
    /// Epoch ms on the device.
    #[schema(value_type = Option<i64>, minimum = 1)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub at: Option<i64>,
}

/// Error info: a client error with its stack and route (the app's error boundary, `window.onerror`,
/// `unhandledrejection`).
#[utoipa::path(post, path = "/api/v1/borrower/telemetry/errors", tag = "borrower",
    operation_id = "borrower_error_info",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((ErrorInfoRequest = "application/json"))),
    responses((status = 200, body = Envelope<Stored>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `message`, `stack`, `route` or `at`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn error_info(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<ErrorInfoRequest>,
) -> Result<Json<Envelope<Stored>>, ApiError> {
    let input = ErrorInput {
        message: req.message,
        stack: req.stack,
        route: req.route,
        at: req.at,
    };
    insights::record_error(&state.services, &reporter(&session), input).await?;
    Ok(Envelope::ok(Stored { stored: 1 }))
}

/// The device: model, OS and app version, nothing else, with the borrower's consent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRequest {
    /// True: the borrower agreed, in the app, to these details being kept (PRODUCT.md §2). Missing or false, nothing
    /// is stored (`422` on `consent`).
    #[schema(value_type = bool, required = true, example = true)]
    pub consent: Option<bool>,
    #[schema(required = true, max_length = 100, example = "Pixel 7")]
    pub model: Option<String>,
    #[schema(required = true, max_length = 100, example = "Android 14")]
    pub os: Option<String>,
    #[schema(required = true, max_length = 32, example = "1.4.0")]
    pub app_version: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Saved {
    /// True when stored. A device's details are not stored once the borrower withdrew consent to them in the app
    /// (`DELETE /device`): false.
    pub saved: bool,
}

/// Device: the model, OS and app version of the borrower's device (PRODUCT.md §2: nothing else), with consent.
#[utoipa::path(post, path = "/api/v1/borrower/device", tag = "borrower",
    operation_id = "borrower_device",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((DeviceRequest = "application/json"), (DeviceRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<Saved>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `consent` (missing or false), `model`, `os` or `appVersion`",
            body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn device(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<DeviceRequest>,
) -> Result<Json<Envelope<Saved>>, ApiError> {
    let saved = insights::save_device(
        &state.services,
        &reporter(&session),
        req.consent,
        req.model,
        req.os,
        req.app_version,
    )
    .await?;
    Ok(Envelope::ok(Saved { saved }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeviceForgotten {
    /// True when device details were stored, and are now deleted.
    pub forgotten: bool,
}

/// The borrower withdraws consent to their device's details: deleted at once, and not stored again when the shell
/// sends them with its older consent.
#[utoipa::path(delete, path = "/api/v1/borrower/device", tag = "borrower",
    operation_id = "borrower_device_forget",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<DeviceForgotten>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody)))]
pub async fn forget_device(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<DeviceForgotten>>, ApiError> {
    let forgotten = insights::forget_device(&state.services, &reporter(&session)).await?;
    Ok(Envelope::ok(DeviceForgotten { forgotten }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct DeviceTokenRequest {
    /// The push service's token, at most 512 printable characters.
    #[schema(required = true, max_length = 512)]
    pub token: Option<String>,
    /// `web`, `android` or `ios`.
    #[schema(required = true, example = "android")]
    pub platform: Option<String>,
}

/// Device-token upload: a push token of the borrower's device.
#[utoipa::path(post, path = "/api/v1/borrower/device-token", tag = "borrower",
    operation_id = "borrower_device_token",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((DeviceTokenRequest = "application/json"), (DeviceTokenRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<Saved>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `token` or `platform`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn device_token(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<DeviceTokenRequest>,
) -> Result<Json<Envelope<Saved>>, ApiError> {
    insights::save_device_token(
        &state.services,
        &reporter(&session),
        req.token,
        req.platform,
    )
    .await?;
    Ok(Envelope::ok(Saved { saved: true }))
}

/// The answer to the location prompt.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LocationRequest {
    /// Whether the borrower agreed. `false` records the refusal: the app never asks again.
    #[schema(required = true)]
    pub consent: Option<bool>,
    /// Degrees, -90 to 90; required with consent. Kept rounded to 0.1°.
    #[schema(minimum = -90, maximum = 90)]
    pub latitude: Option<f64>,
    /// Degrees, -180 to 180; required with consent. Kept rounded to 0.1°.
    #[schema(minimum = -180, maximum = 180)]
    pub longitude: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationStatusView {
    /// The borrower has answered the prompt (the app asks only when false).
    pub asked: bool,
    /// The answer was yes.
    pub granted: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LocationSaved {
    /// False when an answer was stored already: the first one stands.
    pub recorded: bool,
}

/// Location: the borrower's one answer to the location prompt, with a coarse position (0.1°) only with consent.
#[utoipa::path(post, path = "/api/v1/borrower/location", tag = "borrower",
    operation_id = "borrower_location",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((LocationRequest = "application/json"))),
    responses((status = 200, body = Envelope<LocationSaved>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `consent`, `latitude` or `longitude`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn save_location(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<LocationRequest>,
) -> Result<Json<Envelope<LocationSaved>>, ApiError> {
    let input = LocationInput {
        consent: req.consent,
        latitude: req.latitude,
        longitude: req.longitude,
    };
    let recorded = insights::save_location(&state.services, &reporter(&session), input).await?;
    Ok(Envelope::ok(LocationSaved { recorded }))
}

/// Whether the borrower has answered the location prompt.
#[utoipa::path(get, path = "/api/v1/borrower/location", tag = "borrower",
    operation_id = "borrower_location_status",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<LocationStatusView>), (status = 401, body = ErrorBody)))]
pub async fn location_status(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<LocationStatusView>>, ApiError> {
    let status = insights::location_status(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(LocationStatusView {
        asked: status.asked,
        granted: status.granted,
    }))
}

/// The borrower withdraws consent to their location: the coarse position is deleted at once, and the answer becomes
/// a refusal (the app does not ask again).
#[utoipa::path(delete, path = "/api/v1/borrower/location", tag = "borrower",
    operation_id = "borrower_location_withdraw",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<LocationStatusView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody)))]
pub async fn withdraw_location(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<LocationStatusView>>, ApiError> {
    let status = insights::withdraw_location(&state.services, &reporter(&session)).await?;
    Ok(Envelope::ok(LocationStatusView {
        asked: status.asked,
        granted: status.granted,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AppRatingRequest {
    /// 1 to 5.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 5, example = 5)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub score: Option<i64>,
    /// At most 500 characters.
    #[schema(max_length = 500)]
    pub comment: Option<String>,
}

/// Score save: the borrower's rating of the app.
#[utoipa::path(post, path = "/api/v1/borrower/app-rating", tag = "borrower",
    operation_id = "borrower_score_save",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((AppRatingRequest = "application/json"), (AppRatingRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<Saved>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `score` or `comment`", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn app_rating(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<AppRatingRequest>,
) -> Result<Json<Envelope<Saved>>, ApiError> {
    insights::save_app_rating(&state.services, &reporter(&session), req.score, req.comment).await?;
    Ok(Envelope::ok(Saved { saved: true }))
}
