//! Dates and amounts as the borrower app shows them, for the texts the server sends (reminders, receipts): "27 Nov
//! 2026" / "27 Des 2026" (the app's `Intl` medium date in en-IN and id-ID) and "₹7,291" / "Rp 3.000.000" (whole
//! amounts without a fraction, as the app's `formatMoney`).

use kilat_domain::{Currency, Money};
use time::Date;

use super::{Lang, format_money};

const MONTHS_EN: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec",
];
const MONTHS_ID: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des",
];

/// A day as people read it in `lang`: "7 Sept 2026" (English, as en-IN writes it) or "7 Sep 2026" (Indonesian).
pub fn human_date(lang: Lang, date: Date) -> String {
    let months = match lang {
        Lang::En => &MONTHS_EN,
        Lang::Id => &MONTHS_ID,
    };
    let month = months[usize::from(u8::from(date.month())) - 1];
    format!("{} {month} {}", date.day(), date.year())
}

/// An amount as the app shows it: "₹7,291", "₹10.50", "Rp 1.000.000", "Rp 1.000.000,05" (a plain space after
/// "Rp", which every phone's SMS shows).
pub fn human_money(amount: Money, currency: Currency) -> String {
    let full = format_money(amount, currency);
    let whole = amount.minor() % 100 == 0;
    let text = match currency {
        Currency::Inr if whole => full.trim_end_matches(".00").to_owned(),
        _ => full,
    };
    match currency {
        Currency::Idr => text.replacen("Rp", "Rp ", 1),
        Currency::Inr => text,
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    #[test]
    fn dates_read_as_the_app_writes_them() {
        assert_eq!(human_date(Lang::En, date!(2026 - 11 - 27)), "27 Nov 2026");
        assert_eq!(human_date(Lang::Id, date!(2026 - 12 - 27)), "27 Des 2026");
        assert_eq!(human_date(Lang::En, date!(2026 - 09 - 07)), "7 Sept 2026");
        assert_eq!(human_date(Lang::Id, date!(2026 - 08 - 01)), "1 Agu 2026");
        assert_eq!(human_date(Lang::Id, date!(2027 - 05 - 31)), "31 Mei 2027");
        assert_eq!(human_date(Lang::En, date!(2027 - 01 - 01)), "1 Jan 2027");
    }

    #[test]
    fn amounts_read_as_the_app_writes_them() {
        let inr = |m| human_money(Money::from_minor(m), Currency::Inr);
        let idr = |m| human_money(Money::from_minor(m), Currency::Idr);
        assert_eq!(inr(729_100), "₹7,291");
        assert_eq!(inr(10_000_000), "₹1,00,000");
        assert_eq!(inr(1_050), "₹10.50");
        assert_eq!(inr(0), "₹0");
        assert_eq!(inr(-5_000), "-₹50");
        assert_eq!(idr(300_000_000), "Rp 3.000.000");
        assert_eq!(idr(100_000_005), "Rp 1.000.000,05");
        assert_eq!(idr(-50_000), "-Rp 500");
    }
}
