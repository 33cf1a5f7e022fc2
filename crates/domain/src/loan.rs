//! A loan's life after payout as an append-only ledger: the accepted schedule moved to the payout date, the
//! entries, and their replay to balances; and, as entries to append, repayments split by the allocation rule,
//! the overdue job's late charges, the payoff and cooling-off settlements, and paid extensions.
//! See `docs/MONEY.md` §9.

use crate::calendar::days_between;
use crate::caps::CapTable;
use crate::error::{Error, Result};
use crate::kfs::KeyFactStatement;
use crate::money::{Market, Money, div_round_half_up};
use crate::product::{Period, Term};
use crate::quote::Quote;
use crate::rate::RATE_SCALE;
use crate::schedule::{Installment, due_date};
use crate::servicing::{ExtensionQuote, Outstanding, allocate, cooling_off_exit, price_extension};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use time::Date;

/// The prepayment rule in one sentence, for the KFS and the borrower's payoff screen (see [`payoff`]).
pub const PREPAYMENT_RULE: &str = "You may repay the whole loan at any time without a prepayment charge: \
you pay the outstanding principal, fees and late charges, the interest of every installment already due, \
and for the installment whose period is running only the interest for the days used; \
installments whose period has not started carry no interest, and interest paid in advance for days not used \
is credited.";

/// The schedule of the accepted KFS moved to the payout date: the same installments and amounts, each due date
/// recomputed from `payout` with the same period ([`due_date`]), so the APR, which counts periods, is unchanged.
pub fn move_schedule(
    schedule: &[Installment],
    period: Period,
    payout: Date,
) -> Result<Vec<Installment>> {
    schedule
        .iter()
        .map(|i| {
            Ok(Installment {
                due_date: due_date(payout, period, i.number)?,
                ..i.clone()
            })
        })
        .collect()
}

/// A loan's terms from payout on: the accepted quote with its schedule moved to the payout date.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The accepted quote; `disbursalDate` is the payout date and `installments` the moved schedule.
    pub quote: Quote,
}

impl Plan {
    /// The plan of the accepted `quote` paid out on `payout`.
    pub fn at_payout(accepted: &Quote, payout: Date) -> Result<Plan> {
        let numbered = accepted
            .installments
            .iter()
            .zip(1u32..)
            .all(|(i, n)| i.number == n);
        if accepted.installments.is_empty() || !numbered {
            return Err(Error::EmptyLoan);
        }
        let mut quote = accepted.clone();
        quote.installments = move_schedule(&accepted.installments, accepted.term.period, payout)?;
        quote.disbursal_date = payout;
        Ok(Plan { quote })
    }

    /// The plan of an accepted KFS (which names its term but not the term's `period`) paid out on `payout`.
    pub fn from_kfs(kfs: &KeyFactStatement, period: Period, payout: Date) -> Result<Plan> {
        let installments = u32::try_from(kfs.installments.len()).map_err(|_| Error::Overflow)?;
        let quote = Quote {
            product_code: kfs.product_code.clone(),
            product_name: kfs.product_name.clone(),
            market: kfs.market,
            currency: kfs.currency,
            term: Term {
                code: kfs.term_code.clone(),
                period,
                installments,
            },
            interest: kfs.interest,
            principal: kfs.sanctioned_amount,
            disbursal_date: kfs.disbursal_date,
            fees: kfs.fees.clone(),
            total_fees: kfs.total_fees,
            fees_deducted_at_disbursal: kfs.fees_deducted_at_disbursal,
            net_disbursed: kfs.net_disbursed,
            total_interest: kfs.total_interest,
            total_repayable: kfs.total_repayable,
            installments: kfs.installments.clone(),
            apr: kfs.apr,
            late_charge: kfs.late_charge,
            max_late_charges: kfs.max_late_charges,
            cooling_off_days: kfs.cooling_off_days,
            extension: kfs.extension,
        };
        Plan::at_payout(&quote, payout)
    }

    /// The day the loan was paid out.
    pub fn payout_date(&self) -> Date {
        self.quote.disbursal_date
    }

    /// The entries the payout posts, in order: `payout`, `fee_deducted` (when fees are kept from the payout) and one
    /// `scheduled` per installment.
    pub fn opening_entries(&self) -> Vec<LedgerEntry> {
        let q = &self.quote;
        let on = q.disbursal_date;
        let mut out = vec![LedgerEntry {
            cash: q.net_disbursed,
            ..LedgerEntry::new(EntryKind::Payout, on)
        }];
        if q.fees_deducted_at_disbursal && q.total_fees.minor() > 0 {
            out.push(LedgerEntry {
                cash: q.total_fees,
                ..LedgerEntry::new(EntryKind::FeeDeducted, on)
            });
        }
        for i in &q.installments {
            out.push(LedgerEntry {
                lines: vec![Line {
                    installment: i.number,
                    due: Buckets::scheduled(i),
                    paid: Buckets::default(),
                }],
                ..LedgerEntry::new(EntryKind::Scheduled, on)
            });
        }
        out
    }

    fn installment(&self, number: u32) -> Option<&Installment> {
        self.quote.installments.iter().find(|i| i.number == number)
    }
}

/// An amount per bucket of what a borrower owes; the allocation pays them in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Buckets {
    /// Late charges.
    #[serde(default)]
    pub late_charges: Money,
    /// Fees with tax, including extension fees.
    #[serde(default)]
    pub fees: Money,
    /// Interest.
    #[serde(default)]
    pub interest: Money,
    /// Principal.
    #[serde(default)]
    pub principal: Money,
}

impl Buckets {
    fn scheduled(i: &Installment) -> Buckets {
        Buckets {
            late_charges: Money::ZERO,
            fees: i.fees,
            interest: i.interest,
            principal: i.principal,
        }
    }

    fn parts(self) -> [Money; 4] {
        [self.late_charges, self.fees, self.interest, self.principal]
    }

    fn zip(self, other: Buckets, f: impl Fn(Money, Money) -> Result<Money>) -> Result<Buckets> {
        Ok(Buckets {
            late_charges: f(self.late_charges, other.late_charges)?,
            fees: f(self.fees, other.fees)?,
            interest: f(self.interest, other.interest)?,
            principal: f(self.principal, other.principal)?,
        })
    }

    /// Bucket by bucket sum.
    pub fn plus(self, other: Buckets) -> Result<Buckets> {
        self.zip(other, Money::checked_add)
    }

    /// Bucket by bucket difference.
    pub fn minus(self, other: Buckets) -> Result<Buckets> {
        self.zip(other, Money::checked_sub)
    }

    fn negated(self) -> Result<Buckets> {
        Buckets::default().minus(self)
    }

    /// The sum of the buckets.
    pub fn total(self) -> Result<Money> {
        Money::sum(&self.parts())
    }

    /// True when every bucket is zero.
    pub fn is_zero(self) -> bool {
        self.parts().iter().all(|m| m.minor() == 0)
    }

    fn has_negative(self) -> bool {
        self.parts().iter().any(|m| m.is_negative())
    }

    /// Principal, interest and fees: what an installment owes apart from late charges, the base of a late charge.
    fn without_late_charges(self) -> Result<Money> {
        Money::sum(&[self.fees, self.interest, self.principal])
    }
}

impl From<Buckets> for Outstanding {
    fn from(b: Buckets) -> Outstanding {
        Outstanding {
            fees: b.fees,
            late_charges: b.late_charges,
            interest: b.interest,
            principal: b.principal,
        }
    }
}

impl From<Outstanding> for Buckets {
    fn from(o: Outstanding) -> Buckets {
        Buckets {
            late_charges: o.late_charges,
            fees: o.fees,
            interest: o.interest,
            principal: o.principal,
        }
    }
}

/// What a ledger entry records; stored as its snake_case [`Code`](crate::Code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// The net amount sent to the borrower (`cash`); always entry 0.
    Payout,
    /// Fees kept from the payout (`cash`), when the product deducts them.
    FeeDeducted,
    /// What one installment owes at payout: principal, interest and fees, as `due`.
    Scheduled,
    /// One day's late charge on one installment, as `due.lateCharges`.
    LateCharge,
    /// A paid extension of one installment: its fee is due and paid at once (`cash`), and the due dates move.
    ExtensionFee,
    /// Cash received (`cash`), split per installment and bucket as `paid`, with any `excess` to refund.
    Repayment,
    /// The cooling-off exit: principal and interest for the days used paid, every other charge waived, deducted
    /// fees credited back (`refunded`, netted from `cash`). Closes the loan.
    CoolingOffExit,
    /// Early settlement under [`PREPAYMENT_RULE`]: interest not yet earned waived, everything else paid. Closes the
    /// loan.
    Payoff,
    /// The exact negation of one earlier entry (`reverses`): corrections are reversals, never edits.
    Reversal,
}

