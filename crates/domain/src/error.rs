//! The one error type of the domain: every business failure a caller can meet, named, with no HTTP in it.

use crate::money::Money;
use crate::order::{OrderEvent, OrderState};

/// Which regulatory cap a quote or an extension would break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CapKind {
    /// OJK: interest plus fees per day, as a share of the principal.
    DailyCost,
    /// OJK: interest, fees and late charges together, as a share of the principal.
    TotalCost,
}

impl std::fmt::Display for CapKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CapKind::DailyCost => "daily cost cap",
            CapKind::TotalCost => "total cost cap",
        })
    }
}

/// Everything the money engine can refuse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The requested amount is outside the product's range.
    #[error("amount {amount} is outside the product range {min} to {max}")]
    AmountOutOfRange {
        /// Requested amount.
        amount: Money,
        /// Smallest amount the product lends.
        min: Money,
        /// Largest amount the product lends.
        max: Money,
    },
    /// The requested amount is not `min + k × step`.
    #[error("amount {amount} is not on the product's step of {step} from {min}")]
    AmountNotOnStep {
        /// Requested amount.
        amount: Money,
        /// Smallest amount the product lends.
        min: Money,
        /// Step between allowed amounts.
        step: Money,
    },
    /// The product has no term with this code.
    #[error("unknown term {0:?}")]
    UnknownTerm(String),
    /// The loan (or its extension) would cost more than a regulator allows.
    #[error("{cap} exceeded: limit {limit}, actual {actual}")]
    CapExceeded {
        /// Which cap.
        cap: CapKind,
        /// The most that may be charged, in minor units.
        limit: Money,
        /// What the loan would charge, in minor units.
        actual: Money,
    },
    /// An extension would break a cap: the next one a borrower asks for, or, when a product is checked, its extension
    /// taken as many times as the product allows. Measured over the extended tenor with every extension fee.
    #[error(
        "with {extensions} extension(s) ({days} days in all) the {cap} is exceeded: limit {limit}, actual {actual}"
    )]
    ExtensionOverCap {
        /// Which cap.
        cap: CapKind,
        /// Extensions taken, counting this one.
        extensions: u32,
        /// Days from disbursal to the last due date once extended.
        days: i64,
        /// The most that may be charged, in minor units.
        limit: Money,
        /// What the extended loan would charge (interest, fees, extension fees; with the worst late charges for the
        /// total cap), in minor units.
        actual: Money,
    },
    /// No row of the cap table covers this date and tenor, so the loan cannot be shown to be lawful.
    #[error("no cost cap rule covers {date} for a tenor of {tenor_days} days")]
    NoCapRule {
        /// Date the loan would be disbursed.
        date: time::Date,
        /// Days from disbursal to the last due date.
        tenor_days: i64,
    },
    /// An amount that must not be negative was.
    #[error("amount must not be negative")]
    NegativeAmount,
    /// A schedule was asked for without installments or without a positive principal.
    #[error("a schedule needs a positive principal and at least one installment")]
    EmptyLoan,
    /// The cash flows have no rate of return: nothing paid out, nothing repaid, or less repaid than paid out.
    #[error("the cash flows have no non-negative rate of return")]
    NoRateOfReturn,
    /// A statement could not be serialized for hashing.
    #[error("cannot serialize: {0}")]
    Serialize(String),
    /// An amount left the range of 64-bit minor units.
    #[error("arithmetic overflow")]
    Overflow,
    /// A product definition is inconsistent.
    #[error("invalid product {product:?}: {reason}")]
    InvalidProduct {
        /// Product code.
        product: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A product file or cap table could not be read.
    #[error("cannot parse configuration: {0}")]
    Parse(String),
    /// A percentage text such as `"0.3%"` could not be read.
    #[error("invalid rate {0:?}: expected a percentage such as \"0.3%\"")]
    InvalidRate(String),
    /// The cooling-off window has closed.
    #[error("the cooling-off period ended on {ended}")]
    CoolingOffOver {
        /// Last day on which the borrower could exit.
        ended: time::Date,
    },
    /// An extension cannot be granted.
    #[error("extension not allowed: {0}")]
    ExtensionNotAllowed(String),
    /// A ledger entry that cannot be posted or replayed: it names an installment the loan does not have, pays more
    /// than is owed, reverses what cannot be reversed, or disagrees with the accepted plan.
    #[error("ledger entry {entry}: {reason}")]
    InvalidEntry {
        /// The entry's sequence number in the order's ledger (0 is the payout); for an entry not yet posted, the
        /// number it would take.
        entry: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// A repayment choice the loan does not offer on that day.
    #[error("choice not available: {0}")]
    ChoiceUnavailable(String),
    /// The payment cannot take this event in this state.
    #[error("a payment that is {from:?} cannot take {event:?}")]
    InvalidPaymentTransition {
        /// Current state.
        from: crate::payment::PaymentState,
        /// Refused event.
        event: crate::payment::PaymentEvent,
    },
    /// The order cannot take this event in this state.
    #[error("an order that is {from:?} cannot be {event:?}")]
    InvalidTransition {
        /// Current state.
        from: OrderState,
        /// Refused event.
        event: OrderEvent,
    },
}

/// Result alias of the domain.
pub type Result<T, E = Error> = std::result::Result<T, E>;
