//! Money after disbursal: the cooling-off exit amount, extension pricing, and how a repayment is
//! allocated. See `docs/MONEY.md` §6.

use crate::calendar::{add_days, days_between};
use crate::caps::CapTable;
use crate::error::{Error, Result};
use crate::money::{Market, Money, div_round_half_up};
use crate::product::RateBasis;
use crate::quote::{FeeCharge, Quote, extension_over_cap};
use crate::rate::RATE_SCALE;
use crate::schedule::Installment;
use serde::{Deserialize, Serialize};
use time::Date;

/// What a borrower pays to leave the loan during cooling-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoolingOffExit {
    /// Days from disbursal to the exit.
    pub days_used: i64,
    /// Sanctioned principal.
    pub principal: Money,
    /// Interest for the days used, at the contract rate, on the principal; at most the KFS's total interest.
    pub interest: Money,
    /// Fees deducted at disbursal, handed back because no charge but interest may be kept.
    pub fees_refunded: Money,
    /// To pay: principal + interest − fees refunded.
    pub amount: Money,
}

/// The exit amount for a loan disbursed on `disbursed` and left on `exit_on`.
///
/// RBI digital lending directions: during the cooling-off period the borrower exits by repaying the
/// principal and the interest for the days used, with no penalty. PRODUCT.md §3 adds "no other
/// charge", so fees already taken from the payout are credited back.
pub fn cooling_off_exit(quote: &Quote, disbursed: Date, exit_on: Date) -> Result<CoolingOffExit> {
    let ended = add_days(disbursed, quote.cooling_off_days)?;
    if exit_on > ended {
        return Err(Error::CoolingOffOver { ended });
    }
    let days_used = days_between(disbursed, exit_on).max(0);
    let p = i128::from(quote.principal.minor());
    let rate = i128::from(quote.interest.rate.ppb());
    let scale = i128::from(RATE_SCALE);
    let interest = match quote.interest.per {
        RateBasis::Day => div_round_half_up(p * rate * i128::from(days_used), scale),
        RateBasis::Year => div_round_half_up(p * rate * i128::from(days_used), scale * 365),
    };
    // Whole amounts of what the market asks (whole rupiah in Indonesia), rounded down: in the borrower's favour; and
    // never more than the KFS's interest for the whole loan (a term shorter than the window: nothing outside the KFS
    // is ever charged).
    let interest = quote
        .market
        .floor_to_asked(Money::try_from_i128(interest)?)
        .min(quote.total_interest);
    let fees_refunded = if quote.fees_deducted_at_disbursal {
        quote.total_fees
    } else {
        Money::ZERO
    };
    let amount = quote
        .principal
        .checked_add(interest)?
        .checked_sub(fees_refunded)?;
    Ok(CoolingOffExit {
        days_used,
        principal: quote.principal,
        interest,
        fees_refunded,
        amount,
    })
}

/// The price and effect of moving one due date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionQuote {
    /// Installment whose date moves.
    pub installment: u32,
    /// Days it moves.
    pub days: u32,
    /// The fee, with tax.
    pub fee: FeeCharge,
    /// The schedule after the extension: this installment and later ones move by `days`.
    pub revised: Vec<Installment>,
}

