//! Amounts as people read them, for texts the server writes (documents, messages, field errors), exactly as the web
//! app's `formatMoney` (web/src/shared/money/format-money.ts, `Intl.NumberFormat` for en-IN and id-ID) writes them:
//! `₹1,00,000` and `Rp 1.000.000` (a no-break space after Rp), with two decimals only when there are minor units.

use kilat_domain::{Currency, Money};

/// Formats minor units for reading: `₹1,00,000.50` (Indian grouping) or `Rp 1.000.000` (sen shown only when not zero).
pub fn format_money(amount: Money, currency: Currency) -> String {
    let minor = amount.minor();
    let sign = if minor < 0 { "-" } else { "" };
    let minor = minor.unsigned_abs();
    let (major, cents) = (minor / 100, minor % 100);
    let digits = major.to_string();
    match currency {
        Currency::Inr => {
            // Last three digits, then groups of two: 1,00,000.
            let (head, tail) = digits.split_at(digits.len().saturating_sub(3));
            let mut groups: Vec<&str> = Vec::new();
            let mut rest = head;
            while rest.len() > 2 {
                let (h, t) = rest.split_at(rest.len() - 2);
                groups.insert(0, t);
                rest = h;
            }
            if !rest.is_empty() {
                groups.insert(0, rest);
            }
            groups.push(tail);
            if cents == 0 {
                format!("{sign}₹{}", groups.join(","))
            } else {
                format!("{sign}₹{}.{cents:02}", groups.join(","))
            }
        }
        Currency::Idr => {
            let mut grouped = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    grouped.push('.');
                }
                grouped.push(c);
            }
            if cents == 0 {
                format!("{sign}Rp\u{a0}{grouped}")
            } else {
                format!("{sign}Rp\u{a0}{grouped},{cents:02}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same cases as web/src/shared/money/format-money.test.ts.
    #[test]
    fn amounts_read_as_the_app_writes_them() {
        let inr = |m| format_money(Money::from_minor(m), Currency::Inr);
        let idr = |m| format_money(Money::from_minor(m), Currency::Idr);
        assert_eq!(inr(0), "₹0");
        assert_eq!(inr(99_950), "₹999.50");
        assert_eq!(inr(200_000), "₹2,000");
        assert_eq!(inr(10_000_000), "₹1,00,000");
        assert_eq!(inr(1_234_567_800), "₹1,23,45,678");
        assert_eq!(inr(1_234_567_801), "₹1,23,45,678.01");
        assert_eq!(inr(1_050), "₹10.50");
        assert_eq!(inr(-250), "-₹2.50");
        assert_eq!(idr(100_000_000), "Rp\u{a0}1.000.000");
        assert_eq!(idr(1_500_000_000), "Rp\u{a0}15.000.000");
        assert_eq!(idr(100_000_005), "Rp\u{a0}1.000.000,05");
        assert_eq!(idr(50_000), "Rp\u{a0}500");
        assert_eq!(idr(0), "Rp\u{a0}0");
    }
}

/// An APR in hundredths of a percent as the app's `formatApr` writes it: `17.07%` in English, `17,07%` in Indonesian,
/// thousands grouped (`1,234.56%`, `1.234,56%`).
pub fn format_apr(lang: super::Lang, basis_points: i64) -> String {
    let sign = if basis_points < 0 { "-" } else { "" };
    let abs = basis_points.unsigned_abs();
    let (whole, hundredths) = (abs / 100, abs % 100);
    let (group, decimal) = match lang {
        super::Lang::En => (',', '.'),
        super::Lang::Id => ('.', ','),
    };
    let digits = whole.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(group);
        }
        grouped.push(c);
    }
    format!("{sign}{grouped}{decimal}{hundredths:02}%")
}

#[cfg(test)]
mod apr_tests {
    use super::format_apr;
    use crate::i18n::Lang;

    /// The same cases as web/src/shared/money/format-percent.test.ts.
    #[test]
    fn an_apr_reads_with_the_languages_decimal_mark() {
        assert_eq!(format_apr(Lang::En, 1707), "17.07%");
        assert_eq!(format_apr(Lang::Id, 1707), "17,07%");
        assert_eq!(format_apr(Lang::Id, 7395), "73,95%");
        assert_eq!(format_apr(Lang::Id, 0), "0,00%");
        assert_eq!(format_apr(Lang::En, 5), "0.05%");
        assert_eq!(format_apr(Lang::En, 123_456), "1,234.56%");
        assert_eq!(format_apr(Lang::Id, 123_456), "1.234,56%");
    }
}

/// A rate as the server writes it (`"0.3%"`, `"0.2714286%"`) as the app's `formatRate` shows it: at most three
/// decimals, rounded half up, no trailing zeros, with the language's decimal mark (`0,3%`, `0,271%`). Text that is not
/// a rate comes back unchanged.
pub fn format_rate(lang: super::Lang, rate: &str) -> String {
    let Some(number) = rate.trim().strip_suffix('%').map(str::trim) else {
        return rate.to_owned();
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty()
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return rate.to_owned();
    }
    let Ok(whole) = whole.parse::<u128>() else {
        return rate.to_owned();
    };
    // Thousandths of a percent, rounded half up on the fourth decimal.
    let digit = |i: usize| u128::from(fraction.as_bytes().get(i).map_or(0, |b| b - b'0'));
    let mut thousandths = whole * 1000 + digit(0) * 100 + digit(1) * 10 + digit(2);
    if digit(3) >= 5 {
        thousandths += 1;
    }
    let (whole, mut decimals) = (thousandths / 1000, format!("{:03}", thousandths % 1000));
    while decimals.ends_with('0') {
        decimals.pop();
    }
    let mark = match lang {
        super::Lang::En => '.',
        super::Lang::Id => ',',
    };
    if decimals.is_empty() {
        format!("{whole}%")
    } else {
        format!("{whole}{mark}{decimals}%")
    }
}

#[cfg(test)]
mod rate_tests {
    use super::format_rate;
    use crate::i18n::Lang;

    /// The same cases as web/src/shared/money/format-percent.test.ts.
    #[test]
    fn a_rate_reads_as_the_app_shows_it() {
        assert_eq!(format_rate(Lang::Id, "0.3%"), "0,3%");
        assert_eq!(format_rate(Lang::En, "0.3%"), "0.3%");
        assert_eq!(format_rate(Lang::En, "15%"), "15%");
        assert_eq!(format_rate(Lang::Id, "100%"), "100%");
        assert_eq!(format_rate(Lang::Id, "0.0125%"), "0,013%");
        assert_eq!(format_rate(Lang::Id, "0.2333334%"), "0,233%");
        assert_eq!(format_rate(Lang::Id, "0.2714286%"), "0,271%");
        assert_eq!(format_rate(Lang::En, "0.9996%"), "1%");
        assert_eq!(format_rate(Lang::Id, "n/a"), "n/a");
    }
}
