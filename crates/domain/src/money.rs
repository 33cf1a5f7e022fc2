//! Money in integer minor units (paise, sen), the two markets and their currencies, and half-up rounding.
//!
//! See `docs/MONEY.md` §1: an amount never exists as anything but a whole number of minor units.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A market Kilat lends in; it fixes the currency and the regulator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Market {
    /// India: rupees, RBI digital lending rules, 18% GST on fees.
    #[serde(rename = "IN")]
    India,
    /// Indonesia: rupiah, OJK cost caps.
    #[serde(rename = "ID")]
    Indonesia,
}

impl Market {
    /// The currency the market lends in.
    pub fn currency(self) -> Currency {
        match self {
            Market::India => Currency::Inr,
            Market::Indonesia => Currency::Idr,
        }
    }

    /// The smallest amount, in minor units, that is ever asked of a borrower in this market: a paisa in India; a
    /// whole rupiah in Indonesia, where virtual accounts and the providers' callbacks carry whole rupiah only. Amounts
    /// computed finer (a day's late charge, interest for the days used) are rounded down to it: in the borrower's
    /// favour (docs/MONEY.md).
    pub fn asked_unit(self) -> i64 {
        match self {
            Market::India => 1,
            Market::Indonesia => 100,
        }
    }

    /// `amount` rounded down to [`Market::asked_unit`] (towards zero for a negative amount, which never happens for
    /// an amount asked).
    pub fn floor_to_asked(self, amount: Money) -> Money {
        let unit = self.asked_unit();
        Money::from_minor(amount.minor() - amount.minor() % unit)
    }

    /// The market's calendar day at `now`: a loan paid out at 00:30 in Mumbai is dated that day, not the day
    /// before in UTC. India is UTC+05:30; Indonesia uses Jakarta's time (WIB, UTC+07:00), where its lender books.
    pub fn local_date(self, now: time::OffsetDateTime) -> time::Date {
        let offset = match self {
            Market::India => time::UtcOffset::from_hms(5, 30, 0),
            Market::Indonesia => time::UtcOffset::from_hms(7, 0, 0),
        }
        .expect("a valid fixed offset");
        now.to_offset(offset).date()
    }

    /// The market's local time at `now` (IST, UTC+05:30, or WIB, UTC+07:00): what its sending hours are read in.
    pub fn local_time(self, now: time::OffsetDateTime) -> time::OffsetDateTime {
        let offset = match self {
            Market::India => time::UtcOffset::from_hms(5, 30, 0),
            Market::Indonesia => time::UtcOffset::from_hms(7, 0, 0),
        }
        .expect("a valid fixed offset");
        now.to_offset(offset)
    }
}

/// ISO 4217 currency; both have 100 minor units to the major unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum Currency {
    /// Indian rupee, minor unit paisa.
    Inr,
    /// Indonesian rupiah, minor unit sen.
    Idr,
}

impl Currency {
    /// Minor units in one major unit (rupee, rupiah).
    pub const MINOR_PER_MAJOR: i64 = 100;
}

/// An amount in minor units of the loan's currency.
///
/// The currency is not carried per amount: every computation happens inside one product, whose market
/// fixes it, and the KFS states it once. Amounts serialize as plain integers, as the API carries them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(
        value_type = i64,
        description = "An amount in minor units (paise, sen) of the loan's currency: an integer, 150000 is ₹1,500.00."
    )
)]
#[serde(transparent)]
pub struct Money(i64);

impl Money {
    /// Nothing.
    pub const ZERO: Money = Money(0);

    /// An amount of `minor` paise or sen.
    pub const fn from_minor(minor: i64) -> Money {
        Money(minor)
    }

    /// An amount of whole rupees or rupiah.
    pub const fn from_major(major: i64) -> Money {
        Money(major * Currency::MINOR_PER_MAJOR)
    }

    /// The amount in minor units.
    pub const fn minor(self) -> i64 {
        self.0
    }

