//! Payment providers' callbacks under `/api/v1/webhooks` (docs/API-WEBHOOKS.md): one route per provider of the
//! registry (`providers::registry::CALLBACKS`), not cookie-authenticated and outside the same-origin check. Each is
//! verified by its provider from the raw body and headers before anything is parsed (a bad signature is 401 and
//! writes nothing), then handed to `servicing::callbacks`. A replay answers success and posts nothing. The functions
//! below with `utoipa::path` only document the routes; `openapi` tests that the document and the registry agree.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::Error;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::providers::registry::CALLBACKS;
use crate::providers::{self, CallbackError, CallbackProvider, Inbound, Reply};
use crate::servicing::callbacks::Outcome;

/// The webhook routes, merged into `/api/v1` after the same-origin layer: one per registered provider.
pub fn routes() -> Router<AppState> {
    CALLBACKS.iter().fold(Router::new(), |router, &provider| {
        let mut route = post(
            move |State(state): State<AppState>, headers: HeaderMap, body: Bytes| {
                take(state, provider, headers, body)
            },
        );
        if provider.takes_query() {
            route = route.merge(get(
                move |State(state): State<AppState>,
                      headers: HeaderMap,
                      RawQuery(query): RawQuery| {
                    take(
                        state,
                        provider,
                        headers,
                        Bytes::from(query.unwrap_or_default()),
                    )
                },
            ));
        }
        router.route(&format!("/webhooks/{}", provider.route()), route)
    })
}

/// A provider's request: verified and read by the provider, then taken; answered as the provider expects.
async fn take(
    state: AppState,
    provider: &'static dyn CallbackProvider,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let s = &state.services;
    let inbound = Inbound {
        headers: &headers,
        body: &body,
    };
    let read = providers::read_callback(provider, &s.payments.settings, &inbound)
        .inspect_err(|_| crate::infra::metrics::callback(provider.route(), "refused"))?;
    let outcome = match read {
        Some(cb) => state.crediting.take(s, provider, &cb).await?,
        None => Outcome::Ignored,
    };
    crate::infra::metrics::callback(provider.route(), outcome.code());
    Ok(match provider.reply() {
        Reply::Envelope => Envelope::ok(CallbackView {
            outcome: outcome.code().to_owned(),
        })
        .into_response(),
        Reply::Text(text) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            text,
        )
            .into_response(),
    })
}

impl From<CallbackError> for ApiError {
    fn from(e: CallbackError) -> Self {
        match e {
            CallbackError::BadSignature => ApiError::Unauthorized,
            CallbackError::Disabled => ApiError::Service(Error::NotFound),
            CallbackError::Service(e) => ApiError::Service(e),
        }
    }
}

/// What the server did with a verified callback.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallbackView {
    /// `confirmed` (credited), `held` (the amount or currency differs, or finance had rejected the payment: for
    /// finance, nothing credited), `refund_due` (the loan owed nothing, or less: what it owed is credited, the rest
    /// owed back), `ignored` (an event or status that credits nothing), `not_open` (the payment was settled
    /// before and this is the same money: a transfer finance confirmed from its UTR, or one already taken; a
    /// transfer under another provider payment id is more money, a payment of its own: `held`, or `refund_due` for a
    /// closed loan),
    /// `wrong_provider` (the payment was not made with this provider: recorded, nothing credited), `unmatched` (no
    /// payment has the reference quoted, or none was: the money is recorded for finance), `reversed` (the provider
    /// took back money of a paid payment — a refund, a chargeback, a void — recorded for finance; the loan's credit
    /// stands) or `replayed` (this event was taken before; nothing posted).
    #[schema(example = "confirmed")]
    pub outcome: String,
}

/// Razorpay's webhook body (`payment.captured`); other events are acknowledged and ignored.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"entity": "event", "event": "payment.captured", "payload": {"payment": {"entity": {"id": "pay_29QQoUBi66xm2f", "amount": 524_500, "currency": "INR", "status": "captured", "notes": {"reference": "KP7M2Q9X4ZKA"}}}}}))]
#[allow(dead_code)]
pub struct RazorpayWebhook {
    /// `payment.captured` credits; any other event is answered `ignored`.
    event: String,
    #[schema(value_type = Object)]
    payload: serde_json::Value,
}

/// Razorpay's webhook (India): `X-Razorpay-Signature` is the hex HMAC-SHA256 of the raw body with the webhook
/// secret; deduplicated on the signed body's event and payment id (`payment.captured:pay_…`), never on an unsigned
/// header. `payload.payment.entity.notes.reference` is the payment's reference, `amount` in paise.
#[utoipa::path(post, path = "/api/v1/webhooks/razorpay", tag = "webhooks",
    operation_id = "webhook_razorpay",
    params(("x-razorpay-signature" = String, Header, description = "hex HMAC-SHA256 of the raw body")),
    request_body(content = RazorpayWebhook, content_type = "application/json"),
    responses((status = 200, body = Envelope<CallbackView>),
        (status = 401, description = "unauthorized: the signature is missing or wrong; nothing written", body = ErrorBody),
        (status = 404, description = "the provider is not enabled", body = ErrorBody),
        (status = 422, description = "validation_failed: `body` (not a Razorpay event)", body = ErrorBody)))]
