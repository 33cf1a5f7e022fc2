//! Console sign-in: login with username and password (the session cookie and the CSRF token), logout, the signed-in
//! operator, and the `OperatorSession` extractor every other console handler takes.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::{HeaderValue, header, request::Parts};
use axum::response::{IntoResponse, Response};
use kilat_domain::Market;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::auth::operators::{self, Operator, Role, SESSION_MS};
use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ClientAddr, JsonOrForm, cookie};

/// The console's session cookie: HttpOnly, `SameSite=Strict`, sent only to `/api/v1/console`.
pub const CONSOLE_COOKIE: &str = "kilat_console";
/// The header every unsafe console request carries: the `csrfToken` of `POST /console/login`.
pub const CSRF_HEADER: &str = "x-csrf-token";

#[derive(Debug, Deserialize, ToSchema)]
pub struct ConsoleLoginRequest {
    #[schema(value_type = String, required = true, example = "admin")]
    pub username: Option<String>,
    #[schema(value_type = String, required = true, format = Password)]
    pub password: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleLoggedIn {
    /// Send it back as `X-CSRF-Token` on every POST of this session (it is not readable from the cookie).
    pub csrf_token: String,
    pub operator: OperatorView,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperatorView {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
    /// The markets whose records the operator sees (at least one): every console list, count, export and action is
    /// limited to them.
    pub markets: Vec<Market>,
    /// True while the operator signs in with a password an admin set: every endpoint but `me`, `logout` and
    /// `password` answers 403 `password_change_required` until they choose their own.
    pub password_change_required: bool,
}

impl From<&Operator> for OperatorView {
    fn from(op: &Operator) -> Self {
        Self {
            id: op.id.clone(),
            username: op.username.clone(),
            roles: op.roles.clone(),
            markets: op.markets.clone(),
            password_change_required: op.password_change_required,
        }
    }
}

/// Signs an operator in. Password checks are counted per operator and address (5 in 15 minutes) and, from addresses
/// the operator never signed in from, per operator (`[limits] password_checks_per_account`): beyond either,
/// `operator_locked` with `Retry-After`, so a stranger's guesses never refuse the operator at an address they use. An
/// unknown username is answered like a wrong password. One address may try `[limits] console_sign_ins_per_address`
/// (20) times in 10 minutes (`rate_limited`).
#[utoipa::path(post, path = "/api/v1/console/login", tag = "console", operation_id = "console_login",
    request_body(content((ConsoleLoginRequest = "application/json"), (ConsoleLoginRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "Signed in; sets the kilat_console cookie", body = Envelope<ConsoleLoggedIn>),
        (status = 401, description = "credentials_invalid", body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, body = ErrorBody),
        (status = 429, description = "operator_locked: this operator's password checks from this address (5 in 15 minutes), or from new addresses, are used up; or rate_limited: 20 attempts from one address in 10 minutes (`Retry-After`)", body = ErrorBody),
        (status = 503, description = "server_busy: as many passwords are being checked as the server allows at once; nothing was checked (`Retry-After`)", body = ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    JsonOrForm(req): JsonOrForm<ConsoleLoginRequest>,
) -> Result<Response, ApiError> {
    let username = req.username.as_deref().map(str::trim).unwrap_or_default();
    let password = req.password.as_deref().unwrap_or_default();
    let mut errors = FieldErrors::default();
    if username.is_empty() {
        errors.add("username", FieldProblem::required());
    }
    if password.is_empty() {
        errors.add("password", FieldProblem::required());
    }
    errors.into_result()?;
    let signed_in =
        operators::sign_in(&state.services, username, password, &client.to_string()).await?;
    let cookie = console_cookie(&signed_in.token, SESSION_MS / 1000, state.secure_cookies);
    let body = Envelope::ok(ConsoleLoggedIn {
        csrf_token: signed_in.csrf_token,
        operator: (&signed_in.operator).into(),
    });
    Ok(([(header::SET_COOKIE, cookie)], body).into_response())
}

/// Ends the session and clears the cookie.
#[utoipa::path(post, path = "/api/v1/console/logout", tag = "console", operation_id = "console_logout",
    security(("console_cookie" = [], "csrf_header" = [])),
    responses((status = 200, body = Envelope<Option<bool>>), (status = 401, body = ErrorBody),
        (status = 403, description = "csrf_token_invalid or cross_site_request", body = ErrorBody)))]
pub async fn logout(
    State(state): State<AppState>,
    SessionOfAnyPassword(session): SessionOfAnyPassword,
) -> Result<Response, ApiError> {
    operators::sign_out(&state.services, &session.token).await?;
    let cookie = console_cookie("", 0, state.secure_cookies);
    Ok(([(header::SET_COOKIE, cookie)], Envelope::ok(None::<bool>)).into_response())
}

/// The signed-in operator, their roles and markets, and whether they must choose their own password first.
#[utoipa::path(get, path = "/api/v1/console/me", tag = "console", operation_id = "console_me",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<OperatorView>), (status = 401, body = ErrorBody)))]
pub async fn me(
    SessionOfAnyPassword(session): SessionOfAnyPassword,
) -> Json<Envelope<OperatorView>> {
    Envelope::ok((&session.operator).into())
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OwnPasswordRequest {
    /// The password the operator signed in with.
    #[schema(value_type = String, required = true, format = Password)]
    pub current_password: Option<String>,
    /// The new password: at least 12 characters, other than the current one.
    #[schema(value_type = String, required = true, format = Password)]
    pub password: Option<String>,
}

/// The signed-in operator chooses their own password (any operator; the one way on for an operator whose password an
/// admin set, which every other endpoint refuses with 403 `password_change_required`). The current password is
/// checked like a sign-in (counted per operator and address: `operator_locked`); every other session of the operator
/// ends; this one stays. Audited (`operator.password_change`), never the password.
#[utoipa::path(post, path = "/api/v1/console/password", tag = "console", operation_id = "console_change_own_password",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((OwnPasswordRequest = "application/json"), (OwnPasswordRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "Changed; `passwordChangeRequired` is false", body = Envelope<OperatorView>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `currentPassword` (missing, wrong), `password` (too short, too long, unchanged)", body = ErrorBody),
        (status = 429, description = "operator_locked: this operator's password checks from this address are used up (`Retry-After`)", body = ErrorBody),
        (status = 503, description = "server_busy (`Retry-After`)", body = ErrorBody)))]
