//! The borrower app's telemetry, with consent and limits: UI events (buried points), business events, client
//! errors, the device (model, OS, app version only), push tokens, the one coarse location answer, and app ratings.
//! Each request is checked field by field, counted against the session's per-minute limit in one atomic statement,
//! and stored for `telemetry.retention_days` (the `telemetry-retention` job, `jobs/retention.rs`, removes it after).
//! Nothing here reads contacts, SMS, call logs, installed apps or media (PRODUCT.md §2).

use serde_json::Value;

use crate::auth::Borrower;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::crypto;
use crate::infra::limits;
use crate::services::Services;
use crate::store::Tx;
use crate::store::telemetry::{LocationRow, NewClientEvent};

/// Events in one buried-point upload.
pub const MAX_BATCH: usize = 50;
/// An event's name: a short code.
pub const MAX_NAME_CHARS: usize = 64;
/// The app's route (a path, no query).
pub const MAX_ROUTE_CHARS: usize = 200;
/// An event's properties: keys, and their size as JSON.
pub const MAX_PROPS: usize = 20;
pub const MAX_PROPS_BYTES: usize = 2048;
/// A client error's message and stack.
pub const MAX_MESSAGE_CHARS: usize = 1000;
pub const MAX_STACK_CHARS: usize = 8000;
/// The device's fields.
pub const MAX_DEVICE_FIELD_CHARS: usize = 100;
pub const MAX_APP_VERSION_CHARS: usize = 32;
/// A push token.
pub const MAX_TOKEN_CHARS: usize = 512;
/// An app rating's comment.
pub const MAX_COMMENT_CHARS: usize = 500;
/// Platforms a push token may be for.
pub const PLATFORMS: &[&str] = &["web", "android", "ios"];

/// Who reports: the signed-in borrower and the session the request came with (the rate limit is per session).
pub struct Reporter<'a> {
    pub borrower: &'a Borrower,
    pub session_token: &'a str,
}

/// One UI or business event as the app sends it.
#[derive(Debug, Clone, Default)]
pub struct EventInput {
    pub name: Option<String>,
    pub route: Option<String>,
    /// The client's time, epoch ms; the server's when missing.
    pub at: Option<i64>,
    pub props: Option<Value>,
}

/// A client error: what was thrown, where, and its stack.
#[derive(Debug, Clone, Default)]
pub struct ErrorInput {
    pub message: Option<String>,
    pub stack: Option<String>,
    pub route: Option<String>,
    pub at: Option<i64>,
}

/// The borrower's answer to the location prompt: position only with consent.
#[derive(Debug, Clone, Copy, Default)]
pub struct LocationInput {
    pub consent: Option<bool>,
    pub latitude: Option<f64>,
    pub longitude: Option<f64>,
}

/// Whether the app should still ask for the location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocationStatus {
    pub asked: bool,
    pub granted: bool,
}

/// Counts this request against the session's limit (`telemetry.per_minute` in a minute), in the one limiter.
async fn admit(s: &Services, who: &Reporter<'_>) -> Result<i64, Error> {
    let now = s.clock.now_ms();
    let key = crypto::token_hash(who.session_token);
    limits::count(&s.db, &s.limits.telemetry_per_session, &key, now)
        .await?
        .map_err(limits::Refused::rate_limited)?;
    Ok(now)
}

/// A write transaction holding the borrower's live row: telemetry written after the account's deletion would outlive
/// its erasure, so a deleted account's request answers 401 and writes nothing.
async fn live_tx(s: &Services, who: &Reporter<'_>) -> Result<Tx, Error> {
    Ok(s.db
        .begin_for_live_borrower(&who.borrower.id)
        .await?
        .ok_or(Refusal::AccountDeleted)?)
}

/// Stores a batch of UI events (buried points); answers how many were stored.
pub async fn record_ui_events(
    s: &Services,
    who: &Reporter<'_>,
    events: Option<Vec<EventInput>>,
) -> Result<usize, Error> {
    let events = match events {
        None => return Err(Error::field("events", FieldProblem::required())),
        Some(e) if e.is_empty() => return Err(Error::field("events", FieldProblem::required())),
        Some(e) if e.len() > MAX_BATCH => {
            return Err(Error::field(
                "events",
                FieldProblem::new("field.too_many_items").with("max", MAX_BATCH),
            ));
        }
        Some(e) => e,
    };
    let mut parsed = Vec::with_capacity(events.len());
    for (index, event) in events.into_iter().enumerate() {
        match parse_event("ui", event) {
            Ok(event) => parsed.push(event),
            Err(_) => {
                return Err(Error::field(
                    "events",
                    FieldProblem::new("field.event_item").with("index", index),
                ));
            }
        }
    }
    let now = admit(s, who).await?;
    fill_time(&mut parsed, now);
    let mut tx = live_tx(s, who).await?;
    tx.insert_client_events(&who.borrower.id, &parsed, now)
        .await?;
    tx.commit().await?;
    Ok(parsed.len())
}