pub fn razorpay() {}

/// Xendit's fixed-virtual-account paid callback body.
#[derive(Debug, ToSchema)]
#[schema(example = json!({"id": "57fb4e076fa3fa296b7f5a97", "payment_id": "demo-1476087608948", "callback_virtual_account_id": "57fb4df9af86ce19778ad359", "external_id": "KP7M2Q9X4ZKA", "bank_code": "BCA", "account_number": "8808123456789012", "amount": 1_050_000, "currency": "IDR"}))]
#[allow(dead_code)]
pub struct XenditVaPaid {
    /// Xendit's payment id: the deduplication key.
    payment_id: String,
    /// The payment's reference.
    external_id: String,
    /// Whole rupiah.
    amount: i64,
    currency: Option<String>,
}

/// Xendit's virtual-account paid callback (Indonesia): verified by `x-callback-token` (constant-time compare);
/// deduplicated on `payment_id`; `external_id` is the payment's reference, `amount` in whole rupiah.
#[utoipa::path(post, path = "/api/v1/webhooks/xendit/va-paid", tag = "webhooks",
    operation_id = "webhook_xendit_va_paid",
    params(("x-callback-token" = String, Header, description = "the account's callback verification token")),
    request_body(content = XenditVaPaid, content_type = "application/json"),
    responses((status = 200, body = Envelope<CallbackView>),
        (status = 401, description = "unauthorized: the token is missing or wrong; nothing written", body = ErrorBody),
        (status = 404, description = "the provider is not enabled", body = ErrorBody),
        (status = 422, description = "validation_failed: `body`", body = ErrorBody)))]
pub fn xendit_va_paid() {}

/// Dragonpay's postback fields (form-encoded).
#[derive(Debug, ToSchema)]
#[allow(dead_code)]
pub struct DragonpayPostbackForm {
    /// The payment's reference.
    txnid: String,
    /// Dragonpay's reference number.
    refno: String,
    /// `S` success (credits), `F` failure, `P` pending, `U` unknown, `R` refund, `K` chargeback, `V` void, `A`
    /// authorized.
    status: String,
    message: String,
    /// SHA-1 hex of `txnid:refno:status:message:password`.
    digest: String,
    /// Optional: the amount, e.g. `1050.00`.
    amount: Option<String>,
    /// Optional: the currency.
    ccy: Option<String>,
}

/// Dragonpay's postback, form-encoded: the digest (SHA-1 of `txnid:refno:status:message:password`) is verified
/// first; the answer is `result=OK` as plain text, for every status; only `S` credits the payment.
#[utoipa::path(post, path = "/api/v1/webhooks/dragonpay/postback", tag = "webhooks",
    operation_id = "webhook_dragonpay_postback",
    request_body(content = DragonpayPostbackForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, description = "`result=OK`", body = String, content_type = "text/plain"),
        (status = 401, description = "unauthorized: the digest is missing or wrong; nothing written", body = ErrorBody),
        (status = 404, description = "the provider is not enabled", body = ErrorBody),
        (status = 422, description = "validation_failed: `body`", body = ErrorBody)))]
pub fn dragonpay_postback() {}

/// Dragonpay's postback as a query string (Dragonpay may call either way); as the form-encoded one.
#[utoipa::path(get, path = "/api/v1/webhooks/dragonpay/postback", tag = "webhooks",
    operation_id = "webhook_dragonpay_postback_get",
    params(("txnid" = String, Query), ("refno" = String, Query), ("status" = String, Query),
        ("message" = String, Query), ("digest" = String, Query), ("amount" = Option<String>, Query),
        ("ccy" = Option<String>, Query)),
    responses((status = 200, description = "`result=OK`", body = String, content_type = "text/plain"),
        (status = 401, description = "unauthorized: the digest is missing or wrong; nothing written", body = ErrorBody),
        (status = 404, description = "the provider is not enabled", body = ErrorBody),
        (status = 422, description = "validation_failed: `body`", body = ErrorBody)))]
pub fn dragonpay_postback_get() {}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use utoipa::OpenApi;

    use super::*;
    use crate::http::openapi::ApiDoc;

    /// The routes come from the registry and the document from the functions above: each registered provider is
    /// documented at its route, with a `GET` exactly when it takes one, and nothing else is.
    #[test]
    fn the_api_document_has_the_registered_providers_routes() {
        let doc = ApiDoc::openapi();
        let documented: BTreeSet<(String, bool)> = doc
            .paths
            .paths
            .iter()
            .filter(|(path, _)| path.starts_with("/api/v1/webhooks/"))
            .map(|(path, item)| (path.clone(), item.get.is_some()))
            .collect();
        let registered: BTreeSet<(String, bool)> = CALLBACKS
            .iter()
            .map(|p| (format!("/api/v1/webhooks/{}", p.route()), p.takes_query()))
            .collect();
        assert_eq!(documented, registered);
    }
}
