//! Dates as people read them, for texts the server writes: "27 Nov 2026" and "27 Des 2026", as the web app writes a
//! date (`Intl.DateTimeFormat` with `dateStyle: 'medium'` for en-IN and id-ID). An instant becomes a date on the
//! market's own calendar (IST in India, WIB in Indonesia), never on UTC's.

use kilat_domain::Market;
use time::{Date, OffsetDateTime};

use super::Lang;

const EN_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec",
];
const ID_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des",
];

/// A calendar date in `lang`: "27 Nov 2026", "27 Des 2026".
pub fn format_date(lang: Lang, date: Date) -> String {
    let months = match lang {
        Lang::En => &EN_MONTHS,
        Lang::Id => &ID_MONTHS,
    };
    let month = months[usize::from(u8::from(date.month())) - 1];
    format!("{} {month} {}", date.day(), date.year())
}

/// The market's calendar date of an instant given in epoch milliseconds (what the store keeps).
pub fn market_date(market: Market, epoch_ms: i64) -> Date {
    let instant = OffsetDateTime::from_unix_timestamp_nanos(i128::from(epoch_ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    market.local_date(instant)
}

/// An instant (epoch milliseconds) as the market's date, in `lang`.
pub fn format_market_date(lang: Lang, market: Market, epoch_ms: i64) -> String {
    format_date(lang, market_date(market, epoch_ms))
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    #[test]
    fn dates_read_as_the_app_writes_them_in_both_languages() {
        assert_eq!(format_date(Lang::En, date!(2026 - 11 - 27)), "27 Nov 2026");
        assert_eq!(format_date(Lang::Id, date!(2026 - 12 - 27)), "27 Des 2026");
        assert_eq!(format_date(Lang::En, date!(2026 - 09 - 01)), "1 Sept 2026");
        assert_eq!(format_date(Lang::Id, date!(2026 - 05 - 01)), "1 Mei 2026");
        assert_eq!(format_date(Lang::Id, date!(2026 - 08 - 09)), "9 Agu 2026");
        assert_eq!(format_date(Lang::Id, date!(2026 - 10 - 31)), "31 Okt 2026");
    }

    #[test]
    fn an_instant_is_dated_on_the_markets_calendar() {
        // 2026-11-26 19:16 UTC: 00:46 IST and 02:16 WIB on the 27th.
        let ms = 1_795_720_560_000;
        assert_eq!(market_date(Market::India, ms), date!(2026 - 11 - 27));
        assert_eq!(market_date(Market::Indonesia, ms), date!(2026 - 11 - 27));
        assert_eq!(
            format_market_date(Lang::En, Market::India, ms),
            "27 Nov 2026"
        );
        // 18:29 UTC is still the 26th in India (23:59 IST), already the 27th in Indonesia (01:29 WIB).
        let ms = ms - 47 * 60 * 1000;
        assert_eq!(market_date(Market::India, ms), date!(2026 - 11 - 26));
        assert_eq!(market_date(Market::Indonesia, ms), date!(2026 - 11 - 27));
    }
}
