//! Certification and the reference data its forms need (docs/API-BORROWER.md, second slice).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use kilat_domain::Market;
use serde::Serialize;
use utoipa::ToSchema;

use super::borrower::{MarketQuery, Session, require_market};
use super::error::{ApiError, Envelope, ErrorBody, LocalizedError, Refusal};
use super::extract::JsonOrForm;
use super::lang::Lang;
use crate::certification::{self, Step, StepData, StepRequest};
use crate::reference::{BankChoice, Choice, EnumKind, PrivacyPolicy, Region};
use crate::sign_in::{Borrower, market_code};
use crate::startup::AppState;
use crate::store::now_ms;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IdNumberRule {
    /// `pan` (India) or `nik` (Indonesia).
    pub kind: &'static str,
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
    pub market: String,
    pub gender: Vec<Choice>,
    pub education: Vec<Choice>,
    pub marital_status: Vec<Choice>,
    pub residence_type: Vec<Choice>,
    pub employment_type: Vec<Choice>,
    pub relation: Vec<Choice>,
    pub banks: Vec<BankChoice>,
    /// `month` (India: monthly income) or `year` (Indonesia: annual income).
    pub income_period: &'static str,
    /// The market's minimum income per `incomePeriod`, in minor units.
    pub min_income: i64,
    pub id_number: IdNumberRule,
    pub postal_code: DigitsRule,
    pub account_number: AccountNumberRule,
    pub ifsc_required: bool,
}

fn market_of(query: &MarketQuery, lang: Lang) -> Result<Market, LocalizedError> {
    require_market(query.market.as_deref()).map_err(|e| ApiError::Validation(e).in_lang(lang))
}

/// The enumerations of the certification forms (public).
#[utoipa::path(get, path = "/api/v1/borrower/enums", tag = "borrower",
    params(("market" = String, Query, description = "`IN` or `ID`")),
    responses((status = 200, body = Envelope<EnumsView>), (status = 422, body = ErrorBody)))]
