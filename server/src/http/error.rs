//! The one error type at the HTTP edge and the response envelope of PRODUCT.md §4.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::lang::Lang;

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

/// Why a field was refused; turned into text in the request's language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldProblem {
    Required,
    TooLong {
        max: usize,
    },
    InvalidPhone,
    InvalidCode,
    UnknownMarket,
    WrongCode,
    UnknownProduct,
    UnknownTerm,
    AmountOutOfRange {
        min: String,
        max: String,
    },
    AmountNotOnStep {
        step: String,
    },
    /// Any other rule, worded in both languages where it is checked.
    Say {
        en: String,
        id: String,
    },
}

impl FieldProblem {
    /// A rule's explanation in English and Indonesian.
    pub fn say(en: impl Into<String>, id: impl Into<String>) -> Self {
        Self::Say {
            en: en.into(),
            id: id.into(),
        }
    }
}

impl FieldProblem {
    fn text(&self, lang: Lang) -> String {
        match (self.clone(), lang) {
            (Self::Required, Lang::En) => "This field is required.".into(),
            (Self::Required, Lang::Id) => "Kolom ini wajib diisi.".into(),
            (Self::TooLong { max }, Lang::En) => format!("At most {max} characters."),
            (Self::TooLong { max }, Lang::Id) => format!("Maksimal {max} karakter."),
            (Self::InvalidPhone, Lang::En) => "Enter a valid mobile number.".into(),
            (Self::InvalidPhone, Lang::Id) => "Masukkan nomor ponsel yang valid.".into(),
            (Self::InvalidCode, Lang::En) => "The code has 6 digits.".into(),
            (Self::InvalidCode, Lang::Id) => "Kode terdiri dari 6 angka.".into(),
            (Self::UnknownMarket, Lang::En) => "Choose IN (India) or ID (Indonesia).".into(),
            (Self::UnknownMarket, Lang::Id) => "Pilih IN (India) atau ID (Indonesia).".into(),
            (Self::WrongCode, Lang::En) => "This code is not correct.".into(),
            (Self::WrongCode, Lang::Id) => "Kode ini salah.".into(),
            (Self::UnknownProduct, Lang::En) => "This product is not offered.".into(),
            (Self::UnknownProduct, Lang::Id) => "Produk ini tidak tersedia.".into(),
            (Self::UnknownTerm, Lang::En) => "Choose one of the product's terms.".into(),
            (Self::UnknownTerm, Lang::Id) => "Pilih salah satu tenor produk.".into(),
            (Self::AmountOutOfRange { min, max }, Lang::En) => {
                format!("Choose an amount from {min} to {max}.")
            }
            (Self::AmountOutOfRange { min, max }, Lang::Id) => {
                format!("Pilih jumlah dari {min} sampai {max}.")
            }
            (Self::AmountNotOnStep { step }, Lang::En) => {
                format!("The amount goes up in steps of {step}.")
            }
            (Self::AmountNotOnStep { step }, Lang::Id) => {
                format!("Jumlah naik dengan kelipatan {step}.")
            }
            (Self::Say { en, .. }, Lang::En) => en,
            (Self::Say { id, .. }, Lang::Id) => id,
        }
    }
}

