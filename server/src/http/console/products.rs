//! The admins' product screens (docs/API-CONSOLE.md): every product with its version, status and sample price;
//! create, edit (a new version), disable and enable. The body of a create or edit is the product definition of
//! docs/MONEY.md §7 as JSON.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, Interest, KeyFactStatement, Market, Product};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::catalog::admin::{self, ProductRecord};
use crate::http::AppState;
use crate::http::borrower::loans::{AmountRangeView, TermView};
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::services::Services;

/// A product as admins see it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleProductView {
    pub code: String,
    pub name: String,
    pub market: Market,
    pub currency: Currency,
    /// The version on offer; an edit writes the next one, and orders keep the one they were made on.
    pub version: i64,
    /// False when disabled: not offered to new applications.
    pub enabled: bool,
    /// Epoch milliseconds.
    pub updated_at: i64,
    pub amount: AmountRangeView,
    pub terms: Vec<TermView>,
    pub interest: Interest,
    pub cooling_off_days: u32,
    /// The smallest loan on the first term, disbursed today; null when it cannot be quoted today.
    #[schema(required = true)]
    pub sample: Option<ConsoleSample>,
    /// The whole definition (docs/MONEY.md §7 as JSON): what an edit sends back, changed.
    #[schema(value_type = Object)]
    pub definition: Value,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleSample {
    pub term_code: String,
    /// Minor units.
    pub amount: i64,
    /// Hundredths of a percent.
    pub apr: i64,
    pub apr_display: String,
    /// Indonesia: interest plus fees a day as a share of the principal, e.g. `0.25%`; null in India.
    #[schema(required = true)]
    pub daily_cost: Option<String>,
    /// Indonesia: the OJK daily cap it is checked against, e.g. `0.3%`; null in India.
    #[schema(required = true)]
    pub daily_cap: Option<String>,
}

impl From<admin::Sample> for ConsoleSample {
    fn from(x: admin::Sample) -> ConsoleSample {
        let (daily_cost, daily_cap) = match x.daily_cost {
            Some((rate, cap)) => (Some(rate), Some(cap)),
            None => (None, None),
        };
        ConsoleSample {
            term_code: x.term_code,
            amount: x.amount,
            apr: x.apr,
            apr_display: x.apr_display,
            daily_cost,
            daily_cap,
        }
    }
}

fn view(s: &Services, record: ProductRecord) -> Result<ConsoleProductView, ApiError> {
    let p: &Product = &record.product;
    let sample = admin::sample(s, p).map(ConsoleSample::from);
    Ok(ConsoleProductView {
        code: p.code.clone(),
        name: p.name.clone(),
        market: p.market,
        currency: p.market.currency(),
        version: record.version,
        enabled: record.enabled,
        updated_at: record.updated_at,
        amount: AmountRangeView {
            min: p.amount.min.minor(),
            max: p.amount.max.minor(),
            step: p.amount.step.minor(),
        },
        terms: p
            .terms
            .iter()
            .map(|t| TermView {
                code: t.code.clone(),
                period: t.period.into(),
                installments: t.installments,
            })
            .collect(),
        interest: p.interest,
        cooling_off_days: p.cooling_off_days,
        sample,
        definition: serde_json::to_value(p).map_err(anyhow::Error::from)?,
    })
}

/// Every product, offered or not, India's first (admin).
#[utoipa::path(get, path = "/api/v1/console/products", tag = "console", operation_id = "console_products",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<ConsoleProductView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not admin", body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<ConsoleProductView>>>, ApiError> {
    let s = &state.services;
    let records = admin::list(s, &session.operator).await?;
    let views = records
        .into_iter()
        .map(|r| view(s, r))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Envelope::ok(views))
}

/// A definition to preview and the loan to quote on it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductPreviewRequest {
    /// The product definition (docs/MONEY.md §7) as JSON, as a create or an edit would send it; `code` may be empty.
    #[schema(value_type = Object)]
    pub definition: Value,
    /// Minor units; the product's smallest amount when left out. Outside its range or off its step is a 422 on `amount`.
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    #[schema(value_type = Option<i64>)]
    pub amount: Option<i64>,
    /// One of the definition's terms; its first when left out. Another is a 422 on `termCode`.
    pub term_code: Option<String>,
}

/// What a definition would offer today.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductPreviewView {
    /// The same loan as the list's `sample` (the smallest amount on the first term), so an edit's APR can be set
    /// beside the product's current one; null when it cannot be quoted.
    #[schema(required = true)]
    pub sample: Option<ConsoleSample>,
    /// The Key Fact Statement of the chosen loan disbursed today (docs/MONEY.md §8), as the borrower would read it.
    pub kfs: KeyFactStatement,
}

