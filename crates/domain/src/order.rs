//! The order's life as a pure state machine: which events each state accepts, and where they lead.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Where an order stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OrderState {
    /// Applied, KFS accepted, waiting for an operator.
    PendingReview,
    /// Approved, waiting for the payout.
    Approved,
    /// Refused by an operator. Final.
    Rejected,
    /// Withdrawn before the payout: by the borrower, or by the lender when it could not be paid out. Final.
    Cancelled,
    /// Paid out and current.
    Disbursed,
    /// An installment is past due.
    Overdue,
    /// Nothing outstanding. Final.
    Repaid,
    /// Left during cooling-off by repaying principal and interest for the days used. Final.
    ExitedInCoolingOff,
}

/// Something that happens to an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderEvent {
    /// An operator approves.
    Approve,
    /// An operator rejects.
    Reject,
    /// The borrower withdraws the application.
    Cancel,
    /// The lender withdraws an approved order it cannot pay out (the bank refuses the borrower's account), so the
    /// borrower is free to correct it and apply again.
    Withdraw,
    /// The payout succeeded.
    Disburse,
    /// A due date passed with the installment unpaid.
    FallOverdue,
    /// A paid extension moved the overdue due date into the future.
    Extend,
    /// Overdue installments were paid; later ones are not yet due.
    CatchUp,
    /// A repayment cleared everything outstanding.
    RepayInFull,
    /// The cooling-off exit amount was paid.
    ExitInCoolingOff,
}

impl OrderState {
    /// True when no event can follow.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            OrderState::Rejected
                | OrderState::Cancelled
                | OrderState::Repaid
                | OrderState::ExitedInCoolingOff
        )
    }

    /// True when money is out with the borrower.
    pub fn is_active_loan(self) -> bool {
        matches!(self, OrderState::Disbursed | OrderState::Overdue)
    }

    /// The state after `event`, or the refusal.
    pub fn apply(self, event: OrderEvent) -> Result<OrderState> {
        use OrderEvent as E;
        use OrderState as S;
        let next = match (self, event) {
            (S::PendingReview, E::Approve) => S::Approved,
            (S::PendingReview, E::Reject) => S::Rejected,
            (S::PendingReview | S::Approved, E::Cancel) => S::Cancelled,
            (S::Approved, E::Withdraw) => S::Cancelled,
            (S::Approved, E::Disburse) => S::Disbursed,
            (S::Disbursed, E::FallOverdue) => S::Overdue,
            (S::Disbursed, E::Extend) => S::Disbursed,
            (S::Overdue, E::Extend | E::CatchUp) => S::Disbursed,
            (S::Disbursed | S::Overdue, E::RepayInFull) => S::Repaid,
            // An exit whose money was sent within the window closes the loan even if it was confirmed after a due
            // date passed (a UTR sent on the window's last day, checked by finance after the loan fell overdue).
            (S::Disbursed | S::Overdue, E::ExitInCoolingOff) => S::ExitedInCoolingOff,
            (from, event) => return Err(Error::InvalidTransition { from, event }),
        };
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use OrderEvent as E;
    use OrderState as S;
    use rstest::rstest;

    /// Every state (the codes' list, `Code::ALL`).
    const ALL_STATES: &[S] = <S as crate::Code>::ALL;
    const ALL_EVENTS: [E; 10] = [
        E::Approve,
        E::Reject,
        E::Cancel,
        E::Withdraw,
        E::Disburse,
        E::FallOverdue,
        E::Extend,
        E::CatchUp,
        E::RepayInFull,
        E::ExitInCoolingOff,
    ];

    #[rstest]
    #[case(S::PendingReview, E::Approve, S::Approved)]
    #[case(S::PendingReview, E::Reject, S::Rejected)]
    #[case(S::Approved, E::Cancel, S::Cancelled)]
    #[case(S::Approved, E::Withdraw, S::Cancelled)]
    #[case(S::Approved, E::Disburse, S::Disbursed)]
    #[case(S::Disbursed, E::FallOverdue, S::Overdue)]
    #[case(S::Overdue, E::Extend, S::Disbursed)]
    #[case(S::Overdue, E::CatchUp, S::Disbursed)]
    #[case(S::Overdue, E::RepayInFull, S::Repaid)]
    #[case(S::Disbursed, E::RepayInFull, S::Repaid)]
    #[case(S::Disbursed, E::ExitInCoolingOff, S::ExitedInCoolingOff)]
    #[case(S::Overdue, E::ExitInCoolingOff, S::ExitedInCoolingOff)]
    fn allowed_transitions_lead_where_expected(#[case] from: S, #[case] event: E, #[case] to: S) {
        assert_eq!(from.apply(event), Ok(to));
    }

    #[rstest]
    #[case(S::PendingReview, E::Disburse)]
    #[case(S::Rejected, E::Approve)]
    #[case(S::Approved, E::Approve)]
    #[case(S::Approved, E::ExitInCoolingOff)]
    #[case(S::Disbursed, E::Cancel)]
    #[case(S::PendingReview, E::Withdraw)]
    #[case(S::Disbursed, E::Withdraw)]
    fn other_transitions_are_refused_and_name_the_state(#[case] from: S, #[case] event: E) {
        assert_eq!(
            from.apply(event),
            Err(Error::InvalidTransition { from, event })
        );
    }

    #[test]
    fn a_final_state_accepts_no_event() {
        for &state in ALL_STATES.iter().filter(|s| s.is_final()) {
            for event in ALL_EVENTS {
                assert!(state.apply(event).is_err(), "{state:?} took {event:?}");
            }
        }
    }

    #[test]
    fn every_non_final_state_can_still_reach_a_final_one() {
        for &start in ALL_STATES {
            let mut seen = vec![start];
            let mut i = 0;
            while i < seen.len() {
                for event in ALL_EVENTS {
                    if let Ok(next) = seen[i].apply(event)
                        && !seen.contains(&next)
                    {
                        seen.push(next);
                    }
                }
                i += 1;
            }
            assert!(seen.iter().any(|s| s.is_final()), "{start:?} is stuck");
        }
    }
}
