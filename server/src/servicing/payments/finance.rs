//! Finance's work on payments: the queue, confirming a UTR payment, resolving a held amount (credit it or refund it),
//! recording a refund sent, rejecting a payment without a transfer.

use super::*;

/// One payment in finance's queue, with its loan's outstanding amount.
pub struct QueuedPayment {
    pub payment: Payment,
    /// Minor units: everything the loan has outstanding now.
    pub outstanding: Money,
    pub market: Market,
}

/// Finance's queue: payments with a UTR to verify, amounts held, and refunds to send, oldest first.
pub async fn queue(s: &Services, op: &Operator) -> Result<Vec<QueuedPayment>, Error> {
    op.require_any(FINANCE_ROLES)?;
    let rows =
        s.db.payments_in(
            &[
                PaymentStatus::Verifying.code(),
                PaymentStatus::Held.code(),
                PaymentStatus::RefundDue.code(),
            ],
            QUEUE_LIMIT,
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let order =
            s.db.order_by_no(&row.order_no)
                .await?
                .ok_or_else(|| anyhow::anyhow!("payment {}: order missing", row.id))?;
        let market = order.market;
        let loan = load(s, order).await?;
        out.push(QueuedPayment {
            outstanding: loan
                .balances
                .outstanding
                .total()
                .map_err(|e| Error::Internal(e.into()))?,
            market,
            payment: payment_of(s, row)?,
        });
    }
    Ok(out)
}

/// What a confirmation did.
pub struct Confirmed {
    pub payment: Payment,
    pub order_status: OrderState,
    /// The sequence number of the ledger entry posted; none when nothing was credited.
    pub entry: Option<u64>,
}

/// Confirms a payment finance has received `received` for (finance). In one transaction, with the order locked, once
/// (a second confirmation is `payment_not_open` and posts nothing): a UTR payment (`verifying`) for the amount asked
/// is credited as priced, another amount is `held`; a held payment is credited with the amount finance confirms, by
/// the allocation rule (a part payment stays a part payment; beyond the payoff is owed back). Money for a loan that
/// owes nothing is `refund_due`.
pub async fn confirm(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    received: Option<i64>,
) -> Result<Confirmed, Error> {
    op.require_any(FINANCE_ROLES)?;
    let received = received
        .filter(|a| *a > 0)
        .ok_or_else(|| Error::field("amount", FieldProblem::new("field.positive_amount")))?;
    decide(s, op, payment_id, received, None).await
}

/// Resolves a held payment (finance) in one step: `credit` the amount received (as [`confirm`] does), or `refund`
/// it: the whole amount becomes `refund_due`. Audited; the borrower sees the outcome on the payment.
pub async fn resolve(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    action: Option<&str>,
) -> Result<Confirmed, Error> {
    op.require_any(FINANCE_ROLES)?;
    let decision = match action.map(str::trim) {
        Some("credit") => Decision::Credit,
        Some("refund") => Decision::Refund,
        None | Some("") => return Err(Error::field("action", FieldProblem::required())),
        Some(_) => {
            return Err(Error::field(
                "action",
                FieldProblem::new("field.resolve_action"),
            ));
        }
    };
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let received = row.received_amount.unwrap_or(row.amount);
    decide(s, op, &row.id, received, Some(decision)).await
}

/// Finance's decision on a payment, inside one transaction with the order locked.
async fn decide(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    received: i64,
    decision: Option<Decision>,
) -> Result<Confirmed, Error> {
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let now = s.clock.now_ms();
    let actor = Actor::Operator(op.id.clone());
    let mut tx = s.db.begin().await?;
    let mut loan = load_in(&mut tx, &row.order_id).await?;
    let row = tx.payment_in_tx(&row.id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    let decision = match (payment.status, decision) {
        (PaymentStatus::Verifying, None) => Decision::AsAsked,
        (PaymentStatus::Held, None) => Decision::Credit,
        (PaymentStatus::Held, Some(d)) => d,
        _ => return Err(Refusal::PaymentNotOpen.into()),
    };
    let settled = settle_in(
        s,
        &mut tx,
        &mut loan,
        &payment,
        received,
        decision,
        Some(&op.id),
        &actor,
        now,
    )
    .await?;
    let after = PaymentRow {
        received_amount: Some(received),
        refund_amount: (settled.refund > 0).then_some(settled.refund),
        ..payment.row.clone()
    };
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: settled_action(settled.status),
        entity: "order",
        entity_id: &loan.order.id,
        before_json: Some(&audit_json(&payment.row, payment.status, None)?),
        after_json: Some(&audit_json(&after, settled.status, None)?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row =
        s.db.payment(&payment.row.id)
            .await?
            .ok_or(Error::NotFound)?;
    Ok(Confirmed {
        payment: payment_of(s, row)?,
        order_status: settled.order_status,
        entry: settled.entry,
    })
}

/// Records the bank transfer that sent a payment's refund back (finance): `refund_due` → `refunded` once, with the
/// bank's reference; audited. The borrower sees it on the payment.
pub async fn record_refund(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    bank_reference: Option<&str>,
) -> Result<Payment, Error> {
    op.require_any(FINANCE_ROLES)?;
    let reference = crate::providers::check_bank_reference(bank_reference)?;
    let reference = reference.as_str();
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let before = payment_of(s, row)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    refund_sent(
        &mut tx,
        &before.row.id,
        before.status,
        reference,
        &op.id,
        now,
    )
    .await?;
    let after = serde_json::json!({
        "paymentId": before.row.id,
        "orderNo": before.row.order_no,
        "refundAmount": before.row.refund_amount,
        "bankReference": reference,
        "status": PaymentStatus::Refunded.code(),
    })
    .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payment.refunded",
        entity: "order",
        entity_id: &before.row.order_id,
        before_json: Some(&audit_json(&before.row, before.status, None)?),
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row = s.db.payment(&before.row.id).await?.ok_or(Error::NotFound)?;
    payment_of(s, row)
}

/// Rejects a payment waiting for finance (`verifying` or `held`) with the reason the borrower is shown (finance).
/// Nothing is posted; the UTR stays used.
pub async fn reject(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    reason: Option<&str>,
) -> Result<Payment, Error> {
    op.require_any(FINANCE_ROLES)?;
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
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let before = payment_of(s, row)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    move_payment(
        &mut tx,
        &before.row.id,
        before.status,
        PaymentEvent::Reject,
        MoveFields {
            reason: Some(reason),
            decided_by: Some(&op.id),
            ..MoveFields::default()
        },
        now,
    )
    .await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payment.reject",
        entity: "order",
        entity_id: &before.row.order_id,
        before_json: Some(&audit_json(&before.row, before.status, None)?),
        after_json: Some(&audit_json(&before.row, PaymentStatus::Rejected, None)?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row = s.db.payment(&before.row.id).await?.ok_or(Error::NotFound)?;
    payment_of(s, row)
}
