//! The overdue job's late charges for a business date.

#[allow(unused_imports)]
use super::*;

/// The overdue job for business date `on`: one `late_charge` entry per installment to charge today.
///
/// An installment is charged for a day when it is past its due date with principal, interest or fees
/// outstanding, is not in `verifying` (a UTR awaits finance), and has no charge posted on or after `on`. Each
/// charged day is the next day of [`LateCharge::for_days_overdue`](crate::LateCharge::for_days_overdue), counted in
/// charged days, so the posted total never exceeds that bound; a second run for the same date posts nothing, and a
/// day spent verifying is never charged, then or later. The charge never depends on earlier late charges (no
/// compounding). In Indonesia each day's charge is at most the cap table's daily late-charge rate of the
/// installment's outstanding principal, interest and fees, and all costs together stay within the total cap.
pub fn late_charges_due(
    plan: &Plan,
    balances: &LoanBalances,
    verifying: &BTreeSet<u32>,
    on: Date,
    caps: &CapTable,
) -> Result<Vec<LedgerEntry>> {
    let late = plan.quote.late_charge;
    let indonesia = plan.quote.market == Market::Indonesia;
    let daily_cap = if indonesia {
        caps.late_charge_cap(on)
    } else {
        None
    };
    let mut headroom = if indonesia {
        Some(
            caps.total_cost_limit(plan.quote.principal)?
                .checked_sub(balances.cost()?)?,
        )
    } else {
        None
    };
    let mut out = Vec::new();
    if balances.closed_by.is_some() {
        return Ok(out);
    }
    for inst in &balances.installments {
        let base = inst.outstanding.without_late_charges()?;
        if !inst.scheduled
            || base.minor() <= 0
            || on <= inst.due_date
            || verifying.contains(&inst.number)
            || inst.last_late_charge_on.is_some_and(|d| d >= on)
        {
            continue;
        }
        let day = inst.late_charge_days + 1;
        let bound = late.for_days_overdue(day)?;
        let step = bound.checked_sub(late.for_days_overdue(day - 1)?)?;
        let mut charge = step.min(bound.checked_sub(inst.due.late_charges)?);
        if let Some(rate) = daily_cap {
            // Floor: a cap is a maximum, so a fraction of a sen is not charged.
            let limit = i128::from(base.minor()) * i128::from(rate.ppb()) / i128::from(RATE_SCALE);
            charge = charge.min(Money::try_from_i128(limit)?);
        }
        // Only whole amounts of what the market asks (whole rupiah in Indonesia): the fraction is not charged.
        charge = plan.quote.market.floor_to_asked(charge);
        if let Some(room) = headroom.as_mut() {
            // A cap lowered below what the loan costs already leaves no room: nothing more, never less than nothing.
            charge = plan
                .quote
                .market
                .floor_to_asked(charge.min(*room))
                .max(Money::ZERO);
            *room = room.checked_sub(charge)?;
        }
        // A day the KFS itself charges nothing for while later days do cost something (the first day overdue of a
        // product without a flat charge) is still a day overdue: it is posted as a zero charge so that it counts,
        // or the charge would never start.
        let free_day = step.minor() == 0 && bound < late.max_per_installment()?;
        if charge.minor() > 0 || free_day {
            out.push(LedgerEntry {
                lines: vec![Line {
                    installment: inst.number,
                    due: Buckets {
                        late_charges: charge,
                        ..Buckets::default()
                    },
                    paid: Buckets::default(),
                }],
                ..LedgerEntry::new(EntryKind::LateCharge, on)
            });
        }
    }
    Ok(out)
}
