//! The Key Fact Statement (RBI KFS circular, April 2024): what the borrower sees and accepts before
//! an application is confirmed, with a content hash so the accepted version can be proved later.

use crate::error::{Error, Result};
use crate::money::{Currency, Market, Money};
use crate::product::{ExtensionTerms, Interest, LateCharge};
use crate::quote::{FeeCharge, Quote};
use crate::rate::Apr;
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
pub const KFS_VERSION: u32 = 2;

/// The JSON names version 1 wrote for the fields version 2 renamed. A key is always `"name":` with unescaped quotes,
/// which no string value can contain, so replacing these exact byte sequences touches keys only.
const V1_NAMES: [(&str, &str); 5] = [
    ("\"perDay\":", "\"per_day\":"),
    ("\"maxDays\":", "\"max_days\":"),
    ("\"feePercent\":", "\"fee_percent\":"),
    ("\"feeFixed\":", "\"fee_fixed\":"),
    ("\"maxExtensions\":", "\"max_extensions\":"),
];

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
}

impl KeyFactStatement {
    /// Builds the statement of `quote` for `lender` and seals it with its hash.
    pub fn new(quote: &Quote, lender: &Lender) -> Result<KeyFactStatement> {
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
        v1.content_hash = String::new();
        let mut stored = serde_json::to_string(&v1).unwrap();
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
        assert_eq!(k.version, 2);
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
        old.content_hash = old.compute_hash().unwrap();
        let json = serde_json::to_value(&old).unwrap();
        assert!(json["lender"].get("licence").is_none());
        let back: KeyFactStatement = serde_json::from_value(json).unwrap();
        assert!(back.is_intact());
    }
}
