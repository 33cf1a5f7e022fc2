//! The rules of the five certification steps, per market, and masking (docs/API-BORROWER.md). Requests arrive as
//! loose maps (JSON or form) and leave as checked step data, or as the list of fields at fault.

use std::collections::BTreeMap;

use kilat_domain::{Code, Market, Phone};
use serde::{Deserialize, Serialize};
use time::{Date, Month};
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::content::{EnumKind, ReferenceData};
use crate::error::{FieldErrors, FieldProblem};

/// The steps, in the order they must be completed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Base,
    Personal,
    Job,
    Extended,
    Bank,
}

impl Code for Step {
    const ALL: &'static [Step] = &Step::ALL;

    fn code(self) -> &'static str {
        match self {
            Step::Base => "base",
            Step::Personal => "personal",
            Step::Job => "job",
            Step::Extended => "extended",
            Step::Bank => "bank",
        }
    }
}
kilat_domain::string_codec!(Step);

impl Step {
    pub const ALL: [Step; 5] = [
        Step::Base,
        Step::Personal,
        Step::Job,
        Step::Extended,
        Step::Bank,
    ];

    pub fn as_str(self) -> &'static str {
        self.code()
    }

    pub fn parse(s: &str) -> Option<Step> {
        Step::from_code(s)
    }

    /// The steps that must be done before this one.
    pub fn before(self) -> &'static [Step] {
        let i = Step::ALL.iter().position(|s| *s == self).unwrap_or(0);
        &Step::ALL[..i]
    }

    pub fn next(self) -> Option<Step> {
        let i = Step::ALL.iter().position(|s| *s == self)?;
        Step::ALL.get(i + 1).copied()
    }
}

