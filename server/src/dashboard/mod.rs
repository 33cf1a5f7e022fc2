//! The admins' dashboard: per market and local day over the last 30 days, applications, approvals, the amounts
//! paid out and repaid, the share of open loans overdue, the complaints received, and the median time from
//! application to payout (the site promises money "within 2 hours" in India). Each figure is one SQL query
//! (`store/dashboard.rs`); this module fills the days a query has no row for.
//!
//! The book (issue 18 item 10), also in SQL: the outstanding principal now and at the end of each day, the open loans
//! by days-past-due bucket (the collections' buckets over `loan_arrears`, one definition), the collection and approval
//! rates of the window, the book by product, and the apply-to-payout times against India's promise. Finance reads the
//! dashboard too: the book is finance's figure as much as the admins'.

pub mod book;

use std::collections::{BTreeMap, HashMap, HashSet};

use kilat_domain::{Code, Currency, Market};

use crate::auth::operators::{Operator, Role};
use crate::collections::{Bucket, bucket_dates};
use crate::error::Error;
use crate::services::Services;
use crate::store::dashboard::{BookRow, DayFlows, PayoutMinutes, Window, date_of, day_of};

/// Who may read the dashboard: admins, and finance for the book.
pub const DASHBOARD_ROLES: &[Role] = &[Role::Admin, Role::Finance];
/// The apply-to-payout time the figures are measured against: India's site promises the money "within 2 hours".
pub const TWO_HOURS_MINUTES: i64 = 120;

/// The market's promised minutes from application to payout: India's "within 2 hours"; Indonesia promises no time.
pub fn promise_minutes(market: Market) -> Option<i64> {
    match market {
        Market::India => Some(TWO_HOURS_MINUTES),
        Market::Indonesia => None,
    }
}
/// Days shown, today included.
pub const DAYS: i64 = 30;

/// One local day's figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DayFigures {
    /// `YYYY-MM-DD`, the market's calendar day.
    pub date: String,
    pub applications: i64,
    pub approvals: i64,
    /// Minor units.
    pub paid_out: i64,
    /// Minor units.
    pub repaid: i64,
    /// Loans paid out and not ended at the day's end, and how many of them were overdue.
    pub open_loans: i64,
    pub overdue_loans: i64,
    /// Complaints received that day.
    pub complaints: i64,
    /// Of the loans paid out that day; `None` when none was.
    pub median_minutes_to_payout: Option<i64>,
    /// Minor units: principal paid out and not yet repaid at the day's end (by business date).
    pub outstanding_principal: i64,
}

/// One days-past-due bucket of the open loans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BucketFigures {
    /// `None`: current (not past due).
    pub bucket: Option<Bucket>,
    pub loans: i64,
    /// Minor units.
    pub outstanding_principal: i64,
    /// Minor units: everything the loans still owe.
    pub owed: i64,
}

/// One product's open loans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductFigures {
    pub code: String,
    pub name: String,
    pub loans: i64,
    pub outstanding_principal: i64,
    /// Of them, past due (any bucket but current).
    pub overdue_loans: i64,
    pub overdue_principal: i64,
}

/// The book now: loans paid out and not ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Book {
    pub open_loans: i64,
    pub outstanding_principal: i64,
    /// Current, then each collections bucket in order; all six, zeros included.
    pub buckets: Vec<BucketFigures>,
    /// By product code.
    pub products: Vec<ProductFigures>,
}

/// The rates of the window, as their parts (the screen divides).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rates {
    /// Minor units received from borrowers in the window (the days' `repaid`).
    pub collected: i64,
    /// Minor units still owed today on the loans past due (every bucket but current).
    pub past_due_owed: i64,
    /// Orders approved and rejected in the window: the decisions.
    pub approved: i64,
    pub rejected: i64,
}

