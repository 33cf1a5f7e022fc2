//! Repayments: the choices a borrower has today, priced by the money engine (this installment, the payoff, the
//! cooling-off exit while it is open, an extension where the product allows one); the payment types of each market
//! (India: UPI or bank transfer to the collection account; Indonesia: a virtual account from a provider); payments
//! with a reference unique to each, idempotent on the client's key; UTR submission; and finance's queue, confirm
//! and reject. A confirmation posts the payment's ledger entry and any status change in one transaction, once; an
//! amount other than the payment's is held for finance, never credited.

mod create;
mod finance;
mod instructions;
mod lifecycle;
mod utr;

pub use create::*;
pub use finance::*;
pub use instructions::*;
pub(crate) use lifecycle::*;
pub use utr::*;

use kilat_domain::{Code, EntryKind, Market, Money, OrderEvent, OrderState};
use time::Date;

use super::{Loan, LoanView, load_in, own_loan_and_waiting};
use crate::auth::Borrower;
use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::ledger::post_in as post;
use crate::orders::{self, Actor};
use crate::providers::{AccountRequest, SimulatedVirtualAccounts, VirtualAccount};
use crate::services::Services;
use crate::settings::PaymentSettings;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::{date_code, parse_date};
use crate::store::payments::{Issued, NewPayment, PaymentMove, PaymentRow};

/// Who works the repayment queue and decides on payments.
pub const FINANCE_ROLES: &[Role] = &[Role::Finance];
/// The longest reason finance may give for a rejection.
pub const MAX_REASON_CHARS: usize = 500;
const QUEUE_LIMIT: i64 = 200;

pub use kilat_domain::{
    PaymentEvent, PaymentMethod, PaymentState as PaymentStatus, Priced, RepaymentChoice,
};

/// The payment types of a market as the settings offer them, in the order shown: India UPI and bank transfer,
/// Indonesia the virtual account; then Dragonpay where the market offers it and its postback is enabled.
pub fn methods_of_market(settings: &PaymentSettings, market: Market) -> Vec<PaymentMethod> {
    let (mut methods, dragonpay) = match market {
        Market::India => (
            vec![PaymentMethod::Upi, PaymentMethod::BankTransfer],
            settings.india.dragonpay,
        ),
        Market::Indonesia => (
            vec![PaymentMethod::VirtualAccount],
            settings.indonesia.dragonpay,
        ),
    };
    if dragonpay && settings.dragonpay.active().is_some() {
        methods.push(PaymentMethod::Dragonpay);
    }
    methods
}

fn unavailable() -> Error {
    Refusal::ChoiceUnavailable.into()
}

/// Prices `choice` for the loan on `on` by the money engine's rules ([`kilat_domain::settle::price`]); a choice the
/// loan does not offer today (a closed loan, the cooling-off exit once overdue) is `choice_unavailable`.
pub fn price(
    s: &Services,
    loan: &LoanView,
    choice: RepaymentChoice,
    on: Date,
) -> Result<Priced, Error> {
    let status = loan.order.status;
    if !status.is_active_loan() {
        return Err(unavailable());
    }
    kilat_domain::settle::price(
        &loan.plan,
        &loan.balances,
        choice,
        on,
        &s.caps,
        status != OrderState::Disbursed,
    )
    // An extension over an OJK cap names the cap; any other refusal is "not available".
    .map_err(|e| Error::extension_refused(e, loan.plan.quote.currency))
}

/// What the borrower may pay today.
pub struct Repayment {
    pub loan: LoanView,
    pub today: Date,
    pub choices: Vec<Priced>,
    /// A submitted UTR (or a held amount) waits for finance: "payment being checked".
    pub verifying: bool,
    /// What is past its due date, in its parts, and tomorrow's late charge; none when nothing is.
    pub arrears: Option<kilat_domain::Arrears>,
    /// The cooling-off exit in its parts with its last day, while it is offered.
    pub cooling_off: Option<kilat_domain::CoolingOffOffer>,
    /// The payment whose UTR waits for finance, if any.
    pub verifying_utr: Option<VerifyingUtr>,
}

