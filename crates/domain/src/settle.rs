//! From a repayment choice to money: what each choice costs today ([`price`]) and what the money received for it
//! does to the loan ([`settle`], [`credit_received`]). The server stores and moves payments; the rules are here.
//!
//! - A payment made before a due date never costs more than paying the loan off that day: when the payoff is no
//!   more than what is due next (a loan with one installment left, paid early), `due` is priced and settled as the
//!   payoff, so unused interest is never charged.
//! - Money for a loan that owes nothing is refunded whole; money beyond what the loan owes is credited up to the
//!   payoff and the rest refunded. Nothing received is credited twice or lost (docs/MONEY.md, "Payments").

use std::collections::BTreeSet;

use crate::caps::CapTable;
use crate::codes::Code;
use crate::error::{Error, Result};
use crate::loan::{
    EntryKind, LedgerEntry, LoanBalances, Plan, allocate_repayment, cooling_off_settlement, extend,
    payoff, reversal,
};
use crate::money::Money;
use crate::servicing::ExtensionQuote;
use serde::{Deserialize, Serialize};
use time::Date;

/// What a payment pays for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RepaymentChoice {
    /// What is due now: every installment past its due date, or else the next one (never more than the payoff).
    Due,
    /// Everything, as a payoff quote for today (no prepayment charge).
    Payoff,
    /// The cooling-off exit: principal and the interest for the days used.
    CoolingOff,
    /// The extension fee of the installment due next, which moves its due date.
    Extension,
}

impl Code for RepaymentChoice {
    const ALL: &'static [Self] = &[
        RepaymentChoice::Due,
        RepaymentChoice::Payoff,
        RepaymentChoice::CoolingOff,
        RepaymentChoice::Extension,
    ];

    fn code(self) -> &'static str {
        match self {
            RepaymentChoice::Due => "due",
            RepaymentChoice::Payoff => "payoff",
            RepaymentChoice::CoolingOff => "cooling_off",
            RepaymentChoice::Extension => "extension",
        }
    }
}

/// One repayment choice priced for a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Priced {
    pub choice: RepaymentChoice,
    /// Minor units: exactly what to pay.
    pub amount: Money,
    /// The installment it is for (`due`: the oldest paid; `extension`: the one that moves).
    pub installment: Option<u32>,
    /// `due`: the last installment it covers (all of `installment..=installment_to` are covered, and frozen while
    /// the payment waits for finance).
    pub installment_to: Option<u32>,
    /// The due date it pays up to (`due`) or the new due date (`extension`).
    pub due_date: Option<Date>,
    /// For an extension: its price and revised schedule.
    pub extension: Option<ExtensionQuote>,
    /// For an extension: the extensions the loan had been granted when it was priced. Its money buys the extension
    /// priced only while that is still so ([`Asked::extensions_before`]).
    pub extensions_before: Option<u32>,
}

/// Why a choice is not offered.
fn unavailable(why: &str) -> Error {
    Error::ChoiceUnavailable(why.to_owned())
}

/// The installments a `due` payment covers on `on`: every one past or at its due date with something outstanding,
/// or else the next one: (amount, first, last, last's due date, whether any is reached).
fn due_now(balances: &LoanBalances, on: Date) -> Option<(Money, u32, u32, Date, bool)> {
    let open: Vec<_> = balances
        .installments
        .iter()
        .filter(|i| i.scheduled && !i.outstanding.is_zero())
        .collect();
    let first = open.first()?;
    let reached: Vec<_> = open.iter().filter(|i| i.due_date <= on).collect();
    if reached.is_empty() {
        return Some((
            first.outstanding.total().ok()?,
            first.number,
            first.number,
            first.due_date,
            false,
        ));
    }
    let mut sum = Money::ZERO;
    for i in &reached {
        sum = sum.checked_add(i.outstanding.total().ok()?).ok()?;
    }
    let last = reached.last()?;
    Some((sum, first.number, last.number, last.due_date, true))
}

/// The payoff on `on` when it exists and asks something.
fn payoff_amount(plan: &Plan, balances: &LoanBalances, on: Date) -> Option<Money> {
    payoff(plan, balances, on)
        .ok()
        .map(|s| s.amount)
        .filter(|a| a.minor() > 0)
}

/// Prices `choice` for the loan on `on`. `current` is true while the order is paid out and not closed (the server's
/// order status); the cooling-off exit also needs the loan not overdue (`overdue` false).
pub fn price(
    plan: &Plan,
    balances: &LoanBalances,
    choice: RepaymentChoice,
    on: Date,
    caps: &CapTable,
    overdue: bool,
) -> Result<Priced> {
    if balances.closed_by.is_some() || balances.settled {
        return Err(unavailable("the loan is closed"));
    }
    let priced = match choice {
        RepaymentChoice::Due => {
            let (mut amount, first, last, date, reached) =
                due_now(balances, on).ok_or_else(|| unavailable("nothing is due"))?;
            // Before a due date, never more than paying the whole loan off today.
            if !reached && let Some(p) = payoff_amount(plan, balances, on) {
                amount = amount.min(p);
            }
            Priced {
                choice,
                amount,
                installment: Some(first),
                installment_to: Some(last),
                due_date: Some(date),
                extension: None,
                extensions_before: None,
            }
        }
        RepaymentChoice::Payoff => Priced {
            choice,
            amount: payoff_amount(plan, balances, on)
                .ok_or_else(|| unavailable("nothing to pay off"))?,
            installment: None,
            installment_to: None,
            due_date: None,
            extension: None,
            extensions_before: None,
        },
        RepaymentChoice::CoolingOff => {
            let settlement = cooling_off_settlement(plan, balances, on)?;
            if settlement.amount.minor() <= 0 || overdue {
                return Err(unavailable("the cooling-off exit is not open"));
            }
            Priced {
                choice,
                amount: settlement.amount,
                installment: None,
                installment_to: None,
                due_date: None,
                extension: None,
                extensions_before: None,
            }
        }
        RepaymentChoice::Extension => {
            plan.quote
                .extension
                .ok_or_else(|| unavailable("the product offers no extension"))?;
            let (_, number, _, _, _) =
                due_now(balances, on).ok_or_else(|| unavailable("nothing is due"))?;
            let (quote, _) = extend(plan, balances, number, on, caps)?;
            let new_date = quote
                .revised
                .iter()
                .find(|i| i.number == number)
                .map(|i| i.due_date);
            Priced {
                choice,
                amount: quote.fee.total,
                installment: Some(number),
                installment_to: Some(number),
                due_date: new_date,
                extension: Some(quote),
                extensions_before: Some(balances.extensions_granted),
            }
        }
    };
    Ok(priced)
}