/// Field-level failures collected while converting a request into domain values.
#[derive(Debug, Default)]
pub struct FieldErrors(pub(crate) BTreeMap<&'static str, FieldProblem>);

impl FieldErrors {
    pub fn add(&mut self, field: &'static str, problem: FieldProblem) {
        self.0.entry(field).or_insert(problem);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("validation failed")]
    Validation(FieldErrors),
    #[error("not found")]
    NotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("payload too large")]
    PayloadTooLarge,
    #[error("unsupported media type")]
    UnsupportedMediaType,
    #[error("malformed body: {0}")]
    BadRequest(String),
    #[error("rate limited")]
    RateLimited { retry_after_secs: u64 },
    #[error("not signed in")]
    Unauthorized,
    /// A loan the money rules refuse (amount, term, cap) or cannot compute.
    #[error("loan refused: {0}")]
    Loan(kilat_domain::Error),
    /// A borrower's request the rules of certification or applying refuse.
    #[error("refused: {0:?}")]
    Refused(Refusal),
    #[error(transparent)]
    SignIn(#[from] crate::sign_in::SignInError),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

/// Refusals of the certification and application flow, each with its own code (docs/API-BORROWER.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A certification step saved before the steps ahead of it.
    CertificationOutOfOrder,
    /// Applying before the five steps are done.
    CertificationIncomplete,
    /// Applying while another order is open.
    OpenOrderExists,
    /// The borrower's income is below the market's minimum.
    NotEligible,
    /// The KFS accepted is not the one the server computes now.
    KfsChanged,
    /// An idempotency key reused for another application.
    IdempotencyKeyReused,
}

impl From<sqlx::Error> for ApiError {
    fn from(err: sqlx::Error) -> Self {
        Self::Internal(anyhow::Error::new(err).context("database"))
    }
}

impl ApiError {
    /// Attaches the language the message is written in; handlers return `LocalizedError` via `?` on `(lang, err)`.
    pub fn in_lang(self, lang: Lang) -> LocalizedError {
        LocalizedError { lang, error: self }
    }
}

/// An `ApiError` with the language of the request that caused it.
#[derive(Debug)]
pub struct LocalizedError {
    pub lang: Lang,
    pub error: ApiError,
}

impl IntoResponse for LocalizedError {
    fn into_response(self) -> Response {
        let lang = self.lang;
        use crate::sign_in::SignInError;
        let (status, code, msg_en, msg_id) = match &self.error {
            ApiError::Validation(_) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                "Some fields need your attention.",
                "Beberapa kolom perlu diperbaiki.",
            ),
            ApiError::NotFound => (
                StatusCode::NOT_FOUND,
                "not_found",
                "Not found.",
                "Tidak ditemukan.",
            ),
            ApiError::MethodNotAllowed => (
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This method is not allowed here.",
                "Metode ini tidak diizinkan di sini.",
            ),
            ApiError::PayloadTooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                "The request is too large.",
                "Permintaan terlalu besar.",
            ),
            ApiError::UnsupportedMediaType => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "Send JSON or a form-encoded body.",
                "Kirim JSON atau formulir (form-encoded).",
            ),
            ApiError::BadRequest(_) => (
                StatusCode::BAD_REQUEST,
                "bad_request",
                "The request could not be read.",
                "Permintaan tidak dapat dibaca.",
            ),
            ApiError::RateLimited { .. } => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                "Too many requests. Please wait a minute and try again.",
                "Terlalu banyak permintaan. Silakan tunggu sebentar dan coba lagi.",
            ),
            ApiError::Loan(kilat_domain::Error::CapExceeded { .. }) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "cap_exceeded",
                "This loan would cost more than the law allows. Choose a smaller amount or a shorter term.",
                "Pinjaman ini melebihi batas biaya yang diizinkan. Pilih jumlah lebih kecil atau tenor lebih pendek.",
            ),
            ApiError::Loan(
                kilat_domain::Error::AmountOutOfRange { .. }
                | kilat_domain::Error::AmountNotOnStep { .. }
                | kilat_domain::Error::NegativeAmount
                | kilat_domain::Error::UnknownTerm(_),
            ) => (
                StatusCode::UNPROCESSABLE_ENTITY,
                "validation_failed",
                "Some fields need your attention.",
                "Beberapa kolom perlu diperbaiki.",
            ),
            ApiError::Loan(err) => {
                tracing::error!(error = %err, "a loan could not be computed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Something went wrong on our side. Please try again.",
                    "Terjadi kesalahan di pihak kami. Silakan coba lagi.",
                )
            }
            ApiError::Refused(Refusal::CertificationOutOfOrder) => (
                StatusCode::CONFLICT,
                "certification_out_of_order",
                "Please complete the earlier steps first.",
                "Silakan selesaikan langkah sebelumnya terlebih dahulu.",
            ),
            ApiError::Refused(Refusal::CertificationIncomplete) => (
                StatusCode::CONFLICT,
                "certification_incomplete",
                "Please complete all five verification steps before applying.",
                "Silakan selesaikan kelima langkah verifikasi sebelum mengajukan.",
            ),
            ApiError::Refused(Refusal::OpenOrderExists) => (
                StatusCode::CONFLICT,
                "open_order_exists",
                "You already have a loan application or loan in progress.",
                "Anda masih memiliki pengajuan atau pinjaman yang berjalan.",
            ),
            ApiError::Refused(Refusal::NotEligible) => (
                StatusCode::FORBIDDEN,
                "not_eligible",
                "Your income is below the minimum for a loan.",
                "Penghasilan Anda di bawah batas minimum untuk pinjaman.",
            ),
            ApiError::Refused(Refusal::KfsChanged) => (
                StatusCode::CONFLICT,
                "kfs_changed",
                "The Key Fact Statement has changed. Please read the new one before you confirm.",
                "Ringkasan informasi pinjaman telah berubah. Silakan baca yang baru sebelum mengonfirmasi.",
            ),
            ApiError::Refused(Refusal::IdempotencyKeyReused) => (
                StatusCode::CONFLICT,
                "idempotency_key_reused",
                "This request key was already used for another application.",
                "Kunci permintaan ini sudah dipakai untuk pengajuan lain.",
            ),
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "Please log in again.",
                "Silakan masuk kembali.",
            ),
            ApiError::SignIn(SignInError::ResendTooSoon { .. }) => (
                StatusCode::TOO_MANY_REQUESTS,
                "code_resend_too_soon",
                "A code was just sent. Please wait before asking for another.",
                "Kode baru saja dikirim. Silakan tunggu sebelum meminta lagi.",
            ),
            ApiError::SignIn(SignInError::DailyLimit) => (
                StatusCode::TOO_MANY_REQUESTS,
                "daily_limit_reached",
                "Too many codes today. Please try again tomorrow.",
                "Terlalu banyak kode hari ini. Silakan coba lagi besok.",
            ),
            ApiError::SignIn(SignInError::CodeInvalid) => (
                StatusCode::BAD_REQUEST,
                "code_invalid",
                "The code is not correct.",
                "Kode tidak benar.",
            ),
            ApiError::SignIn(SignInError::CodeExpired) => (
                StatusCode::BAD_REQUEST,
                "code_expired",
                "The code has expired. Please ask for a new one.",
                "Kode sudah kedaluwarsa. Silakan minta kode baru.",
            ),
            ApiError::SignIn(SignInError::AttemptsExceeded) => (
                StatusCode::TOO_MANY_REQUESTS,
                "code_attempts_exceeded",
                "Too many wrong tries. Please ask for a new code.",
                "Terlalu banyak percobaan salah. Silakan minta kode baru.",
            ),
            ApiError::SignIn(SignInError::Delivery(err)) => {
                tracing::error!(error = ?err, "a sign-in code could not be delivered");
                (
                    StatusCode::BAD_GATEWAY,
                    "code_delivery_failed",
                    "We could not send the code. Please try again in a moment.",
                    "Kode tidak dapat dikirim. Silakan coba lagi sebentar lagi.",
                )
            }
            ApiError::SignIn(SignInError::Store(err)) => {
                tracing::error!(error = ?err, "request failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Something went wrong on our side. Please try again.",
                    "Terjadi kesalahan di pihak kami. Silakan coba lagi.",
                )
            }
            ApiError::Internal(err) => {
                tracing::error!(error = ?err, "request failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "Something went wrong on our side. Please try again.",
                    "Terjadi kesalahan di pihak kami. Silakan coba lagi.",
                )
            }
        };
        let fields = match &self.error {
            ApiError::Validation(fields) => Some(
                fields
                    .0
                    .iter()
                    .map(|(name, problem)| ((*name).to_owned(), problem.text(lang)))
                    .collect(),
            ),
            // serde's description of what it could not read is about the caller's input, not our internals.
            ApiError::BadRequest(detail) => {
                Some(BTreeMap::from([("body".to_owned(), detail.clone())]))
            }
            ApiError::Loan(err) => loan_field(err)
                .map(|(field, problem)| BTreeMap::from([(field.to_owned(), problem.text(lang))])),
            ApiError::SignIn(SignInError::CodeInvalid) => Some(BTreeMap::from([(
                "code".to_owned(),
                FieldProblem::WrongCode.text(lang),
            )])),
            _ => None,
        };
        let body = ErrorBody {
            code,
            msg: match lang {
                Lang::En => msg_en,
                Lang::Id => msg_id,
            }
            .to_owned(),
            data: None,
            fields,
        };
        let mut response = (status, Json(body)).into_response();
        if let ApiError::RateLimited { retry_after_secs }
        | ApiError::SignIn(SignInError::ResendTooSoon { retry_after_secs }) = self.error
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
        }
        response
    }
}

