//! Indonesia's OJK cost caps as configuration keyed by effective date and tenor, and the check
//! every Indonesian quote and extension passes. See `docs/MONEY.md` §5.

use crate::calendar::{add_months, days_between};
use crate::error::{CapKind, Error, Result};
use crate::money::Money;
use crate::rate::{RATE_SCALE, Rate};
use serde::{Deserialize, Serialize};
use time::Date;
use time::macros::date;

/// The cap table: daily cost caps by date and tenor, and the cap on all costs together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapTable {
    /// Daily caps; the row with the latest `effective_from` on or before the disbursal date that
    /// covers the tenor applies, so a year without a row continues the latest known rule.
    pub daily_cost: Vec<DailyCostCap>,
    /// Interest, fees and late charges together, as a share of the principal.
    pub total_cost: Rate,
    /// Late charges per day, as a share of the overdue amount, by the date they are charged; a date before every
    /// row has no daily late-charge cap (the total cap still holds).
    #[serde(default)]
    pub late_charge_daily: Vec<LateChargeCap>,
}

/// One row of the daily late-charge cap table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LateChargeCap {
    /// First day the row applies (by the day the charge is posted).
    pub effective_from: Date,
    /// Late charges per day, as a share of the outstanding amount.
    pub daily: Rate,
}

/// One row of the daily cost cap table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DailyCostCap {
    /// First day the row applies (by disbursal date).
    pub effective_from: Date,
    /// Shortest tenor covered, in calendar months.
    #[serde(default)]
    pub tenor_from_months: u32,
    /// Tenors covered are shorter than this many calendar months; `None` for no upper bound.
    #[serde(default)]
    pub tenor_under_months: Option<u32>,
    /// Interest plus fees per day, as a share of the principal.
    pub daily: Rate,
}

impl DailyCostCap {
    fn covers(&self, disbursed: Date, last_due: Date) -> Result<bool> {
        let long_enough = last_due >= add_months(disbursed, self.tenor_from_months)?;
        let short_enough = match self.tenor_under_months {
            Some(m) => last_due < add_months(disbursed, m)?,
            None => true,
        };
        Ok(long_enough && short_enough)
    }
}

impl CapTable {
    /// OJK's rules for consumer P2P lending as this product knows them (PRODUCT.md §3):
    /// SEOJK 19/SEOJK.05/2023 set 0.3% a day from 2024; for tenors under 6 months 0.3% a day holds
    /// through 2025 (the 2025 revision lowered only longer tenors, to 0.2%); all costs at most 100%.
    pub fn ojk_consumer() -> CapTable {
        CapTable {
            daily_cost: vec![
                DailyCostCap {
                    effective_from: date!(2024 - 01 - 01),
                    tenor_from_months: 0,
                    tenor_under_months: None,
                    daily: Rate::from_ppb(3_000_000),
                },
                DailyCostCap {
                    effective_from: date!(2025 - 01 - 01),
                    tenor_from_months: 0,
                    tenor_under_months: Some(6),
                    daily: Rate::from_ppb(3_000_000),
                },
                DailyCostCap {
                    effective_from: date!(2025 - 01 - 01),
                    tenor_from_months: 6,
                    tenor_under_months: None,
                    daily: Rate::from_ppb(2_000_000),
                },
            ],
            total_cost: Rate::from_ppb(RATE_SCALE),
            late_charge_daily: vec![LateChargeCap {
                effective_from: date!(2026 - 01 - 01),
                daily: Rate::from_ppb(1_000_000),
            }],
        }
    }

    /// The daily late-charge cap in force on `on`, if any: the row with the latest `effective_from` on or before it.
    pub fn late_charge_cap(&self, on: Date) -> Option<Rate> {
        self.late_charge_daily
            .iter()
            .filter(|row| row.effective_from <= on)
            .max_by_key(|row| row.effective_from)
            .map(|row| row.daily)
    }

    /// The most all costs together (interest, fees, extension fees, late charges) may reach for `principal`.
    pub fn total_cost_limit(&self, principal: Money) -> Result<Money> {
        // Floor: a limit is a maximum, so a fraction of a sen is not allowed.
        Money::try_from_i128(
            i128::from(principal.minor()) * i128::from(self.total_cost.ppb())
                / i128::from(RATE_SCALE),
        )
    }

    /// Reads a cap table from TOML (dates as quoted `"YYYY-MM-DD"` text, rates as `"0.3%"`), so
    /// the server can take a new OJK rule from settings without a release.
    pub fn from_toml_str(text: &str) -> Result<CapTable> {
        toml::from_str(text).map_err(|e| Error::Parse(e.to_string()))
    }

    /// The daily cap for a loan disbursed on `disbursed` whose last installment is due on `last_due`.
    pub fn daily_cap(&self, disbursed: Date, last_due: Date) -> Result<Rate> {
        let mut best: Option<&DailyCostCap> = None;
        for row in &self.daily_cost {
            if row.effective_from <= disbursed
                && row.covers(disbursed, last_due)?
                && best.is_none_or(|b| row.effective_from > b.effective_from)
            {
                best = Some(row);
            }
        }
        best.map(|row| row.daily).ok_or(Error::NoCapRule {
            date: disbursed,
            tenor_days: days_between(disbursed, last_due),
        })
    }

