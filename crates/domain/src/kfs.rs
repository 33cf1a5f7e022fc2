//! The Key Fact Statement (RBI KFS circular, April 2024): what the borrower sees and accepts before
//! an application is confirmed, with a content hash so the accepted version can be proved later.

use crate::calendar::days_between;
use crate::caps::CapTable;
use crate::error::{Error, Result};
use crate::loan::PREPAYMENT_RULE;
use crate::money::{Currency, Market, Money};
use crate::product::{ExtensionTerms, Interest, LateCharge};
use crate::quote::{FeeCharge, Quote};
use crate::rate::{Apr, RATE_SCALE, Rate};
use crate::schedule::Installment;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use time::Date;

/// Format version of the KFS; bump it when a field is added, removed, renamed or changes meaning.
///
/// Version 2 renamed the late charge's and the extension's snake_case fields to camelCase and added the lender's
/// licence line (`lender.licence`, left out of the JSON when empty, as it is in version 1). A statement keeps the
/// version it was sealed with, and [`KeyFactStatement::compute_hash`] hashes a version-1 statement with its old names,
/// so statements accepted before still prove intact.
///
/// Version 3 added the prepayment terms (`prepayment`, [`PREPAYMENT_RULE`]) and, in Indonesia, the loan's daily cost
/// against OJK's daily cap (`dailyCost`, null elsewhere), as the last two fields. A statement of version 1 or 2 reads
/// them as `""` and null, and is hashed without them ([`V3_FIELDS`]), exactly as it was sealed.
///
/// Version 4 added the price of one extension of this loan (`extensionFee`, with its tax; null when the product
/// offers none) as the last field, so the statement names every amount an extension charges (PRODUCT.md §7). A
/// statement of an earlier version reads it as null and is hashed without it ([`V4_FIELDS`]).
pub const KFS_VERSION: u32 = 4;

/// The JSON names version 1 wrote for the fields version 2 renamed. A key is always `"name":` with unescaped quotes,
/// which no string value can contain, so replacing these exact byte sequences touches keys only.
const V1_NAMES: [(&str, &str); 5] = [
    ("\"perDay\":", "\"per_day\":"),
    ("\"maxDays\":", "\"max_days\":"),
    ("\"feePercent\":", "\"fee_percent\":"),
    ("\"feeFixed\":", "\"fee_fixed\":"),
    ("\"maxExtensions\":", "\"max_extensions\":"),
];

/// The JSON the version-3 fields add at the end of a statement that has neither: what hashing a version 1 or 2
/// statement leaves out. Any other value of them in such a statement is not what was sealed, and breaks the seal.
const V3_FIELDS: &str = ",\"prepayment\":\"\",\"dailyCost\":null}";

/// The JSON the version-4 field adds at the end of a statement without it: what hashing an earlier statement leaves
/// out (before [`V3_FIELDS`], which then end the JSON). Any other value of it in such a statement breaks the seal.
const V4_FIELDS: &str = ",\"extensionFee\":null}";

/// Who lends, and who hears complaints; runtime settings, passed in by the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Lender {
    /// Lender's registered name (shown on every borrower screen in India).
    pub name: String,
    /// The lender's licence line: its RBI registration (India) or OJK licence (Indonesia). Empty, and then left
    /// out of the JSON, in statements sealed before version 2, so their hashes still hold.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub licence: String,
    /// The named grievance officer.
    pub grievance_officer: GrievanceOfficer,
}

/// RBI: a named grievance redressal officer with contact details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(as = LenderGrievanceOfficer)
)]
#[serde(rename_all = "camelCase")]
pub struct GrievanceOfficer {
    /// Full name.
    pub name: String,
    /// E-mail address.
    pub email: String,
    /// Phone number.
    pub phone: String,
}

