//! What an overdue loan owes today, in its parts, and what changes tomorrow if nothing is paid: the borrower's
//! answer to "why is it this much, and does it grow?".

#[allow(unused_imports)]
use super::*;
use crate::calendar::add_days;

/// An overdue loan's arrears on a business date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Arrears {
    /// The oldest installment past its due date with something outstanding.
    pub first: u32,
    /// The latest one past its due date (equal to `first` when one is late).
    pub last: u32,
    /// The oldest one's due date.
    pub due_date: Date,
    /// Days since that due date.
    pub days_late: i64,
    /// Principal, interest and fees outstanding on the installments past their due date.
    pub owed: Money,
    /// Late charges posted on them and not yet paid.
    pub late_charges: Money,
    /// `owed + late_charges`: what paying the arrears today costs.
    pub total: Money,
    /// The late charge the overdue job adds tomorrow if nothing is paid (today's charges counted as posted): zero
    /// when the charge was once and is done, a day is frozen by a payment waiting for finance, or a cap is reached.
    pub late_charge_tomorrow: Money,
    /// The most the late charge can still add to these installments, beyond what is posted (and today's, not yet
    /// posted): zero once it no longer grows.
    pub late_charge_more_at_most: Money,
}

/// The loan's arrears on `on`, or `None` when nothing is past its due date. `verifying` are the installments a payment
/// waiting for finance covers ([`frozen_installments`](crate::frozen_installments)), which accrue no late charge.
/// Tomorrow's late charge is [`late_charges_due`] for `on + 1` on the balances with today's charges posted, so it is
/// the overdue job's own answer, never an estimate.
pub fn arrears(
    plan: &Plan,
    balances: &LoanBalances,
    verifying: &BTreeSet<u32>,
    on: Date,
    caps: &CapTable,
) -> Result<Option<Arrears>> {
    if balances.closed_by.is_some() {
        return Ok(None);
    }
    let late: Vec<&InstallmentBalance> = balances
        .installments
        .iter()
        .filter(|i| i.status(on) == InstallmentStatus::Overdue)
        .collect();
    let (Some(first), Some(last)) = (late.first(), late.last()) else {
        return Ok(None);
    };
    let mut owed = Money::ZERO;
    let mut late_charges = Money::ZERO;
    for i in &late {
        owed = owed.checked_add(i.outstanding.without_late_charges()?)?;
        late_charges = late_charges.checked_add(i.outstanding.late_charges)?;
    }
    // Today's charges, if the job has not run yet, as if posted: tomorrow is the day after them.
    let mut after_today = balances.clone();
    for entry in late_charges_due(plan, balances, verifying, on, caps)? {
        for line in &entry.lines {
            let charge = line.due.late_charges;
            if let Some(inst) = after_today.installment_mut(line.installment) {
                inst.due.late_charges = inst.due.late_charges.checked_add(charge)?;
                inst.outstanding.late_charges =
                    inst.outstanding.late_charges.checked_add(charge)?;
                inst.late_charge_days += 1;
                inst.last_late_charge_on = Some(on);
            }
            after_today.due.late_charges = after_today.due.late_charges.checked_add(charge)?;
            after_today.outstanding.late_charges =
                after_today.outstanding.late_charges.checked_add(charge)?;
        }
    }
    let tomorrow = add_days(on, 1)?;
    let mut late_charge_tomorrow = Money::ZERO;
    for entry in late_charges_due(plan, &after_today, verifying, tomorrow, caps)? {
        for line in &entry.lines {
            late_charge_tomorrow = late_charge_tomorrow.checked_add(line.due.late_charges)?;
        }
    }
    // What the product's bound still allows on these installments (the caps may allow less; never more).
    let bound = plan.quote.late_charge.max_per_installment()?;
    let mut more = Money::ZERO;
    for i in &late {
        let posted = after_today
            .installment(i.number)
            .map_or(i.due.late_charges, |a| a.due.late_charges);
        more = more.checked_add(bound.checked_sub(posted)?.max(Money::ZERO))?;
    }
    if plan.quote.market == Market::Indonesia {
        // OJK's total cost cap bounds every cost together: never more than its headroom.
        let room = caps
            .total_cost_limit(plan.quote.principal)?
            .checked_sub(after_today.cost()?)?
            .max(Money::ZERO);
        more = plan.quote.market.floor_to_asked(more.min(room));
    }
    Ok(Some(Arrears {
        first: first.number,
        last: last.number,
        due_date: first.due_date,
        days_late: days_between(first.due_date, on),
        owed,
        late_charges,
        total: owed.checked_add(late_charges)?,
        late_charge_tomorrow,
        late_charge_more_at_most: more.max(late_charge_tomorrow),
    }))
}
