//! Products and quotes for the signed-in borrower: what they may apply for, and the Key Fact Statement of a loan
//! before anything is stored (issue 3).

use std::sync::{Arc, PoisonError, RwLock};

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Currency, Interest, KeyFactStatement, Market, Product};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use time::Date;
use utoipa::ToSchema;

use super::auth::Session;
use crate::applications::{self, LoanRequest};
use crate::catalog::Catalog;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::services::Services;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductView {
    pub code: String,
    pub name: String,
    /// Every amount is in its minor unit.
    pub currency: Currency,
    pub amount: AmountRangeView,
    pub terms: Vec<TermView>,
    /// E.g. `{"rate": "0.1%", "per": "day", "method": "flat"}`.
    pub interest: Interest,
    pub fees_deducted_at_disbursal: bool,
    pub cooling_off_days: u32,
    /// The cost of the smallest loan on the first term, so a borrower can compare products at a glance.
    pub sample: SampleCost,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AmountRangeView {
    pub min: i64,
    pub max: i64,
    pub step: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TermView {
    pub code: String,
    /// `monthly` or a number of days such as `14d`.
    #[schema(pattern = "^(monthly|[1-9][0-9]*d)$", example = "14d")]
    pub period: String,
    pub installments: u32,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SampleCost {
    pub amount: i64,
    pub term_code: String,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    /// Hundredths of a percent: 1707 is 17.07%.
    pub apr: i64,
    pub apr_display: String,
}

pub(super) fn view(
    s: &Services,
    catalog: &Catalog,
    product: &Product,
) -> Result<ProductView, ApiError> {
    let kfs = catalog.sample(
        product,
        s.clock.today(product.market),
        &s.site.lender(product.market),
    )?;
    let sample = SampleCost {
        amount: kfs.sanctioned_amount.minor(),
        term_code: kfs.term_code.clone(),
        net_disbursed: kfs.net_disbursed.minor(),
        total_repayable: kfs.total_repayable.minor(),
        apr: kfs.apr.0,
        apr_display: kfs.apr_display.clone(),
    };
    Ok(ProductView {
        code: product.code.clone(),
        name: product.name.clone(),
        currency: product.market.currency(),
        amount: AmountRangeView {
            min: product.amount.min.minor(),
            max: product.amount.max.minor(),
            step: product.amount.step.minor(),
        },
        terms: product
            .terms
            .iter()
            .map(|t| TermView {
                code: t.code.clone(),
                period: t.period.into(),
                installments: t.installments,
            })
            .collect(),
        interest: product.interest,
        fees_deducted_at_disbursal: product.fees_deducted_at_disbursal,
        cooling_off_days: product.cooling_off_days,
        sample,
    })
}

/// The products of `market` that can be quoted today, each with its sample. One that cannot (a cap it passed on the
/// day it was saved, which today's calendar breaks: a monthly term over a shorter month) is left out and logged, for an
/// admin to correct, instead of failing the list: home, and the open loan it links to, stay up.
fn offered_views(s: &Services, catalog: &Catalog, market: Market) -> Vec<ProductView> {
    catalog
        .for_market(market)
        .iter()
        .filter_map(|p| match view(s, catalog, p) {
            Ok(v) => Some(v),
            Err(e) => {
                tracing::error!(product = %p.code, error = ?e, "a product cannot be quoted today: not listed");
                None
            }
        })
        .collect()
}

/// Each market's product list as home shows it (`Vec<ProductView>`), serialized once per business date and catalog
/// version: the products
/// and their sample prices (`Catalog::sample`) do not change within a day, so home does not rebuild and re-serialize
/// them on every request (issue 7).
#[derive(Default)]
pub struct ProductsJson {
    /// India, Indonesia: the date and catalog version the list was made for, and the list.
    slots: [RwLock<Option<(Date, i64, ProductList)>>; 2],
}

/// A product list serialized once (see [`ProductsJson`]); it serializes as the JSON array it holds.
#[derive(Debug, Clone)]
pub struct ProductList(Arc<RawValue>);

impl Serialize for ProductList {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (*self.0).serialize(serializer)
    }
}

impl ProductsJson {
    /// The products of `market` as of its business date today.
    pub fn of(
        &self,
        s: &Services,
        catalog: &Catalog,
        market: Market,
    ) -> Result<ProductList, ApiError> {
        let today = s.clock.today(market);
        let slot = &self.slots[match market {
            Market::India => 0,
            Market::Indonesia => 1,
        }];
        // Read before the products: a reload in between makes this list's version older, never newer, than its content.
        let version = catalog.version();
        if let Some((day, made_at, list)) = &*slot.read().unwrap_or_else(PoisonError::into_inner)
            && *day == today
            && *made_at == version
        {
            return Ok(list.clone());
        }
        let views = offered_views(s, catalog, market);
        let json = serde_json::value::to_raw_value(&views).map_err(anyhow::Error::from)?;
        let list = ProductList(Arc::from(json));
        *slot.write().unwrap_or_else(PoisonError::into_inner) =
            Some((today, version, list.clone()));
        Ok(list)
    }
}

/// The products of the borrower's market, smallest first.
#[utoipa::path(get, path = "/api/v1/borrower/products", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "list_products",
    responses((status = 200, body = Envelope<Vec<ProductView>>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<Vec<ProductView>>>, ApiError> {
    let products = offered_views(&state.services, &state.catalog, session.borrower.market);
    Ok(Envelope::ok(products))
}

/// One product of the borrower's market; another market's product is 404.
#[utoipa::path(get, path = "/api/v1/borrower/products/{code}", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "product_detail",
    params(("code" = String, Path, description = "The product code")),
    responses((status = 200, body = Envelope<ProductView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    session: Session,
    Path(code): Path<String>,
) -> Result<Json<Envelope<ProductView>>, ApiError> {
    let s = &state.services;
    let product = state
        .catalog
        .get(session.borrower.market, &code)
        .ok_or(ApiError::NotFound)?;
    Ok(Envelope::ok(view(s, &state.catalog, &product)?))
}

/// The loan a quote, an application or (with more fields) a confirm names.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteRequest {
    /// A product of the borrower's market; another is a 422 on `productCode`.
    #[schema(value_type = String, required = true, example = "in-flexi-6m")]
    pub product_code: Option<String>,
    /// Minor units (paise or sen); outside the product's range or off its step is a 422 on `amount`.
    #[schema(value_type = i64, required = true, example = 2_000_000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub amount: Option<i64>,
    /// One of the product's terms; another is a 422 on `termCode`.
    #[schema(value_type = String, required = true, example = "m6")]
    pub term_code: Option<String>,
}

/// The Key Fact Statement of a loan as it would be disbursed today: every installment with its date, each fee, the
/// net amount paid out, total repayable, the APR, late charges, cooling-off, the lender and grievance officer.
/// Nothing is stored.
#[utoipa::path(post, path = "/api/v1/borrower/quote", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((QuoteRequest = "application/json"), (QuoteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "The KFS (docs/MONEY.md §8)", body = Envelope<KeyFactStatement>),
        (status = 401, body = ErrorBody),
        (status = 422, description = "validation_failed (productCode, amount, termCode) or cap_exceeded", body = ErrorBody)))]
pub async fn quote(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<QuoteRequest>,
) -> Result<Json<Envelope<KeyFactStatement>>, ApiError> {
    let kfs = applications::quote(
        &state.services,
        &state.catalog,
        &session.borrower,
        &req.loan(),
    )?;
    Ok(Envelope::ok(kfs))
}

impl QuoteRequest {
    pub(super) fn loan(&self) -> LoanRequest<'_> {
        LoanRequest {
            product_code: self.product_code.as_deref(),
            amount: self.amount,
            term_code: self.term_code.as_deref(),
        }
    }
}