impl crate::codes::Code for EntryKind {
    const ALL: &'static [Self] = &[
        EntryKind::Payout,
        EntryKind::FeeDeducted,
        EntryKind::Scheduled,
        EntryKind::LateCharge,
        EntryKind::ExtensionFee,
        EntryKind::Repayment,
        EntryKind::CoolingOffExit,
        EntryKind::Payoff,
        EntryKind::Reversal,
    ];

    fn code(self) -> &'static str {
        match self {
            EntryKind::Payout => "payout",
            EntryKind::FeeDeducted => "fee_deducted",
            EntryKind::Scheduled => "scheduled",
            EntryKind::LateCharge => "late_charge",
            EntryKind::ExtensionFee => "extension_fee",
            EntryKind::Repayment => "repayment",
            EntryKind::CoolingOffExit => "cooling_off_exit",
            EntryKind::Payoff => "payoff",
            EntryKind::Reversal => "reversal",
        }
    }
}
crate::string_codec!(EntryKind);

impl EntryKind {
    /// True for kinds whose `cash` comes from the borrower.
    fn receives_cash(self) -> bool {
        matches!(
            self,
            EntryKind::Repayment
                | EntryKind::ExtensionFee
                | EntryKind::CoolingOffExit
                | EntryKind::Payoff
        )
    }

    fn closes(self) -> bool {
        matches!(self, EntryKind::CoolingOffExit | EntryKind::Payoff)
    }
}

/// One installment's part of an entry: what it adds to the installment's `due` and to its `paid`, per bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Line {
    /// Installment number (1-based).
    pub installment: u32,
    /// Added to what the installment owes (negative for a waiver or a reversal).
    #[serde(default)]
    pub due: Buckets,
    /// Added to what the installment has been paid (negative only in a reversal).
    #[serde(default)]
    pub paid: Buckets,
}

/// One append-only ledger entry of an order. Its identity is its sequence number in the order's ledger (0 is the
/// payout), which [`Reversal`](EntryKind::Reversal) entries name in `reverses`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    /// What happened.
    pub kind: EntryKind,
    /// Business date it happened on.
    pub on: Date,
    /// Cash that moved: sent for `payout`, kept for `fee_deducted`, received for repayments, extension fees and
    /// settlements; zero for `scheduled` and `late_charge`; negated in a reversal.
    #[serde(default)]
    pub cash: Money,
    /// Part of the cash received beyond what was owed, to be refunded; never credited to later installments.
    #[serde(default)]
    pub excess: Money,
    /// Fees kept at payout credited back and netted from `cash` (cooling-off exit only).
    #[serde(default)]
    pub refunded: Money,
    /// Per-installment effects; for cash received, `cash + refunded = Σ paid + excess`.
    #[serde(default)]
    pub lines: Vec<Line>,
    /// The sequence number of the entry a reversal negates.
    #[serde(default)]
    pub reverses: Option<u64>,
}

impl LedgerEntry {
    fn new(kind: EntryKind, on: Date) -> LedgerEntry {
        LedgerEntry {
            kind,
            on,
            cash: Money::ZERO,
            excess: Money::ZERO,
            refunded: Money::ZERO,
            lines: Vec::new(),
            reverses: None,
        }
    }

    fn paid_total(&self) -> Result<Money> {
        self.lines
            .iter()
            .try_fold(Money::ZERO, |acc, l| acc.checked_add(l.paid.total()?))
    }
}

/// The reversal of entry `seq` of `entries`, dated `on`: its exact negation. [`replay`] refuses it if the entry
/// cannot be reversed (the payout and schedule, a reversal, an entry reversed already).
pub fn reversal(entries: &[LedgerEntry], seq: u64, on: Date) -> Result<LedgerEntry> {
    let target = usize::try_from(seq)
        .ok()
        .and_then(|i| entries.get(i))
        .ok_or_else(|| invalid(entries.len() as u64, format!("no entry {seq} to reverse")))?;
    let lines = target
        .lines
        .iter()
        .map(|l| {
            Ok(Line {
                installment: l.installment,
                due: l.due.negated()?,
                paid: l.paid.negated()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(LedgerEntry {
        kind: EntryKind::Reversal,
        on,
        cash: Money::ZERO.checked_sub(target.cash)?,
        excess: Money::ZERO.checked_sub(target.excess)?,
        refunded: Money::ZERO.checked_sub(target.refunded)?,
        lines,
        reverses: Some(seq),
    })
}

fn invalid(entry: u64, reason: impl Into<String>) -> Error {
    Error::InvalidEntry {
        entry,
        reason: reason.into(),
    }
}

/// Where an installment stands on a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstallmentStatus {
    /// Not yet due.
    Upcoming,
    /// Due today.
    Due,
    /// Past its due date with something outstanding.
    Overdue,
    /// Nothing outstanding.
    Paid,
}

impl crate::codes::Code for InstallmentStatus {
    const ALL: &'static [Self] = &[
        InstallmentStatus::Upcoming,
        InstallmentStatus::Due,
        InstallmentStatus::Overdue,
        InstallmentStatus::Paid,
    ];

    fn code(self) -> &'static str {
        match self {
            InstallmentStatus::Upcoming => "upcoming",
            InstallmentStatus::Due => "due",
            InstallmentStatus::Overdue => "overdue",
            InstallmentStatus::Paid => "paid",
        }
    }
}
crate::string_codec!(InstallmentStatus);

/// One installment's balances after replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallmentBalance {
    /// 1-based number.
    pub number: u32,
    /// Due date now, after extensions.
    pub due_date: Date,
    /// Due date of the plan at payout.
    pub planned_due_date: Date,
    /// True once its `scheduled` entry is posted.
    pub scheduled: bool,
    /// Everything it has owed, per bucket.
    pub due: Buckets,
    /// Everything paid towards it, per bucket.
    pub paid: Buckets,
    /// `due − paid`, never negative.
    pub outstanding: Buckets,
    /// Overdue days charged so far (a reversed charge still counts, so a waived day is not charged again).
    pub late_charge_days: u32,
    /// The last day a late charge was posted.
    pub last_late_charge_on: Option<Date>,
}

impl InstallmentBalance {
    /// Its status on `on` (`upcoming` until its `scheduled` entry is posted, since it owes nothing yet).
    pub fn status(&self, on: Date) -> InstallmentStatus {
        if self.scheduled && self.outstanding.is_zero() {
            InstallmentStatus::Paid
        } else if !self.scheduled || on < self.due_date {
            InstallmentStatus::Upcoming
        } else if on == self.due_date {
            InstallmentStatus::Due
        } else {
            InstallmentStatus::Overdue
        }
    }
}

/// A loan's balances: the replay of its ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoanBalances {
    /// Entries replayed; the sequence number the next entry takes.
    pub entries: u64,
    /// Sanctioned principal.
    pub principal: Money,
    /// Net amount sent at payout (zero before it).
    pub paid_out: Money,
    /// Fees kept from the payout, less any credited back.
    pub fees_kept: Money,
    /// Per installment, in order.
    pub installments: Vec<InstallmentBalance>,
    /// Sum of the installments' `due`.
    pub due: Buckets,
    /// Sum of the installments' `paid`.
    pub paid: Buckets,
    /// Sum of the installments' `outstanding`.
    pub outstanding: Buckets,
    /// Paid extensions in force.
    pub extensions_granted: u32,
    /// Their fees.
    pub extension_fees: Money,
    /// Cash received from the borrower.
    pub cash_in: Money,
    /// Cash received beyond what was owed, to refund.
    pub excess: Money,
    /// Fees credited back and netted from a settlement.
    pub refunded: Money,
    /// The settlement that closed the loan, if one did: `cooling_off_exit` or `payoff`.
    pub closed_by: Option<EntryKind>,
    /// Paid out, fully scheduled, and nothing outstanding.
    pub settled: bool,
}

impl LoanBalances {
    /// Each installment's status on `on`.
    pub fn statuses(&self, on: Date) -> Vec<(u32, InstallmentStatus)> {
        self.installments
            .iter()
            .map(|i| (i.number, i.status(on)))
            .collect()
    }

    /// True when some installment is overdue on `on`: the order's `fall_overdue` (or, once none is, `catch_up`).
    pub fn is_overdue(&self, on: Date) -> bool {
        self.installments
            .iter()
            .any(|i| i.status(on) == InstallmentStatus::Overdue)
    }

    /// The schedule as the borrower sees it now: the plan's amounts on the current due dates.
    pub fn schedule(&self, plan: &Plan) -> Vec<Installment> {
        plan.quote
            .installments
            .iter()
            .zip(&self.installments)
            .map(|(i, b)| Installment {
                due_date: b.due_date,
                ..i.clone()
            })
            .collect()
    }

    /// Every cost charged so far (fees kept, interest, fees and extension fees, late charges): what OJK's total cap
    /// measures.
    pub fn cost(&self) -> Result<Money> {
        Money::sum(&[
            self.fees_kept,
            self.due.interest,
            self.due.fees,
            self.due.late_charges,
        ])
    }

    fn installment_mut(&mut self, number: u32) -> Option<&mut InstallmentBalance> {
        self.installments.iter_mut().find(|i| i.number == number)
    }

    fn installment(&self, number: u32) -> Option<&InstallmentBalance> {
        self.installments.iter().find(|i| i.number == number)
    }
}