/// Identity as on the ID card (PAN in India, NIK in Indonesia).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BaseInfo {
    pub full_name: String,
    /// `YYYY-MM-DD`.
    pub date_of_birth: String,
    pub gender: String,
    pub id_number: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PersonalInfo {
    pub education: String,
    pub marital_status: String,
    pub residence_type: String,
    pub region_code: String,
    pub city_code: String,
    pub address: String,
    pub postal_code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct JobInfo {
    pub employment_type: String,
    pub employer_name: String,
    /// Minor units: a month's income in India, a year's in Indonesia.
    pub income: i64,
    pub pay_day: u8,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtendedInfo {
    pub contact1_name: String,
    pub contact1_relation: String,
    /// E.164.
    pub contact1_phone: String,
    pub contact2_name: String,
    pub contact2_relation: String,
    pub contact2_phone: String,
    pub consent: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BankInfo {
    pub bank_code: String,
    /// Digits only.
    pub account_number: String,
    /// India only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ifsc: Option<String>,
}

/// One step's saved data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum StepData {
    Base(BaseInfo),
    Personal(PersonalInfo),
    Job(JobInfo),
    Extended(ExtendedInfo),
    Bank(BankInfo),
}

impl StepData {
    pub fn step(&self) -> Step {
        match self {
            StepData::Base(_) => Step::Base,
            StepData::Personal(_) => Step::Personal,
            StepData::Job(_) => Step::Job,
            StepData::Extended(_) => Step::Extended,
            StepData::Bank(_) => Step::Bank,
        }
    }

    /// The fields as the API shows them; `masked` hides ID and account numbers but their last four characters.
    pub fn to_view(&self, masked: bool) -> serde_json::Value {
        let mut value = match self {
            StepData::Base(d) => serde_json::to_value(d),
            StepData::Personal(d) => serde_json::to_value(d),
            StepData::Job(d) => serde_json::to_value(d),
            StepData::Extended(d) => serde_json::to_value(d),
            StepData::Bank(d) => serde_json::to_value(d),
        }
        .unwrap_or_default();
        if masked && let Some(map) = value.as_object_mut() {
            if let StepData::Base(d) = self {
                map.insert("idNumber".into(), mask_id(&d.id_number).into());
            }
            if let StepData::Bank(d) = self {
                map.insert(
                    "accountNumber".into(),
                    mask_account(&d.account_number).into(),
                );
            }
        }
        value
    }

    /// The fields as an operator's order view shows them. Unmasked for a reviewer (each view audited); `masked` for
    /// everyone else, as [`StepData::to_view`] masks a borrower's own numbers and, beyond those, the emergency
    /// contacts' phones as [`mask_phone`] shows a phone: third parties' numbers, partly visible to support, never
    /// whole (docs/API-CONSOLE.md, "Collections"). The borrower reads their own contacts' numbers whole: their form
    /// is filled with them.
    pub fn to_operator_view(&self, masked: bool) -> serde_json::Value {
        let mut value = self.to_view(masked);
        if masked
            && let StepData::Extended(d) = self
            && let Some(map) = value.as_object_mut()
        {
            map.insert("contact1Phone".into(), mask_phone(&d.contact1_phone).into());
            map.insert("contact2Phone".into(), mask_phone(&d.contact2_phone).into());
        }
        value
    }
}

/// A stored phone (E.164) as [`Phone::masked`] shows it, `+91 ******3210`; one that is no market's number any more
/// (a rule changed since it was saved) keeps only its last four digits all the same.
pub fn mask_phone(stored: &str) -> String {
    Market::ALL
        .iter()
        .find_map(|m| Phone::parse(*m, stored).ok())
        .map(|phone| phone.masked())
        .unwrap_or_else(|| mask_id(stored))
}

/// `ABCPE1234F` → `******234F`.
pub fn mask_id(id: &str) -> String {
    let chars: Vec<char> = id.chars().collect();
    let keep = chars.len().min(4);
    let hidden = chars.len() - keep;
    "*".repeat(hidden) + &chars[hidden..].iter().collect::<String>()
}

/// `123456784321` → `**** **** 4321`.
pub fn mask_account(number: &str) -> String {
    let tail: String = number
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("**** **** {tail}")
}

/// A step's request: field name → value as sent (JSON values, or strings from a form).
pub type StepRequest = BTreeMap<String, serde_json::Value>;

/// What a step's rules need besides the request.
pub struct Context<'a> {
    pub market: Market,
    pub reference: &'a ReferenceData,
    /// The borrower's own phone (an emergency contact cannot be it).
    pub own_phone: &'a Phone,
    /// The step as saved before, to keep a number sent back masked.
    pub previous: Option<&'a StepData>,
    pub today: Date,
}

/// Checks a step's request against the market's rules.
pub fn validate(step: Step, req: &StepRequest, cx: &Context<'_>) -> Result<StepData, FieldErrors> {
    let mut f = Fields {
        req,
        errors: FieldErrors::default(),
    };
    let data = match step {
        Step::Base => base(&mut f, cx).map(StepData::Base),
        Step::Personal => personal(&mut f, cx).map(StepData::Personal),
        Step::Job => job(&mut f, cx).map(StepData::Job),
        Step::Extended => extended(&mut f, cx).map(StepData::Extended),
        Step::Bank => bank(&mut f, cx).map(StepData::Bank),
    };
    match data {
        Some(data) if f.errors.is_empty() => Ok(data),
        _ => Err(f.errors),
    }
}

/// The minimum income of a market, per `income_period` (SPEC.md §9): ₹12,000 a month; Rp5,000,000 a year. Each job
/// step keeps its verdict against the minimum of when it was saved (migration 0050); after a change here, the steps
/// compared with the old minimum are judged from their sealed incomes until saved again, or until a start finds
/// `income_verdict_backfill_pending`'s row (a migration that inserts it has them all judged again at the next start).
pub fn min_income(market: Market) -> i64 {
    match market {
        Market::India => 1_200_000,       // ₹12,000
        Market::Indonesia => 500_000_000, // Rp5,000,000
    }
}

/// `month` (India) or `year` (Indonesia).
pub fn income_period(market: Market) -> &'static str {
    match market {
        Market::India => "month",
        Market::Indonesia => "year",
    }
}

pub const MIN_AGE: i32 = 18;
pub const MAX_AGE: i32 = 65;

struct Fields<'a> {
    req: &'a StepRequest,
    errors: FieldErrors,
}