/// What money received for a payment does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settlement {
    /// Post `entry`; `refund` (beyond what the loan owed) goes back to the borrower, zero when all is credited.
    Credit { entry: LedgerEntry, refund: Money },
    /// The amount cannot be credited as asked: finance decides (credit it, or refund it).
    Hold,
    /// The loan owes nothing: all of it goes back to the borrower.
    RefundAll,
}

/// A payment as the server stored it: what for, priced when, for how much; and when its money was sent.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    pub choice: RepaymentChoice,
    /// The installment it was priced for (`due`, `extension`).
    pub installment: Option<u32>,
    pub priced_on: Date,
    pub amount: Money,
    /// The latest business day its money can have been sent, as far as the server knows: the day the UTR was
    /// submitted, the day the provider's instructions expired, else the day the money was reported. Never before
    /// `priced_on`.
    pub sent_on: Date,
    /// An extension's [`Priced::extensions_before`] (none when not known, for payments stored before it was kept):
    /// when the loan has been granted another extension since (a second fee paid for the same one, from another tab
    /// or by another method), its schedule is not the one priced, and its money is held for finance.
    pub extensions_before: Option<u32>,
    /// True when another payment of the loan, a repayment (not an extension's fee), waits for finance as this money
    /// arrives (a UTR being checked, an amount held): its money may have paid the installment an extension would move,
    /// so an extension's fee is held for finance to decide both, never credited as days on a paid installment.
    pub repayment_waiting: bool,
}

/// The days after the one it was priced on that a payment's price still holds for its money: a transfer made late
/// in the evening whose UTR comes the next morning, a reference paid at an outlet before it expires (24 to 48 hours).
/// Money sent later is priced for the day it was sent, so interest for the days used is never forgiven by an old
/// quote kept and paid weeks later.
pub const QUOTE_HOLDS_DAYS: u32 = 2;

impl Asked {
    /// The day the payment's money is priced for: the day it was priced while that price holds
    /// ([`QUOTE_HOLDS_DAYS`]), else the day the money was sent.
    pub fn priced_for(&self) -> Date {
        let sent_on = self.sent_on.max(self.priced_on);
        match crate::calendar::add_days(self.priced_on, QUOTE_HOLDS_DAYS) {
            Ok(holds_until) if sent_on <= holds_until => self.priced_on,
            _ => sent_on,
        }
    }

    /// True when the money was sent within the loan's cooling-off window: only then is it an exit.
    fn sent_within_cooling_off(&self, plan: &Plan) -> bool {
        crate::servicing::cooling_off_exit(&plan.quote, plan.payout_date(), self.sent_on).is_ok()
    }
}

/// True when nothing is owed on the loan any more.
fn closed(balances: &LoanBalances) -> bool {
    balances.closed_by.is_some() || balances.settled
}

/// What `received`, arriving on `today` for the payment `asked`, does to the loan, without anyone deciding: the
/// amount asked is credited as the choice was priced (a payoff or cooling-off exit as quoted on its day, an
/// installment by the allocation rule and never beyond the payoff of its day), the day being the one it was priced
/// on while that price holds for the day its money was sent ([`Asked::priced_for`]); money for a loan that owes
/// nothing is refunded whole; any other amount, one the loan no longer prices the same, or an exit whose money was
/// sent after the cooling-off window, is held for finance.
pub fn settle(
    plan: &Plan,
    balances: &LoanBalances,
    asked: &Asked,
    received: Money,
    today: Date,
    caps: &CapTable,
) -> Result<Settlement> {
    if received.minor() <= 0 {
        return Err(Error::NegativeAmount);
    }
    if closed(balances) {
        return Ok(Settlement::RefundAll);
    }
    if received != asked.amount {
        return Ok(Settlement::Hold);
    }
    let on = asked.priced_for();
    let entry = match asked.choice {
        RepaymentChoice::Due => {
            return credit_due(plan, balances, received, on, asked.sent_on, today);
        }
        RepaymentChoice::Payoff => payoff(plan, balances, on).map(|s| s.entry),
        RepaymentChoice::CoolingOff if asked.sent_within_cooling_off(plan) => {
            cooling_off_settlement(plan, balances, on).map(|s| s.entry)
        }
        // Sent after the window: no longer an exit; finance decides.
        RepaymentChoice::CoolingOff => return Ok(Settlement::Hold),
        RepaymentChoice::Extension => match asked.installment {
            Some(number)
                if !asked.repayment_waiting
                    && asked
                        .extensions_before
                        .is_none_or(|n| n == balances.extensions_granted) =>
            {
                extend(plan, balances, number, on, caps).map(|(_, entry)| entry)
            }
            _ => return Ok(Settlement::Hold),
        },
    };
    Ok(match entry {
        Ok(entry) if entry.cash == received => Settlement::Credit {
            entry,
            refund: Money::ZERO,
        },
        _ => Settlement::Hold,
    })
}

