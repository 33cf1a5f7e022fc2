//! The installment schedule: due dates, and how each installment splits into principal, interest
//! and fees, for flat and reducing-balance products. See `docs/MONEY.md` §3.

use crate::calendar::{add_days, add_months, days_between};
use crate::error::{Error, Result};
use crate::money::{Money, div_round_half_up};
use crate::product::{Interest, InterestMethod, Period, RateBasis, Rounding};
use crate::rate::RATE_SCALE;
use serde::{Deserialize, Serialize};
use time::Date;

/// Fixed-point scale of the compounding factors in the EMI formula (18 decimals).
const FINE: i128 = 1_000_000_000_000_000_000;

/// One installment of a schedule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Installment {
    /// 1-based position.
    pub number: u32,
    /// Day it is due.
    #[cfg_attr(feature = "openapi", schema(value_type = String, format = Date))]
    pub due_date: Date,
    /// Principal repaid.
    pub principal: Money,
    /// Interest paid.
    pub interest: Money,
    /// Fees (with tax) paid, when the product does not deduct them at disbursal.
    pub fees: Money,
    /// The installment: principal + interest + fees.
    pub amount: Money,
}

/// The due date of installment `number` (1-based): counted from disbursal, not from the previous
/// installment, so clamping at a short month does not drift later dates.
pub fn due_date(disbursed: Date, period: Period, number: u32) -> Result<Date> {
    match period {
        Period::Monthly => add_months(disbursed, number),
        Period::Days(d) => add_days(disbursed, d.checked_mul(number).ok_or(Error::Overflow)?),
    }
}

/// The interest rate of one period as an exact fraction `(numerator, denominator)`.
///
/// An annual rate is divided by 12 for monthly periods and scaled by `days ÷ 365` for day-based
/// ones; a daily rate is multiplied by the period's days. `days_in_period` is only read for a daily
/// rate on monthly periods (flat method), where months differ in length.
pub fn periodic_rate(interest: Interest, period: Period, days_in_period: i64) -> (i128, i128) {
    let r = i128::from(interest.rate.ppb());
    let scale = i128::from(RATE_SCALE);
    match (interest.per, period) {
        (RateBasis::Year, Period::Monthly) => (r, scale * 12),
        (RateBasis::Year, Period::Days(d)) => (r * i128::from(d), scale * 365),
        (RateBasis::Day, Period::Days(d)) => (r * i128::from(d), scale),
        (RateBasis::Day, Period::Monthly) => (r * i128::from(days_in_period), scale),
    }
}

/// What [`build`] needs to know about a loan.
#[derive(Debug, Clone, Copy)]
pub struct ScheduleInput {
    /// Amount lent.
    pub principal: Money,
    /// Interest terms.
    pub interest: Interest,
    /// Time between installments.
    pub period: Period,
    /// Number of installments.
    pub installments: u32,
    /// Rounding of installment amounts.
    pub rounding: Rounding,
    /// Day of disbursal.
    pub disbursed: Date,
    /// Fees due with the first installment (zero when deducted at disbursal).
    pub fees_with_first: Money,
}

/// Builds the schedule. Every installment but the last is rounded to the product's unit; the last
/// takes the remaining principal and its own interest, so the principal parts sum to the principal exactly.
pub fn build(input: ScheduleInput) -> Result<Vec<Installment>> {
    let n = input.installments;
    if n == 0 || input.principal.minor() <= 0 {
        return Err(Error::EmptyLoan);
    }
    let unit = input.rounding.unit();
    let p = i128::from(input.principal.minor());
    let mut balance = p;
    let mut out = Vec::with_capacity(n as usize);
    let mut previous = input.disbursed;
    let emi = match input.interest.method {
        InterestMethod::Reducing => Some(emi_exact(
            p,
            periodic_rate(input.interest, input.period, 0),
            n,
        )?),
        InterestMethod::Flat => None,
    };
    for number in 1..=n {
        let due = due_date(input.disbursed, input.period, number)?;
        let (num, den) = periodic_rate(input.interest, input.period, days_between(previous, due));
        // Reducing: on the balance. Flat: on the full principal, every period.
        let base = if emi.is_some() { balance } else { p };
        let interest = div_round_half_up(base * num, den);
        let principal = if number == n {
            balance
        } else {
            let (amount_num, amount_den) = match emi {
                Some(exact) => exact,
                // Equal principal parts plus this period's exact interest, rounded as one amount.
                None => (p * den + base * num * i128::from(n), den * i128::from(n)),
            };
            let amount =
                div_round_half_up(amount_num, amount_den * i128::from(unit)) * i128::from(unit);
            (amount - interest).clamp(0, balance)
        };
        balance -= principal;
        let fees = if number == 1 {
            input.fees_with_first
        } else {
            Money::ZERO
        };
        let principal = Money::try_from_i128(principal)?;
        let interest = Money::try_from_i128(interest)?;
        let amount = principal.checked_add(interest)?.checked_add(fees)?;
        out.push(Installment {
            number,
            due_date: due,
            principal,
            interest,
            fees,
            amount,
        });
        previous = due;
    }
    Ok(out)
}