/// The repayment choices of the borrower's loan today, each with its exact amount.
pub async fn repayment(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<Repayment, Error> {
    let (loan, any_waiting) = own_loan_and_waiting(s, borrower, order_no).await?;
    let today = loan.today(s);
    let choices: Vec<Priced> = RepaymentChoice::ALL
        .iter()
        .filter_map(|c| price(s, &loan, *c, today).ok())
        .collect();
    // The payments waiting for finance (a UTR submitted, an amount held) freeze the installments they cover, as in
    // the overdue job, so tomorrow's late charge is the job's own. Read only when the loan's read counted one.
    let waiting: Vec<_> = if any_waiting {
        s.db.payments_of_order(&loan.order.id)
            .await?
            .into_iter()
            .filter(|p| p.status == "verifying" || p.status == "held")
            .collect()
    } else {
        Vec::new()
    };
    let verifying = !waiting.is_empty();
    let mut frozen = std::collections::BTreeSet::new();
    for p in &waiting {
        // An unknown choice freezes the whole loan, as the job does.
        let choice = RepaymentChoice::from_code(&p.choice).unwrap_or(RepaymentChoice::Payoff);
        frozen.extend(kilat_domain::frozen_installments(
            &loan.plan,
            choice,
            parse_installment(p.installment),
            parse_installment(p.installment_to),
        ));
    }
    let verifying_utr = if waiting.iter().any(|p| p.status == "verifying") {
        verifying_utr(s, &loan).await?
    } else {
        None
    };
    let arrears = if loan.order.status.is_active_loan() {
        kilat_domain::arrears(&loan.plan, &loan.balances, &frozen, today, &s.caps)
            .map_err(|e| Error::Internal(anyhow::Error::from(e).context("arrears")))?
    } else {
        None
    };
    // Offered exactly when the choice is priced (not once overdue, nor once what was repaid covers it).
    let cooling_off = choices
        .iter()
        .any(|c: &Priced| c.choice == RepaymentChoice::CoolingOff)
        .then(|| kilat_domain::cooling_off_offer(&loan.plan, &loan.balances, today).ok())
        .flatten();
    Ok(Repayment {
        loan,
        today,
        choices,
        verifying,
        arrears,
        cooling_off,
        verifying_utr,
    })
}

/// The extension the borrower's loan offers today: its fee, the installment that moves and the revised schedule.
/// A loan without one (the product allows none, the maximum is reached, closed) is `choice_unavailable`; while a
/// payment of the loan waits for finance (a UTR being checked, an amount held) it is `payment_waiting`: money that may
/// have paid the installment is decided first, so a fee never buys days on an installment paid already.
pub async fn extension_offer(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<(LoanView, Priced), Error> {
    let (loan, waiting) = own_loan_and_waiting(s, borrower, order_no).await?;
    if waiting {
        return Err(Refusal::PaymentWaiting.into());
    }
    let today = loan.today(s);
    let priced = price(s, &loan, RepaymentChoice::Extension, today)?;
    Ok((loan, priced))
}

/// A payment with its parsed codes and its instructions.
pub struct Payment {
    pub row: PaymentRow,
    pub choice: RepaymentChoice,
    pub method: PaymentMethod,
    pub status: PaymentStatus,
    pub instructions: Instructions,
}

pub(crate) fn payment_of(s: &Services, row: PaymentRow) -> Result<Payment, Error> {
    let code = |what: &str, v: &str| anyhow::anyhow!("payment {}: unknown {what} {v:?}", row.id);
    let choice =
        RepaymentChoice::from_code(&row.choice).ok_or_else(|| code("choice", &row.choice))?;
    let method =
        PaymentMethod::from_code(&row.method).ok_or_else(|| code("method", &row.method))?;
    let status =
        PaymentStatus::from_code(&row.status).ok_or_else(|| code("status", &row.status))?;
    let market = if row.currency == kilat_domain::Currency::Inr {
        Market::India
    } else {
        Market::Indonesia
    };
    let instructions = instructions(s, market, method, Some(&row));
    Ok(Payment {
        row,
        choice,
        method,
        status,
        instructions,
    })
}

/// The payments of the borrower's loan, oldest first: what each asked, what arrived, and what became of it (credited,
/// held for finance, owed back, refunded). Another borrower's loan is not found.
pub async fn of_loan(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<Vec<Payment>, Error> {
    let order = orders::own(s, borrower, order_no).await?;
    s.db.payments_of_order(&order.id)
        .await?
        .into_iter()
        .map(|row| payment_of(s, row))
        .collect()
}

/// The borrower's payment; another borrower's is not found.
pub async fn own_payment(
    s: &Services,
    borrower: &Borrower,
    payment_id: &str,
) -> Result<Payment, Error> {
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .filter(|p| p.borrower_id == borrower.id)
            .ok_or(Error::NotFound)?;
    payment_of(s, row)
}

/// A payment as the audit trail records it: what was asked, what was received and what is owed back of it (minor
/// units; null while none), its status and UTR.
fn audit_json(row: &PaymentRow, status: PaymentStatus, utr: Option<&str>) -> Result<String, Error> {
    Ok(serde_json::to_string(&serde_json::json!({
        "paymentId": row.id,
        "orderNo": row.order_no,
        "choice": row.choice,
        "amount": row.amount,
        "receivedAmount": row.received_amount,
        "refundAmount": row.refund_amount,
        "status": status.code(),
        "utr": utr.or(row.utr.as_deref()),
    }))
    .map_err(anyhow::Error::from)?)
}
