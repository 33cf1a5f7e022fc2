//! The plan: the accepted schedule moved to the payout date, and the prepayment rule.

#[allow(unused_imports)]
use super::*;

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

    pub(crate) fn installment(&self, number: u32) -> Option<&Installment> {
        self.quote.installments.iter().find(|i| i.number == number)
    }
}
