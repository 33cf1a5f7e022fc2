//! A payment's life as a pure state machine, like the order's: which events each state accepts and where they lead.
//! Money received is never lost from view: every state a payment reaches after money arrived either credits it to the
//! loan (`confirmed`), keeps it in front of finance (`held`), or owes it back to the borrower (`refund_due`, then
//! `refunded` with the bank's reference).

use crate::codes::Code;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Where a payment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(as = PaymentStatus))]
#[serde(rename_all = "snake_case")]
pub enum PaymentState {
    /// Created; waiting for the borrower's transfer (and UTR).
    Pending,
    /// The borrower submitted a UTR; finance verifies it ("transfer reported, being checked").
    Verifying,
    /// Credited to the loan in full; the ledger records it.
    Confirmed,
    /// Finance rejected it, with a reason: no money was found.
    Rejected,
    /// Money arrived that cannot be credited as asked (another amount, a loan that changed since): waiting for finance
    /// to credit it or to refund it. Nothing is credited meanwhile.
    Held,
    /// Money arrived that the loan does not owe (all of it for a closed loan, or the part beyond what was owed):
    /// finance owes it back to the borrower.
    RefundDue,
    /// Finance sent the refund back; its bank reference is recorded. Final.
    Refunded,
}

/// How the borrower pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    /// India: UPI to the collection account's UPI id; the UTR is 12 digits.
    Upi,
    /// India: IMPS, NEFT or RTGS to the collection account; the UTR is 12 digits (IMPS) or 16 or 22 letters and
    /// digits (NEFT, RTGS).
    BankTransfer,
    /// Indonesia: a transfer to the payment's virtual account.
    VirtualAccount,
    /// Dragonpay, where the settings offer it: the payment's reference paid at an outlet before it expires, credited
    /// by Dragonpay's postback.
    Dragonpay,
}

impl Code for PaymentMethod {
    const ALL: &'static [Self] = &[
        PaymentMethod::Upi,
        PaymentMethod::BankTransfer,
        PaymentMethod::VirtualAccount,
        PaymentMethod::Dragonpay,
    ];

    fn code(self) -> &'static str {
        match self {
            PaymentMethod::Upi => "upi",
            PaymentMethod::BankTransfer => "bank_transfer",
            PaymentMethod::VirtualAccount => "virtual_account",
            PaymentMethod::Dragonpay => "dragonpay",
        }
    }
}

impl PaymentMethod {
    /// True when the borrower submits a UTR for it (India's transfers).
    pub fn takes_utr(self) -> bool {
        matches!(self, PaymentMethod::Upi | PaymentMethod::BankTransfer)
    }
}

/// Something that happens to a payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaymentEvent {
    /// The borrower submitted the UTR of the transfer.
    SubmitUtr,
    /// The amount received is credited to the loan, all of it.
    Credit,
    /// Part of the amount received is credited; the rest is more than the loan owed and is to be refunded.
    CreditWithExcess,
    /// Money arrived that cannot be credited as asked: finance decides.
    Hold,
    /// Finance found no such transfer.
    Reject,
    /// All the money received is to be refunded (the loan owes nothing, or finance decided so).
    RefundAll,
    /// Finance recorded the refund's bank transfer.
    RecordRefund,
}

impl Code for PaymentState {
    const ALL: &'static [Self] = &[
        PaymentState::Pending,
        PaymentState::Verifying,
        PaymentState::Confirmed,
        PaymentState::Rejected,
        PaymentState::Held,
        PaymentState::RefundDue,
        PaymentState::Refunded,
    ];

    fn code(self) -> &'static str {
        match self {
            PaymentState::Pending => "pending",
            PaymentState::Verifying => "verifying",
            PaymentState::Confirmed => "confirmed",
            PaymentState::Rejected => "rejected",
            PaymentState::Held => "held",
            PaymentState::RefundDue => "refund_due",
            PaymentState::Refunded => "refunded",
        }
    }
}

impl PaymentState {
    /// True while the payment waits for finance: a UTR to verify, money held, or a refund to send.
    pub fn waits_for_finance(self) -> bool {
        matches!(
            self,
            PaymentState::Verifying | PaymentState::Held | PaymentState::RefundDue
        )
    }

    /// True when money may still arrive for it and be credited as asked (a provider's callback, finance's confirm).
    pub fn awaits_money(self) -> bool {
        matches!(self, PaymentState::Pending | PaymentState::Verifying)
    }

