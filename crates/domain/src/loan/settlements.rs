//! Settlements that close a loan: the payoff (no interest for days not used) and the cooling-off exit.

#[allow(unused_imports)]
use super::*;

/// A settlement that closes the loan: what to pay, what it forgives, and the entry to post once it is paid.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settlement {
    /// Day it is priced for.
    pub on: Date,
    /// To pay, in one payment.
    pub amount: Money,
    /// Interest scheduled but not charged.
    pub interest_waived: Money,
    /// Fees (and late charges) scheduled or posted but not charged.
    pub charges_waived: Money,
    /// Fees kept at payout credited back, already netted from `amount`.
    pub fees_refunded: Money,
    /// The `payoff` or `cooling_off_exit` entry to post when `amount` is received.
    pub entry: LedgerEntry,
}

/// Interest installment `inst` has earned by `on`: all of it from its planned due date, none before its period
/// (from the previous planned due date, or the payout) starts, and in between its scheduled interest × days used ÷
/// days in the period, rounded half-up. Extensions add no interest and do not stretch the period.
pub(crate) fn earned_interest(plan: &Plan, inst: &Installment, on: Date) -> Result<Money> {
    let number = inst.number;
    let start = match number {
        1 => plan.payout_date(),
        n => plan
            .installment(n - 1)
            .map_or(plan.payout_date(), |i| i.due_date),
    };
    let length = days_between(start, inst.due_date);
    let used = days_between(start, on).clamp(0, length.max(0));
    if used >= length {
        return Ok(inst.interest);
    }
    Money::try_from_i128(div_round_half_up(
        i128::from(inst.interest.minor()) * i128::from(used),
        i128::from(length),
    ))
}

/// The payoff on `on` under [`PREPAYMENT_RULE`]: everything outstanding, except interest not yet earned
/// (each installment earns its interest pro rata over the days of its planned period). Interest paid in advance for
/// days not used is credited, netted from the amount (which is negative, a refund, in the rare case the credit is
/// larger than everything else). No prepayment charge.
pub fn payoff(plan: &Plan, balances: &LoanBalances, on: Date) -> Result<Settlement> {
    if balances.closed_by.is_some()
        || balances.settled
        || !balances.installments.iter().all(|i| i.scheduled)
    {
        return Err(invalid(balances.entries, "nothing to pay off"));
    }
    let mut lines = Vec::new();
    let mut waived = Money::ZERO;
    for (inst, planned) in balances.installments.iter().zip(&plan.quote.installments) {
        // Interest earned for part of a period is kept in whole amounts of what the market asks (whole rupiah in
        // Indonesia), rounded down; a period run to its end keeps its interest as scheduled.
        let earned = match earned_interest(plan, planned, on)? {
            full if full == planned.interest => full,
            part => plan.quote.market.floor_to_asked(part),
        };
        let keep = earned.min(inst.due.interest);
        let waive = inst.due.interest.checked_sub(keep)?;
        let due = Buckets {
            interest: Money::ZERO.checked_sub(waive)?,
            ..Buckets::default()
        };
        let paid = inst.outstanding.plus(due)?;
        if !paid.is_zero() || !due.is_zero() {
            lines.push(Line {
                installment: inst.number,
                due,
                paid,
            });
        }
        waived = waived.checked_add(waive)?;
    }
    let entry = LedgerEntry {
        lines,
        ..LedgerEntry::new(EntryKind::Payoff, on)
    };
    let amount = entry.paid_total()?;
    Ok(Settlement {
        on,
        amount,
        interest_waived: waived,
        charges_waived: Money::ZERO,
        fees_refunded: Money::ZERO,
        entry: LedgerEntry {
            cash: amount,
            ..entry
        },
    })
}

