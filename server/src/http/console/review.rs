//! The review queue, an order as an operator sees it, approve and reject.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::certification::{Step, StepData};
use crate::error::FieldErrors;
use crate::http::AppState;
use crate::http::borrower::auth::require_market;
use crate::http::borrower::certification::StepFields;
use crate::http::borrower::orders::OrderDetail;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::review::{self, Decision, QueueItem};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueEntry {
    pub order_no: String,
    pub borrower_id: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: Currency,
    /// Minor units.
    pub amount: i64,
    /// Hundredths of a percent, from the accepted KFS.
    pub apr: i64,
    pub apr_display: String,
    /// Epoch milliseconds: when the borrower confirmed.
    pub created_at: i64,
    /// Whole seconds the order has waited.
    pub age_seconds: i64,
    /// The reviewer holding the application (a live claim); null when nobody does.
    #[schema(required = true)]
    pub claim: Option<ClaimView>,
}

/// A reviewer's live claim on an application in review.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClaimView {
    pub operator_id: String,
    pub username: String,
    /// Epoch milliseconds: when the claim lapses unless renewed.
    pub until: i64,
}

impl From<review::Claim> for ClaimView {
    fn from(c: review::Claim) -> Self {
        Self {
            operator_id: c.operator_id,
            username: c.username,
            until: c.until,
        }
    }
}

impl From<QueueItem> for QueueEntry {
    fn from(q: QueueItem) -> Self {
        Self {
            order_no: q.order_no,
            borrower_id: q.borrower_id,
            phone_masked: q.phone_masked,
            product_code: q.product_code,
            product_name: q.product_name,
            term_code: q.term_code,
            currency: q.currency,
            amount: q.amount,
            apr: q.apr,
            apr_display: q.apr_display,
            created_at: q.created_at,
            age_seconds: q.age_secs,
            claim: q.claim.map(Into::into),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// `IN` (India) or `ID` (Indonesia); missing or unknown is a 422 on `market`.
    #[param(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// The page, from 1 (default 1).
    #[param(value_type = Option<i64>, minimum = 1)]
    pub page: Option<String>,
    /// Applications per page, 1 to 100 (default 50).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub page_size: Option<String>,
}

/// The review queue of a market, one page: orders waiting for review, oldest first, each with who holds it
/// (reviewer, support). Nothing is decrypted per row: the masked phone is stored with the borrower.
#[utoipa::path(get, path = "/api/v1/console/applications", tag = "console", operation_id = "console_applications",
    security(("console_cookie" = [])), params(QueueQuery),
    responses((status = 200, body = Envelope<Vec<QueueEntry>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither reviewer nor support", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `page` or `pageSize`", body = ErrorBody)))]