/// Apply-to-payout over the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayoutTimes {
    pub payouts: i64,
    pub within_two_hours: i64,
    pub median_minutes: Option<i64>,
    /// The market's promise, if it makes one.
    pub promise_minutes: Option<i64>,
    /// The median within the promise; `None` without a promise or without payouts.
    pub promise_met: Option<bool>,
}

#[derive(Debug, Clone)]
pub struct Dashboard {
    pub market: Market,
    pub currency: Currency,
    /// The market's business date (the last day).
    pub today: time::Date,
    /// Oldest first, one entry per day.
    pub days: Vec<DayFigures>,
    pub book: Book,
    pub rates: Rates,
    pub payout_times: PayoutTimes,
}

/// Folds the book's rows (product × bucket) into the six buckets and the products.
pub fn fold_book(rows: &[BookRow]) -> Result<Book, Error> {
    let mut buckets: Vec<BucketFigures> = std::iter::once(None)
        .chain(Bucket::ALL.into_iter().map(Some))
        .map(|bucket| BucketFigures {
            bucket,
            loans: 0,
            outstanding_principal: 0,
            owed: 0,
        })
        .collect();
    let mut products: Vec<ProductFigures> = Vec::new();
    for row in rows {
        let bucket = match row.bucket.as_str() {
            "current" => None,
            code => Some(
                Bucket::parse(code).ok_or_else(|| anyhow::anyhow!("dashboard: bucket {code}"))?,
            ),
        };
        let slot = buckets
            .iter_mut()
            .find(|b| b.bucket == bucket)
            .expect("every bucket has its slot");
        slot.loans += row.loans;
        slot.outstanding_principal += row.principal;
        slot.owed += row.owed;
        let product = match products.iter_mut().find(|p| p.code == row.product_code) {
            Some(p) => p,
            None => {
                products.push(ProductFigures {
                    code: row.product_code.clone(),
                    name: row.product_name.clone(),
                    loans: 0,
                    outstanding_principal: 0,
                    overdue_loans: 0,
                    overdue_principal: 0,
                });
                products.last_mut().expect("just pushed")
            }
        };
        product.loans += row.loans;
        product.outstanding_principal += row.principal;
        if bucket.is_some() {
            product.overdue_loans += row.loans;
            product.overdue_principal += row.principal;
        }
    }
    Ok(Book {
        open_loans: buckets.iter().map(|b| b.loans).sum(),
        outstanding_principal: buckets.iter().map(|b| b.outstanding_principal).sum(),
        buckets,
        products,
    })
}

/// The open and overdue loans at the end of each day of `first..=last`, from those now and each day's changes (a day's
/// counts are today's less every change dated after it).
fn open_by_day(
    now: (i64, i64),
    changes: &HashMap<i64, (i64, i64)>,
    first: i64,
    last: i64,
) -> Vec<(i64, i64)> {
    let pick = |f: fn(&(i64, i64)) -> i64| -> HashMap<i64, i64> {
        changes.iter().map(|(day, c)| (*day, f(c))).collect()
    };
    let open = principal_trend(now.0, &pick(|c| c.0), first, last);
    let overdue = principal_trend(now.1, &pick(|c| c.1), first, last);
    open.into_iter().zip(overdue).collect()
}

/// A figure at the end of each day of `first..=last` (the outstanding principal), from its value now and its changes by
/// day (a day's value is today's less every change dated after it).
fn principal_trend(now: i64, changes: &HashMap<i64, i64>, first: i64, last: i64) -> Vec<i64> {
    let mut after: i64 = changes
        .iter()
        .filter(|(day, _)| **day > last)
        .map(|(_, v)| *v)
        .sum();
    let mut out = Vec::with_capacity(usize::try_from(last - first + 1).unwrap_or_default());
    for day in (first..=last).rev() {
        out.push(now - after);
        after += changes.get(&day).copied().unwrap_or_default();
    }
    out.reverse();
    out
}