/// The Key Fact Statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct KeyFactStatement {
    /// [`KFS_VERSION`].
    pub version: u32,
    /// Hex SHA-256 of the canonical JSON of this statement with this field empty.
    pub content_hash: String,
    /// Lender and grievance officer.
    pub lender: Lender,
    /// Market.
    pub market: Market,
    /// Currency of every amount (all in minor units).
    pub currency: Currency,
    /// Product code.
    pub product_code: String,
    /// Product name.
    pub product_name: String,
    /// Term code.
    pub term_code: String,
    /// Nominal interest.
    pub interest: Interest,
    /// Sanctioned amount.
    pub sanctioned_amount: Money,
    /// Day of disbursal the schedule assumes.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub disbursal_date: Date,
    /// Each fee with its tax.
    pub fees: Vec<FeeCharge>,
    /// All fees with tax.
    pub total_fees: Money,
    /// Whether fees are deducted from the payout.
    pub fees_deducted_at_disbursal: bool,
    /// Paid to the borrower.
    pub net_disbursed: Money,
    /// Total interest.
    pub total_interest: Money,
    /// Total repayable.
    pub total_repayable: Money,
    /// Each installment with date and amount.
    pub installments: Vec<Installment>,
    /// APR in hundredths of a percent.
    pub apr: Apr,
    /// APR as shown, e.g. `"17.07%"`.
    pub apr_display: String,
    /// Flat late charge per overdue installment.
    pub late_charge: LateCharge,
    /// The most late charges can add over the loan.
    pub max_late_charges: Money,
    /// Cooling-off period in days.
    pub cooling_off_days: u32,
    /// Extension terms; null when the product offers none.
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub extension: Option<ExtensionTerms>,
    /// Prepayment terms ([`PREPAYMENT_RULE`]; version 3). Empty in statements sealed before version 3.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub prepayment: String,
    /// Indonesia, version 3: the loan's daily cost against OJK's daily cap. Null elsewhere and in statements sealed
    /// before version 3.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub daily_cost: Option<DailyCost>,
    /// Version 4: one extension of this loan priced (its fee on the sanctioned amount, with tax), beside the terms
    /// in `extension`. Null when the product offers no extension and in statements sealed before version 4.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(required = true))]
    pub extension_fee: Option<FeeCharge>,
}

/// The daily cost of an Indonesian loan as OJK's cap measures it: interest plus fees, per day of the loan, as a share
/// of the principal, beside the cap in force for the loan's disbursal date and tenor (docs/MONEY.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DailyCost {
    /// Days from disbursal to the last due date (at least 1).
    pub days: i64,
    /// Interest plus fees with tax, over the whole loan.
    pub cost: Money,
    /// `cost` per day, rounded up to the minor unit so it never understates.
    pub per_day: Money,
    /// `cost` per day as a share of the principal, rounded up to the rate's last digit so it never understates.
    pub rate: Rate,
    /// OJK's daily cap for this loan.
    pub cap: Rate,
    /// The most interest plus fees may reach under the cap over `days` (rounded down).
    pub limit: Money,
}

impl DailyCost {
    /// The daily cost of `quote` under `caps`; `None` outside Indonesia, where no daily cap applies.
    pub fn of(quote: &Quote, caps: &CapTable) -> Result<Option<DailyCost>> {
        if quote.market != Market::Indonesia {
            return Ok(None);
        }
        Self::measure(quote, quote.last_due_date(), quote.cost()?, caps).map(Some)
    }

    /// The daily cost of `quote` with its extension taken as many times as the product allows
    /// ([`Quote::fully_extended`]): every extension fee added, over the extended days, against the cap for the
    /// extended tenor. `None` outside Indonesia or without an extension.
    pub fn extended(quote: &Quote, caps: &CapTable) -> Result<Option<DailyCost>> {
        if quote.market != Market::Indonesia {
            return Ok(None);
        }
        let Some(extended) = quote.fully_extended()? else {
            return Ok(None);
        };
        Self::measure(quote, extended.last_due, extended.cost, caps).map(Some)
    }

