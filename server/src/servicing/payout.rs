//! Releasing a loan's funds (finance): the payout provider sends the money, and in the same transaction the payout
//! date becomes the loan's start (the accepted schedule moved there), the ledger's opening entries are written and
//! the order moves to `disbursed` through `orders::apply_in`, with its audit entry.

use kilat_domain::{Code, Currency, Market, OrderEvent, OrderState};
use serde::Serialize;
use time::Date;

use crate::auth::operators::{Operator, Role};
use crate::auth::unseal_phone;
use crate::error::{Error, FieldErrors, FieldProblem};
use crate::orders::{self, Actor};
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::NewPayout;
use crate::store::orders::OrderRow;

/// Who may release funds.
pub const PAYOUT_ROLES: &[Role] = &[Role::Finance];
/// The most orders the payout list shows.
const AWAITING_LIMIT: i64 = 200;
/// The longest bank reference an operator may type.
pub const MAX_BANK_REFERENCE: usize = 64;

/// What a payout provider is asked to send.
pub struct PayoutRequest<'a> {
    pub order: &'a OrderRow,
    /// Minor units: the net amount of the accepted KFS.
    pub amount: i64,
    /// What the operator typed, for a provider that records a transfer made outside the system.
    pub bank_reference: Option<&'a str>,
}

/// A payout the provider made (or recorded).
pub struct PayoutDone {
    pub provider: &'static str,
    pub bank_reference: String,
}

/// Sends a loan's funds to the borrower's account.
pub trait PayoutProvider: Send + Sync {
    fn name(&self) -> &'static str;
    /// Makes (or records) the transfer; a refusal is a field error on what the operator gave.
    fn pay(&self, request: &PayoutRequest<'_>) -> Result<PayoutDone, Error>;
}

/// The default provider: finance has made the transfer in the bank's portal and types its reference, which is
/// recorded as it is (trimmed; 4 to 64 characters of letters, digits, `-`, `/`, `_`, `.`).
pub struct ManualPayout;

impl PayoutProvider for ManualPayout {
    fn name(&self) -> &'static str {
        "manual"
    }

    fn pay(&self, request: &PayoutRequest<'_>) -> Result<PayoutDone, Error> {
        let reference = check_bank_reference(request.bank_reference)?;
        Ok(PayoutDone {
            provider: self.name(),
            bank_reference: reference,
        })
    }
}

/// The outcome of a payout.
pub struct Disbursed {
    pub order_no: String,
    pub status: OrderState,
    pub payout_date: Date,
    pub amount: i64,
    pub provider: &'static str,
    pub bank_reference: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PayoutAudit<'a> {
    order_no: &'a str,
    provider: &'a str,
    bank_reference: &'a str,
    amount: i64,
    payout_date: String,
}

/// Releases an approved order's funds through the payout provider of the services (finance). In one transaction: the order moves to
/// `disbursed` (an order not approved is `invalid_transition`, and a second payout finds it disbursed), the plan is
/// fixed at today's business date, the ledger's opening entries and the payout are written, and the audit records
/// who paid what.
pub async fn disburse(
    s: &Services,
    op: &Operator,
    order_no: &str,
    bank_reference: Option<&str>,
) -> Result<Disbursed, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let order =
        s.db.order_by_no(order_no.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let payout_date = s.clock.today(order.market);
    let plan = super::plan_at_payout(s, &order, payout_date).await?;
    let amount = plan.quote.net_disbursed.minor();
    let done = s.payments.payouts.pay(&PayoutRequest {
        order: &order,
        amount,
        bank_reference,
    })?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let actor = Actor::Operator(op.id.clone());
    // First: the status change locks the order and refuses anything but `approved`, so a second payout stops here.
    let status = orders::apply_in(&mut tx, &order.id, OrderEvent::Disburse, &actor, now).await?;
    let plan_json = serde_json::to_string(&plan).map_err(anyhow::Error::from)?;
    tx.insert_loan(&order.id, payout_date, &plan_json, now)
        .await?;
    crate::ledger::open_in(&mut tx, &order.id, &plan, now).await?;
    tx.insert_payout(&NewPayout {
        order_id: &order.id,
        provider: done.provider,
        bank_reference: &done.bank_reference,
        amount,
        operator_id: Some(&op.id),
        now,
    })
    .await?;
    let after = serde_json::to_string(&PayoutAudit {
        order_no: &order.order_no,
        provider: done.provider,
        bank_reference: &done.bank_reference,
        amount,
        payout_date: payout_date.to_string(),
    })
    .map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.create",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    tracing::info!(order_no = %order.order_no, provider = done.provider, status = status.code(), "loan paid out");
    Ok(Disbursed {
        order_no: order.order_no,
        status,
        payout_date,
        amount,
        provider: done.provider,
        bank_reference: done.bank_reference,
    })
}

/// An approved order waiting for its payout.
pub struct AwaitingPayout {
    pub order_no: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: Currency,
    /// Minor units: the sanctioned amount.
    pub amount: i64,
    /// Minor units: what the payout sends (the accepted KFS's net amount).
    pub net_disbursed: i64,
    /// Epoch milliseconds.
    pub approved_at: i64,
    /// Whole seconds since the approval.
    pub age_secs: i64,
}

/// Finance's payout list of a market: approved orders not yet paid out, the longest waiting first (at most 200).
pub async fn awaiting(
    s: &Services,
    op: &Operator,
    market: Market,
) -> Result<Vec<AwaitingPayout>, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let now = s.clock.now_ms();
    s.db.orders_awaiting_payout(market, AWAITING_LIMIT)
        .await?
        .into_iter()
        .map(|row| {
            let phone = unseal_phone(&s.secrets, &row.borrower_id, market, &row.phone_enc)?;
            Ok(AwaitingPayout {
                phone_masked: phone.masked(),
                age_secs: (now - row.approved_at).max(0) / 1000,
                order_no: row.order_no,
                product_code: row.product_code,
                product_name: row.product_name,
                term_code: row.term_code,
                currency: row.currency,
                amount: row.amount,
                net_disbursed: row.net_disbursed,
                approved_at: row.approved_at,
            })
        })
        .collect()
}

/// Checks a bank's reference as finance types it (a payout, a refund): 4 to 64 letters, digits and `- / _ .`,
/// trimmed; a field error on `bankReference` otherwise.
pub(crate) fn check_bank_reference(text: Option<&str>) -> Result<String, Error> {
    let reference = text.map(str::trim).unwrap_or_default();
    let problem = if reference.is_empty() {
        Some(FieldProblem::required())
    } else if reference.chars().count() > MAX_BANK_REFERENCE {
        Some(FieldProblem::too_long(MAX_BANK_REFERENCE))
    } else if reference.len() < 4
        || !reference
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-/_.".contains(&b))
    {
        Some(FieldProblem::new("field.bank_reference"))
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::Validation(FieldErrors::one(
            "bankReference",
            problem,
        ))),
        None => Ok(reference.to_owned()),
    }
}