/// The market's offset from UTC in milliseconds (IST, WIB), as `Market::local_date` uses.
pub(crate) fn offset_ms(market: Market) -> i64 {
    match market {
        Market::India => (5 * 60 + 30) * 60_000,
        Market::Indonesia => 7 * 60 * 60_000,
    }
}

/// The lower middle value of the minutes counted (`(minutes, loans)` pairs, in any order); `None` without loans.
fn median_minutes(counts: impl IntoIterator<Item = (i64, i64)>) -> Option<i64> {
    let mut counts: Vec<(i64, i64)> = counts.into_iter().filter(|(_, n)| *n > 0).collect();
    counts.sort_unstable();
    let total: i64 = counts.iter().map(|(_, n)| n).sum();
    let middle = (total + 1) / 2;
    let mut seen = 0;
    counts.into_iter().find_map(|(minutes, n)| {
        seen += n;
        (seen >= middle).then_some(minutes)
    })
}

/// Of the payouts counted, those within `limit` minutes of the application (to the millisecond): every wait of fewer
/// whole minutes, and those of exactly `limit`.
fn within(counts: &[PayoutMinutes], limit: i64) -> i64 {
    counts
        .iter()
        .map(|c| match c.minutes.cmp(&limit) {
            std::cmp::Ordering::Less => c.payouts,
            std::cmp::Ordering::Equal => c.on_the_minute,
            std::cmp::Ordering::Greater => 0,
        })
        .sum()
}

/// Every figure of each local day of `w`, from the tables (and the changes of the open loans and of the principal of
/// any later day, which the trends take back), with the payout minutes of the window's days. The dashboard computes
/// the days after the last one kept this way; the job `dashboard_days` keeps the ended days.
pub async fn computed_flows(
    s: &Services,
    w: Window<'_>,
) -> Result<(BTreeMap<i64, DayFlows>, Vec<PayoutMinutes>), Error> {
    fn slot(days: &mut BTreeMap<i64, DayFlows>, day: i64) -> &mut DayFlows {
        days.entry(day).or_insert(DayFlows {
            day,
            ..DayFlows::default()
        })
    }
    let mut days: BTreeMap<i64, DayFlows> = BTreeMap::new();
    for r in s.db.dashboard_applications(w).await? {
        slot(&mut days, r.day).applications = r.value;
    }
    for r in s.db.dashboard_approvals(w).await? {
        slot(&mut days, r.day).approvals = r.value;
    }
    for r in s.db.dashboard_entered(w, "rejected").await? {
        slot(&mut days, r.day).rejections = r.value;
    }
    for r in s.db.dashboard_paid_out(w).await? {
        slot(&mut days, r.day).paid_out = r.value;
    }
    for r in s.db.dashboard_repaid(w).await? {
        slot(&mut days, r.day).repaid = r.value;
    }
    for r in s.db.dashboard_complaints(w).await? {
        slot(&mut days, r.day).complaints = r.value;
    }
    for r in s.db.dashboard_status_changes(w).await? {
        let day = slot(&mut days, r.day);
        day.open_change = r.open;
        day.overdue_change = r.overdue;
    }
    for r in s.db.dashboard_principal_changes(w).await? {
        slot(&mut days, r.day).principal_change = r.value;
    }
    let minutes = s.db.dashboard_payout_minutes(w).await?;
    Ok((days, minutes))
}

