//! Development-only endpoints (404 in production): the codes the `log` sender "sent", and the business date.

use axum::Json;
use axum::extract::{Query, State};
use kilat_domain::Market;
use serde::{Deserialize, Serialize};
use time::Date;
use time::macros::format_description;

use crate::error::{Error, FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope};
use crate::http::extract::JsonOrForm;
use crate::infra::sms::OutboxEntry;

#[derive(Debug, Deserialize)]
pub struct OutboxQuery {
    pub phone: Option<String>,
}

fn development_only(state: &AppState) -> Result<(), ApiError> {
    if state.development {
        Ok(())
    } else {
        Err(ApiError::NotFound)
    }
}

/// The codes the `log` sender "sent", newest first.
pub async fn outbox(
    State(state): State<AppState>,
    Query(query): Query<OutboxQuery>,
) -> Result<Json<Envelope<Vec<OutboxEntry>>>, ApiError> {
    development_only(&state)?;
    Ok(Envelope::ok(
        state.outbox.list(query.phone.as_deref().map(str::trim)),
    ))
}

/// The clock as the server sees it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BusinessDate {
    /// Epoch milliseconds.
    pub now: i64,
    /// Each market's business date, `YYYY-MM-DD`.
    pub india: String,
    pub indonesia: String,
}

fn business_date(state: &AppState) -> BusinessDate {
    let clock = &state.services.clock;
    BusinessDate {
        now: clock.now_ms(),
        india: clock.today(Market::India).to_string(),
        indonesia: clock.today(Market::Indonesia).to_string(),
    }
}

/// The business date of each market.
pub async fn get_business_date(
    State(state): State<AppState>,
) -> Result<Json<Envelope<BusinessDate>>, ApiError> {
    development_only(&state)?;
    Ok(Envelope::ok(business_date(&state)))
}

#[derive(Debug, Deserialize)]
pub struct SetBusinessDate {
    /// `YYYY-MM-DD` as India's business date (both markets move by the same days); absent or null resets to today.
    pub date: Option<String>,
    /// `HH:MM`, optional with `date`: India's local time on it (otherwise the time of day stays the real one).
    pub time: Option<String>,
}

/// Moves the server's clock so that India's business date is `date` (development and tests only).
pub async fn set_business_date(
    State(state): State<AppState>,
    JsonOrForm(req): JsonOrForm<SetBusinessDate>,
) -> Result<Json<Envelope<BusinessDate>>, ApiError> {
    development_only(&state)?;
    let clock = &state.services.clock;
    let moved = match req.date.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        None => clock.reset(),
        Some(text) => {
            let date = Date::parse(text, format_description!("[year]-[month]-[day]"))
                .map_err(|_| FieldErrors::one("date", FieldProblem::new("field.date_format")))?;
            match req.time.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                None => clock.set_business_date(Market::India, date),
                Some(text) => {
                    let time = time::Time::parse(text, format_description!("[hour]:[minute]"))
                        .map_err(|_| {
                            FieldErrors::one("time", FieldProblem::new("field.time_format"))
                        })?;
                    clock.set_local_time(Market::India, date, time)
                }
            }
        }
    };
    moved.map_err(|e| Error::Internal(e.into()))?;
    crate::jobs::forget_runs_after_today(&state.services)
        .await
        .map_err(Error::Internal)?;
    tracing::warn!(business_date = %clock.today(Market::India), "business date set");
    Ok(Envelope::ok(business_date(&state)))
}
