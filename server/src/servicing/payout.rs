//! Releasing a loan's funds (finance): the payout provider sends the money, and in the same transaction the payout
//! date becomes the loan's start (the accepted schedule moved there), the ledger's opening entries are written and
//! the order moves to `disbursed` through `orders::apply_in`, with its audit entry.
//!
//! Maker-checker (issue 18): a payout of more than the market's `approval_threshold` is first recorded by one finance
//! operator with the bank's reference and waits (`payout_approvals`, the order stays `approved`); a second, different
//! finance operator approves it, and only then does the loan start. The recording and the approval each take the
//! order's lock, and the approval takes the waiting row off with a conditional delete (never the approver's own), so
//! two approvals at once start the loan once.

use kilat_domain::{Code, Currency, Market, OrderEvent, OrderState};
use serde::Serialize;
use time::Date;

use crate::auth::operators::{Operator, Role};
use crate::auth::unseal_borrower;
use crate::certification::{Certification, Step, StepData, mask_account};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::orders::{self, Actor};
use crate::providers::PayoutRequest;
use crate::providers::manual::check_bank_reference;
use crate::review::MAX_REASON_CHARS;
use crate::services::Services;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::NewPayout;
use crate::store::orders::OrderRow;
use crate::store::payout_ops::PendingPayoutRow;

/// Who may release funds.
pub const PAYOUT_ROLES: &[Role] = &[Role::Finance];
/// Orders per page of the payout list by default, and at most: each row's beneficiary is decrypted and its view
/// audited, so a page is what finance works through at once, not the whole list (the bank file holds every order).
pub const AWAITING_PAGE_SIZE: i64 = 50;
pub const AWAITING_MAX_PAGE_SIZE: i64 = 100;

/// The outcome of a payout.
pub struct Disbursed {
    pub order_no: String,
    pub status: OrderState,
    pub payout_date: Date,
    pub amount: i64,
    pub provider: &'static str,
    pub bank_reference: String,
}

/// A payout recorded above the threshold, waiting for a second finance operator.
pub struct Recorded {
    pub order_no: String,
    /// Still `approved`: the loan has not started.
    pub status: OrderState,
    pub amount: i64,
    pub bank_reference: String,
    /// Epoch milliseconds.
    pub recorded_at: i64,
}

/// What recording a payout did.
pub enum PayoutOutcome {
    /// One operator sufficed: the loan started.
    Disbursed(Disbursed),
    /// Above the market's threshold: recorded, waiting for a second operator's approval.
    AwaitingApproval(Recorded),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PayoutAudit<'a> {
    order_no: &'a str,
    provider: &'a str,
    bank_reference: &'a str,
    amount: i64,
    payout_date: String,
    /// The operator who recorded it, when a second one approved it.
    #[serde(skip_serializing_if = "Option::is_none")]
    recorded_by: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RecordedAudit<'a> {
    order_no: &'a str,
    bank_reference: &'a str,
    amount: i64,
    approval_threshold: i64,
}

/// Whether a payout of `order` needs a second operator: its net amount is above the market's threshold.
pub fn needs_approval(s: &Services, order: &OrderRow) -> bool {
    order.net_disbursed > s.payouts.of(order.market).approval_threshold
}

/// Releases an approved order's funds (finance) with the bank's reference of the transfer. Up to the market's
/// threshold, in one transaction: the order moves to `disbursed` (an order not approved is `invalid_transition`, and a
/// second payout finds it disbursed), the plan is fixed at today's business date, the ledger's opening entries and the
/// payout are written, and the audit records who paid what. Above it, the payout is recorded and waits for a second
/// operator ([`approve`]); a second recording is `payout_awaiting_approval`. An order in a bank file whose result has
/// not come back is `payout_sent`, checked with the order locked: the bank may be sending its money, and a transfer by
/// hand would pay the borrower twice (the bank's result, or putting it back, decides it).
pub async fn disburse(
    s: &Services,
    op: &Operator,
    order_no: &str,
    bank_reference: Option<&str>,
) -> Result<PayoutOutcome, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    pay_or_record(s, op, &order, bank_reference, Sent::ByHand).await
}

