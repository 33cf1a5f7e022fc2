//! Home, recommendations, applying, confirming, and the borrower's orders with their agreement
//! (docs/API-BORROWER.md, second slice). Every query is scoped to the signed-in borrower.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kilat_domain::{KeyFactStatement, Money, OrderState};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::borrower::Session;
use super::certification::Certification;
use super::error::{
    ApiError, Envelope, ErrorBody, FieldErrors, FieldProblem, LocalizedError, Refusal,
};
use super::extract::JsonOrForm;
use super::lang::Lang;
use super::loans::{ProductView, QuoteRequest, key_fact_statement, loan_choice, view};
use crate::agreement::{self, Agreement, AgreementBorrower};
use crate::certification::{self, Step, StepData, mask_account, mask_id};
use crate::sign_in::{Borrower, market_code};
use crate::startup::AppState;
use crate::store::now_ms;
use crate::store::orders::{Inserted, NewOrder, OrderRow};

/// Why a borrower may not apply now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    CertificationIncomplete,
    OpenOrder,
    IncomeBelowMinimum,
}

/// What decides whether the borrower may apply.
struct Standing {
    certification: Certification,
    open_order: Option<OrderRow>,
    reasons: Vec<Reason>,
}

impl Standing {
    async fn of(state: &AppState, borrower: &Borrower) -> Result<Self, ApiError> {
        let certification = Certification::load(state, borrower).await?;
        let open_order = state.db.open_order(&borrower.id).await?;
        let mut reasons = Vec::new();
        if !certification.is_complete() {
            reasons.push(Reason::CertificationIncomplete);
        }
        if open_order.is_some() {
            reasons.push(Reason::OpenOrder);
        }
        if certification
            .income()
            .is_some_and(|income| income < certification::min_income(borrower.market))
        {
            reasons.push(Reason::IncomeBelowMinimum);
        }
        Ok(Self {
            certification,
            open_order,
            reasons,
        })
    }