/// The exact equal installment `P·r·(1+r)^n ÷ ((1+r)^n − 1)` as a fraction in minor units.
fn emi_exact(p: i128, (num, den): (i128, i128), n: u32) -> Result<(i128, i128)> {
    if num == 0 {
        return Ok((p, i128::from(n)));
    }
    let r = div_round_half_up(num * FINE, den);
    let mut growth = FINE;
    for _ in 0..n {
        growth = div_round_half_up(growth.checked_mul(FINE + r).ok_or(Error::Overflow)?, FINE);
    }
    let factor = div_round_half_up(r.checked_mul(growth).ok_or(Error::Overflow)?, growth - FINE);
    Ok((p.checked_mul(factor).ok_or(Error::Overflow)?, FINE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::Rate;
    use rstest::rstest;
    use time::macros::date;

    fn input(
        rate_bp: i64,
        per: RateBasis,
        method: InterestMethod,
        period: Period,
        n: u32,
    ) -> ScheduleInput {
        ScheduleInput {
            principal: Money::from_major(10_000),
            interest: Interest {
                rate: Rate::from_bp(rate_bp),
                per,
                method,
            },
            period,
            installments: n,
            rounding: Rounding::Whole,
            disbursed: date!(2026 - 01 - 31),
            fees_with_first: Money::ZERO,
        }
    }

    #[rstest]
    #[case(1, date!(2026 - 02 - 28))]
    #[case(2, date!(2026 - 03 - 31))]
    #[case(3, date!(2026 - 04 - 30))]
    fn monthly_due_dates_count_from_disbursal_and_clamp_to_month_end(
        #[case] k: u32,
        #[case] want: Date,
    ) {
        assert_eq!(
            due_date(date!(2026 - 01 - 31), Period::Monthly, k),
            Ok(want)
        );
    }

    #[test]
    fn a_flat_fortnightly_loan_splits_into_whole_rupee_installments_with_the_last_absorbing() {
        // ₹10,000 at 0.08% a day: ₹112 of interest per 14 days; ₹3,333.33 + ₹112 rounds to ₹3,445.
        let s = build(input(
            8,
            RateBasis::Day,
            InterestMethod::Flat,
            Period::Days(14),
            3,
        ))
        .unwrap();
        let amounts: Vec<i64> = s.iter().map(|i| i.amount.minor()).collect();
        assert_eq!(amounts, vec![344_500, 344_500, 344_600]);
        assert!(s.iter().all(|i| i.interest == Money::from_major(112)));
        assert_eq!(s[2].due_date, date!(2026 - 03 - 14));
    }

    #[test]
    fn a_zero_rate_reducing_loan_repays_equal_parts() {
        let s = build(input(
            0,
            RateBasis::Year,
            InterestMethod::Reducing,
            Period::Monthly,
            3,
        ))
        .unwrap();
        let amounts: Vec<i64> = s.iter().map(|i| i.amount.minor()).collect();
        assert_eq!(amounts, vec![333_300, 333_300, 333_400]);
    }

    #[test]
    fn a_daily_flat_rate_on_monthly_periods_charges_each_months_days() {
        let s = build(input(
            10,
            RateBasis::Day,
            InterestMethod::Flat,
            Period::Monthly,
            2,
        ))
        .unwrap();
        // 28 days to 28 February, then 31 to 31 March, at ₹10 a day.
        assert_eq!(s[0].interest, Money::from_major(280));
        assert_eq!(s[1].interest, Money::from_major(310));
    }

    #[test]
    fn a_loan_without_installments_is_refused() {
        let got = build(input(
            8,
            RateBasis::Day,
            InterestMethod::Flat,
            Period::Days(14),
            0,
        ));
        assert_eq!(got, Err(Error::EmptyLoan));
    }
}
