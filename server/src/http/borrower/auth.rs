//! The borrower API's sign-in: one-time codes, the signed-in borrower, sign-out, the native shell's session hand-over
//! to the web app, and the `Session` extractor (docs/API-BORROWER.md).

use axum::Json;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{FromRequestParts, Request, State};
use axum::http::{HeaderMap, HeaderValue, header, request::Parts};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use kilat_domain::{Market, Phone, PhoneError};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::auth::{
    self as sign_in, Borrower, CODE_TTL_MS, Delivery, Exchanged, HANDOVER_TTL_MS, RESEND_MS,
    SESSION_IDLE_MS, SignInError, SignInService,
};
use crate::error::{Error, FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, ClientAddr, JsonOrForm, cookie};
use crate::i18n::Lang;
use crate::infra::sms::Channel;

/// The browser's session cookie; the native shell sends `X-Session-Id` instead.
pub const SESSION_COOKIE: &str = "kilat_session";

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MarketQuery {
    /// `IN` (India) or `ID` (Indonesia); missing or unknown is a 422 on `market`.
    #[param(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginInit {
    pub market: Market,
    pub country_code: String,
    pub phone_example: String,
    pub phone_digits: DigitRange,
    pub code_length: u32,
    pub code_ttl_seconds: i64,
    pub resend_seconds: i64,
    pub voice_code_offered: bool,
    pub agreement_url: String,
    pub privacy_url: String,
    pub lender_name: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DigitRange {
    pub min: u32,
    pub max: u32,
}

/// What the login screen needs for a market.
#[utoipa::path(get, path = "/api/v1/borrower/login/init", tag = "borrower", params(MarketQuery),
    responses((status = 200, body = Envelope<LoginInit>), (status = 422, body = ErrorBody)))]