/// `received` as a repayment: the payoff of `priced_for` (or of `sent_on`, whichever asks less) when it covers it,
/// the rest refunded; else allocated oldest installment first (late charges, fees, interest, principal), posted on
/// `today`.
fn credit_due(
    plan: &Plan,
    balances: &LoanBalances,
    received: Money,
    priced_for: Date,
    sent_on: Date,
    today: Date,
) -> Result<Settlement> {
    let sent_on = sent_on.min(today);
    let first = priced_for.min(sent_on);
    let days = if first == sent_on {
        vec![sent_on]
    } else {
        vec![first, sent_on]
    };
    let best = days
        .into_iter()
        .filter_map(|on| payoff(plan, balances, on).ok())
        .filter(|s| s.amount.minor() > 0)
        .min_by_key(|s| s.amount);
    if let Some(off) = best
        && received >= off.amount
    {
        let refund = received.checked_sub(off.amount)?;
        return Ok(Settlement::Credit {
            entry: with_excess(off.entry, received, refund),
            refund,
        });
    }
    let (entry, excess) = allocate_repayment(balances, received, today)?;
    Ok(Settlement::Credit {
        entry,
        refund: excess,
    })
}

/// `entry` recording all of `received` as cash in, `excess` of it beyond what the loan owed (to refund).
fn with_excess(entry: LedgerEntry, received: Money, excess: Money) -> LedgerEntry {
    LedgerEntry {
        cash: received,
        excess,
        ..entry
    }
}

/// Finance's decision to credit `received` for a held payment: a cooling-off exit when it was one, its money sent
/// within the window, and the amount covers it, else as a repayment ([`settle`]'s rule for `due`), the part beyond
/// the payoff refunded. Money for a loan that owes nothing is refunded whole.
pub fn credit_received(
    plan: &Plan,
    balances: &LoanBalances,
    asked: &Asked,
    received: Money,
    today: Date,
) -> Result<Settlement> {
    if received.minor() <= 0 {
        return Err(Error::NegativeAmount);
    }
    if closed(balances) {
        return Ok(Settlement::RefundAll);
    }
    let on = asked.priced_for();
    if asked.choice == RepaymentChoice::CoolingOff
        && asked.sent_within_cooling_off(plan)
        && let Ok(exit) = cooling_off_settlement(plan, balances, on)
        && received >= exit.amount
    {
        let refund = received.checked_sub(exit.amount)?;
        return Ok(Settlement::Credit {
            entry: with_excess(exit.entry, received, refund),
            refund,
        });
    }
    credit_due(plan, balances, received, on, asked.sent_on, today)
}

/// The installments a payment waiting for finance covers, frozen against late charges: `first..=last` of a `due`
/// payment, the one that moves for an extension, every installment for a payoff or a cooling-off exit.
pub fn frozen_installments(
    plan: &Plan,
    choice: RepaymentChoice,
    first: Option<u32>,
    last: Option<u32>,
) -> BTreeSet<u32> {
    match (choice, first) {
        (RepaymentChoice::Due | RepaymentChoice::Extension, Some(first)) => {
            (first..=last.unwrap_or(first).max(first)).collect()
        }
        _ => plan.quote.installments.iter().map(|i| i.number).collect(),
    }
}

/// `received` for the payment `asked` settled as `settle` says (the automatic [`settle`], or finance's
/// [`credit_received`], on the balances given), less the late charges it is owed a waiver of, which are returned as
/// reversals dated `today` to post just before the settlement's entry.
///
/// Money priced for a day pays what was owed that day. A late charge posted for a later day — while a provider
/// retried its callback, or before finance checked a UTR or credited a held amount — is for a day the borrower had
/// paid already: it is waived when the credit leaves its installment not overdue on that day (paid, or due on or
/// after it once an extension moved its date). Only charges on the installments the payment covers (`covered`,
/// [`frozen_installments`]), dated after [`Asked::priced_for`], not reversed and still unpaid (another payment may
/// have paid them), and not of nothing (a day counted, not charged); nothing for less money than was asked (what it
/// leaves unpaid is late) or for a loan that owes nothing. Should no consistent set be found, nothing is waived.
#[allow(clippy::too_many_arguments)]
pub fn settle_waiving_later_charges(
    plan: &Plan,
    entries: &[LedgerEntry],
    balances: &LoanBalances,
    asked: &Asked,
    covered: &BTreeSet<u32>,
    received: Money,
    today: Date,
    settle: impl Fn(&LoanBalances) -> Result<Settlement>,
) -> Result<(Vec<LedgerEntry>, Settlement)> {
    let plain = |settle: &dyn Fn(&LoanBalances) -> Result<Settlement>| {
        settle(balances).map(|outcome| (Vec::new(), outcome))
    };
    if received < asked.amount || closed(balances) {
        return plain(&settle);
    }
    let mut candidates = later_unpaid_charges(entries, balances, asked.priced_for(), covered);
    // Each round drops the charges the credit does not clear; a set it clears whole is the answer.
    for _ in 0..3 {
        if candidates.is_empty() {
            break;
        }
        let Ok(waived) = candidates
            .iter()
            .map(|(seq, _, _)| reversal(entries, *seq, today))
            .collect::<Result<Vec<_>>>()
        else {
            break;
        };
        let with: Vec<LedgerEntry> = entries.iter().chain(&waived).cloned().collect();
        let Ok(waived_balances) = crate::loan::replay(plan, &with) else {
            break;
        };
        let outcome = settle(&waived_balances)?;
        let Settlement::Credit { entry, .. } = &outcome else {
            break;
        };
        let mut after = with;
        after.push(entry.clone());
        let Ok(after) = crate::loan::replay(plan, &after) else {
            break;
        };
        let cleared = |installment: u32, day: Date| {
            after.installment(installment).is_some_and(|i| {
                day <= i.due_date
                    || i.outstanding
                        .without_late_charges()
                        .is_ok_and(|left| left.minor() == 0)
            })
        };
        let kept: Vec<(u64, u32, Date)> = candidates
            .iter()
            .copied()
            .filter(|(_, installment, day)| cleared(*installment, *day))
            .collect();
        if kept.len() == candidates.len() {
            return Ok((waived, outcome));
        }
        candidates = kept;
    }
    plain(&settle)
}

