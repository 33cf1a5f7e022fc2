//! A repayment split by the allocation rule (PRODUCT.md §6).

#[allow(unused_imports)]
use super::*;

/// The `repayment` entry for `amount` received on `on`: oldest installment first, and within each late charges,
/// then fees, then interest, then principal (PRODUCT.md §6). What is left once everything is paid is returned
/// separately (and recorded as the entry's `excess`), to refund: it is never credited to anything.
pub fn allocate_repayment(
    balances: &LoanBalances,
    amount: Money,
    on: Date,
) -> Result<(LedgerEntry, Money)> {
    if amount.is_negative() {
        return Err(Error::NegativeAmount);
    }
    if amount.minor() == 0 {
        return Err(invalid(balances.entries, "a repayment of nothing"));
    }
    let mut left = amount;
    let mut lines = Vec::new();
    for inst in &balances.installments {
        if left.minor() == 0 {
            break;
        }
        let split = allocate(inst.outstanding.into(), left)?;
        left = split.excess;
        let paid = Buckets::from(split.applied);
        if !paid.is_zero() {
            lines.push(Line {
                installment: inst.number,
                due: Buckets::default(),
                paid,
            });
        }
    }
    let entry = LedgerEntry {
        cash: amount,
        excess: left,
        lines,
        ..LedgerEntry::new(EntryKind::Repayment, on)
    };
    Ok((entry, left))
}
