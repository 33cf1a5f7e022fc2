//! The one error type at the HTTP edge and the response envelope of PRODUCT.md §4. Handlers return
//! `Result<T, ApiError>`; the status comes from one `match`, and the message is written in the request's language once,
//! by the edge layer ([`super::edge::Edge`]), where the response is made.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::{Error, FieldErrors};
use crate::i18n::{self, Lang};

/// `{"code": 0, "msg": "ok", "data": …}` around every successful answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    /// Always 0 on success.
    pub code: i32,
    /// Always `ok` on success.
    pub msg: String,
    pub data: T,
}

impl<T: Serialize> Envelope<T> {
    pub fn ok(data: T) -> Json<Self> {
        Json(Self {
            code: 0,
            msg: "ok".into(),
            data,
        })
    }
}

/// The body of every error: a stable machine-readable `code`, a `msg` in the request's language, and the fields at
/// fault, if any.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Stable snake_case error code, e.g. `validation_failed`.
    #[schema(value_type = super::openapi::ErrorCode)]
    pub code: &'static str,
    /// Human-readable message in the request's language.
    pub msg: String,
    /// Always null.
    #[schema(schema_with = always_null, required = true)]
    pub data: Option<()>,
    /// Field name → what is wrong with it, in the request's language; only on 422 and 400.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub fields: Option<BTreeMap<String, String>>,
}

fn always_null() -> utoipa::openapi::Object {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Null)
        .build()
}

/// On a 401 for a borrower's session that has ended: `expired`, `logged_out` or `account_deleted`.
pub const SIGNED_OUT_HEADER: &str = "x-signed-out";

/// A failed request: a capability's [`Error`], or what the HTTP edge itself refuses.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error(transparent)]
    Service(#[from] Error),
    #[error("no such route")]
    NotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("payload too large")]
    PayloadTooLarge,
    #[error("unsupported media type")]
    UnsupportedMediaType,
    #[error("malformed body: {0}")]
    BadRequest(String),
    #[error("not signed in")]
    Unauthorized,
    /// A borrower's session that is no longer live, with why as the server knows it (the message says it; the code
    /// stays `unauthorized`).
    #[error("signed out: {0:?}")]
    SignedOut(crate::auth::SignedOut),
    /// An unsafe request a browser sent on behalf of another site (http/same_origin.rs).
    #[error("cross-site request")]
    CrossSiteRequest,
    /// An unsafe console request without its session's CSRF token (`X-CSRF-Token`).
    #[error("missing or wrong CSRF token")]
    CsrfTokenInvalid,
}

