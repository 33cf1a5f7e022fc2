//! The admins' operator screens (docs/API-CONSOLE.md): the list, create, roles, disable and enable, password reset.

use axum::Json;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::OperatorSession;
use crate::auth::operator_admin::{self, OperatorRecord};
use crate::auth::operators::Role;
use crate::error::FieldProblem;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use kilat_domain::Market;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperatorAccountView {
    pub id: String,
    pub username: String,
    pub roles: Vec<Role>,
    /// The markets whose records the operator sees: `IN`, `ID` or both.
    pub markets: Vec<Market>,
    /// True until the operator replaces the password an admin set (at creation or a reset) with their own.
    pub password_change_required: bool,
    /// False when disabled: cannot sign in, no live session.
    pub enabled: bool,
    /// True while locked out after wrong passwords.
    pub locked: bool,
    /// Epoch milliseconds.
    pub created_at: i64,
    /// When the operator last signed in (epoch milliseconds), from any address; null when never.
    #[schema(required = true)]
    pub last_sign_in_at: Option<i64>,
}

impl From<OperatorRecord> for OperatorAccountView {
    fn from(r: OperatorRecord) -> Self {
        Self {
            id: r.id,
            username: r.username,
            roles: r.roles,
            markets: r.markets,
            password_change_required: r.password_change_required,
            enabled: r.enabled,
            locked: r.locked,
            created_at: r.created_at,
            last_sign_in_at: r.last_sign_in_at,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateOperatorRequest {
    /// Letters, digits, `.`, `_`, `-`; lower-cased; unique.
    #[schema(value_type = String, required = true, example = "priya")]
    pub username: Option<String>,
    /// At least 12 characters.
    #[schema(value_type = String, required = true)]
    pub password: Option<String>,
    /// One or more of `admin`, `reviewer`, `finance`, `support`.
    #[schema(value_type = Vec<String>, required = true, example = json!(["reviewer"]))]
    pub roles: Option<Vec<String>>,
    /// One or both of `IN`, `ID`, each one of the admin's: the markets whose records the operator sees; the admin's
    /// own when left out (an empty list is refused: "Choose at least one market.").
    #[schema(value_type = Option<Vec<String>>, example = json!(["IN"]))]
    pub markets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct MarketsRequest {
    /// One or both of `IN`, `ID`: the operator's markets after the change.
    #[schema(value_type = Vec<String>, required = true, example = json!(["IN", "ID"]))]
    pub markets: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RolesRequest {
    /// One or more of `admin`, `reviewer`, `finance`, `support`: the operator's roles after the change.
    #[schema(value_type = Vec<String>, required = true, example = json!(["reviewer", "support"]))]
    pub roles: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct PasswordRequest {
    /// At least 12 characters.
    #[schema(value_type = String, required = true)]
    pub password: Option<String>,
}

/// The roles of a request; an unknown or missing one is a field error on `roles`.
fn roles_of(roles: Option<&[String]>) -> Result<Vec<Role>, ApiError> {
    let roles = roles.unwrap_or_default();
    let parsed: Option<Vec<Role>> = roles.iter().map(|r| Role::parse(r)).collect();
    match parsed {
        Some(list) if !list.is_empty() => Ok(list),
        Some(_) => Err(crate::error::Error::field(
            "roles",
            FieldProblem::new("field.roles_required"),
        )
        .into()),
        None => Err(crate::error::Error::field("roles", FieldProblem::new("field.role")).into()),
    }
}

/// The operators the admin manages, by username (admin): those whose markets are all the admin's.
#[utoipa::path(get, path = "/api/v1/console/operators", tag = "console", operation_id = "console_operators",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<OperatorAccountView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not admin", body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<OperatorAccountView>>>, ApiError> {
    let list = operator_admin::list(&state.services, &session.operator).await?;
    Ok(Envelope::ok(list.into_iter().map(Into::into).collect()))
}

/// Creates an operator with roles, markets (the admin's own when left out) and an initial password (admin); the
/// operator must choose their own password at their first sign-in.
#[utoipa::path(post, path = "/api/v1/console/operators", tag = "console", operation_id = "console_create_operator",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((CreateOperatorRequest = "application/json"))),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `username` (taken), `password`, `roles`, `markets` (none, unknown, not the admin's)", body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<CreateOperatorRequest>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let created = operator_admin::create(
        &state.services,
        &session.operator,
        req.username.as_deref().unwrap_or_default(),
        req.password.as_deref().unwrap_or_default(),
        req.roles.as_deref().unwrap_or_default(),
        req.markets.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(created.into()))
}

/// Replaces an operator's roles (admin). Dropping one's own admin role, or the last enabled admin's, is refused.
#[utoipa::path(put, path = "/api/v1/console/operators/{id}/roles", tag = "console",
    operation_id = "console_operator_roles", security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path, description = "The operator's id")),
    request_body(content((RolesRequest = "application/json"))),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such operator, or one with a market not the admin's", body = ErrorBody),
        (status = 409, description = "own_admin_account or last_admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `roles`", body = ErrorBody)))]