/// How the payout's money went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    /// A transfer finance made and records: refused for an order in a bank file (its money may be on its way).
    ByHand,
    /// A success line of the bank's result for the file the order is in.
    InBankFile,
}

/// The payout of one order as [`disburse`] makes it (also each line of an imported bank result file).
pub(crate) async fn pay_or_record(
    s: &Services,
    op: &Operator,
    order: &OrderRow,
    bank_reference: Option<&str>,
    sent: Sent,
) -> Result<PayoutOutcome, Error> {
    if needs_approval(s, order) {
        return record(s, op, order, bank_reference, sent)
            .await
            .map(PayoutOutcome::AwaitingApproval);
    }
    let payout_date = s.clock.today(order.market);
    let plan = super::plan_at_payout(s, order, payout_date).await?;
    let amount = plan.quote.net_disbursed.minor();
    let done = s.payments.payouts.pay(&PayoutRequest {
        order,
        amount,
        bank_reference,
    })?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if sent == Sent::ByHand {
        tx.order_locked_in_tx(&order.id)
            .await?
            .ok_or(Error::NotFound)?;
        refuse_in_bank_file(&mut tx, &order.id).await?;
    }
    let status = start_loan_in(
        &mut tx,
        &Start {
            order,
            plan: &plan,
            payout_date,
            provider: done.provider,
            bank_reference: &done.bank_reference,
            maker: &op.id,
            checker: None,
            action: "payout.create",
            now,
        },
    )
    .await?;
    tx.commit().await?;
    tracing::info!(order_no = %order.order_no, provider = done.provider, status = status.code(), "loan paid out");
    Ok(PayoutOutcome::Disbursed(Disbursed {
        order_no: order.order_no.clone(),
        status,
        payout_date,
        amount,
        provider: done.provider,
        bank_reference: done.bank_reference,
    }))
}

/// Records a payout above the threshold: the order locked and still approved, one waiting row (the primary key
/// refuses a second), audited `payout.record`.
async fn record(
    s: &Services,
    op: &Operator,
    order: &OrderRow,
    bank_reference: Option<&str>,
    sent: Sent,
) -> Result<Recorded, Error> {
    let reference = check_bank_reference(bank_reference)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let locked = tx
        .order_locked_in_tx(&order.id)
        .await?
        .ok_or(Error::NotFound)?;
    if locked.status != OrderState::Approved {
        return Err(Refusal::InvalidTransition.into());
    }
    if sent == Sent::ByHand {
        refuse_in_bank_file(&mut tx, &order.id).await?;
    }
    if let Some(other) = tx
        .take_transfer_reference(&reference, &order.id, "payout")
        .await?
    {
        return Err(reference_taken(&other));
    }
    let row = PendingPayoutRow {
        order_id: order.id.clone(),
        bank_reference: reference.clone(),
        amount: locked.net_disbursed,
        recorded_by: op.id.clone(),
        recorded_at: now,
    };
    if !tx.insert_payout_approval(&row).await? {
        return Err(Refusal::PayoutAwaitingApproval.into());
    }
    let after = serde_json::to_string(&RecordedAudit {
        order_no: &order.order_no,
        bank_reference: &reference,
        amount: row.amount,
        approval_threshold: s.payouts.of(order.market).approval_threshold,
    })
    .map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.record",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    tracing::info!(order_no = %order.order_no, "payout recorded, waiting for a second operator");
    Ok(Recorded {
        order_no: order.order_no.clone(),
        status: OrderState::Approved,
        amount: row.amount,
        bank_reference: reference,
        recorded_at: now,
    })
}

/// `payout_sent` when the order, locked in `tx`, is in a bank file whose result has not come back.
async fn refuse_in_bank_file(tx: &mut Tx, order_id: &str) -> Result<(), Error> {
    if tx.payout_sent_in_tx(order_id).await? {
        return Err(Refusal::PayoutSent.into());
    }
    Ok(())
}

/// What starting a loan writes.
struct Start<'a> {
    order: &'a OrderRow,
    plan: &'a kilat_domain::Plan,
    payout_date: Date,
    provider: &'static str,
    bank_reference: &'a str,
    maker: &'a str,
    checker: Option<&'a str>,
    action: &'static str,
    now: i64,
}

