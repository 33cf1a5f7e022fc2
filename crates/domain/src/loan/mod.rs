//! A loan's life after payout as an append-only ledger: the accepted schedule moved to the payout date, the
//! entries, and their replay to balances; and, as entries to append, repayments split by the allocation rule,
//! the overdue job's late charges, the payoff and cooling-off settlements, and paid extensions.
//! See `docs/MONEY.md` §9.

mod allocation;
mod extension;
mod late_charges;
mod ledger;
mod overdue;
mod plan;
mod replay;
mod settlements;
#[cfg(test)]
pub(crate) mod tests;

pub use allocation::*;
pub use extension::*;
pub use late_charges::*;
pub use ledger::*;
pub use overdue::*;
pub use plan::*;
pub use replay::*;
pub use settlements::*;

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