    fn measure(quote: &Quote, last_due: Date, cost: Money, caps: &CapTable) -> Result<DailyCost> {
        let cap = caps.daily_cap(quote.disbursal_date, last_due)?;
        let days = days_between(quote.disbursal_date, last_due).max(1);
        let principal = i128::from(quote.principal.minor());
        let wide_days = i128::from(days);
        let ceil = |num: i128, den: i128| (num + den - 1) / den;
        let per_day = Money::try_from_i128(ceil(i128::from(cost.minor()), wide_days))?;
        let rate = if principal > 0 {
            i64::try_from(ceil(
                i128::from(cost.minor()) * i128::from(RATE_SCALE),
                principal * wide_days,
            ))
            .map_err(|_| Error::Overflow)?
        } else {
            0
        };
        let limit = Money::try_from_i128(
            principal * i128::from(cap.ppb()) * wide_days / i128::from(RATE_SCALE),
        )?;
        Ok(DailyCost {
            days,
            cost,
            per_day,
            rate: Rate::from_ppb(rate),
            cap,
            limit,
        })
    }
}

impl KeyFactStatement {
    /// Builds the statement of `quote` for `lender` and seals it with its hash, under OJK's default caps in Indonesia
    /// ([`CapTable::ojk_consumer`]).
    pub fn new(quote: &Quote, lender: &Lender) -> Result<KeyFactStatement> {
        Self::new_with_caps(quote, lender, &CapTable::ojk_consumer())
    }

    /// As [`KeyFactStatement::new`], with the configured cap table the quote was checked against.
    pub fn new_with_caps(
        quote: &Quote,
        lender: &Lender,
        caps: &CapTable,
    ) -> Result<KeyFactStatement> {
        let mut kfs = KeyFactStatement {
            version: KFS_VERSION,
            content_hash: String::new(),
            lender: lender.clone(),
            market: quote.market,
            currency: quote.currency,
            product_code: quote.product_code.clone(),
            product_name: quote.product_name.clone(),
            term_code: quote.term.code.clone(),
            interest: quote.interest,
            sanctioned_amount: quote.principal,
            disbursal_date: quote.disbursal_date,
            fees: quote.fees.clone(),
            total_fees: quote.total_fees,
            fees_deducted_at_disbursal: quote.fees_deducted_at_disbursal,
            net_disbursed: quote.net_disbursed,
            total_interest: quote.total_interest,
            total_repayable: quote.total_repayable,
            installments: quote.installments.clone(),
            apr: quote.apr,
            apr_display: quote.apr.to_string(),
            late_charge: quote.late_charge,
            max_late_charges: quote.max_late_charges,
            cooling_off_days: quote.cooling_off_days,
            extension: quote.extension,
            prepayment: PREPAYMENT_RULE.to_owned(),
            daily_cost: DailyCost::of(quote, caps)?,
            extension_fee: quote.extension_fee()?,
        };
        kfs.content_hash = kfs.compute_hash()?;
        Ok(kfs)
    }

    /// The hash of the content as it is now; equal to `content_hash` unless someone changed a field.
    pub fn compute_hash(&self) -> Result<String> {
        let mut unsealed = self.clone();
        unsealed.content_hash = String::new();
        // Struct fields serialize in declaration order, so this JSON is canonical for a version.
        let mut json =
            serde_json::to_string(&unsealed).map_err(|e| Error::Serialize(e.to_string()))?;
        if self.version < 4
            && let Some(without) = json.strip_suffix(V4_FIELDS)
        {
            json = format!("{without}}}");
        }
        if self.version < 3
            && let Some(without) = json.strip_suffix(V3_FIELDS)
        {
            json = format!("{without}}}");
        }
        if self.version == 1 {
            for (now, then) in V1_NAMES {
                json = json.replace(now, then);
            }
        }
        let digest = Sha256::digest(json.as_bytes());
        Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
    }

