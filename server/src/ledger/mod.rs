//! The only writer of ledger entries. Every entry a loan's ledger takes comes through here: the payout's opening
//! entries ([`open_in`]), one entry the money engine accepts after replaying the ledger with it ([`post_in`]: a
//! repayment, a payoff, a cooling-off exit, an extension fee), and the overdue job's late charges, which the job has
//! replayed with the money engine before ([`post_batch_in`]). An entry is never changed or deleted: a mistake is
//! reversed by another entry. `architecture.rs` checks that nothing else appends to the ledger.

use kilat_domain::{LedgerEntry, Plan};

use crate::error::Error;
use crate::servicing::{Loan, balances_of};
use crate::store::Tx;
use crate::store::loans::NewEntry;

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
    Ok(())
}

/// Opens the ledger of a loan just paid out with its plan's opening entries (the disbursal, the fees kept).
pub(crate) async fn open_in(
    tx: &mut Tx,
    order_id: &str,
    plan: &Plan,
    now: i64,
) -> Result<(), Error> {
    for (seq, entry) in plan.opening_entries().iter().enumerate() {
        tx.append_entry(order_id, seq as u64, entry, None, now)
            .await?;
    }
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