/// Starts the loan inside `tx`: the status change first (it locks the order and refuses anything but `approved`, so
/// a second payout stops there), then the plan, the ledger's opening entries, the payout and its audit entry (by the
/// checker when there is one).
async fn start_loan_in(tx: &mut Tx, start: &Start<'_>) -> Result<OrderState, Error> {
    let order = start.order;
    let actor_id = start.checker.unwrap_or(start.maker);
    let actor = Actor::Operator(actor_id.to_owned());
    let status = orders::apply_in(tx, &order.id, OrderEvent::Disburse, &actor, start.now).await?;
    if start.checker.is_none() && tx.payout_approval_in_tx(&order.id).await?.is_some() {
        // Recorded for approval (the threshold was lower then): only its approval starts the loan.
        return Err(Refusal::PayoutAwaitingApproval.into());
    }
    if let Some(other) = tx
        .take_transfer_reference(start.bank_reference, &order.id, "payout")
        .await?
    {
        return Err(reference_taken(&other));
    }
    let amount = start.plan.quote.net_disbursed.minor();
    let plan_json = serde_json::to_string(start.plan).map_err(anyhow::Error::from)?;
    tx.insert_loan(&order.id, start.payout_date, &plan_json, start.now)
        .await?;
    crate::ledger::open_in(tx, &order.id, start.plan, start.now).await?;
    tx.insert_payout(&NewPayout {
        order_id: &order.id,
        provider: start.provider,
        bank_reference: start.bank_reference,
        amount,
        operator_id: Some(start.maker),
        approved_by: start.checker,
        now: start.now,
    })
    .await?;
    let after = serde_json::to_string(&PayoutAudit {
        order_no: &order.order_no,
        provider: start.provider,
        bank_reference: start.bank_reference,
        amount,
        payout_date: start.payout_date.to_string(),
        recorded_by: start.checker.map(|_| start.maker),
    })
    .map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(actor_id),
        action: start.action,
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(&after),
        at: start.now,
    })
    .await?;
    Ok(status)
}

/// The refusal of a bank reference another transfer has (a payout or refund of `order_no`): each transfer has its own,
/// so the same one again is a slip — finance pasting the previous row's — that would start a loan on money never sent,
/// or mark a refund sent that never left.
pub(crate) fn reference_taken(order_no: &str) -> Error {
    Error::Validation(FieldErrors::one(
        "bankReference",
        FieldProblem::new("field.bank_reference_taken").with("order", order_no),
    ))
}

/// The refusal when no waiting payout could be taken for `checker`: their own, or none.
async fn not_taken(tx: &mut Tx, order_id: &str) -> Error {
    match tx.payout_approval_in_tx(order_id).await {
        Ok(Some(_)) => Refusal::OwnPayoutApproval.into(),
        Ok(None) => Refusal::PayoutNotAwaiting.into(),
        Err(e) => e.into(),
    }
}

/// Approves a payout another finance operator recorded (the checker): the loan starts now, with the recorded bank
/// reference, exactly as a one-step payout, audited `payout.approve`. The recorder's own approval is
/// `own_payout_approval`; none waiting (never recorded, rejected, or approved already) is `payout_not_awaiting`.
pub async fn approve(s: &Services, op: &Operator, order_no: &str) -> Result<Disbursed, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let payout_date = s.clock.today(order.market);
    let plan = super::plan_at_payout(s, &order, payout_date).await?;
    let amount = plan.quote.net_disbursed.minor();
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // The order's lock first: two checkers at once queue here, and the second finds the row gone.
    tx.order_locked_in_tx(&order.id)
        .await?
        .ok_or(Error::NotFound)?;
    let Some(pending) = tx.take_payout_approval(&order.id, &op.id).await? else {
        return Err(not_taken(&mut tx, &order.id).await);
    };
    if pending.amount != amount {
        return Err(anyhow::anyhow!(
            "order {}: payout recorded for {} but the plan sends {amount}",
            order.order_no,
            pending.amount
        )
        .into());
    }
    let done = s.payments.payouts.pay(&PayoutRequest {
        order: &order,
        amount,
        bank_reference: Some(&pending.bank_reference),
    })?;
    let status = start_loan_in(
        &mut tx,
        &Start {
            order: &order,
            plan: &plan,
            payout_date,
            provider: done.provider,
            bank_reference: &done.bank_reference,
            maker: &pending.recorded_by,
            checker: Some(&op.id),
            action: "payout.approve",
            now,
        },
    )
    .await?;
    tx.commit().await?;
    tracing::info!(order_no = %order.order_no, status = status.code(), "payout approved, loan paid out");
    Ok(Disbursed {
        order_no: order.order_no,
        status,
        payout_date,
        amount,
        provider: done.provider,
        bank_reference: done.bank_reference,
    })
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RejectedAudit<'a> {
    order_no: &'a str,
    bank_reference: &'a str,
    amount: i64,
    recorded_by: &'a str,
}

