//! The only writer of ledger entries. Every entry a loan's ledger takes comes through here: the payout's opening
//! entries ([`open_in`]), one entry the money engine accepts after replaying the ledger with it ([`post_in`]: a
//! repayment, a payoff, a cooling-off exit, an extension fee), and the overdue job's late charges, which the job has
//! replayed with the money engine before ([`post_batch_in`]). An entry is never changed or deleted: a mistake is
//! reversed by another entry. `architecture.rs` checks that nothing else appends to the ledger.
//!
//! Beside each entry it writes the loan's position ([`position`], `loan_arrears`: the due date of its oldest
//! installment with something outstanding, the total outstanding and the balances, from the same replay), in the same
//! transaction, so the queues can filter, sort and show where a loan stands, and the overdue job find the loans with
//! something to do, without reading a ledger (docs/ARCHITECTURE.md, "Collections").

use kilat_domain::{Code, LedgerEntry, LoanBalances, Plan};
use time::Date;

use crate::error::Error;
use crate::servicing::{Loan, balances_of};
use crate::store::Tx;
use crate::store::collections::ArrearsRow;
use crate::store::loans::{NewEntry, date_code};

/// The current due date of the loan's oldest installment with something outstanding, or `None` when nothing is owed:
/// the loan is past due on any day after it (the same rule as [`LoanBalances::is_overdue`]).
pub fn arrears_date(balances: &LoanBalances) -> Option<Date> {
    balances
        .installments
        .iter()
        .filter(|i| i.scheduled && !i.outstanding.is_zero())
        .map(|i| i.due_date)
        .min()
}

/// The position of a loan whose ledger replays to `balances`, as written beside the ledger: its arrears date, total
/// outstanding and the balances themselves, which the queues and the overdue job read instead of replaying the ledger.
pub fn position<'a>(
    order_id: &'a str,
    market: &'a str,
    balances: &LoanBalances,
) -> Result<ArrearsRow<'a>, Error> {
    Ok(ArrearsRow {
        order_id,
        market,
        oldest_unpaid_due: arrears_date(balances).map(date_code),
        outstanding: balances
            .outstanding
            .total()
            .map_err(|e| Error::Internal(e.into()))?
            .minor(),
        outstanding_principal: balances.outstanding.principal.minor(),
        balances_json: serde_json::to_string(balances).map_err(anyhow::Error::from)?,
    })
}

/// An entry dated on a day of `market` that has ended by `now` (a payment priced yesterday, confirmed today): the
/// dashboard's kept figures of that day are forgotten in the same transaction, to be computed again with it.
async fn forget_kept_day(
    tx: &mut Tx,
    market: kilat_domain::Market,
    on: Date,
    now: i64,
) -> Result<(), Error> {
    let today = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(now) * 1_000_000)
        .map(|at| market.local_date(at))
        .map_err(anyhow::Error::from)?;
    if on < today {
        tx.forget_dashboard_day(market.code(), crate::store::dashboard::day_of(on))
            .await?;
    }
    Ok(())
}

/// Appends `entry` to the loan's ledger after checking that the money engine accepts the ledger with it; `loan`'s
/// entries and balances are those after it.
pub(crate) async fn post_in(
    tx: &mut Tx,
    loan: &mut Loan,
    entry: LedgerEntry,
    payment_id: Option<&str>,
    now: i64,
) -> Result<(), Error> {
    let seq = loan.entries.len() as u64;
    loan.entries.push(entry);
    loan.balances = balances_of(&loan.plan, &loan.entries)?;
    let entry = loan.entries.last().expect("just pushed");
    tx.append_entry(&loan.order.id, seq, entry, payment_id, now)
        .await?;
    forget_kept_day(tx, loan.order.market, entry.on, now).await?;
    let row = position(&loan.order.id, loan.order.market.code(), &loan.balances)?;
    tx.set_arrears_of(&row, now).await?;
    Ok(())
}

/// Opens the ledger of a loan just paid out with its plan's opening entries (the disbursal, the fees kept).
pub(crate) async fn open_in(
    tx: &mut Tx,
    order_id: &str,
    plan: &Plan,
    now: i64,
) -> Result<(), Error> {
    let opening = plan.opening_entries();
    for (seq, entry) in opening.iter().enumerate() {
        tx.append_entry(order_id, seq as u64, entry, None, now)
            .await?;
    }
    let balances = balances_of(plan, &opening)?;
    // The market is read from the order by the statement.
    tx.set_arrears_of(&position(order_id, "", &balances)?, now)
        .await?;
    Ok(())
}

/// Appends a batch of entries that their caller has replayed with the money engine (the overdue job's late charges,
/// development's seeded loans), each at the sequence number it names.
pub(crate) async fn post_batch_in(
    tx: &mut Tx,
    batch: &[NewEntry<'_>],
    now: i64,
) -> Result<(), Error> {
    tx.append_entries(batch, now).await?;
    Ok(())
}

/// Writes the positions of loans whose balances the caller replayed (the overdue job's page after its late charges,
/// development's seeded loans; see [`position`]): the batched form of what [`post_in`] writes with each entry.
pub(crate) async fn note_arrears_in(
    tx: &mut Tx,
    rows: &[ArrearsRow<'_>],
    now: i64,
) -> Result<(), Error> {
    tx.set_arrears(rows, now).await?;
    Ok(())
}

/// Appends, for each loan of a batch (a batch of providers' callbacks), the last entry of its ledger, which the caller
/// appended to `loan.entries` and replayed with the money engine into `loan.balances` (as [`post_in`] does for one),
/// credited to the payment named beside it; and writes each loan's position from those balances. A few multi-row
/// statements whatever the batch's size; each loan at most once.
pub(crate) async fn post_credits_in(
    tx: &mut Tx,
    posts: &[(&Loan, &str)],
    now: i64,
) -> Result<(), Error> {
    let mut batch = Vec::with_capacity(posts.len());
    let mut rows = Vec::with_capacity(posts.len());
    for (loan, payment_id) in posts {
        let entry = loan
            .entries
            .last()
            .ok_or_else(|| anyhow::anyhow!("order {}: no entry to post", loan.order.order_no))?;
        batch.push(NewEntry {
            order_id: &loan.order.id,
            seq: loan.entries.len() as u64 - 1,
            entry,
            payment_id: Some(payment_id),
        });
        rows.push(position(
            &loan.order.id,
            loan.order.market.code(),
            &loan.balances,
        )?);
    }
    tx.append_entries(&batch, now).await?;
    tx.set_arrears(&rows, now).await?;
    // The days ended that the batch dates entries on, each once.
    let mut days: Vec<(kilat_domain::Market, Date)> = batch
        .iter()
        .zip(posts)
        .map(|(e, (loan, _))| (loan.order.market, e.entry.on))
        .collect();
    days.sort_unstable_by_key(|(m, d)| (m.code(), *d));
    days.dedup();
    for (market, on) in days {
        forget_kept_day(tx, market, on, now).await?;
    }
    Ok(())
}