/// The cooling-off exit on `on` ([`cooling_off_exit`]) as a settlement: the principal and the interest for the
/// days used are paid, every other scheduled or posted charge is waived, and fees kept at payout are credited
/// back. Whatever the borrower repaid before (an installment paid early) counts towards it: each installment ends
/// with exactly its principal and its share of the interest paid, so money paid earlier for fees, late charges or
/// interest beyond the days used is credited back too, netted from the amount. Refused once the window has closed
/// or the loan is closed, and once what was repaid covers the exit: there is then nothing to pay for it, and the loan
/// is settled by what is left of the payoff (an exit paying nothing, with the difference owed back, is not built).
pub fn cooling_off_settlement(
    plan: &Plan,
    balances: &LoanBalances,
    on: Date,
) -> Result<Settlement> {
    let exit = cooling_off_exit(&plan.quote, plan.payout_date(), on)?;
    if balances.closed_by.is_some()
        || balances.settled
        || !balances.installments.iter().all(|i| i.scheduled)
    {
        return Err(invalid(
            balances.entries,
            "a cooling-off exit needs an open loan",
        ));
    }
    let mut interest_left = exit.interest;
    let mut lines = Vec::new();
    let mut interest_waived = Money::ZERO;
    let mut charges_waived = Money::ZERO;
    let last = balances.installments.len() - 1;
    for (k, inst) in balances.installments.iter().enumerate() {
        // The interest for the days used goes to the oldest installments; anything above their scheduled interest
        // (a rate per year over days) stays on the last one.
        let share = if k == last {
            interest_left
        } else {
            interest_left.min(inst.due.interest)
        };
        interest_left = interest_left.checked_sub(share)?;
        let due = Buckets {
            late_charges: Money::ZERO.checked_sub(inst.due.late_charges)?,
            fees: Money::ZERO.checked_sub(inst.due.fees)?,
            interest: share.checked_sub(inst.due.interest)?,
            principal: Money::ZERO,
        };
        interest_waived = interest_waived.checked_add(inst.due.interest.checked_sub(share)?)?;
        charges_waived = charges_waived
            .checked_add(inst.due.fees)?
            .checked_add(inst.due.late_charges)?;
        // What it pays now: the exit's part of this installment less what was paid of it before (a negative
        // amount for fees, late charges or interest paid before is credited back).
        let kept = Buckets {
            interest: share,
            principal: inst.due.principal,
            ..Buckets::default()
        };
        lines.push(Line {
            installment: inst.number,
            due,
            paid: kept.minus(inst.paid)?,
        });
    }
    let fees_refunded = exit.fees_refunded.min(balances.fees_kept);
    let entry = LedgerEntry {
        refunded: fees_refunded,
        lines,
        ..LedgerEntry::new(EntryKind::CoolingOffExit, on)
    };
    let amount = entry.paid_total()?.checked_sub(fees_refunded)?;
    if amount.minor() <= 0 {
        return Err(invalid(
            balances.entries,
            "what was repaid covers the cooling-off exit already",
        ));
    }
    Ok(Settlement {
        on,
        amount,
        interest_waived: interest_waived.max(Money::ZERO),
        charges_waived,
        fees_refunded,
        entry: LedgerEntry {
            cash: amount,
            ..entry
        },
    })
}

/// The cooling-off exit as the borrower is offered it on `on`: each part of the amount, and the last day it is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoolingOffOffer {
    /// Days from payout to `on`.
    pub days_used: i64,
    /// The sanctioned principal.
    pub principal: Money,
    /// Interest for the days used.
    pub interest: Money,
    /// Fees kept at payout, given back (netted from what is paid).
    pub fees_refunded: Money,
    /// What the borrower repaid before, counted towards the exit (netted from what is paid).
    pub repaid: Money,
    /// `principal + interest − fees_refunded − repaid`: exactly the settlement's amount.
    pub amount: Money,
    /// The last day the exit is open (the market's business date).
    pub open_until: Date,
}

/// The cooling-off exit on `on` in its parts ([`cooling_off_settlement`], whose amount it is) and the window's last
/// day; an error when the exit is not open.
pub fn cooling_off_offer(
    plan: &Plan,
    balances: &LoanBalances,
    on: Date,
) -> Result<CoolingOffOffer> {
    let settlement = cooling_off_settlement(plan, balances, on)?;
    let exit = cooling_off_exit(&plan.quote, plan.payout_date(), on)?;
    let open_until = crate::calendar::add_days(plan.payout_date(), plan.quote.cooling_off_days)?;
    Ok(CoolingOffOffer {
        days_used: exit.days_used,
        principal: exit.principal,
        interest: exit.interest,
        fees_refunded: settlement.fees_refunded,
        repaid: balances.paid.total()?,
        amount: settlement.amount,
        open_until,
    })
}