/// The last [`DAYS`] days of `market`, up to its business date (admins). The ended days the job `dashboard_days` has
/// kept are read as kept; the days from the first one not kept to today are computed from the tables (today alone
/// once the job has run).
pub async fn last_days(s: &Services, op: &Operator, market: Market) -> Result<Dashboard, Error> {
    op.require_any(DASHBOARD_ROLES)?;
    op.require_market(market)?;
    // One reading of the clock for every figure.
    let today = s.clock.today(market);
    let last_day = day_of(today);
    let window = Window {
        market: market.code(),
        offset_ms: offset_ms(market),
        first_day: last_day - DAYS + 1,
        last_day,
    };
    let kept =
        s.db.dashboard_kept_days(window.market, window.first_day, last_day - 1)
            .await?;
    let kept_days: HashSet<i64> = kept.iter().map(|d| d.day).collect();
    let live_from = (window.first_day..last_day)
        .find(|day| !kept_days.contains(day))
        .unwrap_or(last_day);
    let mut flows: BTreeMap<i64, DayFlows> = kept
        .into_iter()
        .filter(|d| d.day < live_from)
        .map(|d| (d.day, d))
        .collect();
    let mut minutes = if live_from > window.first_day {
        s.db.dashboard_kept_payout_minutes(window.market, window.first_day, live_from - 1)
            .await?
    } else {
        Vec::new()
    };
    let (live, live_minutes) = computed_flows(
        s,
        Window {
            first_day: live_from,
            ..window
        },
    )
    .await?;
    flows.extend(live);
    minutes.extend(live_minutes);

    let book = fold_book(
        &s.db
            .dashboard_book(market.code(), &bucket_dates(today))
            .await?,
    )?;
    let trend = principal_trend(
        book.outstanding_principal,
        &flows
            .values()
            .map(|f| (f.day, f.principal_change))
            .collect(),
        window.first_day,
        window.last_day,
    );
    let promise = promise_minutes(market);
    let median = median_minutes(minutes.iter().map(|m| (m.minutes, m.payouts)));
    let payout_times = PayoutTimes {
        payouts: minutes.iter().map(|m| m.payouts).sum(),
        within_two_hours: within(&minutes, TWO_HOURS_MINUTES),
        median_minutes: median,
        promise_minutes: promise,
        promise_met: promise.zip(median).map(|(p, m)| m <= p),
    };
    let open_now = s.db.dashboard_open_now(market.code()).await?;
    let shares = open_by_day(
        open_now,
        &flows
            .values()
            .map(|f| (f.day, (f.open_change, f.overdue_change)))
            .collect(),
        window.first_day,
        window.last_day,
    );
    let days = (window.first_day..=window.last_day)
        .zip(trend)
        .zip(shares)
        .map(
            |((day, outstanding_principal), (open_loans, overdue_loans))| {
                let f = flows.get(&day).copied().unwrap_or_default();
                DayFigures {
                    date: date_of(day),
                    applications: f.applications,
                    approvals: f.approvals,
                    paid_out: f.paid_out,
                    repaid: f.repaid,
                    open_loans,
                    overdue_loans,
                    complaints: f.complaints,
                    median_minutes_to_payout: median_minutes(
                        minutes
                            .iter()
                            .filter(|m| m.day == day)
                            .map(|m| (m.minutes, m.payouts)),
                    ),
                    outstanding_principal,
                }
            },
        )
        .collect::<Vec<_>>();
    let rates = Rates {
        collected: days.iter().map(|d| d.repaid).sum(),
        past_due_owed: book
            .buckets
            .iter()
            .filter(|b| b.bucket.is_some())
            .map(|b| b.owed)
            .sum(),
        approved: days.iter().map(|d| d.approvals).sum(),
        rejected: flows
            .range(window.first_day..=window.last_day)
            .map(|(_, f)| f.rejections)
            .sum(),
    };
    Ok(Dashboard {
        market,
        currency: market.currency(),
        today,
        days,
        book,
        rates,
        payout_times,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_agree_with_the_markets_calendars() {
        // 18:29 UTC is 23:59 in India and already the next day in Jakarta.
        let t = time::OffsetDateTime::from_unix_timestamp(1_764_008_940).unwrap(); // 2025-11-24 18:29 UTC
        for market in Market::ALL.iter().copied() {
            let ms = t.unix_timestamp() * 1000;
            let day = (ms + offset_ms(market)).div_euclid(86_400_000);
            assert_eq!(date_of(day), market.local_date(t).to_string(), "{market:?}");
        }
    }

    fn row(product: &str, bucket: &str, loans: i64, principal: i64, owed: i64) -> BookRow {
        BookRow {
            product_code: product.into(),
            product_name: format!("{product} name"),
            bucket: bucket.into(),
            loans,
            principal,
            owed,
        }
    }

    #[test]
    fn the_book_folds_into_six_buckets_and_its_products() {
        let book = fold_book(&[
            row("a", "current", 2, 300, 330),
            row("a", "8-30", 1, 100, 120),
            row("b", "90+", 1, 50, 80),
            row("b", "current", 1, 10, 11),
        ])
        .unwrap();
        assert_eq!(book.open_loans, 5);
        assert_eq!(book.outstanding_principal, 460);
        let got: Vec<(Option<&str>, i64, i64, i64)> = book
            .buckets
            .iter()
            .map(|b| {
                (
                    b.bucket.map(Bucket::code),
                    b.loans,
                    b.outstanding_principal,
                    b.owed,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (None, 3, 310, 341),
                (Some("1-7"), 0, 0, 0),
                (Some("8-30"), 1, 100, 120),
                (Some("31-60"), 0, 0, 0),
                (Some("61-90"), 0, 0, 0),
                (Some("90+"), 1, 50, 80),
            ]
        );
        assert_eq!(
            book.products,
            vec![
                ProductFigures {
                    code: "a".into(),
                    name: "a name".into(),
                    loans: 3,
                    outstanding_principal: 400,
                    overdue_loans: 1,
                    overdue_principal: 100,
                },
                ProductFigures {
                    code: "b".into(),
                    name: "b name".into(),
                    loans: 2,
                    outstanding_principal: 60,
                    overdue_loans: 1,
                    overdue_principal: 50,
                },
            ]
        );
        assert!(fold_book(&[row("a", "0-1", 1, 1, 1)]).is_err());
        assert_eq!(fold_book(&[]).unwrap().buckets.len(), 6);
    }

    #[test]
    fn the_median_is_the_lower_middle_wait_of_the_counts() {
        assert_eq!(median_minutes([]), None);
        assert_eq!(median_minutes([(30, 0)]), None);
        assert_eq!(median_minutes([(30, 1)]), Some(30));
        // 10, 20, 20, 90: the lower of the two middle values.
        assert_eq!(median_minutes([(90, 1), (20, 2), (10, 1)]), Some(20));
        // 10, 20, 90, 90: the lower middle value is 20, not 55.
        assert_eq!(median_minutes([(90, 2), (10, 1), (20, 1)]), Some(20));
        // 5 × 10, 4 × 200: the fifth of nine.
        assert_eq!(median_minutes([(200, 4), (10, 5)]), Some(10));
        assert_eq!(median_minutes([(200, 5), (10, 4)]), Some(200));
    }

    #[test]
    fn within_the_promise_counts_the_exact_limit_to_the_millisecond() {
        let m = |minutes, payouts, on_the_minute| PayoutMinutes {
            day: 1,
            minutes,
            payouts,
            on_the_minute,
        };
        // 3 waits under 2 hours, 4 of 120 whole minutes of which 1 exactly 2:00:00.000, 2 longer.
        let counts = [m(119, 3, 0), m(120, 4, 1), m(121, 2, 2)];
        assert_eq!(within(&counts, 120), 4);
        assert_eq!(within(&counts, 121), 3 + 4 + 2);
        assert_eq!(within(&counts, 119), 0);
        assert_eq!(within(&[], 120), 0);
    }

    #[test]
    fn the_principal_trend_takes_back_each_change_dated_after_a_day() {
        // Days 10..=13; paid out 1000 on day 11, 400 repaid on day 13, a change of 7 dated day 15 (after the window).
        let changes = HashMap::from([(11, 1000), (13, -400), (15, 7)]);
        assert_eq!(
            principal_trend(607, &changes, 10, 13),
            vec![0, 1000, 1000, 600]
        );
        assert_eq!(principal_trend(0, &HashMap::new(), 10, 12), vec![0, 0, 0]);
    }
}
