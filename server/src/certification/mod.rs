//! A borrower's certification, the five steps done before applying: the aggregate (load and decrypt, the next step,
//! the income), saving a step in order, and progress read without decrypting anything.

pub mod fingerprints;
mod rules;

use std::collections::BTreeMap;

use kilat_domain::{Code, Market, OrderState};

pub use rules::{
    BankInfo, BaseInfo, ExtendedInfo, JobInfo, MAX_AGE, MIN_AGE, PersonalInfo, Step, StepData,
    StepRequest, account_digits, age_from, income_period, mask_account, mask_id, min_income,
};

use crate::auth::{Borrower, CodePurpose, SignInError, SignInService};
use crate::content;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::crypto::{Binding, Secrets};
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::certification::{IncomeVerdict, StepDoneWithIncome};
use crate::store::{StartupMarker, Tx};

/// A borrower's certification, decrypted: each step done with its data and completion time.
pub struct Certification {
    steps: BTreeMap<Step, (StepData, i64)>,
}

impl Certification {
    /// Reads and decrypts every step the borrower saved.
    pub async fn load(s: &Services, borrower: &Borrower) -> Result<Self, Error> {
        let stored = s.db.certification_steps(&borrower.id).await?;
        Self::decrypted(s, borrower, stored)
    }

    /// The same, read inside the caller's transaction (confirm freezes the agreement from it).
    pub async fn load_in(s: &Services, tx: &mut Tx, borrower: &Borrower) -> Result<Self, Error> {
        let stored = tx.certification_steps_in(&borrower.id).await?;
        Self::decrypted(s, borrower, stored)
    }

    fn decrypted(
        s: &Services,
        borrower: &Borrower,
        stored: Vec<crate::store::certification::StoredStep>,
    ) -> Result<Self, Error> {
        let mut steps = BTreeMap::new();
        for stored in stored {
            let data = open_step(s, &borrower.id, stored.step, &stored.data_enc)?;
            steps.insert(stored.step, (data, stored.completed_at));
        }
        Ok(Self { steps })
    }

    pub fn get(&self, step: Step) -> Option<&StepData> {
        self.steps.get(&step).map(|(data, _)| data)
    }

    /// The steps done, in their order.
    pub fn steps(&self) -> impl Iterator<Item = &StepData> {
        self.steps.values().map(|(data, _)| data)
    }

    /// The steps done, in their order, each with when it was completed.
    pub fn steps_with_times(&self) -> impl Iterator<Item = (StepData, i64)> + '_ {
        self.steps.values().map(|(data, at)| (data.clone(), *at))
    }
}

/// Where a step's blob belongs: its borrower and step are the associated data of its encryption, so a blob copied to
/// another row does not decrypt.
fn binding(borrower_id: &str, step: Step) -> Binding<'_> {
    Binding::CertificationStep {
        borrower_id,
        step: step.as_str(),
    }
}

/// Decrypts one stored step of the borrower `borrower_id`.
pub fn open_step(
    s: &Services,
    borrower_id: &str,
    step: Step,
    data_enc: &str,
) -> Result<StepData, Error> {
    Ok(open_sealed_step(&s.secrets, borrower_id, step, data_enc)?)
}

/// [`open_step`] with the keys alone, for the backfills that run before the services exist.
pub fn open_sealed_step(
    secrets: &Secrets,
    borrower_id: &str,
    step: Step,
    data_enc: &str,
) -> anyhow::Result<StepData> {
    let json = secrets.decrypt(data_enc, binding(borrower_id, step))?;
    Ok(serde_json::from_str(&json)?)
}

/// Which steps are done and when, read without decrypting anything.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    done: BTreeMap<Step, i64>,
}

impl Progress {
    pub async fn of(s: &Services, borrower: &Borrower) -> Result<Self, Error> {
        let done =
            s.db.certification_done(&borrower.id)
                .await?
                .into_iter()
                .map(|d| (d.step, d.completed_at))
                .collect();
        Ok(Self { done })
    }

    /// When the step was first saved, if it was.
    pub fn completed_at(&self, step: Step) -> Option<i64> {
        self.done.get(&step).copied()
    }

    pub fn is_complete(&self) -> bool {
        Step::ALL.iter().all(|s| self.done.contains_key(s))
    }

