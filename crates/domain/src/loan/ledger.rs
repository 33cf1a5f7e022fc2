//! The ledger's entries: buckets, entry kinds, lines, and reversals.

#[allow(unused_imports)]
use super::*;

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
    pub(crate) fn scheduled(i: &Installment) -> Buckets {
        Buckets {
            late_charges: Money::ZERO,
            fees: i.fees,
            interest: i.interest,
            principal: i.principal,
        }
    }

    pub(crate) fn parts(self) -> [Money; 4] {
        [self.late_charges, self.fees, self.interest, self.principal]
    }

    pub(crate) fn zip(
        self,
        other: Buckets,
        f: impl Fn(Money, Money) -> Result<Money>,
    ) -> Result<Buckets> {
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

    pub(crate) fn negated(self) -> Result<Buckets> {
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

    pub(crate) fn has_negative(self) -> bool {
        self.parts().iter().any(|m| m.is_negative())
    }

    /// Principal, interest and fees: what an installment owes apart from late charges, the base of a late charge.
    pub(crate) fn without_late_charges(self) -> Result<Money> {
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
    pub(crate) fn receives_cash(self) -> bool {
        matches!(
            self,
            EntryKind::Repayment
                | EntryKind::ExtensionFee
                | EntryKind::CoolingOffExit
                | EntryKind::Payoff
        )
    }

    pub(crate) fn closes(self) -> bool {
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
    pub(crate) fn new(kind: EntryKind, on: Date) -> LedgerEntry {
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

    pub(crate) fn paid_total(&self) -> Result<Money> {
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

pub(crate) fn invalid(entry: u64, reason: impl Into<String>) -> Error {
    Error::InvalidEntry {
        entry,
        reason: reason.into(),
    }
}