    /// `self + other`, refusing overflow.
    pub fn checked_add(self, other: Money) -> Result<Money> {
        self.0
            .checked_add(other.0)
            .map(Money)
            .ok_or(Error::Overflow)
    }

    /// `self - other`, refusing overflow.
    pub fn checked_sub(self, other: Money) -> Result<Money> {
        self.0
            .checked_sub(other.0)
            .map(Money)
            .ok_or(Error::Overflow)
    }

    /// `self × n`, refusing overflow.
    pub fn checked_mul(self, n: i64) -> Result<Money> {
        self.0.checked_mul(n).map(Money).ok_or(Error::Overflow)
    }

    /// Narrows a wide intermediate result back to an amount.
    pub fn try_from_i128(minor: i128) -> Result<Money> {
        i64::try_from(minor).map(Money).map_err(|_| Error::Overflow)
    }

    /// Sum of amounts, refusing overflow.
    pub fn sum<'a>(items: impl IntoIterator<Item = &'a Money>) -> Result<Money> {
        items
            .into_iter()
            .try_fold(Money::ZERO, |acc, m| acc.checked_add(*m))
    }

    /// The smaller of two amounts.
    pub fn min(self, other: Money) -> Money {
        Money(self.0.min(other.0))
    }

    /// True when the amount is below zero.
    pub fn is_negative(self) -> bool {
        self.0 < 0
    }
}

impl std::fmt::Display for Money {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

/// `numerator ÷ denominator` rounded half away from zero; the denominator must be positive.
///
/// Half-up is the rounding banks and the RBI illustration use; a half paisa goes to the borrower's
/// side only by accident, so the choice is documented in `docs/MONEY.md` §2.
pub fn div_round_half_up(numerator: i128, denominator: i128) -> i128 {
    debug_assert!(denominator > 0);
    let q = numerator / denominator;
    let r = numerator % denominator;
    if 2 * r.abs() >= denominator {
        q + numerator.signum()
    } else {
        q
    }
}

/// Rounds an amount half-up to a multiple of `unit` minor units (1 = paise, 100 = whole rupees).
pub fn round_to_unit(minor: i128, unit: i64) -> i128 {
    div_round_half_up(minor, i128::from(unit)) * i128::from(unit)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_markets_day_starts_at_its_own_midnight() {
        use time::macros::{date, datetime};
        // 18:29 UTC is 23:59 in India; 18:30 UTC is already the next day there, and 01:30 in Jakarta.
        assert_eq!(
            Market::India.local_date(datetime!(2026-11-22 18:29 UTC)),
            date!(2026 - 11 - 22)
        );
        assert_eq!(
            Market::India.local_date(datetime!(2026-11-22 18:30 UTC)),
            date!(2026 - 11 - 23)
        );
        assert_eq!(
            Market::Indonesia.local_date(datetime!(2026-11-22 16:59 UTC)),
            date!(2026 - 11 - 22)
        );
        assert_eq!(
            Market::Indonesia.local_date(datetime!(2026-11-22 17:00 UTC)),
            date!(2026 - 11 - 23)
        );
    }

    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(5, 10, 1)]
    #[case(4, 10, 0)]
    #[case(15, 10, 2)]
    #[case(-5, 10, -1)]
    #[case(-4, 10, 0)]
    #[case(96_973, 100, 970)]
    fn division_rounds_halves_away_from_zero(#[case] n: i128, #[case] d: i128, #[case] want: i128) {
        assert_eq!(div_round_half_up(n, d), want);
    }

    #[test]
    fn money_displays_major_and_minor_units() {
        assert_eq!(Money::from_minor(1_960_000).to_string(), "19600.00");
        assert_eq!(Money::from_minor(-5).to_string(), "-0.05");
    }

    #[test]
    fn adding_past_the_largest_amount_is_an_overflow_error() {
        assert_eq!(
            Money::from_minor(i64::MAX).checked_add(Money::from_minor(1)),
            Err(Error::Overflow)
        );
    }
}
