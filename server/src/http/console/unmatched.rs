//! Money no payment matched (docs/API-CONSOLE.md, "Money no payment matches"): a provider reported money, signed, for
//! a reference no payment has; finance lists it and records what they did with it (finance).

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::Market;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::error::{Error, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::servicing::reconciliation::parse_market;
use crate::servicing::unmatched;
use crate::store::unmatched::UnmatchedRow;

/// Money a provider reported for a reference no payment has.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UnmatchedReceiptView {
    pub id: String,
    /// `unmatched` (money for a reference no payment has) or `reversed` (money the provider took back from a paid
    /// payment: a refund it made, a chargeback, a void; the loan's credit stands until finance acts).
    pub kind: String,
    /// The order of the payment money was taken back from (`reversed`).
    pub order_no: Option<String>,
    /// `razorpay`, `xendit` or `dragonpay`.
    pub provider: String,
    /// The market of its currency, or of the provider; null when neither tells.
    pub market: Option<Market>,
    /// The reference the provider quoted; empty when it quoted none.
    pub reference: String,
    /// The provider's id of the money, to find it in the provider's dashboard.
    pub provider_payment_id: Option<String>,
    /// Minor units; null when the provider does not say (Dragonpay's postback).
    pub amount: Option<i64>,
    pub currency: Option<String>,
    /// When the provider says the money was sent (ms since the epoch).
    pub sent_at: Option<i64>,
    /// When the provider told us (ms since the epoch).
    pub received_at: i64,
    /// Null while it waits for finance.
    pub resolved_at: Option<i64>,
    pub resolved_by_username: Option<String>,
    /// What finance did with it, in their words.
    pub resolution: Option<String>,
}

impl From<UnmatchedRow> for UnmatchedReceiptView {
    fn from(row: UnmatchedRow) -> Self {
        Self {
            id: row.id,
            kind: row.kind,
            order_no: row.order_no,
            provider: row.provider,
            market: row.market.as_deref().and_then(parse_market),
            reference: row.reference,
            provider_payment_id: row.provider_payment_id,
            amount: row.amount,
            currency: row.currency,
            sent_at: row.sent_at,
            received_at: row.received_at,
            resolved_at: row.resolved_at,
            resolved_by_username: row.resolved_by_username,
            resolution: row.resolution,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct UnmatchedQuery {
    /// `IN` or `ID`; left out, every market of the operator's. Money of no known market is listed with any.
    #[param(value_type = Option<Market>, example = "IN")]
    pub market: Option<String>,
    /// `waiting` (the default) or `all`.
    #[param(value_type = Option<String>, example = "waiting")]
    pub status: Option<String>,
}

/// Money providers reported for references no payment has, and money they took back from paid payments, newest
/// first, at most 200 (finance): waiting for finance, or all with what was done.
#[utoipa::path(get, path = "/api/v1/console/unmatched-receipts", tag = "console",
    operation_id = "console_unmatched_receipts",
    security(("console_cookie" = [])), params(UnmatchedQuery),
    responses((status = 200, body = Envelope<Vec<UnmatchedReceiptView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `status`", body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<UnmatchedQuery>,
) -> Result<Json<Envelope<Vec<UnmatchedReceiptView>>>, ApiError> {
    let market = match query.market.as_deref().map(str::trim) {
        None => None,
        Some(code) => Some(
            parse_market(code)
                .ok_or_else(|| Error::field("market", FieldProblem::unknown_market()))?,
        ),
    };
    let all = match query.status.as_deref().map(str::trim) {
        None | Some("waiting") => false,
        Some("all") => true,
        Some(_) => {
            return Err(Error::field("status", FieldProblem::new("field.unknown_choice")).into());
        }
    };
    let rows = unmatched::list(&state.services, &session.operator, market, all).await?;
    Ok(Envelope::ok(rows.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ResolveUnmatchedRequest {
    /// What was done with the money, 1 to 500 characters: e.g. "Returned to the payer, bank reference N331…", or
    /// "Credited by hand to KL-…".
    #[schema(value_type = String, required = true)]
    pub resolution: Option<String>,
    /// For money the provider took back (`kind: reversed`): also take the payment's credit back from the loan's ledger
    /// (it owes the money again). Left out, false.
    #[serde(default, rename = "takeBack")]
    #[schema(value_type = bool)]
    pub take_back: Option<bool>,
}

/// Records what finance did with money no payment matched (finance), once; audited. With `takeBack`, money the
/// provider took back also comes off the loan's ledger (a reversal of the payment's credit) in the same transaction.
#[utoipa::path(post, path = "/api/v1/console/unmatched-receipts/{id}/resolve", tag = "console",
    operation_id = "console_unmatched_receipt_resolve",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    request_body(content((ResolveUnmatchedRequest = "application/json"), (ResolveUnmatchedRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<UnmatchedReceiptView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "receipt_resolved; credit_not_taken_back: `takeBack` of a credit the ledger cannot \
            take back by itself (the loan closed, money owed back on the payment, a part taken back, not a take-back)",
            body = ErrorBody),
        (status = 422, description = "validation_failed: `resolution`", body = ErrorBody)))]
pub async fn resolve(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<ResolveUnmatchedRequest>,
) -> Result<Json<Envelope<UnmatchedReceiptView>>, ApiError> {
    let row = unmatched::resolve(
        &state.services,
        &session.operator,
        &id,
        req.resolution.as_deref(),
        req.take_back.unwrap_or(false),
    )
    .await?;
    Ok(Envelope::ok(row.into()))
}