impl From<sqlx::Error> for ApiError {
    fn from(err: sqlx::Error) -> Self {
        Self::Service(err.into())
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(err: anyhow::Error) -> Self {
        Self::Service(err.into())
    }
}

impl From<FieldErrors> for ApiError {
    fn from(errors: FieldErrors) -> Self {
        Self::Service(Error::Validation(errors))
    }
}

impl From<crate::auth::SignInError> for ApiError {
    fn from(err: crate::auth::SignInError) -> Self {
        Self::Service(err.into())
    }
}

impl From<crate::error::Refusal> for ApiError {
    fn from(refusal: crate::error::Refusal) -> Self {
        Self::Service(refusal.into())
    }
}

/// An error answer before its texts are written: everything but the language. The edge layer ([`super::edge::Edge`]) finds it
/// in the response's extensions and writes the body in the request's language.
#[derive(Debug, Clone)]
pub struct PendingError {
    code: &'static str,
    fields: Option<FieldErrors>,
    /// serde's description of what it could not read is about the caller's input, not our internals: shown as is.
    body_problem: Option<String>,
    /// The values the message names (`{amount}`).
    args: Vec<(&'static str, String)>,
    /// The message's catalog key when it is not `error.{code}` (why a borrower was signed out).
    message_key: Option<&'static str>,
}

impl PendingError {
    fn body(&self, lang: Lang) -> ErrorBody {
        let mut fields: Option<BTreeMap<String, String>> = self.fields.as_ref().map(|f| {
            f.fields()
                .map(|(name, problem)| (name.to_owned(), problem.text(lang)))
                .collect()
        });
        if let Some(detail) = &self.body_problem {
            fields
                .get_or_insert_with(BTreeMap::new)
                .insert("body".to_owned(), detail.clone());
        }
        ErrorBody {
            code: self.code,
            msg: if let Some(key) = self.message_key {
                i18n::text(lang, key).to_owned()
            } else if self.args.is_empty() {
                i18n::text(lang, &format!("error.{}", self.code)).to_owned()
            } else {
                let args: Vec<(&str, &str)> =
                    self.args.iter().map(|(n, v)| (*n, v.as_str())).collect();
                i18n::format(lang, &format!("error.{}", self.code), &args)
            },
            data: None,
            fields,
        }
    }
}

impl ApiError {
    fn code(&self) -> &'static str {
        match self {
            ApiError::Service(err) => err.code(),
            ApiError::NotFound => "not_found",
            ApiError::MethodNotAllowed => "method_not_allowed",
            ApiError::PayloadTooLarge => "payload_too_large",
            ApiError::UnsupportedMediaType => "unsupported_media_type",
            ApiError::BadRequest(_) => "bad_request",
            ApiError::Unauthorized | ApiError::SignedOut(_) => "unauthorized",
            ApiError::CrossSiteRequest => "cross_site_request",
            ApiError::CsrfTokenInvalid => "csrf_token_invalid",
        }
    }
}

/// The HTTP status of each error code: the one place they meet.
fn status_of(code: &str) -> StatusCode {
    match code {
        "validation_failed" | "cap_exceeded" => StatusCode::UNPROCESSABLE_ENTITY,
        "not_found" => StatusCode::NOT_FOUND,
        "method_not_allowed" => StatusCode::METHOD_NOT_ALLOWED,
        "payload_too_large" => StatusCode::PAYLOAD_TOO_LARGE,
        "unsupported_media_type" => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "bad_request" | "code_invalid" | "code_expired" | "handover_invalid" => {
            StatusCode::BAD_REQUEST
        }
        "rate_limited"
        | "code_resend_too_soon"
        | "daily_limit_reached"
        | "code_attempts_exceeded"
        | "operator_locked" => StatusCode::TOO_MANY_REQUESTS,
        "unauthorized" | "credentials_invalid" => StatusCode::UNAUTHORIZED,
        "not_eligible"
        | "cross_site_request"
        | "forbidden"
        | "csrf_token_invalid"
        | "handover_not_allowed"
        | "own_payout_approval"
        | "password_change_required" => StatusCode::FORBIDDEN,
        "certification_out_of_order"
        | "certification_incomplete"
        | "open_order_exists"
        | "kfs_changed"
        | "idempotency_key_reused"
        | "invalid_transition"
        | "choice_unavailable"
        | "payment_not_open"
        | "money_reported"
        | "payment_unsettled"
        | "payout_sent"
        | "payment_waiting"
        | "product_changed"
        | "other_currency"
        | "utr_already_used"
        | "utr_locked"
        | "utr_corrections_exhausted"
        | "already_rated"
        | "own_admin_account"
        | "last_admin"
        | "complaint_not_answered"
        | "complaint_closed"
        | "complaint_unanswered"
        | "refund_claimed"
        | "receipt_resolved"
        | "credit_not_taken_back"
        | "money_outstanding"
        | "extension_over_cap"
        | "signed_in_as_another"
        | "application_claimed"
        | "payout_not_awaiting"
        | "payout_awaiting_approval"
        | "loan_not_closed" => StatusCode::CONFLICT,
        "code_delivery_failed" => StatusCode::BAD_GATEWAY,
        "provider_unavailable" | "server_busy" => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.code();
        // Internal causes are logged in full here (the request's span carries its id) and never shown.
        match &self {
            ApiError::Service(Error::Internal(err)) => {
                tracing::error!(error = ?err, "request failed")
            }
            ApiError::Service(Error::Loan(err)) if code == "internal" => {
                tracing::error!(error = %err, "a loan could not be computed");
            }
            ApiError::Service(Error::SignIn(crate::auth::SignInError::Delivery(err))) => {
                tracing::error!(error = ?err, "a sign-in code could not be delivered");
            }
            ApiError::Service(Error::SignIn(crate::auth::SignInError::Store(err))) => {
                tracing::error!(error = ?err, "request failed");
            }
            _ => {}
        }
        let pending = PendingError {
            code,
            fields: match &self {
                ApiError::Service(err) => err.field_errors(),
                _ => None,
            },
            body_problem: match &self {
                ApiError::BadRequest(detail) => Some(detail.clone()),
                _ => None,
            },
            args: match &self {
                ApiError::Service(err) => err.message_args(),
                _ => Vec::new(),
            },
            message_key: match &self {
                ApiError::SignedOut(why) => why.message_key(),
                _ => None,
            },
        };
        // Written in the default language; the edge layer rewrites it in the request's.
        let mut response = (status_of(code), Json(pending.body(Lang::Id))).into_response();
        if let ApiError::Service(err) = &self
            && let Some(secs) = err.retry_after_secs()
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let ApiError::SignedOut(why) = &self
            && let Some(code) = why.code()
        {
            // Why the session ended, for the app to say on its login screen (docs/API-BORROWER.md).
            response
                .headers_mut()
                .insert(SIGNED_OUT_HEADER, HeaderValue::from_static(code));
        }
        response.extensions_mut().insert(pending);
        response
    }
}

/// The response with an error's texts in `lang`; any other response as it is.
pub(crate) fn in_lang(mut response: Response, lang: Lang) -> Response {
    if lang != Lang::Id
        && let Some(pending) = response.extensions_mut().remove::<PendingError>()
    {
        let (mut parts, _) = response.into_parts();
        let body = serde_json::to_vec(&pending.body(lang)).unwrap_or_default();
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, axum::body::Body::from(body));
    }
    response
}