/// Prices an extension of installment `number` of a loan whose current schedule is `schedule`,
/// after `extensions_granted` earlier extensions that cost `extension_fees_paid` in total.
///
/// Later installments move too, so the schedule stays in date order. In Indonesia the extended
/// loan must still pass both OJK caps, measured over the new tenor; a breach is [`Error::ExtensionOverCap`].
pub fn price_extension(
    quote: &Quote,
    schedule: &[Installment],
    number: u32,
    extensions_granted: u32,
    extension_fees_paid: Money,
    caps: &CapTable,
) -> Result<ExtensionQuote> {
    let terms = quote
        .extension
        .ok_or_else(|| Error::ExtensionNotAllowed("the product offers no extension".into()))?;
    if extensions_granted >= terms.max_extensions {
        return Err(Error::ExtensionNotAllowed(format!(
            "at most {} extensions",
            terms.max_extensions
        )));
    }
    if !schedule.iter().any(|i| i.number == number) {
        return Err(Error::ExtensionNotAllowed(format!(
            "no installment {number}"
        )));
    }
    let fee = quote
        .extension_fee()?
        .ok_or_else(|| Error::ExtensionNotAllowed("the product offers no extension".into()))?;
    let revised = schedule
        .iter()
        .map(|i| {
            let mut i = i.clone();
            if i.number >= number {
                i.due_date = add_days(i.due_date, terms.days)?;
            }
            Ok(i)
        })
        .collect::<Result<Vec<_>>>()?;
    if quote.market == Market::Indonesia {
        let last_due = revised.last().map_or(quote.disbursal_date, |i| i.due_date);
        let cost = quote
            .cost()?
            .checked_add(extension_fees_paid)?
            .checked_add(fee.total)?;
        caps.check(
            quote.principal,
            quote.disbursal_date,
            last_due,
            cost,
            quote.max_late_charges,
        )
        .map_err(|e| {
            extension_over_cap(
                e,
                extensions_granted + 1,
                days_between(quote.disbursal_date, last_due),
            )
        })?;
    }
    Ok(ExtensionQuote {
        installment: number,
        days: terms.days,
        fee,
        revised,
    })
}

/// What a loan still owes, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Outstanding {
    /// Fees (with tax), including extension fees.
    pub fees: Money,
    /// Late charges.
    pub late_charges: Money,
    /// Interest due.
    pub interest: Money,
    /// Principal.
    pub principal: Money,
}

impl Outstanding {
    /// Everything owed.
    pub fn total(&self) -> Result<Money> {
        Money::sum(&[self.fees, self.late_charges, self.interest, self.principal])
    }
}

/// How one repayment was split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Allocation {
    /// Paid towards each kind.
    pub applied: Outstanding,
    /// Paid beyond everything owed, to be refunded.
    pub excess: Money,
    /// Still owed afterwards.
    pub remaining: Outstanding,
}

