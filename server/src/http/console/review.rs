//! The review queue, an order as an operator sees it, approve and reject, and the audit search.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::certification::{Step, StepData};
use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::borrower::auth::{MarketQuery, require_market};
use crate::http::borrower::certification::StepFields;
use crate::http::borrower::orders::OrderDetail;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::review::{self, AuditQuery, Decision, QueueItem};
use crate::store::audit::AuditEntry;

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
        }
    }
}

/// The review queue of a market: orders waiting for review, oldest first (reviewer, support).
#[utoipa::path(get, path = "/api/v1/console/applications", tag = "console", operation_id = "console_applications",
    security(("console_cookie" = [])), params(MarketQuery),
    responses((status = 200, body = Envelope<Vec<QueueEntry>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither reviewer nor support", body = ErrorBody),
        (status = 422, body = ErrorBody)))]
pub async fn applications(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Json<Envelope<Vec<QueueEntry>>>, ApiError> {
    let market: Result<Market, FieldErrors> = require_market(query.market.as_deref());
    // The role before the input: an operator who may not see the queue learns nothing from its validation.
    session.operator.require_any(review::QUEUE_ROLES)?;
    let queue = review::queue(&state.services, &session.operator, market?).await?;
    Ok(Envelope::ok(
        queue.into_iter().map(QueueEntry::from).collect(),
    ))
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
    /// The step's fields; `idNumber` and `accountNumber` masked unless the order view is `unmasked`.
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
    /// The reason given with the approval or rejection; null before.
    #[schema(required = true)]
    pub review_reason: Option<String>,
    pub borrower_id: String,
    pub phone_masked: String,
    pub certification: Vec<CertificationStepView>,
    /// True for reviewers: ID and account numbers in full, and this view was written to the audit trail.
    pub unmasked: bool,
    /// Once paid out: the payout, the plan with each installment's status, the payments and the ledger; null before.
    #[schema(required = true)]
    pub loan: Option<super::payments::ConsoleLoanView>,
    /// For finance once the order is approved: where the loan is (or was) paid to, in full; the view was then audited
    /// (`view_unmasked`). Null for the other roles and before approval.
    #[schema(required = true)]
    pub beneficiary: Option<super::payouts::BeneficiaryView>,
}

/// One order with its KFS, timeline and the borrower's certification (reviewer, finance, support). Reviewers see ID
/// and account numbers in full and each such view is audited (`view_unmasked`); the others see them masked. Finance
/// sees the beneficiary of an approved or paid-out order in full, audited the same way.
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
                data: data.to_view(masked),
            })
            .collect(),
        unmasked: view.unmasked,
        loan: view.loan.map(Into::into),
        beneficiary: view.beneficiary.map(Into::into),
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct DecisionRequest {
    /// Why; shown to the borrower. Required, at most 500 characters.
    #[schema(value_type = String, required = true, example = "Income verified against the bank statement.")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub order_no: String,
    /// The order's status after the decision.
    pub status: OrderState,
}

/// Approves an order in review (reviewer). Status, timeline and audit are written together.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/approve", tag = "console", operation_id = "console_approve",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DecisionRequest = "application/json"), (DecisionRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DecisionView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not a reviewer), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not in review", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason`", body = ErrorBody)))]
pub async fn approve(
    state: State<AppState>,
    session: OperatorSession,
    order_no: Path<String>,
    body: JsonOrForm<DecisionRequest>,
) -> Result<Json<Envelope<DecisionView>>, ApiError> {
    decide(state, session, order_no, body, Decision::Approve).await
}

/// Rejects an order in review (reviewer), with the reason the borrower is shown.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/reject", tag = "console", operation_id = "console_reject",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DecisionRequest = "application/json"), (DecisionRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DecisionView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not a reviewer), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not in review", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason`", body = ErrorBody)))]
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
        req.reason.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(DecisionView {
        order_no: order_no.trim().to_owned(),
        status,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AuditSearch {
    /// Entries about this order.
    pub order_no: Option<String>,
    /// Entries made by this operator (username or id).
    pub operator: Option<String>,
    /// Epoch milliseconds, inclusive.
    #[param(value_type = Option<i64>)]
    pub from: Option<String>,
    /// Epoch milliseconds, exclusive.
    #[param(value_type = Option<i64>)]
    pub to: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    pub id: String,
    /// `borrower`, `operator` or `system`.
    pub actor_kind: String,
    #[schema(required = true)]
    pub actor_id: Option<String>,
    /// E.g. `order.approve`, `view_unmasked`.
    pub action: String,
    pub entity: String,
    pub entity_id: String,
    /// The record's state before and after, as JSON; null when not recorded.
    #[schema(value_type = Option<Object>, required = true)]
    pub before: Option<serde_json::Value>,
    #[schema(value_type = Option<Object>, required = true)]
    pub after: Option<serde_json::Value>,
    /// Epoch milliseconds.
    pub at: i64,
}

impl From<AuditEntry> for AuditEntryView {
    fn from(e: AuditEntry) -> Self {
        let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
        Self {
            id: e.id,
            actor_kind: e.actor_kind,
            actor_id: e.actor_id,
            action: e.action,
            entity: e.entity,
            entity_id: e.entity_id,
            before: json(e.before_json),
            after: json(e.after_json),
            at: e.at,
        }
    }
}

/// Searches the audit trail, newest first, at most 200 entries (admin, support).
#[utoipa::path(get, path = "/api/v1/console/audit", tag = "console", operation_id = "console_audit",
    security(("console_cookie" = [])), params(AuditSearch),
    responses((status = 200, body = Envelope<Vec<AuditEntryView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither admin nor support", body = ErrorBody),
        (status = 422, description = "validation_failed: `from` or `to`", body = ErrorBody)))]
pub async fn audit(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(search): ApiQuery<AuditSearch>,
) -> Result<Json<Envelope<Vec<AuditEntryView>>>, ApiError> {
    session.operator.require_any(review::AUDIT_ROLES)?;
    let mut errors = FieldErrors::default();
    let mut time = |field: &'static str, raw: Option<&str>| {
        let raw = raw.map(str::trim).filter(|r| !r.is_empty())?;
        raw.parse::<i64>().ok().filter(|ms| *ms >= 0).or_else(|| {
            errors.add(field, FieldProblem::new("field.epoch_ms"));
            None
        })
    };
    let from = time("from", search.from.as_deref());
    let to = time("to", search.to.as_deref());
    errors.into_result()?;
    let entries = review::audit(
        &state.services,
        &session.operator,
        &AuditQuery {
            order_no: search.order_no.as_deref(),
            operator: search.operator.as_deref(),
            from,
            to,
        },
    )
    .await?;
    Ok(Envelope::ok(
        entries.into_iter().map(AuditEntryView::from).collect(),
    ))
}
