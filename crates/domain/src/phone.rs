//! Borrowers' phone numbers by market (PRODUCT.md §1): India 10 digits starting 6–9 (+91), Indonesia 08… with 10 to
//! 13 digits (+62). Parsed once into E.164; everything after works with that form.

use std::fmt;

use crate::money::Market;

/// A valid mobile number of a market, in E.164 (`+919876543210`, `+6281234567890`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Phone {
    e164: String,
    market: Market,
}

/// Why a phone number was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PhoneError {
    #[error("a phone number has only digits, spaces, dashes, brackets and a leading +")]
    BadCharacters,
    #[error("not a mobile number of this market")]
    NotMobile,
}

impl Phone {
    /// Accepts what people type: spaces, dashes, dots and brackets are ignored; India takes an optional `+91`, `91`
    /// or `0` prefix, Indonesia `+62`, `62` or the national `0`.
    pub fn parse(market: Market, input: &str) -> Result<Self, PhoneError> {
        let trimmed = input.trim();
        let (plus, rest) = match trimmed.strip_prefix('+') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        if !rest
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')'))
        {
            return Err(PhoneError::BadCharacters);
        }
        let digits: String = rest.chars().filter(char::is_ascii_digit).collect();
        let national = match market {
            Market::India => {
                let national = match (plus, digits.len()) {
                    (true, 12) => digits.strip_prefix("91"),
                    (false, 12) => digits.strip_prefix("91"),
                    (false, 11) => digits.strip_prefix('0'),
                    (false, 10) => Some(digits.as_str()),
                    _ => None,
                }
                .ok_or(PhoneError::NotMobile)?;
                let first = national.as_bytes().first().copied().unwrap_or(b'0');
                if national.len() != 10 || !(b'6'..=b'9').contains(&first) {
                    return Err(PhoneError::NotMobile);
                }
                national.to_owned()
            }
            Market::Indonesia => {
                // The national form is 08…; international drops the 0: +62 8….
                let subscriber = if plus || (digits.starts_with("62") && !digits.starts_with("08"))
                {
                    digits.strip_prefix("62")
                } else {
                    digits.strip_prefix('0')
                }
                .ok_or(PhoneError::NotMobile)?;
                // 10 to 13 digits in the national form 08…, so 9 to 12 after the 0.
                if !subscriber.starts_with('8') || !(9..=12).contains(&subscriber.len()) {
                    return Err(PhoneError::NotMobile);
                }
                subscriber.to_owned()
            }
        };
        let e164 = format!("{}{national}", market.country_code());
        Ok(Self { e164, market })
    }

    pub fn e164(&self) -> &str {
        &self.e164
    }

    pub fn market(&self) -> Market {
        self.market
    }

    /// For screens and logs: the country code and the last four digits, `+91 ******3210`.
    pub fn masked(&self) -> String {
        let code = self.market.country_code();
        let national = &self.e164[code.len()..];
        let shown = &national[national.len().saturating_sub(4)..];
        format!("{code} {}{shown}", "*".repeat(national.len() - shown.len()))
    }
}

impl fmt::Display for Phone {
    /// Masked: a full number never reaches a log line by accident.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

impl Market {
    /// The international calling code, `+91` or `+62`.
    pub fn country_code(self) -> &'static str {
        match self {
            Market::India => "+91",
            Market::Indonesia => "+62",
        }
    }
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    #[rstest]
    #[case(Market::India, "98765 43210", "+919876543210")]
    #[case(Market::India, "+91 98765-43210", "+919876543210")]
    #[case(Market::India, "919876543210", "+919876543210")]
    #[case(Market::India, "09876543210", "+919876543210")]
    #[case(Market::India, "6000000000", "+916000000000")]
    #[case(Market::Indonesia, "0812-3456-7890", "+6281234567890")]
    #[case(Market::Indonesia, "+62 812 3456 7890", "+6281234567890")]
    #[case(Market::Indonesia, "6281234567890", "+6281234567890")]
    #[case(Market::Indonesia, "0812345678", "+62812345678")]
    #[case(Market::Indonesia, "0812345678901", "+62812345678901")]
    fn typed_numbers_become_e164(#[case] market: Market, #[case] input: &str, #[case] e164: &str) {
        assert_eq!(Phone::parse(market, input).unwrap().e164(), e164);
    }

    #[rstest]
    #[case(Market::India, "5876543210", PhoneError::NotMobile)]
    #[case(Market::India, "987654321", PhoneError::NotMobile)]
    #[case(Market::India, "98765432100", PhoneError::NotMobile)]
    #[case(Market::India, "+62 812 3456 7890", PhoneError::NotMobile)]
    #[case(Market::India, "98765x3210", PhoneError::BadCharacters)]
    #[case(Market::India, "", PhoneError::NotMobile)]
    #[case(Market::Indonesia, "081234567", PhoneError::NotMobile)]
    #[case(Market::Indonesia, "08123456789012", PhoneError::NotMobile)]
    #[case(Market::Indonesia, "0212345678", PhoneError::NotMobile)]
    #[case(Market::Indonesia, "98765 43210", PhoneError::NotMobile)]
    fn other_numbers_are_refused(
        #[case] market: Market,
        #[case] input: &str,
        #[case] error: PhoneError,
    ) {
        assert_eq!(Phone::parse(market, input), Err(error));
    }

    #[test]
    fn masking_keeps_the_country_code_and_the_last_four_digits() {
        assert_eq!(
            Phone::parse(Market::India, "9876543210").unwrap().masked(),
            "+91 ******3210"
        );
        assert_eq!(
            Phone::parse(Market::Indonesia, "081234567890")
                .unwrap()
                .to_string(),
            "+62 *******7890"
        );
    }
}
