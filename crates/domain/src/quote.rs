//! A quote: one product, amount, term and disbursal date turned into fees, net disbursal,
//! schedule, totals and APR, with Indonesia's caps checked. The KFS is built from it.

use crate::apr::apr;
use crate::calendar::{add_days, days_between};
use crate::caps::CapTable;
use crate::error::{Error, Result};
use crate::money::{Currency, Market, Money};
use crate::product::{ExtensionTerms, FeeRule, Interest, LateCharge, Product, Term};
use crate::rate::{Apr, Rate};
use crate::schedule::{Installment, ScheduleInput, build};
use serde::{Deserialize, Serialize};
use time::Date;

/// India's GST on financial-service fees (18%, IGST Act schedule for services of heading 9971).
/// Interest is exempt, and late charges are not a supply (CBIC circular 178/10/2022), so neither is taxed.
pub const INDIA_GST_ON_FEES: Rate = Rate::from_ppb(180_000_000);

/// The tax a market levies on loan fees.
pub fn fee_tax_rate(market: Market) -> Rate {
    match market {
        Market::India => INDIA_GST_ON_FEES,
        Market::Indonesia => Rate::ZERO,
    }
}

/// The name an extension's fee carries in a [`FeeCharge`].
pub const EXTENSION_FEE_NAME: &str = "Extension fee";

/// One fee of a loan, with its tax shown separately as the RBI KFS format asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct FeeCharge {
    /// Name from the product.
    pub name: String,
    /// The fee before tax.
    pub amount: Money,
    /// GST in India, zero in Indonesia.
    pub tax: Money,
    /// `amount + tax`.
    pub total: Money,
}

/// Prices one fee rule on `principal`: share of principal plus fixed part, then tax, each rounded half-up.
pub fn price_fee(
    market: Market,
    name: &str,
    percent: Rate,
    fixed: Money,
    principal: Money,
) -> Result<FeeCharge> {
    let amount = percent.apply(principal)?.checked_add(fixed)?;
    let tax = fee_tax_rate(market).apply(amount)?;
    Ok(FeeCharge {
        name: name.to_owned(),
        amount,
        tax,
        total: amount.checked_add(tax)?,
    })
}

fn price_fees(market: Market, rules: &[FeeRule], principal: Money) -> Result<Vec<FeeCharge>> {
    rules
        .iter()
        .map(|f| price_fee(market, &f.name, f.percent, f.fixed, principal))
        .collect()
}

/// Everything the borrower is offered for one amount and term; the KFS shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quote {
    /// Product code.
    pub product_code: String,
    /// Product name.
    pub product_name: String,
    /// Market.
    pub market: Market,
    /// Currency of every amount.
    pub currency: Currency,
    /// The chosen term.
    pub term: Term,
    /// Interest terms.
    pub interest: Interest,
    /// Sanctioned amount.
    pub principal: Money,
    /// Day of disbursal the schedule counts from.
    pub disbursal_date: Date,
    /// Each fee.
    pub fees: Vec<FeeCharge>,
    /// All fees with tax.
    pub total_fees: Money,
    /// Whether fees are taken from the payout.
    pub fees_deducted_at_disbursal: bool,
    /// Paid to the borrower.
    pub net_disbursed: Money,
    /// Sum of interest.
    pub total_interest: Money,
    /// Sum of installments.
    pub total_repayable: Money,
    /// The schedule.
    pub installments: Vec<Installment>,
    /// All-inclusive APR.
    pub apr: Apr,
    /// Late charge per overdue installment.
    pub late_charge: LateCharge,
    /// The most late charges could add over the whole loan.
    pub max_late_charges: Money,
    /// Days after disbursal the borrower may exit.
    pub cooling_off_days: u32,
    /// Extension terms, when offered.
    pub extension: Option<ExtensionTerms>,
}

impl Quote {
    /// Interest plus fees with tax: the cost OJK's daily cap measures.
    pub fn cost(&self) -> Result<Money> {
        self.total_interest.checked_add(self.total_fees)
    }

    /// Due date of the last installment.
    pub fn last_due_date(&self) -> Date {
        self.installments
            .last()
            .map_or(self.disbursal_date, |i| i.due_date)
    }

