//! Products and quotes for the signed-in borrower: what they may apply for, and the Key Fact Statement of a loan
//! before anything is stored (issue 3).

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{KeyFactStatement, Money, Product, quote_with_caps};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::borrower::Session;
use super::error::{ApiError, Envelope, ErrorBody, FieldErrors, FieldProblem, LocalizedError};
use super::extract::JsonOrForm;
use super::lang::Lang;
use crate::display::format_money;
use crate::sign_in::Borrower;
use crate::startup::AppState;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProductView {
    pub code: String,
    pub name: String,
    /// `INR` or `IDR`; every amount is in its minor unit.
    pub currency: String,
    pub amount: AmountRangeView,
    pub terms: Vec<TermView>,
    /// E.g. `{"rate": "0.1%", "per": "day", "method": "flat"}`.
    #[schema(value_type = Object)]
    pub interest: serde_json::Value,
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

pub(super) fn view(state: &AppState, product: &Product) -> Result<ProductView, ApiError> {
    let term = product
        .terms
        .first()
        .ok_or_else(|| anyhow::anyhow!("product {} has no term", product.code))?;
    let kfs = key_fact_statement(state, product, product.amount.min, &term.code)?;
    let sample = SampleCost {
        amount: kfs.sanctioned_amount.minor(),
        term_code: term.code.clone(),
        net_disbursed: kfs.net_disbursed.minor(),
        total_repayable: kfs.total_repayable.minor(),
        apr: kfs.apr.0,
        apr_display: kfs.apr_display.clone(),
    };
    Ok(ProductView {
        code: product.code.clone(),
        name: product.name.clone(),
        currency: serde_json::to_value(product.market.currency())
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
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
        interest: serde_json::to_value(product.interest).map_err(anyhow::Error::from)?,
        fees_deducted_at_disbursal: product.fees_deducted_at_disbursal,
        cooling_off_days: product.cooling_off_days,
        sample,
    })
}

/// The products of the borrower's market, smallest first.
#[utoipa::path(get, path = "/api/v1/borrower/products", tag = "borrower", operation_id = "list_products",
    responses((status = 200, body = Envelope<Vec<ProductView>>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<Vec<ProductView>>>, LocalizedError> {
    let products = state
        .catalog
        .for_market(session.borrower.market)
        .map(|p| view(&state, p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.in_lang(lang))?;
    Ok(Envelope::ok(products))
}

/// One product of the borrower's market; another market's product is 404.
#[utoipa::path(get, path = "/api/v1/borrower/products/{code}", tag = "borrower", operation_id = "product_detail",
    params(("code" = String, Path, description = "The product code")),
    responses((status = 200, body = Envelope<ProductView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(code): Path<String>,
) -> Result<Json<Envelope<ProductView>>, LocalizedError> {
    let product = state
        .catalog
        .get(session.borrower.market, &code)
        .ok_or_else(|| ApiError::NotFound.in_lang(lang))?;
    Ok(Envelope::ok(
        view(&state, product).map_err(|e| e.in_lang(lang))?,
    ))
}

/// The loan a quote, an application or (with more fields) a confirm names.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuoteRequest {
    pub product_code: Option<String>,
    /// Minor units (paise or sen).
    pub amount: Option<i64>,
    pub term_code: Option<String>,
}

/// The Key Fact Statement of a loan as it would be disbursed today: every installment with its date, each fee, the
/// net amount paid out, total repayable, the APR, late charges, cooling-off, the lender and grievance officer.
/// Nothing is stored.
#[utoipa::path(post, path = "/api/v1/borrower/quote", tag = "borrower",
    request_body(content((QuoteRequest = "application/json"), (QuoteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "The KFS (docs/MONEY.md §8)", body = Envelope<Object>),
        (status = 401, body = ErrorBody),
        (status = 422, description = "validation_failed (productCode, amount, termCode) or cap_exceeded", body = ErrorBody)))]
pub async fn quote(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    JsonOrForm(req): JsonOrForm<QuoteRequest>,
) -> Result<Json<Envelope<KeyFactStatement>>, LocalizedError> {
    let mut errors = FieldErrors::default();
    let choice = loan_choice(
        &state,
        &session.borrower,
        req.product_code.as_deref(),
        req.amount,
        req.term_code.as_deref(),
        &mut errors,
    );
    let Some(choice) = choice.filter(|_| errors.is_empty()) else {
        return Err(ApiError::Validation(errors).in_lang(lang));
    };
    let kfs = key_fact_statement(
        &state,
        choice.product,
        Money::from_minor(choice.amount),
        &choice.term,
    )
    .map_err(|e| e.in_lang(lang))?;
    Ok(Envelope::ok(kfs))
}

/// A loan as a request names it: product, amount and term, the fields checked.
pub(super) struct LoanChoice<'a> {
    pub product: &'a Product,
    pub amount: i64,
    pub term: String,
}

/// Reads the three fields of a loan; each missing or unknown one is added to `errors`.
pub(super) fn loan_choice<'a>(
    state: &'a AppState,
    borrower: &Borrower,
    product_code: Option<&str>,
    amount: Option<i64>,
    term_code: Option<&str>,
    errors: &mut FieldErrors,
) -> Option<LoanChoice<'a>> {
    let code = product_code.map(str::trim).filter(|c| !c.is_empty());
    let term = term_code.map(str::trim).filter(|c| !c.is_empty());
    if code.is_none() {
        errors.add("productCode", FieldProblem::Required);
    }
    if amount.is_none() {
        errors.add("amount", FieldProblem::Required);
    }
    if term.is_none() {
        errors.add("termCode", FieldProblem::Required);
    }
    let product = state.catalog.get(borrower.market, code?);
    if product.is_none() {
        errors.add("productCode", FieldProblem::UnknownProduct);
    }
    Some(LoanChoice {
        product: product?,
        amount: amount?,
        term: term?.to_owned(),
    })
}

/// The sealed KFS of `amount` on `term`, disbursed today (UTC), with the lender of the settings.
pub(super) fn key_fact_statement(
    state: &AppState,
    product: &Product,
    amount: Money,
    term: &str,
) -> Result<KeyFactStatement, ApiError> {
    let today = product.market.local_date(time::OffsetDateTime::now_utc());
    let currency = product.market.currency();
    let quote =
        quote_with_caps(product, amount, term, today, state.catalog.caps()).map_err(|err| {
            // The amount's rule, worded with the market's money ("₹5,000.00", "Rp1.000.000").
            let problem = match err {
                kilat_domain::Error::AmountOutOfRange { min, max, .. } => {
                    FieldProblem::AmountOutOfRange {
                        min: format_money(min, currency),
                        max: format_money(max, currency),
                    }
                }
                kilat_domain::Error::AmountNotOnStep { step, .. } => {
                    FieldProblem::AmountNotOnStep {
                        step: format_money(step, currency),
                    }
                }
                other => return ApiError::Loan(other),
            };
            let mut errors = FieldErrors::default();
            errors.add("amount", problem);
            ApiError::Validation(errors)
        })?;
    KeyFactStatement::new(&quote, &state.site.lender(product.market)).map_err(ApiError::Loan)
}