/// The request field a refused loan is about.
fn loan_field(err: &kilat_domain::Error) -> Option<(&'static str, FieldProblem)> {
    use kilat_domain::Error;
    match err {
        Error::AmountOutOfRange { min, max, .. } => Some((
            "amount",
            FieldProblem::AmountOutOfRange {
                min: min.to_string(),
                max: max.to_string(),
            },
        )),
        Error::AmountNotOnStep { step, .. } => Some((
            "amount",
            FieldProblem::AmountNotOnStep {
                step: step.to_string(),
            },
        )),
        Error::NegativeAmount => Some(("amount", FieldProblem::Required)),
        Error::UnknownTerm(_) => Some(("termCode", FieldProblem::UnknownTerm)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use kilat_domain::{CapKind, Money};

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
            ApiError::Loan(kilat_domain::Error::CapExceeded {
                cap: CapKind::DailyCost,
                limit: Money::from_minor(900_000),
                actual: Money::from_minor(1_200_000),
            })
        };
        let english = refusal().in_lang(Lang::En).into_response();
        assert_eq!(english.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = body_of(english).await;
        assert_eq!(body["code"], "cap_exceeded");
        assert!(
            body["msg"]
                .as_str()
                .unwrap()
                .contains("more than the law allows")
        );
        let indonesian = body_of(refusal().in_lang(Lang::Id).into_response()).await;
        assert!(
            indonesian["msg"]
                .as_str()
                .unwrap()
                .starts_with("Pinjaman ini melebihi batas")
        );
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
            let response = ApiError::Refused(refusal).in_lang(Lang::En).into_response();
            assert_eq!(response.status().as_u16(), status, "{code}");
            assert_eq!(body_of(response).await["code"], code);
        }
    }
}
