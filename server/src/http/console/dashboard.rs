//! The admins' dashboard: the last 30 days of one market (docs/API-CONSOLE.md, "Dashboard").

use axum::Json;
use axum::extract::State;
use kilat_domain::{Currency, Market};
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::OperatorSession;
use crate::dashboard::{
    self, Book, BucketFigures, DASHBOARD_ROLES, DayFigures, PayoutTimes, ProductFigures, Rates,
};
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
    /// Minor units of principal paid out and not yet repaid at the day's end (by business date).
    pub outstanding_principal: i64,
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
            outstanding_principal: d.outstanding_principal,
        }
    }
}

/// One days-past-due bucket of the open loans.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardBucket {
    /// `current` (not past due), or the collections' bucket: days past due from the loan's oldest unpaid due date.
    #[schema(example = "8-30")]
    pub bucket: DashboardBucketCode,
    pub loans: i64,
    /// Minor units.
    pub outstanding_principal: i64,
    /// Minor units: everything the loans still owe (principal, interest, fees, late charges).
    pub owed: i64,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub enum DashboardBucketCode {
    #[serde(rename = "current")]
    Current,
    #[serde(rename = "1-7")]
    D1To7,
    #[serde(rename = "8-30")]
    D8To30,
    #[serde(rename = "31-60")]
    D31To60,
    #[serde(rename = "61-90")]
    D61To90,
    #[serde(rename = "90+")]
    Over90,
}

impl From<BucketFigures> for DashboardBucket {
    fn from(b: BucketFigures) -> Self {
        use crate::collections::Bucket;
        Self {
            bucket: match b.bucket {
                None => DashboardBucketCode::Current,
                Some(Bucket::D1To7) => DashboardBucketCode::D1To7,
                Some(Bucket::D8To30) => DashboardBucketCode::D8To30,
                Some(Bucket::D31To60) => DashboardBucketCode::D31To60,
                Some(Bucket::D61To90) => DashboardBucketCode::D61To90,
                Some(Bucket::Over90) => DashboardBucketCode::Over90,
            },
            loans: b.loans,
            outstanding_principal: b.outstanding_principal,
            owed: b.owed,
        }
    }
}

/// One product's open loans.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardProduct {
    pub product_code: String,
    pub product_name: String,
    pub loans: i64,
    /// Minor units.
    pub outstanding_principal: i64,
    /// Loans past due (any bucket but `current`) and their principal, minor units.
    pub overdue_loans: i64,
    pub overdue_principal: i64,
}

impl From<ProductFigures> for DashboardProduct {
    fn from(p: ProductFigures) -> Self {
        Self {
            product_code: p.code,
            product_name: p.name,
            loans: p.loans,
            outstanding_principal: p.outstanding_principal,
            overdue_loans: p.overdue_loans,
            overdue_principal: p.overdue_principal,
        }
    }
}

/// The book now: loans paid out and not ended (`disbursed`, `overdue`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardBook {
    pub open_loans: i64,
    /// Minor units: principal scheduled less principal paid.
    pub outstanding_principal: i64,
    /// Six entries: `current`, `1-7`, `8-30`, `31-60`, `61-90`, `90+`.
    pub buckets: Vec<DashboardBucket>,
    /// By product code.
    pub products: Vec<DashboardProduct>,
}

impl From<Book> for DashboardBook {
    fn from(b: Book) -> Self {
        Self {
            open_loans: b.open_loans,
            outstanding_principal: b.outstanding_principal,
            buckets: b.buckets.into_iter().map(Into::into).collect(),
            products: b.products.into_iter().map(Into::into).collect(),
        }
    }
}

/// The window's rates as their parts. Collection rate: `collected / (collected + pastDueOwed)`; approval rate:
/// `approved / (approved + rejected)`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardRates {
    /// Minor units received from borrowers in the 30 days (the sum of the days' `repaid`).
    pub collected: i64,
    /// Minor units still owed today on the loans past due (every bucket but `current`).
    pub past_due_owed: i64,
    /// Orders approved and rejected in the 30 days (the decisions).
    pub approved: i64,
    pub rejected: i64,
}

impl From<Rates> for DashboardRates {
    fn from(r: Rates) -> Self {
        Self {
            collected: r.collected,
            past_due_owed: r.past_due_owed,
            approved: r.approved,
            rejected: r.rejected,
        }
    }
}

/// Application to payout over the 30 days.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardPayoutTimes {
    /// Loans paid out in the 30 days.
    pub payouts: i64,
    /// Of them, paid out at most 2 hours after the application.
    pub within_two_hours: i64,
    /// The median minutes (the lower middle value for an even count); null without payouts.
    pub median_minutes: Option<i64>,
    /// The market's promise (India: 120, "within 2 hours"); null when it promises no time (Indonesia).
    pub promise_minutes: Option<i64>,
    /// The median within the promise; null without a promise or without payouts.
    pub promise_met: Option<bool>,
}

impl From<PayoutTimes> for DashboardPayoutTimes {
    fn from(p: PayoutTimes) -> Self {
        Self {
            payouts: p.payouts,
            within_two_hours: p.within_two_hours,
            median_minutes: p.median_minutes,
            promise_minutes: p.promise_minutes,
            promise_met: p.promise_met,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DashboardView {
    pub market: Market,
    pub currency: Currency,
    /// The market's business date: the last day, and the day the book is read on.
    #[schema(format = Date)]
    pub today: String,
    /// 30 days, oldest first, the last one today (the market's business date).
    pub days: Vec<DashboardDay>,
    pub book: DashboardBook,
    pub rates: DashboardRates,
    pub payout_times: DashboardPayoutTimes,
}

/// The dashboard of a market: the last 30 days' applications, approvals, payouts, repayments, overdue share,
/// outstanding principal and median time to payout; the book now by days-past-due bucket and by product; the
/// collection and approval rates; apply-to-payout against the market's promise (admins, finance).
#[utoipa::path(get, path = "/api/v1/console/dashboard", tag = "console", operation_id = "console_dashboard",
    security(("console_cookie" = [])), params(MarketQuery),
    responses((status = 200, body = Envelope<DashboardView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither admin nor finance", body = ErrorBody),
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
        today: board.today.to_string(),
        days: board.days.into_iter().map(Into::into).collect(),
        book: board.book.into(),
        rates: board.rates.into(),
        payout_times: board.payout_times.into(),
    }))
}
