//! The annual percentage rate: the periodic internal rate of return of the borrower's net cash
//! flows, times the periods in a year (RBI KFS circular, April 2024). Integer fixed point only;
//! the method is explained in `docs/MONEY.md` §4.

use crate::error::{Error, Result};
use crate::money::{Money, div_round_half_up};
use crate::product::Period;
use crate::rate::Apr;

/// Fixed-point scale of the periodic rate during the search (18 decimals).
const FINE: i128 = 1_000_000_000_000_000_000;

/// Present value, at `FINE` scale, of `payments` (one per period from period 1) at periodic rate `r`.
fn present_value(payments: &[Money], r: i128) -> Result<i128> {
    let mut discount = FINE;
    let mut total: i128 = 0;
    for payment in payments {
        discount = div_round_half_up(discount.checked_mul(FINE).ok_or(Error::Overflow)?, FINE + r);
        let term = i128::from(payment.minor())
            .checked_mul(discount)
            .ok_or(Error::Overflow)?;
        total = total.checked_add(term).ok_or(Error::Overflow)?;
    }
    Ok(total)
}

/// The periodic rate, at 18 decimals, that discounts `payments` to exactly `net_disbursed`.
///
/// Bisection rather than Newton: the present value falls monotonically as the rate rises, so
/// bisection cannot diverge, and 128 halvings of a bracket below 2^64 reach the last digit.
pub fn periodic_irr(net_disbursed: Money, payments: &[Money]) -> Result<i128> {
    let target = i128::from(net_disbursed.minor())
        .checked_mul(FINE)
        .ok_or(Error::Overflow)?;
    // A bracket [lo, hi] with PV(lo) >= target >= PV(hi). Every loan repays at least what it
    // paid out, so the rate is never negative and zero is a valid lower end.
    let lo_ok =
        net_disbursed.minor() > 0 && !payments.is_empty() && present_value(payments, 0)? >= target;
    if !lo_ok {
        return Err(Error::NoRateOfReturn);
    }
    let mut lo: i128 = 0;
    let mut hi: i128 = FINE;
    while present_value(payments, hi)? > target {
        hi = hi
            .checked_mul(2)
            .filter(|h| *h < FINE * 1_000_000)
            .ok_or(Error::Overflow)?;
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if present_value(payments, mid)? >= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// The APR of a loan paying out `net_disbursed` and collecting `payments`, one per `period`,
/// rounded half-up to hundredths of a percent.
pub fn apr(net_disbursed: Money, payments: &[Money], period: Period) -> Result<Apr> {
    let r = periodic_irr(net_disbursed, payments)?;
    let (per_year_num, per_year_den) = period.per_year();
    let bp = div_round_half_up(r * per_year_num * 10_000, FINE * per_year_den);
    Ok(Apr(i64::try_from(bp).map_err(|_| Error::Overflow)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rbi_illustration_rounded_to_970_rupees_has_an_apr_of_17_10_percent() {
        let payments = vec![Money::from_major(970); 24];
        assert_eq!(
            apr(Money::from_major(19_600), &payments, Period::Monthly),
            Ok(Apr(1710))
        );
    }

    #[test]
    fn repaying_less_than_was_paid_out_has_no_apr() {
        let payments = [Money::from_major(999)];
        assert_eq!(
            apr(Money::from_major(1_000), &payments, Period::Monthly),
            Err(Error::NoRateOfReturn)
        );
    }

    #[test]
    fn a_loan_repaid_with_nothing_added_has_an_apr_of_zero() {
        let payments = vec![Money::from_major(500); 4];
        assert_eq!(
            apr(Money::from_major(2_000), &payments, Period::Monthly),
            Ok(Apr(0))
        );
    }

    #[test]
    fn a_seven_day_loan_costing_two_percent_has_an_apr_of_365_over_7_times_two_percent() {
        let payments = [Money::from_major(10_200)];
        // 2% × 365 ÷ 7 = 104.2857…%
        assert_eq!(
            apr(Money::from_major(10_000), &payments, Period::Days(7)),
            Ok(Apr(10_429))
        );
    }
}
