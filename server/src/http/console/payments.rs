//! Finance's work (docs/API-CONSOLE.md): releasing an approved order's funds, the queue of submitted UTRs with each
//! loan's outstanding amount, and confirming (posting through the money engine) or rejecting a payment.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, EntryKind, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::error::FieldErrors;
use crate::http::AppState;
use crate::http::borrower::auth::require_market;
use crate::http::borrower::servicing::{BucketsView, LoanPlanView, PaymentView};
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::servicing::payments::{
    self, Payment, PaymentMethod, PaymentStatus, QueueFilter, QueuedPayment, RepaymentChoice,
};
use crate::servicing::payout::{self, AwaitingPayout, Disbursed, PayoutOutcome};
use crate::servicing::{EntryView, LoanRecord};

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
    /// `disbursed`; `approved` while the payout awaits a second operator's approval.
    pub status: OrderState,
    /// True when the payout is above the market's approval threshold: recorded, and the loan starts only once a
    /// second finance operator approves it (`POST /orders/{orderNo}/payout/approve`).
    pub awaiting_approval: bool,
    /// The loan's start: the market's business date of the payout; null while awaiting approval.
    #[schema(format = Date, required = true)]
    pub payout_date: Option<String>,
    /// Minor units: the net amount sent.
    pub amount: i64,
    /// The payout provider (`manual`); null while awaiting approval.
    #[schema(required = true)]
    pub provider: Option<String>,
    pub bank_reference: String,
}

impl DisbursedView {
    pub(crate) fn disbursed(done: Disbursed) -> Self {
        Self {
            order_no: done.order_no,
            status: done.status,
            awaiting_approval: false,
            payout_date: Some(done.payout_date.to_string()),
            amount: done.amount,
            provider: Some(done.provider.to_owned()),
            bank_reference: done.bank_reference,
        }
    }

    fn of(outcome: PayoutOutcome) -> Self {
        match outcome {
            PayoutOutcome::Disbursed(done) => Self::disbursed(done),
            PayoutOutcome::AwaitingApproval(r) => Self {
                order_no: r.order_no,
                status: r.status,
                awaiting_approval: true,
                payout_date: None,
                amount: r.amount,
                provider: None,
                bank_reference: r.bank_reference,
            },
        }
    }
}