/// Stores one business event (event save).
pub async fn record_event(
    s: &Services,
    who: &Reporter<'_>,
    event: EventInput,
) -> Result<(), Error> {
    let mut parsed = vec![parse_event("business", event).map_err(Error::Validation)?];
    let now = admit(s, who).await?;
    fill_time(&mut parsed, now);
    let mut tx = live_tx(s, who).await?;
    tx.insert_client_events(&who.borrower.id, &parsed, now)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// Stores a client error (error info): its message, stack and route.
pub async fn record_error(
    s: &Services,
    who: &Reporter<'_>,
    error: ErrorInput,
) -> Result<(), Error> {
    let mut errors = FieldErrors::default();
    let message = required_text(&mut errors, "message", error.message, MAX_MESSAGE_CHARS);
    let stack = optional_text(&mut errors, "stack", error.stack, MAX_STACK_CHARS);
    let route = optional_text(&mut errors, "route", error.route, MAX_ROUTE_CHARS);
    check_time(&mut errors, "at", error.at);
    errors.into_result()?;
    let detail = serde_json::json!({ "message": message, "stack": stack }).to_string();
    let now = admit(s, who).await?;
    let event = NewClientEvent {
        kind: "error",
        name: "error".to_owned(),
        route,
        detail: Some(detail),
        occurred_at: error.at.unwrap_or(now),
    };
    let mut tx = live_tx(s, who).await?;
    tx.insert_client_events(&who.borrower.id, &[event], now)
        .await?;
    tx.commit().await?;
    Ok(())
}

/// The borrower's device: model, OS and app version, nothing else, and only with the borrower's consent (PRODUCT.md
/// §2), which the request carries: without it (missing, or false) nothing is stored and `consent` is named. Once the
/// borrower withdrew consent in the app ([`forget_device`]), details sent again (the shell's consent is older) are not
/// stored: false.
pub async fn save_device(
    s: &Services,
    who: &Reporter<'_>,
    consent: Option<bool>,
    model: Option<String>,
    os: Option<String>,
    app_version: Option<String>,
) -> Result<bool, Error> {
    let mut errors = FieldErrors::default();
    match consent {
        None => errors.add("consent", FieldProblem::required()),
        Some(false) => errors.add("consent", FieldProblem::new("field.device_consent")),
        Some(true) => {}
    }
    let model = required_text(&mut errors, "model", model, MAX_DEVICE_FIELD_CHARS);
    let os = required_text(&mut errors, "os", os, MAX_DEVICE_FIELD_CHARS);
    let app_version = required_text(
        &mut errors,
        "appVersion",
        app_version,
        MAX_APP_VERSION_CHARS,
    );
    errors.into_result()?;
    let now = admit(s, who).await?;
    let mut tx = live_tx(s, who).await?;
    let stored = tx
        .upsert_device(&who.borrower.id, &model, &os, &app_version, now)
        .await?;
    tx.commit().await?;
    Ok(stored)
}

/// The borrower withdraws consent to keeping their device's details: the stored model, OS and app version are
/// deleted at once, and the withdrawal kept, so the details are not stored again. True when there were any.
pub async fn forget_device(s: &Services, who: &Reporter<'_>) -> Result<bool, Error> {
    let now = s.clock.now_ms();
    let mut tx = live_tx(s, who).await?;
    let forgotten = tx.withdraw_device(&who.borrower.id, now).await?;
    tx.commit().await?;
    Ok(forgotten)
}

/// A push token for the borrower's device (device-token upload).
pub async fn save_device_token(
    s: &Services,
    who: &Reporter<'_>,
    token: Option<String>,
    platform: Option<String>,
) -> Result<(), Error> {
    let mut errors = FieldErrors::default();
    let token = required_text(&mut errors, "token", token, MAX_TOKEN_CHARS);
    if token.chars().any(|c| !c.is_ascii_graphic()) {
        errors.add("token", FieldProblem::new("field.special_characters"));
    }
    let platform = platform.map(|p| p.trim().to_ascii_lowercase());
    match platform.as_deref() {
        None | Some("") => errors.add("platform", FieldProblem::required()),
        Some(p) if !PLATFORMS.contains(&p) => {
            errors.add("platform", FieldProblem::new("field.unknown_choice"));
        }
        Some(_) => {}
    }
    errors.into_result()?;
    let now = admit(s, who).await?;
    let mut tx = live_tx(s, who).await?;
    tx.upsert_device_token(
        &who.borrower.id,
        &token,
        platform.as_deref().unwrap_or_default(),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The borrower's one answer to the location prompt. With consent the position is kept rounded to a tenth of a
/// degree (about 11 km: a city, never a street); without it nothing but the refusal, so the app never asks again.
/// `false` when an answer was already stored (the first one stands).
pub async fn save_location(
    s: &Services,
    who: &Reporter<'_>,
    input: LocationInput,
) -> Result<bool, Error> {
    let mut errors = FieldErrors::default();
    let coarse = match input.consent {
        None => {
            errors.add("consent", FieldProblem::required());
            None
        }
        // Without consent nothing is kept, but a position sent anyway must still be one.
        Some(false) => {
            if input.latitude.is_some() {
                coordinate(&mut errors, "latitude", input.latitude, 90);
            }
            if input.longitude.is_some() {
                coordinate(&mut errors, "longitude", input.longitude, 180);
            }
            None
        }
        Some(true) => {
            let latitude = coordinate(&mut errors, "latitude", input.latitude, 90);
            let longitude = coordinate(&mut errors, "longitude", input.longitude, 180);
            latitude.zip(longitude)
        }
    };
    errors.into_result()?;
    let now = admit(s, who).await?;
    let mut tx = live_tx(s, who).await?;
    let stored = tx
        .insert_location_once(&who.borrower.id, coarse, now)
        .await?;
    tx.commit().await?;
    Ok(stored)
}

/// The borrower withdraws consent to their location: the coarse position is deleted at once and the answer becomes
/// a refusal, so the app does not ask again. Nothing changes for a borrower who never shared it.
pub async fn withdraw_location(s: &Services, who: &Reporter<'_>) -> Result<LocationStatus, Error> {
    let mut tx = live_tx(s, who).await?;
    tx.withdraw_location(&who.borrower.id).await?;
    tx.commit().await?;
    location_status(s, who.borrower).await
}

/// Whether the borrower has answered the location prompt, and how.
pub async fn location_status(s: &Services, borrower: &Borrower) -> Result<LocationStatus, Error> {
    let row: Option<LocationRow> = s.db.location_of(&borrower.id).await?;
    Ok(LocationStatus {
        asked: row.is_some(),
        granted: row.is_some_and(|r| r.consent == 1),
    })
}

/// The borrower's rating of the app (score save): 1 to 5 and an optional comment.
pub async fn save_app_rating(
    s: &Services,
    who: &Reporter<'_>,
    score: Option<i64>,
    comment: Option<String>,
) -> Result<(), Error> {
    let mut errors = FieldErrors::default();
    match score {
        None => errors.add("score", FieldProblem::required()),
        Some(n) if !(1..=5).contains(&n) => {
            errors.add("score", FieldProblem::new("field.rating_score"));
        }
        Some(_) => {}
    }
    let comment = optional_text(&mut errors, "comment", comment, MAX_COMMENT_CHARS);
    errors.into_result()?;
    let now = admit(s, who).await?;
    let mut tx = live_tx(s, who).await?;
    tx.insert_app_rating(
        &who.borrower.id,
        score.unwrap_or_default(),
        comment.as_deref(),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// A coordinate within ±`max` degrees, as whole tenths of a degree (rounded half away from zero).
fn coordinate(
    errors: &mut FieldErrors,
    field: &'static str,
    value: Option<f64>,
    max: i64,
) -> Option<i64> {
    match value {
        None => {
            errors.add(field, FieldProblem::required());
            None
        }
        Some(v) if !v.is_finite() || v.abs() > max as f64 => {
            errors.add(
                field,
                FieldProblem::new("field.coordinate").with("max", max),
            );
            None
        }
        // Within ±180, so ×10 fits an i64 exactly.
        Some(v) => Some((v * 10.0).round() as i64),
    }
}

/// Checks an event; the field errors name the event's own fields.
fn parse_event(kind: &'static str, event: EventInput) -> Result<NewClientEvent, FieldErrors> {
    let mut errors = FieldErrors::default();
    let name = required_text(&mut errors, "name", event.name, MAX_NAME_CHARS);
    if !name.is_empty()
        && !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._:-".contains(c))
    {
        errors.add("name", FieldProblem::new("field.event_name"));
    }
    let route = optional_text(&mut errors, "route", event.route, MAX_ROUTE_CHARS);
    check_time(&mut errors, "at", event.at);
    let detail = match event.props {
        None | Some(Value::Null) => None,
        Some(Value::Object(map))
            if map.len() <= MAX_PROPS
                && map
                    .values()
                    .all(|v| !matches!(v, Value::Object(_) | Value::Array(_))) =>
        {
            let json = Value::Object(map).to_string();
            if json.len() > MAX_PROPS_BYTES {
                errors.add(
                    "props",
                    FieldProblem::new("field.props").with("max", MAX_PROPS),
                );
                None
            } else {
                Some(json)
            }
        }
        Some(_) => {
            errors.add(
                "props",
                FieldProblem::new("field.props").with("max", MAX_PROPS),
            );
            None
        }
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(NewClientEvent {
        kind,
        name,
        route,
        detail,
        // 0 stands for "not given"; `fill_time` puts the server's time there.
        occurred_at: event.at.unwrap_or(0),
    })
}

fn fill_time(events: &mut [NewClientEvent], now: i64) {
    for event in events.iter_mut().filter(|e| e.occurred_at == 0) {
        event.occurred_at = now;
    }
}

fn check_time(errors: &mut FieldErrors, field: &'static str, at: Option<i64>) {
    if at.is_some_and(|at| at <= 0) {
        errors.add(field, FieldProblem::new("field.epoch_ms"));
    }
}

fn required_text(
    errors: &mut FieldErrors,
    field: &'static str,
    value: Option<String>,
    max: usize,
) -> String {
    match optional_text(errors, field, value, max) {
        Some(v) => v,
        None => {
            errors.add(field, FieldProblem::required());
            String::new()
        }
    }
}

fn optional_text(
    errors: &mut FieldErrors,
    field: &'static str,
    value: Option<String>,
    max: usize,
) -> Option<String> {
    let value = value
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())?;
    if value.chars().count() > max {
        errors.add(field, FieldProblem::too_long(max));
        return None;
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_rounded_to_a_tenth_of_a_degree() {
        let mut errors = FieldErrors::default();
        assert_eq!(
            coordinate(&mut errors, "latitude", Some(-6.2088), 90),
            Some(-62)
        );
        assert_eq!(
            coordinate(&mut errors, "longitude", Some(106.8456), 180),
            Some(1068)
        );
        assert_eq!(
            coordinate(&mut errors, "latitude", Some(12.95), 90),
            Some(130)
        );
        assert!(errors.is_empty());
        assert_eq!(coordinate(&mut errors, "latitude", Some(90.5), 90), None);
        assert_eq!(
            coordinate(&mut errors, "longitude", Some(f64::NAN), 180),
            None
        );
        assert_eq!(errors.fields().count(), 2);
    }

    #[test]
    fn an_event_with_nested_properties_or_a_bad_name_is_refused() {
        let nested = EventInput {
            name: Some("tap".into()),
            props: Some(serde_json::json!({"a": {"b": 1}})),
            ..Default::default()
        };
        assert!(
            parse_event("ui", nested)
                .unwrap_err()
                .get("props")
                .is_some()
        );
        let named = EventInput {
            name: Some("Tap Button".into()),
            ..Default::default()
        };
        assert!(parse_event("ui", named).unwrap_err().get("name").is_some());
        let fine = EventInput {
            name: Some("home.apply:tap".into()),
            route: Some("/app/home".into()),
            at: Some(1_763_820_000_000),
            props: Some(serde_json::json!({"amount": 500000, "ok": true})),
        };
        let event = parse_event("ui", fine).unwrap();
        assert_eq!(
            event.detail.as_deref(),
            Some(r#"{"amount":500000,"ok":true}"#)
        );
    }
}