impl Fields<'_> {
    /// The field as trimmed text; numbers and booleans are accepted as their text.
    fn raw(&self, name: &str) -> Option<String> {
        match self.req.get(name)? {
            serde_json::Value::String(s) => Some(s.trim().to_owned()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
        .filter(|s| !s.is_empty())
    }

    fn required(&mut self, name: &'static str) -> Option<String> {
        let value = self.raw(name);
        if value.is_none() {
            self.errors.add(name, FieldProblem::required());
        }
        value
    }

    /// Free text of `min..=max` characters, inner runs of spaces collapsed.
    fn text(&mut self, name: &'static str, min: usize, max: usize) -> Option<String> {
        let value = self.required(name)?;
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        let len = value.chars().count();
        if len > max {
            self.errors.add(name, FieldProblem::too_long(max));
            return None;
        }
        if len < min {
            self.errors
                .add(name, FieldProblem::new("field.too_short").with("min", min));
            return None;
        }
        if has_invisible(&value) {
            self.errors
                .add(name, FieldProblem::new("field.special_characters"));
            return None;
        }
        Some(value)
    }

    /// A person's name: [`Fields::text`] of letters (any script, with their marks, and a joiner after a virama), spaces
    /// and `.` `'` `-` only — no digits of any script, no emoji or symbols — and at least one letter.
    fn person_name(&mut self, name: &'static str, problem: &'static str) -> Option<String> {
        let value = self.text(name, 2, 100)?;
        let allowed = |c: char| {
            c.is_alphabetic()
                || c.general_category_group() == GeneralCategoryGroup::Mark
                || matches!(c, ' ' | '.' | '\'' | '’' | '-' | '\u{200C}' | '\u{200D}')
        };
        if !value.chars().all(allowed) || !value.chars().any(char::is_alphabetic) {
            return self.fail(name, FieldProblem::new(problem));
        }
        Some(value)
    }

    fn choice(&mut self, name: &'static str, kind: EnumKind, cx: &Context<'_>) -> Option<String> {
        let value = self.required(name)?;
        if cx.reference.has(cx.market, kind, &value) {
            Some(value)
        } else {
            self.errors.add(name, unknown_choice());
            None
        }
    }

    fn fail(&mut self, name: &'static str, problem: FieldProblem) -> Option<String> {
        self.errors.add(name, problem);
        None
    }
}

/// True when `text` holds a control character or one that shows nothing yet changes what it looks like
/// ([`invisible`]), except a zero-width joiner or non-joiner right after a virama: Indian scripts need them there
/// (a Malayalam chillu typed as NA, virama and joiner; a Bengali ra-phala; an explicit half form).
fn has_invisible(text: &str) -> bool {
    let mut before = None;
    text.chars().any(|c| {
        let joins_after_virama = matches!(c, '\u{200C}' | '\u{200D}') && before.is_some_and(virama);
        before = Some(c);
        c.is_control() || (invisible(c) && !joins_after_virama)
    })
}

/// A character that shows nothing yet changes what a text looks like: every default-ignorable code point (Unicode's
/// `Default_Ignorable_Code_Point`: zero-width spaces and joiners, direction marks and overrides, which can show a name
/// reversed, the byte-order mark, the soft hyphen, variation selectors, fillers that count as letters such as the
/// Hangul filler, tag characters), and the Mongolian vowel separator.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}'..='\u{1160}' | '\u{17B4}'..='\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFF8}'
        | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// The virama (halant) of the Indian scripts and Sinhala: the sign a joiner or non-joiner may follow.
fn virama(c: char) -> bool {
    matches!(
        c,
        '\u{094D}'
            | '\u{09CD}'
            | '\u{0A4D}'
            | '\u{0ACD}'
            | '\u{0B4D}'
            | '\u{0BCD}'
            | '\u{0C4D}'
            | '\u{0CCD}'
            | '\u{0D3B}'
            | '\u{0D3C}'
            | '\u{0D4D}'
            | '\u{0DCA}'
    )
}

fn unknown_choice() -> FieldProblem {
    FieldProblem::new("field.unknown_choice")
}

fn base(f: &mut Fields<'_>, cx: &Context<'_>) -> Option<BaseInfo> {
    let full_name = f.person_name("fullName", "field.name_as_on_id");
    let date_of_birth = f.required("dateOfBirth").and_then(|raw| {
        let Some(date) = parse_date(&raw) else {
            return f.fail("dateOfBirth", FieldProblem::new("field.date_format"));
        };
        let age = age_on(date, cx.today);
        if !(MIN_AGE..=MAX_AGE).contains(&age) {
            return f.fail(
                "dateOfBirth",
                FieldProblem::new("field.age_range")
                    .with("min", MIN_AGE)
                    .with("max", MAX_AGE),
            );
        }
        Some(raw)
    });
    let gender = f.choice("gender", EnumKind::Gender, cx);
    let previous = match cx.previous {
        Some(StepData::Base(b)) => Some(b.id_number.as_str()),
        _ => None,
    };
    let id_number = f.required("idNumber").and_then(|raw| {
        let raw = raw.to_ascii_uppercase().replace([' ', '-'], "");
        if let Some(previous) = previous
            && raw == mask_id(previous)
        {
            return Some(previous.to_owned());
        }
        match cx.market {
            Market::India if is_pan_of_person(&raw) => Some(raw),
            Market::India => f.fail("idNumber", FieldProblem::new("field.pan")),
            Market::Indonesia if is_nik(&raw) => Some(raw),
            Market::Indonesia => f.fail("idNumber", FieldProblem::new("field.nik")),
        }
    });
    Some(BaseInfo {
        full_name: full_name?,
        date_of_birth: date_of_birth?,
        gender: gender?,
        id_number: id_number?,
    })
}

fn personal(f: &mut Fields<'_>, cx: &Context<'_>) -> Option<PersonalInfo> {
    let education = f.choice("education", EnumKind::Education, cx);
    let marital_status = f.choice("maritalStatus", EnumKind::MaritalStatus, cx);
    let residence_type = f.choice("residenceType", EnumKind::ResidenceType, cx);
    let region_code = f.required("regionCode").and_then(|r| {
        if cx.reference.region_exists(cx.market, &r) {
            Some(r)
        } else {
            f.fail("regionCode", unknown_choice())
        }
    });
    let city_code = f.required("cityCode");
    let city_code = match (&region_code, city_code) {
        (Some(region), Some(city)) if cx.reference.place(cx.market, region, &city).is_none() => {
            f.fail("cityCode", FieldProblem::new("field.city_of_region"))
        }
        (_, city) => city,
    };
    let address = f.text("address", 5, 200);
    let digits = match cx.market {
        Market::India => 6,
        Market::Indonesia => 5,
    };
    let postal_code = f.required("postalCode").and_then(|p| {
        let ok = p.len() == digits
            && p.bytes().all(|b| b.is_ascii_digit())
            && !(cx.market == Market::India && p.starts_with('0'));
        if ok {
            Some(p)
        } else {
            f.fail(
                "postalCode",
                FieldProblem::new("field.postal_code").with("digits", digits),
            )
        }
    });
    Some(PersonalInfo {
        education: education?,
        marital_status: marital_status?,
        residence_type: residence_type?,
        region_code: region_code?,
        city_code: city_code?,
        address: address?,
        postal_code: postal_code?,
    })
}

fn job(f: &mut Fields<'_>, cx: &Context<'_>) -> Option<JobInfo> {
    let employment_type = f.choice("employmentType", EnumKind::EmploymentType, cx);
    let employer_name = f.text("employerName", 2, 100);
    let income = f.required("income").and_then(|raw| {
        match raw.parse::<i64>() {
            // Up to ten billion in major units: more than any borrower of an instant loan earns.
            Ok(n) if n > 0 && n <= 1_000_000_000_000 => Some(n),
            _ => {
                f.errors.add("income", FieldProblem::new("field.income"));
                None
            }
        }
    });
    let pay_day = f
        .required("payDay")
        .and_then(|raw| match raw.parse::<u8>() {
            Ok(d) if (1..=31).contains(&d) => Some(d),
            _ => {
                f.errors.add("payDay", FieldProblem::new("field.pay_day"));
                None
            }
        });
    Some(JobInfo {
        employment_type: employment_type?,
        employer_name: employer_name?,
        income: income?,
        pay_day: pay_day?,
    })
}

fn extended(f: &mut Fields<'_>, cx: &Context<'_>) -> Option<ExtendedInfo> {
    let name1 = f.person_name("contact1Name", "field.person_name");
    let relation1 = f.choice("contact1Relation", EnumKind::Relation, cx);
    let phone1 = contact_phone(f, "contact1Phone", cx);
    let name2 = f.person_name("contact2Name", "field.person_name");
    let relation2 = f.choice("contact2Relation", EnumKind::Relation, cx);
    let mut phone2 = contact_phone(f, "contact2Phone", cx);
    if phone1.is_some() && phone1 == phone2 {
        phone2 = f.fail(
            "contact2Phone",
            FieldProblem::new("field.two_different_people"),
        );
    }
    let consent = match f.raw("consent").as_deref() {
        Some("true" | "1" | "on" | "yes") => true,
        _ => {
            f.fail("consent", FieldProblem::new("field.contacts_consent"));
            false
        }
    };
    Some(ExtendedInfo {
        contact1_name: name1?,
        contact1_relation: relation1?,
        contact1_phone: phone1?,
        contact2_name: name2?,
        contact2_relation: relation2?,
        contact2_phone: phone2?,
        consent: consent.then_some(true)?,
    })
}

fn contact_phone(f: &mut Fields<'_>, name: &'static str, cx: &Context<'_>) -> Option<String> {
    let raw = f.required(name)?;
    match Phone::parse(cx.market, &raw) {
        Ok(phone) if phone == *cx.own_phone => {
            f.fail(name, FieldProblem::new("field.not_own_number"))
        }
        Ok(phone) => Some(phone.e164().to_owned()),
        Err(_) => f.fail(name, FieldProblem::invalid_phone()),
    }
}

fn bank(f: &mut Fields<'_>, cx: &Context<'_>) -> Option<BankInfo> {
    let bank_code = f.required("bankCode").and_then(|code| {
        if cx.reference.bank_name(cx.market, &code).is_some() {
            Some(code)
        } else {
            f.fail("bankCode", unknown_choice())
        }
    });
    let (min, max) = account_digits(cx.market);
    let previous = match cx.previous {
        Some(StepData::Bank(b)) => Some(b.account_number.as_str()),
        _ => None,
    };
    let account_number = f.required("accountNumber").and_then(|raw| {
        let compact: String = raw.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(previous) = previous
            && (raw == mask_account(previous) || compact == mask_account(previous).replace(' ', ""))
        {
            return Some(previous.to_owned());
        }
        if compact.len() < min
            || compact.len() > max
            || !compact.bytes().all(|b| b.is_ascii_digit())
        {
            return f.fail(
                "accountNumber",
                FieldProblem::new("field.account_digits")
                    .with("min", min)
                    .with("max", max),
            );
        }
        let confirm: String = f
            .raw("accountNumberConfirm")
            .unwrap_or_default()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if confirm.is_empty() {
            return f.fail("accountNumberConfirm", FieldProblem::required());
        }
        if confirm != compact {
            return f.fail(
                "accountNumberConfirm",
                FieldProblem::new("field.numbers_differ"),
            );
        }
        Some(compact)
    });
    let ifsc = match cx.market {
        Market::Indonesia => None,
        Market::India => f.required("ifsc").and_then(|raw| {
            let ifsc = raw.to_ascii_uppercase();
            if !is_ifsc(&ifsc) {
                return f.fail("ifsc", FieldProblem::new("field.ifsc"));
            }
            if let Some(bank) = &bank_code
                && !ifsc.starts_with(bank.as_str())
            {
                return f.fail("ifsc", FieldProblem::new("field.ifsc_other_bank"));
            }
            Some(ifsc)
        }),
    };
    if cx.market == Market::India && ifsc.is_none() {
        return None;
    }
    Some(BankInfo {
        bank_code: bank_code?,
        account_number: account_number?,
        ifsc,
    })
}

/// The digits an account or card number may have.
pub fn account_digits(market: Market) -> (usize, usize) {
    match market {
        Market::India => (9, 18),
        Market::Indonesia => (10, 16),
    }
}

/// `YYYY-MM-DD`, a real calendar date.
fn parse_date(s: &str) -> Option<Date> {
    let mut parts = s.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let month = Month::try_from(m.parse::<u8>().ok()?).ok()?;
    Date::from_calendar_date(y.parse().ok()?, month, d.parse().ok()?).ok()
}

/// The age in whole years on `today` of someone born on `date_of_birth` (`YYYY-MM-DD`), if it is a date.
pub fn age_from(date_of_birth: &str, today: Date) -> Option<i32> {
    parse_date(date_of_birth).map(|birth| age_on(birth, today))
}

/// Whole years from `birth` to `today`.
fn age_on(birth: Date, today: Date) -> i32 {
    let mut age = today.year() - birth.year();
    if (today.month() as u8, today.day()) < (birth.month() as u8, birth.day()) {
        age -= 1;
    }
    age
}

/// A person's PAN: 5 letters (the 4th is `P`), 4 digits, 1 letter.
fn is_pan_of_person(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[..5].iter().all(u8::is_ascii_uppercase)
        && b[3] == b'P'
        && b[5..9].iter().all(u8::is_ascii_digit)
        && b[9].is_ascii_uppercase()
}

/// A NIK: 16 digits, not starting with 0.
fn is_nik(s: &str) -> bool {
    s.len() == 16 && s.bytes().all(|b| b.is_ascii_digit()) && !s.starts_with('0')
}

/// `AAAA0XXXXXX`: the bank's 4 letters, a zero, 6 letters or digits for the branch.
fn is_ifsc(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 11
        && b[..4].iter().all(u8::is_ascii_uppercase)
        && b[4] == b'0'
        && b[5..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use time::macros::date;

    use super::*;

    fn request(value: serde_json::Value) -> StepRequest {
        serde_json::from_value(value).unwrap()
    }

    fn run(
        market: Market,
        step: Step,
        body: serde_json::Value,
        previous: Option<&StepData>,
    ) -> Result<StepData, Vec<String>> {
        let reference = ReferenceData::load().unwrap();
        let own = match market {
            Market::India => Phone::parse(market, "9876543210").unwrap(),
            Market::Indonesia => Phone::parse(market, "081234567890").unwrap(),
        };
        let cx = Context {
            market,
            reference: &reference,
            own_phone: &own,
            previous,
            today: date!(2026 - 11 - 23),
        };
        validate(step, &request(body), &cx)
            .map_err(|e| e.fields().map(|(k, _)| k.to_owned()).collect())
    }

    #[test]
    fn pan_and_nik_by_market() {
        assert!(is_pan_of_person("ABCPE1234F"));
        assert!(
            !is_pan_of_person("ABCDE1234F"),
            "4th letter C/D… is not a person"
        );
        assert!(!is_pan_of_person("ABCP1234F"));
        assert!(is_nik("3171234567890001"));
        assert!(!is_nik("0171234567890001"));
        assert!(!is_nik("317123456789000"));
        let ok = json!({"fullName": "Asha Verma", "dateOfBirth": "1990-05-17", "gender": "female", "idNumber": "abcpe1234f"});
        let Ok(StepData::Base(b)) = run(Market::India, Step::Base, ok, None) else {
            panic!()
        };
        assert_eq!(b.id_number, "ABCPE1234F", "upper-cased");
        let nik_in_india = json!({"fullName": "Asha Verma", "dateOfBirth": "1990-05-17", "gender": "female", "idNumber": "3171234567890001"});
        assert_eq!(
            run(Market::India, Step::Base, nik_in_india, None),
            Err(vec!["idNumber".to_owned()])
        );
    }

    #[test]
    fn age_bounds_and_real_dates() {
        let body = |dob: &str| json!({"fullName": "Budi Santoso", "dateOfBirth": dob, "gender": "male", "idNumber": "3171234567890001"});
        assert!(
            run(Market::Indonesia, Step::Base, body("2008-11-23"), None).is_ok(),
            "18 today"
        );
        assert!(
            run(Market::Indonesia, Step::Base, body("2008-11-24"), None).is_err(),
            "18 tomorrow"
        );
        assert!(
            run(Market::Indonesia, Step::Base, body("1961-11-24"), None).is_ok(),
            "65"
        );
        assert!(
            run(Market::Indonesia, Step::Base, body("1960-11-23"), None).is_err(),
            "66"
        );
        assert!(run(Market::Indonesia, Step::Base, body("1990-02-30"), None).is_err());
        assert!(run(Market::Indonesia, Step::Base, body("17/05/1990"), None).is_err());
    }

    #[test]
    fn a_masked_id_sent_back_keeps_the_stored_one() {
        let previous = StepData::Base(BaseInfo {
            full_name: "Asha Verma".into(),
            date_of_birth: "1990-05-17".into(),
            gender: "female".into(),
            id_number: "ABCPE1234F".into(),
        });
        let body = json!({"fullName": "Asha K Verma", "dateOfBirth": "1990-05-17", "gender": "female", "idNumber": "******234F"});
        let Ok(StepData::Base(b)) = run(Market::India, Step::Base, body, Some(&previous)) else {
            panic!()
        };
        assert_eq!(b.id_number, "ABCPE1234F");
        assert_eq!(b.full_name, "Asha K Verma");
        // Without a stored number, a masked value is just invalid.
        let body = json!({"fullName": "Asha Verma", "dateOfBirth": "1990-05-17", "gender": "female", "idNumber": "******234F"});
        assert!(run(Market::India, Step::Base, body, None).is_err());
    }

    #[test]
    fn a_name_is_letters_of_any_script_never_invisible_or_reversing_characters_digits_or_emoji() {
        let body = |name: &str| json!({"fullName": name, "dateOfBirth": "1990-05-17", "gender": "female", "idNumber": "ABCPE1234F"});
        for good in [
            "Asha Verma",
            "D'Souza Anne-Marie",
            "Siti Nurhaliza",
            "आशा वर्मा",
            "Dr. R. K. Rao",
            // Malayalam "Anwar" with its chillus typed as NA or RA, virama and zero-width joiner; a Bengali ra-phala.
            "\u{0D05}\u{0D28}\u{0D4D}\u{200D}\u{0D35}\u{0D30}\u{0D4D}\u{200D}",
            "\u{0995}\u{09CD}\u{200D}\u{09AF}\u{09BE}",
        ] {
            assert!(
                run(Market::India, Step::Base, body(good), None).is_ok(),
                "{good}"
            );
        }
        for bad in [
            "\u{200B}\u{200B}",
            "Asha\u{202E}amreV",
            "As\u{200D}ha Verma",
            "\u{200D}\u{0D4D}Anwar",
            // Invisible characters that count as letters or marks: the Hangul filler, the combining grapheme joiner, a
            // variation selector; a tag character.
            "\u{3164}\u{3164}",
            "As\u{034F}ha Verma",
            "Asha\u{FE0F} Verma",
            "Asha\u{E0041} Verma",
            "Asha 😀 Verma",
            "Asha ४ Verma",
            "R4vi",
            "Asha & Co",
            "..",
        ] {
            assert_eq!(
                run(Market::India, Step::Base, body(bad), None),
                Err(vec!["fullName".to_owned()]),
                "{bad:?}"
            );
        }
        let contacts = |name: &str| {
            json!({"contact1Name": name, "contact1Relation": "parent", "contact1Phone": "9811122233",
                "contact2Name": "Ravi Kumar", "contact2Relation": "sibling", "contact2Phone": "9811122244", "consent": true})
        };
        assert!(
            run(
                Market::India,
                Step::Extended,
                contacts("Sunita Verma"),
                None
            )
            .is_ok()
        );
        assert_eq!(
            run(
                Market::India,
                Step::Extended,
                contacts("\u{FEFF}\u{2060}"),
                None
            ),
            Err(vec!["contact1Name".to_owned()])
        );
    }

    #[test]
    fn every_missing_field_is_named() {
        let Err(fields) = run(Market::India, Step::Personal, json!({}), None) else {
            panic!()
        };
        assert_eq!(
            fields,
            [
                "address",
                "cityCode",
                "education",
                "maritalStatus",
                "postalCode",
                "regionCode",
                "residenceType"
            ]
        );
        let Err(fields) = run(Market::India, Step::Bank, json!({}), None) else {
            panic!()
        };
        assert_eq!(fields, ["accountNumber", "bankCode", "ifsc"]);
        let Err(fields) = run(Market::Indonesia, Step::Bank, json!({}), None) else {
            panic!()
        };
        assert_eq!(
            fields,
            ["accountNumber", "bankCode"],
            "no IFSC in Indonesia"
        );
    }

    #[test]
    fn bank_numbers_twice_and_ifsc_of_the_bank() {
        let body = |confirm: &str, ifsc: &str| json!({"bankCode": "HDFC", "accountNumber": "5010 0123 4567", "accountNumberConfirm": confirm, "ifsc": ifsc});
        let Ok(StepData::Bank(b)) = run(
            Market::India,
            Step::Bank,
            body("501001234567", "hdfc0001234"),
            None,
        ) else {
            panic!()
        };
        assert_eq!(
            (b.account_number.as_str(), b.ifsc.as_deref()),
            ("501001234567", Some("HDFC0001234"))
        );
        assert_eq!(
            run(
                Market::India,
                Step::Bank,
                body("501001234568", "HDFC0001234"),
                None
            ),
            Err(vec!["accountNumberConfirm".into()])
        );
        assert_eq!(
            run(
                Market::India,
                Step::Bank,
                body("501001234567", "SBIN0001234"),
                None
            ),
            Err(vec!["ifsc".into()])
        );
        assert_eq!(
            run(
                Market::India,
                Step::Bank,
                body("501001234567", "HDFC1001234"),
                None
            ),
            Err(vec!["ifsc".into()])
        );
        let short =
            json!({"bankCode": "014", "accountNumber": "123", "accountNumberConfirm": "123"});
        assert_eq!(
            run(Market::Indonesia, Step::Bank, short, None),
            Err(vec!["accountNumber".into()])
        );
    }

    #[test]
    fn emergency_contacts_need_consent_and_two_other_people() {
        let body = |p1: &str, p2: &str, consent: serde_json::Value| {
            json!({
            "contact1Name": "Ravi Verma", "contact1Relation": "parent", "contact1Phone": p1,
            "contact2Name": "Meena Rao", "contact2Relation": "friend", "contact2Phone": p2, "consent": consent})
        };
        let Ok(StepData::Extended(e)) = run(
            Market::India,
            Step::Extended,
            body("98111 22233", "+91 9822233344", json!(true)),
            None,
        ) else {
            panic!()
        };
        assert_eq!(e.contact1_phone, "+919811122233");
        assert_eq!(
            run(
                Market::India,
                Step::Extended,
                body("9811122233", "9811122233", json!(true)),
                None
            ),
            Err(vec!["contact2Phone".into()])
        );
        assert_eq!(
            run(
                Market::India,
                Step::Extended,
                body("9876543210", "9811122233", json!(true)),
                None
            ),
            Err(vec!["contact1Phone".into()]),
            "own phone"
        );
        assert_eq!(
            run(
                Market::India,
                Step::Extended,
                body("9811122233", "9822233344", json!(false)),
                None
            ),
            Err(vec!["consent".into()])
        );
        assert!(
            run(
                Market::India,
                Step::Extended,
                body("9811122233", "9822233344", json!("on")),
                None
            )
            .is_ok(),
            "a form's checkbox"
        );
    }

    #[test]
    fn job_income_and_pay_day() {
        let body = |income: serde_json::Value, day: serde_json::Value| json!({"employmentType": "salaried_private", "employerName": "Infosys", "income": income, "payDay": day});
        assert!(
            run(
                Market::India,
                Step::Job,
                body(json!(2500000), json!(1)),
                None
            )
            .is_ok()
        );
        assert!(
            run(
                Market::India,
                Step::Job,
                body(json!("2500000"), json!("31")),
                None
            )
            .is_ok(),
            "form strings"
        );
        assert_eq!(
            run(Market::India, Step::Job, body(json!(0), json!(1)), None),
            Err(vec!["income".into()])
        );
        assert_eq!(
            run(Market::India, Step::Job, body(json!(12.5), json!(1)), None),
            Err(vec!["income".into()])
        );
        assert_eq!(
            run(Market::India, Step::Job, body(json!(100), json!(32)), None),
            Err(vec!["payDay".into()])
        );
    }

    #[test]
    fn masks_keep_only_the_last_four() {
        assert_eq!(mask_id("ABCPE1234F"), "******234F");
        assert_eq!(mask_account("501001234567"), "**** **** 4567");
        let data = StepData::Bank(BankInfo {
            bank_code: "HDFC".into(),
            account_number: "501001234567".into(),
            ifsc: None,
        });
        assert_eq!(data.to_view(true)["accountNumber"], "**** **** 4567");
        assert_eq!(data.to_view(false)["accountNumber"], "501001234567");
    }

    #[test]
    fn an_operators_masked_view_masks_the_emergency_contacts_phones_and_the_borrowers_own_does_not()
    {
        let data = StepData::Extended(ExtendedInfo {
            contact1_name: "Asha Rao".into(),
            contact1_relation: "parent".into(),
            contact1_phone: "+919811122233".into(),
            contact2_name: "Dewi Lestari".into(),
            contact2_relation: "sibling".into(),
            contact2_phone: "+6281234567890".into(),
            consent: true,
        });
        let masked = data.to_operator_view(true);
        assert_eq!(masked["contact1Phone"], "+91 ******2233");
        assert_eq!(masked["contact2Phone"], "+62 *******7890");
        assert_eq!(masked["contact1Name"], "Asha Rao");
        assert_eq!(
            data.to_operator_view(false)["contact1Phone"],
            "+919811122233"
        );
        assert_eq!(data.to_view(true)["contact2Phone"], "+6281234567890");
        assert_eq!(mask_phone("+1555123456"), "*******3456");
    }

    #[test]
    fn steps_come_in_order() {
        assert_eq!(Step::Job.before(), &[Step::Base, Step::Personal]);
        assert_eq!(Step::Base.before(), &[] as &[Step]);
        assert_eq!(Step::Bank.next(), None);
        assert_eq!(Step::parse("extended"), Some(Step::Extended));
    }
}