/// Releases an approved order's funds (finance) with the bank's reference of the transfer made: the payout date
/// becomes the loan's start (the accepted schedule moved there, same amounts and APR), the ledger opens, and the order
/// is disbursed, all in one transaction. Above the market's approval threshold (`[payouts.in|id]
/// approval_threshold`, minor units) the payout is only recorded (`awaitingApproval: true`, audited `payout.record`)
/// and a second, different finance operator approves it (`POST /orders/{orderNo}/payout/approve`).
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/disburse", tag = "console",
    operation_id = "console_disburse",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((DisburseRequest = "application/json"), (DisburseRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<DisbursedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is not approved (or already paid out); payout_awaiting_approval: already recorded, waiting for a second operator; payout_sent: in a downloaded bank file whose result has not come back (the bank may be sending its money)", body = ErrorBody),
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
    Ok(Envelope::ok(DisbursedView::of(done)))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuedPaymentView {
    pub payment: PaymentView,
    pub market: Market,
    pub currency: Currency,
    /// Minor units: everything the loan has outstanding now.
    pub outstanding: i64,
    /// Epoch milliseconds: since when the payment waits in its status (its last change).
    pub waiting_since: i64,
    /// A refund due that a finance operator said they are sending (`POST …/refund/claim`): their username, and since
    /// when (epoch milliseconds); null otherwise.
    #[schema(required = true)]
    pub refund_sending_by: Option<String>,
    #[schema(required = true)]
    pub refund_sending_since: Option<i64>,
}

impl From<QueuedPayment> for QueuedPaymentView {
    fn from(q: QueuedPayment) -> Self {
        Self {
            currency: q.payment.row.currency,
            market: q.market,
            outstanding: q.outstanding.minor(),
            waiting_since: q.payment.row.updated_at,
            refund_sending_since: q
                .refund_sending_by
                .as_ref()
                .and(q.payment.row.refund_claimed_at),
            refund_sending_by: q.refund_sending_by,
            payment: q.payment.into(),
        }
    }
}

/// Narrows finance's queue; every parameter is optional.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct QueueQuery {
    /// `IN` or `ID`.
    #[param(value_type = Option<Market>, example = "IN")]
    pub market: Option<String>,
    /// `verifying`, `held` or `refund_due`.
    #[param(value_type = Option<String>, example = "verifying")]
    pub status: Option<String>,
    /// A UTR, a payment reference or an order number, matched exactly (spaces ignored, any case).
    #[param(value_type = Option<String>, example = "712345678901")]
    pub q: Option<String>,
}

impl QueueQuery {
    fn filter(&self) -> Result<QueueFilter, crate::error::Error> {
        QueueFilter::parse(
            self.market.as_deref(),
            self.status.as_deref(),
            self.q.as_deref(),
        )
    }
}

/// Finance's queue: payments whose UTR waits for verification, amounts held, and refunds due, oldest first (at most
/// 200), each with its loan's outstanding amount and since when it waits (finance). Narrowed by market, status, and
/// a UTR, payment reference or order number; a search without a status also lists the `rejected` payments it names,
/// after the waiting ones (money finance rejected that arrived after all is confirmed from there).
#[utoipa::path(get, path = "/api/v1/console/payments", tag = "console", operation_id = "console_payments",
    security(("console_cookie" = [])), params(QueueQuery),
    responses((status = 200, body = Envelope<Vec<QueuedPaymentView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `status`, `q`", body = ErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<QueueQuery>,
) -> Result<Json<Envelope<Vec<QueuedPaymentView>>>, ApiError> {
    session.operator.require_any(payments::FINANCE_ROLES)?;
    let filter = query.filter()?;
    let queue = payments::queue(&state.services, &session.operator, &filter).await?;
    Ok(Envelope::ok(queue.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueCountView {
    pub market: Market,
    /// `verifying`, `held` or `refund_due`.
    pub status: PaymentStatus,
    pub count: i64,
}

/// How many payments wait for finance in each status, per market (finance): every pair, zero included.
#[utoipa::path(get, path = "/api/v1/console/payments/counts", tag = "console", operation_id = "console_payment_counts",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<QueueCountView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody)))]
pub async fn queue_counts(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<QueueCountView>>>, ApiError> {
    let counts = payments::queue_counts(&state.services, &session.operator).await?;
    Ok(Envelope::ok(
        counts
            .into_iter()
            .map(|c| QueueCountView {
                market: c.market,
                status: c.status,
                count: c.count,
            })
            .collect(),
    ))
}

/// Finance's queue as it is filtered, as a CSV file (finance): one payment a row, amounts in major units with two
/// decimals, the waiting time; every cell quoted, and one a spreadsheet would read as a formula prefixed with `'`.
#[utoipa::path(get, path = "/api/v1/console/payments/export", tag = "console", operation_id = "console_payments_export",
    security(("console_cookie" = [])), params(QueueQuery),
    responses((status = 200, description = "The CSV file (`text/csv`, an attachment)", content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `status`, `q`", body = ErrorBody)))]
pub async fn queue_export(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<QueueQuery>,
) -> Result<axum::response::Response, ApiError> {
    session.operator.require_any(payments::FINANCE_ROLES)?;
    let filter = query.filter()?;
    let csv = payments::queue_csv(&state.services, &session.operator, &filter).await?;
    Ok(crate::http::csv::download("kilat-repayments.csv", csv))
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
    /// `confirmed`; `held` when the amount differs (nothing credited); `refund_due` when some or all of it is owed
    /// back (a loan that owed nothing, or more than it owed).
    pub payment: PaymentView,
    /// The order's status after the posting.
    pub order_status: OrderState,
    /// The sequence number of the ledger entry posted; null when held.
    #[schema(required = true)]
    pub ledger_seq: Option<u64>,
}

/// Confirms a payment (finance) with the amount received: posts it through the money engine (the ledger entry and
/// any status change: repaid, exited in cooling-off, extended) in one transaction, once. An amount other than the
/// payment's is held, not credited; so is money for a payment finance rejected that arrived after all.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/confirm", tag = "console",
    operation_id = "console_confirm_payment",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((PaymentConfirmRequest = "application/json"), (PaymentConfirmRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<ConfirmedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: not waiting for finance (confirmed or refunded already, or no UTR yet)", body = ErrorBody),
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
pub struct PaymentResolveRequest {
    /// `credit`: count the amount received towards the loan (a part payment by the allocation rule; beyond the
    /// payoff is owed back); `refund`: owe all of it back to the borrower.
    #[schema(value_type = String, required = true, example = "credit")]
    pub action: Option<String>,
}

/// Resolves a held payment in one step (finance): credits the amount received, or records it as to be refunded.
/// Audited; the borrower sees the outcome on the payment.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/resolve", tag = "console",
    operation_id = "console_resolve_payment",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((PaymentResolveRequest = "application/json"), (PaymentResolveRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<ConfirmedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: not held", body = ErrorBody),
        (status = 422, description = "validation_failed: `action`", body = ErrorBody)))]
pub async fn resolve(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<PaymentResolveRequest>,
) -> Result<Json<Envelope<ConfirmedView>>, ApiError> {
    let done = payments::resolve(
        &state.services,
        &session.operator,
        &payment_id,
        req.action.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(ConfirmedView {
        payment: done.payment.into(),
        order_status: done.order_status,
        ledger_seq: done.entry,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundRecordRequest {
    /// The bank's reference of the transfer that sent the refund: 4 to 64 letters, digits and `- / _ .`.
    #[schema(value_type = String, required = true, example = "N2612345678901")]
    pub bank_reference: Option<String>,
}

/// Records the refund of a payment whose money the loan did not owe (finance): `refund_due` → `refunded`, once, with
/// the bank's reference, which is that transfer's alone (one a payout or another order's refund has is refused at
/// `bankReference`, naming that order). Only the operator sending it may record a refund claimed
/// (`…/refund/claim`). Audited; the borrower sees it on the payment.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/refund", tag = "console",
    operation_id = "console_record_refund",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((RefundRecordRequest = "application/json"), (RefundRecordRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: no refund due; refund_claimed: another operator is sending it", body = ErrorBody),
        (status = 422, description = "validation_failed: `bankReference`", body = ErrorBody)))]
pub async fn record_refund(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<RefundRecordRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::record_refund(
        &state.services,
        &session.operator,
        &payment_id,
        req.bank_reference.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundClaimRequest {
    /// Take the refund over from the operator sending it (only when you know they did not send it). Default false.
    #[schema(nullable = false, example = false)]
    pub take_over: Option<bool>,
}

/// Says the signed-in finance operator is sending a refund due now, before they send it from the bank, so that no
/// other operator sends the same money: the queue shows who is sending it and since when, and only they may record it.
/// A refund another operator is sending → `409 refund_claimed`, unless `takeOver` (audited with whom it was taken
/// from). Audited `payment.refund_claim`.
#[utoipa::path(post, path = "/api/v1/console/payments/{paymentId}/refund/claim", tag = "console",
    operation_id = "console_claim_refund",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((RefundClaimRequest = "application/json"), (RefundClaimRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payment_not_open: no refund due; refund_claimed: another operator is sending it", body = ErrorBody)))]
pub async fn claim_refund(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<RefundClaimRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::claim_refund(
        &state.services,
        &session.operator,
        &payment_id,
        req.take_over.unwrap_or(false),
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
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

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PayoutQueueEntry {
    pub order_no: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: Currency,
    /// Minor units: the sanctioned amount.
    pub amount: i64,
    /// Minor units: what the payout sends to the borrower's account (the accepted KFS's net amount).
    pub net_disbursed: i64,
    /// Epoch milliseconds: when the order was approved.
    pub approved_at: i64,
    /// Whole seconds since the approval.
    pub age_seconds: i64,
    /// Where the money goes, in full (each order listed is audited `view_unmasked`); null when the borrower has no
    /// bank account on file.
    #[schema(required = true)]
    pub beneficiary: Option<super::payouts::BeneficiaryView>,
    /// True when the payout is above the market's approval threshold: a second finance operator approves it.
    pub needs_approval: bool,
    /// The payout recorded and waiting for a second operator's approval; null when none.
    #[schema(required = true)]
    pub pending_payout: Option<PendingPayoutView>,
    /// The order is in a bank file finance downloaded (its money may be on its way: later files leave it out, and
    /// the borrower cannot cancel it); null when it is not.
    #[schema(required = true)]
    pub in_bank_file: Option<InBankFileView>,
}

/// When, and by whom, an order was put in a downloaded bank file.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InBankFileView {
    /// Epoch milliseconds.
    pub sent_at: i64,
    pub sent_by_username: String,
}

/// A payout recorded by one finance operator, waiting for a second one (maker-checker).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PendingPayoutView {
    pub bank_reference: String,
    /// The operator who recorded it: they may not approve or reject it.
    pub recorded_by: String,
    pub recorded_by_username: String,
    /// Epoch milliseconds.
    pub recorded_at: i64,
}

impl From<AwaitingPayout> for PayoutQueueEntry {
    fn from(a: AwaitingPayout) -> Self {
        Self {
            order_no: a.order_no,
            phone_masked: a.phone_masked,
            product_code: a.product_code,
            product_name: a.product_name,
            term_code: a.term_code,
            currency: a.currency,
            amount: a.amount,
            net_disbursed: a.net_disbursed,
            approved_at: a.approved_at,
            age_seconds: a.age_secs,
            beneficiary: a.beneficiary.map(Into::into),
            needs_approval: a.needs_approval,
            pending_payout: a.pending.map(|p| PendingPayoutView {
                bank_reference: p.bank_reference,
                recorded_by: p.recorded_by,
                recorded_by_username: p.recorded_by_username,
                recorded_at: p.recorded_at,
            }),
            in_bank_file: a.in_bank_file.map(|f| InBankFileView {
                sent_at: f.sent_at,
                sent_by_username: f.sent_by_username,
            }),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PayoutsQuery {
    /// `IN` (India) or `ID` (Indonesia); missing or unknown is a 422 on `market`.
    #[param(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// The page, from 1 (default 1).
    #[param(value_type = Option<i64>, minimum = 1)]
    pub page: Option<String>,
    /// Orders per page, 1 to 100 (default 50).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub page_size: Option<String>,
}

/// Finance's payout list of a market, one page: approved orders not yet paid out, the longest waiting first (finance),
/// each with its beneficiary in full (every order listed is audited `view_unmasked`), whether it needs a second
/// operator, and the payout recorded and awaiting approval, if any.
#[utoipa::path(get, path = "/api/v1/console/payouts", tag = "console", operation_id = "console_payouts",
    security(("console_cookie" = [])), params(PayoutsQuery),
    responses((status = 200, body = Envelope<Vec<PayoutQueueEntry>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `page` or `pageSize`", body = ErrorBody)))]
pub async fn payouts(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<PayoutsQuery>,
) -> Result<Json<Envelope<Vec<PayoutQueueEntry>>>, ApiError> {
    // The role before the input: an operator who may not see the list learns nothing from its validation.
    session.operator.require_any(payout::PAYOUT_ROLES)?;
    let mut errors = match require_market(query.market.as_deref()) {
        Ok(_) => FieldErrors::default(),
        Err(errors) => errors,
    };
    let page = super::whole_number("page", query.page.as_deref(), 1, 1_000_000, &mut errors);
    let page_size = super::whole_number(
        "pageSize",
        query.page_size.as_deref(),
        payout::AWAITING_PAGE_SIZE,
        payout::AWAITING_MAX_PAGE_SIZE,
        &mut errors,
    );
    errors.into_result()?;
    let market = require_market(query.market.as_deref())?;
    let list =
        payout::awaiting(&state.services, &session.operator, market, page, page_size).await?;
    Ok(Envelope::ok(list.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoanPayoutView {
    /// The loan's start: the market's business date of the payout.
    #[schema(format = Date)]
    pub date: String,
    /// The payout provider (`manual`).
    pub provider: String,
    pub bank_reference: String,
    /// Minor units: the net amount sent.
    pub amount: i64,
    /// Epoch milliseconds.
    pub at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoanPaymentView {
    pub payment_id: String,
    pub choice: RepaymentChoice,
    pub method: PaymentMethod,
    pub status: PaymentStatus,
    /// Minor units: the amount asked.
    pub amount: i64,
    /// Minor units: what finance recorded as received; null before a decision.
    #[schema(required = true)]
    pub received_amount: Option<i64>,
    /// Minor units owed back to the borrower (`refund_due`, `refunded`); null otherwise.
    #[schema(required = true)]
    pub refund_amount: Option<i64>,
    /// The bank's reference of the refund once sent; null before.
    #[schema(required = true)]
    pub refund_reference: Option<String>,
    pub reference: String,
    /// Null before the borrower submits one.
    #[schema(required = true)]
    pub utr: Option<String>,
    /// Finance's reason when rejected; null otherwise.
    #[schema(required = true)]
    pub reason: Option<String>,
    /// Epoch milliseconds.
    pub created_at: i64,
    pub updated_at: i64,
}

impl From<Payment> for LoanPaymentView {
    fn from(p: Payment) -> Self {
        Self {
            payment_id: p.row.id,
            choice: p.choice,
            method: p.method,
            status: p.status,
            amount: p.row.amount,
            received_amount: p.row.received_amount,
            refund_amount: p.row.refund_amount,
            refund_reference: p.row.refund_reference.clone(),
            reference: p.row.reference,
            utr: p.row.utr,
            reason: p.row.decision_reason,
            created_at: p.row.created_at,
            updated_at: p.row.updated_at,
        }
    }
}

/// What a ledger entry records.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LedgerEntryKind {
    Payout,
    FeeDeducted,
    Scheduled,
    LateCharge,
    ExtensionFee,
    Repayment,
    CoolingOffExit,
    Payoff,
    Reversal,
}

impl From<EntryKind> for LedgerEntryKind {
    fn from(k: EntryKind) -> Self {
        match k {
            EntryKind::Payout => Self::Payout,
            EntryKind::FeeDeducted => Self::FeeDeducted,
            EntryKind::Scheduled => Self::Scheduled,
            EntryKind::LateCharge => Self::LateCharge,
            EntryKind::ExtensionFee => Self::ExtensionFee,
            EntryKind::Repayment => Self::Repayment,
            EntryKind::CoolingOffExit => Self::CoolingOffExit,
            EntryKind::Payoff => Self::Payoff,
            EntryKind::Reversal => Self::Reversal,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntryView {
    /// The entry's number in the order's ledger, from 0 (the payout).
    pub seq: u64,
    pub kind: LedgerEntryKind,
    /// The business date it happened on.
    #[schema(format = Date)]
    pub date: String,
    /// Minor units: money that moved (sent at payout, received with a repayment).
    pub cash: i64,
    /// Minor units: cash received beyond what was owed.
    pub excess: i64,
    /// Minor units: fees kept at payout credited back and netted from the cash (a cooling-off exit only).
    pub refunded: i64,
    /// What the entry added to the installments' dues, summed over them.
    pub due: BucketsView,
    /// What the entry paid, summed over the installments.
    pub paid: BucketsView,
    /// The entry this one reverses; null otherwise.
    #[schema(required = true)]
    pub reverses: Option<u64>,
}

impl From<EntryView> for LedgerEntryView {
    fn from(e: EntryView) -> Self {
        Self {
            seq: e.seq,
            kind: e.entry.kind.into(),
            date: e.entry.on.to_string(),
            cash: e.entry.cash.minor(),
            excess: e.entry.excess.minor(),
            refunded: e.entry.refunded.minor(),
            due: e.due.into(),
            paid: e.paid.into(),
            reverses: e.entry.reverses,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLoanView {
    /// Null only for a loan recorded without a payout row.
    #[schema(required = true)]
    pub payout: Option<LoanPayoutView>,
    /// The plan with each installment's status and buckets, replayed from the ledger.
    pub plan: LoanPlanView,
    /// Every payment of the order, oldest first.
    pub payments: Vec<LoanPaymentView>,
    /// The ledger, in order.
    pub ledger: Vec<LedgerEntryView>,
}

impl From<LoanRecord> for ConsoleLoanView {
    fn from(r: LoanRecord) -> Self {
        let date = r.payout_date.to_string();
        Self {
            payout: r.payout.map(|p| LoanPayoutView {
                date,
                provider: p.provider,
                bank_reference: p.bank_reference,
                amount: p.amount,
                at: p.created_at,
            }),
            plan: (&r.plan).into(),
            payments: r.payments.into_iter().map(Into::into).collect(),
            ledger: r.entries.into_iter().map(Into::into).collect(),
        }
    }
}