pub async fn applications(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<QueueQuery>,
) -> Result<Json<Envelope<Vec<QueueEntry>>>, ApiError> {
    // The role before the input: an operator who may not see the queue learns nothing from its validation.
    session.operator.require_any(review::QUEUE_ROLES)?;
    let mut errors = match require_market(query.market.as_deref()) {
        Ok(_) => FieldErrors::default(),
        Err(errors) => errors,
    };
    let page = review::Page {
        number: super::whole_number("page", query.page.as_deref(), 1, 1_000_000, &mut errors),
        size: super::whole_number(
            "pageSize",
            query.page_size.as_deref(),
            review::QUEUE_PAGE_SIZE,
            review::QUEUE_MAX_PAGE_SIZE,
            &mut errors,
        ),
    };
    errors.into_result()?;
    let market = require_market(query.market.as_deref())?;
    let queue = review::queue(&state.services, &session.operator, market, page).await?;
    Ok(Envelope::ok(
        queue.into_iter().map(QueueEntry::from).collect(),
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueCount {
    pub market: Market,
    /// Applications waiting for review.
    pub waiting: i64,
    /// Of them, those a reviewer holds (a live claim).
    pub claimed: i64,
}

/// How many applications wait for review in each market, and how many are claimed (reviewer, support).
#[utoipa::path(get, path = "/api/v1/console/applications/counts", tag = "console",
    operation_id = "console_application_counts", security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<QueueCount>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither reviewer nor support", body = ErrorBody)))]
pub async fn application_counts(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<QueueCount>>>, ApiError> {
    let counts = review::queue_counts(&state.services, &session.operator).await?;
    Ok(Envelope::ok(
        counts
            .into_iter()
            .map(|c| QueueCount {
                market: c.market,
                waiting: c.waiting,
                claimed: c.claimed,
            })
            .collect(),
    ))
}

/// Claims an application in review for 30 minutes (again: renewed) so that no other reviewer works on it (reviewer).
/// Audited (`order.claim`).
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/claim", tag = "console", operation_id = "console_claim",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<ClaimView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not a reviewer), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "application_claimed: another reviewer holds it; invalid_transition: not in review", body = ErrorBody)))]
pub async fn claim(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<ClaimView>>, ApiError> {
    let claim = review::claim(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(claim.into()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Released {
    pub order_no: String,
}

/// Releases a claim: a reviewer their own, an admin anybody's. Audited (`order.release`).
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/release", tag = "console", operation_id = "console_release",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<Released>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (neither reviewer nor admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such order, or no live claim on it", body = ErrorBody),
        (status = 409, description = "application_claimed: another reviewer holds it (only an admin may release it)", body = ErrorBody)))]
pub async fn release(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<Released>>, ApiError> {
    review::release(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(Released {
        order_no: order_no.trim().to_owned(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleTimelineEntry {
    pub status: OrderState,
    /// The event that caused it; null for the order's opening.
    #[schema(required = true)]
    pub event: Option<String>,
    /// `borrower`, `operator` or `system`.
    pub actor: String,
    /// Epoch milliseconds.
    pub at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificationStepView {
    pub step: Step,
    /// Epoch milliseconds.
    pub completed_at: i64,
    /// The step's fields; `idNumber`, `accountNumber` and the emergency contacts' `contact1Phone` and `contact2Phone`
    /// masked (the last four characters shown) unless the order view is `unmasked`.
    #[schema(value_type = StepFields)]
    pub data: serde_json::Value,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleOrderView {
    /// The order, its accepted KFS and its timeline, as the borrower sees them.
    pub order: OrderDetail,
    /// The timeline with who made each change.
    pub timeline: Vec<ConsoleTimelineEntry>,
    /// The rejection's reason, which the borrower reads; null otherwise (for orders approved before the note
    /// existed, the approval's words).
    #[schema(required = true)]
    pub review_reason: Option<String>,
    /// The note for the team written with the decision; never shown to the borrower. Null when none.
    #[schema(required = true)]
    pub review_note: Option<String>,
    pub borrower_id: String,
    pub phone_masked: String,
    pub certification: Vec<CertificationStepView>,
    /// True for reviewers: ID and account numbers and the emergency contacts' phones in full, and this view was
    /// written to the audit trail.
    pub unmasked: bool,
    /// Once paid out: the payout, the plan with each installment's status, the payments and the ledger; null before.
    #[schema(required = true)]
    pub loan: Option<super::payments::ConsoleLoanView>,
    /// For finance once the order is approved: where the loan is (or was) paid to, in full; the view was then audited
    /// (`view_unmasked`). Null for the other roles and before approval.
    #[schema(required = true)]
    pub beneficiary: Option<super::payouts::BeneficiaryView>,
    /// The borrower's certification in words, with the age and the income a month and a year.
    pub picture: PictureView,
    /// The borrower's PAN/NIK, phones or bank account found on other borrowers (by keyed hash).
    pub duplicates: Vec<DuplicateView>,
    /// The borrower's other orders, newest first, with their outcomes.
    pub history: Vec<PriorOrderView>,
    /// The reviewer holding the application; null when nobody does.
    #[schema(required = true)]
    pub claim: Option<ClaimView>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IncomeView {
    pub currency: Currency,
    /// Minor units, a month.
    pub monthly: i64,
    /// Minor units, a year.
    pub yearly: i64,
    /// The market's minimum for a loan, minor units a month and a year.
    pub minimum_monthly: i64,
    pub minimum_yearly: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PictureView {
    /// Whole years on the market's today; null before the ID step.
    #[schema(required = true)]
    pub age: Option<i32>,
    /// Null before the job step.
    #[schema(required = true)]
    pub income: Option<IncomeView>,
    /// Codes in words (English): `gender`, `education`, `maritalStatus`, `residenceType`, `region`, `city`,
    /// `employmentType`, `contact1Relation`, `contact2Relation`, `bank`, for the steps done.
    #[schema(value_type = std::collections::BTreeMap<String, String>)]
    pub labels: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateView {
    /// This borrower's field: `idNumber`, `phone`, `contact1Phone`, `contact2Phone` or `bankAccount`.
    pub field: String,
    /// `id`, `phone` or `bank`.
    pub kind: String,
    pub other_borrower_id: String,
    /// The other borrower's field holding the same value.
    pub other_field: String,
    /// The other borrower's newest order, to open; null when they have none.
    #[schema(required = true)]
    pub other_order_no: Option<String>,
    pub other_market: Market,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PriorOrderView {
    pub order_no: String,
    pub product_name: String,
    pub currency: Currency,
    /// Minor units.
    pub amount: i64,
    pub status: OrderState,
    /// Epoch milliseconds.
    pub created_at: i64,
    #[schema(required = true)]
    pub closed_at: Option<i64>,
    /// The longest time it was overdue, in days (the first day overdue is 1); 0 when never.
    pub days_late: i64,
}

/// One order with its KFS, timeline and the borrower's certification (reviewer, finance, support). Reviewers see ID
/// and account numbers and the emergency contacts' phones in full and each such view is audited (`view_unmasked`);
/// the others see them masked. Finance sees the beneficiary of an approved or paid-out order in full, audited the
/// same way.
#[utoipa::path(get, path = "/api/v1/console/orders/{orderNo}", tag = "console",
    security(("console_cookie" = [])), operation_id = "console_order",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<ConsoleOrderView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither reviewer, finance nor support", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn order(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<ConsoleOrderView>>, ApiError> {
    let view = review::order(&state.services, &session.operator, &order_no).await?;
    let timeline = view
        .detail
        .timeline
        .iter()
        .map(|e| ConsoleTimelineEntry {
            status: e.status,
            event: e.event.clone(),
            actor: e.actor.clone(),
            at: e.at,
        })
        .collect();
    let masked = !view.unmasked;
    Ok(Envelope::ok(ConsoleOrderView {
        order: view.detail.into(),
        timeline,
        review_reason: view.review_reason,
        borrower_id: view.borrower_id,
        phone_masked: view.phone_masked,
        certification: view
            .certification
            .iter()
            .map(|(data, at): &(StepData, i64)| CertificationStepView {
                step: data.step(),
                completed_at: *at,
                data: data.to_operator_view(masked),
            })
            .collect(),
        unmasked: view.unmasked,
        loan: view.loan.map(Into::into),
        review_note: view.review_note,
        picture: PictureView {
            age: view.picture.age,
            income: view.picture.income.map(|i| IncomeView {
                currency: i.currency,
                monthly: i.monthly,
                yearly: i.yearly,
                minimum_monthly: i.minimum_monthly,
                minimum_yearly: i.minimum_yearly,
            }),
            labels: view
                .picture
                .labels
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v))
                .collect(),
        },
        duplicates: view
            .duplicates
            .into_iter()
            .map(|d| DuplicateView {
                field: d.field,
                kind: d.kind,
                other_borrower_id: d.other_borrower_id,
                other_field: d.other_field,
                other_order_no: d.other_order_no,
                other_market: d.other_market,
            })
            .collect(),
        history: view
            .history
            .into_iter()
            .map(|h| PriorOrderView {
                order_no: h.order_no,
                product_name: h.product_name,
                currency: h.currency,
                amount: h.amount,
                status: h.status,
                created_at: h.created_at,
                closed_at: h.closed_at,
                days_late: h.days_late,
            })
            .collect(),
        claim: view.claim.map(Into::into),
        beneficiary: view.beneficiary.map(Into::into),
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct DecisionRequest {
    /// A rejection's reason, which the borrower reads: required to reject, at most 500 characters. Sent with an
    /// approval (as clients did before `note`), it is kept as the team's note and never shown to the borrower.
    #[schema(value_type = Option<String>, example = "The income could not be verified.")]
    pub reason: Option<String>,
    /// A note for the team, never shown to the borrower; optional, at most 500 characters.
    #[schema(value_type = Option<String>, example = "Income verified against the bank statement.")]
    pub note: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub order_no: String,
    /// The order's status after the decision.
    pub status: OrderState,
}

/// Approves an order in review (reviewer), with an optional note for the team. Status, timeline, note and audit are
/// written together.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/approve", tag = "console", operation_id = "console_approve",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DecisionRequest = "application/json"), (DecisionRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DecisionView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not a reviewer), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not in review; application_claimed: another reviewer holds it", body = ErrorBody),
        (status = 422, description = "validation_failed: `note` or `reason` too long", body = ErrorBody)))]
pub async fn approve(
    state: State<AppState>,
    session: OperatorSession,
    order_no: Path<String>,
    body: JsonOrForm<DecisionRequest>,
) -> Result<Json<Envelope<DecisionView>>, ApiError> {
    decide(state, session, order_no, body, Decision::Approve).await
}

/// Rejects an order in review (reviewer), with the reason the borrower is shown and an optional note for the team.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/reject", tag = "console", operation_id = "console_reject",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DecisionRequest = "application/json"), (DecisionRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DecisionView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not a reviewer), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not in review; application_claimed: another reviewer holds it", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason` (required) or `note`", body = ErrorBody)))]
pub async fn reject(
    state: State<AppState>,
    session: OperatorSession,
    order_no: Path<String>,
    body: JsonOrForm<DecisionRequest>,
) -> Result<Json<Envelope<DecisionView>>, ApiError> {
    decide(state, session, order_no, body, Decision::Reject).await
}

async fn decide(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<DecisionRequest>,
    decision: Decision,
) -> Result<Json<Envelope<DecisionView>>, ApiError> {
    let status = review::decide(
        &state.services,
        &session.operator,
        &order_no,
        decision,
        review::DecisionText {
            note: req.note.as_deref(),
            reason: req.reason.as_deref(),
        },
    )
    .await?;
    Ok(Envelope::ok(DecisionView {
        order_no: order_no.trim().to_owned(),
        status,
    }))
}