/// The reason an operator gives (a rejected recording, a withdrawn order): required, at most 500 characters, trimmed.
fn required_reason(reason: Option<&str>) -> Result<&str, Error> {
    let reason = reason.map(str::trim).unwrap_or_default();
    if reason.is_empty() {
        return Err(Error::field("reason", FieldProblem::required()));
    }
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(Error::field(
            "reason",
            FieldProblem::too_long(MAX_REASON_CHARS),
        ));
    }
    Ok(reason)
}

/// Rejects a payout another finance operator recorded (the checker), with a reason: the waiting row goes, the order
/// stays approved and not paid (it is in the next bank file again), audited `payout.reject` with what was recorded.
pub async fn reject(
    s: &Services,
    op: &Operator,
    order_no: &str,
    reason: Option<&str>,
) -> Result<String, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let reason = required_reason(reason)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    tx.order_locked_in_tx(&order.id)
        .await?
        .ok_or(Error::NotFound)?;
    let Some(pending) = tx.take_payout_approval(&order.id, &op.id).await? else {
        return Err(not_taken(&mut tx, &order.id).await);
    };
    tx.free_payout_reference(&pending.bank_reference, &order.id)
        .await?;
    let before = serde_json::to_string(&RejectedAudit {
        order_no: &order.order_no,
        bank_reference: &pending.bank_reference,
        amount: pending.amount,
        recorded_by: &pending.recorded_by,
    })
    .map_err(anyhow::Error::from)?;
    let after = serde_json::json!({ "reason": reason }).to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.reject",
        entity: "order",
        entity_id: &order.id,
        before_json: Some(&before),
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(order.order_no)
}

/// Withdraws an approved order the lender cannot pay out (finance): the bank refuses the borrower's account (closed,
/// frozen, a name that does not match), so the order would otherwise wait in every bank file for ever, its bank account
/// locked while it is open and the borrower unable to correct it or apply again. With a reason the borrower reads; the
/// order is cancelled through the lifecycle (`withdraw`), nothing having been paid. Refused (`payout_sent`) while the
/// order is in a bank file finance downloaded and whose result has not come back, or while a payout recorded as sent
/// waits for approval: the money may be on its way. Audited: `payout.withdraw` with the reason, `order.withdraw` with the status change.
pub async fn withdraw(
    s: &Services,
    op: &Operator,
    order_no: &str,
    reason: Option<&str>,
) -> Result<String, Error> {
    op.require_any(PAYOUT_ROLES)?;
    let reason = required_reason(reason)?;
    let order = crate::auth::operators::order_in_scope(s, op, order_no).await?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let locked = tx
        .order_locked_in_tx(&order.id)
        .await?
        .ok_or(Error::NotFound)?;
    if tx.payout_sent_in_tx(&order.id).await?
        || tx.payout_approval_in_tx(&order.id).await?.is_some()
    {
        return Err(Refusal::PayoutSent.into());
    }
    orders::apply_locked_in(
        &mut tx,
        &locked,
        OrderEvent::Withdraw,
        &Actor::Operator(op.id.clone()),
        now,
    )
    .await?;
    tx.set_withdrawal_reason(&order.id, reason).await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payout.withdraw",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(&serde_json::json!({ "reason": reason }).to_string()),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(order.order_no)
}

