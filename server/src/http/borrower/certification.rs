//! Certification and the reference data its forms need (docs/API-BORROWER.md, second slice).

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::Market;
use serde::Serialize;
use utoipa::ToSchema;

use super::auth::{MarketQuery, Session, require_market};
use crate::certification::{
    self, BankInfo, BaseInfo, ExtendedInfo, JobInfo, PersonalInfo, Progress, Step, StepRequest,
};
use crate::content::{self, BankChoice, Choice, EnumKind, PrivacyPolicy, Region};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::i18n::Lang;

/// The kind of identity number a market asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IdKind {
    /// India's Permanent Account Number.
    Pan,
    /// Indonesia's Nomor Induk Kependudukan.
    Nik,
}

/// Whether a certification step is saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum CertStatus {
    Done,
    Todo,
}

impl CertStatus {
    fn of(saved: bool) -> Self {
        if saved { Self::Done } else { Self::Todo }
    }
}

/// The time a stated income covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IncomePeriod {
    Month,
    Year,
}

impl IncomePeriod {
    fn of(market: Market) -> Self {
        match certification::income_period(market) {
            "month" => Self::Month,
            _ => Self::Year,
        }
    }
}

/// What a saved step's log entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogEvent {
    /// The first save of the step.
    Completed,
    /// A later save.
    Updated,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdNumberRule {
    /// `pan` (India) or `nik` (Indonesia).
    pub kind: IdKind,
    pub pattern: &'static str,
    pub example: &'static str,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DigitsRule {
    pub digits: usize,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountNumberRule {
    pub min_digits: usize,
    pub max_digits: usize,
}

/// The lists and rules of the certification forms for one market, labelled in the request's language.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnumsView {
    pub market: Market,
    pub gender: Vec<Choice>,
    pub education: Vec<Choice>,
    pub marital_status: Vec<Choice>,
    pub residence_type: Vec<Choice>,
    pub employment_type: Vec<Choice>,
    pub relation: Vec<Choice>,
    pub banks: Vec<BankChoice>,
    /// `month` (India: monthly income) or `year` (Indonesia: annual income).
    pub income_period: IncomePeriod,
    /// The market's minimum income per `incomePeriod`, in minor units.
    pub min_income: i64,
    pub id_number: IdNumberRule,
    pub postal_code: DigitsRule,
    pub account_number: AccountNumberRule,
    pub ifsc_required: bool,
}

fn market_of(query: &MarketQuery) -> Result<Market, ApiError> {
    Ok(require_market(query.market.as_deref())?)
}

/// The enumerations of the certification forms (public).
#[utoipa::path(get, path = "/api/v1/borrower/enums", tag = "borrower",
    params(MarketQuery),
    responses((status = 200, body = Envelope<EnumsView>), (status = 422, body = ErrorBody)))]