/// The `late_charge` entries dated after `on` on the `covered` installments, not reversed and not of nothing, that
/// their installment still owes (the newest first while its unpaid late charges cover them): `(seq, installment,
/// day charged)`.
fn later_unpaid_charges(
    entries: &[LedgerEntry],
    balances: &LoanBalances,
    on: Date,
    covered: &BTreeSet<u32>,
) -> Vec<(u64, u32, Date)> {
    let reversed: BTreeSet<u64> = entries.iter().filter_map(|e| e.reverses).collect();
    let mut unpaid: std::collections::BTreeMap<u32, Money> = balances
        .installments
        .iter()
        .filter(|i| covered.contains(&i.number))
        .filter_map(|i| {
            i.due
                .late_charges
                .checked_sub(i.paid.late_charges)
                .ok()
                .map(|m| (i.number, m))
        })
        .collect();
    let mut out = Vec::new();
    for (seq, e) in entries.iter().enumerate().rev() {
        let [line] = e.lines.as_slice() else { continue };
        let charge = line.due.late_charges;
        if e.kind != EntryKind::LateCharge
            || e.on <= on
            || charge.minor() <= 0
            || reversed.contains(&(seq as u64))
        {
            continue;
        }
        let Some(left) = unpaid.get_mut(&line.installment) else {
            continue;
        };
        if let Ok(rest) = left.checked_sub(charge)
            && !rest.is_negative()
        {
            *left = rest;
            out.push((seq as u64, line.installment, e.on));
        }
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calendar::add_days;
    use crate::loan::tests::{
        assert_holds, indian_plan, indonesian_plan, one_installment_indian, plan_of,
    };
    use crate::loan::{EntryKind, late_charges_due, replay};
    use crate::payment::{PaymentEvent, PaymentState};
    use proptest::prelude::*;

    fn caps() -> CapTable {
        CapTable::ojk_consumer()
    }

    fn balances(plan: &Plan, ledger: &[LedgerEntry]) -> LoanBalances {
        let b = replay(plan, ledger).unwrap();
        assert_holds(&b);
        b
    }

    fn asked(p: &Priced, on: Date) -> Asked {
        Asked {
            choice: p.choice,
            installment: p.installment,
            priced_on: on,
            amount: p.amount,
            sent_on: on,
            extensions_before: p.extensions_before,
            repayment_waiting: false,
        }
    }

    fn price_on(plan: &Plan, ledger: &[LedgerEntry], choice: RepaymentChoice, on: Date) -> Priced {
        price(plan, &balances(plan, ledger), choice, on, &caps(), false).unwrap()
    }

    #[test]
    fn paying_the_only_installment_early_costs_no_more_than_the_payoff_that_day() {
        for plan in [one_installment_indian(), indonesian_plan()] {
            let payout = plan.payout_date();
            let due_date = plan.quote.installments[0].due_date;
            for days in [0, 1, 10] {
                let on = add_days(payout, days).unwrap();
                assert!(on < due_date);
                let ledger = plan.opening_entries();
                let due = price_on(&plan, &ledger, RepaymentChoice::Due, on);
                let payoff = price_on(&plan, &ledger, RepaymentChoice::Payoff, on);
                assert_eq!(
                    due.amount, payoff.amount,
                    "{:?} day {days}",
                    plan.quote.market
                );
                assert!(due.amount < plan.quote.installments[0].amount);
                // Paying it closes the loan with the interest of the days used only.
                let b = balances(&plan, &ledger);
                let Settlement::Credit { entry, refund } =
                    settle(&plan, &b, &asked(&due, on), due.amount, on, &caps()).unwrap()
                else {
                    panic!("not credited")
                };
                assert_eq!(refund, Money::ZERO);
                let mut ledger = ledger.clone();
                ledger.push(entry);
                let after = balances(&plan, &ledger);
                assert!(after.settled || after.closed_by.is_some());
                assert!(after.paid.interest < plan.quote.installments[0].interest);
            }
        }
    }

    /// `asked` for money sent on `sent_on`.
    fn sent(p: &Priced, priced_on: Date, sent_on: Date) -> Asked {
        Asked {
            sent_on,
            ..asked(p, priced_on)
        }
    }

    #[test]
    fn a_price_holds_for_money_sent_within_two_days_and_an_old_one_never_forgives_the_days_used() {
        let plan = one_installment_indian();
        let payout = plan.payout_date();
        let ledger = plan.opening_entries();
        let b = balances(&plan, &ledger);
        let day = |n| add_days(payout, n).unwrap();
        for choice in [RepaymentChoice::Payoff, RepaymentChoice::Due] {
            // Priced on the payout day: the principal (and fees) with no interest for days not used.
            let quote = price_on(&plan, &ledger, choice, payout);
            // Sent within the days the price holds: credited as priced, the loan closed.
            let Settlement::Credit { entry, refund } = settle(
                &plan,
                &b,
                &sent(&quote, payout, day(QUOTE_HOLDS_DAYS)),
                quote.amount,
                day(QUOTE_HOLDS_DAYS),
                &caps(),
            )
            .unwrap() else {
                panic!("{choice:?} not credited")
            };
            assert_eq!((entry.kind, refund), (EntryKind::Payoff, Money::ZERO));
            // The same quote kept and paid ten days later: the ten days' interest is owed.
            let late = sent(&quote, payout, day(10));
            let outcome = settle(&plan, &b, &late, quote.amount, day(10), &caps()).unwrap();
            let credited = match (choice, outcome) {
                // A payoff no longer prices the same: finance decides, and its credit is a part payment.
                (RepaymentChoice::Payoff, Settlement::Hold) => {
                    credit_received(&plan, &b, &late, quote.amount, day(10)).unwrap()
                }
                // An installment's amount is credited by the allocation rule.
                (RepaymentChoice::Due, credited @ Settlement::Credit { .. }) => credited,
                (_, other) => panic!("{choice:?} sent late: {other:?}"),
            };
            let Settlement::Credit { entry, refund } = credited else {
                panic!("{choice:?} not credited by finance")
            };
            assert_eq!(
                (entry.kind, entry.cash, refund),
                (EntryKind::Repayment, quote.amount, Money::ZERO),
                "{choice:?}"
            );
            let mut after = ledger.clone();
            after.push(entry);
            let after = balances(&plan, &after);
            assert!(!after.settled && after.closed_by.is_none(), "{choice:?}");
            let owed = payoff(&plan, &after, day(10)).unwrap().amount;
            let ten_days = payoff(&plan, &b, day(10))
                .unwrap()
                .amount
                .checked_sub(quote.amount)
                .unwrap();
            assert!(ten_days.minor() > 0);
            assert_eq!(
                owed, ten_days,
                "{choice:?}: the ten days' interest is what is left"
            );
        }
    }

    #[test]
    fn a_cooling_off_exit_sent_after_the_window_is_held_and_finance_credits_it_as_a_repayment() {
        let plan = one_installment_indian();
        let payout = plan.payout_date();
        let ledger = plan.opening_entries();
        let b = balances(&plan, &ledger);
        let priced_on = add_days(payout, 1).unwrap();
        let exit = price_on(&plan, &ledger, RepaymentChoice::CoolingOff, priced_on);
        let last = add_days(payout, plan.quote.cooling_off_days).unwrap();
        // Sent on the window's last day: the exit as priced.
        let Settlement::Credit { entry, .. } = settle(
            &plan,
            &b,
            &sent(&exit, priced_on, last),
            exit.amount,
            last,
            &caps(),
        )
        .unwrap() else {
            panic!("not credited")
        };
        assert_eq!(entry.kind, EntryKind::CoolingOffExit);
        // The day after (within the days a price holds): no longer an exit.
        let after = add_days(last, 1).unwrap();
        let late = sent(&exit, priced_on, after);
        assert_eq!(
            settle(&plan, &b, &late, exit.amount, after, &caps()),
            Ok(Settlement::Hold)
        );
        let Settlement::Credit { entry, .. } =
            credit_received(&plan, &b, &late, exit.amount, after).unwrap()
        else {
            panic!("finance's credit refused")
        };
        assert_eq!(entry.kind, EntryKind::Repayment);
        assert_eq!(entry.cash, exit.amount);
        // Confirmed late, but sent within the window: still the exit.
        let Settlement::Credit { entry, .. } =
            credit_received(&plan, &b, &sent(&exit, priced_on, last), exit.amount, after).unwrap()
        else {
            panic!("finance's credit refused")
        };
        assert_eq!(entry.kind, EntryKind::CoolingOffExit);
    }

    /// The exit priced while a UTR for installment 1 waits, its money arriving after finance confirmed the UTR: held
    /// (it no longer asks the same), and finance's credit is the exit, counting the installment paid and refunding the
    /// difference. No fee is kept; nothing is paid twice.
    #[test]
    fn an_exit_priced_before_a_part_payment_was_credited_is_the_exit_with_the_difference_refunded()
    {
        let plan = indian_plan();
        let payout = plan.payout_date();
        let mut ledger = plan.opening_entries();
        let on = add_days(payout, 1).unwrap();
        let exit = price_on(&plan, &ledger, RepaymentChoice::CoolingOff, on);
        let b = balances(&plan, &ledger);
        let first = b.installments[0].outstanding.total().unwrap();
        let (pay, _) = crate::loan::allocate_repayment(&b, first, on).unwrap();
        ledger.push(pay);
        let b = balances(&plan, &ledger);
        assert_eq!(
            settle(&plan, &b, &asked(&exit, on), exit.amount, on, &caps()),
            Ok(Settlement::Hold)
        );
        let Settlement::Credit { entry, refund } =
            credit_received(&plan, &b, &asked(&exit, on), exit.amount, on).unwrap()
        else {
            panic!("finance's credit refused")
        };
        assert_eq!(entry.kind, EntryKind::CoolingOffExit);
        assert_eq!(refund, first);
        ledger.push(entry);
        let b = balances(&plan, &ledger);
        assert_eq!(b.closed_by, Some(EntryKind::CoolingOffExit));
        assert_eq!(b.fees_kept, Money::ZERO);
        assert_eq!(b.paid_in_all(), Ok(exit.amount));
    }

    #[test]
    fn an_installment_of_several_is_priced_as_scheduled_and_covers_every_reached_one() {
        let plan = indian_plan();
        let ledger = plan.opening_entries();
        let first = &plan.quote.installments[0];
        let due = price_on(&plan, &ledger, RepaymentChoice::Due, plan.payout_date());
        assert_eq!(due.amount, first.amount);
        assert_eq!((due.installment, due.installment_to), (Some(1), Some(1)));
        // Two due dates passed: one payment covers both, and both are frozen while it waits.
        let second = plan.quote.installments[1].due_date;
        let due = price_on(&plan, &ledger, RepaymentChoice::Due, second);
        assert_eq!((due.installment, due.installment_to), (Some(1), Some(2)));
        let frozen = frozen_installments(&plan, due.choice, due.installment, due.installment_to);
        assert_eq!(frozen.into_iter().collect::<Vec<_>>(), vec![1, 2]);
        let b = balances(&plan, &ledger);
        let next = add_days(second, 1).unwrap();
        let frozen = frozen_installments(&plan, due.choice, due.installment, due.installment_to);
        assert_eq!(
            late_charges_due(&plan, &b, &frozen, next, &caps()).unwrap(),
            vec![]
        );
    }

    #[test]
    fn money_for_a_loan_that_owes_nothing_is_refunded_whole() {
        let plan = one_installment_indian();
        let on = plan.payout_date();
        let mut ledger = plan.opening_entries();
        let due = price_on(&plan, &ledger, RepaymentChoice::Due, on);
        let b = balances(&plan, &ledger);
        // Two payments priced the same: the first closes the loan, the second is owed back.
        let Settlement::Credit { entry, .. } =
            settle(&plan, &b, &asked(&due, on), due.amount, on, &caps()).unwrap()
        else {
            panic!()
        };
        ledger.push(entry);
        let b = balances(&plan, &ledger);
        assert_eq!(
            settle(&plan, &b, &asked(&due, on), due.amount, on, &caps()),
            Ok(Settlement::RefundAll)
        );
        assert_eq!(
            credit_received(&plan, &b, &asked(&due, on), Money::from_minor(5), on),
            Ok(Settlement::RefundAll)
        );
    }

    #[test]
    fn another_amount_is_held_and_finance_credits_it_by_the_allocation_rule_or_up_to_the_payoff() {
        let plan = indian_plan();
        let on = plan.payout_date();
        let ledger = plan.opening_entries();
        let b = balances(&plan, &ledger);
        let due = price_on(&plan, &ledger, RepaymentChoice::Due, on);
        let less = due.amount.checked_sub(Money::from_major(100)).unwrap();
        assert_eq!(
            settle(&plan, &b, &asked(&due, on), less, on, &caps()),
            Ok(Settlement::Hold)
        );
        let Settlement::Credit { entry, refund } =
            credit_received(&plan, &b, &asked(&due, on), less, on).unwrap()
        else {
            panic!()
        };
        assert_eq!((entry.cash, refund), (less, Money::ZERO));
        // Far more than everything: the payoff of the day is credited (no interest for days not used), the rest
        // refunded.
        let payoff = price_on(&plan, &ledger, RepaymentChoice::Payoff, on);
        let lots = Money::from_major(50_000);
        let Settlement::Credit { entry, refund } =
            credit_received(&plan, &b, &asked(&due, on), lots, on).unwrap()
        else {
            panic!()
        };
        assert_eq!((entry.cash, entry.excess), (lots, refund));
        assert_eq!(refund, lots.checked_sub(payoff.amount).unwrap());
        let mut ledger = ledger.clone();
        ledger.push(entry);
        let after = balances(&plan, &ledger);
        assert!(after.settled || after.closed_by.is_some());
        assert_eq!(after.paid.interest, Money::ZERO);
    }

    #[test]
    fn money_sent_on_time_and_credited_days_later_pays_what_was_asked_without_the_charges_posted_since()
     {
        let plan = one_installment_indian();
        let due_date = plan.quote.installments[0].due_date;
        let day = |n: u32| add_days(due_date, n).unwrap();
        let mut ledger = plan.opening_entries();
        let charge = |ledger: &mut Vec<LedgerEntry>, on: Date| {
            let b = balances(&plan, ledger);
            ledger.extend(late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps()).unwrap());
        };
        charge(&mut ledger, day(1));
        charge(&mut ledger, day(2));
        // Priced and paid on the second day overdue; the money is reported two days later.
        let priced = price_on(&plan, &ledger, RepaymentChoice::Due, day(2));
        let paid = asked(&priced, day(2));
        charge(&mut ledger, day(3));
        charge(&mut ledger, day(4));
        let late = balances(&plan, &ledger);
        let covered =
            frozen_installments(&plan, priced.choice, priced.installment, priced.installment);
        // Without the waiver the money falls short of the loan as it stands: it stays open and charging.
        let Settlement::Credit { entry, .. } =
            settle(&plan, &late, &paid, priced.amount, day(4), &caps()).unwrap()
        else {
            panic!("credited")
        };
        let mut unwaived = ledger.clone();
        unwaived.push(entry);
        assert!(!balances(&plan, &unwaived).settled);

        let waive = |ledger: &[LedgerEntry], covered: &BTreeSet<u32>, received: Money| {
            let b = balances(&plan, ledger);
            settle_waiving_later_charges(&plan, ledger, &b, &paid, covered, received, day(4), |b| {
                settle(&plan, b, &paid, received, day(4), &caps())
            })
            .unwrap()
        };
        let (waived, outcome) = waive(&ledger, &covered, priced.amount);
        assert_eq!(waived.len(), 2, "the third and fourth days' charges");
        assert!(
            waived
                .iter()
                .all(|e| e.kind == EntryKind::Reversal && e.on == day(4))
        );
        let Settlement::Credit { entry, refund } = outcome else {
            panic!("credited")
        };
        assert_eq!(refund, Money::ZERO);
        let mut credited = ledger.clone();
        credited.extend(waived);
        credited.push(entry);
        let after = balances(&plan, &credited);
        assert!(after.settled || after.closed_by.is_some(), "{after:?}");
        assert_eq!(after.outstanding.total().unwrap(), Money::ZERO);
        // Nothing for less money than was asked, nor on an installment the payment does not cover.
        let short = priced.amount.checked_sub(Money::from_minor(1)).unwrap();
        assert!(waive(&ledger, &covered, short).0.is_empty());
        assert!(
            waive(&ledger, &BTreeSet::from([2]), priced.amount)
                .0
                .is_empty()
        );
        // Charges another payment has paid meanwhile are not waived (nor refused: nothing fails).
        let b = balances(&plan, &ledger);
        let (paid_charges, _) = allocate_repayment(&b, b.outstanding.late_charges, day(4)).unwrap();
        let mut other = ledger.clone();
        other.push(paid_charges);
        assert!(waive(&other, &covered, priced.amount).0.is_empty());
        // A loan another payment closed owes nothing: all of the money goes back, nothing is waived.
        let b = balances(&plan, &ledger);
        let mut closed = ledger.clone();
        closed.push(payoff(&plan, &b, day(4)).unwrap().entry);
        let (waived, outcome) = waive(&closed, &covered, priced.amount);
        assert!(waived.is_empty());
        assert_eq!(outcome, Settlement::RefundAll);
    }

    #[test]
    fn an_extension_paid_on_its_day_and_credited_later_waives_only_the_days_it_moved_past() {
        let plan = one_installment_indian();
        let due_date = plan.quote.installments[0].due_date;
        let day = |n: u32| add_days(due_date, n).unwrap();
        let mut ledger = plan.opening_entries();
        for n in 1..=2 {
            let b = balances(&plan, &ledger);
            ledger.extend(late_charges_due(&plan, &b, &BTreeSet::new(), day(n), &caps()).unwrap());
        }
        let priced = price_on(&plan, &ledger, RepaymentChoice::Extension, day(2));
        let new_due = priced.due_date.unwrap();
        let paid = asked(&priced, day(2));
        let covered =
            frozen_installments(&plan, priced.choice, priced.installment, priced.installment);
        // Charged every day until its money is credited, past the new due date too.
        let last = (new_due - due_date).whole_days() as u32 + 2;
        for n in 3..=last {
            let b = balances(&plan, &ledger);
            ledger.extend(late_charges_due(&plan, &b, &BTreeSet::new(), day(n), &caps()).unwrap());
        }
        let today = day(last);
        let b = balances(&plan, &ledger);
        // Sent on its day (within the price's hold), credited as the extension: the days up to the new due date are
        // waived, the two after it are not.
        let waive = |settle: &dyn Fn(&LoanBalances) -> Result<Settlement>| {
            settle_waiving_later_charges(
                &plan,
                &ledger,
                &b,
                &paid,
                &covered,
                priced.amount,
                today,
                settle,
            )
            .unwrap()
        };
        let (waived, outcome) = waive(&|b| settle(&plan, b, &paid, priced.amount, today, &caps()));
        assert!(
            matches!(outcome, Settlement::Credit { ref entry, .. } if entry.kind == EntryKind::ExtensionFee)
        );
        let days: Vec<Date> = waived
            .iter()
            .map(|w| ledger[w.reverses.unwrap() as usize].on)
            .collect();
        assert!(!days.is_empty());
        assert!(
            days.iter().all(|d| *d > day(2) && *d <= new_due),
            "{days:?} {new_due}"
        );
        // Finance crediting the same amount held: a repayment that clears nothing, so nothing is waived.
        let (waived, _) = waive(&|b| credit_received(&plan, b, &paid, priced.amount, today));
        assert!(waived.is_empty());
    }

    #[test]
    fn a_second_fee_for_the_same_extension_is_held_and_a_later_extension_is_granted() {
        let plan = indian_plan();
        let payout = plan.payout_date();
        let day = |n| add_days(payout, n).unwrap();
        let ledger = plan.opening_entries();
        // Two payments for the extension, priced the same day (two tabs, or UPI and a bank transfer).
        let one = price_on(&plan, &ledger, RepaymentChoice::Extension, day(3));
        let two = price_on(&plan, &ledger, RepaymentChoice::Extension, day(3));
        assert_eq!(one.extensions_before, Some(0));
        let b = balances(&plan, &ledger);
        let Settlement::Credit { entry, .. } =
            settle(&plan, &b, &asked(&one, day(3)), one.amount, day(3), &caps()).unwrap()
        else {
            panic!("the first fee buys the extension")
        };
        let mut ledger = ledger.clone();
        ledger.push(entry);
        let extended = balances(&plan, &ledger);
        assert_eq!(extended.extensions_granted, 1);
        // The second buys nothing more: held for finance, never a second extension the borrower did not ask for.
        assert_eq!(
            settle(
                &plan,
                &extended,
                &asked(&two, day(3)),
                two.amount,
                day(4),
                &caps()
            )
            .unwrap(),
            Settlement::Hold
        );
        // Finance credits it: a repayment of the installment, not an extension.
        let Settlement::Credit { entry, .. } =
            credit_received(&plan, &extended, &asked(&two, day(3)), two.amount, day(4)).unwrap()
        else {
            panic!("credited")
        };
        assert_ne!(entry.kind, EntryKind::ExtensionFee);
        // A second extension priced once the first was granted is the borrower's choice, and granted.
        let again = price_on(&plan, &ledger, RepaymentChoice::Extension, day(5));
        assert_eq!(again.extensions_before, Some(1));
        let Settlement::Credit { entry, .. } = settle(
            &plan,
            &extended,
            &asked(&again, day(5)),
            again.amount,
            day(5),
            &caps(),
        )
        .unwrap() else {
            panic!("a later extension is granted")
        };
        assert_eq!(entry.kind, EntryKind::ExtensionFee);
        // Not while a repayment of the loan waits for finance: its money may have paid the installment.
        let waiting = Asked {
            repayment_waiting: true,
            ..asked(&again, day(5))
        };
        assert_eq!(
            settle(&plan, &extended, &waiting, again.amount, day(5), &caps()).unwrap(),
            Settlement::Hold
        );
        // A payment stored before the count was kept settles as before.
        let legacy = Asked {
            extensions_before: None,
            ..asked(&two, day(3))
        };
        assert!(matches!(
            settle(&plan, &extended, &legacy, two.amount, day(4), &caps()).unwrap(),
            Settlement::Credit { .. }
        ));
    }

    #[test]
    fn indonesian_amounts_asked_stay_whole_rupiah_however_late() {
        // Rp 1,300,000 + Rp 27,300 interest overdue: its 0.1 % a day (Rp 1,327.30) is not whole rupiah.
        let plan = plan_of(
            &crate::quote::tests::indonesian(7, 100),
            Money::from_major(1_300_000),
            "30d",
        );
        let mut ledger = plan.opening_entries();
        let due_date = plan.quote.installments[0].due_date;
        for d in 0..400 {
            let on = add_days(due_date, d).unwrap();
            let b = balances(&plan, &ledger);
            ledger.extend(late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps()).unwrap());
            let b = balances(&plan, &ledger);
            for choice in [RepaymentChoice::Due, RepaymentChoice::Payoff] {
                let p = price(&plan, &b, choice, on, &caps(), true).unwrap();
                assert_eq!(
                    p.amount.minor() % 100,
                    0,
                    "{choice:?} on day {d}: {}",
                    p.amount.minor()
                );
            }
        }
        // Before the due date too: the payoff's interest for the days used.
        let ledger = plan.opening_entries();
        for d in 0..30 {
            let on = add_days(plan.payout_date(), d).unwrap();
            let p = price_on(&plan, &ledger, RepaymentChoice::Payoff, on);
            assert_eq!(p.amount.minor() % 100, 0, "payoff on day {d}");
            let b = balances(&plan, &ledger);
            if let Ok(exit) = cooling_off_settlement(&plan, &b, on) {
                assert_eq!(exit.amount.minor() % 100, 0, "cooling-off on day {d}");
            }
        }
    }

    /// One step of the money's life in the property test below.
    #[derive(Debug, Clone)]
    enum Step {
        /// The borrower starts a payment of this choice, priced that day.
        Create(u8),
        /// Money arrives for payment `n % len`: the amount asked, or that amount plus `delta` (a wrong amount).
        Receive(usize, i64),
        /// Finance credits held payment `n % len`, or refunds it.
        Decide(usize, bool),
        /// Finance records the refund of payment `n % len`.
        Refund(usize),
        /// A day passes and the overdue job runs.
        Day,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0u8..4).prop_map(Step::Create),
            (0usize..8, prop_oneof![Just(0i64), -50_000i64..50_000])
                .prop_map(|(n, d)| Step::Receive(n, d)),
            (0usize..8, any::<bool>()).prop_map(|(n, c)| Step::Decide(n, c)),
            (0usize..8).prop_map(Step::Refund),
            Just(Step::Day),
        ]
    }

    struct Payment {
        asked: Asked,
        state: PaymentState,
        received: Money,
        credited: Money,
        refund: Money,
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// Any sequence of payment events keeps the replayed ledger whole, credits each payment at most once, and
        /// accounts for every amount received: credited, held for finance, or owed back.
        #[test]
        fn no_sequence_of_payment_events_credits_twice_or_loses_money(
            steps in prop::collection::vec(step(), 1..40),
            indonesia in any::<bool>(),
        ) {
            let plan = if indonesia { indonesian_plan() } else { indian_plan() };
            let mut ledger = plan.opening_entries();
            let mut today = plan.payout_date();
            let mut payments: Vec<Payment> = Vec::new();
            for step in steps {
                let b = replay(&plan, &ledger).unwrap();
                match step {
                    Step::Create(c) => {
                        let choice = RepaymentChoice::ALL[usize::from(c) % 4];
                        if let Ok(p) = price(&plan, &b, choice, today, &caps(), b.is_overdue(today)) {
                            prop_assert!(p.amount.minor() > 0);
                            prop_assert_eq!(p.amount.minor() % plan.quote.market.asked_unit(), 0);
                            payments.push(Payment {
                                asked: asked(&p, today),
                                state: PaymentState::Pending,
                                received: Money::ZERO,
                                credited: Money::ZERO,
                                refund: Money::ZERO,
                            });
                        }
                    }
                    Step::Receive(n, delta) if !payments.is_empty() => {
                        let k = n % payments.len();
                        let p = &mut payments[k];
                        let amount = Money::from_minor((p.asked.amount.minor() + delta * plan.quote.market.asked_unit()).max(100));
                        if !p.state.awaits_money() {
                            continue;
                        }
                        // The server's `sent_on`: the money was reported today.
                        p.asked.sent_on = today;
                        let outcome = settle(&plan, &b, &p.asked, amount, today, &caps()).unwrap();
                        p.received = amount;
                        match outcome {
                            Settlement::Credit { entry, refund } => {
                                let event = if refund.minor() == 0 { PaymentEvent::Credit } else { PaymentEvent::CreditWithExcess };
                                p.state = p.state.apply(event).unwrap();
                                p.credited = entry.cash.checked_sub(entry.excess).unwrap();
                                p.refund = refund;
                                prop_assert_eq!(entry.cash, amount);
                                ledger.push(entry);
                            }
                            Settlement::Hold => p.state = p.state.apply(PaymentEvent::Hold).unwrap(),
                            Settlement::RefundAll => {
                                p.state = p.state.apply(PaymentEvent::RefundAll).unwrap();
                                p.refund = amount;
                            }
                        }
                    }
                    Step::Decide(n, credit) if !payments.is_empty() => {
                        let k = n % payments.len();
                        let p = &mut payments[k];
                        if p.state != PaymentState::Held {
                            continue;
                        }
                        let outcome = if credit {
                            credit_received(&plan, &b, &p.asked, p.received, today).unwrap()
                        } else {
                            Settlement::RefundAll
                        };
                        match outcome {
                            Settlement::Credit { entry, refund } => {
                                let event = if refund.minor() == 0 { PaymentEvent::Credit } else { PaymentEvent::CreditWithExcess };
                                p.state = p.state.apply(event).unwrap();
                                p.credited = entry.cash.checked_sub(entry.excess).unwrap();
                                p.refund = refund;
                                ledger.push(entry);
                            }
                            Settlement::Hold => prop_assert!(false, "finance's credit never holds"),
                            Settlement::RefundAll => {
                                p.state = p.state.apply(PaymentEvent::RefundAll).unwrap();
                                p.refund = p.received;
                            }
                        }
                    }
                    Step::Refund(n) if !payments.is_empty() => {
                        let k = n % payments.len();
                        let p = &mut payments[k];
                        if let Ok(next) = p.state.apply(PaymentEvent::RecordRefund) {
                            p.state = next;
                        }
                    }
                    Step::Day => {
                        today = add_days(today, 1).unwrap();
                        let frozen: BTreeSet<u32> = payments
                            .iter()
                            .filter(|p| p.state.waits_for_finance() && p.state != PaymentState::RefundDue)
                            .flat_map(|p| frozen_installments(&plan, p.asked.choice, p.asked.installment, p.asked.installment))
                            .collect();
                        ledger.extend(late_charges_due(&plan, &b, &frozen, today, &caps()).unwrap());
                    }
                    _ => {}
                }
                let b = replay(&plan, &ledger).unwrap();
                assert_holds(&b);
                // Every amount received is credited, held, or owed back, exactly once.
                let received: i64 = payments.iter().map(|p| p.received.minor()).sum();
                let accounted: i64 = payments
                    .iter()
                    .map(|p| match p.state {
                        PaymentState::Held => p.received.minor(),
                        _ => p.credited.minor() + p.refund.minor(),
                    })
                    .sum();
                prop_assert_eq!(received, accounted);
                let credited: i64 = payments.iter().map(|p| p.credited.minor()).sum();
                prop_assert_eq!(b.cash_in.checked_sub(b.excess).unwrap().minor(), credited);
            }
        }
    }
}