    /// The first step not done yet.
    pub fn next(&self) -> Option<Step> {
        Step::ALL.into_iter().find(|s| !self.done.contains_key(s))
    }

    pub fn done(&self) -> usize {
        self.done.len()
    }
}

/// Progress, and whether the stated income is under the market's minimum, in one read without a blob: what
/// eligibility needs.
pub async fn progress_and_income(
    s: &Services,
    borrower: &Borrower,
) -> Result<(Progress, bool), Error> {
    let steps = s.db.certification_done_with_income(&borrower.id).await?;
    progress_and_income_of(s, &borrower.id, borrower.market, steps).await
}

/// Progress, and whether the stated income is under the market's minimum (false before the job step), from the steps
/// done as read. The job step's verdict, saved with it, decides when it was reached against today's minimum;
/// otherwise (a step saved before migration 0050 and not backfilled, or a minimum changed since) the job step is read
/// and its sealed income compared.
pub async fn progress_and_income_of(
    s: &Services,
    borrower_id: &str,
    market: Market,
    steps: Vec<StepDoneWithIncome>,
) -> Result<(Progress, bool), Error> {
    let (progress, below) = progress_and_verdict(market, steps);
    let below = match below {
        Some(below) => below,
        None => match s.db.certification_step(borrower_id, Step::Job).await? {
            Some(stored) => sealed_income_below(s, borrower_id, market, &stored.data_enc)?,
            None => false,
        },
    };
    Ok((progress, below))
}

/// [`progress_and_income_of`] read inside `tx` (the borrower's row held): every read on the transaction's own
/// connection, never a second one from the pool while it is held.
pub async fn progress_and_income_in(
    s: &Services,
    tx: &mut Tx,
    borrower_id: &str,
    market: Market,
) -> Result<(Progress, bool), Error> {
    let steps = tx.certification_done_with_income_in_tx(borrower_id).await?;
    let (progress, below) = progress_and_verdict(market, steps);
    let below = match below {
        Some(below) => below,
        None => match tx
            .certification_step_data_in_tx(borrower_id, Step::Job)
            .await?
        {
            Some(sealed) => sealed_income_below(s, borrower_id, market, &sealed)?,
            None => false,
        },
    };
    Ok((progress, below))
}

/// Progress from the steps done, and the income's verdict when the job step's saved one is against today's minimum
/// (false before the job step); `None` when the sealed step must be read to judge it.
fn progress_and_verdict(
    market: Market,
    steps: Vec<StepDoneWithIncome>,
) -> (Progress, Option<bool>) {
    let mut done = BTreeMap::new();
    let mut job = None;
    for row in steps {
        done.insert(row.step, row.completed_at);
        if row.step == Step::Job {
            job = Some(row.income());
        }
    }
    let below = match job {
        None => Some(false),
        Some(Some(verdict)) if verdict.minimum == min_income(market) => Some(verdict.below),
        Some(_) => None,
    };
    (Progress { done }, below)
}

/// The sealed job step decrypted, its income compared with the market's minimum now.
fn sealed_income_below(
    s: &Services,
    borrower_id: &str,
    market: Market,
    sealed: &str,
) -> Result<bool, Error> {
    let data = open_step(s, borrower_id, Step::Job, sealed)?;
    Ok(income_verdict_of(market, &data).is_some_and(|verdict| verdict.below))
}

/// Job steps backfilled per read: their blobs are held in memory a page at a time.
const VERDICTS_PER_PAGE: i64 = 500;

