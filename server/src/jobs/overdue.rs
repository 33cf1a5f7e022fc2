//! The overdue job for one market's business date (docs/MONEY.md §9): for every open loan, the late charges the money
//! engine says are due that day ([`late_charges_due`]: as the KFS states them, never compounding, nothing while a UTR
//! waits, Indonesia's dated daily and total caps), posted as ledger entries; the order moved to overdue (or back, once
//! nothing is overdue) through `orders::apply_many_held_in` (the batched `apply_in`); and the day's reminders queued.
//!
//! One runner per market and business date: the run is claimed by inserting its `job_runs` row, which only one
//! server's insert wins. Each order's posting is idempotent on its own as well (a day charged is never charged again),
//! so a second sweep of the same date, or one that overlaps another, posts nothing more. Loans are read and written
//! a page at a time: one transaction per page, a few queries each, no round trip per order or installment. Each
//! loan's stored position (the balances its ledger last left, `ledger::position`) tells what the day holds for it,
//! and the day's charges are continued onto it by the money engine: no ledger is read.

use std::collections::{BTreeSet, HashMap, HashSet};

use anyhow::Context;
use kilat_domain::{
    Code, LedgerEntry, LoanBalances, Market, OrderEvent, OrderState, Plan, RepaymentChoice,
    frozen_installments, late_charges_due, replay, replay_onto,
};
use time::Date;

use super::reminders;
use crate::orders::{self, Actor};
use crate::services::Services;
use crate::store::collections::ArrearsRow;
use crate::store::jobs::{NewNotification, OpenLoanRow};
use crate::store::loans::{NewEntry, date_code};
use crate::store::orders::OrderStatusRow;

/// The job's name in `job_runs`.
pub const JOB: &str = "overdue";

/// Open loans per page (one transaction each).
pub const PAGE: i64 = 1000;

/// Tries per page: a page whose write fails (another writer appended to one of its ledgers) is read again.
const TRIES: u32 = 3;

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// False when another runner had claimed the date already (nothing was done).
    pub ran: bool,
    /// Open loans looked at.
    pub orders: u64,
    /// Late-charge entries posted.
    pub late_charges: u64,
    /// Orders moved to overdue.
    pub fell_overdue: u64,
    /// Orders moved back from overdue.
    pub caught_up: u64,
    /// Reminders queued.
    pub reminders: u64,
    /// Open loans whose stored plan, position or ledger the money engine could not read or continue: left as they
    /// were and logged, while the rest of the market is worked.
    pub skipped: u64,
}

impl Report {
    fn add(&mut self, other: &Report) {
        self.orders += other.orders;
        self.late_charges += other.late_charges;
        self.fell_overdue += other.fell_overdue;
        self.caught_up += other.caught_up;
        self.reminders += other.reminders;
        self.skipped += other.skipped;
    }
}

/// The most past business dates the timer runs to catch up after an outage ([`run_through`]).
pub const CATCH_UP_DAYS: i64 = 31;

/// Runs the job for every business date of `market` after the last one it finished, through `today`, oldest first:
/// a date missed while no server ran gets its late charges (each a day of the KFS, so a missed date would be a day
/// never charged) and its moves to overdue, as the day itself would have; its reminders are not queued (they would be
/// stale by the time they went: today's run queues today's). At most
/// [`CATCH_UP_DAYS`] back; the first date that fails, or a past one another runner holds unfinished, stops the run (a
/// later date run before it would leave its day uncharged), and is taken up again at the next tick. Each date with its
/// report; another runner's are skipped.
pub async fn run_through(
    s: &Services,
    market: Market,
    today: Date,
    runner: &str,
) -> Vec<(Date, anyhow::Result<Report>)> {
    let last = match s.db.last_finished_job_date(JOB, market.code()).await {
        Ok(last) => last.and_then(|d| crate::store::loans::parse_date(&d).ok()),
        Err(err) => return vec![(today, Err(err.into()))],
    };
    let first = match last {
        Some(last) if last < today => {
            (last + time::Duration::days(1)).max(today - time::Duration::days(CATCH_UP_DAYS))
        }
        _ => today,
    };
    let mut out = Vec::new();
    let mut date = first;
    while date <= today {
        let report = run(s, market, date, runner).await;
        // A past date another runner holds (sweeping it, or stopped within its lease) is not done: no later date runs
        // before it finishes, here or there.
        let stop = match &report {
            Err(_) => true,
            Ok(r) if !r.ran && date < today => !matches!(
                s.db.job_run_finished(JOB, market.code(), &crate::store::loans::date_code(date))
                    .await,
                Ok(true)
            ),
            Ok(_) => false,
        };
        out.push((date, report));
        if stop {
            break;
        }
        date += time::Duration::days(1);
    }
    out
}

