//! Releasing a loan's funds (finance): the payout provider sends the money, and in the same transaction the payout
//! date becomes the loan's start (the accepted schedule moved there), the ledger's opening entries are written and
//! the order moves to `disbursed` through `orders::apply_in`, with its audit entry.

use kilat_domain::{Code, Currency, Market, OrderEvent, OrderState};
use serde::Serialize;
use time::Date;

use crate::auth::operators::{Operator, Role};
use crate::auth::unseal_phone;
use crate::error::Error;
use crate::orders::{self, Actor};
use crate::providers::PayoutRequest;
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::NewPayout;

/// Who may release funds.
pub const PAYOUT_ROLES: &[Role] = &[Role::Finance];
/// The most orders the payout list shows.
const AWAITING_LIMIT: i64 = 200;
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
