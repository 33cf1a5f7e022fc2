//! Finance's payout operations (docs/API-CONSOLE.md, "Payout operations"): the bank bulk payment file, the bank's
//! result file, maker-checker approval and rejection of recorded payouts, and the month-end exports.

use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use kilat_domain::{Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use super::payments::DisbursedView;
use crate::error::FieldErrors;
use crate::http::AppState;
use crate::http::borrower::auth::{MarketQuery, require_market};
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::servicing::exports::{self, ExportQuery};
use crate::servicing::payout::{self, Beneficiary};
use crate::servicing::payout_file::{self, ImportedLine, LineOutcome};

/// Where a loan is paid to, unmasked (finance; each view is audited `view_unmasked`).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BeneficiaryView {
    /// The borrower's name as on their ID, as the account holds it.
    pub name: String,
    /// India: the bank's IFSC prefix (`HDFC`); Indonesia: the bank's code (`014`).
    pub bank_code: String,
    /// The bank's name (`HDFC Bank`, `BCA (Bank Central Asia)`); the code when the reference data does not list it.
    pub bank_name: String,
    /// In full, digits only.
    pub account_number: String,
    /// `**** **** 4567`.
    pub account_masked: String,
    /// India only; null in Indonesia.
    #[schema(required = true)]
    pub ifsc: Option<String>,
}

impl From<Beneficiary> for BeneficiaryView {
    fn from(b: Beneficiary) -> Self {
        Self {
            name: b.name,
            bank_code: b.bank_code,
            bank_name: b.bank_name,
            account_number: b.account_number,
            account_masked: b.account_masked,
            ifsc: b.ifsc,
        }
    }
}

