//! The operators' work on orders (PRODUCT.md §6): the review queue, an order as an operator sees it (the borrower's
//! certification masked, or unmasked for reviewers with every such view audited), approving and rejecting with a
//! reason through the order lifecycle, and the audit search. Every function checks the operator's roles first.

use kilat_domain::{Currency, Market, OrderEvent, OrderState};

use crate::auth::operators::{Operator, Role};
use crate::auth::{Borrower, unseal_borrower, unseal_phone};
use crate::certification::{Certification, StepData};
use crate::error::{Error, FieldErrors, FieldProblem};
use crate::i18n::{self, Lang};
use crate::orders::{self, Actor, OrderDetail};
use crate::services::Services;
use crate::servicing;
use crate::store::audit::{AuditEntry, AuditFilter, NewAuditEntry};

/// Who may read the queue, orders, and the audit trail; who decides.
pub const QUEUE_ROLES: &[Role] = &[Role::Reviewer, Role::Support];
pub const ORDER_ROLES: &[Role] = &[Role::Reviewer, Role::Finance, Role::Support];
pub const DECIDE_ROLES: &[Role] = &[Role::Reviewer];
pub const AUDIT_ROLES: &[Role] = &[Role::Admin, Role::Support];

/// The longest reason an operator may give.
pub const MAX_REASON_CHARS: usize = 500;
const QUEUE_LIMIT: i64 = 200;
const AUDIT_LIMIT: i64 = 200;

/// One order waiting for review.
pub struct QueueItem {
    pub order_no: String,
    pub borrower_id: String,
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    pub currency: Currency,
    pub amount: i64,
    pub apr: i64,
    pub apr_display: String,
    pub created_at: i64,
    /// Whole seconds since the borrower confirmed.
    pub age_secs: i64,
}

/// The review queue of a market: orders in `pending_review`, oldest first.
pub async fn queue(s: &Services, op: &Operator, market: Market) -> Result<Vec<QueueItem>, Error> {
    op.require_any(QUEUE_ROLES)?;
    let now = s.clock.now_ms();
    s.db.orders_in_status(market, OrderState::PendingReview, QUEUE_LIMIT)
        .await?
        .into_iter()
        .map(|row| {
            let phone = unseal_phone(&s.secrets, &row.borrower_id, market, &row.phone_enc)?;
            Ok(QueueItem {
                phone_masked: phone.masked(),
                age_secs: (now - row.created_at).max(0) / 1000,
                order_no: row.order_no,
                borrower_id: row.borrower_id,
                product_code: row.product_code,
                product_name: row.product_name,
                term_code: row.term_code,
                currency: row.currency,
                amount: row.amount,
                apr: row.apr,
                apr_display: row.apr_display,
                created_at: row.created_at,
            })
        })
        .collect()
}

/// An order as an operator sees it.
pub struct OrderView {
    pub detail: OrderDetail,
    pub review_reason: Option<String>,
    pub borrower_id: String,
    pub phone_masked: String,
    /// Each certification step done, with its completion time.
    pub certification: Vec<(StepData, i64)>,
    /// True when ID and account numbers are shown in full (reviewers); the view was then audited.
    pub unmasked: bool,
    /// Once paid out: the payout, the plan replayed from the ledger, the payments and the ledger.
    pub loan: Option<servicing::LoanRecord>,
    /// For finance, once approved: where the loan is (or was) paid to, in full; the view was then audited.
    pub beneficiary: Option<servicing::payout::Beneficiary>,
}

