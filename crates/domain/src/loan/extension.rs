//! A paid extension of one installment.

#[allow(unused_imports)]
use super::*;

/// A paid extension of installment `number` on `on`: its price and revised schedule ([`price_extension`], which
/// keeps the OJK caps in Indonesia) and the `extension_fee` entry to post once the fee is paid. Refused for a
/// closed loan, an installment with nothing outstanding, or one so far overdue that its new due date is not after
/// `on`: the fee would buy no day, the installment stay overdue and charged.
pub fn extend(
    plan: &Plan,
    balances: &LoanBalances,
    number: u32,
    on: Date,
    caps: &CapTable,
) -> Result<(ExtensionQuote, LedgerEntry)> {
    let inst = balances
        .installment(number)
        .ok_or_else(|| Error::ExtensionNotAllowed(format!("no installment {number}")))?;
    if balances.closed_by.is_some() || !inst.scheduled || inst.outstanding.is_zero() {
        return Err(Error::ExtensionNotAllowed(format!(
            "installment {number} has nothing outstanding"
        )));
    }
    let quote = price_extension(
        &plan.quote,
        &balances.schedule(plan),
        number,
        balances.extensions_granted,
        balances.extension_fees,
        caps,
    )?;
    if let Some(moved) = quote.revised.iter().find(|i| i.number == number)
        && moved.due_date <= on
    {
        return Err(Error::ExtensionNotAllowed(format!(
            "installment {number} would be due on {}, not after {on}: the extension buys no day",
            moved.due_date
        )));
    }
    let fee = Buckets {
        fees: quote.fee.total,
        ..Buckets::default()
    };
    let entry = LedgerEntry {
        cash: quote.fee.total,
        lines: vec![Line {
            installment: number,
            due: fee,
            paid: fee,
        }],
        ..LedgerEntry::new(EntryKind::ExtensionFee, on)
    };
    Ok((quote, entry))
}