/// The market's bank bulk payment file (finance): a CSV of every approved order not yet paid out nor recorded for
/// approval, one line each — beneficiary name, account number, IFSC (India) or bank code (Indonesia), amount in the
/// currency's units (rupees with two decimals, whole rupiah), payment reference (the order number), bank name. Text
/// cells that a spreadsheet would read as a formula are prefixed with `'`. Audited `payout.bank_file` with the order
/// numbers it holds. A `POST` (with the CSRF token): each download puts its orders in the file.
#[utoipa::path(post, path = "/api/v1/console/payouts/bank-file", tag = "console",
    operation_id = "console_payout_bank_file",
    security(("console_cookie" = [], "csrf_header" = [])), params(MarketQuery),
    responses((status = 200, description = "The CSV (`Content-Disposition: attachment`)", content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`", body = ErrorBody)))]
pub async fn bank_file(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Response, ApiError> {
    let market: Result<Market, FieldErrors> = require_market(query.market.as_deref());
    // The role before the input: an operator who may not download learns nothing from its validation.
    session.operator.require_any(payout::PAYOUT_ROLES)?;
    let file = payout_file::bank_file(&state.services, &session.operator, market?).await?;
    Ok(crate::http::csv::download(&file.filename, file.csv))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct BankResultRequest {
    /// `IN` or `ID`: the market whose orders the file pays.
    #[schema(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// The bank's result file as text (CSV, at most 2000 lines after the header): a header naming the columns
    /// `reference` (the order number; also `payment reference`, `order no`), `bank_reference` (also `utr`), `status`
    /// (`success` or `failed`, and the usual synonyms) and `amount` (in the currency's units: `19410.00`, `3000000`),
    /// in any order, other columns ignored.
    #[schema(value_type = String, required = true,
        example = "reference,bank_reference,status,amount\nKL-261127-7F3K9Q,N331260012345678,success,19410.00\n")]
    pub content: Option<String>,
}

/// One line of the result file, answered.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportedLineView {
    /// The file's line (the header is line 1).
    pub line: usize,
    /// The order number as the line gives it.
    pub reference: String,
    pub bank_reference: String,
    /// Minor units as read; null when unreadable.
    #[schema(required = true)]
    pub amount: Option<i64>,
    pub outcome: LineOutcome,
    /// Minor units: the order's payout amount, when the line's differs (`amount_mismatch`); null otherwise.
    #[schema(required = true)]
    pub expected_amount: Option<i64>,
    /// `invalid`: the field at fault (`reference`, `status`, `amount`, `bankReference`); `already_paid`: the bank
    /// reference the payout was recorded with; null otherwise.
    #[schema(required = true)]
    pub detail: Option<String>,
}

impl From<ImportedLine> for ImportedLineView {
    fn from(l: ImportedLine) -> Self {
        Self {
            line: l.line,
            reference: l.reference,
            bank_reference: l.bank_reference,
            amount: l.amount,
            outcome: l.outcome,
            expected_amount: l.expected_amount,
            detail: l.detail,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BankResultView {
    pub market: Market,
    /// Every line after the header, in the file's order.
    pub lines: Vec<ImportedLineView>,
}

/// Imports the bank's result file (finance). Each line is matched to its order by the reference: a `success` line
/// whose amount equals the order's payout amount pays it out as `POST /orders/{orderNo}/disburse` does (one step
/// up to the market's approval threshold; above it, recorded and awaiting a second operator), each payout audited; a
/// reference already paid or recorded does nothing again; `failed`, mismatched, unknown, duplicate and unreadable
/// lines are answered and nothing is recorded for them. The import is audited `payout.import`.
#[utoipa::path(post, path = "/api/v1/console/payouts/bank-result", tag = "console",
    operation_id = "console_payout_bank_result",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((BankResultRequest = "application/json"), (BankResultRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<BankResultView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `content` (empty, not CSV, columns missing, too many lines)", body = ErrorBody)))]
pub async fn bank_result(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<BankResultRequest>,
) -> Result<Json<Envelope<BankResultView>>, ApiError> {
    let market: Result<Market, FieldErrors> = require_market(req.market.as_deref());
    session.operator.require_any(payout::PAYOUT_ROLES)?;
    let report = payout_file::import_result(
        &state.services,
        &session.operator,
        market?,
        req.content.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(BankResultView {
        market: report.market,
        lines: report.lines.into_iter().map(Into::into).collect(),
    }))
}

/// An order put back for the next bank file.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PutBack {
    pub order_no: String,
}

/// Puts an order that was in a downloaded bank file back for the next one, when the bank did not pay it (the upload
/// was refused, or never made). Audited `payout.put_back`. An order in a bank file is left out of later files, and
/// the borrower cannot cancel it, until the bank's result reports its transfer failed or it is put back.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/payout/put-back", tag = "console",
    operation_id = "console_payout_put_back",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<PutBack>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such order of the operator's markets, or it is in no bank file", body = ErrorBody),
        (status = 409, description = "invalid_transition: the order is paid out, or its payout is recorded for approval", body = ErrorBody)))]
pub async fn put_back(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<PutBack>>, ApiError> {
    payout_file::put_back(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(PutBack {
        order_no: order_no.trim().to_owned(),
    }))
}

/// Approves a payout another finance operator recorded above the threshold (maker-checker): the loan starts now with
/// the recorded bank reference, as a one-step payout does. Audited `payout.approve`.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/payout/approve", tag = "console",
    operation_id = "console_payout_approve",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<DisbursedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), own_payout_approval (the operator recorded it), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payout_not_awaiting: no payout of the order waits for approval (never recorded, rejected, or approved already); invalid_transition: the order is no longer approved", body = ErrorBody)))]
pub async fn approve(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<DisbursedView>>, ApiError> {
    let done = payout::approve(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(DisbursedView::disbursed(done)))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct PayoutRejectRequest {
    /// Why (for the team and the audit trail): required, at most 500 characters.
    #[schema(value_type = String, required = true, example = "The bank reference is not on the statement.")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PayoutRejectedView {
    pub order_no: String,
    /// `approved`: not paid, back in the payout list and the next bank file (a rejected recording); `cancelled`: withdrawn,
    /// nothing paid.
    pub status: OrderState,
}

/// Rejects a payout another finance operator recorded (maker-checker), with a reason: the recording goes, the order
/// stays approved and not paid. Audited `payout.reject` with what was recorded and the reason.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/payout/reject", tag = "console",
    operation_id = "console_payout_reject",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((PayoutRejectRequest = "application/json"), (PayoutRejectRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PayoutRejectedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), own_payout_approval, csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payout_not_awaiting", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason`", body = ErrorBody)))]
pub async fn reject(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<PayoutRejectRequest>,
) -> Result<Json<Envelope<PayoutRejectedView>>, ApiError> {
    let order_no = payout::reject(
        &state.services,
        &session.operator,
        &order_no,
        req.reason.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(PayoutRejectedView {
        order_no,
        status: OrderState::Approved,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct WithdrawRequest {
    /// Why it cannot be paid out, which the borrower reads: required, at most 500 characters.
    #[schema(value_type = String, required = true, example = "Your bank returned the transfer: the account is closed. Update your bank account and apply again.")]
    pub reason: Option<String>,
}

/// Withdraws an approved order the lender cannot pay out (the bank refuses the account), with a reason the borrower
/// reads: the order is `cancelled`, nothing was paid, and the borrower may correct the account and apply again.
/// Refused while the order is in a downloaded bank file whose result has not come back, or while a payout recorded as
/// sent waits for approval (`payout_sent`). Audited.
#[utoipa::path(post, path = "/api/v1/console/orders/{orderNo}/withdraw", tag = "console",
    operation_id = "console_order_withdraw",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((WithdrawRequest = "application/json"), (WithdrawRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PayoutRejectedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "payout_sent, invalid_transition (not approved)", body = ErrorBody),
        (status = 422, description = "validation_failed: `reason`", body = ErrorBody)))]
pub async fn withdraw(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<WithdrawRequest>,
) -> Result<Json<Envelope<PayoutRejectedView>>, ApiError> {
    let order_no = payout::withdraw(
        &state.services,
        &session.operator,
        &order_no,
        req.reason.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(PayoutRejectedView {
        order_no,
        status: OrderState::Cancelled,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExportParams {
    /// `IN` or `ID`.
    #[param(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// `payouts`, `repayments`, `refunds`, `ledger` or `not_credited`.
    #[param(value_type = String, required = true, example = "payouts")]
    pub kind: Option<String>,
    /// The first day, `YYYY-MM-DD`, on the market's calendar (IST, WIB).
    #[param(value_type = String, format = Date, required = true, example = "2026-11-01")]
    pub from: Option<String>,
    /// The last day, included; at most 31 days after `from`'s.
    #[param(value_type = String, format = Date, required = true, example = "2026-11-30")]
    pub to: Option<String>,
}

/// A month-end export of one market as CSV (finance, admins): `payouts` (by payout date), `repayments` (money the
/// ledger credited, by its date), `refunds` (by the time sent), `ledger` (every entry with its lines summed) or
/// `not_credited` (money received and not in the ledger: held, owed back or kept apart, open now or resolved), over
/// at most 31 of the market's calendar days and 50,000 rows. Amounts in the currency's units beside its code. Audited
/// `export.<kind>`.
#[utoipa::path(get, path = "/api/v1/console/exports", tag = "console",
    operation_id = "console_export",
    security(("console_cookie" = [])), params(ExportParams),
    responses((status = 200, description = "The CSV (`Content-Disposition: attachment`)", content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither finance nor admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `kind`, `from`, `to` (format, order, more than 31 days, more than 50,000 rows)", body = ErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<ExportParams>,
) -> Result<Response, ApiError> {
    let market: Result<Market, FieldErrors> = require_market(query.market.as_deref());
    session.operator.require_any(exports::EXPORT_ROLES)?;
    let export = exports::month_end(
        &state.services,
        &session.operator,
        &ExportQuery {
            kind: query.kind.as_deref(),
            market: market?,
            from: query.from.as_deref(),
            to: query.to.as_deref(),
        },
    )
    .await?;
    Ok(crate::http::csv::download(&export.filename, export.csv))
}
