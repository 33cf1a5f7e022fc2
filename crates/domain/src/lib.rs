//! Kilat's pure business rules: money, loan schedules, fees, APR, the Key Fact Statement and caps.
//! No HTTP, no SQL, no async: everything here is deterministic and exhaustively tested.
//!
//! The rules and the reasoning behind them are in `docs/MONEY.md`.

pub mod apr;
pub mod calendar;
pub mod caps;
pub mod codes;
pub mod complaints;
pub mod error;
pub mod kfs;
pub mod loan;
pub mod money;
pub mod order;
pub mod payment;
pub mod phone;
pub mod product;
pub mod quote;
pub mod rate;
pub mod schedule;
pub mod servicing;
pub mod settle;

pub use apr::apr;
pub use caps::{CapTable, DailyCostCap, LateChargeCap};
pub use codes::{Code, UnknownCode};
pub use error::{CapKind, Error, Result};
pub use kfs::{DailyCost, GrievanceOfficer, KFS_VERSION, KeyFactStatement, Lender};
pub use loan::{
    Arrears, Buckets, CoolingOffOffer, EntryKind, InstallmentBalance, InstallmentStatus,
    LedgerEntry, Line, LoanBalances, PREPAYMENT_RULE, Plan, Settlement, allocate_repayment,
    arrears, cooling_off_offer, cooling_off_settlement, extend, late_charges_due, move_schedule,
    payoff, replay, replay_onto, reversal,
};
pub use money::{Currency, Market, Money};
pub use order::{OrderEvent, OrderState};
pub use payment::{PaymentEvent, PaymentMethod, PaymentState};
pub use phone::{Phone, PhoneError};
pub use product::{
    AmountRange, ExtensionTerms, FeeRule, Interest, InterestMethod, LateCharge, Period, Product,
    RateBasis, Rounding, Term,
};
pub use quote::{FeeCharge, Quote, quote, quote_with_caps};
pub use rate::{Apr, Rate};
pub use schedule::Installment;
pub use servicing::{
    Allocation, CoolingOffExit, ExtensionQuote, Outstanding, allocate, cooling_off_exit,
    price_extension,
};
pub use settle::{
    Asked, Priced, QUOTE_HOLDS_DAYS, RepaymentChoice, Settlement as PaymentSettlement,
    credit_received, frozen_installments, settle, settle_waiving_later_charges,
};