/// Where a loan is paid to: the borrower's name as on their ID and the bank account of their certification (which
/// cannot change while an order is open).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beneficiary {
    pub name: String,
    /// India: the IFSC prefix (`HDFC`); Indonesia: the bank's code (`014`).
    pub bank_code: String,
    /// The bank's name from the reference data (`server/data/enums.toml`); the code when it is not listed.
    pub bank_name: String,
    /// Digits only, in full.
    pub account_number: String,
    pub account_masked: String,
    /// India only.
    pub ifsc: Option<String>,
}

impl Beneficiary {
    /// What a bank's upload asks as the routing code: the IFSC in India, the bank code in Indonesia.
    pub fn routing_code(&self) -> &str {
        self.ifsc.as_deref().unwrap_or(&self.bank_code)
    }
}

/// The beneficiary of a borrower's payout, decrypted; `None` for a deleted account or a certification without the
/// name or the bank step.
pub(crate) async fn beneficiary_of(
    s: &Services,
    borrower_id: &str,
    market: Market,
) -> Result<Option<Beneficiary>, Error> {
    let Some(row) = s.db.borrower_by_id(borrower_id).await? else {
        return Ok(None);
    };
    if row.phone_enc.is_empty() {
        return Ok(None);
    }
    let borrower = unseal_borrower(&s.secrets, row)?;
    let certification = Certification::load(s, &borrower).await?;
    let (Some(StepData::Base(base)), Some(StepData::Bank(bank))) =
        (certification.get(Step::Base), certification.get(Step::Bank))
    else {
        return Ok(None);
    };
    Ok(Some(Beneficiary {
        name: base.full_name.clone(),
        bank_name: crate::content::reference()
            .bank_name(market, &bank.bank_code)
            .unwrap_or(&bank.bank_code)
            .to_owned(),
        bank_code: bank.bank_code.clone(),
        account_masked: mask_account(&bank.account_number),
        account_number: bank.account_number.clone(),
        ifsc: bank.ifsc.clone(),
    }))
}

/// The beneficiaries of several borrowers of `market` at once (finance's payout list): their name and bank steps in
/// one read, each decrypted; a borrower without both (or erased) has none. A borrower on several rows is read once.
async fn beneficiaries_of(
    s: &Services,
    borrower_ids: &[&str],
    market: Market,
) -> Result<std::collections::HashMap<String, Beneficiary>, Error> {
    let mut ids = borrower_ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    let mut bases = std::collections::HashMap::new();
    let mut banks = std::collections::HashMap::new();
    for (borrower_id, step, data_enc) in
        s.db.certification_steps_of(&ids, &[Step::Base, Step::Bank])
            .await?
    {
        let step = Step::parse(&step).ok_or_else(|| anyhow::anyhow!("unknown step {step}"))?;
        match crate::certification::open_step(s, &borrower_id, step, &data_enc)? {
            StepData::Base(base) => {
                bases.insert(borrower_id, base);
            }
            StepData::Bank(bank) => {
                banks.insert(borrower_id, bank);
            }
            _ => {}
        }
    }
    let reference = crate::content::reference();
    Ok(banks
        .into_iter()
        .filter_map(|(borrower_id, bank)| {
            let base = bases.remove(&borrower_id)?;
            let beneficiary = Beneficiary {
                name: base.full_name,
                bank_name: reference
                    .bank_name(market, &bank.bank_code)
                    .unwrap_or(&bank.bank_code)
                    .to_owned(),
                account_masked: mask_account(&bank.account_number),
                bank_code: bank.bank_code,
                account_number: bank.account_number,
                ifsc: bank.ifsc,
            };
            Some((borrower_id, beneficiary))
        })
        .collect())
}

