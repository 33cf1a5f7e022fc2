//! Order numbers: `KL-YYMMDD-XXXXXX`, the day and six random characters without look-alikes (Crockford's base 32).

use time::Date;

/// A new order number dated `date`: the market's business date (its own calendar, not UTC's).
pub fn new_order_no(date: Date) -> String {
    new_reference("KL", date)
}

/// A reference `PREFIX-YYMMDD-XXXXXX` dated `date`, the market's business date: order numbers (`KL`), complaint
/// tickets (`CP`).
pub fn new_reference(prefix: &str, date: Date) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let suffix: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    format!(
        "{prefix}-{:02}{:02}{:02}-{suffix}",
        date.year() % 100,
        u8::from(date.month()),
        date.day()
    )
}

#[cfg(test)]
mod tests {
    use kilat_domain::Market;
    use time::OffsetDateTime;

    use super::*;

    #[test]
    fn order_numbers_read_well_and_differ() {
        let a = new_order_no(time::macros::date!(2026 - 11 - 23));
        let b = new_order_no(time::macros::date!(2026 - 11 - 23));
        assert!(a.starts_with("KL-261123-"), "{a}");
        assert_eq!(a.len(), "KL-261123-7F3K9Q".len());
        assert!(!a[10..].contains(['I', 'L', 'O', 'U']), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn a_number_made_after_midnight_in_the_market_carries_the_markets_day() {
        // 2026-11-26 19:16 UTC is 00:46 IST on the 27th.
        let now = OffsetDateTime::from_unix_timestamp(1_795_720_560).unwrap();
        let no = new_order_no(Market::India.local_date(now));
        assert!(no.starts_with("KL-261127-"), "{no}");
        let ticket = new_reference("CP", Market::Indonesia.local_date(now));
        assert!(ticket.starts_with("CP-261127-"), "{ticket}");
    }
}