    /// Refuses costs above either cap.
    ///
    /// `cost` is interest plus fees (with any tax on them); `worst_late_charges` is the most the
    /// loan could add in late charges, which counts only against the total cap.
    pub fn check(
        &self,
        principal: Money,
        disbursed: Date,
        last_due: Date,
        cost: Money,
        worst_late_charges: Money,
    ) -> Result<()> {
        let daily = self.daily_cap(disbursed, last_due)?;
        let days = i128::from(days_between(disbursed, last_due).max(1));
        // Floor: the limit is the most that may be charged, so a fraction of a sen is not allowed.
        let limit =
            i128::from(principal.minor()) * i128::from(daily.ppb()) * days / i128::from(RATE_SCALE);
        let limit = Money::try_from_i128(limit)?;
        if cost > limit {
            return Err(Error::CapExceeded {
                cap: CapKind::DailyCost,
                limit,
                actual: cost,
            });
        }
        let total_limit = self.total_cost_limit(principal)?;
        let total = cost.checked_add(worst_late_charges)?;
        if total > total_limit {
            return Err(Error::CapExceeded {
                cap: CapKind::TotalCost,
                limit: total_limit,
                actual: total,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(date!(2024 - 06 - 01), date!(2025 - 06 - 01), 3_000_000)]
    #[case(date!(2025 - 03 - 01), date!(2025 - 03 - 31), 3_000_000)]
    #[case(date!(2025 - 03 - 01), date!(2025 - 09 - 01), 2_000_000)]
    #[case(date!(2026 - 11 - 22), date!(2027 - 01 - 21), 3_000_000)]
    #[case(date!(2026 - 11 - 22), date!(2027 - 05 - 21), 3_000_000)]
    #[case(date!(2026 - 11 - 22), date!(2027 - 05 - 22), 2_000_000)]
    fn the_latest_rule_for_the_tenor_applies(
        #[case] from: Date,
        #[case] to: Date,
        #[case] ppb: i64,
    ) {
        assert_eq!(
            CapTable::ojk_consumer().daily_cap(from, to),
            Ok(Rate::from_ppb(ppb))
        );
    }

    #[test]
    fn a_cap_table_reads_from_toml() {
        let text = r#"
            total_cost = "100%"

            [[daily_cost]]
            effective_from = "2024-01-01"
            daily = "0.3%"

            [[daily_cost]]
            effective_from = "2025-01-01"
            tenor_under_months = 6
            daily = "0.3%"

            [[daily_cost]]
            effective_from = "2025-01-01"
            tenor_from_months = 6
            daily = "0.2%"

            [[late_charge_daily]]
            effective_from = "2026-01-01"
            daily = "0.1%"
        "#;
        assert_eq!(CapTable::from_toml_str(text), Ok(CapTable::ojk_consumer()));
    }

    #[rstest]
    #[case(date!(2025 - 12 - 31), None)]
    #[case(date!(2026 - 01 - 01), Some(1_000_000))]
    #[case(date!(2027 - 06 - 01), Some(1_000_000))]
    fn the_daily_late_charge_cap_applies_from_2026(#[case] on: Date, #[case] ppb: Option<i64>) {
        assert_eq!(
            CapTable::ojk_consumer().late_charge_cap(on),
            ppb.map(Rate::from_ppb)
        );
    }

    #[test]
    fn a_loan_before_any_rule_has_no_cap_rule_and_is_refused() {
        let got = CapTable::ojk_consumer().daily_cap(date!(2023 - 12 - 31), date!(2024 - 01 - 30));
        assert!(matches!(got, Err(Error::NoCapRule { tenor_days: 30, .. })));
    }

    #[test]
    fn a_thirty_day_loan_may_cost_nine_percent_and_not_a_sen_more() {
        let caps = CapTable::ojk_consumer();
        let p = Money::from_major(1_000_000);
        let (d0, d1) = (date!(2026 - 11 - 22), date!(2026 - 12 - 22));
        assert_eq!(
            caps.check(p, d0, d1, Money::from_major(90_000), Money::ZERO),
            Ok(())
        );
        assert_eq!(
            caps.check(p, d0, d1, Money::from_minor(9_000_001), Money::ZERO),
            Err(Error::CapExceeded {
                cap: CapKind::DailyCost,
                limit: Money::from_major(90_000),
                actual: Money::from_minor(9_000_001),
            })
        );
    }

    #[test]
    fn late_charges_count_against_the_total_cap() {
        let caps = CapTable::ojk_consumer();
        let p = Money::from_major(1_000_000);
        let got = caps.check(
            p,
            date!(2026 - 01 - 01),
            date!(2026 - 03 - 01),
            Money::from_major(100_000),
            p,
        );
        assert!(matches!(
            got,
            Err(Error::CapExceeded {
                cap: CapKind::TotalCost,
                ..
            })
        ));
    }
}