    /// The state after `event`, or the refusal.
    pub fn apply(self, event: PaymentEvent) -> Result<PaymentState> {
        use PaymentEvent as E;
        use PaymentState as S;
        let next = match (self, event) {
            (S::Pending, E::SubmitUtr) => S::Verifying,
            (S::Pending | S::Verifying | S::Held, E::Credit) => S::Confirmed,
            (S::Pending | S::Verifying | S::Held, E::CreditWithExcess) => S::RefundDue,
            // Money a provider reports for a payment finance had rejected comes back to finance.
            (S::Pending | S::Verifying | S::Rejected, E::Hold) => S::Held,
            (S::Verifying | S::Held, E::Reject) => S::Rejected,
            (S::Pending | S::Verifying | S::Held | S::Rejected, E::RefundAll) => S::RefundDue,
            (S::RefundDue, E::RecordRefund) => S::Refunded,
            (from, event) => return Err(Error::InvalidPaymentTransition { from, event }),
        };
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PaymentEvent as E;
    use PaymentState as S;
    use rstest::rstest;

    const ALL_EVENTS: [E; 7] = [
        E::SubmitUtr,
        E::Credit,
        E::CreditWithExcess,
        E::Hold,
        E::Reject,
        E::RefundAll,
        E::RecordRefund,
    ];

    #[rstest]
    #[case(S::Pending, E::SubmitUtr, S::Verifying)]
    #[case(S::Verifying, E::Credit, S::Confirmed)]
    #[case(S::Pending, E::Credit, S::Confirmed)]
    #[case(S::Held, E::Credit, S::Confirmed)]
    #[case(S::Verifying, E::CreditWithExcess, S::RefundDue)]
    #[case(S::Verifying, E::Hold, S::Held)]
    #[case(S::Rejected, E::Hold, S::Held)]
    #[case(S::Held, E::Reject, S::Rejected)]
    #[case(S::Held, E::RefundAll, S::RefundDue)]
    #[case(S::Rejected, E::RefundAll, S::RefundDue)]
    #[case(S::RefundDue, E::RecordRefund, S::Refunded)]
    fn allowed_transitions_lead_where_expected(#[case] from: S, #[case] event: E, #[case] to: S) {
        assert_eq!(from.apply(event), Ok(to));
    }

    #[rstest]
    #[case(S::Confirmed, E::Credit)]
    #[case(S::Confirmed, E::Hold)]
    #[case(S::Confirmed, E::RefundAll)]
    #[case(S::Rejected, E::Credit)]
    #[case(S::Verifying, E::SubmitUtr)]
    #[case(S::Pending, E::Reject)]
    #[case(S::RefundDue, E::Credit)]
    #[case(S::Held, E::Hold)]
    fn other_transitions_are_refused_and_name_the_state(#[case] from: S, #[case] event: E) {
        assert_eq!(
            from.apply(event),
            Err(Error::InvalidPaymentTransition { from, event })
        );
    }

    #[test]
    fn refunded_is_final_and_confirmed_takes_nothing_more() {
        for event in ALL_EVENTS {
            assert!(S::Refunded.apply(event).is_err(), "{event:?}");
            assert!(S::Confirmed.apply(event).is_err(), "{event:?}");
        }
    }

    #[test]
    fn money_once_received_never_leaves_finances_sight() {
        // From any state that holds money (held, refund due), every event leads to a state that either credits it,
        // keeps it with finance or owes it back; none forgets it (pending, verifying).
        for from in [S::Held, S::RefundDue] {
            for event in ALL_EVENTS {
                if let Ok(to) = from.apply(event) {
                    assert!(
                        matches!(
                            to,
                            S::Confirmed | S::Held | S::RefundDue | S::Refunded | S::Rejected
                        ),
                        "{from:?} --{event:?}--> {to:?}"
                    );
                    assert!(!to.awaits_money(), "{from:?} --{event:?}--> {to:?}");
                }
            }
        }
    }

    #[test]
    fn every_code_round_trips() {
        for s in S::ALL {
            assert_eq!(S::from_code(s.code()), Some(*s));
            assert_eq!(
                serde_json::to_string(s).unwrap(),
                format!("\"{}\"", s.code())
            );
        }
    }
}