/// Writes the income verdicts of the job steps saved before migration 0050, and rewrites those compared with another
/// minimum than the market's now, in one transaction, if that is still to do (the migration's
/// `income_verdict_backfill_pending` row, deleted in the same transaction: two servers starting at once backfill once;
/// a migration that inserts the row again has the next start judge the steps again). A step saved again meanwhile by
/// another server keeps the verdict that save wrote. Returns how many it wrote. Fails, and the server does not start,
/// when a step does not decrypt (another `secret_key`?).
pub async fn backfill_income_verdicts(
    db: &crate::store::Db,
    secrets: &Secrets,
) -> anyhow::Result<usize> {
    let mut written = 0;
    let mut tx = db.begin().await?;
    if !tx.take_marker(StartupMarker::IncomeVerdicts).await? {
        tx.rollback().await?;
        return Ok(written);
    }
    let mut after = String::new();
    loop {
        let page = tx
            .job_steps_to_judge_after(
                &after,
                VERDICTS_PER_PAGE,
                &[Market::India, Market::Indonesia].map(|m| (m, min_income(m))),
            )
            .await?;
        let Some(last) = page.last() else { break };
        after.clone_from(&last.borrower_id);
        for row in page {
            let data = open_sealed_step(secrets, &row.borrower_id, Step::Job, &row.data_enc)?;
            let verdict = income_verdict_of(row.market, &data).ok_or_else(|| {
                anyhow::anyhow!(
                    "borrower {}'s job step holds another step's data",
                    row.borrower_id
                )
            })?;
            if tx
                .set_income_verdict(&row.borrower_id, &row.data_enc, verdict)
                .await?
            {
                written += 1;
            }
        }
    }
    tx.commit().await?;
    Ok(written)
}

/// The job step's income against the market's minimum, as saved with the step; `None` for the other steps.
pub fn income_verdict_of(market: Market, data: &StepData) -> Option<IncomeVerdict> {
    let StepData::Job(job) = data else {
        return None;
    };
    let minimum = min_income(market);
    Some(IncomeVerdict {
        minimum,
        below: job.income < minimum,
    })
}

/// One step as saved, decrypted, with its completion time.
pub async fn read_step(
    s: &Services,
    borrower: &Borrower,
    step: Step,
) -> Result<Option<(StepData, i64)>, Error> {
    let Some(stored) = s.db.certification_step(&borrower.id, step).await? else {
        return Ok(None);
    };
    Ok(Some((
        open_step(s, &borrower.id, step, &stored.data_enc)?,
        stored.completed_at,
    )))
}

/// A step as the borrower reads it: its saved data, and for the bank step the open loan that keeps the account from
/// changing (the rule [`save_step`] applies to a change), so the app can say so before the borrower fills anything in.
pub struct StepRead {
    pub saved: Option<(StepData, i64)>,
    /// The order number of the open loan; none when the account may change, and for the other steps.
    pub bank_locked_by: Option<String>,
}

/// One step's saved data and, for the bank step, the open loan that locks the account.
pub async fn read_step_view(
    s: &Services,
    borrower: &Borrower,
    step: Step,
) -> Result<StepRead, Error> {
    let saved = read_step(s, borrower, step).await?;
    let bank_locked_by = bank_locked_by(s, borrower, step).await?;
    Ok(StepRead {
        saved,
        bank_locked_by,
    })
}

/// The open order (under review, approved, paid out or overdue) that keeps the bank account from changing.
async fn bank_locked_by(
    s: &Services,
    borrower: &Borrower,
    step: Step,
) -> Result<Option<String>, Error> {
    if step != Step::Bank {
        return Ok(None);
    }
    Ok(s.db.open_order(&borrower.id).await?.map(|o| o.order_no))
}

/// The advance log: each save of a step, oldest first.
pub async fn log(
    s: &Services,
    borrower: &Borrower,
) -> Result<Vec<crate::store::certification::LogEntry>, Error> {
    Ok(s.db.certification_log(&borrower.id).await?)
}

/// A step just saved: its data (unmasked, for the saver) and the next step still to do.
pub struct Saved {
    pub data: StepData,
    pub next: Option<Step>,
    /// As [`StepRead::bank_locked_by`].
    pub bank_locked_by: Option<String>,
}

/// Checks a step against the market's rules and saves it, encrypted. Steps go in order: a step whose earlier steps
/// are not all done is refused (`certification_out_of_order`). Steps are never removed, so the order check cannot be
/// overtaken by a concurrent request. What the save is checked against (a masked number kept, the identity lock, a
/// bank account change) is the step as stored when the borrower's row is locked: a save that finds it changed since
/// its read (another save landing in between) is checked again from the new copy.
pub async fn save_step(
    s: &Services,
    borrower: &Borrower,
    step: Step,
    request: &StepRequest,
) -> Result<Saved, Error> {
    for _ in 0..2 {
        if let Some(saved) = save_step_once(s, borrower, step, request).await? {
            return Ok(saved);
        }
    }
    save_step_once(s, borrower, step, request)
        .await?
        .ok_or_else(|| {
            anyhow::anyhow!(
                "certification step {} kept changing under its save",
                step.code()
            )
            .into()
        })
}