/// One order with its KFS, timeline and the borrower's certification. Reviewers see ID and account numbers in full,
/// and each such view is written to the audit trail (`view_unmasked`) before the data is returned; the other roles
/// get them masked.
pub async fn order(s: &Services, op: &Operator, order_no: &str) -> Result<OrderView, Error> {
    op.require_any(ORDER_ROLES)?;
    let row =
        s.db.order_by_no(order_no.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let borrower = borrower_of(s, &row.borrower_id).await?;
    let unmasked = op.has(Role::Reviewer);
    if unmasked {
        let mut tx = s.db.begin().await?;
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "operator",
            actor_id: Some(&op.id),
            action: "view_unmasked",
            entity: "order",
            entity_id: &row.id,
            before_json: None,
            after_json: None,
            at: s.clock.now_ms(),
        })
        .await?;
        tx.commit().await?;
    }
    let review_reason = row.review_reason.clone();
    // A deleted account (docs/ACCOUNT.md) has no phone or certification left; its loan records stay.
    let (phone_masked, steps) = match &borrower {
        Some(borrower) => (
            borrower.phone.masked(),
            Certification::load(s, borrower)
                .await?
                .steps_with_times()
                .collect(),
        ),
        None => (
            i18n::text(Lang::En, "account.erased").to_owned(),
            Vec::new(),
        ),
    };
    let loan = servicing::record(s, row.clone()).await?;
    let beneficiary = if row.status == OrderState::Approved || loan.is_some() {
        servicing::payout::beneficiary_for_finance(s, op, &row).await?
    } else {
        None
    };
    Ok(OrderView {
        loan,
        beneficiary,
        borrower_id: row.borrower_id.clone(),
        detail: orders::detail_of(s, row).await?,
        review_reason,
        phone_masked,
        certification: steps,
        unmasked,
    })
}

/// A reviewer's decision on an order in review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
}

/// Approves or rejects an order through the lifecycle (status, timeline and audit, with the operator as actor) and
/// stores the reason, all in one transaction. The reason is required: the borrower is shown it.
pub async fn decide(
    s: &Services,
    op: &Operator,
    order_no: &str,
    decision: Decision,
    reason: Option<&str>,
) -> Result<OrderState, Error> {
    op.require_any(DECIDE_ROLES)?;
    let reason = reason.map(str::trim).unwrap_or_default();
    let mut errors = FieldErrors::default();
    if reason.is_empty() {
        errors.add("reason", FieldProblem::required());
    } else if reason.chars().count() > MAX_REASON_CHARS {
        errors.add("reason", FieldProblem::too_long(MAX_REASON_CHARS));
    }
    errors.into_result()?;
    let row =
        s.db.order_by_no(order_no.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let event = match decision {
        Decision::Approve => OrderEvent::Approve,
        Decision::Reject => OrderEvent::Reject,
    };
    let mut tx = s.db.begin().await?;
    let actor = Actor::Operator(op.id.clone());
    let next = orders::apply_in(&mut tx, &row.id, event, &actor, s.clock.now_ms()).await?;
    tx.set_review_reason(&row.id, reason).await?;
    tx.commit().await?;
    Ok(next)
}

/// What the audit search filters on, as the operator gives it.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery<'a> {
    pub order_no: Option<&'a str>,
    /// An operator's username or id.
    pub operator: Option<&'a str>,
    pub from: Option<i64>,
    pub to: Option<i64>,
}

/// Audit entries matching every filter given, newest first (at most 200). An order number or operator that does not
/// exist matches nothing.
pub async fn audit(
    s: &Services,
    op: &Operator,
    query: &AuditQuery<'_>,
) -> Result<Vec<AuditEntry>, Error> {
    op.require_any(AUDIT_ROLES)?;
    let order_id = match query.order_no.map(str::trim).filter(|n| !n.is_empty()) {
        Some(no) => match s.db.order_by_no(no).await? {
            Some(order) => Some(order.id),
            None => return Ok(Vec::new()),
        },
        None => None,
    };
    let operator_id = match query.operator.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => match s
            .db
            .operator_by_username(&name.to_ascii_lowercase())
            .await?
        {
            Some(found) => Some(found.id),
            None => Some(name.to_owned()),
        },
        None => None,
    };
    Ok(s.db
        .search_audit(
            &AuditFilter {
                order_id: order_id.as_deref(),
                operator_id: operator_id.as_deref(),
                from: query.from,
                to: query.to,
            },
            AUDIT_LIMIT,
        )
        .await?)
}

/// An order's borrower, or `None` when they deleted their account (its phone is a tombstone: nothing to unseal).
async fn borrower_of(s: &Services, borrower_id: &str) -> Result<Option<Borrower>, Error> {
    let row =
        s.db.borrower_by_id(borrower_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("an order's borrower {borrower_id} is missing"))?;
    if row.phone_enc.is_empty() {
        return Ok(None);
    }
    Ok(Some(unseal_borrower(&s.secrets, row)?))
}
