//! Amounts as people read them, for texts the server writes (the agreement, field errors). The web app formats its
//! own with `Intl.NumberFormat`; these follow the same conventions.

use kilat_domain::{Currency, Money};

/// Formats minor units for reading: `₹1,00,000.50` (Indian grouping) or `Rp1.000.000` (sen shown only when not zero).
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
            format!("{sign}₹{}.{cents:02}", groups.join(","))
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
                format!("{sign}Rp{grouped}")
            } else {
                format!("{sign}Rp{grouped},{cents:02}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rupees_group_in_lakhs_and_rupiah_in_thousands() {
        let inr = |m| format_money(Money::from_minor(m), Currency::Inr);
        let idr = |m| format_money(Money::from_minor(m), Currency::Idr);
        assert_eq!(inr(0), "₹0.00");
        assert_eq!(inr(99_950), "₹999.50");
        assert_eq!(inr(100_000), "₹1,000.00");
        assert_eq!(inr(10_000_000), "₹1,00,000.00");
        assert_eq!(inr(1_234_567_801), "₹1,23,45,678.01");
        assert_eq!(idr(100_000_000), "Rp1.000.000");
        assert_eq!(idr(1_500_000_050), "Rp15.000.000,50");
        assert_eq!(idr(50_000), "Rp500");
        assert_eq!(inr(-5_000), "-₹50.00");
    }
}
