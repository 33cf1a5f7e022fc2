//! Order numbers: `KL-YYMMDD-XXXXXX`, the day and six random characters without look-alikes (Crockford's base 32).

use time::OffsetDateTime;

/// A new order number dated `now` (UTC day).
pub fn new_order_no(now: OffsetDateTime) -> String {
    new_reference("KL", now)
}

/// A reference `PREFIX-YYMMDD-XXXXXX` dated `now` (UTC day): order numbers (`KL`), complaint tickets (`CP`).
pub fn new_reference(prefix: &str, now: OffsetDateTime) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mut bytes = [0u8; 6];
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let suffix: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    let date = now.date();
    format!(
        "{prefix}-{:02}{:02}{:02}-{suffix}",
        date.year() % 100,
        u8::from(date.month()),
        date.day()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_numbers_read_well_and_differ() {
        // 2026-11-23 12:00 UTC.
        let noon = OffsetDateTime::from_unix_timestamp(1_795_435_200).unwrap();
        let a = new_order_no(noon);
        let b = new_order_no(noon);
        assert!(a.starts_with("KL-261123-"), "{a}");
        assert_eq!(a.len(), "KL-261123-7F3K9Q".len());
        assert!(!a[10..].contains(['I', 'L', 'O', 'U']), "{a}");
        assert_ne!(a, b);
    }
}