/// Allocates `payment`: late charges, then fees, then interest, then principal (PRODUCT.md §6),
/// so principal, on which interest runs, is reduced last and a late charge never lingers unpaid.
pub fn allocate(owed: Outstanding, payment: Money) -> Result<Allocation> {
    let parts = [
        owed.late_charges,
        owed.fees,
        owed.interest,
        owed.principal,
        payment,
    ];
    if parts.iter().any(|m| m.is_negative()) {
        return Err(Error::NegativeAmount);
    }
    let mut left = payment;
    let mut take = |due: Money| -> Result<Money> {
        let part = left.min(due);
        left = left.checked_sub(part)?;
        Ok(part)
    };
    let late_charges = take(owed.late_charges)?;
    let applied = Outstanding {
        late_charges,
        fees: take(owed.fees)?,
        interest: take(owed.interest)?,
        principal: take(owed.principal)?,
    };
    let remaining = Outstanding {
        fees: owed.fees.checked_sub(applied.fees)?,
        late_charges: owed.late_charges.checked_sub(applied.late_charges)?,
        interest: owed.interest.checked_sub(applied.interest)?,
        principal: owed.principal.checked_sub(applied.principal)?,
    };
    Ok(Allocation {
        applied,
        excess: left,
        remaining,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CapKind;
    use crate::product::{ExtensionTerms, Rounding};
    use crate::quote::quote;
    use crate::quote::tests::{indonesian, rbi_illustration};
    use crate::rate::Rate;
    use proptest::prelude::*;
    use rstest::rstest;
    use time::macros::date;

    const DAY: Date = date!(2026 - 11 - 22);

    fn rbi_quote() -> Quote {
        quote(
            &rbi_illustration(Rounding::Minor),
            Money::from_major(20_000),
            "m24",
            DAY,
        )
        .unwrap()
    }

    #[rstest]
    #[case(date!(2026 - 11 - 22), 0, 0)]
    #[case(date!(2026 - 11 - 23), 1, 822)]
    #[case(date!(2026 - 11 - 25), 3, 2_466)]
    fn the_cooling_off_exit_is_principal_plus_interest_for_the_days_used(
        #[case] exit_on: Date,
        #[case] days: i64,
        #[case] interest: i64,
    ) {
        let exit = cooling_off_exit(&rbi_quote(), DAY, exit_on).unwrap();
        // ₹20,000 × 15% ÷ 365 = ₹8.219… a day; the ₹400 of fees kept at disbursal come back.
        assert_eq!(exit.days_used, days);
        assert_eq!(exit.interest, Money::from_minor(interest));
        assert_eq!(exit.fees_refunded, Money::from_major(400));
        assert_eq!(exit.amount, Money::from_minor(1_960_000 + interest));
    }

    #[test]
    fn the_cooling_off_exit_closes_after_the_products_days() {
        assert_eq!(
            cooling_off_exit(&rbi_quote(), DAY, date!(2026 - 11 - 26)),
            Err(Error::CoolingOffOver {
                ended: date!(2026 - 11 - 25)
            })
        );
    }

    #[test]
    fn a_daily_rate_exit_charges_the_daily_rate_per_day() {
        let q = quote(
            &indonesian(20, 100),
            Money::from_major(1_000_000),
            "30d",
            DAY,
        )
        .unwrap();
        let exit = cooling_off_exit(&q, DAY, date!(2026 - 11 - 24)).unwrap();
        assert_eq!(exit.interest, Money::from_major(4_000));
        assert_eq!(exit.amount, Money::from_major(1_000_000 - 10_000 + 4_000));
    }

    fn extendable(fee_bp: i64) -> Quote {
        let mut product = indonesian(20, 100);
        product.extension = Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::from_bp(fee_bp),
            fee_fixed: Money::ZERO,
            max_extensions: 2,
        });
        quote(&product, Money::from_major(1_000_000), "30d", DAY).unwrap()
    }

    #[test]
    fn an_extension_moves_the_due_date_for_its_fee() {
        let q = extendable(100);
        let ext = price_extension(
            &q,
            &q.installments,
            1,
            0,
            Money::ZERO,
            &CapTable::ojk_consumer(),
        )
        .unwrap();
        assert_eq!(ext.fee.total, Money::from_major(10_000));
        assert_eq!(ext.revised[0].due_date, date!(2026 - 12 - 29));
        assert_eq!(ext.revised[0].amount, q.installments[0].amount);
    }

    #[test]
    fn an_indonesian_extension_fee_is_asked_in_whole_rupiah_rounded_down() {
        let mut q = extendable(100);
        if let Some(terms) = q.extension.as_mut() {
            // Rp 10,000 and Rp 50.75: the sen are not asked.
            terms.fee_fixed = Money::from_minor(5_075);
        }
        let ext = price_extension(
            &q,
            &q.installments,
            1,
            0,
            Money::ZERO,
            &CapTable::ojk_consumer(),
        )
        .unwrap();
        assert_eq!(ext.fee.total, Money::from_minor(1_005_000));
        assert_eq!(
            ext.fee.amount.checked_add(ext.fee.tax).unwrap(),
            ext.fee.total
        );
        assert_eq!(
            q.extension_fee().unwrap(),
            Some(ext.fee),
            "the KFS states what is charged"
        );
    }

    #[test]
    fn later_installments_move_with_an_extended_one() {
        let q = quote(
            &rbi_illustration(Rounding::Minor),
            Money::from_major(20_000),
            "m24",
            DAY,
        )
        .unwrap();
        let mut q = q;
        q.extension = Some(ExtensionTerms {
            days: 10,
            fee_percent: Rate::ZERO,
            fee_fixed: Money::from_major(100),
            max_extensions: 1,
        });
        let ext = price_extension(
            &q,
            &q.installments,
            2,
            0,
            Money::ZERO,
            &CapTable::ojk_consumer(),
        )
        .unwrap();
        assert_eq!(ext.fee.tax, Money::from_major(18));
        assert_eq!(ext.revised[0].due_date, q.installments[0].due_date);
        assert_eq!(ext.revised[1].due_date, date!(2027 - 02 - 01));
        assert_eq!(ext.revised[2].due_date, date!(2027 - 03 - 04));
    }

    #[test]
    fn an_extension_that_breaks_the_ojk_cap_is_refused() {
        // 6% interest + 1% fee + 5% extension fee = 12% over 37 days, above 0.3% × 37 = 11.1%.
        let q = extendable(500);
        let got = price_extension(
            &q,
            &q.installments,
            1,
            0,
            Money::ZERO,
            &CapTable::ojk_consumer(),
        );
        assert_eq!(
            got,
            Err(Error::ExtensionOverCap {
                cap: CapKind::DailyCost,
                extensions: 1,
                days: 37,
                limit: Money::from_major(111_000),
                actual: Money::from_major(120_000),
            })
        );
    }

    #[test]
    fn extensions_beyond_the_products_limit_are_refused() {
        let q = extendable(100);
        let got = price_extension(
            &q,
            &q.installments,
            1,
            2,
            Money::from_major(20_000),
            &CapTable::ojk_consumer(),
        );
        assert!(matches!(got, Err(Error::ExtensionNotAllowed(_))));
    }

    #[rstest]
    #[case(5_000, [1_000, 500, 2_000, 1_500], 0)]
    #[case(400, [0, 400, 0, 0], 0)]
    #[case(1_200, [700, 500, 0, 0], 0)]
    #[case(10_000, [1_000, 500, 2_000, 6_500], 0)]
    #[case(20_000, [1_000, 500, 2_000, 10_000], 6_500)]
    fn a_repayment_pays_late_charges_then_fees_then_interest_then_principal(
        #[case] paid: i64,
        #[case] want: [i64; 4],
        #[case] excess: i64,
    ) {
        let owed = Outstanding {
            fees: Money::from_minor(1_000),
            late_charges: Money::from_minor(500),
            interest: Money::from_minor(2_000),
            principal: Money::from_minor(10_000),
        };
        let a = allocate(owed, Money::from_minor(paid)).unwrap();
        let got = [
            a.applied.fees,
            a.applied.late_charges,
            a.applied.interest,
            a.applied.principal,
        ];
        assert_eq!(got.map(Money::minor), want);
        assert_eq!(a.excess, Money::from_minor(excess));
    }

    #[test]
    fn a_negative_repayment_is_refused() {
        assert_eq!(
            allocate(Outstanding::default(), Money::from_minor(-1)),
            Err(Error::NegativeAmount)
        );
    }

    proptest! {
        #[test]
        fn allocation_never_goes_negative_and_loses_nothing(
            fees in 0i64..1_000_000,
            late in 0i64..1_000_000,
            interest in 0i64..10_000_000,
            principal in 0i64..1_000_000_000,
            paid in 0i64..2_000_000_000,
        ) {
            let owed = Outstanding {
                fees: Money::from_minor(fees),
                late_charges: Money::from_minor(late),
                interest: Money::from_minor(interest),
                principal: Money::from_minor(principal),
            };
            let a = allocate(owed, Money::from_minor(paid)).unwrap();
            for part in [a.applied, a.remaining] {
                prop_assert!(!part.fees.is_negative() && !part.late_charges.is_negative());
                prop_assert!(!part.interest.is_negative() && !part.principal.is_negative());
            }
            prop_assert!(!a.excess.is_negative());
            prop_assert_eq!(a.applied.total().unwrap().checked_add(a.excess).unwrap(), Money::from_minor(paid));
            prop_assert_eq!(a.applied.total().unwrap().checked_add(a.remaining.total().unwrap()).unwrap(), owed.total().unwrap());
            // Each kind is touched only once every kind before it is paid.
            if a.applied.fees.minor() > 0 {
                prop_assert_eq!(a.remaining.late_charges.minor(), 0);
            }
            if a.applied.interest.minor() > 0 {
                prop_assert_eq!(a.remaining.late_charges.minor() + a.remaining.fees.minor(), 0);
            }
            if a.applied.principal.minor() > 0 {
                prop_assert_eq!(a.remaining.fees.minor() + a.remaining.late_charges.minor() + a.remaining.interest.minor(), 0);
            }
        }
    }
}
