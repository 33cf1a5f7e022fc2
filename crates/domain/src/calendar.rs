//! Due-date arithmetic: calendar months clamped to the month's end, and plain days.

use crate::error::{Error, Result};
use time::{Date, Duration, Month};

/// `date` moved forward by `months` calendar months; the 31st of January plus one month is the last
/// day of February, because a due date must exist and must not slip into the next month.
pub fn add_months(date: Date, months: u32) -> Result<Date> {
    let zero_based = i64::from(date.month() as u8 - 1) + i64::from(months);
    let year = i64::from(date.year()) + zero_based.div_euclid(12);
    let year = i32::try_from(year).map_err(|_| Error::Overflow)?;
    let month_index = u8::try_from(zero_based.rem_euclid(12) + 1).map_err(|_| Error::Overflow)?;
    let month = Month::try_from(month_index).map_err(|_| Error::Overflow)?;
    let day = date.day().min(month.length(year));
    Date::from_calendar_date(year, month, day).map_err(|_| Error::Overflow)
}

/// `date` moved forward by `days` days.
pub fn add_days(date: Date, days: u32) -> Result<Date> {
    date.checked_add(Duration::days(i64::from(days)))
        .ok_or(Error::Overflow)
}

/// Whole days from `from` to `to` (negative when `to` is earlier).
pub fn days_between(from: Date, to: Date) -> i64 {
    (to - from).whole_days()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use time::macros::date;

    #[rstest]
    #[case(date!(2026-01-31), 1, date!(2026-02-28))]
    #[case(date!(2028-01-31), 1, date!(2028-02-29))]
    #[case(date!(2026-11-22), 2, date!(2027-01-22))]
    #[case(date!(2026-08-31), 6, date!(2027-02-28))]
    #[case(date!(2026-03-15), 24, date!(2028-03-15))]
    fn adding_months_keeps_the_day_or_clamps_to_the_month_end(
        #[case] from: Date,
        #[case] months: u32,
        #[case] want: Date,
    ) {
        assert_eq!(add_months(from, months), Ok(want));
    }

    #[test]
    fn days_between_counts_calendar_days() {
        assert_eq!(
            days_between(date!(2026 - 11 - 22), date!(2026 - 12 - 22)),
            30
        );
    }
}