/// Runs the job for `market`'s business date `date` unless another runner claimed it (then `ran` is false).
/// `runner` names this process in `job_runs`.
pub async fn run(s: &Services, market: Market, date: Date, runner: &str) -> anyhow::Result<Report> {
    let day = date_code(date);
    let now = s.clock.now_ms();
    if !s
        .db
        .claim_job_run(JOB, market.code(), &day, runner, now)
        .await?
    {
        return Ok(Report::default());
    }
    let mut report = sweep(s, market, date).await?;
    report.ran = true;
    s.db.finish_job_run(
        JOB,
        market.code(),
        &day,
        i64::try_from(report.orders)?,
        i64::try_from(report.late_charges)?,
        s.clock.now_ms(),
    )
    .await?;
    Ok(report)
}

/// The job's work for `date` without the claim: every open loan of the market, a page at a time. Safe to run twice
/// or at once with another sweep: what a loan already has for `date` is not posted again. On PostgreSQL
/// [`PAGES_AT_ONCE`] pages are worked at once, each in its own transaction on its own orders (the pages are disjoint
/// ranges of order ids, so they never wait for each other's locks); SQLite has one writer, so one page at a time.
pub async fn sweep(s: &Services, market: Market, date: Date) -> anyhow::Result<Report> {
    use futures_util::StreamExt;
    let at_once = if s.db.is_sqlite() { 1 } else { PAGES_AT_ONCE };
    let mut report = Report::default();
    let mut after = String::new();
    let mut listed_all = false;
    let mut working = futures_util::stream::FuturesUnordered::new();
    // A page that fails every try does not stop the others: the run ends in its error, unfinished, and is taken up
    // again (what the other pages posted is not posted twice).
    let mut failed = None;
    loop {
        while !listed_all && working.len() < at_once {
            let page = s.db.open_loans_page(market.code(), &after, PAGE).await?;
            listed_all = page.len() < PAGE as usize;
            let Some(last) = page.last() else { break };
            after = last.order_id.clone();
            working.push(sweep_page_with_tries(s, market, date, page));
        }
        match working.next().await {
            Some(Ok(done)) => report.add(&done),
            Some(Err(err)) => {
                tracing::error!(error = ?err, market = market.code(), "overdue job: a page failed every try");
                failed.get_or_insert(err);
            }
            None => break,
        }
    }
    match failed {
        Some(err) => Err(err),
        None => Ok(report),
    }
}

/// Pages worked at once on PostgreSQL.
pub const PAGES_AT_ONCE: usize = 2;

/// A loan the job leaves as it was today: logged with why, and counted.
fn skip(report: &mut Report, order_no: &str, why: &anyhow::Error) {
    tracing::error!(order = %order_no, error = ?why, "overdue job: a loan the money engine cannot read; left as it was");
    report.skipped += 1;
}

/// One page, read again and retried when its write fails ([`TRIES`] in all).
async fn sweep_page_with_tries(
    s: &Services,
    market: Market,
    date: Date,
    page: Vec<OpenLoanRow>,
) -> anyhow::Result<Report> {
    let mut tries = 0;
    loop {
        tries += 1;
        match sweep_page(s, market, date, &page).await {
            Ok(done) => return Ok(done),
            Err(err) if tries < TRIES => {
                tracing::warn!(error = %err, tries, "overdue job: a page failed; reading it again");
            }
            Err(err) => return Err(err),
        }
    }
}

/// One loan's plan and what the job does to it.
struct Planned {
    entries: Vec<LedgerEntry>,
    event: Option<OrderEvent>,
}

/// The installments of each order that a payment waiting for finance covers, frozen against late charges: every one
/// from the first to the last a `due` payment pays, all of them for a payment of the whole loan
/// ([`kilat_domain::frozen_installments`]).
fn verifying_sets(
    rows: Vec<crate::store::jobs::VerifyingRow>,
    plans: &HashMap<&str, Plan>,
) -> HashMap<String, BTreeSet<u32>> {
    let mut out: HashMap<String, BTreeSet<u32>> = HashMap::new();
    for row in rows {
        let Some(plan) = plans.get(row.order_id.as_str()) else {
            continue;
        };
        let number = |n: Option<i64>| n.and_then(|n| u32::try_from(n).ok());
        // An unknown choice freezes the whole loan: never charge for a payment the job cannot read.
        let choice = RepaymentChoice::from_code(&row.choice).unwrap_or(RepaymentChoice::Payoff);
        let frozen = frozen_installments(
            plan,
            choice,
            number(row.installment),
            number(row.installment_to),
        );
        out.entry(row.order_id.clone()).or_default().extend(frozen);
    }
    out
}