/// [`save_step`] once; `None` when the step changed between its read and the lock (nothing written).
async fn save_step_once(
    s: &Services,
    borrower: &Borrower,
    step: Step,
    request: &StepRequest,
) -> Result<Option<Saved>, Error> {
    let progress = Progress::of(s, borrower).await?;
    if step
        .before()
        .iter()
        .any(|earlier| progress.completed_at(*earlier).is_none())
    {
        return Err(Refusal::CertificationOutOfOrder.into());
    }
    // The step as saved before: a number sent back masked keeps the stored one.
    let stored = s.db.certification_step(&borrower.id, step).await?;
    let previous = match &stored {
        Some(stored) => Some(open_step(s, &borrower.id, step, &stored.data_enc)?),
        None => None,
    };
    let cx = rules::Context {
        market: borrower.market,
        reference: content::reference(),
        own_phone: &borrower.phone,
        previous: previous.as_ref(),
        today: s.clock.today(borrower.market),
    };
    let data = rules::validate(step, request, &cx).map_err(Error::Validation)?;
    let json = serde_json::to_string(&data).map_err(anyhow::Error::from)?;
    let change = match (&previous, &data) {
        (Some(StepData::Bank(before)), StepData::Bank(after)) if before != after => {
            Some(bank_change(s, borrower, request, before, after).await?)
        }
        _ => None,
    };
    let identity = identity_changes(previous.as_ref(), &data);
    let now = s.clock.now_ms();
    // The borrower's live row, held until commit (applications::confirm and account::delete lock the same): a confirm
    // that freezes the bank account into an agreement takes its turn before or after a change, never between, and a
    // deletion either comes first (this answers 401 and writes nothing) or erases what is written here.
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    // Another save landed since the step was read: what this one was checked against is gone.
    let stored_now = tx.certification_step_data_in_tx(&borrower.id, step).await?;
    if stored_now.as_deref() != stored.as_ref().map(|s| s.data_enc.as_str()) {
        tx.rollback().await?;
        return Ok(None);
    }
    // Who the borrower is, and who their emergency contacts are, stay as reviewed while an order is open: an overdue
    // borrower who replaced their PAN/NIK or contacts would take their fingerprints off the duplicate check (a second
    // account with the old ones would look new), and the payout file names the holder from this step.
    let open_order = tx.open_order_status(&borrower.id).await?;
    let mut locked = FieldErrors::default();
    if open_order.is_some() {
        for field in identity {
            locked.add(field, FieldProblem::new("field.identity_locked"));
        }
    }
    // While an application waits for its review, every step stays as the borrower sent it: the reviewer decides on
    // what they read (a job or an income changed meanwhile, below the product's minimum say, would be approved
    // unseen). Withdrawing the application frees them. Every changed field is named at once (an identity field with
    // its own, lasting reason).
    if open_order.as_deref() == Some(OrderState::PendingReview.code()) {
        for field in changed_fields(previous.as_ref(), &data) {
            locked.add(field, FieldProblem::new("field.under_review"));
        }
    }
    if !locked.is_empty() {
        tx.rollback().await?;
        return Err(Error::Validation(locked));
    }
    if let Some(change) = &change {
        // Checked again with the borrower locked, in the transaction that writes.
        if tx.open_order_status(&borrower.id).await?.is_some() {
            tx.rollback().await?;
            return Err(bank_account_locked());
        }
        if !tx.use_login_code(&change.code_id, now).await? {
            tx.rollback().await?;
            return Err(Error::field(
                "verificationCode",
                FieldProblem::new("field.verification_code_expired"),
            ));
        }
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "borrower",
            actor_id: Some(&borrower.id),
            action: "certification.bank_account_change",
            entity: "borrower",
            entity_id: &borrower.id,
            before_json: Some(&change.before),
            after_json: Some(&change.after),
            at: now,
        })
        .await?;
    }
    tx.save_certification_step(
        &borrower.id,
        step,
        &s.secrets
            .encrypt(&json, binding(borrower.id.as_str(), step)),
        income_verdict_of(borrower.market, &data),
        now,
    )
    .await?;
    // The keyed hashes of its PAN/NIK, phones or account, with the encrypted value (duplicates across borrowers).
    tx.replace_fingerprints(
        &borrower.id,
        fingerprints::fields_of(step),
        &fingerprints::of_step(&s.secrets, &data),
    )
    .await?;
    tx.commit().await?;
    let next = Step::ALL
        .into_iter()
        .find(|other| *other != step && progress.completed_at(*other).is_none());
    let bank_locked_by = bank_locked_by(s, borrower, step).await?;
    Ok(Some(Saved {
        data,
        next,
        bank_locked_by,
    }))
}