pub async fn login_init(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Json<Envelope<LoginInit>>, ApiError> {
    let market = require_market(query.market.as_deref())?;
    let (example, min, max) = match market {
        Market::India => ("98765 43210", 10, 10),
        Market::Indonesia => ("0812 3456 7890", 10, 13),
    };
    Ok(Envelope::ok(LoginInit {
        market,
        country_code: market.country_code().into(),
        phone_example: example.into(),
        phone_digits: DigitRange { min, max },
        code_length: 6,
        code_ttl_seconds: CODE_TTL_MS / 1000,
        resend_seconds: RESEND_MS / 1000,
        voice_code_offered: true,
        agreement_url: "/app/agreement".into(),
        privacy_url: "/app/privacy".into(),
        lender_name: state.services.site.company(market).lender_name.clone(),
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct SendCodeRequest {
    /// Missing or unknown is a 422 on `market`.
    #[schema(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// As typed; validated and normalised by market (a 422 on `phone` when it is not a mobile number).
    #[schema(value_type = String, required = true, example = "98765 43210")]
    pub phone: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CodeSent {
    pub resend_seconds: i64,
    pub expires_in_seconds: i64,
    pub phone_masked: String,
    /// False when the SMS provider's answer never came: the code may still arrive and stays valid; if it has not
    /// arrived when the resend wait ends, a new one can be asked for.
    pub delivery_confirmed: bool,
}

impl CodeSent {
    fn of(delivery: Delivery, phone: &Phone) -> Self {
        Self {
            resend_seconds: RESEND_MS / 1000,
            expires_in_seconds: CODE_TTL_MS / 1000,
            phone_masked: phone.masked(),
            delivery_confirmed: delivery == Delivery::Sent,
        }
    }
}

/// Sends a 6-digit sign-in code by SMS.
#[utoipa::path(post, path = "/api/v1/borrower/login/sms-code", tag = "borrower",
    request_body(content((SendCodeRequest = "application/json"), (SendCodeRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CodeSent>), (status = 422, body = ErrorBody),
        (status = 429, description = "code_resend_too_soon, daily_limit_reached, or rate_limited (with `Retry-After`: \
            the market's budget of codes to numbers no borrower has is spent for its ten minutes)", body = ErrorBody),
        (status = 502, description = "code_delivery_failed", body = ErrorBody)))]
pub async fn send_sms_code(
    state: State<AppState>,
    lang: Lang,
    client: ClientAddr,
    body: JsonOrForm<SendCodeRequest>,
) -> Result<Json<Envelope<CodeSent>>, ApiError> {
    send_code(state, lang, client, body, Channel::Sms).await
}

/// Sends the code by an automated voice call instead.
#[utoipa::path(post, path = "/api/v1/borrower/login/voice-code", tag = "borrower",
    request_body(content((SendCodeRequest = "application/json"), (SendCodeRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CodeSent>), (status = 422, body = ErrorBody),
        (status = 429, description = "code_resend_too_soon, daily_limit_reached, or rate_limited (with `Retry-After`: \
            the market's budget of codes to numbers no borrower has is spent for its ten minutes)", body = ErrorBody),
        (status = 502, description = "code_delivery_failed", body = ErrorBody)))]
pub async fn send_voice_code(
    state: State<AppState>,
    lang: Lang,
    client: ClientAddr,
    body: JsonOrForm<SendCodeRequest>,
) -> Result<Json<Envelope<CodeSent>>, ApiError> {
    send_code(state, lang, client, body, Channel::Voice).await
}

async fn send_code(
    State(state): State<AppState>,
    lang: Lang,
    ClientAddr(client): ClientAddr,
    JsonOrForm(req): JsonOrForm<SendCodeRequest>,
    channel: Channel,
) -> Result<Json<Envelope<CodeSent>>, ApiError> {
    let phone = parse_phone(req.market.as_deref(), req.phone.as_deref())?;
    let delivery = SignInService::of(&state.services)
        .send_code(&phone, channel, lang, &client.to_string())
        .await?;
    Ok(Envelope::ok(CodeSent::of(delivery, &phone)))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    #[schema(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    #[schema(value_type = String, required = true, example = "98765 43210")]
    pub phone: Option<String>,
    /// The 6 digits received.
    #[schema(value_type = String, required = true, example = "123456")]
    pub code: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoggedIn {
    /// For the native shell, which sends it back as `X-Session-Id`; browsers use the HttpOnly cookie.
    pub session_id: String,
    pub borrower: BorrowerView,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BorrowerView {
    pub id: String,
    pub phone_masked: String,
    pub market: Market,
    /// Epoch milliseconds.
    pub created_at: i64,
    /// Only in the answer to `POST /login`: true on the first sign-in, when the borrower was created.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub is_new: Option<bool>,
}

impl BorrowerView {
    fn of(borrower: &Borrower, is_new: Option<bool>) -> Self {
        Self {
            id: borrower.id.clone(),
            phone_masked: borrower.phone.masked(),
            market: borrower.market,
            created_at: borrower.created_at,
            is_new,
        }
    }
}

/// Signs in with the phone and its code; creates the borrower on first sign-in.
#[utoipa::path(post, path = "/api/v1/borrower/login", tag = "borrower",
    request_body(content((LoginRequest = "application/json"), (LoginRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "Signed in; sets the kilat_session cookie", body = Envelope<LoggedIn>),
        (status = 400, description = "code_invalid or code_expired", body = ErrorBody),
        (status = 422, body = ErrorBody),
        (status = 429, description = "code_attempts_exceeded", body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    JsonOrForm(req): JsonOrForm<LoginRequest>,
) -> Result<Response, ApiError> {
    let mut errors = FieldErrors::default();
    let phone = parse_phone(req.market.as_deref(), req.phone.as_deref())
        .map_err(|e| errors = e)
        .ok();
    let code = req.code.as_deref().map(str::trim).unwrap_or_default();
    if code.is_empty() {
        errors.add("code", FieldProblem::required());
    } else if code.len() != 6 || !code.chars().all(|c| c.is_ascii_digit()) {
        errors.add("code", FieldProblem::new("field.invalid_code"));
    }
    let Some(phone) = phone.filter(|_| errors.is_empty()) else {
        return Err(errors.into());
    };
    let signed_in = SignInService::of(&state.services)
        .sign_in(&phone, code, &client.to_string())
        .await?;
    let cookie = session_cookie(
        &signed_in.token,
        SESSION_IDLE_MS / 1000,
        state.secure_cookies,
    );
    let body = Envelope::ok(LoggedIn {
        borrower: BorrowerView::of(&signed_in.borrower, Some(signed_in.is_new)),
        session_id: signed_in.token,
    });
    Ok(([(header::SET_COOKIE, cookie)], body).into_response())
}

/// Ends the session (header or cookie) and clears the cookie.
#[utoipa::path(post, path = "/api/v1/borrower/logout", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<Option<bool>>), (status = 401, body = ErrorBody)))]
pub async fn logout(State(state): State<AppState>, session: Session) -> Result<Response, ApiError> {
    SignInService::of(&state.services)
        .sign_out(&session.token)
        .await?;
    let cookie = session_cookie("", 0, state.secure_cookies);
    Ok(([(header::SET_COOKIE, cookie)], Envelope::ok(None::<bool>)).into_response())
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct VerificationCodeRequest {
    /// What the code is for: `bank_account` (changing the bank account on file).
    #[schema(value_type = String, required = true, example = "bank_account")]
    pub purpose: Option<String>,
}

/// Sends a one-time code by SMS to the signed-in borrower's own phone, for a sensitive change (`bank_account`), under
/// the sign-in codes' limits (one a minute, ten a day per phone, counted together with sign-in codes). The code is
/// then sent with the change (`verificationCode`).
#[utoipa::path(post, path = "/api/v1/borrower/verification-code", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((VerificationCodeRequest = "application/json"), (VerificationCodeRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CodeSent>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `purpose`", body = ErrorBody),
        (status = 429, description = "code_resend_too_soon or daily_limit_reached", body = ErrorBody),
        (status = 502, description = "code_delivery_failed", body = ErrorBody)))]
pub async fn send_verification_code(
    State(state): State<AppState>,
    session: Session,
    lang: Lang,
    ClientAddr(client): ClientAddr,
    JsonOrForm(req): JsonOrForm<VerificationCodeRequest>,
) -> Result<Json<Envelope<CodeSent>>, ApiError> {
    let purpose = match req
        .purpose
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        None => return Err(Error::field("purpose", FieldProblem::required()).into()),
        Some(p) => sign_in::CodePurpose::parse_verification(p).ok_or_else(|| {
            Error::field("purpose", FieldProblem::new("field.verification_purpose"))
        })?,
    };
    let delivery = SignInService::of(&state.services)
        .send_verification_code(&session.borrower, purpose, lang, &client.to_string())
        .await?;
    Ok(Envelope::ok(CodeSent::of(
        delivery,
        &session.borrower.phone,
    )))
}

/// The signed-in borrower.
#[utoipa::path(get, path = "/api/v1/borrower/me", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<BorrowerView>), (status = 401, body = ErrorBody)))]
pub async fn me(session: Session) -> Json<Envelope<BorrowerView>> {
    Envelope::ok(BorrowerView::of(&session.borrower, None))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandoverCode {
    /// The one-time code: open `/app/?handover=<code>` with it. Usable once.
    pub code: String,
    pub expires_in_seconds: i64,
}

/// The native shell, signed in by `X-Session-Id`, asks for a one-time code to open the web app signed in as the same
/// borrower (`/app/?handover=<code>`). The code lives a minute and is stored hashed; a session asks for at most 10 a
/// minute. A browser session (the cookie) cannot ask for one: `403 handover_not_allowed`.
#[utoipa::path(post, path = "/api/v1/borrower/session/handover", tag = "borrower",
    security(("session_header" = [])),
    responses((status = 200, body = Envelope<HandoverCode>), (status = 401, body = ErrorBody),
        (status = 400, description = "handover_invalid: the session ended meanwhile", body = ErrorBody),
        (status = 403, description = "handover_not_allowed or cross_site_request", body = ErrorBody),
        (status = 429, description = "rate_limited: more than 10 codes this minute for this session (`Retry-After`)", body = ErrorBody)))]
pub async fn handover(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    session: Session,
) -> Result<Json<Envelope<HandoverCode>>, ApiError> {
    if session.source != TokenSource::Header {
        return Err(SignInError::HandoverNotAllowed.into());
    }
    let code = SignInService::of(&state.services)
        .issue_handover(&session.token, &client.to_string())
        .await?;
    Ok(Envelope::ok(HandoverCode {
        code,
        expires_in_seconds: HANDOVER_TTL_MS / 1000,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ExchangeRequest {
    /// The `code` of `POST /session/handover`, as the web app found it in its URL (`handover`).
    #[schema(value_type = String, required = true)]
    pub code: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    pub borrower: BorrowerView,
    /// False when the browser was already signed in as this borrower and kept its session.
    pub opened: bool,
}

/// The web app exchanges a hand-over code for a browser session of its own (the `kilat_session` cookie; the token is
/// never in the answer). A browser already signed in as the same borrower keeps its session; one signed in as another
/// borrower is refused (`409 signed_in_as_another`) and keeps its own. The code is used up by the first exchange,
/// whatever its outcome.
#[utoipa::path(post, path = "/api/v1/borrower/session/exchange", tag = "borrower",
    request_body(content((ExchangeRequest = "application/json"), (ExchangeRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "Signed in; sets the kilat_session cookie when `opened`", body = Envelope<Exchange>),
        (status = 400, description = "handover_invalid: unknown, used, expired, from another address than it was issued to, or its session ended", body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 409, description = "signed_in_as_another", body = ErrorBody),
        (status = 422, description = "validation_failed: `code`", body = ErrorBody)))]
pub async fn exchange_handover(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    headers: HeaderMap,
    JsonOrForm(req): JsonOrForm<ExchangeRequest>,
) -> Result<Response, ApiError> {
    let Some(code) = req.code.as_deref().map(str::trim).filter(|c| !c.is_empty()) else {
        return Err(Error::field("code", FieldProblem::required()).into());
    };
    if code.len() > 128 {
        return Err(Error::field("code", FieldProblem::too_long(128)).into());
    }
    // Only the browser's own session counts here: the cookie.
    let browser_token = cookie(&headers, SESSION_COOKIE);
    match SignInService::of(&state.services)
        .exchange_handover(code, browser_token, &client.to_string())
        .await?
    {
        Exchanged::Opened {
            borrower,
            token,
            lifetime_ms,
        } => {
            let cookie = session_cookie(&token, lifetime_ms / 1000, state.secure_cookies);
            let body = Envelope::ok(Exchange {
                borrower: BorrowerView::of(&borrower, None),
                opened: true,
            });
            Ok(([(header::SET_COOKIE, cookie)], body).into_response())
        }
        Exchanged::AlreadySignedIn { borrower } => Ok(Envelope::ok(Exchange {
            borrower: BorrowerView::of(&borrower, None),
            opened: false,
        })
        .into_response()),
    }
}

/// A signed-in borrower and the token that proved it. Rejects with 401 in the envelope.
///
/// When this request extends a session carried by the cookie, the cookie is re-issued with the session's new lifetime
/// (through `reissue_session_cookie`), so the browser keeps it exactly as long as the server would accept it.
pub struct Session {
    pub borrower: Borrower,
    pub token: String,
    source: TokenSource,
}

impl FromRequestParts<AppState> for Session {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = SessionToken::from_request_parts(parts, state).await?;
        match SignInService::of(&state.services)
            .borrower_for_token(&token.token)
            .await
        {
            Ok(Some(live)) => {
                token.extended(state, live.extended_for_ms);
                Ok(Self {
                    borrower: live.borrower,
                    token: token.token,
                    source: token.source,
                })
            }
            Ok(None) => {
                // Why, so that the app can say it on the login screen (expired, logged out, account deleted).
                let why = SignInService::of(&state.services)
                    .why_signed_out(&token.token)
                    .await?;
                Err(ApiError::SignedOut(why))
            }
            Err(err) => Err(ApiError::from(err)),
        }
    }
}

/// The session token a request carries, not yet checked: for a handler that checks it in the same statement as its
/// own read (the order list). Rejects with 401 when there is none; the handler answers 401 when it names no live
/// session, and calls [`SessionToken::extended`] when it does.
pub struct SessionToken {
    pub token: String,
    source: TokenSource,
    refresh: Option<CookieRefresh>,
}

impl SessionToken {
    /// The session was found live and this use extended it for `lifetime_ms` (`None`: not extended): a cookie that
    /// carried it is re-issued with that lifetime.
    pub fn extended(&self, state: &AppState, lifetime_ms: Option<i64>) {
        if let (Some(lifetime_ms), TokenSource::Cookie, Some(slot)) =
            (lifetime_ms, self.source, &self.refresh)
        {
            slot.set(session_cookie(
                &self.token,
                lifetime_ms / 1000,
                state.secure_cookies,
            ));
        }
    }
}

impl FromRequestParts<AppState> for SessionToken {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        _state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let (token, source) = session_token(&parts.headers).ok_or(ApiError::Unauthorized)?;
        let refresh = match source {
            TokenSource::Cookie => parts.extensions.get::<CookieRefresh>().cloned(),
            TokenSource::Header => None,
        };
        Ok(Self {
            token,
            source,
            refresh,
        })
    }
}

/// Where the session token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenSource {
    /// `X-Session-Id`: the native shell keeps the token itself.
    Header,
    Cookie,
}

/// The cookie when the request has one (a browser), else `X-Session-Id` (the native shell's own HTTP client).
///
/// Never the header over the cookie: a header can come from a page's URL (the web app once forwarded `?sessionId=`),
/// and a link must not sign a browser that has a session of its own into another account (security report N2).
fn session_token(headers: &HeaderMap) -> Option<(String, TokenSource)> {
    let from_cookie = cookie(headers, SESSION_COOKIE).map(|v| (v, TokenSource::Cookie));
    let from_header = || {
        headers
            .get("x-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| (v, TokenSource::Header))
    };
    from_cookie
        .or_else(from_header)
        .map(|(token, source)| (token.to_owned(), source))
}

/// True when the request carries the borrower session cookie (it then decides the session, not `X-Session-Id`).
pub fn has_session_cookie(headers: &HeaderMap) -> bool {
    cookie(headers, SESSION_COOKIE).is_some()
}

/// Where the `Session` extractor leaves a re-issued session cookie for `reissue_session_cookie` to send.
#[derive(Clone, Default)]
pub struct CookieRefresh(Arc<Mutex<Option<HeaderValue>>>);

impl CookieRefresh {
    fn set(&self, cookie: HeaderValue) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(cookie);
    }

    fn take(&self) -> Option<HeaderValue> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// Middleware: sends the session cookie the `Session` extractor re-issued, unless the handler set the cookie itself
/// (logout clears it).
pub async fn reissue_session_cookie(mut req: Request, next: Next) -> Response {
    // Only a request that brings a cookie can have one to renew (the native shell and the bench send none).
    if !req.headers().contains_key(header::COOKIE) {
        return next.run(req).await;
    }
    let slot = CookieRefresh::default();
    req.extensions_mut().insert(slot.clone());
    let mut response = next.run(req).await;
    if let Some(cookie) = slot.take() {
        let prefix = format!("{SESSION_COOKIE}=");
        let handler_set_it = response
            .headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .any(|v| v.as_bytes().starts_with(prefix.as_bytes()));
        if !handler_set_it {
            response.headers_mut().append(header::SET_COOKIE, cookie);
        }
    }
    response
}

pub(crate) fn session_cookie(token: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{SESSION_COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age_secs}{secure}"
    ))
    .expect("a base64url token is a valid header value")
}

/// The `market` field as a market, or the field error.
pub(crate) fn require_market(code: Option<&str>) -> Result<Market, FieldErrors> {
    let mut errors = FieldErrors::default();
    match code.map(str::trim).filter(|c| !c.is_empty()) {
        None => errors.add("market", FieldProblem::required()),
        Some(code) => match sign_in::parse_market(code) {
            Some(market) => return Ok(market),
            None => errors.add("market", FieldProblem::unknown_market()),
        },
    }
    Err(errors)
}

fn parse_phone(market: Option<&str>, phone: Option<&str>) -> Result<Phone, FieldErrors> {
    let market = require_market(market);
    let mut errors = FieldErrors::default();
    let phone = phone.map(str::trim).filter(|p| !p.is_empty());
    if phone.is_none() {
        errors.add("phone", FieldProblem::required());
    }
    let market = market.map_err(|e| {
        errors.merge(e);
    });
    match (market, phone) {
        (Ok(market), Some(phone)) => Phone::parse(market, phone).map_err(|_: PhoneError| {
            errors.add("phone", FieldProblem::invalid_phone());
            errors
        }),
        _ => Err(errors),
    }
}