pub async fn roles(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<RolesRequest>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let roles = roles_of(req.roles.as_deref())?;
    let done = operator_admin::set_roles(&state.services, &session.operator, &id, &roles).await?;
    Ok(Envelope::ok(done.into()))
}

/// Replaces the markets an operator sees (admin): one or both of `IN`, `ID`, each one of the admin's; an admin's own
/// markets cannot be changed by themself. Audited (`operator.markets`).
#[utoipa::path(put, path = "/api/v1/console/operators/{id}/markets", tag = "console",
    operation_id = "console_operator_markets", security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path, description = "The operator's id")),
    request_body(content((MarketsRequest = "application/json"))),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such operator, or one with a market not the admin's", body = ErrorBody),
        (status = 409, description = "own_admin_account: the admin's own markets", body = ErrorBody),
        (status = 422, description = "validation_failed: `markets` (none, unknown, not the admin's)", body = ErrorBody)))]
pub async fn markets(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<MarketsRequest>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let done = operator_admin::set_markets(
        &state.services,
        &session.operator,
        &id,
        req.markets.as_deref().unwrap_or_default(),
    )
    .await?;
    Ok(Envelope::ok(done.into()))
}

/// Disables an operator and ends all their sessions at once (admin). Oneself and the last enabled admin cannot be
/// disabled.
#[utoipa::path(post, path = "/api/v1/console/operators/{id}/disable", tag = "console",
    operation_id = "console_disable_operator", security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path, description = "The operator's id")),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such operator, or one with a market not the admin's", body = ErrorBody),
        (status = 409, description = "own_admin_account or last_admin", body = ErrorBody)))]
pub async fn disable(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let done = operator_admin::disable(&state.services, &session.operator, &id).await?;
    Ok(Envelope::ok(done.into()))
}

/// Enables a disabled operator (admin).
#[utoipa::path(post, path = "/api/v1/console/operators/{id}/enable", tag = "console",
    operation_id = "console_enable_operator", security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path, description = "The operator's id")),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such operator, or one with a market not the admin's", body = ErrorBody)))]
pub async fn enable(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let done = operator_admin::enable(&state.services, &session.operator, &id).await?;
    Ok(Envelope::ok(done.into()))
}

/// Sets a new password and ends all the operator's sessions (admin); the operator must choose their own at their next
/// sign-in.
#[utoipa::path(post, path = "/api/v1/console/operators/{id}/password", tag = "console",
    operation_id = "console_reset_operator_password", security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path, description = "The operator's id")),
    request_body(content((PasswordRequest = "application/json"), (PasswordRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<OperatorAccountView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "not_found: no such operator, or one with a market not the admin's", body = ErrorBody),
        (status = 422, description = "validation_failed: `password`", body = ErrorBody)))]
pub async fn password(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<PasswordRequest>,
) -> Result<Json<Envelope<OperatorAccountView>>, ApiError> {
    let done = operator_admin::reset_password(
        &state.services,
        &session.operator,
        &id,
        req.password.as_deref().unwrap_or_default(),
    )
    .await?;
    Ok(Envelope::ok(done.into()))
}
