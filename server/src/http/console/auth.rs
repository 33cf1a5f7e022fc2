//! Console sign-in: login with username and password (the session cookie and the CSRF token), logout, the signed-in
//! operator, and the `OperatorSession` extractor every other console handler takes.

use axum::Json;
use axum::extract::{FromRequestParts, State};
use axum::http::{HeaderValue, header, request::Parts};
use axum::response::{IntoResponse, Response};
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
pub struct OperatorView {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
}

impl From<&Operator> for OperatorView {
    fn from(op: &Operator) -> Self {
        Self {
            id: op.id.clone(),
            username: op.username.clone(),
            roles: op.roles.clone(),
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
    session: OperatorSession,
) -> Result<Response, ApiError> {
    operators::sign_out(&state.services, &session.token).await?;
    let cookie = console_cookie("", 0, state.secure_cookies);
    Ok(([(header::SET_COOKIE, cookie)], Envelope::ok(None::<bool>)).into_response())
}

/// The signed-in operator and their roles.
#[utoipa::path(get, path = "/api/v1/console/me", tag = "console", operation_id = "console_me",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<OperatorView>), (status = 401, body = ErrorBody)))]
pub async fn me(session: OperatorSession) -> Json<Envelope<OperatorView>> {
    Envelope::ok((&session.operator).into())
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
        Ok(Self { operator, token })
    }
}

fn console_cookie(token: &str, max_age_secs: i64, secure: bool) -> HeaderValue {
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{CONSOLE_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/api/v1/console; Max-Age={max_age_secs}{secure}"
    ))
    .expect("a base64url token is a valid header value")
}