#[cfg(test)]
mod tests {
    use kilat_domain::{CapKind, Money};

    use crate::error::Refusal;

    use super::*;

    async fn body_of(response: Response) -> serde_json::Value {
        let bytes = axum::body::to_bytes(response.into_body(), 64 * 1024)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    /// No demo product can break the OJK cap (the catalog refuses such a file at start-up), so the API tests cannot
    /// reach this refusal; the money engine's tests prove when it happens, this one what the borrower then gets.
    #[tokio::test]
    async fn a_loan_over_the_cap_is_a_422_with_its_own_code_in_both_languages() {
        let refusal = || {
            ApiError::Service(Error::Loan(kilat_domain::Error::CapExceeded {
                cap: CapKind::DailyCost,
                limit: Money::from_minor(900_000),
                actual: Money::from_minor(1_200_000),
            }))
        };
        let english = in_lang(refusal().into_response(), Lang::En);
        assert_eq!(english.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = body_of(english).await;
        assert_eq!(body["code"], "cap_exceeded");
        assert!(
            body["msg"]
                .as_str()
                .unwrap()
                .contains("more than the law allows")
        );
        let indonesian = body_of(in_lang(refusal().into_response(), Lang::Id)).await;
        assert!(
            indonesian["msg"]
                .as_str()
                .unwrap()
                .starts_with("Pinjaman ini melebihi batas")
        );
    }

    /// An extension refused at request time because of a cap names the cap's figure in both languages (a product
    /// whose extension breaks a cap is refused at save, so this is reached when the caps or the loan changed since).
    #[tokio::test]
    async fn an_extension_over_the_cap_is_a_409_naming_the_cap_in_both_languages() {
        let refusal = || {
            ApiError::Service(Error::extension_refused(
                kilat_domain::Error::ExtensionOverCap {
                    cap: CapKind::DailyCost,
                    extensions: 1,
                    days: 21,
                    limit: Money::from_major(63_000),
                    actual: Money::from_major(91_200),
                },
                kilat_domain::Currency::Idr,
            ))
        };
        let english = in_lang(refusal().into_response(), Lang::En);
        assert_eq!(english.status(), StatusCode::CONFLICT);
        let body = body_of(english).await;
        assert_eq!(body["code"], "extension_over_cap");
        assert_eq!(
            body["msg"],
            "An extension is not available for this loan: with its fee the loan would cost Rp\u{a0}91.200, over \
             the Rp\u{a0}63.000 that the OJK cost cap allows."
        );
        let indonesian = body_of(in_lang(refusal().into_response(), Lang::Id)).await;
        assert_eq!(
            indonesian["msg"],
            "Perpanjangan tidak tersedia untuk pinjaman ini: dengan biayanya, biaya pinjaman menjadi \
             Rp\u{a0}91.200, melebihi Rp\u{a0}63.000 yang diizinkan batas biaya OJK."
        );
        // Any other reason stays "not available".
        let other = Error::extension_refused(
            kilat_domain::Error::ExtensionNotAllowed("at most 2 extensions".into()),
            kilat_domain::Currency::Idr,
        );
        assert_eq!(other.code(), "choice_unavailable");
    }

    #[tokio::test]
    async fn each_application_refusal_has_its_status_and_code() {
        for (refusal, status, code) in [
            (
                Refusal::CertificationOutOfOrder,
                409,
                "certification_out_of_order",
            ),
            (
                Refusal::CertificationIncomplete,
                409,
                "certification_incomplete",
            ),
            (Refusal::OpenOrderExists, 409, "open_order_exists"),
            (Refusal::NotEligible, 403, "not_eligible"),
            (Refusal::KfsChanged, 409, "kfs_changed"),
            (Refusal::IdempotencyKeyReused, 409, "idempotency_key_reused"),
        ] {
            let response = in_lang(ApiError::from(refusal).into_response(), Lang::En);
            assert_eq!(response.status().as_u16(), status, "{code}");
            assert_eq!(body_of(response).await["code"], code);
        }
    }
}