/// Finance's view of an order's beneficiary (the order view): unmasked, and audited `view_unmasked` before it is
/// returned, as a reviewer's view of the certification is. `None` for other roles (nothing audited) or when the
/// borrower has none.
pub async fn beneficiary_for_finance(
    s: &Services,
    op: &Operator,
    order: &OrderRow,
) -> Result<Option<Beneficiary>, Error> {
    if !op.has(Role::Finance) {
        return Ok(None);
    }
    let Some(beneficiary) = beneficiary_of(s, &order.borrower_id, order.market).await? else {
        return Ok(None);
    };
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "view_unmasked",
        entity: "order",
        entity_id: &order.id,
        before_json: None,
        after_json: Some(r#"{"scope":"beneficiary"}"#),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(Some(beneficiary))
}

/// A payout recorded and waiting for a second operator.
pub struct PendingPayout {
    pub bank_reference: String,
    pub recorded_by: String,
    pub recorded_by_username: String,
    /// Epoch milliseconds.
    pub recorded_at: i64,
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
    /// Where the money goes, unmasked (the view is audited); `None` when the borrower has no bank account on file.
    pub beneficiary: Option<Beneficiary>,
    /// Whether a second finance operator must approve the payout (above the market's threshold).
    pub needs_approval: bool,
    /// The payout recorded and waiting for approval, if any.
    pub pending: Option<PendingPayout>,
    /// When, and by whom, the order was put in a downloaded bank file, if it is in one.
    pub in_bank_file: Option<InBankFile>,
}

/// An order's place in a downloaded bank file.
pub struct InBankFile {
    /// Epoch milliseconds.
    pub sent_at: i64,
    pub sent_by_username: String,
}

/// Finance's payout list of a market, one page (from 1, of `page_size` orders): approved orders not yet paid out, the
/// longest waiting first, each with its beneficiary in full and any payout recorded for approval. Each order shown is audited `view_unmasked`
/// (one multi-row insert) before the list is returned.
pub async fn awaiting(
    s: &Services,
    op: &Operator,
    market: Market,
    page: i64,
    page_size: i64,
) -> Result<Vec<AwaitingPayout>, Error> {
    op.require_any(PAYOUT_ROLES)?;
    op.require_market(market)?;
    let now = s.clock.now_ms();
    let threshold = s.payouts.of(market).approval_threshold;
    let page_size = page_size.clamp(1, AWAITING_MAX_PAGE_SIZE);
    let offset = (page.max(1) - 1).saturating_mul(page_size);
    let rows =
        s.db.orders_awaiting_payout(market, page_size, offset)
            .await?;
    let mut beneficiaries = beneficiaries_of(
        s,
        &rows
            .iter()
            .map(|r| r.borrower_id.as_str())
            .collect::<Vec<_>>(),
        market,
    )
    .await?;
    let mut list = Vec::with_capacity(rows.len());
    let mut viewed = Vec::new();
    for row in rows {
        let beneficiary = beneficiaries.remove(&row.borrower_id);
        if beneficiary.is_some() {
            viewed.push(row.order_id.clone());
        }
        let pending = match (row.pending_reference, row.pending_by, row.pending_at) {
            (Some(bank_reference), Some(recorded_by), Some(recorded_at)) => Some(PendingPayout {
                bank_reference,
                recorded_by,
                recorded_by_username: row.pending_by_name.unwrap_or_default(),
                recorded_at,
            }),
            _ => None,
        };
        let in_bank_file = row.sent_at.map(|sent_at| InBankFile {
            sent_at,
            sent_by_username: row.sent_by_name.unwrap_or_default(),
        });
        list.push(AwaitingPayout {
            in_bank_file,
            phone_masked: row.phone_masked,
            age_secs: (now - row.approved_at).max(0) / 1000,
            needs_approval: row.net_disbursed > threshold,
            order_no: row.order_no,
            product_code: row.product_code,
            product_name: row.product_name,
            term_code: row.term_code,
            currency: row.currency,
            amount: row.amount,
            net_disbursed: row.net_disbursed,
            approved_at: row.approved_at,
            beneficiary,
            pending,
        });
    }
    if !viewed.is_empty() {
        let entries: Vec<NewAuditEntry<'_>> = viewed
            .iter()
            .map(|order_id| NewAuditEntry {
                actor_kind: "operator",
                actor_id: Some(&op.id),
                action: "view_unmasked",
                entity: "order",
                entity_id: order_id,
                before_json: None,
                after_json: Some(r#"{"scope":"beneficiary","view":"payouts"}"#),
                at: now,
            })
            .collect();
        let mut tx = s.db.begin().await?;
        tx.insert_audits(&entries).await?;
        tx.commit().await?;
    }
    Ok(list)
}