pub async fn change_password(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    SessionOfAnyPassword(session): SessionOfAnyPassword,
    JsonOrForm(req): JsonOrForm<OwnPasswordRequest>,
) -> Result<Json<Envelope<OperatorView>>, ApiError> {
    let changed = operators::change_own_password(
        &state.services,
        &session.operator,
        &session.token,
        req.current_password.as_deref().unwrap_or_default(),
        req.password.as_deref().unwrap_or_default(),
        &client.to_string(),
    )
    .await?;
    Ok(Envelope::ok((&changed).into()))
}

/// A signed-in operator, from the `kilat_console` cookie. Rejects with 401 `unauthorized` without a live session, and
/// an unsafe request (POST…) whose `X-CSRF-Token` is not the session's with 403 `csrf_token_invalid`. Roles are
/// checked by the capability each handler calls.
pub struct OperatorSession {
    pub operator: Operator,
    pub token: String,
}

impl FromRequestParts<AppState> for OperatorSession {
    type Rejection = ApiError;

    /// A live session whose password is the operator's own: one an admin set answers 403 `password_change_required`
    /// (after the 401 and CSRF checks) until the operator chooses theirs ([`SessionOfAnyPassword`] is for `me`,
    /// `logout` and `password`).
    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let SessionOfAnyPassword(session) =
            SessionOfAnyPassword::from_request_parts(parts, state).await?;
        if session.operator.password_change_required {
            return Err(
                crate::error::Error::from(crate::error::Refusal::PasswordChangeRequired).into(),
            );
        }
        Ok(session)
    }
}

/// A signed-in operator whatever their password: the extractor of `me`, `logout` and `password` only, the endpoints
/// an operator with a password an admin set may use.
pub struct SessionOfAnyPassword(pub OperatorSession);

impl FromRequestParts<AppState> for SessionOfAnyPassword {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let token = cookie(&parts.headers, CONSOLE_COOKIE)
            .map(str::to_owned)
            .ok_or(ApiError::Unauthorized)?;
        let operator = operators::for_token(&state.services, &token)
            .await?
            .ok_or(ApiError::Unauthorized)?;
        if !parts.method.is_safe() {
            let given = parts
                .headers
                .get(CSRF_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .unwrap_or_default();
            if given.is_empty() || !operator.csrf_matches(given) {
                return Err(ApiError::CsrfTokenInvalid);
            }
        }
        Ok(Self(OperatorSession { operator, token }))
    }
}

fn console_cookie(token: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{CONSOLE_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/api/v1/console; Max-Age={max_age_secs}{secure}"
    ))
    .expect("a base64url token is a valid header value")
}