/// Quotes a definition without saving it (admin): checked as a save is (rules, then caps, each refusal a field
/// error naming the cap), with the KFS of a sample loan. Nothing is stored or audited.
#[utoipa::path(post, path = "/api/v1/console/products/preview", tag = "console",
    operation_id = "console_preview_product", security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content = ProductPreviewRequest, content_type = "application/json"),
    responses((status = 200, body = Envelope<ProductPreviewView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `product`, `amount`, `termCode`, `interest`, `lateCharge` or `extension` (a cap, named)", body = ErrorBody)))]
pub async fn preview(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<ProductPreviewRequest>,
) -> Result<Json<Envelope<ProductPreviewView>>, ApiError> {
    let s = &state.services;
    let loan = admin::PreviewLoan {
        amount: req.amount,
        term_code: req.term_code.as_deref(),
    };
    let preview = admin::preview(s, &state.catalog, &session.operator, &req.definition, loan)?;
    Ok(Envelope::ok(ProductPreviewView {
        sample: preview.sample.map(ConsoleSample::from),
        kfs: preview.kfs,
    }))
}

/// Creates a product (admin), checked against the rules and the caps; a cap it would break is named in the field
/// error (`interest` or `lateCharge`).
#[utoipa::path(post, path = "/api/v1/console/products", tag = "console", operation_id = "console_create_product",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content = Object, content_type = "application/json", description = "The product definition (docs/MONEY.md §7) as JSON"),
    responses((status = 200, body = Envelope<ConsoleProductView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `product`, `code` (taken), `amount`, `interest` or `lateCharge` (a cap, named)", body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(body): JsonOrForm<Value>,
) -> Result<Json<Envelope<ConsoleProductView>>, ApiError> {
    let s = &state.services;
    let record = admin::create(s, &state.catalog, &session.operator, &body).await?;
    Ok(Envelope::ok(view(s, record)?))
}

/// The version an edit replaces.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct EditQuery {
    /// The version the admin opened and edited (`version` of the product as listed): required; another admin's
    /// version saved since is `409 product_changed`.
    #[param(value_type = i64)]
    pub base_version: Option<String>,
}

/// Replaces a product's definition with a new version (admin): only new applications see it. Market and currency
/// cannot change.
#[utoipa::path(put, path = "/api/v1/console/products/{code}", tag = "console", operation_id = "console_edit_product",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("code" = String, Path, description = "The product code"), EditQuery),
    request_body(content = Object, content_type = "application/json", description = "The product definition (docs/MONEY.md §7) as JSON; `code` may be left out"),
    responses((status = 200, body = Envelope<ConsoleProductView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "product_changed: another admin saved a version since `baseVersion`", body = ErrorBody),
        (status = 422, description = "validation_failed: `baseVersion` (required), `product`, `market` or `code` (immutable), `amount`, `interest` or `lateCharge` (a cap, named)", body = ErrorBody)))]
pub async fn edit(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(code): Path<String>,
    ApiQuery(query): ApiQuery<EditQuery>,
    JsonOrForm(body): JsonOrForm<Value>,
) -> Result<Json<Envelope<ConsoleProductView>>, ApiError> {
    let s = &state.services;
    let base = query.base_version.as_deref();
    let record = admin::edit(s, &state.catalog, &session.operator, &code, base, &body).await?;
    Ok(Envelope::ok(view(s, record)?))
}

/// Stops offering a product to new applications (admin); orders already made keep it.
#[utoipa::path(post, path = "/api/v1/console/products/{code}/disable", tag = "console",
    operation_id = "console_disable_product", security(("console_cookie" = [], "csrf_header" = [])),
    params(("code" = String, Path, description = "The product code")),
    responses((status = 200, body = Envelope<ConsoleProductView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn disable(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(code): Path<String>,
) -> Result<Json<Envelope<ConsoleProductView>>, ApiError> {
    let s = &state.services;
    let record = admin::set_enabled(s, &state.catalog, &session.operator, &code, false).await?;
    Ok(Envelope::ok(view(s, record)?))
}

/// Offers a disabled product again (admin), if it passes today's caps.
#[utoipa::path(post, path = "/api/v1/console/products/{code}/enable", tag = "console",
    operation_id = "console_enable_product", security(("console_cookie" = [], "csrf_header" = [])),
    params(("code" = String, Path, description = "The product code")),
    responses((status = 200, body = Envelope<ConsoleProductView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "validation_failed: it breaks today's caps", body = ErrorBody)))]
pub async fn enable(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(code): Path<String>,
) -> Result<Json<Envelope<ConsoleProductView>>, ApiError> {
    let s = &state.services;
    let record = admin::set_enabled(s, &state.catalog, &session.operator, &code, true).await?;
    Ok(Envelope::ok(view(s, record)?))
}
