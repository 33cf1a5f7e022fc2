//! One clock for the whole server: the current time and each market's business date. Jobs, sessions, cooling-off and
//! due dates all read it, so they can be tested at any date. In development an operator or a test may move the
//! business date (Fineract's "business date"); production always runs on the real date.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use kilat_domain::Market;
use time::{Date, OffsetDateTime};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// A cheap, cloneable clock. Every clone shares the same offset.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Milliseconds added to the real time; always 0 unless the clock is adjustable.
    offset_ms: Arc<AtomicI64>,
    adjustable: bool,
    /// Told each time the clock is moved, so the jobs' timer runs the new date's jobs at once (`moved`).
    moves: Arc<tokio::sync::Notify>,
}

/// Moving the business date of a clock that runs on the real date.
#[derive(Debug, thiserror::Error)]
#[error("the business date can only be set in development mode")]
pub struct NotAdjustable;

impl Clock {
    /// The real time, which nothing can move (production).
    pub fn real() -> Self {
        Self {
            offset_ms: Arc::new(AtomicI64::new(0)),
            adjustable: false,
            moves: Arc::default(),
        }
    }

    /// The real time until someone sets a business date (development and tests).
    pub fn adjustable() -> Self {
        Self {
            offset_ms: Arc::new(AtomicI64::new(0)),
            adjustable: true,
            moves: Arc::default(),
        }
    }

    pub fn is_adjustable(&self) -> bool {
        self.adjustable
    }

    /// Completes when the clock is next moved (at once if it was moved since the last wait completed): the jobs'
    /// timer waits on it beside its tick, so a date set in development is run as a server running that day runs it,
    /// not up to a tick later. The clock of production never moves.
    pub async fn moved(&self) {
        self.moves.notified().await;
    }

    /// Now.
    pub fn now(&self) -> OffsetDateTime {
        let real = OffsetDateTime::now_utc();
        match self.offset_ms.load(Ordering::Relaxed) {
            0 => real,
            offset => real + time::Duration::milliseconds(offset),
        }
    }

    /// Now, in milliseconds since the Unix epoch: the only time format the store keeps.
    pub fn now_ms(&self) -> i64 {
        i64::try_from(self.now().unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
    }

    /// The market's business date: today on its own calendar (IST in India, WIB in Indonesia).
    pub fn today(&self, market: Market) -> Date {
        market.local_date(self.now())
    }

    /// Moves the clock by whole days so that `market`'s business date is `date` (the time of day stays the real one).
    /// Both markets move together: one offset serves the whole server.
    pub fn set_business_date(&self, market: Market, date: Date) -> Result<(), NotAdjustable> {
        if !self.adjustable {
            return Err(NotAdjustable);
        }
        let real_today = market.local_date(OffsetDateTime::now_utc());
        let days = i64::from(date.to_julian_day() - real_today.to_julian_day());
        self.offset_ms.store(days * DAY_MS, Ordering::Relaxed);
        self.moves.notify_one();
        Ok(())
    }

    /// Moves the clock so that it is `time` on `date` in `market`'s local time now (development and tests: the
    /// collections' contact hours are read in it). Time runs on from there.
    pub fn set_local_time(
        &self,
        market: Market,
        date: Date,
        time: time::Time,
    ) -> Result<(), NotAdjustable> {
        if !self.adjustable {
            return Err(NotAdjustable);
        }
        let offset = market.local_time(OffsetDateTime::now_utc()).offset();
        let target = time::PrimitiveDateTime::new(date, time).assume_offset(offset);
        // Rounded up to the next millisecond, so that now is never a moment before `time`.
        let ms = (target - OffsetDateTime::now_utc()).whole_milliseconds() + 1;
        self.offset_ms
            .store(i64::try_from(ms).unwrap_or(0), Ordering::Relaxed);
        self.moves.notify_one();
        Ok(())
    }

    /// Back to the real date.
    pub fn reset(&self) -> Result<(), NotAdjustable> {
        if !self.adjustable {
            return Err(NotAdjustable);
        }
        self.offset_ms.store(0, Ordering::Relaxed);
        self.moves.notify_one();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use time::macros::date;

    use super::*;

    #[test]
    fn a_local_time_moves_now_to_that_minute_of_the_market() {
        let clock = Clock::adjustable();
        clock
            .set_local_time(
                Market::Indonesia,
                date!(2030 - 02 - 28),
                time::macros::time!(19:59),
            )
            .unwrap();
        let local = Market::Indonesia.local_time(clock.now());
        assert_eq!(local.date(), date!(2030 - 02 - 28));
        assert_eq!((local.hour(), local.minute()), (19, 59));
        assert_eq!(Market::India.local_time(clock.now()).hour(), 18);
        assert!(
            Clock::real()
                .set_local_time(
                    Market::India,
                    date!(2030 - 02 - 28),
                    time::macros::time!(8:00)
                )
                .is_err()
        );
    }

    #[tokio::test]
    async fn each_move_of_the_clock_wakes_the_one_waiting_for_it() {
        let wait = std::time::Duration::from_secs(5);
        let clock = Clock::adjustable();
        // Not moved: nothing to wake for.
        assert!(
            tokio::time::timeout(std::time::Duration::from_millis(50), clock.moved())
                .await
                .is_err()
        );
        let waiting = tokio::spawn({
            let clock = clock.clone();
            async move { clock.moved().await }
        });
        clock
            .set_business_date(Market::India, date!(2030 - 01 - 01))
            .unwrap();
        tokio::time::timeout(wait, waiting).await.unwrap().unwrap();
        // A move while nobody waits is kept for the next wait (the timer was busy running the last date's jobs).
        clock.reset().unwrap();
        tokio::time::timeout(wait, clock.moved()).await.unwrap();
        clock
            .set_local_time(
                Market::India,
                date!(2030 - 01 - 02),
                time::macros::time!(9:00),
            )
            .unwrap();
        tokio::time::timeout(wait, clock.moved()).await.unwrap();
    }

    #[test]
    fn a_business_date_moves_now_and_today_and_can_be_reset() {
        let clock = Clock::adjustable();
        let copy = clock.clone();
        clock
            .set_business_date(Market::India, date!(2030 - 02 - 28))
            .unwrap();
        assert_eq!(
            copy.today(Market::India),
            date!(2030 - 02 - 28),
            "clones share the offset"
        );
        let days = (copy.now() - OffsetDateTime::now_utc()).whole_days();
        assert!(days > 365, "now moved with the date: {days} days");
        clock.reset().unwrap();
        assert_eq!(
            clock.today(Market::India),
            Market::India.local_date(OffsetDateTime::now_utc())
        );
    }

    #[test]
    fn the_real_clock_cannot_be_moved() {
        let clock = Clock::real();
        assert!(
            clock
                .set_business_date(Market::Indonesia, date!(2030 - 01 - 01))
                .is_err()
        );
        assert!(clock.reset().is_err());
        let drift = (clock.now() - OffsetDateTime::now_utc())
            .whole_seconds()
            .abs();
        assert!(drift < 5);
    }
}
