//! Finance's work (docs/API-CONSOLE.md): releasing an approved order's funds, the queue of submitted UTRs with each
//! loan's outstanding amount, and confirming (posting through the money engine) or rejecting a payment.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::OperatorSession;
use crate::http::borrower::servicing::PaymentView;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::servicing::payments::{self, QueuedPayment};
use crate::servicing::payout;
use crate::startup::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DisburseRequest {
    /// The bank's reference of the transfer made (manual provider): 4 to 64 letters, digits, `-`, `/`, `_`, `.`.
    #[schema(value_type = String, required = true, example = "HDFCN52026112512345")]
    pub bank_reference: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DisbursedView {
    pub order_no: String,
    /// `disbursed`.
    pub status: OrderState,
    /// The loan's start: the market's business date of the payout.
    #[schema(format = Date)]
    pub payout_date: String,
    /// Minor units: the net amount sent.
    pub amount: i64,
    /// The payout provider (`manual`).
    pub provider: String,
    pub bank_reference: String,
}

/// Releases an approved order's funds (finance): the payout date becomes the loan's start (the accepted schedule
/// moved there, same amounts and APR), the ledger opens, and the order is disbursed, all in one transaction.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/disburse", tag = "console",
    operation_id = "console_disburse",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DisburseRequest = "application/json"), (DisburseRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DisbursedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not approved (or already paid out)", body = ErrorBody),
        (status = 422, description = "validation_failed: `bankReference`", body = ErrorBody)))]
pub async fn disburse(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<DisburseRequest>,
) -> Result<Json<Envelope<DisbursedView>>, ApiError> {
    let done = payout::disburse(
        &state.services,
        &session.operator,
        &order_no,
        req.bank_reference.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(DisbursedView {
        order_no: done.order_no,
        status: done.status,
        payout_date: done.payout_date.to_string(),
        amount: done.amount,
        provider: done.provider.to_owned(),
        bank_reference: done.bank_reference,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuedPaymentView {
    pub payment: PaymentView,
    pub market: Market,
    pub currency: Currency,
    /// Minor units: everything the loan has outstanding now.
    pub outstanding: i64,
}

impl From<QueuedPayment> for QueuedPaymentView {
    fn from(q: QueuedPayment) -> Self {
        Self {
            currency: q.payment.row.currency,
            market: q.market,
            outstanding: q.outstanding.minor(),
            payment: q.payment.into(),
        }
    }
}

/// Finance's queue: payments whose UTR waits for verification, and amounts held, oldest first, each with its loan's
/// outstanding amount (finance).
#[utoipa::path(get, path = "/api/v1/console/payments", tag = "console", operation_id = "console_payments",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<QueuedPaymentView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<QueuedPaymentView>>>, ApiError> {
    let queue = payments::queue(&state.services, &session.operator).await?;
    Ok(Envelope::ok(queue.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct PaymentConfirmRequest {
    /// Minor units: the amount the bank statement shows received. Another amount than the payment's is held.
    #[schema(value_type = i64, required = true, example = 350_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub amount: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmedView {
    /// `confirmed`, or `held` when the amount differs (nothing credited).
    pub payment: PaymentView,
    /// The order's status after the posting.
    pub order_status: OrderState,
    /// The sequence number of the ledger entry posted; null when held.
    #[schema(required = true)]
    pub ledger_seq: Option<u64>,
}

/// Confirms a payment (finance) with the amount received: posts it through the money engine (the ledger entry and
/// any status change: repaid, exited in cooling-off, extended) in one transaction, once. An amount other than the
/// payment's is held, not credited.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/confirm", tag = "console",
    operation_id = "console_confirm_payment",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((PaymentConfirmRequest = "application/json"), (PaymentConfirmRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<ConfirmedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: not waiting for finance (confirmed or rejected already, or no UTR yet)", body = ErrorBody),
        (status = 422, description = "validation_failed: `amount`", body = ErrorBody)))]
pub async fn confirm(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<PaymentConfirmRequest>,
) -> Result<Json<Envelope<ConfirmedView>>, ApiError> {
    let done =
        payments::confirm(&state.services, &session.operator, &payment_id, req.amount).await?;
    Ok(Envelope::ok(ConfirmedView {
        payment: done.payment.into(),
        order_status: done.order_status,
        ledger_seq: done.entry,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct PaymentRejectRequest {
    /// Why; shown to the borrower. Required, at most 500 characters.
    #[schema(value_type = String, required = true, example = "No credit with this UTR on the statement.")]
    pub reason: Option<String>,
}

/// Rejects a payment waiting for finance, with the reason the borrower is shown (finance). Nothing is posted.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/reject", tag = "console",
    operation_id = "console_reject_payment",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((PaymentRejectRequest = "application/json"), (PaymentRejectRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: not waiting for finance", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason`", body = ErrorBody)))]
pub async fn reject(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<PaymentRejectRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::reject(
        &state.services,
        &session.operator,
        &payment_id,
        req.reason.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}