/// Replays `entries` (the order's whole ledger, in sequence) over `plan` to the balances, refusing any entry that
/// does not fit: an unknown installment, a payment above what is owed, a reversal that is not the exact negation
/// of an entry that may be reversed and has not been, a schedule that is not the plan's.
pub fn replay(plan: &Plan, entries: &[LedgerEntry]) -> Result<LoanBalances> {
    let q = &plan.quote;
    let mut b = LoanBalances {
        entries: 0,
        principal: q.principal,
        paid_out: Money::ZERO,
        fees_kept: Money::ZERO,
        installments: q
            .installments
            .iter()
            .map(|i| InstallmentBalance {
                number: i.number,
                due_date: i.due_date,
                planned_due_date: i.due_date,
                scheduled: false,
                due: Buckets::default(),
                paid: Buckets::default(),
                outstanding: Buckets::default(),
                late_charge_days: 0,
                last_late_charge_on: None,
            })
            .collect(),
        due: Buckets::default(),
        paid: Buckets::default(),
        outstanding: Buckets::default(),
        extensions_granted: 0,
        extension_fees: Money::ZERO,
        cash_in: Money::ZERO,
        excess: Money::ZERO,
        refunded: Money::ZERO,
        closed_by: None,
        settled: false,
    };
    let mut reversed = vec![false; entries.len()];
    let mut fee_deducted = false;
    for index in 0..entries.len() {
        let seq = index as u64;
        apply(
            plan,
            &mut b,
            entries,
            index,
            &mut reversed,
            &mut fee_deducted,
        )
        .map_err(|e| match e {
            Error::InvalidEntry { .. } => e,
            other => invalid(seq, other.to_string()),
        })?;
        b.entries = seq + 1;
    }
    let mut due = Buckets::default();
    let mut paid = Buckets::default();
    for i in &b.installments {
        due = due.plus(i.due)?;
        paid = paid.plus(i.paid)?;
    }
    b.due = due;
    b.paid = paid;
    b.outstanding = due.minus(paid)?;
    b.settled = b.paid_out.minor() > 0
        && b.installments.iter().all(|i| i.scheduled)
        && b.outstanding.is_zero();
    Ok(b)
}

fn apply(
    plan: &Plan,
    b: &mut LoanBalances,
    entries: &[LedgerEntry],
    index: usize,
    reversed: &mut [bool],
    fee_deducted: &mut bool,
) -> Result<()> {
    let q = &plan.quote;
    let e = &entries[index];
    let seq = index as u64;
    let bad = |reason: &str| invalid(seq, reason);
    if (e.kind == EntryKind::Reversal) != e.reverses.is_some() {
        return Err(bad("only a reversal names the entry it reverses"));
    }
    if index == 0 && e.kind != EntryKind::Payout {
        return Err(bad("the ledger starts with the payout"));
    }
    if e.on < q.disbursal_date {
        return Err(bad("dated before the payout"));
    }
    let mut numbers = BTreeSet::new();
    for line in &e.lines {
        if plan.installment(line.installment).is_none() {
            return Err(bad(&format!("no installment {}", line.installment)));
        }
        if !numbers.insert(line.installment) {
            return Err(bad("an installment appears twice in one entry"));
        }
    }
    if e.kind != EntryKind::Reversal {
        // A payoff credits interest paid in advance for days not used: its paid interest, and its cash when the
        // credit is larger than what is left to pay, may be negative.
        let credits = e.kind == EntryKind::Payoff;
        if [e.excess, e.refunded].iter().any(|m| m.is_negative())
            || (!credits && e.cash.is_negative())
        {
            return Err(bad("negative amount"));
        }
        let may_waive = e.kind.closes();
        let negative_paid = |p: Buckets| {
            let p = if credits {
                Buckets {
                    interest: Money::ZERO,
                    ..p
                }
            } else {
                p
            };
            p.has_negative()
        };
        if e.lines
            .iter()
            .any(|l| negative_paid(l.paid) || (!may_waive && l.due.has_negative()))
        {
            return Err(bad("negative amount"));
        }
        if e.kind != EntryKind::Scheduled
            && e.kind != EntryKind::Payout
            && e.kind != EntryKind::FeeDeducted
        {
            for n in &numbers {
                if !b.installment(*n).is_some_and(|i| i.scheduled) {
                    return Err(bad(&format!("installment {n} is not scheduled")));
                }
            }
        }
    }
    let one_line = || -> Result<Line> {
        match e.lines.as_slice() {
            [line] => Ok(*line),
            _ => Err(bad("needs exactly one installment line")),
        }
    };
    match e.kind {
        EntryKind::Payout => {
            if index != 0 || !e.lines.is_empty() || e.cash != q.net_disbursed {
                return Err(bad(
                    "the payout is entry 0 and sends the net amount of the plan",
                ));
            }
            b.paid_out = e.cash;
        }
        EntryKind::FeeDeducted => {
            if *fee_deducted
                || !q.fees_deducted_at_disbursal
                || !e.lines.is_empty()
                || e.cash != q.total_fees
            {
                return Err(bad("fees are kept once, as the plan deducts them"));
            }
            *fee_deducted = true;
            b.fees_kept = e.cash;
        }
        EntryKind::Scheduled => {
            for line in &e.lines {
                let planned = plan
                    .installment(line.installment)
                    .map(Buckets::scheduled)
                    .unwrap_or_default();
                let inst = b.installment_mut(line.installment).expect("checked above");
                if inst.scheduled || line.due != planned || !line.paid.is_zero() {
                    return Err(bad("each installment is scheduled once, as planned"));
                }
                inst.scheduled = true;
            }
        }
        EntryKind::LateCharge => {
            let line = one_line()?;
            let only_late = Buckets {
                late_charges: line.due.late_charges,
                ..Buckets::default()
            };
            if line.due != only_late || !line.paid.is_zero() || e.cash.minor() != 0 {
                return Err(bad("a late charge is a due late charge on one installment"));
            }
            if b.closed_by.is_some() {
                return Err(bad("the loan is closed"));
            }
            let inst = b.installment_mut(line.installment).expect("checked above");
            inst.late_charge_days += 1;
            inst.last_late_charge_on = Some(inst.last_late_charge_on.map_or(e.on, |d| d.max(e.on)));
        }
        EntryKind::ExtensionFee => {
            let line = one_line()?;
            let fee = Buckets {
                fees: e.cash,
                ..Buckets::default()
            };
            if line.due != fee
                || line.paid != fee
                || e.excess.minor() != 0
                || e.refunded.minor() != 0
            {
                return Err(bad(
                    "an extension fee is due and paid at once on one installment",
                ));
            }
            let terms = q
                .extension
                .ok_or_else(|| bad("the product offers no extension"))?;
            if b.extensions_granted >= terms.max_extensions || b.closed_by.is_some() {
                return Err(bad("no further extension is allowed"));
            }
            shift_due_dates(b, line.installment, i64::from(terms.days))?;
            b.extensions_granted += 1;
            b.extension_fees = b.extension_fees.checked_add(e.cash)?;
        }
        EntryKind::Repayment => {
            if e.lines.iter().any(|l| !l.due.is_zero())
                || e.refunded.minor() != 0
                || e.cash != e.paid_total()?.checked_add(e.excess)?
            {
                return Err(bad("a repayment's cash is what it pays plus its excess"));
            }
        }
        EntryKind::CoolingOffExit | EntryKind::Payoff => {
            if b.closed_by.is_some() {
                return Err(bad("the loan is closed already"));
            }
            if e.cash.checked_add(e.refunded)? != e.paid_total()?.checked_add(e.excess)? {
                return Err(bad(
                    "a settlement's cash and credit are what it pays plus its excess",
                ));
            }
            if e.refunded > b.fees_kept || (e.kind == EntryKind::Payoff && e.refunded.minor() != 0)
            {
                return Err(bad(
                    "only fees kept at payout can be credited, at a cooling-off exit",
                ));
            }
            b.closed_by = Some(e.kind);
            b.fees_kept = b.fees_kept.checked_sub(e.refunded)?;
        }
        EntryKind::Reversal => {
            let target_seq = e.reverses.expect("checked above");
            let target_index = usize::try_from(target_seq)
                .ok()
                .filter(|t| *t < index)
                .ok_or_else(|| bad("a reversal names an earlier entry"))?;
            let target = &entries[target_index];
            if matches!(
                target.kind,
                EntryKind::Payout | EntryKind::FeeDeducted | EntryKind::Scheduled
            ) {
                return Err(bad("the payout and its schedule are not reversed"));
            }
            if target.kind == EntryKind::Reversal {
                return Err(bad("a reversal is not reversed: post the entry again"));
            }
            if reversed[target_index] {
                return Err(bad("the entry is reversed already"));
            }
            if *e != reversal(entries, target_seq, e.on)? {
                return Err(bad("a reversal is the exact negation of its entry"));
            }
            reversed[target_index] = true;
            match target.kind {
                EntryKind::ExtensionFee => {
                    let terms = q.extension.expect("an extension was posted");
                    shift_due_dates(b, target.lines[0].installment, -i64::from(terms.days))?;
                    b.extensions_granted -= 1;
                    b.extension_fees = b.extension_fees.checked_sub(target.cash)?;
                }
                EntryKind::CoolingOffExit | EntryKind::Payoff => {
                    b.closed_by = None;
                    b.fees_kept = b.fees_kept.checked_add(target.refunded)?;
                }
                _ => {}
            }
        }
    }
    let receives = match (e.kind, e.reverses) {
        (EntryKind::Reversal, Some(t)) => entries[t as usize].kind.receives_cash(),
        (kind, _) => kind.receives_cash(),
    };
    if receives {
        b.cash_in = b.cash_in.checked_add(e.cash)?;
        b.excess = b.excess.checked_add(e.excess)?;
        b.refunded = b.refunded.checked_add(e.refunded)?;
    }
    for line in &e.lines {
        let inst = b.installment_mut(line.installment).expect("checked above");
        inst.due = inst.due.plus(line.due)?;
        inst.paid = inst.paid.plus(line.paid)?;
        inst.outstanding = inst.due.minus(inst.paid)?;
        if inst.due.has_negative() || inst.paid.has_negative() {
            return Err(bad("it would leave a negative balance"));
        }
        if inst.outstanding.has_negative() {
            return Err(bad(&format!(
                "it pays more than installment {} owes",
                line.installment
            )));
        }
    }
    if e.kind.closes()
        && !b
            .installments
            .iter()
            .all(|i| i.scheduled && i.outstanding.is_zero())
    {
        return Err(bad("a settlement leaves nothing outstanding"));
    }
    Ok(())
}