    /// The first reason as the refusal an application gets.
    fn refusal(&self) -> Option<ApiError> {
        self.reasons.first().map(|reason| {
            ApiError::Refused(match reason {
                Reason::CertificationIncomplete => Refusal::CertificationIncomplete,
                Reason::OpenOrder => Refusal::OpenOrderExists,
                Reason::IncomeBelowMinimum => Refusal::NotEligible,
            })
        })
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CertificationProgress {
    pub complete: bool,
    pub next: Option<&'static str>,
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenOrderView {
    pub order_no: String,
    pub status: String,
    pub amount: i64,
    pub created_at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HomeView {
    pub market: String,
    pub phone_masked: String,
    pub lender_name: String,
    pub certification: CertificationProgress,
    pub open_order: Option<OpenOrderView>,
    /// True when the borrower may apply now.
    pub eligible: bool,
    pub reasons: Vec<Reason>,
    pub products: Vec<ProductView>,
}

fn products_of(state: &AppState, borrower: &Borrower) -> Result<Vec<ProductView>, ApiError> {
    state
        .catalog
        .for_market(borrower.market)
        .map(|p| view(state, p))
        .collect()
}

/// The borrower's home: certification progress, the open order, whether they may apply, and the products.
#[utoipa::path(get, path = "/api/v1/borrower/home", tag = "borrower",
    responses((status = 200, body = Envelope<HomeView>), (status = 401, body = ErrorBody)))]
pub async fn home(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<HomeView>>, LocalizedError> {
    let borrower = &session.borrower;
    let standing = Standing::of(&state, borrower)
        .await
        .map_err(|e| e.in_lang(lang))?;
    let products = products_of(&state, borrower).map_err(|e| e.in_lang(lang))?;
    let c = &standing.certification;
    Ok(Envelope::ok(HomeView {
        market: market_code(borrower.market).into(),
        phone_masked: borrower.phone.masked(),
        lender_name: state.site.company(borrower.market).lender_name.clone(),
        certification: CertificationProgress {
            complete: c.is_complete(),
            next: c.next().map(Step::as_str),
            done: c.done(),
            total: Step::ALL.len(),
        },
        open_order: standing.open_order.as_ref().map(|o| OpenOrderView {
            order_no: o.order_no.clone(),
            status: o.status.clone(),
            amount: o.amount,
            created_at: o.created_at,
        }),
        eligible: standing.reasons.is_empty(),
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
    responses((status = 200, body = Envelope<RecommendedView>), (status = 401, body = ErrorBody)))]
pub async fn recommended(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<RecommendedView>>, LocalizedError> {
    let standing = Standing::of(&state, &session.borrower)
        .await
        .map_err(|e| e.in_lang(lang))?;
    let eligible = standing.reasons.is_empty();
    let mut products = if eligible {
        products_of(&state, &session.borrower).map_err(|e| e.in_lang(lang))?
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
    request_body(content((QuoteRequest = "application/json"), (QuoteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, description = "The KFS (docs/MONEY.md §8)", body = Envelope<Object>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "not_eligible", body = ErrorBody),
        (status = 409, description = "certification_incomplete or open_order_exists", body = ErrorBody),
        (status = 422, description = "validation_failed or cap_exceeded", body = ErrorBody)))]
pub async fn apply(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    JsonOrForm(req): JsonOrForm<QuoteRequest>,
) -> Result<Json<Envelope<KeyFactStatement>>, LocalizedError> {
    let borrower = &session.borrower;
    let mut errors = FieldErrors::default();
    let choice = loan_choice(
        &state,
        borrower,
        req.product_code.as_deref(),
        req.amount,
        req.term_code.as_deref(),
        &mut errors,
    );
    let Some(choice) = choice.filter(|_| errors.is_empty()) else {
        return Err(ApiError::Validation(errors).in_lang(lang));
    };
    let standing = Standing::of(&state, borrower)
        .await
        .map_err(|e| e.in_lang(lang))?;
    if let Some(refusal) = standing.refusal() {
        return Err(refusal.in_lang(lang));
    }
    let kfs = key_fact_statement(
        &state,
        choice.product,
        Money::from_minor(choice.amount),
        &choice.term,
    )
    .map_err(|e| e.in_lang(lang))?;
    Ok(Envelope::ok(kfs))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmRequest {
    pub product_code: Option<String>,
    /// Minor units.
    pub amount: Option<i64>,
    pub term_code: Option<String>,
    /// The `contentHash` of the KFS the borrower read and accepted.
    pub kfs_hash: Option<String>,
    /// 8 to 64 characters `[A-Za-z0-9_-]`, made once per application by the client; or the `Idempotency-Key` header.
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderSummary {
    pub order_no: String,
    /// `pending_review`, `approved`, `rejected`, `cancelled`, `disbursed`, `overdue`, `repaid`,
    /// `exited_in_cooling_off`.
    pub status: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    /// `INR` or `IDR`.
    pub currency: String,
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
            status: o.status.clone(),
            product_code: o.product_code.clone(),
            product_name: o.product_name.clone(),
            term_code: o.term_code.clone(),
            currency: o.currency.clone(),
            amount: o.amount,
            net_disbursed: o.net_disbursed,
            total_repayable: o.total_repayable,
            apr: o.apr,
            apr_display: o.apr_display.clone(),
            created_at: o.created_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TimelineEntry {
    pub status: String,
    /// Epoch milliseconds.
    pub at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetail {
    #[serde(flatten)]
    pub summary: OrderSummary,
    /// The KFS the borrower accepted (docs/MONEY.md §8).
    #[schema(value_type = Object)]
    pub kfs: KeyFactStatement,
    /// Epoch milliseconds: when the borrower confirmed.
    pub accepted_at: i64,
    pub timeline: Vec<TimelineEntry>,
}

fn idempotency_key(
    headers: &HeaderMap,
    body: Option<&str>,
    errors: &mut FieldErrors,
) -> Option<String> {
    let key = body.map(str::trim).filter(|k| !k.is_empty()).or_else(|| {
        headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|k| !k.is_empty())
    });
    match key {
        None => {
            errors.add("idempotencyKey", FieldProblem::Required);
            None
        }
        Some(k)
            if (8..=64).contains(&k.len())
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(k.to_owned())
        }
        Some(_) => {
            errors.add(
                "idempotencyKey",
                FieldProblem::say(
                    "Use 8 to 64 letters, digits, - or _.",
                    "Gunakan 8 sampai 64 huruf, angka, - atau _.",
                ),
            );
            None
        }
    }
}

/// `KL-YYMMDD-XXXXXX`: the day and six random characters without look-alikes (Crockford's base 32).
fn new_order_no(now_ms: i64) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let suffix: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    let date = time::OffsetDateTime::from_unix_timestamp(now_ms / 1000)
        .map(|d| d.date())
        .unwrap_or(time::Date::MIN);
    format!(
        "KL-{:02}{:02}{:02}-{suffix}",
        date.year() % 100,
        u8::from(date.month()),
        date.day()
    )
}

async fn detail_of(state: &AppState, order: &OrderRow) -> Result<OrderDetail, ApiError> {
    let kfs: KeyFactStatement =
        serde_json::from_str(&order.kfs_json).map_err(anyhow::Error::from)?;
    let timeline = state
        .db
        .order_events(&order.id)
        .await?
        .into_iter()
        .map(|e| TimelineEntry {
            status: e.status,
            at: e.at,
        })
        .collect();
    Ok(OrderDetail {
        summary: order.into(),
        kfs,
        accepted_at: order.created_at,
        timeline,
    })
}

/// Confirms an application with the KFS accepted: creates the order in `pending_review`, storing that KFS.
/// Idempotent on the client's key.
#[utoipa::path(post, path = "/api/v1/borrower/orders", tag = "borrower",
    request_body(content((ConfirmRequest = "application/json"), (ConfirmRequest = "application/x-www-form-urlencoded"))),
    params(("Idempotency-Key" = Option<String>, Header, description = "Instead of `idempotencyKey` in the body")),
    responses((status = 201, description = "Created", body = Envelope<OrderDetail>),
        (status = 200, description = "The order this key already made", body = Envelope<OrderDetail>),
        (status = 401, body = ErrorBody),
        (status = 403, description = "not_eligible", body = ErrorBody),
        (status = 409, description = "certification_incomplete, open_order_exists, kfs_changed or idempotency_key_reused", body = ErrorBody),
        (status = 422, description = "validation_failed or cap_exceeded", body = ErrorBody)))]
pub async fn confirm(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    headers: HeaderMap,
    JsonOrForm(req): JsonOrForm<ConfirmRequest>,
) -> Result<Response, LocalizedError> {
    let borrower = &session.borrower;
    let fail = |e: ApiError| e.in_lang(lang);
    let mut errors = FieldErrors::default();
    let key = idempotency_key(&headers, req.idempotency_key.as_deref(), &mut errors);
    let kfs_hash = req
        .kfs_hash
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty());
    if kfs_hash.is_none() {
        errors.add("kfsHash", FieldProblem::Required);
    }
    let choice = loan_choice(
        &state,
        borrower,
        req.product_code.as_deref(),
        req.amount,
        req.term_code.as_deref(),
        &mut errors,
    );
    let (Some(key), Some(kfs_hash), Some(choice)) = (key, kfs_hash, choice) else {
        return Err(fail(ApiError::Validation(errors)));
    };
    if !errors.is_empty() {
        return Err(fail(ApiError::Validation(errors)));
    }
    let request_hash = hex_sha256(&format!(
        "{}\n{}\n{}\n{}",
        choice.product.code, choice.amount, choice.term, kfs_hash
    ));
    if let Some(existing) = state
        .db
        .order_by_idempotency_key(&borrower.id, &key)
        .await
        .map_err(|e| fail(e.into()))?
    {
        return replay(&state, &existing, &request_hash).await.map_err(fail);
    }
    let standing = Standing::of(&state, borrower).await.map_err(fail)?;
    if let Some(refusal) = standing.refusal() {
        // A twin of this request (a double tap) may have made the open order a moment ago: answer with it.
        if standing.reasons.contains(&Reason::OpenOrder)
            && let Some(existing) = state
                .db
                .order_by_idempotency_key(&borrower.id, &key)
                .await
                .map_err(|e| fail(e.into()))?
        {
            return replay(&state, &existing, &request_hash).await.map_err(fail);
        }
        return Err(fail(refusal));
    }
    let kfs = key_fact_statement(
        &state,
        choice.product,
        Money::from_minor(choice.amount),
        &choice.term,
    )
    .map_err(fail)?;
    if kfs.content_hash != kfs_hash {
        return Err(fail(ApiError::Refused(Refusal::KfsChanged)));
    }
    let kfs_json = serde_json::to_string(&kfs).map_err(|e| fail(ApiError::Internal(e.into())))?;
    let currency = match kfs.currency {
        kilat_domain::Currency::Inr => "INR",
        kilat_domain::Currency::Idr => "IDR",
    };
    let status = status_code(OrderState::PendingReview);
    let now = now_ms();
    // A clash of order numbers (six random characters a day) is retried with another number.
    let mut attempt = 0;
    let inserted = loop {
        let order_no = new_order_no(now);
        let new = NewOrder {
            order_no: &order_no,
            borrower_id: &borrower.id,
            market: market_code(borrower.market),
            product_code: &kfs.product_code,
            product_name: &kfs.product_name,
            term_code: &kfs.term_code,
            currency,
            amount: kfs.sanctioned_amount.minor(),
            net_disbursed: kfs.net_disbursed.minor(),
            total_repayable: kfs.total_repayable.minor(),
            apr: kfs.apr.0,
            apr_display: &kfs.apr_display,
            status,
            kfs_json: &kfs_json,
            kfs_hash: &kfs.content_hash,
            idempotency_key: &key,
            request_hash: &request_hash,
            now,
        };
        match state.db.insert_order(&new).await {
            Err(e) if attempt < 3 => {
                tracing::warn!(error = %e, "order insert failed; retrying with another number");
                attempt += 1;
            }
            other => break other.map_err(|e| fail(e.into()))?,
        }
    };
    match inserted {
        Inserted::Created(order) => {
            tracing::info!(order_no = %order.order_no, "order created");
            let detail = detail_of(&state, &order).await.map_err(fail)?;
            Ok((StatusCode::CREATED, Envelope::ok(detail)).into_response())
        }
        Inserted::Existing(existing) => {
            replay(&state, &existing, &request_hash).await.map_err(fail)
        }
        Inserted::OpenOrderExists => Err(fail(ApiError::Refused(Refusal::OpenOrderExists))),
    }
}

/// The answer to a confirm whose key already made an order: that order again, unless the key came with another
/// application.
async fn replay(
    state: &AppState,
    existing: &OrderRow,
    request_hash: &str,
) -> Result<Response, ApiError> {
    if existing.request_hash != request_hash {
        return Err(ApiError::Refused(Refusal::IdempotencyKeyReused));
    }
    let detail = detail_of(state, existing).await?;
    Ok((StatusCode::OK, Envelope::ok(detail)).into_response())
}

fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The status as the API and the store write it.
fn status_code(state: OrderState) -> &'static str {
    match state {
        OrderState::PendingReview => "pending_review",
        OrderState::Approved => "approved",
        OrderState::Rejected => "rejected",
        OrderState::Cancelled => "cancelled",
        OrderState::Disbursed => "disbursed",
        OrderState::Overdue => "overdue",
        OrderState::Repaid => "repaid",
        OrderState::ExitedInCoolingOff => "exited_in_cooling_off",
    }
}

/// The borrower's orders, newest first.
#[utoipa::path(get, path = "/api/v1/borrower/orders", tag = "borrower", operation_id = "list_orders",
    responses((status = 200, body = Envelope<Vec<OrderSummary>>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<Vec<OrderSummary>>>, LocalizedError> {
    let orders = state
        .db
        .orders_of(&session.borrower.id, 100)
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?;
    Ok(Envelope::ok(
        orders.iter().map(OrderSummary::from).collect(),
    ))
}

async fn own_order(
    state: &AppState,
    borrower: &Borrower,
    order_no: &str,
) -> Result<OrderRow, ApiError> {
    state
        .db
        .order_of(&borrower.id, order_no.trim())
        .await?
        .ok_or(ApiError::NotFound)
}

/// One order of the borrower with its accepted KFS and timeline; another borrower's order is 404.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}", tag = "borrower", operation_id = "order_detail",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<OrderDetail>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<OrderDetail>>, LocalizedError> {
    let order = own_order(&state, &session.borrower, &order_no)
        .await
        .map_err(|e| e.in_lang(lang))?;
    Ok(Envelope::ok(
        detail_of(&state, &order)
            .await
            .map_err(|e| e.in_lang(lang))?,
    ))
}

/// The loan agreement of an order, rendered from its accepted KFS and the borrower's certification.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/agreement", tag = "borrower", operation_id = "order_agreement",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<Agreement>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn agreement(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<Agreement>>, LocalizedError> {
    let borrower = &session.borrower;
    let fail = |e: ApiError| e.in_lang(lang);
    let order = own_order(&state, borrower, &order_no).await.map_err(fail)?;
    let kfs: KeyFactStatement =
        serde_json::from_str(&order.kfs_json).map_err(|e| fail(ApiError::Internal(e.into())))?;
    let certification = Certification::load(&state, borrower).await.map_err(fail)?;
    let mut party = AgreementBorrower {
        full_name: String::new(),
        id_number_masked: String::new(),
        address: String::new(),
        phone_masked: borrower.phone.masked(),
        bank_name: String::new(),
        bank_account_masked: String::new(),
    };
    for (data, _) in certification.steps.values() {
        match data {
            StepData::Base(b) => {
                party.full_name.clone_from(&b.full_name);
                party.id_number_masked = mask_id(&b.id_number);
            }
            StepData::Personal(p) => {
                let (region, city) = state
                    .reference
                    .place(borrower.market, &p.region_code, &p.city_code)
                    .unwrap_or((p.region_code.as_str(), p.city_code.as_str()));
                party.address = format!("{}, {city}, {region} {}", p.address, p.postal_code);
            }
            StepData::Bank(b) => {
                party.bank_name = state
                    .reference
                    .bank_name(borrower.market, &b.bank_code)
                    .unwrap_or(&b.bank_code)
                    .to_owned();
                party.bank_account_masked = mask_account(&b.account_number);
            }
            StepData::Job(_) | StepData::Extended(_) => {}
        }
    }
    Ok(Envelope::ok(agreement::render(
        lang,
        &order.order_no,
        order.created_at,
        &kfs,
        party,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_numbers_read_well_and_differ() {
        // 2026-11-23 12:00 UTC.
        let a = new_order_no(1_795_435_200_000);
        let b = new_order_no(1_795_435_200_000);
        assert!(a.starts_with("KL-261123-"), "{a}");
        assert_eq!(a.len(), "KL-261123-7F3K9Q".len());
        assert!(!a[10..].contains(['I', 'L', 'O', 'U']), "{a}");
        assert_ne!(a, b);
    }
}
