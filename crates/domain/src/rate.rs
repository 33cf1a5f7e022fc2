//! Interest and fee rates as integer fixed point, and the APR as hundredths of a percent.
//!
//! A [`Rate`] counts parts per billion of the base: 15% is `150_000_000`, 0.3% is `3_000_000`, and
//! the smallest step is 0.0000001%. That is exact for every rate a product or regulator writes
//! (they use at most three decimals of a percent) and leaves i128 headroom when multiplied by an
//! amount. See `docs/MONEY.md` §1.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Parts per billion in one whole (100%).
pub const RATE_SCALE: i64 = 1_000_000_000;

/// A non-negative rate in parts per billion; written `"15%"` or `"0.3%"` in product files and JSON.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(value_type = String, pattern = r"^[0-9]+(\.[0-9]+)?%$", example = "0.3%",
        description = "A rate as a percentage with up to seven decimals, e.g. `15%` or `0.3%`.")
)]
#[serde(try_from = "String", into = "String")]
pub struct Rate(i64);

impl Rate {
    /// 0%.
    pub const ZERO: Rate = Rate(0);

    /// A rate of `ppb` parts per billion.
    pub const fn from_ppb(ppb: i64) -> Rate {
        Rate(ppb)
    }

    /// A rate of `bp` basis points (hundredths of a percent).
    pub const fn from_bp(bp: i64) -> Rate {
        Rate(bp * 100_000)
    }

    /// Parts per billion.
    pub const fn ppb(self) -> i64 {
        self.0
    }

    /// True for 0%.
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// Reads `"18%"`, `"0.3%"`, `"0.0125%"`: decimal digits, at most seven after the point, then `%`.
    pub fn parse_percent(text: &str) -> Result<Rate> {
        let bad = || Error::InvalidRate(text.to_owned());
        let body = text.trim().strip_suffix('%').ok_or_else(bad)?.trim();
        let (whole, frac) = body.split_once('.').unwrap_or((body, "0"));
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(whole) || !digits(frac) || frac.len() > 7 {
            return Err(bad());
        }
        let whole: i64 = whole.parse().map_err(|_| bad())?;
        let frac_ppb = frac.parse::<i64>().map_err(|_| bad())? * 10_i64.pow(7 - frac.len() as u32);
        whole
            .checked_mul(10_000_000)
            .and_then(|w| w.checked_add(frac_ppb))
            .map(Rate)
            .ok_or_else(bad)
    }

    /// `amount × rate`, in minor units, rounded half-up.
    pub fn apply(self, amount: crate::Money) -> Result<crate::Money> {
        let wide = i128::from(amount.minor()) * i128::from(self.0);
        crate::Money::try_from_i128(crate::money::div_round_half_up(
            wide,
            i128::from(RATE_SCALE),
        ))
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let whole = self.0 / 10_000_000;
        let frac = self.0 % 10_000_000;
        if frac == 0 {
            write!(f, "{whole}%")
        } else {
            let digits = format!("{frac:07}");
            write!(f, "{whole}.{}%", digits.trim_end_matches('0'))
        }
    }
}

impl TryFrom<String> for Rate {
    type Error = Error;
    fn try_from(text: String) -> Result<Rate> {
        Rate::parse_percent(&text)
    }
}

impl From<Rate> for String {
    fn from(rate: Rate) -> String {
        rate.to_string()
    }
}

/// An annual percentage rate in hundredths of a percent: `Apr(1707)` is 17.07%.
///
/// It is computed to 18 decimal places of the periodic rate and rounded half-up once, at the end,
/// to the two decimals the KFS shows (RBI KFS circular, April 2024).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(
    feature = "openapi",
    derive(utoipa::ToSchema),
    schema(value_type = i64, example = 1707,
        description = "An annual percentage rate in hundredths of a percent: 1707 is 17.07%.")
)]
#[serde(transparent)]
pub struct Apr(pub i64);

impl Apr {
    /// Hundredths of a percent (basis points).
    pub fn basis_points(self) -> i64 {
        self.0
    }
}

impl std::fmt::Display for Apr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}%", abs / 100, abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("15%", 150_000_000)]
    #[case("0.3%", 3_000_000)]
    #[case("18%", 180_000_000)]
    #[case("0.0125%", 125_000)]
    #[case("100%", 1_000_000_000)]
    #[case(" 2.5 % ", 25_000_000)]
    fn percentages_parse_to_exact_parts_per_billion(#[case] text: &str, #[case] ppb: i64) {
        assert_eq!(Rate::parse_percent(text), Ok(Rate::from_ppb(ppb)));
    }

    #[rstest]
    #[case("15")]
    #[case("-1%")]
    #[case("1.%")]
    #[case(".5%")]
    #[case("0.00000001%")]
    #[case("abc%")]
    fn malformed_percentages_are_refused(#[case] text: &str) {
        assert!(Rate::parse_percent(text).is_err());
    }

    #[rstest]
    #[case("15%")]
    #[case("0.3%")]
    #[case("0.0125%")]
    fn a_rate_prints_back_as_it_was_written(#[case] text: &str) {
        assert_eq!(Rate::parse_percent(text).unwrap().to_string(), text);
    }

    #[test]
    fn an_apr_displays_with_two_decimals() {
        assert_eq!(Apr(1707).to_string(), "17.07%");
        assert_eq!(Apr(5).to_string(), "0.05%");
    }
}
