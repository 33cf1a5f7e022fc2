//! Balances: the replay of a ledger over its plan, refusing any entry the rules do not allow.

#[allow(unused_imports)]
use super::*;

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

    /// What the installments `first..=last` still owe together (each one's outstanding, late charges included): what a
    /// `due` payment of them asks on their due date.
    pub fn outstanding_of(&self, first: u32, last: u32) -> Result<Money> {
        self.installments
            .iter()
            .filter(|i| (first..=last).contains(&i.number))
            .try_fold(Money::ZERO, |sum, i| {
                sum.checked_add(i.outstanding.total()?)
            })
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

    /// Everything the borrower has paid for the loan: the cash received less any excess owed back, and the fees kept
    /// from the payout (the borrower received that much less), less what a settlement credited back. After a
    /// cooling-off exit: the principal and the days' interest, less the fees given back.
    pub fn paid_in_all(&self) -> Result<Money> {
        self.cash_in
            .checked_sub(self.excess)?
            .checked_add(self.fees_kept)
    }

    pub(crate) fn installment_mut(&mut self, number: u32) -> Option<&mut InstallmentBalance> {
        self.installments.iter_mut().find(|i| i.number == number)
    }

    pub(crate) fn installment(&self, number: u32) -> Option<&InstallmentBalance> {
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
    for (index, e) in entries.iter().enumerate() {
        let seq = index as u64;
        let earlier = &entries[..index];
        apply(
            plan,
            &mut b,
            e,
            seq,
            earlier,
            &mut reversed,
            &mut fee_deducted,
        )
        .map_err(at_entry(seq))?;
        b.entries = seq + 1;
    }
    totals(&mut b)?;
    Ok(b)
}

/// An error of applying entry `seq` as the entry's refusal (an arithmetic one, an overflow, named after the entry).
fn at_entry(seq: u64) -> impl Fn(Error) -> Error {
    move |e| match e {
        Error::InvalidEntry { .. } => e,
        other => invalid(seq, other.to_string()),
    }
}

/// The balances after `new` is appended to the ledger that `before` is the replay of: the same balances and the same
/// refusals as [`replay`] of the whole ledger with `new`, without the ledger itself. Only entries that depend on
/// nothing but the balances continue a replay this way (late charges, repayments, extension fees, settlements,
/// schedules); the payout, the fees kept at payout and a reversal need the entries before them and are refused here
/// (replay the whole ledger for those).
pub fn replay_onto(
    plan: &Plan,
    before: &LoanBalances,
    new: &[LedgerEntry],
) -> Result<LoanBalances> {
    let mut b = before.clone();
    // Read only by the fees kept at payout, which are refused below.
    let mut fee_deducted = true;
    for e in new {
        let seq = b.entries;
        if matches!(
            e.kind,
            EntryKind::Payout | EntryKind::FeeDeducted | EntryKind::Reversal
        ) {
            return Err(invalid(
                seq,
                "the payout, its fees and a reversal are replayed with the whole ledger",
            ));
        }
        apply(plan, &mut b, e, seq, &[], &mut [], &mut fee_deducted).map_err(at_entry(seq))?;
        b.entries = seq + 1;
    }
    totals(&mut b)?;
    Ok(b)
}

/// The loan's sums over its installments, and whether it is settled.
fn totals(b: &mut LoanBalances) -> Result<()> {
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
    Ok(())
}

/// Applies entry `seq`, `e`, to the balances; `earlier` holds the entries before it (`reversed` marks those reversed
/// already), which only a reversal reads.
pub(crate) fn apply(
    plan: &Plan,
    b: &mut LoanBalances,
    e: &LedgerEntry,
    seq: u64,
    earlier: &[LedgerEntry],
    reversed: &mut [bool],
    fee_deducted: &mut bool,
) -> Result<()> {
    let q = &plan.quote;
    let bad = |reason: &str| invalid(seq, reason);
    if (e.kind == EntryKind::Reversal) != e.reverses.is_some() {
        return Err(bad("only a reversal names the entry it reverses"));
    }
    if seq == 0 && e.kind != EntryKind::Payout {
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
        // credit is larger than what is left to pay, may be negative. A cooling-off exit credits everything paid
        // before but principal (fees, late charges, interest beyond the days used): only its principal may not be.
        let credits = e.kind == EntryKind::Payoff;
        if [e.excess, e.refunded].iter().any(|m| m.is_negative())
            || (!credits && e.cash.is_negative())
        {
            return Err(bad("negative amount"));
        }
        let may_waive = e.kind.closes();
        let negative_paid = |p: Buckets| {
            let p = match e.kind {
                EntryKind::Payoff => Buckets {
                    interest: Money::ZERO,
                    ..p
                },
                EntryKind::CoolingOffExit => Buckets {
                    principal: p.principal,
                    ..Buckets::default()
                },
                _ => p,
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
            if seq != 0 || !e.lines.is_empty() || e.cash != q.net_disbursed {
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
                .filter(|t| *t < earlier.len())
                .ok_or_else(|| bad("a reversal names an earlier entry"))?;
            let target = &earlier[target_index];
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
            if *e != reversal(earlier, target_seq, e.on)? {
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
        (EntryKind::Reversal, Some(t)) => earlier[t as usize].kind.receives_cash(),
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
pub(crate) fn shift_due_dates(b: &mut LoanBalances, from: u32, days: i64) -> Result<()> {
    for inst in b.installments.iter_mut().filter(|i| i.number >= from) {
        inst.due_date = inst
            .due_date
            .checked_add(time::Duration::days(days))
            .ok_or(Error::Overflow)?;
    }
    Ok(())
}
