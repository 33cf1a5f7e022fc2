//! The admins' dashboard: the last 30 days of one market (docs/API-CONSOLE.md, "Dashboard").

use axum::Json;
use axum::extract::State;
use kilat_domain::{Currency, Market};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::OperatorSession;
use crate::dashboard::{self, DASHBOARD_ROLES, DayFigures};
use crate::error::FieldErrors;
use crate::http::AppState;
use crate::http::borrower::auth::{MarketQuery, require_market};
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::ApiQuery;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardDay {
    /// The market's calendar day.
    #[schema(format = Date)]
    pub date: String,
    /// Orders placed that day.
    pub applications: i64,
    /// Orders approved that day.
    pub approvals: i64,
    /// Minor units paid out (net), by business date.
    pub paid_out: i64,
    /// Minor units received from borrowers, by business date.
    pub repaid: i64,
    /// Loans paid out and not ended at the day's end.
    pub open_loans: i64,
    /// Of those, overdue (the overdue share is `overdueLoans / openLoans`).
    pub overdue_loans: i64,
    /// Complaints received that day.
    pub complaints: i64,
    /// The median minutes from application to payout of the loans paid out that day; null when none was.
    pub median_minutes_to_payout: Option<i64>,
}

impl From<DayFigures> for DashboardDay {
    fn from(d: DayFigures) -> Self {
        Self {
            date: d.date,
            applications: d.applications,
            approvals: d.approvals,
            paid_out: d.paid_out,
            repaid: d.repaid,
            open_loans: d.open_loans,
            overdue_loans: d.overdue_loans,
            complaints: d.complaints,
            median_minutes_to_payout: d.median_minutes_to_payout,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardView {
    pub market: Market,
    pub currency: Currency,
    /// 30 days, oldest first, the last one today (the market's business date).
    pub days: Vec<DashboardDay>,
}

/// The dashboard of a market: the last 30 days' applications, approvals, payouts, repayments, overdue share and
/// median time to payout (admins).
#[utoipa::path(get, path = "/api/v1/console/dashboard", tag = "console", operation_id = "console_dashboard",
    security(("console_cookie" = [])), params(MarketQuery),
    responses((status = 200, body = Envelope<DashboardView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not an admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`", body = ErrorBody)))]
pub async fn dashboard(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Json<Envelope<DashboardView>>, ApiError> {
    let market: Result<Market, FieldErrors> = require_market(query.market.as_deref());
    // The role before the input, as every console read.
    session.operator.require_any(DASHBOARD_ROLES)?;
    let board = dashboard::last_days(&state.services, &session.operator, market?).await?;
    Ok(Envelope::ok(DashboardView {
        market: board.market,
        currency: board.currency,
        days: board.days.into_iter().map(Into::into).collect(),
    }))
}