/// What the money engine posts to one loan on `date`, and the order's move.
fn plan_loan(
    plan: &Plan,
    status: OrderState,
    balances: &LoanBalances,
    verifying: &BTreeSet<u32>,
    date: Date,
    s: &Services,
) -> anyhow::Result<Planned> {
    let entries =
        late_charges_due(plan, balances, verifying, date, &s.caps).context("late charges")?;
    let overdue = balances.is_overdue(date);
    let event = match status {
        OrderState::Disbursed if overdue => Some(OrderEvent::FallOverdue),
        OrderState::Overdue if !overdue => Some(OrderEvent::CatchUp),
        _ => None,
    };
    Ok(Planned { entries, event })
}

/// The reminders one loan has due on `date` now — installment, kind and text — exactly as [`sweep`] queues them: from
/// its stored position (its ledger replayed when it has none), less the installments a payment waiting for finance
/// covers; none once the order is no longer an open loan (repaid, exited in cooling-off, closed). What a queued
/// reminder is checked against just before it is sent, hours after the job wrote it.
pub(crate) async fn reminders_due_now(
    s: &Services,
    market: Market,
    order_id: &str,
    date: Date,
) -> anyhow::Result<Vec<(u32, String, String)>> {
    let mut tx = s.db.begin_read().await?;
    let Some(row) = tx.open_loan_in_tx(order_id).await? else {
        tx.rollback().await?;
        return Ok(Vec::new());
    };
    let plan: Plan = serde_json::from_str(&row.plan_json)
        .with_context(|| format!("the plan of order {}", row.order_no))?;
    let ids = [order_id];
    let verifying_rows = tx.verifying_in_tx(&ids).await?;
    let position = tx.positions_in_tx(&ids).await?.pop();
    let balances: LoanBalances = match position {
        Some((_, json)) => serde_json::from_str(&json)
            .with_context(|| format!("the stored position of order {}", row.order_no))?,
        None => {
            let ledger = tx.ledgers_in_tx(&ids).await?.remove(order_id);
            let entries = crate::servicing::entries_of(ledger.unwrap_or_default())
                .with_context(|| format!("the ledger of order {}", row.order_no))?;
            replay(&plan, &entries)
                .with_context(|| format!("replaying the ledger of order {}", row.order_no))?
        }
    };
    tx.rollback().await?;
    let plans = HashMap::from([(order_id, plan)]);
    let verifying = verifying_sets(verifying_rows, &plans);
    let none = BTreeSet::new();
    let waiting = verifying.get(order_id).unwrap_or(&none);
    let mut notes = Vec::new();
    reminders::due_on(
        market,
        &row,
        &plans[order_id],
        &balances,
        waiting,
        date,
        &mut notes,
    );
    Ok(notes
        .into_iter()
        .map(|n| (n.installment, n.kind.to_owned(), n.text))
        .collect())
}