pub async fn enums(
    lang: Lang,
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Json<Envelope<EnumsView>>, ApiError> {
    let market = market_of(&query)?;
    let data = content::reference();
    let list = |kind| data.choices(market, kind, lang);
    let (min_digits, max_digits) = certification::account_digits(market);
    Ok(Envelope::ok(EnumsView {
        market,
        gender: list(EnumKind::Gender),
        education: list(EnumKind::Education),
        marital_status: list(EnumKind::MaritalStatus),
        residence_type: list(EnumKind::ResidenceType),
        employment_type: list(EnumKind::EmploymentType),
        relation: list(EnumKind::Relation),
        banks: data.banks(market),
        income_period: IncomePeriod::of(market),
        min_income: certification::min_income(market),
        id_number: match market {
            Market::India => IdNumberRule {
                kind: IdKind::Pan,
                pattern: "^[A-Z]{3}P[A-Z][0-9]{4}[A-Z]$",
                example: "ABCPE1234F",
            },
            Market::Indonesia => IdNumberRule {
                kind: IdKind::Nik,
                pattern: "^[1-9][0-9]{15}$",
                example: "3171234567890001",
            },
        },
        postal_code: DigitsRule {
            digits: match market {
                Market::India => 6,
                Market::Indonesia => 5,
            },
        },
        account_number: AccountNumberRule {
            min_digits,
            max_digits,
        },
        ifsc_required: market == Market::India,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CitiesView {
    pub market: Market,
    pub regions: Vec<Region>,
}

/// States (India) or provinces (Indonesia) and their cities (public).
#[utoipa::path(get, path = "/api/v1/borrower/cities", tag = "borrower",
    params(MarketQuery),
    responses((status = 200, body = Envelope<CitiesView>), (status = 422, body = ErrorBody)))]
pub async fn cities(
    ApiQuery(query): ApiQuery<MarketQuery>,
) -> Result<Json<Envelope<CitiesView>>, ApiError> {
    let market = market_of(&query)?;
    Ok(Envelope::ok(CitiesView {
        market,
        regions: content::reference().regions(market).to_vec(),
    }))
}

/// The privacy policy in the request's language (public).
#[utoipa::path(get, path = "/api/v1/borrower/privacy", tag = "borrower",
    responses((status = 200, body = Envelope<PrivacyPolicy>)))]
pub async fn privacy(State(state): State<AppState>, lang: Lang) -> Json<Envelope<PrivacyPolicy>> {
    // One language per market: English is India's policy, Indonesian is Indonesia's, each naming its own lender.
    let site = &state.services.site;
    let (app, market) = match lang {
        Lang::En => (&site.app_name_en, Market::India),
        Lang::Id => (&site.app_name_id, Market::Indonesia),
    };
    Envelope::ok(content::reference().privacy(lang, app, &site.lender(market)))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepStatus {
    pub step: Step,
    pub cert_status: CertStatus,
    /// Epoch milliseconds of the first save; null while the step is to do.
    #[schema(required = true)]
    pub completed_at: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CertificationView {
    pub steps: Vec<StepStatus>,
    pub complete: bool,
    /// The first step not done yet; null when all are done.
    #[schema(required = true)]
    pub next: Option<Step>,
}

/// Each step's `certStatus`, and the next step to do.
#[utoipa::path(get, path = "/api/v1/borrower/certification", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "certification_status",
    responses((status = 200, body = Envelope<CertificationView>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<CertificationView>>, ApiError> {
    let progress = Progress::of(&state.services, &session.borrower).await?;
    let steps: Vec<StepStatus> = Step::ALL
        .into_iter()
        .map(|step| StepStatus {
            step,
            cert_status: CertStatus::of(progress.completed_at(step).is_some()),
            completed_at: progress.completed_at(step),
        })
        .collect();
    Ok(Envelope::ok(CertificationView {
        complete: progress.is_complete(),
        next: progress.next(),
        steps,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntryView {
    pub step: Step,
    /// `completed` (first save) or `updated`.
    #[schema(value_type = LogEvent)]
    pub event: String,
    /// Epoch milliseconds.
    pub at: i64,
}

/// The advance log: each save of a step, oldest first.
#[utoipa::path(get, path = "/api/v1/borrower/certification/log", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "certification_log",
    responses((status = 200, body = Envelope<Vec<LogEntryView>>), (status = 401, body = ErrorBody)))]
pub async fn log(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<Vec<LogEntryView>>>, ApiError> {
    let entries = certification::log(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(
        entries
            .into_iter()
            .map(|e| LogEntryView {
                step: e.step,
                event: e.event,
                at: e.at,
            })
            .collect(),
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    pub step: Step,
    pub cert_status: CertStatus,
    /// The saved fields (docs/API-BORROWER.md); ID and account numbers masked except in the answer to a save. Null
    /// while the step is to do.
    #[schema(value_type = Option<StepFields>, required = true)]
    pub data: Option<serde_json::Value>,
    /// Only after a save: the next step not done yet, or null when all are.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Step>)]
    pub next: Option<Option<Step>>,
    /// The bank step only: the order number of the open loan that keeps the bank account from changing until it
    /// closes (the server refuses a change meanwhile); null when the account may change, and for the other steps.
    #[schema(required = true)]
    pub bank_locked_by: Option<String>,
}

/// A step's fields as `data` carries them, the one `step` names (`StepData::to_view`); documentation only.
#[derive(ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum StepFields {
    Base(BaseInfo),
    Personal(PersonalInfo),
    Job(JobInfo),
    Extended(ExtendedInfo),
    Bank(BankInfo),
}

fn step_of(raw: &str) -> Result<Step, ApiError> {
    Step::parse(raw).ok_or(ApiError::NotFound)
}

/// One step's saved data, numbers masked.
#[utoipa::path(get, path = "/api/v1/borrower/certification/{step}", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("step" = Step, Path, description = "The step, in the order they must be done; another value is a 404")),
    responses((status = 200, body = Envelope<StepView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn read_step(
    State(state): State<AppState>,
    session: Session,
    Path(step): Path<String>,
) -> Result<Json<Envelope<StepView>>, ApiError> {
    let step = step_of(&step)?;
    let read = certification::read_step_view(&state.services, &session.borrower, step).await?;
    Ok(Envelope::ok(StepView {
        step,
        cert_status: CertStatus::of(read.saved.is_some()),
        data: read.saved.map(|(data, _)| data.to_view(true)),
        next: None,
        bank_locked_by: read.bank_locked_by,
    }))
}

/// Saves a step (docs/API-BORROWER.md lists each step's fields and rules); answers with the data masked, as read
/// (whoever holds the session, a shared phone, never reads a number back in full, even by sending the masked one).
#[utoipa::path(post, path = "/api/v1/borrower/certification/{step}", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("step" = Step, Path, description = "The step, in the order they must be done; another value is a 404")),
    request_body(content((Object = "application/json"), (Object = "application/x-www-form-urlencoded")),
        description = "The step's fields (docs/API-BORROWER.md)"),
    responses((status = 200, body = Envelope<StepView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "certification_out_of_order", body = ErrorBody),
        (status = 422, description = "validation_failed with the fields at fault", body = ErrorBody)))]
pub async fn save_step(
    State(state): State<AppState>,
    session: Session,
    Path(step): Path<String>,
    JsonOrForm(req): JsonOrForm<StepRequest>,
) -> Result<Json<Envelope<StepView>>, ApiError> {
    let step = step_of(&step)?;
    let saved = certification::save_step(&state.services, &session.borrower, step, &req).await?;
    Ok(Envelope::ok(StepView {
        step,
        cert_status: CertStatus::Done,
        data: Some(saved.data.to_view(true)),
        next: Some(saved.next),
        bank_locked_by: saved.bank_locked_by,
    }))
}
