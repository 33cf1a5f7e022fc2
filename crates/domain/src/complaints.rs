//! How long a complaint may stay unresolved before the borrower is told to escalate to the regulator's channel:
//! 30 days in India (RBI Integrated Ombudsman Scheme: a complaint the regulated entity has not resolved in 30 days
//! may go to RBI's Complaint Management System), 20 working days in Indonesia (OJK: then OJK's consumer line, 157).

use time::Date;

use crate::calendar::{add_days, add_working_days};
use crate::error::Result;
use crate::money::Market;

/// The calendar days India gives a lender to resolve a complaint.
pub const INDIA_RESOLUTION_DAYS: u32 = 30;
/// The working days Indonesia gives a lender to answer a complaint.
pub const INDONESIA_RESOLUTION_WORKING_DAYS: u32 = 20;

/// The last day the lender has to resolve a complaint received on `received` (the market's business date); from the
/// day after, an unresolved complaint is flagged and the borrower shown where to escalate. `holidays` are the
/// market's public holidays (Indonesia's working days skip them; India counts calendar days).
pub fn resolution_deadline(market: Market, received: Date, holidays: &[Date]) -> Result<Date> {
    match market {
        Market::India => add_days(received, INDIA_RESOLUTION_DAYS),
        Market::Indonesia => {
            add_working_days(received, INDONESIA_RESOLUTION_WORKING_DAYS, holidays)
        }
    }
}

/// True when the market's complaint deadline is counted in working days, which skip its public holidays: a server
/// needs the year's holidays of such a market.
pub fn counts_working_days(market: Market) -> bool {
    match market {
        Market::India => false,
        Market::Indonesia => true,
    }
}

/// True when a complaint received on `received` and still unresolved on `today` is past its deadline.
pub fn is_overdue(market: Market, received: Date, today: Date, holidays: &[Date]) -> Result<bool> {
    Ok(today > resolution_deadline(market, received, holidays)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;
    use time::macros::date;

    #[rstest]
    #[case(Market::India, date!(2026-11-25), date!(2026-12-25))]
    #[case(Market::Indonesia, date!(2026-11-25), date!(2026-12-23))]
    // Received on a Saturday in Indonesia: the count starts on Monday.
    #[case(Market::Indonesia, date!(2026-11-28), date!(2026-12-25))]
    fn the_deadline_is_30_days_in_india_and_20_working_days_in_indonesia(
        #[case] market: Market,
        #[case] received: Date,
        #[case] deadline: Date,
    ) {
        assert_eq!(resolution_deadline(market, received, &[]), Ok(deadline));
    }

    #[rstest]
    #[case(Market::India, date!(2026-12-25), false)]
    #[case(Market::India, date!(2026-12-26), true)]
    #[case(Market::Indonesia, date!(2026-12-23), false)]
    #[case(Market::Indonesia, date!(2026-12-24), true)]
    fn a_complaint_is_overdue_only_after_its_deadline(
        #[case] market: Market,
        #[case] today: Date,
        #[case] overdue: bool,
    ) {
        assert_eq!(
            is_overdue(market, date!(2026 - 11 - 25), today, &[]),
            Ok(overdue)
        );
    }
}
