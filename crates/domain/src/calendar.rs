//! Due-date arithmetic: calendar months clamped to the month's end, plain days, and working days (Monday to Friday,
//! less the holidays given).

use crate::error::{Error, Result};
use time::{Date, Duration, Month, Weekday};

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

/// True on Monday to Friday, unless `date` is one of `holidays`.
pub fn is_working_day(date: Date, holidays: &[Date]) -> bool {
    !matches!(date.weekday(), Weekday::Saturday | Weekday::Sunday) && !holidays.contains(&date)
}

/// The `days`-th working day after `date` (`date` itself never counts, whatever day it is): what "answered within 20
/// working days" of a complaint received on `date` means.
pub fn add_working_days(date: Date, days: u32, holidays: &[Date]) -> Result<Date> {
    let mut current = date;
    let mut left = days;
    while left > 0 {
        current = current.next_day().ok_or(Error::Overflow)?;
        if is_working_day(current, holidays) {
            left -= 1;
        }
    }
    Ok(current)
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

    #[rstest]
    // Wednesday 25 November 2026 + 1 working day: Thursday.
    #[case(date!(2026-11-25), 1, date!(2026-11-26))]
    // Friday + 1: Monday.
    #[case(date!(2026-11-27), 1, date!(2026-11-30))]
    // Saturday + 1: Monday (the day received never counts).
    #[case(date!(2026-11-28), 1, date!(2026-11-30))]
    // Four whole weeks.
    #[case(date!(2026-11-25), 20, date!(2026-12-23))]
    #[case(date!(2026-11-25), 0, date!(2026-11-25))]
    fn working_days_skip_weekends(#[case] from: Date, #[case] days: u32, #[case] want: Date) {
        assert_eq!(add_working_days(from, days, &[]), Ok(want));
    }

    #[test]
    fn working_days_skip_the_holidays_given() {
        // Christmas Day 2026 is a Friday: the 20th working day after 25 November moves from 23 to 24 December
        // when 1 December is a holiday, and Christmas does not count either way.
        let holidays = [date!(2026 - 12 - 01), date!(2026 - 12 - 25)];
        assert_eq!(
            add_working_days(date!(2026 - 11 - 25), 20, &holidays),
            Ok(date!(2026 - 12 - 24))
        );
        assert!(!is_working_day(date!(2026 - 12 - 25), &holidays));
        assert!(is_working_day(date!(2026 - 12 - 24), &holidays));
    }

    proptest::proptest! {
        #[test]
        fn n_working_days_later_is_a_working_day_with_n_working_days_between(
            start in 0i32..3650, days in 1u32..60
        ) {
            let from = date!(2024 - 01 - 01) + Duration::days(i64::from(start));
            let to = add_working_days(from, days, &[]).unwrap();
            proptest::prop_assert!(is_working_day(to, &[]));
            let mut counted = 0;
            let mut d = from;
            while d < to {
                d = d.next_day().unwrap();
                if is_working_day(d, &[]) {
                    counted += 1;
                }
            }
            proptest::prop_assert_eq!(counted, days);
            // Never more than 4 calendar days for each 2 working days, never fewer than the working days.
            let span = days_between(from, to);
            proptest::prop_assert!(span >= i64::from(days) && span <= i64::from(days) * 2 + 2);
        }
    }
}
