//! Stable text codes of the closed sets (market, currency, order state, order event): the one codec through which
//! they are stored and read back. The codes equal the API's serde names, and a test holds them to it.

use crate::{Currency, Market, OrderEvent, OrderState};

/// A closed set with a stable text code per value.
pub trait Code: Sized + Copy + 'static {
    /// Every value, in a stable order.
    const ALL: &'static [Self];

    /// The value's code, e.g. `pending_review`, `IN`, `INR`.
    fn code(self) -> &'static str;

    /// The value of a code; `None` for an unknown one.
    fn from_code(code: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.code() == code)
    }
}

/// A stored code that names no value: the data is newer than the code reading it, or corrupt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown code {0:?}")]
pub struct UnknownCode(pub String);

/// Implements `TryFrom<String>` (how rows decode a code) through [`Code`].
#[macro_export]
macro_rules! string_codec {
    ($t:ty) => {
        impl TryFrom<String> for $t {
            type Error = $crate::codes::UnknownCode;

            fn try_from(code: String) -> Result<Self, Self::Error> {
                <$t as $crate::codes::Code>::from_code(&code)
                    .ok_or($crate::codes::UnknownCode(code))
            }
        }
    };
}

impl Code for Market {
    const ALL: &'static [Self] = &[Market::India, Market::Indonesia];

    fn code(self) -> &'static str {
        match self {
            Market::India => "IN",
            Market::Indonesia => "ID",
        }
    }
}
string_codec!(Market);

impl Code for Currency {
    const ALL: &'static [Self] = &[Currency::Inr, Currency::Idr];

    fn code(self) -> &'static str {
        match self {
            Currency::Inr => "INR",
            Currency::Idr => "IDR",
        }
    }
}
string_codec!(Currency);

impl Code for OrderState {
    const ALL: &'static [Self] = &[
        OrderState::PendingReview,
        OrderState::Approved,
        OrderState::Rejected,
        OrderState::Cancelled,
        OrderState::Disbursed,
        OrderState::Overdue,
        OrderState::Repaid,
        OrderState::ExitedInCoolingOff,
    ];

    fn code(self) -> &'static str {
        match self {
            OrderState::PendingReview => "pending_review",
            OrderState::Approved => "approved",
            OrderState::Rejected => "rejected",
            OrderState::Cancelled => "cancelled",
            OrderState::Disbursed => "disbursed",
            OrderState::Overdue => "overdue",
            OrderState::Repaid => "repaid",
            OrderState::ExitedInCoolingOff => "exited_in_cooling_off",
        }
    }
}
string_codec!(OrderState);

impl Code for OrderEvent {
    const ALL: &'static [Self] = &[
        OrderEvent::Approve,
        OrderEvent::Reject,
        OrderEvent::Cancel,
        OrderEvent::Withdraw,
        OrderEvent::Disburse,
        OrderEvent::FallOverdue,
        OrderEvent::Extend,
        OrderEvent::CatchUp,
        OrderEvent::RepayInFull,
        OrderEvent::ExitInCoolingOff,
    ];

    fn code(self) -> &'static str {
        match self {
            OrderEvent::Approve => "approve",
            OrderEvent::Reject => "reject",
            OrderEvent::Cancel => "cancel",
            OrderEvent::Withdraw => "withdraw",
            OrderEvent::Disburse => "disburse",
            OrderEvent::FallOverdue => "fall_overdue",
            OrderEvent::Extend => "extend",
            OrderEvent::CatchUp => "catch_up",
            OrderEvent::RepayInFull => "repay_in_full",
            OrderEvent::ExitInCoolingOff => "exit_in_cooling_off",
        }
    }
}
string_codec!(OrderEvent);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trips<T: Code + serde::Serialize + std::fmt::Debug + PartialEq + TryFrom<String>>()
    where
        <T as TryFrom<String>>::Error: std::fmt::Debug,
    {
        let mut seen = std::collections::BTreeSet::new();
        for value in T::ALL {
            let code = value.code();
            assert!(seen.insert(code), "{code} used twice");
            assert_eq!(T::from_code(code), Some(*value));
            assert_eq!(T::try_from(code.to_owned()).unwrap(), *value);
            assert_eq!(
                serde_json::to_value(value).unwrap(),
                serde_json::Value::from(code),
                "the stored code is the API's name"
            );
        }
        assert!(T::from_code("no such code").is_none());
        assert!(T::try_from("no such code".to_owned()).is_err());
    }

    #[test]
    fn every_code_round_trips_and_matches_the_api() {
        round_trips::<Market>();
        round_trips::<Currency>();
        round_trips::<OrderState>();
        round_trips::<OrderEvent>();
    }
}