    /// The fee of one extension of this loan, with its tax (GST in India); `None` when the product offers none.
    pub fn extension_fee(&self) -> Result<Option<FeeCharge>> {
        self.extension
            .map(|terms| {
                let fee = price_fee(
                    self.market,
                    EXTENSION_FEE_NAME,
                    terms.fee_percent,
                    terms.fee_fixed,
                    self.principal,
                )?;
                // The fee is asked of the borrower as it stands: in whole rupiah in Indonesia, rounded down (in the
                // borrower's favour), the cut taken off the fee before tax (docs/MONEY.md, "Rounding").
                let total = self.market.floor_to_asked(fee.total);
                let cut = fee.total.checked_sub(total)?;
                Ok(FeeCharge {
                    amount: fee.amount.checked_sub(cut)?,
                    total,
                    ..fee
                })
            })
            .transpose()
    }

    /// The loan with its extension taken as many times as the product allows: each extension moves the last due
    /// date by the extension's days (later installments move with an extended one) and adds its fee, and adds no
    /// interest. `None` when the product offers no extension.
    pub fn fully_extended(&self) -> Result<Option<FullyExtended>> {
        let (Some(terms), Some(fee)) = (self.extension, self.extension_fee()?) else {
            return Ok(None);
        };
        let times = terms.max_extensions;
        let moved = terms.days.checked_mul(times).ok_or(Error::Overflow)?;
        let fees = fee.total.checked_mul(i64::from(times))?;
        Ok(Some(FullyExtended {
            extensions: times,
            last_due: add_days(self.last_due_date(), moved)?,
            extension_fees: fees,
            cost: self.cost()?.checked_add(fees)?,
        }))
    }

    /// Indonesia: refuses a loan whose extension, taken as many times as the product allows, would break an OJK
    /// cap, measured as for the loan itself (docs/MONEY.md §5) over the extended tenor with every extension fee.
    /// Elsewhere, or without an extension, there is nothing to check.
    pub fn check_extensions(&self, caps: &CapTable) -> Result<()> {
        if self.market != Market::Indonesia {
            return Ok(());
        }
        let Some(extended) = self.fully_extended()? else {
            return Ok(());
        };
        caps.check(
            self.principal,
            self.disbursal_date,
            extended.last_due,
            extended.cost,
            self.max_late_charges,
        )
        .map_err(|e| {
            extension_over_cap(
                e,
                extended.extensions,
                days_between(self.disbursal_date, extended.last_due),
            )
        })
    }
}

/// A loan with its extension taken as many times as the product allows ([`Quote::fully_extended`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullyExtended {
    /// Extensions taken: the product's maximum.
    pub extensions: u32,
    /// The last due date once every extension is taken.
    pub last_due: Date,
    /// Every extension fee, with tax.
    pub extension_fees: Money,
    /// Interest, fees and every extension fee: the cost OJK's daily cap measures over the extended tenor.
    pub cost: Money,
}

/// A cap breach of an extended loan as [`Error::ExtensionOverCap`]; any other error as it is.
pub(crate) fn extension_over_cap(err: Error, extensions: u32, days: i64) -> Error {
    match err {
        Error::CapExceeded { cap, limit, actual } => Error::ExtensionOverCap {
            cap,
            extensions,
            days,
            limit,
            actual,
        },
        other => other,
    }
}

/// Quotes `product` for `amount` on term `term_code`, disbursed on `disbursed`, under OJK's
/// default caps in Indonesia (see [`CapTable::ojk_consumer`]).
pub fn quote(product: &Product, amount: Money, term_code: &str, disbursed: Date) -> Result<Quote> {
    quote_with_caps(
        product,
        amount,
        term_code,
        disbursed,
        &CapTable::ojk_consumer(),
    )
}

