//! Amounts in the texts sent by SMS (reminders, receipts): as the app writes them (`format_money`), with a plain space
//! after "Rp" instead of the no-break space, which is outside the GSM alphabet and would turn an Indonesian SMS into
//! UCS-2 (70 characters a part instead of 160). Dates use `format_date`, which has no such character.

use kilat_domain::{Currency, Money};

use super::format_money;

/// An amount for an SMS: "₹7,291", "₹10.50", "Rp 1.000.000", "Rp 1.000.000,05".
pub fn sms_money(amount: Money, currency: Currency) -> String {
    format_money(amount, currency).replace('\u{a0}', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_read_as_the_app_writes_them_with_a_plain_space() {
        let inr = |m| sms_money(Money::from_minor(m), Currency::Inr);
        let idr = |m| sms_money(Money::from_minor(m), Currency::Idr);
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