/// Moves the due dates of installment `from` and every later one by `days` (negative to undo an extension).
fn shift_due_dates(b: &mut LoanBalances, from: u32, days: i64) -> Result<()> {
    for inst in b.installments.iter_mut().filter(|i| i.number >= from) {
        inst.due_date = inst
            .due_date
            .checked_add(time::Duration::days(days))
            .ok_or(Error::Overflow)?;
    }
    Ok(())
}

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
            charge = plan.quote.market.floor_to_asked(charge.min(*room));
            *room = room.checked_sub(charge.max(Money::ZERO))?;
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
fn earned_interest(plan: &Plan, inst: &Installment, on: Date) -> Result<Money> {
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
        // Interest earned is kept in whole amounts of what the market asks (whole rupiah in Indonesia), rounded down.
        let earned = plan
            .quote
            .market
            .floor_to_asked(earned_interest(plan, planned, on)?);
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
/// back. Refused once anything has been repaid (reverse the repayment first) or the window has closed.
pub fn cooling_off_settlement(
    plan: &Plan,
    balances: &LoanBalances,
    on: Date,
) -> Result<Settlement> {
    let exit = cooling_off_exit(&plan.quote, plan.payout_date(), on)?;
    if balances.closed_by.is_some()
        || !balances.paid.is_zero()
        || !balances.installments.iter().all(|i| i.scheduled)
    {
        return Err(invalid(
            balances.entries,
            "a cooling-off exit needs a loan with nothing repaid",
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
        lines.push(Line {
            installment: inst.number,
            due,
            paid: Buckets {
                interest: share,
                principal: inst.due.principal,
                ..Buckets::default()
            },
        });
    }
    let fees_refunded = exit.fees_refunded.min(balances.fees_kept);
    let amount = exit
        .principal
        .checked_add(exit.interest)?
        .checked_sub(fees_refunded)?;
    Ok(Settlement {
        on,
        amount,
        interest_waived: interest_waived.max(Money::ZERO),
        charges_waived,
        fees_refunded,
        entry: LedgerEntry {
            cash: amount,
            refunded: fees_refunded,
            lines,
            ..LedgerEntry::new(EntryKind::CoolingOffExit, on)
        },
    })
}

/// A paid extension of installment `number` on `on`: its price and revised schedule ([`price_extension`], which
/// keeps the OJK caps in Indonesia) and the `extension_fee` entry to post once the fee is paid. Refused for a
/// closed loan or an installment with nothing outstanding.
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::codes::Code;
    use crate::error::CapKind;
    use crate::product::{
        AmountRange, ExtensionTerms, FeeRule, Interest, InterestMethod, LateCharge, Product,
        RateBasis, Rounding,
    };
    use crate::quote::quote;
    use crate::rate::Rate;
    use proptest::prelude::*;
    use rstest::rstest;
    use time::macros::date;

    const QUOTED: Date = date!(2026 - 11 - 01);
    const PAYOUT: Date = date!(2026 - 11 - 22);

    /// ₹10,000 at 0.1% a day flat, three fortnightly installments, 2% fee (+GST) deducted, ₹300 then ₹20 a day
    /// for 30 days late, a 7-day extension for 3% (+GST), at most two.
    pub(crate) fn indian(installments: u32) -> Product {
        Product {
            code: "in-test".into(),
            name: "Test".into(),
            market: Market::India,
            amount: AmountRange {
                min: Money::from_major(2_000),
                max: Money::from_major(80_000),
                step: Money::from_major(500),
            },
            interest: Interest {
                rate: Rate::from_bp(10),
                per: RateBasis::Day,
                method: InterestMethod::Flat,
            },
            rounding: Rounding::Minor,
            terms: vec![Term {
                code: "14d".into(),
                period: Period::Days(14),
                installments,
            }],
            fees: vec![FeeRule {
                name: "Processing fee".into(),
                percent: Rate::from_bp(200),
                fixed: Money::ZERO,
            }],
            fees_deducted_at_disbursal: true,
            late_charge: LateCharge {
                flat: Money::from_major(300),
                per_day: Money::from_major(20),
                max_days: 30,
            },
            extension: Some(ExtensionTerms {
                days: 7,
                fee_percent: Rate::from_bp(300),
                fee_fixed: Money::ZERO,
                max_extensions: 2,
            }),
            cooling_off_days: 3,
        }
    }

    pub(crate) fn plan_of(product: &Product, amount: Money, term: &str) -> Plan {
        Plan::at_payout(&quote(product, amount, term, QUOTED).unwrap(), PAYOUT).unwrap()
    }

    pub(crate) fn indian_plan() -> Plan {
        plan_of(&indian(3), Money::from_major(10_000), "14d")
    }

    fn opened(plan: &Plan) -> Vec<LedgerEntry> {
        plan.opening_entries()
    }

    fn post(plan: &Plan, ledger: &mut Vec<LedgerEntry>, entry: LedgerEntry) -> LoanBalances {
        ledger.push(entry);
        let b = replay(plan, ledger).unwrap();
        assert_holds(&b);
        b
    }

    pub(crate) fn assert_holds(b: &LoanBalances) {
        for i in &b.installments {
            assert_eq!(i.paid.plus(i.outstanding).unwrap(), i.due);
            assert!(!i.outstanding.has_negative() && !i.paid.has_negative());
        }
        assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
        assert_eq!(
            b.cash_in.checked_add(b.refunded).unwrap(),
            b.paid.total().unwrap().checked_add(b.excess).unwrap()
        );
    }

    fn money(minor: i64) -> Money {
        Money::from_minor(minor)
    }

    #[test]
    fn the_plan_moves_the_schedule_to_the_payout_date_with_the_same_amounts_and_apr() {
        let accepted = quote(&indian(3), Money::from_major(10_000), "14d", QUOTED).unwrap();
        let plan = Plan::at_payout(&accepted, PAYOUT).unwrap();
        let dates: Vec<Date> = plan.quote.installments.iter().map(|i| i.due_date).collect();
        assert_eq!(
            dates,
            vec![
                date!(2026 - 12 - 06),
                date!(2026 - 12 - 20),
                date!(2027 - 01 - 03)
            ]
        );
        for (moved, was) in plan.quote.installments.iter().zip(&accepted.installments) {
            assert_eq!((moved.amount, moved.principal), (was.amount, was.principal));
        }
        let payments: Vec<Money> = plan.quote.installments.iter().map(|i| i.amount).collect();
        let apr = crate::apr::apr(plan.quote.net_disbursed, &payments, Period::Days(14));
        assert_eq!(apr, Ok(accepted.apr));
        // A quote made on the payout day would have given the same schedule.
        let fresh = quote(&indian(3), Money::from_major(10_000), "14d", PAYOUT).unwrap();
        assert_eq!(plan.quote.installments, fresh.installments);
    }

    #[test]
    fn monthly_schedules_move_by_calendar_months_from_the_payout() {
        let p = crate::quote::tests::rbi_illustration(Rounding::Minor);
        let plan = plan_of(&p, Money::from_major(20_000), "m24");
        assert_eq!(plan.quote.installments[0].due_date, date!(2026 - 12 - 22));
        assert_eq!(plan.quote.installments[23].due_date, date!(2028 - 11 - 22));
    }

    #[test]
    fn a_plan_from_the_accepted_kfs_equals_the_plan_from_its_quote() {
        let accepted = quote(&indian(3), Money::from_major(10_000), "14d", QUOTED).unwrap();
        let lender = crate::kfs::Lender {
            name: "L".into(),
            licence: String::new(),
            grievance_officer: crate::kfs::GrievanceOfficer {
                name: "G".into(),
                email: "g@example.in".into(),
                phone: "+91".into(),
            },
        };
        let kfs = KeyFactStatement::new(&accepted, &lender).unwrap();
        assert_eq!(
            Plan::from_kfs(&kfs, Period::Days(14), PAYOUT),
            Plan::at_payout(&accepted, PAYOUT)
        );
    }

    #[test]
    fn every_code_round_trips_and_matches_the_api() {
        for kind in EntryKind::ALL {
            assert_eq!(EntryKind::try_from(kind.code().to_owned()), Ok(*kind));
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.code());
        }
        for status in InstallmentStatus::ALL {
            assert_eq!(
                InstallmentStatus::try_from(status.code().to_owned()),
                Ok(*status)
            );
            assert_eq!(serde_json::to_value(status).unwrap(), status.code());
        }
    }

    #[test]
    fn an_entry_serializes_in_camel_case_and_reads_back() {
        let plan = indian_plan();
        let entry = &opened(&plan)[2];
        let json = serde_json::to_value(entry).unwrap();
        assert_eq!(json["kind"], "scheduled");
        assert_eq!(json["on"], "2026-11-22");
        assert_eq!(json["lines"][0]["due"]["lateCharges"], 0);
        let back: LedgerEntry = serde_json::from_value(json).unwrap();
        assert_eq!(&back, entry);
    }

    #[test]
    fn at_payout_everything_scheduled_is_outstanding_and_upcoming() {
        let plan = indian_plan();
        let b = replay(&plan, &opened(&plan)).unwrap();
        assert_eq!(b.entries, 5);
        assert_eq!(b.paid_out, Money::from_minor(976_400));
        assert_eq!(b.fees_kept, Money::from_minor(23_600));
        assert_eq!(b.outstanding.total(), Ok(plan.quote.total_repayable));
        assert_eq!(b.outstanding.principal, Money::from_major(10_000));
        assert!(!b.settled);
        assert!(
            b.statuses(PAYOUT)
                .iter()
                .all(|(_, s)| *s == InstallmentStatus::Upcoming)
        );
    }

    #[rstest]
    #[case(date!(2026 - 12 - 05), InstallmentStatus::Upcoming)]
    #[case(date!(2026 - 12 - 06), InstallmentStatus::Due)]
    #[case(date!(2026 - 12 - 07), InstallmentStatus::Overdue)]
    fn an_installments_status_follows_its_due_date(
        #[case] on: Date,
        #[case] want: InstallmentStatus,
    ) {
        let plan = indian_plan();
        let b = replay(&plan, &opened(&plan)).unwrap();
        assert_eq!(b.installments[0].status(on), want);
    }

    /// The journey: payout, a partial repayment, a late charge, an extension, the rest, settled; the replay of the
    /// ledger after each step is checked against the balances that step must leave.
    #[test]
    fn a_journey_replays_to_the_right_balances_after_every_step() {
        let plan = indian_plan();
        let mut ledger = Vec::new();
        let mut b = replay(&plan, &[]).unwrap();
        assert_eq!(b.entries, 0);
        for entry in opened(&plan) {
            b = post(&plan, &mut ledger, entry);
        }
        // Installments: ₹3,333.33 + ₹140 interest, twice, then ₹3,333.34 + ₹140.
        assert_eq!(b.installments[0].due.total(), Ok(money(347_333)));
        assert_eq!(b.outstanding.total(), Ok(money(1_042_000)));

        // 1. ₹2,000 on 1 December pays installment 1's interest, then principal.
        let (pay, excess) =
            allocate_repayment(&b, Money::from_major(2_000), date!(2026 - 12 - 01)).unwrap();
        assert_eq!(excess, Money::ZERO);
        b = post(&plan, &mut ledger, pay);
        assert_eq!(b.installments[0].paid.interest, money(14_000));
        assert_eq!(b.installments[0].paid.principal, money(186_000));
        assert_eq!(b.installments[0].outstanding.total(), Ok(money(147_333)));
        assert_eq!(b.outstanding.total(), Ok(money(842_000)));
        assert_eq!(b.cash_in, Money::from_major(2_000));

        // 2. Overdue on 7 December: the ₹300 flat charge.
        let on = date!(2026 - 12 - 07);
        assert!(!b.is_overdue(date!(2026 - 12 - 06)));
        assert!(b.is_overdue(on));
        assert_eq!(b.installments[0].status(on), InstallmentStatus::Overdue);
        let charges =
            late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
        assert_eq!(charges.len(), 1);
        b = post(&plan, &mut ledger, charges[0].clone());
        assert_eq!(
            b.installments[0].outstanding.late_charges,
            Money::from_major(300)
        );
        assert_eq!(b.outstanding.total(), Ok(money(872_000)));

        // 3. An extension on 8 December: ₹300 + ₹54 GST, every due date from installment 1 moves 7 days.
        let on = date!(2026 - 12 - 08);
        let (ext, fee) = extend(&plan, &b, 1, on, &CapTable::ojk_consumer()).unwrap();
        assert_eq!(ext.fee.total, money(35_400));
        b = post(&plan, &mut ledger, fee);
        assert_eq!(b.extensions_granted, 1);
        assert_eq!(b.extension_fees, money(35_400));
        assert_eq!(b.installments[0].due_date, date!(2026 - 12 - 13));
        assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 10));
        assert_eq!(b.schedule(&plan), ext.revised);
        assert_eq!(b.installments[0].status(on), InstallmentStatus::Upcoming);
        assert!(!b.is_overdue(on), "the extension caught the order up");
        assert_eq!(
            b.outstanding.total(),
            Ok(money(872_000)),
            "the fee is paid with the extension"
        );
        assert_eq!(b.cash_in, money(235_400));

        // 4. The rest on 10 December settles the loan; ₹1 more would be excess, refunded.
        let rest = b.outstanding.total().unwrap();
        let (pay, excess) = allocate_repayment(
            &b,
            rest.checked_add(money(100)).unwrap(),
            date!(2026 - 12 - 10),
        )
        .unwrap();
        assert_eq!(excess, money(100));
        b = post(&plan, &mut ledger, pay);
        assert!(b.settled);
        assert_eq!(b.outstanding, Buckets::default());
        assert_eq!(b.excess, money(100));
        assert!(
            b.statuses(date!(2027 - 02 - 01))
                .iter()
                .all(|(_, s)| *s == InstallmentStatus::Paid)
        );
        assert_eq!(b.cost(), Ok(money(23_600 + 42_000 + 35_400 + 30_000)));
        // Nothing more to charge on a settled loan.
        let late = late_charges_due(
            &plan,
            &b,
            &BTreeSet::new(),
            date!(2027 - 03 - 01),
            &CapTable::ojk_consumer(),
        );
        assert_eq!(late, Ok(vec![]));
    }

    /// Outstanding on installments 1 and 2: (late charges, fees, interest, principal).
    #[rstest]
    #[case::late_charges_first(50, [[50, 0, 0, 0], [0, 0, 0, 0]], 0)]
    #[case::then_fees(150, [[100, 50, 0, 0], [0, 0, 0, 0]], 0)]
    #[case::then_interest(350, [[100, 200, 50, 0], [0, 0, 0, 0]], 0)]
    #[case::then_principal(1_500, [[100, 200, 300, 900], [0, 0, 0, 0]], 0)]
    #[case::oldest_installment_first(1_700, [[100, 200, 300, 1_000], [10, 0, 90, 0]], 0)]
    #[case::then_the_next_in_the_same_order(2_000, [[100, 200, 300, 1_000], [10, 0, 300, 90]], 0)]
    #[case::excess_is_returned(5_000, [[100, 200, 300, 1_000], [10, 0, 300, 1_000]], 2_090)]
    fn a_repayment_pays_the_oldest_installment_first_late_charges_then_fees_then_interest_then_principal(
        #[case] amount: i64,
        #[case] want: [[i64; 4]; 2],
        #[case] excess: i64,
    ) {
        let plan = indian_plan();
        let mut b = replay(&plan, &opened(&plan)).unwrap();
        b.installments[0].outstanding = Buckets {
            late_charges: money(100),
            fees: money(200),
            interest: money(300),
            principal: money(1_000),
        };
        b.installments[1].outstanding = Buckets {
            late_charges: money(10),
            fees: Money::ZERO,
            interest: money(300),
            principal: money(1_000),
        };
        b.installments[2].outstanding = Buckets::default();
        let (entry, left) = allocate_repayment(&b, money(amount), PAYOUT).unwrap();
        let got: Vec<[i64; 4]> = (1..=2)
            .map(|n| {
                entry
                    .lines
                    .iter()
                    .find(|l| l.installment == n)
                    .map_or([0; 4], |l| l.paid.parts().map(Money::minor))
            })
            .collect();
        assert_eq!(got, want.to_vec());
        assert_eq!(left, money(excess));
        assert_eq!(entry.excess, money(excess));
        assert_eq!(entry.cash, money(amount));
    }

    #[test]
    fn a_repayment_of_nothing_or_less_is_refused() {
        let plan = indian_plan();
        let b = replay(&plan, &opened(&plan)).unwrap();
        assert_eq!(
            allocate_repayment(&b, money(-1), PAYOUT),
            Err(Error::NegativeAmount)
        );
        assert!(matches!(
            allocate_repayment(&b, Money::ZERO, PAYOUT),
            Err(Error::InvalidEntry { .. })
        ));
    }

    /// Runs the overdue job every day from `from` to `to`, paying each charge at once when `pay_each`, and returns
    /// the charge posted each day.
    fn run_job(
        plan: &Plan,
        ledger: &mut Vec<LedgerEntry>,
        from: Date,
        days: u32,
        verifying: impl Fn(Date) -> BTreeSet<u32>,
        caps: &CapTable,
        pay_each: bool,
    ) -> Vec<i64> {
        let mut out = Vec::new();
        for d in 0..days {
            let on = crate::calendar::add_days(from, d).unwrap();
            let b = replay(plan, ledger).unwrap();
            let charges = late_charges_due(plan, &b, &verifying(on), on, caps).unwrap();
            let total: i64 = charges
                .iter()
                .map(|c| c.lines[0].due.late_charges.minor())
                .sum();
            ledger.extend(charges);
            let b = replay(plan, ledger).unwrap();
            // Idempotent: a second run for the same date posts nothing.
            assert_eq!(
                late_charges_due(plan, &b, &verifying(on), on, caps),
                Ok(vec![])
            );
            if pay_each && total > 0 {
                let (pay, _) = allocate_repayment(&b, money(total), on).unwrap();
                assert!(
                    pay.lines
                        .iter()
                        .all(|l| l.paid.late_charges == l.paid.total().unwrap())
                );
                ledger.push(pay);
            }
            out.push(total);
        }
        out
    }

    pub(crate) fn one_installment_indian() -> Plan {
        plan_of(&indian(1), Money::from_major(10_000), "14d")
    }

    #[test]
    fn late_charges_are_flat_then_daily_and_stop_at_the_per_installment_maximum() {
        let plan = one_installment_indian();
        let mut ledger = opened(&plan);
        let due = plan.quote.installments[0].due_date;
        let daily = run_job(
            &plan,
            &mut ledger,
            due,
            60,
            |_| BTreeSet::new(),
            &CapTable::ojk_consumer(),
            false,
        );
        assert_eq!(daily[0], 0, "nothing on the due date itself");
        assert_eq!(daily[1], 30_000);
        assert_eq!(daily[2], 2_000);
        assert_eq!(daily[31], 2_000);
        assert_eq!(daily[32], 0);
        let b = replay(&plan, &ledger).unwrap();
        assert_eq!(
            b.due.late_charges,
            plan.quote.late_charge.max_per_installment().unwrap()
        );
        assert_eq!(b.due.late_charges, Money::from_major(900));
    }

    #[test]
    fn late_charges_never_compound() {
        let plan = one_installment_indian();
        let due = plan.quote.installments[0].due_date;
        let caps = CapTable::ojk_consumer();
        let mut unpaid = opened(&plan);
        let mut paid = opened(&plan);
        let a = run_job(
            &plan,
            &mut unpaid,
            due,
            40,
            |_| BTreeSet::new(),
            &caps,
            false,
        );
        let b = run_job(&plan, &mut paid, due, 40, |_| BTreeSet::new(), &caps, true);
        assert_eq!(
            a, b,
            "the charge does not depend on earlier charges being owed"
        );
    }

    #[test]
    fn days_spent_verifying_a_utr_are_never_charged() {
        let plan = one_installment_indian();
        let due = plan.quote.installments[0].due_date;
        let mut ledger = opened(&plan);
        let verifying = |on: Date| {
            let day = days_between(due, on);
            if (3..=5).contains(&day) {
                BTreeSet::from([1])
            } else {
                BTreeSet::new()
            }
        };
        let daily = run_job(
            &plan,
            &mut ledger,
            due,
            11,
            verifying,
            &CapTable::ojk_consumer(),
            false,
        );
        assert_eq!(
            daily,
            vec![0, 30_000, 2_000, 0, 0, 0, 2_000, 2_000, 2_000, 2_000, 2_000]
        );
        let b = replay(&plan, &ledger).unwrap();
        // Ten days overdue, three of them verifying: seven days charged.
        assert_eq!(b.installments[0].late_charge_days, 7);
        assert_eq!(
            b.due.late_charges,
            plan.quote.late_charge.for_days_overdue(7).unwrap()
        );
    }

    #[test]
    fn a_waived_late_charge_is_not_charged_again() {
        let plan = one_installment_indian();
        let due = plan.quote.installments[0].due_date;
        let mut ledger = opened(&plan);
        run_job(
            &plan,
            &mut ledger,
            due,
            2,
            |_| BTreeSet::new(),
            &CapTable::ojk_consumer(),
            false,
        );
        let seq = ledger.len() as u64 - 1;
        let waiver = reversal(&ledger, seq, ledger[seq as usize].on).unwrap();
        ledger.push(waiver);
        let next = crate::calendar::add_days(due, 2).unwrap();
        let b = replay(&plan, &ledger).unwrap();
        assert_eq!(b.due.late_charges, Money::ZERO);
        let charges =
            late_charges_due(&plan, &b, &BTreeSet::new(), next, &CapTable::ojk_consumer()).unwrap();
        assert_eq!(charges[0].lines[0].due.late_charges, Money::from_major(20));
    }

    /// Rp1,000,000 for 30 days at 0.1% a day, 1% fee, Rp50,000 flat late charge.
    pub(crate) fn indonesian_plan() -> Plan {
        plan_of(
            &crate::quote::tests::indonesian(10, 100),
            Money::from_major(1_000_000),
            "30d",
        )
    }

    #[test]
    fn without_a_flat_charge_the_first_day_overdue_is_free_and_counted_and_the_daily_charge_follows()
     {
        let mut plan = one_installment_indian();
        plan.quote.late_charge = crate::LateCharge {
            flat: Money::ZERO,
            per_day: Money::from_major(20),
            max_days: 5,
        };
        let due = plan.quote.installments[0].due_date;
        let mut ledger = opened(&plan);
        let daily = run_job(
            &plan,
            &mut ledger,
            due,
            10,
            |_| BTreeSet::new(),
            &CapTable::ojk_consumer(),
            false,
        );
        assert_eq!(
            daily,
            vec![0, 0, 2_000, 2_000, 2_000, 2_000, 2_000, 0, 0, 0]
        );
        let b = replay(&plan, &ledger).unwrap();
        assert_eq!(
            b.due.late_charges,
            plan.quote.late_charge.max_per_installment().unwrap()
        );
        // One zero entry only (the free first day); none once the maximum is reached.
        let zero = ledger
            .iter()
            .filter(|e| e.kind == EntryKind::LateCharge && e.lines[0].due.late_charges.minor() == 0)
            .count();
        assert_eq!(zero, 1);
    }

    #[test]
    fn an_indonesian_late_charge_is_at_most_a_tenth_of_a_percent_a_day_of_what_is_overdue() {
        let plan = indonesian_plan();
        let due = plan.quote.installments[0].due_date;
        let mut ledger = opened(&plan);
        let daily = run_job(
            &plan,
            &mut ledger,
            due,
            3,
            |_| BTreeSet::new(),
            &CapTable::ojk_consumer(),
            false,
        );
        // Overdue: Rp1,000,000 + Rp30,000 interest; 0.1% is Rp1,030, well under the Rp50,000 flat charge.
        assert_eq!(daily, vec![0, 103_000, 0]);
    }

    #[test]
    fn an_indonesian_late_charge_before_the_late_charge_cap_took_effect_is_the_products() {
        let product = crate::quote::tests::indonesian(10, 100);
        let accepted = quote(
            &product,
            Money::from_major(1_000_000),
            "30d",
            date!(2025 - 11 - 01),
        )
        .unwrap();
        let plan = Plan::at_payout(&accepted, date!(2025 - 11 - 01)).unwrap();
        let b = replay(&plan, &opened(&plan)).unwrap();
        let on = date!(2025 - 12 - 05);
        let charges =
            late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
        assert_eq!(
            charges[0].lines[0].due.late_charges,
            Money::from_major(50_000)
        );
    }

    #[test]
    fn indonesian_late_charges_stop_at_the_total_cost_cap() {
        let plan = indonesian_plan();
        let due = plan.quote.installments[0].due_date;
        // A table whose total cap is 5% and without a daily late cap: interest 3% + fee 1% leaves 1%.
        let mut caps = CapTable::ojk_consumer();
        caps.total_cost = Rate::from_bp(500);
        caps.late_charge_daily.clear();
        let mut ledger = opened(&plan);
        let daily = run_job(
            &plan,
            &mut ledger,
            due,
            4,
            |_| BTreeSet::new(),
            &caps,
            false,
        );
        assert_eq!(daily, vec![0, 1_000_000, 0, 0]);
        let b = replay(&plan, &ledger).unwrap();
        assert_eq!(
            b.cost(),
            Ok(caps.total_cost_limit(plan.quote.principal).unwrap())
        );
    }

    #[test]
    fn an_indian_loan_is_not_held_to_the_ojk_late_charge_caps() {
        let plan = one_installment_indian();
        let b = replay(&plan, &opened(&plan)).unwrap();
        let on = crate::calendar::add_days(plan.quote.installments[0].due_date, 1).unwrap();
        let mut caps = CapTable::ojk_consumer();
        caps.total_cost = Rate::ZERO;
        let charges = late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps).unwrap();
        assert_eq!(charges[0].lines[0].due.late_charges, Money::from_major(300));
    }

    #[rstest]
    #[case::on_the_payout_day(PAYOUT, 0)]
    #[case::seven_days_into_the_first_period(date!(2026 - 11 - 29), 7_000)]
    #[case::on_the_first_due_date(date!(2026 - 12 - 06), 14_000)]
    #[case::three_days_into_the_second_period(date!(2026 - 12 - 09), 14_000 + 3_000)]
    #[case::after_the_last_due_date(date!(2027 - 02 - 01), 42_000)]
    fn a_payoff_charges_interest_only_for_the_days_used(#[case] on: Date, #[case] interest: i64) {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let b = replay(&plan, &ledger).unwrap();
        let s = payoff(&plan, &b, on).unwrap();
        assert_eq!(
            s.amount,
            Money::from_major(10_000)
                .checked_add(money(interest))
                .unwrap()
        );
        assert_eq!(s.interest_waived, money(42_000 - interest));
        let b = post(&plan, &mut ledger, s.entry);
        assert!(b.settled);
        assert_eq!(b.closed_by, Some(EntryKind::Payoff));
        assert_eq!(b.paid.interest, money(interest));
    }

    #[test]
    fn a_payoff_credits_interest_paid_in_advance_for_days_not_used() {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let b = replay(&plan, &ledger).unwrap();
        // Installment 1 paid in full on the payout day, its ₹140 of interest included; three days later only
        // ₹30 of it is earned.
        let (pay, _) = allocate_repayment(&b, money(347_333), PAYOUT).unwrap();
        let b = post(&plan, &mut ledger, pay);
        let s = payoff(&plan, &b, date!(2026 - 11 - 25)).unwrap();
        assert_eq!(s.amount, money(1_000_000 - 333_333 + 3_000 - 14_000));
        let b = post(&plan, &mut ledger, s.entry);
        assert!(b.settled);
        assert_eq!(b.paid.interest, money(3_000));
        assert_eq!(b.cash_in, money(1_000_000 + 3_000));
    }

    #[test]
    fn a_payoff_includes_the_late_charges_posted() {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let on = date!(2026 - 12 - 07);
        let b = replay(&plan, &ledger).unwrap();
        let late =
            late_charges_due(&plan, &b, &BTreeSet::new(), on, &CapTable::ojk_consumer()).unwrap();
        ledger.extend(late);
        let b = replay(&plan, &ledger).unwrap();
        let s = payoff(&plan, &b, on).unwrap();
        // Principal, installment 1's interest, one day of installment 2's, and the ₹300 late charge.
        assert_eq!(s.amount, money(1_000_000 + 14_000 + 1_000 + 30_000));
        assert!(post(&plan, &mut ledger, s.entry).settled);
    }

    #[test]
    fn the_prepayment_rule_is_stated_for_the_kfs() {
        assert!(PREPAYMENT_RULE.contains("without a prepayment charge"));
    }

    #[rstest]
    #[case(PAYOUT, 0)]
    #[case(date!(2026 - 11 - 24), 2_000)]
    #[case(date!(2026 - 11 - 25), 3_000)]
    fn the_cooling_off_exit_settles_for_principal_and_interest_for_the_days_used(
        #[case] on: Date,
        #[case] interest: i64,
    ) {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let b = replay(&plan, &ledger).unwrap();
        let s = cooling_off_settlement(&plan, &b, on).unwrap();
        let exit = cooling_off_exit(&plan.quote, PAYOUT, on).unwrap();
        assert_eq!(s.amount, exit.amount);
        // ₹10,000 + interest, less the ₹236 of fees kept at payout, credited back.
        assert_eq!(s.amount, money(1_000_000 + interest - 23_600));
        assert_eq!(s.fees_refunded, money(23_600));
        assert_eq!(s.interest_waived, money(42_000 - interest));
        let b = post(&plan, &mut ledger, s.entry);
        assert!(b.settled);
        assert_eq!(b.closed_by, Some(EntryKind::CoolingOffExit));
        assert_eq!(b.fees_kept, Money::ZERO);
        assert_eq!(
            b.cost(),
            Ok(money(interest)),
            "interest for the days used is the whole cost"
        );
    }

    #[test]
    fn the_cooling_off_exit_is_refused_after_the_window_or_after_a_repayment() {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let b = replay(&plan, &ledger).unwrap();
        assert!(matches!(
            cooling_off_settlement(&plan, &b, date!(2026 - 11 - 26)),
            Err(Error::CoolingOffOver { .. })
        ));
        let (pay, _) = allocate_repayment(&b, money(100), PAYOUT).unwrap();
        let b = post(&plan, &mut ledger, pay);
        assert!(matches!(
            cooling_off_settlement(&plan, &b, PAYOUT),
            Err(Error::InvalidEntry { .. })
        ));
    }

    #[test]
    fn extensions_stop_at_the_products_maximum_and_a_reversal_moves_the_dates_back() {
        let plan = indian_plan();
        let caps = CapTable::ojk_consumer();
        let mut ledger = opened(&plan);
        let b0 = replay(&plan, &ledger).unwrap();
        let (_, first) = extend(&plan, &b0, 2, PAYOUT, &caps).unwrap();
        let b = post(&plan, &mut ledger, first);
        assert_eq!(b.installments[0].due_date, b0.installments[0].due_date);
        assert_eq!(b.installments[1].due_date, date!(2026 - 12 - 27));
        let (_, second) = extend(&plan, &b, 2, PAYOUT, &caps).unwrap();
        let b = post(&plan, &mut ledger, second.clone());
        assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 17));
        assert!(matches!(
            extend(&plan, &b, 3, PAYOUT, &caps),
            Err(Error::ExtensionNotAllowed(_))
        ));
        // Posting a third anyway is refused by the replay.
        let mut over = ledger.clone();
        over.push(second);
        assert!(matches!(
            replay(&plan, &over),
            Err(Error::InvalidEntry { .. })
        ));
        let undo = reversal(&ledger, ledger.len() as u64 - 1, PAYOUT).unwrap();
        let b = post(&plan, &mut ledger, undo);
        assert_eq!(b.extensions_granted, 1);
        assert_eq!(b.installments[2].due_date, date!(2027 - 01 - 10));
    }

    #[test]
    fn an_extension_that_would_break_an_ojk_cap_is_refused() {
        let mut product = crate::quote::tests::indonesian(20, 100);
        product.extension = Some(ExtensionTerms {
            days: 7,
            fee_percent: Rate::from_bp(500),
            fee_fixed: Money::ZERO,
            max_extensions: 2,
        });
        let plan = plan_of(&product, Money::from_major(1_000_000), "30d");
        let b = replay(&plan, &opened(&plan)).unwrap();
        let got = extend(&plan, &b, 1, PAYOUT, &CapTable::ojk_consumer());
        assert!(
            matches!(
                got,
                Err(Error::ExtensionOverCap {
                    cap: CapKind::DailyCost,
                    ..
                })
            ),
            "{got:?}"
        );
    }

    #[test]
    fn a_paid_installment_is_not_extended() {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let b = replay(&plan, &ledger).unwrap();
        let (pay, _) = allocate_repayment(&b, money(347_333), PAYOUT).unwrap();
        let b = post(&plan, &mut ledger, pay);
        assert!(matches!(
            extend(&plan, &b, 1, PAYOUT, &CapTable::ojk_consumer()),
            Err(Error::ExtensionNotAllowed(_))
        ));
    }

    fn repayment(lines: Vec<Line>, cash: i64) -> LedgerEntry {
        LedgerEntry {
            cash: money(cash),
            lines,
            ..LedgerEntry::new(EntryKind::Repayment, PAYOUT)
        }
    }

    fn paying(installment: u32, principal: i64) -> Line {
        Line {
            installment,
            due: Buckets::default(),
            paid: Buckets {
                principal: money(principal),
                ..Buckets::default()
            },
        }
    }

    #[rstest]
    #[case::a_repayment_larger_than_owed(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 333_334)], 333_334)))]
    #[case::an_unknown_installment(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(4, 1)], 1)))]
    #[case::cash_that_does_not_add_up(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 100)], 99)))]
    #[case::a_negative_payment(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, -100)], -100)))]
    #[case::an_installment_twice(|l: &mut Vec<LedgerEntry>| l.push(repayment(vec![paying(1, 1), paying(1, 1)], 2)))]
    #[case::reversing_the_payout(|l: &mut Vec<LedgerEntry>| { let r = reversal(l, 0, PAYOUT).unwrap(); l.push(r) })]
    #[case::reversing_twice(|l: &mut Vec<LedgerEntry>| {
        l.push(repayment(vec![paying(1, 100)], 100));
        let r = reversal(l, 5, PAYOUT).unwrap();
        l.push(r.clone());
        l.push(r);
    })]
    #[case::reversing_a_reversal(|l: &mut Vec<LedgerEntry>| {
        l.push(repayment(vec![paying(1, 100)], 100));
        let r = reversal(l, 5, PAYOUT).unwrap();
        l.push(r);
        let rr = reversal(l, 6, PAYOUT).unwrap();
        l.push(rr);
    })]
    #[case::a_reversal_that_is_not_the_exact_negation(|l: &mut Vec<LedgerEntry>| {
        l.push(repayment(vec![paying(1, 100)], 100));
        let mut r = reversal(l, 5, PAYOUT).unwrap();
        r.cash = money(-99);
        l.push(r);
    })]
    #[case::a_reversal_of_a_later_entry(|l: &mut Vec<LedgerEntry>| {
        let mut r = reversal(l, 4, PAYOUT).unwrap();
        r.reverses = Some(9);
        l.push(r);
    })]
    #[case::a_schedule_other_than_the_plan(|l: &mut Vec<LedgerEntry>| l[2].lines[0].due.interest = money(1))]
    #[case::a_second_schedule(|l: &mut Vec<LedgerEntry>| { let s = l[2].clone(); l.push(s) })]
    #[case::a_settlement_that_leaves_something_owed(|l: &mut Vec<LedgerEntry>| l.push(LedgerEntry {
        cash: money(100),
        lines: vec![paying(1, 100)],
        ..LedgerEntry::new(EntryKind::Payoff, PAYOUT)
    }))]
    #[case::a_payout_of_another_amount(|l: &mut Vec<LedgerEntry>| l[0].cash = money(1))]
    #[case::an_entry_before_the_payout(|l: &mut Vec<LedgerEntry>| {
        let mut r = repayment(vec![paying(1, 100)], 100);
        r.on = date!(2026 - 11 - 21);
        l.push(r);
    })]
    #[case::a_late_charge_that_is_a_fee(|l: &mut Vec<LedgerEntry>| l.push(LedgerEntry {
        lines: vec![Line { installment: 1, due: Buckets { fees: money(1), ..Buckets::default() }, paid: Buckets::default() }],
        ..LedgerEntry::new(EntryKind::LateCharge, PAYOUT)
    }))]
    fn replay_refuses_nonsense(#[case] break_it: fn(&mut Vec<LedgerEntry>)) {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        break_it(&mut ledger);
        let got = replay(&plan, &ledger);
        assert!(matches!(got, Err(Error::InvalidEntry { .. })), "{got:?}");
    }

    #[test]
    fn a_reversal_restores_the_balances_before_the_reversed_entry() {
        let plan = indian_plan();
        let mut ledger = opened(&plan);
        let before = replay(&plan, &ledger).unwrap();
        let (pay, _) = allocate_repayment(&before, money(500_000), date!(2026 - 11 - 30)).unwrap();
        post(&plan, &mut ledger, pay);
        let undo = reversal(&ledger, 5, date!(2026 - 12 - 01)).unwrap();
        let after = post(&plan, &mut ledger, undo);
        assert_eq!(money_view(&after), money_view(&before));
    }

    /// Everything about balances that is money or dates (the count of charged days survives a reversal by design).
    fn money_view(b: &LoanBalances) -> impl PartialEq + std::fmt::Debug {
        let per: Vec<_> = b
            .installments
            .iter()
            .map(|i| (i.number, i.due_date, i.due, i.paid, i.outstanding))
            .collect();
        (
            per,
            (b.due, b.paid, b.outstanding, b.fees_kept, b.paid_out),
            (
                b.extensions_granted,
                b.extension_fees,
                b.cash_in,
                b.excess,
                b.refunded,
            ),
            (b.closed_by, b.settled),
        )
    }

    #[derive(Debug, Clone)]
    enum Step {
        Repay(i64),
        Overdue,
        Extend,
        Reverse(usize),
        Payoff,
    }

    fn step() -> impl Strategy<Value = (Step, u32)> {
        let step = prop_oneof![
            4 => (1i64..400_000).prop_map(Step::Repay),
            4 => Just(Step::Overdue),
            1 => Just(Step::Extend),
            3 => any::<usize>().prop_map(Step::Reverse),
            1 => Just(Step::Payoff),
        ];
        (step, 0u32..6)
    }

    fn random_plan(
        steps: i64,
        daily_bp: i64,
        days: u32,
        count: u32,
        deducted: bool,
        india: bool,
    ) -> Plan {
        let mut product = indian(count);
        product.terms[0].period = Period::Days(days);
        product.interest.rate = Rate::from_bp(daily_bp);
        product.fees_deducted_at_disbursal = deducted;
        if !india {
            product.market = Market::Indonesia;
            // Small enough for OJK's total cap on the smallest amount, so the quote is lawful.
            product.late_charge.flat = Money::from_major(100);
            product.late_charge.per_day = Money::from_major(1);
            product.fees[0].percent = Rate::from_bp(50);
        }
        plan_of(&product, Money::from_major(2_000 + 500 * steps), "14d")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

        #[test]
        fn replay_keeps_every_balance_whole_and_reversing_everything_returns_to_the_payout(
            steps in 0i64..=100,
            daily_bp in 0i64..=10,
            days in 7u32..=30,
            count in 1u32..=4,
            deducted in any::<bool>(),
            india in any::<bool>(),
            script in prop::collection::vec(step(), 0..30),
        ) {
            let plan = random_plan(steps, daily_bp, days, count, deducted, india);
            let caps = CapTable::ojk_consumer();
            let mut ledger = opened(&plan);
            let opening = replay(&plan, &ledger).unwrap();
            let mut on = plan.payout_date();
            let mut reversed = BTreeSet::new();
            for (action, gap) in script {
                on = crate::calendar::add_days(on, gap * 4).unwrap();
                let b = replay(&plan, &ledger).unwrap();
                let new: Vec<LedgerEntry> = match action {
                    Step::Repay(amount) => vec![allocate_repayment(&b, money(amount), on).unwrap().0],
                    Step::Overdue => late_charges_due(&plan, &b, &BTreeSet::new(), on, &caps).unwrap(),
                    Step::Extend => b.installments.iter().find(|i| !i.outstanding.is_zero())
                        .and_then(|i| extend(&plan, &b, i.number, on, &caps).ok())
                        .map(|(_, e)| e).into_iter().collect(),
                    Step::Payoff => payoff(&plan, &b, on).map(|s| s.entry).into_iter().collect(),
                    Step::Reverse(pick) => {
                        let reversible: Vec<usize> = (0..ledger.len())
                            .filter(|i| !reversed.contains(i) && !matches!(ledger[*i].kind,
                                EntryKind::Payout | EntryKind::FeeDeducted | EntryKind::Scheduled | EntryKind::Reversal))
                            .collect();
                        // Reversing an entry that later ones depend on may be refused (a paid charge); try the pick.
                        match reversible.get(pick % reversible.len().max(1)) {
                            Some(&i) => {
                                let r = reversal(&ledger, i as u64, on).unwrap();
                                let mut tried = ledger.clone();
                                tried.push(r.clone());
                                if replay(&plan, &tried).is_ok() { reversed.insert(i); vec![r] } else { vec![] }
                            }
                            None => vec![],
                        }
                    }
                };
                ledger.extend(new);
                let b = replay(&plan, &ledger).unwrap();
                for i in &b.installments {
                    prop_assert!(!i.outstanding.has_negative() && !i.paid.has_negative() && !i.due.has_negative());
                    prop_assert_eq!(i.paid.plus(i.outstanding).unwrap(), i.due);
                    prop_assert!(i.due.late_charges <= plan.quote.late_charge.max_per_installment().unwrap());
                }
                prop_assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
                prop_assert_eq!(b.cash_in, b.paid.total().unwrap().checked_add(b.excess).unwrap());
                if !india {
                    prop_assert!(b.cost().unwrap() <= caps.total_cost_limit(plan.quote.principal).unwrap());
                }
                prop_assert_eq!(b.settled, b.outstanding.is_zero());
            }
            // Undo everything not yet undone: every payment, newest first, then every charge. (Strictly newest first
            // can fail once the script reversed out of order: a charge waived early leaves a later one paid from
            // the same bucket.) Each reversal must replay.
            for payments in [true, false] {
                for i in (0..ledger.len()).rev() {
                    let kind = ledger[i].kind;
                    if !reversed.contains(&i) && kind.receives_cash() == payments && !matches!(kind,
                        EntryKind::Payout | EntryKind::FeeDeducted | EntryKind::Scheduled | EntryKind::Reversal) {
                        let r = reversal(&ledger, i as u64, on).unwrap();
                        ledger.push(r);
                        reversed.insert(i);
                        let b = replay(&plan, &ledger).unwrap();
                        prop_assert_eq!(b.paid.plus(b.outstanding).unwrap(), b.due);
                    }
                }
            }
            let end = replay(&plan, &ledger).unwrap();
            prop_assert_eq!(money_view(&end), money_view(&opening));
        }
    }
}