/// As [`quote`], with a configured cap table (applied to Indonesian products only).
pub fn quote_with_caps(
    product: &Product,
    amount: Money,
    term_code: &str,
    disbursed: Date,
    caps: &CapTable,
) -> Result<Quote> {
    product.amount.check(amount)?;
    let term = product.term(term_code)?.clone();
    let fees = price_fees(product.market, &product.fees, amount)?;
    let total_fees = Money::sum(fees.iter().map(|f| &f.total))?;
    let (net_disbursed, fees_with_first) = if product.fees_deducted_at_disbursal {
        (amount.checked_sub(total_fees)?, Money::ZERO)
    } else {
        (amount, total_fees)
    };
    let installments = build(ScheduleInput {
        principal: amount,
        interest: product.interest,
        period: term.period,
        installments: term.installments,
        rounding: product.rounding,
        disbursed,
        fees_with_first,
    })?;
    let total_interest = Money::sum(installments.iter().map(|i| &i.interest))?;
    let total_repayable = Money::sum(installments.iter().map(|i| &i.amount))?;
    let payments: Vec<Money> = installments.iter().map(|i| i.amount).collect();
    let apr = if net_disbursed.minor() > 0 {
        apr(net_disbursed, &payments, term.period)?
    } else {
        Apr(0)
    };
    let max_late_charges = product
        .late_charge
        .max_per_installment()?
        .checked_mul(i64::from(term.installments))?;
    let q = Quote {
        product_code: product.code.clone(),
        product_name: product.name.clone(),
        market: product.market,
        currency: product.market.currency(),
        term,
        interest: product.interest,
        principal: amount,
        disbursal_date: disbursed,
        fees,
        total_fees,
        fees_deducted_at_disbursal: product.fees_deducted_at_disbursal,
        net_disbursed,
        total_interest,
        total_repayable,
        installments,
        apr,
        late_charge: product.late_charge,
        max_late_charges,
        cooling_off_days: product.cooling_off_days,
        extension: product.extension,
    };
    if product.market == Market::Indonesia {
        caps.check(
            amount,
            disbursed,
            q.last_due_date(),
            q.cost()?,
            max_late_charges,
        )?;
    }
    Ok(q)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::error::{CapKind, Error};
    use crate::product::{AmountRange, InterestMethod, Period, RateBasis, Rounding};
    use proptest::prelude::*;
    use rstest::rstest;
    use time::macros::date;

    /// RBI's KFS illustration: ₹20,000 at 15% a year reducing, 24 months, ₹400 of fees (here a
    /// ₹338.98 processing fee plus ₹61.02 GST) deducted at disbursal.
    pub(crate) fn rbi_illustration(rounding: Rounding) -> Product {
        Product {
            code: "rbi-illustration".into(),
            name: "RBI KFS illustration".into(),
            market: Market::India,
            amount: AmountRange {
                min: Money::from_major(2_000),
                max: Money::from_major(80_000),
                step: Money::from_major(500),
            },
            interest: Interest {
                rate: Rate::from_bp(1_500),
                per: RateBasis::Year,
                method: InterestMethod::Reducing,
            },
            rounding,
            terms: vec![Term {
                code: "m24".into(),
                period: Period::Monthly,
                installments: 24,
            }],
            fees: vec![FeeRule {
                name: "Processing fee".into(),
                percent: Rate::ZERO,
                fixed: Money::from_minor(33_898),
            }],
            fees_deducted_at_disbursal: true,
            late_charge: LateCharge {
                flat: Money::from_major(500),
                per_day: Money::ZERO,
                max_days: 0,
            },
            extension: None,
            cooling_off_days: 3,
        }
    }

    /// A short Indonesian product at `daily` per day, flat, with a 1% fee.
    pub(crate) fn indonesian(daily_bp: i64, fee_bp: i64) -> Product {
        Product {
            code: "id-test".into(),
            name: "Test".into(),
            market: Market::Indonesia,
            amount: AmountRange {
                min: Money::from_major(1_000_000),
                max: Money::from_major(15_000_000),
                step: Money::from_major(100_000),
            },
            interest: Interest {
                rate: Rate::from_bp(daily_bp),
                per: RateBasis::Day,
                method: InterestMethod::Flat,
            },
            rounding: Rounding::Whole,
            terms: vec![
                Term {
                    code: "30d".into(),
                    period: Period::Days(30),
                    installments: 1,
                },
                Term {
                    code: "m3".into(),
                    period: Period::Monthly,
                    installments: 3,
                },
            ],
            fees: vec![FeeRule {
                name: "Biaya layanan".into(),
                percent: Rate::from_bp(fee_bp),
                fixed: Money::ZERO,
            }],
            fees_deducted_at_disbursal: true,
            late_charge: LateCharge {
                flat: Money::from_major(50_000),
                per_day: Money::ZERO,
                max_days: 0,
            },
            extension: None,
            cooling_off_days: 3,
        }
    }

    const DAY: Date = date!(2026 - 11 - 22);

    #[test]
    fn the_rbi_illustration_with_the_exact_installment_has_an_apr_of_17_07_percent() {
        let q = quote(
            &rbi_illustration(Rounding::Minor),
            Money::from_major(20_000),
            "m24",
            DAY,
        )
        .unwrap();
        assert_eq!(q.fees[0].tax, Money::from_minor(6_102));
        assert_eq!(q.total_fees, Money::from_major(400));
        assert_eq!(q.net_disbursed, Money::from_major(19_600));
        assert_eq!(q.installments[0].amount, Money::from_minor(96_973));
        assert_eq!(q.installments.len(), 24);
        assert_eq!(q.apr, Apr(1707));
        assert_eq!(q.apr.to_string(), "17.07%");
    }

    #[test]
    fn the_rbi_illustration_with_installments_rounded_to_970_rupees_has_an_apr_of_17_10_percent() {
        let q = quote(
            &rbi_illustration(Rounding::Whole),
            Money::from_major(20_000),
            "m24",
            DAY,
        )
        .unwrap();
        assert!(
            q.installments[..23]
                .iter()
                .all(|i| i.amount == Money::from_major(970))
        );
        let all_970 = vec![Money::from_major(970); 24];
        assert_eq!(
            crate::apr::apr(q.net_disbursed, &all_970, Period::Monthly),
            Ok(Apr(1710))
        );
        // RBI's 17.10% charges ₹970 all 24 times. Our last installment gives back what rounding
        // up took, so the borrower pays the exact cost and the schedule's APR stays 17.07%.
        assert!(q.installments[23].amount < Money::from_major(970));
        assert_eq!(q.apr, Apr(1707));
    }

    #[test]
    fn the_rbi_illustration_repays_principal_and_interest_exactly() {
        let q = quote(
            &rbi_illustration(Rounding::Minor),
            Money::from_major(20_000),
            "m24",
            DAY,
        )
        .unwrap();
        let principal = Money::sum(q.installments.iter().map(|i| &i.principal)).unwrap();
        assert_eq!(principal, Money::from_major(20_000));
        assert_eq!(
            q.total_repayable,
            principal.checked_add(q.total_interest).unwrap()
        );
        assert_eq!(q.installments[0].interest, Money::from_major(250));
        assert_eq!(q.installments[23].due_date, date!(2028 - 11 - 22));
    }

    #[rstest]
    #[case(Money::from_major(1_999), "m24")]
    #[case(Money::from_major(80_500), "m24")]
    #[case(Money::from_minor(2_000_050), "m24")]
    #[case(Money::from_major(20_000), "m12")]
    fn a_request_outside_the_product_is_refused(#[case] amount: Money, #[case] term: &str) {
        let got = quote(&rbi_illustration(Rounding::Minor), amount, term, DAY);
        assert!(
            matches!(
                got,
                Err(Error::AmountOutOfRange { .. }
                    | Error::AmountNotOnStep { .. }
                    | Error::UnknownTerm(_))
            ),
            "{got:?}"
        );
    }

    #[test]
    fn fees_not_deducted_are_due_with_the_first_installment() {
        let mut product = rbi_illustration(Rounding::Minor);
        product.fees_deducted_at_disbursal = false;
        let q = quote(&product, Money::from_major(20_000), "m24", DAY).unwrap();
        assert_eq!(q.net_disbursed, Money::from_major(20_000));
        assert_eq!(q.installments[0].fees, Money::from_major(400));
        assert_eq!(q.installments[0].amount, Money::from_minor(96_973 + 40_000));
    }

    #[test]
    fn a_flat_daily_loan_charges_the_daily_rate_for_every_day() {
        let q = quote(
            &indonesian(10, 100),
            Money::from_major(1_000_000),
            "30d",
            DAY,
        )
        .unwrap();
        assert_eq!(q.total_interest, Money::from_major(30_000));
        assert_eq!(q.total_fees, Money::from_major(10_000));
        assert_eq!(q.net_disbursed, Money::from_major(990_000));
        assert_eq!(q.total_repayable, Money::from_major(1_030_000));
        assert_eq!(q.installments[0].due_date, date!(2026 - 12 - 22));
    }

    #[test]
    fn an_indonesian_loan_above_the_daily_cap_is_refused_with_the_limit() {
        // 0.3% a day is all the cap allows; a 1% fee on top breaks it.
        let got = quote(
            &indonesian(30, 100),
            Money::from_major(1_000_000),
            "30d",
            DAY,
        );
        assert_eq!(
            got,
            Err(Error::CapExceeded {
                cap: CapKind::DailyCost,
                limit: Money::from_major(90_000),
                actual: Money::from_major(100_000),
            })
        );
    }

    #[test]
    fn an_indian_loan_is_not_held_to_the_ojk_cap() {
        let mut product = indonesian(30, 100);
        product.market = Market::India;
        assert!(quote(&product, Money::from_major(1_000_000), "30d", DAY).is_ok());
    }

    /// The product of issue 16's report: 0.28% a day flat for 14 days with a Rp2,000 fee (Rp41,200 on Rp1,000,000,
    /// under the Rp42,000 the 0.3% cap allows over 14 days), and a 7-day extension for 5% (Rp50,000), once.
    pub(crate) fn over_the_cap_when_extended() -> Product {
        let mut p = indonesian(28, 0);
        p.amount = AmountRange {
            min: Money::from_major(1_000_000),
            max: Money::from_major(5_000_000),
            step: Money::from_major(500_000),
        };
        p.terms = vec![Term {
            code: "14d".into(),
            period: Period::Days(14),
            installments: 1,
        }];
        p.fees = vec![FeeRule {
            name: "Biaya layanan".into(),
            percent: Rate::ZERO,
            fixed: Money::from_major(2_000),
        }];
        p.extension = Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::from_bp(500),
            fee_fixed: Money::ZERO,
            max_extensions: 1,
        });
        p
    }

    #[test]
    fn a_loan_within_the_cap_whose_extension_costs_91_200_over_21_days_breaks_the_63_000_cap() {
        let q = quote(
            &over_the_cap_when_extended(),
            Money::from_major(1_000_000),
            "14d",
            DAY,
        )
        .expect("the loan itself is within the cap");
        assert_eq!(q.cost(), Ok(Money::from_major(41_200)));
        let extended = q.fully_extended().unwrap().expect("an extension");
        assert_eq!(extended.extensions, 1);
        assert_eq!(extended.last_due, date!(2026 - 12 - 13));
        assert_eq!(extended.extension_fees, Money::from_major(50_000));
        assert_eq!(extended.cost, Money::from_major(91_200));
        assert_eq!(
            q.check_extensions(&CapTable::ojk_consumer()),
            Err(Error::ExtensionOverCap {
                cap: CapKind::DailyCost,
                extensions: 1,
                days: 21,
                limit: Money::from_major(63_000),
                actual: Money::from_major(91_200),
            })
        );
    }

    #[rstest]
    // Rp41,200 + the extension fee against 0.3% × 21 days = Rp63,000: Rp21,800 is the most an extension may cost.
    #[case(Money::from_major(21_800), 1, true)]
    // A sen more is not asked (an Indonesian fee is whole rupiah, rounded down); a rupiah more breaks the cap.
    #[case(Money::from_minor(2_180_099), 1, true)]
    #[case(Money::from_major(21_801), 1, false)]
    // Twice: 28 days, Rp84,000; Rp41,200 + 2 × Rp21,400 = Rp84,000 exactly.
    #[case(Money::from_major(21_400), 2, true)]
    #[case(Money::from_major(21_401), 2, false)]
    fn an_extension_may_cost_what_the_cap_allows_over_the_extended_days_and_not_a_rupiah_more(
        #[case] fee: Money,
        #[case] times: u32,
        #[case] lawful: bool,
    ) {
        let mut product = over_the_cap_when_extended();
        product.extension = Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::ZERO,
            fee_fixed: fee,
            max_extensions: times,
        });
        let q = quote(&product, Money::from_major(1_000_000), "14d", DAY).unwrap();
        let got = q.check_extensions(&CapTable::ojk_consumer());
        assert_eq!(got.is_ok(), lawful, "{got:?}");
    }

    #[test]
    fn an_extension_past_six_months_is_held_to_the_longer_tenors_cap() {
        // Five months (151 days) at 0.1% a day + 1% fee, then 31 days more: 182 days, past 22 May 2027, so 0.2% a
        // day (Rp364,000), not 0.3%: Rp151,000 + Rp10,000 + a 25% extension fee of Rp250,000 = Rp411,000 breaks it.
        let mut product = indonesian(10, 100);
        product.terms = vec![Term {
            code: "m5".into(),
            period: Period::Monthly,
            installments: 5,
        }];
        product.extension = Some(ExtensionTerms {
            days: 31,
            fee_percent: Rate::from_bp(2_500),
            fee_fixed: Money::ZERO,
            max_extensions: 1,
        });
        let q = quote(&product, Money::from_major(1_000_000), "m5", DAY).unwrap();
        assert_eq!(
            q.check_extensions(&CapTable::ojk_consumer()),
            Err(Error::ExtensionOverCap {
                cap: CapKind::DailyCost,
                extensions: 1,
                days: 182,
                limit: Money::from_major(364_000),
                actual: Money::from_major(411_000),
            })
        );
        let extended = crate::kfs::DailyCost::extended(&q, &CapTable::ojk_consumer())
            .unwrap()
            .unwrap();
        assert_eq!(extended.cap, Rate::from_ppb(2_000_000));
        assert_eq!(extended.days, 182);
    }

    #[test]
    fn an_extension_is_counted_against_the_total_cap_with_the_worst_late_charges() {
        // Within the daily cap over 30 + 2 × 365 days, but 7% + 1% + 2 × 30% + Rp500,000 of late charges is over
        // the principal.
        let mut product = indonesian(20, 100);
        product.late_charge.flat = Money::from_major(500_000);
        product.extension = Some(ExtensionTerms {
            days: 365,
            fee_percent: Rate::from_bp(3_000),
            fee_fixed: Money::ZERO,
            max_extensions: 2,
        });
        let q = quote(&product, Money::from_major(1_000_000), "30d", DAY).unwrap();
        let got = q.check_extensions(&CapTable::ojk_consumer());
        assert!(
            matches!(
                got,
                Err(Error::ExtensionOverCap {
                    cap: CapKind::TotalCost,
                    extensions: 2,
                    ..
                })
            ),
            "{got:?}"
        );
    }

    #[test]
    fn an_indian_extension_is_not_held_to_the_ojk_cap() {
        let mut product = over_the_cap_when_extended();
        product.market = Market::India;
        let q = quote(&product, Money::from_major(1_000_000), "14d", DAY).unwrap();
        assert_eq!(q.check_extensions(&CapTable::ojk_consumer()), Ok(()));
        let mut none = over_the_cap_when_extended();
        none.extension = None;
        let q = quote(&none, Money::from_major(1_000_000), "14d", DAY).unwrap();
        assert_eq!(q.fully_extended(), Ok(None));
        assert_eq!(q.check_extensions(&CapTable::ojk_consumer()), Ok(()));
    }

    fn reducing_product(annual_bp: i64, months: u32) -> Product {
        let mut p = rbi_illustration(Rounding::Minor);
        p.fees.clear();
        p.interest.rate = Rate::from_bp(annual_bp);
        p.terms = vec![Term {
            code: "t".into(),
            period: Period::Monthly,
            installments: months,
        }];
        p
    }

    proptest! {
        #[test]
        fn installments_always_sum_to_the_total_repayable(
            steps in 0i64..=156,
            annual_bp in 0i64..=4_800,
            daily_bp in 0i64..=30,
            months in 1u32..=36,
            days in 1u32..=60,
            count in 1u32..=12,
            whole in any::<bool>(),
            deducted in any::<bool>(),
        ) {
            let amount = Money::from_major(2_000 + 500 * steps);
            let rounding = if whole { Rounding::Whole } else { Rounding::Minor };
            let mut monthly = reducing_product(annual_bp, months);
            monthly.rounding = rounding;
            monthly.fees_deducted_at_disbursal = deducted;
            monthly.fees = vec![FeeRule { name: "f".into(), percent: Rate::from_bp(200), fixed: Money::ZERO }];
            let mut flat = indonesian(daily_bp, 0);
            flat.market = Market::India;
            flat.amount = monthly.amount;
            flat.rounding = rounding;
            flat.terms = vec![
                Term { code: "d".into(), period: Period::Days(days), installments: count },
                Term { code: "m".into(), period: Period::Monthly, installments: count },
            ];
            for (product, term) in [(&monthly, "t"), (&flat, "d"), (&flat, "m")] {
                let q = quote(product, amount, term, DAY).unwrap();
                let sum = Money::sum(q.installments.iter().map(|i| &i.amount)).unwrap();
                prop_assert_eq!(sum, q.total_repayable);
                let principal = Money::sum(q.installments.iter().map(|i| &i.principal)).unwrap();
                prop_assert_eq!(principal, amount);
                let fees_in_schedule = if deducted || !std::ptr::eq(product, &monthly) { Money::ZERO } else { q.total_fees };
                prop_assert_eq!(sum, amount.checked_add(q.total_interest).unwrap().checked_add(fees_in_schedule).unwrap());
                for i in &q.installments {
                    prop_assert!(!i.principal.is_negative() && !i.interest.is_negative());
                    prop_assert_eq!(i.amount, i.principal.checked_add(i.interest).unwrap().checked_add(i.fees).unwrap());
                }
                prop_assert!(q.installments.windows(2).all(|w| w[0].due_date < w[1].due_date));
            }
        }

        #[test]
        fn the_apr_of_a_fee_free_reducing_loan_equals_its_nominal_rate(
            steps in 0i64..=156,
            annual_bp in 0i64..=4_800,
            months in 1u32..=36,
        ) {
            let amount = Money::from_major(2_000 + 500 * steps);
            let q = quote(&reducing_product(annual_bp, months), amount, "t", DAY).unwrap();
            prop_assert_eq!(q.apr, Apr(annual_bp));
        }

        #[test]
        fn the_apr_of_a_fee_free_single_installment_daily_loan_is_its_daily_rate_times_365(
            steps in 0i64..=140,
            daily_bp in 0i64..=30,
            days in 1u32..=90,
        ) {
            let mut product = indonesian(daily_bp, 0);
            product.market = Market::India;
            product.rounding = Rounding::Minor;
            product.terms = vec![Term { code: "d".into(), period: Period::Days(days), installments: 1 }];
            let q = quote(&product, Money::from_major(1_000_000 + 100_000 * steps), "d", DAY).unwrap();
            prop_assert_eq!(q.apr, Apr(daily_bp * 365));
        }

        #[test]
        fn an_indonesian_quote_is_refused_exactly_when_it_breaks_a_cap(
            steps in 0i64..=140,
            daily_bp in 0i64..=60,
            fee_bp in 0i64..=1_000,
            term in prop::sample::select(vec!["30d", "m3"]),
        ) {
            let product = indonesian(daily_bp, fee_bp);
            let amount = Money::from_major(1_000_000 + 100_000 * steps);
            let no_caps = CapTable {
                daily_cost: vec![crate::caps::DailyCostCap {
                    effective_from: date!(2000 - 01 - 01),
                    tenor_from_months: 0,
                    tenor_under_months: None,
                    daily: Rate::from_bp(10_000),
                }],
                total_cost: Rate::from_bp(1_000_000),
                late_charge_daily: Vec::new(),
            };
            let q = quote_with_caps(&product, amount, term, DAY, &no_caps).unwrap();
            let days = i128::from(crate::calendar::days_between(DAY, q.last_due_date()));
            let cost = i128::from(q.cost().unwrap().minor());
            let p = i128::from(amount.minor());
            // 0.3% a day: cost × 1000 <= principal × 3 × days; everything <= principal.
            let lawful = cost * 1_000 <= p * 3 * days
                && cost + i128::from(q.max_late_charges.minor()) <= p;
            let got = quote(&product, amount, term, DAY);
            prop_assert_eq!(got.is_ok(), lawful, "{:?}", got);
            if let Err(e) = got {
                prop_assert!(matches!(e, Error::CapExceeded { limit, actual, .. } if actual > limit), "{:?}", e);
            }
        }
    }
}