    /// True when the statement is exactly the one that was sealed.
    pub fn is_intact(&self) -> bool {
        self.compute_hash().is_ok_and(|h| h == self.content_hash)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::product::Rounding;
    use crate::quote::quote;
    use crate::quote::tests::rbi_illustration;
    use time::macros::date;

    fn lender() -> Lender {
        Lender {
            name: "Kilat Finance Pvt Ltd".into(),
            licence: "RBI CoR No. N-00.00000 (example)".into(),
            grievance_officer: GrievanceOfficer {
                name: "A. Sharma".into(),
                email: "grievance@example.in".into(),
                phone: "+91 98765 43210".into(),
            },
        }
    }

    fn kfs() -> KeyFactStatement {
        let q = quote(
            &rbi_illustration(Rounding::Minor),
            Money::from_major(20_000),
            "m24",
            date!(2026 - 11 - 22),
        )
        .unwrap();
        KeyFactStatement::new(&q, &lender()).unwrap()
    }

    #[test]
    fn the_kfs_states_every_figure_the_rbi_asks_for() {
        let k = kfs();
        assert_eq!(k.sanctioned_amount, Money::from_major(20_000));
        assert_eq!(k.net_disbursed, Money::from_major(19_600));
        assert_eq!(k.apr_display, "17.07%");
        assert_eq!(k.installments.len(), 24);
        assert_eq!(k.late_charge.flat, Money::from_major(500));
        assert_eq!(k.cooling_off_days, 3);
        assert_eq!(k.lender.grievance_officer.name, "A. Sharma");
    }

    #[test]
    fn the_kfs_serializes_in_camel_case_with_iso_dates() {
        let json = serde_json::to_value(kfs()).unwrap();
        assert_eq!(json["sanctionedAmount"], 2_000_000);
        assert_eq!(json["netDisbursed"], 1_960_000);
        assert_eq!(json["apr"], 1707);
        assert_eq!(json["fees"][0]["tax"], 6_102);
        assert_eq!(json["installments"][0]["dueDate"], "2026-12-22");
        assert_eq!(json["interest"]["rate"], "15%");
        let back: KeyFactStatement = serde_json::from_value(json).unwrap();
        assert!(back.is_intact());
    }

    #[test]
    fn the_late_charge_is_camel_case_and_a_version_1_statement_still_proves_intact() {
        let json = serde_json::to_string(&kfs()).unwrap();
        assert!(
            json.contains("\"lateCharge\":{\"flat\":50000,\"perDay\":0,\"maxDays\":0}"),
            "{json}"
        );
        // A statement sealed by version 1 (snake_case names, hashed over them), as stored with an order.
        let mut v1 = kfs();
        v1.version = 1;
        v1.late_charge.per_day = Money::from_minor(2_500);
        v1.late_charge.max_days = 30;
        v1.prepayment = String::new();
        v1.content_hash = String::new();
        let full = serde_json::to_string(&v1).unwrap();
        let mut stored = without_fields_since(&full, 2);
        for (now, then) in V1_NAMES {
            stored = stored.replace(now, then);
        }
        assert!(
            stored.contains("\"per_day\":2500,\"max_days\":30"),
            "{stored}"
        );
        let v1_hash: String = Sha256::digest(stored.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let stored = stored.replacen(
            "\"contentHash\":\"\"",
            &format!("\"contentHash\":\"{v1_hash}\""),
            1,
        );
        let read: KeyFactStatement = serde_json::from_str(&stored).unwrap();
        assert_eq!(read.late_charge.per_day, Money::from_minor(2_500));
        assert_eq!(read.late_charge.max_days, 30);
        assert!(read.is_intact());
    }

    #[test]
    fn the_same_quote_always_seals_to_the_same_hash() {
        assert_eq!(kfs().content_hash, kfs().content_hash);
        assert_eq!(kfs().content_hash.len(), 64);
    }

    #[test]
    fn changing_any_figure_breaks_the_seal() {
        let mut k = kfs();
        assert!(k.is_intact());
        k.total_repayable = k.total_repayable.checked_add(Money::from_minor(1)).unwrap();
        assert!(!k.is_intact());
    }

    #[test]
    fn the_licence_is_sealed_and_a_version_1_statement_without_it_stays_intact() {
        let mut k = kfs();
        assert_eq!(k.version, 4);
        assert_eq!(
            serde_json::to_value(&k).unwrap()["lender"]["licence"],
            "RBI CoR No. N-00.00000 (example)"
        );
        k.lender.licence = "RBI CoR No. N-99.99999".into();
        assert!(!k.is_intact(), "the licence line is part of the seal");

        // A statement sealed before the licence line existed: no `licence` key, version 1.
        let mut old = kfs();
        old.version = 1;
        old.lender.licence = String::new();
        old.prepayment = String::new();
        old.content_hash = old.compute_hash().unwrap();
        let json = serde_json::to_value(&old).unwrap();
        assert!(json["lender"].get("licence").is_none());
        let back: KeyFactStatement = serde_json::from_value(json).unwrap();
        assert!(back.is_intact());
    }

    /// The JSON of a statement of version `version` (1 to 3) from the full JSON of today's: the fields added after
    /// that version, each null or empty, left out.
    fn without_fields_since(full: &str, version: u32) -> String {
        let mut json = format!("{}}}", full.strip_suffix(V4_FIELDS).unwrap());
        if version < 3 {
            json = format!("{}}}", json.strip_suffix(V3_FIELDS).unwrap());
        }
        json
    }

    /// A statement as version 2 stored it with an order: its JSON without the version-3 fields, sealed over that.
    fn stored_by_version_2(mut k: KeyFactStatement) -> String {
        k.version = 2;
        k.prepayment = String::new();
        k.daily_cost = None;
        k.content_hash = String::new();
        let full = serde_json::to_string(&k).unwrap();
        let json = without_fields_since(&full, 2);
        let hash: String = Sha256::digest(json.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        json.replacen(
            "\"contentHash\":\"\"",
            &format!("\"contentHash\":\"{hash}\""),
            1,
        )
    }

    #[test]
    fn version_3_states_the_prepayment_terms_and_seals_them() {
        let k = kfs();
        assert!(k.version >= 3);
        assert_eq!(k.prepayment, PREPAYMENT_RULE);
        let json = serde_json::to_value(&k).unwrap();
        assert!(
            json["prepayment"]
                .as_str()
                .unwrap()
                .contains("without a prepayment charge")
        );
        // India has no daily cap: its daily cost is null.
        assert!(json["dailyCost"].is_null());
        let mut changed = k.clone();
        changed.prepayment = "A prepayment charge of 4% applies.".into();
        assert!(!changed.is_intact(), "the prepayment terms are sealed");
    }

    #[test]
    fn a_version_2_statement_still_proves_intact_and_reads_back_without_the_new_terms() {
        let stored = stored_by_version_2(kfs());
        assert!(!stored.contains("prepayment") && !stored.contains("dailyCost"));
        let read: KeyFactStatement = serde_json::from_str(&stored).unwrap();
        assert_eq!(read.version, 2);
        assert_eq!(read.prepayment, "");
        assert_eq!(read.daily_cost, None);
        assert!(read.is_intact());
        // Read back, it answers with the version-3 fields empty, and still proves intact.
        let answered = serde_json::to_value(&read).unwrap();
        assert_eq!(answered["prepayment"], "");
        assert!(answered["dailyCost"].is_null());
        let again: KeyFactStatement = serde_json::from_value(answered).unwrap();
        assert!(again.is_intact());
        let mut tampered = read.clone();
        tampered.total_interest = Money::from_minor(1);
        assert!(!tampered.is_intact());
        // Prepayment terms slipped into a version-2 statement are not what was sealed.
        let mut added = read;
        added.prepayment = PREPAYMENT_RULE.to_owned();
        assert!(!added.is_intact());
    }

    #[test]
    fn an_indonesian_statement_shows_its_daily_cost_against_the_cap() {
        // Rp1,000,000 for 30 days at 0.2% a day flat with a 1% fee: Rp60,000 interest + Rp10,000 fee = Rp70,000,
        // Rp2,333.34 a day (rounded up), 0.2333334% of the principal a day (rounded up), against 0.3% a day (a
        // limit of Rp90,000 over the 30 days).
        let product = crate::quote::tests::indonesian(20, 100);
        let q = quote(
            &product,
            Money::from_major(1_000_000),
            &product.terms[0].code,
            date!(2026 - 11 - 22),
        )
        .unwrap();
        let k = KeyFactStatement::new(&q, &lender()).unwrap();
        let daily = k
            .daily_cost
            .expect("an Indonesian statement has a daily cost");
        assert_eq!(daily.days, 30);
        assert_eq!(daily.cost, Money::from_major(70_000));
        assert_eq!(daily.per_day, Money::from_minor(233_334));
        assert_eq!(daily.rate, Rate::from_ppb(2_333_334));
        assert_eq!(daily.cap, Rate::from_ppb(3_000_000));
        assert_eq!(daily.limit, Money::from_major(90_000));
        assert!(daily.rate <= daily.cap && daily.cost <= daily.limit);
        let json = serde_json::to_value(&k).unwrap();
        assert_eq!(json["dailyCost"]["rate"], "0.2333334%");
        assert_eq!(json["dailyCost"]["cap"], "0.3%");
        assert!(k.is_intact());
        let mut tampered = k;
        tampered.daily_cost = None;
        assert!(!tampered.is_intact(), "the daily cost is sealed");
    }

    /// A statement as version 3 stored it with an order: sealed without `extensionFee`.
    fn stored_by_version_3(mut k: KeyFactStatement) -> String {
        k.version = 3;
        k.extension_fee = None;
        k.content_hash = String::new();
        let full = serde_json::to_string(&k).unwrap();
        let json = without_fields_since(&full, 3);
        let hash: String = Sha256::digest(json.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        json.replacen(
            "\"contentHash\":\"\"",
            &format!("\"contentHash\":\"{hash}\""),
            1,
        )
    }

    fn with_extension(fee_bp: i64, fixed: Money, market: Market) -> KeyFactStatement {
        let mut product = crate::quote::tests::indonesian(20, 100);
        product.market = market;
        product.extension = Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::from_bp(fee_bp),
            fee_fixed: fixed,
            max_extensions: 2,
        });
        let q = quote(
            &product,
            Money::from_major(1_000_000),
            "30d",
            date!(2026 - 11 - 22),
        )
        .unwrap();
        KeyFactStatement::new(&q, &lender()).unwrap()
    }

    #[test]
    fn version_4_states_the_price_of_one_extension_and_seals_it() {
        // Rp1,000,000: 1% of it plus Rp2,000 is Rp12,000 an extension (no tax in Indonesia).
        let k = with_extension(100, Money::from_major(2_000), Market::Indonesia);
        assert_eq!(k.version, 4);
        let fee = k
            .extension_fee
            .clone()
            .expect("the product offers an extension");
        assert_eq!(fee.amount, Money::from_major(12_000));
        assert_eq!(fee.tax, Money::ZERO);
        assert_eq!(fee.total, Money::from_major(12_000));
        let json = serde_json::to_value(&k).unwrap();
        assert_eq!(json["extension"]["days"], 7);
        assert_eq!(json["extension"]["maxExtensions"], 2);
        assert_eq!(json["extensionFee"]["total"], 1_200_000);
        assert!(k.is_intact());
        let mut tampered = k;
        tampered.extension_fee = None;
        assert!(!tampered.is_intact(), "the extension's price is sealed");
    }

    #[test]
    fn an_indian_extension_fee_carries_gst_and_a_product_without_one_states_null() {
        // 3% of ₹10,00,000 is ₹30,000, plus 18% GST ₹5,400.
        let k = with_extension(300, Money::ZERO, Market::India);
        let fee = k.extension_fee.expect("an extension");
        assert_eq!(fee.amount, Money::from_major(30_000));
        assert_eq!(fee.tax, Money::from_major(5_400));
        assert_eq!(fee.total, Money::from_major(35_400));
        let none = kfs();
        assert_eq!(none.extension, None);
        assert_eq!(none.extension_fee, None);
        assert!(serde_json::to_value(&none).unwrap()["extensionFee"].is_null());
    }

    #[test]
    fn a_version_3_statement_still_proves_intact_without_the_extension_fee() {
        let stored = stored_by_version_3(with_extension(100, Money::ZERO, Market::Indonesia));
        assert!(!stored.contains("extensionFee"));
        let read: KeyFactStatement = serde_json::from_str(&stored).unwrap();
        assert_eq!(read.version, 3);
        assert_eq!(read.extension_fee, None);
        assert!(read.extension.is_some());
        assert!(read.is_intact());
        let answered = serde_json::to_value(&read).unwrap();
        assert!(answered["extensionFee"].is_null());
        let again: KeyFactStatement = serde_json::from_value(answered).unwrap();
        assert!(again.is_intact());
        // A price slipped into a version-3 statement is not what was sealed.
        let mut added = read;
        added.extension_fee = with_extension(100, Money::ZERO, Market::Indonesia).extension_fee;
        assert!(!added.is_intact());
    }
}
