//! Home, recommendations, applying, confirming, and the borrower's orders with their agreement
//! (docs/API-BORROWER.md). Every read is scoped to the signed-in borrower.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kilat_domain::{Currency, KeyFactStatement, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::{Session, SessionToken};
use super::loans::{ProductList, ProductView, QuoteRequest, view};
use crate::applications::{self, Confirmation, Confirmed, LoanRequest, Reason, Standing};
use crate::auth::Borrower;
use crate::catalog::Catalog;
use crate::certification::Step;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::i18n::Lang;
use crate::orders::{self, agreement::Agreement};
use crate::services::Services;
use crate::store::orders::{OrderListRow, OrderRow};

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificationProgress {
    pub complete: bool,
    /// The first step not done yet; null when all are done.
    #[schema(required = true)]
    pub next: Option<Step>,
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenOrderView {
    pub order_no: String,
    pub status: OrderState,
    /// Minor units.
    pub amount: i64,
    /// Epoch milliseconds.
    pub created_at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HomeView {
    pub market: Market,
    pub phone_masked: String,
    pub lender_name: String,
    pub certification: CertificationProgress,
    /// The order in progress; null when there is none.
    #[schema(required = true)]
    pub open_order: Option<OpenOrderView>,
    /// True when the borrower may apply now.
    pub eligible: bool,
    pub reasons: Vec<Reason>,
    #[schema(value_type = Vec<ProductView>)]
    pub products: ProductList,
}

fn products_of(
    s: &Services,
    catalog: &Catalog,
    borrower: &Borrower,
) -> Result<Vec<ProductView>, ApiError> {
    catalog
        .for_market(borrower.market)
        .iter()
        .map(|p| view(s, catalog, p))
        .collect()
}

/// The borrower's home: certification progress, the open order, whether they may apply, and the products.
#[utoipa::path(get, path = "/api/v1/borrower/home", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<HomeView>), (status = 401, body = ErrorBody)))]
pub async fn home(
    State(state): State<AppState>,
    token: SessionToken,
) -> Result<Json<Envelope<HomeView>>, ApiError> {
    let s = &state.services;
    let (session, standing) = Standing::of_token(s, &token.token)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    token.extended(&state, session.extended_for_ms);
    let market = session.market;
    let products = state.products_json.of(s, &state.catalog, market)?;
    let progress = &standing.progress;
    Ok(Envelope::ok(HomeView {
        market,
        phone_masked: session.phone_masked,
        lender_name: s.site.company(market).lender_name.clone(),
        certification: CertificationProgress {
            complete: progress.is_complete(),
            next: progress.next(),
            done: progress.done(),
            total: Step::ALL.len(),
        },
        eligible: standing.eligible(),
        open_order: standing.open_order.map(|o| OpenOrderView {
            order_no: o.order_no,
            status: o.status,
            amount: o.amount,
            created_at: o.created_at,
        }),
        reasons: standing.reasons,
        products,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecommendedView {
    pub eligible: bool,
    pub reasons: Vec<Reason>,
    /// Cheapest sample APR first; empty when not eligible.
    pub products: Vec<ProductView>,
}

/// The products the borrower may apply for now, cheapest first.
#[utoipa::path(get, path = "/api/v1/borrower/products/recommended", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<RecommendedView>), (status = 401, body = ErrorBody)))]
pub async fn recommended(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<RecommendedView>>, ApiError> {
    let s = &state.services;
    let standing = Standing::of(s, &session.borrower).await?;
    let eligible = standing.eligible();
    let mut products = if eligible {
        products_of(s, &state.catalog, &session.borrower)?
    } else {
        Vec::new()
    };
    products.sort_by_key(|p| (p.sample.apr, p.amount.min));
    Ok(Envelope::ok(RecommendedView {
        eligible,
        reasons: standing.reasons,
        products,
    }))
}

/// The KFS of the loan chosen, after checking the borrower may apply now. Nothing is stored.
#[utoipa::path(post, path = "/api/v1/borrower/apply", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((QuoteRequest = "application/json"), (QuoteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "The KFS (docs/MONEY.md §8)", body = Envelope<KeyFactStatement>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "not_eligible", body = ErrorBody),
        (status = 409, description = "certification_incomplete or open_order_exists", body = ErrorBody),
        (status = 422, description = "validation_failed or cap_exceeded", body = ErrorBody)))]
pub async fn apply(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<QuoteRequest>,
) -> Result<Json<Envelope<KeyFactStatement>>, ApiError> {
    let kfs = applications::apply(
        &state.services,
        &state.catalog,
        &session.borrower,
        &req.loan(),
    )
    .await?;
    Ok(Envelope::ok(kfs))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    #[schema(value_type = String, required = true, example = "in-flexi-6m")]
    pub product_code: Option<String>,
    /// Minor units.
    #[schema(value_type = i64, required = true, example = 2_000_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub amount: Option<i64>,
    #[schema(value_type = String, required = true, example = "m6")]
    pub term_code: Option<String>,
    /// The `contentHash` of the KFS the borrower read and accepted.
    #[schema(value_type = String, required = true)]
    pub kfs_hash: Option<String>,
    /// The `agreementHash` of the agreement the borrower read (`POST /apply/agreement`); another than the one the
    /// server would freeze now (the borrower's particulars changed since) is a 422 on `agreementHash`: read it again.
    #[schema(value_type = String, required = true)]
    pub agreement_hash: Option<String>,
    /// 8 to 64 characters `[A-Za-z0-9_-]`, made once per application by the client; or the `Idempotency-Key` header.
    #[schema(nullable = false)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderSummary {
    pub order_no: String,
    pub status: OrderState,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    /// Of every amount, each in its minor unit.
    pub currency: Currency,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    /// Hundredths of a percent.
    pub apr: i64,
    pub apr_display: String,
    /// Epoch milliseconds.
    pub created_at: i64,
}

impl From<&OrderRow> for OrderSummary {
    fn from(o: &OrderRow) -> Self {
        Self {
            order_no: o.order_no.clone(),
            status: o.status,
            product_code: o.product_code.clone(),
            product_name: o.product_name.clone(),
            term_code: o.term_code.clone(),
            currency: o.currency,
            amount: o.amount,
            net_disbursed: o.net_disbursed,
            total_repayable: o.total_repayable,
            apr: o.apr,
            apr_display: o.apr_display.clone(),
            created_at: o.created_at,
        }
    }
}

impl From<OrderListRow> for OrderSummary {
    fn from(o: OrderListRow) -> Self {
        Self {
            order_no: o.order_no,
            status: o.status,
            product_code: o.product_code,
            product_name: o.product_name,
            term_code: o.term_code,
            currency: o.currency,
            amount: o.amount,
            net_disbursed: o.net_disbursed,
            total_repayable: o.total_repayable,
            apr: o.apr,
            apr_display: o.apr_display,
            created_at: o.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TimelineEntry {
    pub status: OrderState,
    /// Epoch milliseconds.
    pub at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    #[serde(flatten)]
    pub summary: OrderSummary,
    /// The KFS the borrower accepted (docs/MONEY.md §8), as it was sealed.
    pub kfs: KeyFactStatement,
    /// Epoch milliseconds: when the borrower confirmed.
    pub accepted_at: i64,
    /// Why the application was declined, as the reviewer wrote it; null unless the order is rejected.
    #[schema(required = true)]
    pub rejection_reason: Option<String>,
    /// Why the lender withdrew the approved order without paying it out (the bank refused the account), as finance
    /// wrote it; null unless the lender withdrew it (a cancelled order the borrower withdrew has none).
    #[schema(required = true)]
    pub withdrawal_reason: Option<String>,
    pub timeline: Vec<TimelineEntry>,
}

impl From<orders::OrderDetail> for OrderDetail {
    fn from(d: orders::OrderDetail) -> Self {
        Self {
            summary: (&d.order).into(),
            kfs: d.kfs,
            accepted_at: d.order.created_at,
            rejection_reason: (d.order.status == OrderState::Rejected)
                .then(|| d.order.review_reason.clone())
                .flatten(),
            withdrawal_reason: (d.order.status == OrderState::Cancelled)
                .then(|| d.order.withdrawal_reason.clone())
                .flatten(),
            timeline: d
                .timeline
                .into_iter()
                .map(|e| TimelineEntry {
                    status: e.status,
                    at: e.at,
                })
                .collect(),
        }
    }
}

/// Confirms an application with the KFS accepted: creates the order in `pending_review`, storing that KFS.
/// Idempotent on the client's key.
#[utoipa::path(post, path = "/api/v1/borrower/orders", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((ConfirmRequest = "application/json"), (ConfirmRequest = "application/x-www-form-urlencoded"))),
    params(("Idempotency-Key" = Option<String>, Header, description = "Instead of `idempotencyKey` in the body")),
    responses((status = 201, description = "Created", body = Envelope<OrderDetail>),
        (status = 200, description = "The order this key already made", body = Envelope<OrderDetail>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "not_eligible", body = ErrorBody),
        (status = 409, description = "certification_incomplete, open_order_exists, kfs_changed or idempotency_key_reused", body = ErrorBody),
        (status = 422, description = "validation_failed (e.g. `agreementHash`: the agreement changed since it was read) or cap_exceeded", body = ErrorBody)))]
pub async fn confirm(
    State(state): State<AppState>,
    session: Session,
    headers: HeaderMap,
    JsonOrForm(req): JsonOrForm<ConfirmRequest>,
) -> Result<Response, ApiError> {
    let s = &state.services;
    let header_key = headers.get("idempotency-key").and_then(|v| v.to_str().ok());
    let body_key = req
        .idempotency_key
        .as_deref()
        .filter(|k| !k.trim().is_empty());
    let confirmation = Confirmation {
        loan: LoanRequest {
            product_code: req.product_code.as_deref(),
            amount: req.amount,
            term_code: req.term_code.as_deref(),
        },
        kfs_hash: req.kfs_hash.as_deref(),
        agreement_hash: req.agreement_hash.as_deref(),
        idempotency_key: body_key.or(header_key),
    };
    let (status, order) =
        match applications::confirm(s, &state.catalog, &session.borrower, &confirmation).await? {
            Confirmed::Created(order) => (StatusCode::CREATED, order),
            Confirmed::Replayed(order) => (StatusCode::OK, order),
        };
    let detail = OrderDetail::from(orders::detail_of(s, order).await?);
    Ok((status, Envelope::ok(detail)).into_response())
}

/// The borrower's orders, newest first.
#[utoipa::path(get, path = "/api/v1/borrower/orders", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "list_orders",
    responses((status = 200, body = Envelope<Vec<OrderSummary>>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    token: SessionToken,
) -> Result<Json<Envelope<Vec<OrderSummary>>>, ApiError> {
    let listed = orders::list_for_token(&state.services, &token.token)
        .await?
        .ok_or(ApiError::Unauthorized)?;
    token.extended(&state, listed.extended_for_ms);
    Ok(Envelope::ok(
        listed.orders.into_iter().map(OrderSummary::from).collect(),
    ))
}

/// One order of the borrower with its accepted KFS and timeline; another borrower's order is 404.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "order_detail",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<OrderDetail>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<OrderDetail>>, ApiError> {
    let detail = orders::detail(&state.services, &session.borrower, &order_no).await?;
    Ok(Envelope::ok(detail.into()))
}

/// The loan agreement of an order, rendered from its accepted KFS and the borrower's certification.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/agreement", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "order_agreement",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<Agreement>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn agreement(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<Agreement>>, ApiError> {
    let agreement =
        orders::agreement::of_order(&state.services, &session.borrower, &order_no, lang).await?;
    Ok(Envelope::ok(agreement))
}

/// The borrower withdraws an application still pending review, or approved but not yet paid out; answers the order,
/// now `cancelled`. Any other state → `409 invalid_transition`; another borrower's order → 404.
#[utoipa::path(post, path = "/api/v1/borrower/orders/{orderNo}/cancel", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "cancel_order",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, description = "Cancelled", body = Envelope<OrderDetail>), (status = 401, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: paid out, already ended, or cancelled", body = ErrorBody)))]
pub async fn cancel(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<OrderDetail>>, ApiError> {
    let detail = orders::cancel(&state.services, &session.borrower, &order_no).await?;
    Ok(Envelope::ok(detail.into()))
}

/// The loan agreement the borrower is about to accept with the KFS of `POST /apply` (same body, same checks and
/// refusals), rendered in the request's language from that KFS and the borrower's certification. Nothing is stored:
/// at confirm the agreement is rendered again and frozen with the order.
#[utoipa::path(post, path = "/api/v1/borrower/apply/agreement", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "apply_agreement",
    request_body(content((QuoteRequest = "application/json"), (QuoteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "The agreement, without an order number", body = Envelope<Agreement>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "not_eligible", body = ErrorBody),
        (status = 409, description = "certification_incomplete or open_order_exists", body = ErrorBody),
        (status = 422, description = "validation_failed or cap_exceeded", body = ErrorBody)))]
pub async fn apply_agreement(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    JsonOrForm(req): JsonOrForm<QuoteRequest>,
) -> Result<Json<Envelope<Agreement>>, ApiError> {
    let s = &state.services;
    let kfs = applications::apply(s, &state.catalog, &session.borrower, &req.loan()).await?;
    let agreement = orders::agreement::preview(s, &session.borrower, &kfs, lang).await?;
    Ok(Envelope::ok(agreement))
}