pub async fn enums(
    State(state): State<AppState>,
    lang: Lang,
    Query(query): Query<MarketQuery>,
) -> Result<Json<Envelope<EnumsView>>, LocalizedError> {
    let market = market_of(&query, lang)?;
    let data = &state.reference;
    let list = |kind| data.choices(market, kind, lang);
    let (min_digits, max_digits) = certification::account_digits(market);
    Ok(Envelope::ok(EnumsView {
        market: market_code(market).into(),
        gender: list(EnumKind::Gender),
        education: list(EnumKind::Education),
        marital_status: list(EnumKind::MaritalStatus),
        residence_type: list(EnumKind::ResidenceType),
        employment_type: list(EnumKind::EmploymentType),
        relation: list(EnumKind::Relation),
        banks: data.banks(market),
        income_period: certification::income_period(market),
        min_income: certification::min_income(market),
        id_number: match market {
            Market::India => IdNumberRule {
                kind: "pan",
                pattern: "^[A-Z]{3}P[A-Z][0-9]{4}[A-Z]$",
                example: "ABCPE1234F",
            },
            Market::Indonesia => IdNumberRule {
                kind: "nik",
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
    pub market: String,
    pub regions: Vec<Region>,
}

/// States (India) or provinces (Indonesia) and their cities (public).
#[utoipa::path(get, path = "/api/v1/borrower/cities", tag = "borrower",
    params(("market" = String, Query, description = "`IN` or `ID`")),
    responses((status = 200, body = Envelope<CitiesView>), (status = 422, body = ErrorBody)))]
pub async fn cities(
    State(state): State<AppState>,
    lang: Lang,
    Query(query): Query<MarketQuery>,
) -> Result<Json<Envelope<CitiesView>>, LocalizedError> {
    let market = market_of(&query, lang)?;
    Ok(Envelope::ok(CitiesView {
        market: market_code(market).into(),
        regions: state.reference.regions(market).to_vec(),
    }))
}

/// The privacy policy in the request's language (public).
#[utoipa::path(get, path = "/api/v1/borrower/privacy", tag = "borrower",
    responses((status = 200, body = Envelope<PrivacyPolicy>)))]
pub async fn privacy(State(state): State<AppState>, lang: Lang) -> Json<Envelope<PrivacyPolicy>> {
    // One language per market: English is India's policy, Indonesian is Indonesia's, each naming its own lender.
    let (app, market) = match lang {
        Lang::En => (&state.site.app_name_en, Market::India),
        Lang::Id => (&state.site.app_name_id, Market::Indonesia),
    };
    Envelope::ok(
        state
            .reference
            .privacy(lang, app, &state.site.lender(market)),
    )
}

/// A borrower's certification, decrypted.
pub struct Certification {
    pub steps: BTreeMap<Step, (StepData, i64)>,
}

impl Certification {
    pub async fn load(state: &AppState, borrower: &Borrower) -> Result<Self, ApiError> {
        let mut steps = BTreeMap::new();
        for stored in state.db.certification_steps(&borrower.id).await? {
            let Some(step) = Step::parse(&stored.step) else {
                continue;
            };
            let json = state.secrets.decrypt(&stored.data_enc)?;
            let data: StepData = serde_json::from_str(&json).map_err(anyhow::Error::from)?;
            steps.insert(step, (data, stored.completed_at));
        }
        Ok(Self { steps })
    }

    pub fn is_complete(&self) -> bool {
        Step::ALL.iter().all(|s| self.steps.contains_key(s))
    }

    pub fn next(&self) -> Option<Step> {
        Step::ALL.into_iter().find(|s| !self.steps.contains_key(s))
    }

    pub fn done(&self) -> usize {
        self.steps.len()
    }

    pub fn income(&self) -> Option<i64> {
        match self.steps.get(&Step::Job) {
            Some((StepData::Job(job), _)) => Some(job.income),
            _ => None,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepStatus {
    /// `base`, `personal`, `job`, `extended` or `bank`.
    pub step: &'static str,
    /// `done` or `todo`.
    pub cert_status: &'static str,
    /// Epoch milliseconds of the first save.
    pub completed_at: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CertificationView {
    pub steps: Vec<StepStatus>,
    pub complete: bool,
    /// The first step not done yet.
    pub next: Option<&'static str>,
}

/// Each step's `certStatus`, and the next step to do.
#[utoipa::path(get, path = "/api/v1/borrower/certification", tag = "borrower", operation_id = "certification_status",
    responses((status = 200, body = Envelope<CertificationView>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<CertificationView>>, LocalizedError> {
    let done = state
        .db
        .certification_steps(&session.borrower.id)
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?;
    let completed = |step: Step| {
        done.iter()
            .find(|s| s.step == step.as_str())
            .map(|s| s.completed_at)
    };
    let steps: Vec<StepStatus> = Step::ALL
        .into_iter()
        .map(|step| StepStatus {
            step: step.as_str(),
            cert_status: if completed(step).is_some() {
                "done"
            } else {
                "todo"
            },
            completed_at: completed(step),
        })
        .collect();
    let next = Step::ALL
        .into_iter()
        .find(|s| completed(*s).is_none())
        .map(Step::as_str);
    Ok(Envelope::ok(CertificationView {
        complete: next.is_none(),
        next,
        steps,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntryView {
    pub step: String,
    /// `completed` (first save) or `updated`.
    pub event: String,
    /// Epoch milliseconds.
    pub at: i64,
}

/// The advance log: each save of a step, oldest first.
#[utoipa::path(get, path = "/api/v1/borrower/certification/log", tag = "borrower", operation_id = "certification_log",
    responses((status = 200, body = Envelope<Vec<LogEntryView>>), (status = 401, body = ErrorBody)))]
pub async fn log(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
) -> Result<Json<Envelope<Vec<LogEntryView>>>, LocalizedError> {
    let entries = state
        .db
        .certification_log(&session.borrower.id)
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?;
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
    pub step: &'static str,
    pub cert_status: &'static str,
    /// The saved fields (docs/API-BORROWER.md); ID and account numbers masked except in the answer to a save.
    #[schema(value_type = Option<Object>)]
    pub data: Option<serde_json::Value>,
    /// After a save: the next step not done yet, or null when all are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Option<&'static str>>,
}

fn step_of(raw: &str, lang: Lang) -> Result<Step, LocalizedError> {
    Step::parse(raw).ok_or_else(|| ApiError::NotFound.in_lang(lang))
}

/// One step's saved data, numbers masked.
#[utoipa::path(get, path = "/api/v1/borrower/certification/{step}", tag = "borrower",
    params(("step" = String, Path, description = "`base`, `personal`, `job`, `extended` or `bank`")),
    responses((status = 200, body = Envelope<StepView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub async fn read_step(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(step): Path<String>,
) -> Result<Json<Envelope<StepView>>, LocalizedError> {
    let step = step_of(&step, lang)?;
    let certification = Certification::load(&state, &session.borrower)
        .await
        .map_err(|e| e.in_lang(lang))?;
    let saved = certification.steps.get(&step);
    Ok(Envelope::ok(StepView {
        step: step.as_str(),
        cert_status: if saved.is_some() { "done" } else { "todo" },
        data: saved.map(|(data, _)| data.to_view(true)),
        next: None,
    }))
}

/// Saves a step (docs/API-BORROWER.md lists each step's fields and rules); answers with the data unmasked.
#[utoipa::path(post, path = "/api/v1/borrower/certification/{step}", tag = "borrower",
    params(("step" = String, Path, description = "`base`, `personal`, `job`, `extended` or `bank`")),
    request_body(content((Object = "application/json"), (Object = "application/x-www-form-urlencoded")),
        description = "The step's fields (docs/API-BORROWER.md)"),
    responses((status = 200, body = Envelope<StepView>), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "certification_out_of_order", body = ErrorBody),
        (status = 422, description = "validation_failed with the fields at fault", body = ErrorBody)))]
pub async fn save_step(
    State(state): State<AppState>,
    lang: Lang,
    session: Session,
    Path(step): Path<String>,
    JsonOrForm(req): JsonOrForm<StepRequest>,
) -> Result<Json<Envelope<StepView>>, LocalizedError> {
    let step = step_of(&step, lang)?;
    let borrower = &session.borrower;
    let certification = Certification::load(&state, borrower)
        .await
        .map_err(|e| e.in_lang(lang))?;
    if step
        .before()
        .iter()
        .any(|s| !certification.steps.contains_key(s))
    {
        return Err(ApiError::Refused(Refusal::CertificationOutOfOrder).in_lang(lang));
    }
    let cx = certification::Context {
        market: borrower.market,
        reference: &state.reference,
        own_phone: &borrower.phone,
        previous: certification.steps.get(&step).map(|(d, _)| d),
        today: borrower.market.local_date(time::OffsetDateTime::now_utc()),
    };
    let data = certification::validate(step, &req, &cx)
        .map_err(|e| ApiError::Validation(e).in_lang(lang))?;
    let json =
        serde_json::to_string(&data).map_err(|e| ApiError::Internal(e.into()).in_lang(lang))?;
    state
        .db
        .save_certification_step(
            &borrower.id,
            step.as_str(),
            &state.secrets.encrypt(&json),
            now_ms(),
        )
        .await
        .map_err(|e| ApiError::from(e).in_lang(lang))?;
    let next = Step::ALL
        .into_iter()
        .find(|s| *s != step && !certification.steps.contains_key(s))
        .map(Step::as_str);
    Ok(Envelope::ok(StepView {
        step: step.as_str(),
        cert_status: "done",
        data: Some(data.to_view(false)),
        next: Some(next),
    }))
}