async fn sweep_page(
    s: &Services,
    market: Market,
    date: Date,
    page: &[OpenLoanRow],
) -> anyhow::Result<Report> {
    let mut report = Report::default();
    let ids: Vec<&str> = page.iter().map(|r| r.order_id.as_str()).collect();
    // A loan the engine cannot read is skipped (logged), never the page: one bad row must not stop every other
    // loan's charges, status and reminders.
    let mut unreadable: HashSet<&str> = HashSet::new();
    let mut plans: HashMap<&str, Plan> = HashMap::with_capacity(page.len());
    for r in page {
        match serde_json::from_str(&r.plan_json) {
            Ok(plan) => {
                plans.insert(r.order_id.as_str(), plan);
            }
            Err(e) => {
                skip(
                    &mut report,
                    &r.order_no,
                    &anyhow::Error::from(e).context("its plan"),
                );
                unreadable.insert(r.order_id.as_str());
            }
        }
    }
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // The page's orders locked and read in one statement (PostgreSQL: `FOR UPDATE`); their moves below go through the
    // lifecycle with these rows, which it does not read again.
    let held: HashMap<String, OrderStatusRow> = tx
        .orders_for_update(&ids)
        .await?
        .into_iter()
        .map(|row| (row.id.clone(), row))
        .collect();
    let verifying = verifying_sets(tx.verifying_in_tx(&ids).await?, &plans);
    let none = BTreeSet::new();
    // Each loan's balances as its ledger last left them: its stored position, written in the same transaction as
    // every entry. The day's late charges are continued onto it by the money engine (`replay_onto`: the same balances
    // and refusals as replaying the whole ledger with them), so no ledger is read; only a loan without a position yet
    // (written before migration 0044) has its ledger read and replayed. Were a position ever behind its ledger, the
    // charge's sequence number would be taken already, and the unique (order, seq) would refuse the page.
    let mut positions: HashMap<String, LoanBalances> = HashMap::with_capacity(page.len());
    for (order_id, json) in tx.positions_in_tx(&ids).await? {
        match serde_json::from_str(&json) {
            Ok(balances) => {
                positions.insert(order_id, balances);
            }
            Err(e) => {
                if let Some(row) = page.iter().find(|r| r.order_id == order_id) {
                    skip(
                        &mut report,
                        &row.order_no,
                        &anyhow::Error::from(e).context("its stored position"),
                    );
                    unreadable.insert(row.order_id.as_str());
                }
            }
        }
    }
    // Read again under the lock: an order repaid or exited since the page was listed is left alone.
    let active: Vec<(&OpenLoanRow, OrderState)> = page
        .iter()
        .filter(|row| !unreadable.contains(row.order_id.as_str()))
        .filter_map(|row| {
            let status = held.get(&row.order_id)?.status;
            status.is_active_loan().then_some((row, status))
        })
        .collect();
    let unpositioned: Vec<&str> = active
        .iter()
        .map(|(row, _)| row.order_id.as_str())
        .filter(|id| !positions.contains_key(*id))
        .collect();
    let mut ledgers = tx.ledgers_in_tx(&unpositioned).await?;
    let mut posts: Vec<(&str, u64, LedgerEntry)> = Vec::new();
    let mut events: Vec<(&OrderStatusRow, OrderEvent)> = Vec::new();
    // A date before today (run by hand to catch up) judges the loans by today's balances: a loan overdue then is
    // overdue now, but one not yet overdue then may be today, so a past date never moves an order back to current.
    let past = date < s.clock.today(market);
    let mut notes: Vec<NewNotification<'_>> = Vec::new();
    let mut arrears: Vec<ArrearsRow<'_>> = Vec::new();
    for &(row, status) in &active {
        let plan = &plans[row.order_id.as_str()];
        let waiting = verifying.get(&row.order_id).unwrap_or(&none);
        // Everything the engine works out for this loan, before anything of it joins the page's writes.
        let worked = (|| -> anyhow::Result<_> {
            let (balances, positioned) = match positions.remove(&row.order_id) {
                Some(balances) => (balances, true),
                None => {
                    let entries = crate::servicing::entries_of(
                        ledgers.remove(&row.order_id).unwrap_or_default(),
                    )
                    .context("its ledger")?;
                    (
                        replay(plan, &entries).context("replaying its ledger")?,
                        false,
                    )
                }
            };
            let planned = plan_loan(plan, status, &balances, waiting, date, s)?;
            let first = balances.entries;
            // The money engine accepts the ledger with them, or nothing is posted.
            let after = if planned.entries.is_empty() {
                balances
            } else {
                replay_onto(plan, &balances, &planned.entries).context("its late charges")?
            };
            let position = (!planned.entries.is_empty() || !positioned)
                .then(|| crate::ledger::position(row.order_id.as_str(), market.code(), &after))
                .transpose()?;
            Ok((first, planned, after, position))
        })();
        let (first, planned, after, position) = match worked {
            Ok(worked) => worked,
            Err(e) => {
                skip(&mut report, &row.order_no, &e);
                continue;
            }
        };
        report.orders += 1;
        for (i, e) in planned.entries.into_iter().enumerate() {
            posts.push((row.order_id.as_str(), first + i as u64, e));
        }
        if let Some(event) = planned
            .event
            .filter(|e| !(past && *e == OrderEvent::CatchUp))
        {
            events.push((&held[&row.order_id], event));
        }
        // A past date's reminders (a date caught up after an outage) would be stale when they go: none is queued.
        if !past {
            reminders::due_on(market, row, plan, &after, waiting, date, &mut notes);
        }
        arrears.extend(position);
    }
    let batch: Vec<NewEntry<'_>> = posts
        .iter()
        .map(|(order_id, seq, entry)| NewEntry {
            order_id,
            seq: *seq,
            entry,
            payment_id: None,
        })
        .collect();
    crate::ledger::post_batch_in(&mut tx, &batch, now).await?;
    report.late_charges = batch.len() as u64;
    crate::ledger::note_arrears_in(&mut tx, &arrears, now).await?;
    // The page's status changes in a few statements (not four per order), through the state machine as ever.
    let actor = Actor::System("overdue_job");
    orders::apply_many_held_in(&mut tx, &events, &actor, now)
        .await
        .map_err(anyhow::Error::from)?;
    for (_, event) in &events {
        match event {
            OrderEvent::FallOverdue => report.fell_overdue += 1,
            _ => report.caught_up += 1,
        }
    }
    report.reminders = tx.queue_notifications(&notes, now).await?;
    tx.commit().await?;
    Ok(report)
}