/// The fields of a step saved again that name who the borrower is (name, date of birth, PAN/NIK) or who their
/// emergency contacts are (the contacts' phones; never called about the loan, but part of the reviewed application)
/// and changed: never while an order is open.
fn identity_changes(previous: Option<&StepData>, data: &StepData) -> Vec<&'static str> {
    let changed =
        |field: &'static str, before: &str, after: &str| (before != after).then_some(field);
    match (previous, data) {
        (Some(StepData::Base(before)), StepData::Base(after)) => [
            changed("fullName", &before.full_name, &after.full_name),
            changed("dateOfBirth", &before.date_of_birth, &after.date_of_birth),
            changed("idNumber", &before.id_number, &after.id_number),
        ]
        .into_iter()
        .flatten()
        .collect(),
        (Some(StepData::Extended(before)), StepData::Extended(after)) => [
            changed(
                "contact1Phone",
                &before.contact1_phone,
                &after.contact1_phone,
            ),
            changed(
                "contact2Phone",
                &before.contact2_phone,
                &after.contact2_phone,
            ),
        ]
        .into_iter()
        .flatten()
        .collect(),
        _ => Vec::new(),
    }
}

/// The fields (as the request names them) whose value a save changes; none for a step saved the first time.
fn changed_fields(previous: Option<&StepData>, data: &StepData) -> Vec<&'static str> {
    fn diff<const N: usize>(pairs: [(&'static str, bool); N]) -> Vec<&'static str> {
        pairs
            .into_iter()
            .filter_map(|(field, changed)| changed.then_some(field))
            .collect()
    }
    match (previous, data) {
        (Some(StepData::Base(b)), StepData::Base(a)) => diff([
            ("fullName", b.full_name != a.full_name),
            ("dateOfBirth", b.date_of_birth != a.date_of_birth),
            ("gender", b.gender != a.gender),
            ("idNumber", b.id_number != a.id_number),
        ]),
        (Some(StepData::Personal(b)), StepData::Personal(a)) => diff([
            ("education", b.education != a.education),
            ("maritalStatus", b.marital_status != a.marital_status),
            ("residenceType", b.residence_type != a.residence_type),
            ("regionCode", b.region_code != a.region_code),
            ("cityCode", b.city_code != a.city_code),
            ("address", b.address != a.address),
            ("postalCode", b.postal_code != a.postal_code),
        ]),
        (Some(StepData::Job(b)), StepData::Job(a)) => diff([
            ("employmentType", b.employment_type != a.employment_type),
            ("employerName", b.employer_name != a.employer_name),
            ("income", b.income != a.income),
            ("payDay", b.pay_day != a.pay_day),
        ]),
        (Some(StepData::Extended(b)), StepData::Extended(a)) => diff([
            ("contact1Name", b.contact1_name != a.contact1_name),
            (
                "contact1Relation",
                b.contact1_relation != a.contact1_relation,
            ),
            ("contact1Phone", b.contact1_phone != a.contact1_phone),
            ("contact2Name", b.contact2_name != a.contact2_name),
            (
                "contact2Relation",
                b.contact2_relation != a.contact2_relation,
            ),
            ("contact2Phone", b.contact2_phone != a.contact2_phone),
            ("consent", b.consent != a.consent),
        ]),
        (Some(StepData::Bank(b)), StepData::Bank(a)) => diff([
            ("bankCode", b.bank_code != a.bank_code),
            ("accountNumber", b.account_number != a.account_number),
            ("ifsc", b.ifsc != a.ifsc),
        ]),
        _ => Vec::new(),
    }
}

/// A change of the bank account on file, checked: the verification code's id to use with it and the audit's before
/// and after (numbers masked).
struct BankChange {
    code_id: String,
    before: String,
    after: String,
}

fn bank_account_locked() -> Error {
    Error::field(
        "accountNumber",
        FieldProblem::new("field.bank_account_locked"),
    )
}

fn masked_bank(bank: &BankInfo) -> Result<String, Error> {
    Ok(serde_json::to_string(&serde_json::json!({
        "bankCode": bank.bank_code,
        "accountNumber": mask_account(&bank.account_number),
        "ifsc": bank.ifsc,
    }))
    .map_err(anyhow::Error::from)?)
}

/// The rule on changing the bank account after certification (PRODUCT.md §3): never while the borrower has an open
/// order (under review, approved, paid out or overdue), and otherwise only with the verification code sent to their
/// own phone for it (`POST /verification-code`, purpose `bank_account`). One of the code's tries is used here; the
/// code itself is used with the change, in its transaction.
async fn bank_change(
    s: &Services,
    borrower: &Borrower,
    request: &StepRequest,
    before: &BankInfo,
    after: &BankInfo,
) -> Result<BankChange, Error> {
    if s.db.open_order(&borrower.id).await?.is_some() {
        return Err(bank_account_locked());
    }
    let code = match request.get("verificationCode") {
        Some(serde_json::Value::String(c)) => c.trim().to_owned(),
        Some(serde_json::Value::Number(n)) => n.to_string(),
        _ => String::new(),
    };
    let field = |key: &'static str| Error::field("verificationCode", FieldProblem::new(key));
    if code.is_empty() {
        return Err(field("field.verification_code_required"));
    }
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(field("field.invalid_code"));
    }
    let code_id = SignInService::of(s)
        .check_verification_code(borrower, CodePurpose::BankAccount, &code)
        .await
        .map_err(|err| match err {
            SignInError::CodeInvalid => field("field.verification_code_wrong"),
            SignInError::CodeExpired => field("field.verification_code_expired"),
            SignInError::AttemptsExceeded => field("field.verification_code_attempts"),
            other => Error::SignIn(other),
        })?;
    Ok(BankChange {
        code_id,
        before: masked_bank(before)?,
        after: masked_bank(after)?,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// Every answer of every step is named by [`changed_fields`] when it alone changes: a field added to a step later
    /// fails here until it is listed there (else it could change unseen while an application waits for review); the
    /// samples below stop deserializing when a required field is added, so they cannot fall behind either.
    #[test]
    fn every_answer_of_every_step_is_named_when_it_alone_changes() {
        let steps = [
            json!({"step": "base", "fullName": "Asha Verma", "dateOfBirth": "1992-03-14", "gender": "female",
                "idNumber": "ABCPE1234F"}),
            json!({"step": "personal", "education": "graduate", "maritalStatus": "single", "residenceType": "rented",
                "regionCode": "MH", "cityCode": "MUM", "address": "12 Hill Road", "postalCode": "400050"}),
            json!({"step": "job", "employmentType": "salaried_private", "employerName": "Infosys",
                "income": 4_500_000, "payDay": 1}),
            json!({"step": "extended", "contact1Name": "Ravi", "contact1Relation": "sibling",
                "contact1Phone": "+919876500001", "contact2Name": "Meena", "contact2Relation": "parent",
                "contact2Phone": "+919876500002", "consent": true}),
            json!({"step": "bank", "bankCode": "HDFC", "accountNumber": "501001234567", "ifsc": "HDFC0001234"}),
        ];
        for step in steps {
            let before: StepData = serde_json::from_value(step.clone()).unwrap();
            for (field, value) in step.as_object().unwrap() {
                if field == "step" {
                    continue;
                }
                let mut changed = step.clone();
                changed[field] = match value {
                    Value::String(s) => Value::String(format!("{s}9")),
                    Value::Number(n) => json!(n.as_i64().unwrap() + 1),
                    Value::Bool(b) => Value::Bool(!b),
                    other => panic!("{field}: {other}"),
                };
                let after: StepData = serde_json::from_value(changed).unwrap();
                assert_eq!(
                    changed_fields(Some(&before), &after),
                    [field.as_str()],
                    "{field}"
                );
            }
            assert!(changed_fields(Some(&before), &before).is_empty());
            assert!(changed_fields(None, &before).is_empty());
        }
    }
}
