//! Finance's work on payments: the queue, confirming a UTR payment, resolving a held amount (credit it or refund it),
//! recording a refund sent, rejecting a payment without a transfer.

use super::*;
use crate::infra::csv::CsvWriter;

/// One payment in finance's queue, with its loan's outstanding amount.
pub struct QueuedPayment {
    pub payment: Payment,
    /// Minor units: everything the loan has outstanding now.
    pub outstanding: Money,
    pub market: Market,
    /// A refund due that a finance operator said they are sending: their username.
    pub refund_sending_by: Option<String>,
}

/// The statuses finance's queue holds, in its order.
pub const QUEUE_STATUSES: [PaymentStatus; 3] = [
    PaymentStatus::Verifying,
    PaymentStatus::Held,
    PaymentStatus::RefundDue,
];

/// What finance's queue is narrowed to; each filter is optional.
#[derive(Debug, Default, Clone)]
pub struct QueueFilter {
    pub market: Option<Market>,
    pub status: Option<PaymentStatus>,
    /// A UTR, a payment reference or an order number (spaces ignored, any case), matched exactly.
    pub search: Option<String>,
}

impl QueueFilter {
    /// Reads the filter as an operator sends it: a market code, a status code (one of the queue's), a search text.
    pub fn parse(
        market: Option<&str>,
        status: Option<&str>,
        search: Option<&str>,
    ) -> Result<Self, Error> {
        let mut errors = FieldErrors::default();
        // Left out: every market. Given, even empty, it must name one.
        let market = match market.map(str::trim) {
            None => None,
            Some(code) => {
                let found = crate::servicing::reconciliation::parse_market(code);
                if found.is_none() {
                    errors.add("market", FieldProblem::unknown_market());
                }
                found
            }
        };
        let status = match status.map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(code) => {
                let found = PaymentStatus::from_code(code).filter(|s| QUEUE_STATUSES.contains(s));
                if found.is_none() {
                    errors.add("status", FieldProblem::new("field.queue_status"));
                }
                found
            }
        };
        let search: Option<String> = search
            .map(|q| {
                q.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_ascii_uppercase()
            })
            .filter(|q| !q.is_empty());
        if search.as_ref().is_some_and(|q| q.chars().count() > 64) {
            errors.add("q", FieldProblem::too_long(64));
        }
        errors.into_result()?;
        Ok(Self {
            market,
            status,
            search,
        })
    }
}

/// Finance's queue: payments with a UTR to verify, amounts held, and refunds to send, oldest first, narrowed by
/// `filter` (market, status, a UTR / reference / order number); a search without a status also finds the payments it
/// names that finance rejected, after the waiting ones.
pub async fn queue(
    s: &Services,
    op: &Operator,
    filter: &QueueFilter,
) -> Result<Vec<QueuedPayment>, Error> {
    op.require_any(FINANCE_ROLES)?;
    // No market asked: every market the operator sees; one not theirs: a field error on `market`.
    let market = op.market_filter(filter.market)?;
    let statuses: Vec<&str> = match filter.status {
        Some(status) => vec![status.code()],
        None => QUEUE_STATUSES.iter().map(|s| s.code()).collect(),
    };
    let currency = market.map(|m| m.currency().code());
    let mut rows =
        s.db.payments_queue(&statuses, currency, filter.search.as_deref(), QUEUE_LIMIT)
            .await?;
    // A search names one transfer: a payment finance rejected is found by it too, in case its money arrived after
    // all (the statement shows it): finance then confirms what came, and it is held, never lost from view.
    let room = QUEUE_LIMIT - i64::try_from(rows.len()).unwrap_or(QUEUE_LIMIT);
    if let (None, Some(search), true) = (filter.status, filter.search.as_deref(), room > 0) {
        rows.extend(
            s.db.rejected_payments_matching(currency, search, room)
                .await?,
        );
    }
    // Each loan's outstanding as the ledger last left it (its stored position, one read); a loan without one yet
    // (written before migration 0044) is replayed: its plan and ledger in two reads for all of them.
    let mut order_ids: Vec<&str> = rows.iter().map(|r| r.order_id.as_str()).collect();
    order_ids.sort_unstable();
    order_ids.dedup();
    let mut outstanding: std::collections::HashMap<String, Money> =
        s.db.outstanding_of(&order_ids)
            .await?
            .into_iter()
            .map(|(order_id, minor)| (order_id, Money::from_minor(minor)))
            .collect();
    let unknown: Vec<&str> = order_ids
        .iter()
        .copied()
        .filter(|id| !outstanding.contains_key(*id))
        .collect();
    if !unknown.is_empty() {
        let plans = s.db.plans_of(&unknown).await?;
        let mut ledgers = s.db.ledgers(&unknown).await?;
        for (order_id, plan_json) in plans {
            let plan = super::super::plan_from_json(&plan_json)?;
            let entries = super::super::entries_of(ledgers.remove(&order_id).unwrap_or_default())?;
            let balances = super::super::balances_of(&plan, &entries)?;
            let total = balances
                .outstanding
                .total()
                .map_err(|e| Error::Internal(e.into()))?;
            outstanding.insert(order_id, total);
        }
    }
    // Who is sending each refund claimed: one read per operator (a handful of finance staff).
    let mut senders: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for id in rows.iter().filter_map(|r| r.refund_claimed_by.as_deref()) {
        if !senders.contains_key(id) {
            let name =
                s.db.operator_by_id(id)
                    .await?
                    .map_or_else(|| id.to_owned(), |o| o.username);
            senders.insert(id.to_owned(), name);
        }
    }
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let total = *outstanding
            .get(row.order_id.as_str())
            .ok_or(Error::NotFound)?;
        let refund_sending_by = row
            .refund_claimed_by
            .as_ref()
            .filter(|_| row.status == PaymentStatus::RefundDue.code())
            .and_then(|id| senders.get(id).cloned());
        out.push(QueuedPayment {
            outstanding: total,
            market: market_of_currency(row.currency),
            refund_sending_by,
            payment: payment_of(s, row)?,
        });
    }
    Ok(out)
}

/// The market whose currency a payment is in.
fn market_of_currency(currency: kilat_domain::Currency) -> Market {
    if currency == kilat_domain::Currency::Inr {
        Market::India
    } else {
        Market::Indonesia
    }
}

/// How many payments wait in one status of one market.
pub struct QueueCount {
    pub market: Market,
    pub status: PaymentStatus,
    pub count: i64,
}

/// How many payments wait in each status of finance's queue, per market the operator sees (one grouped, indexed
/// count).
pub async fn queue_counts(s: &Services, op: &Operator) -> Result<Vec<QueueCount>, Error> {
    op.require_any(FINANCE_ROLES)?;
    let statuses: Vec<&str> = QUEUE_STATUSES.iter().map(|s| s.code()).collect();
    let mut out = Vec::new();
    for market in op.markets() {
        for status in QUEUE_STATUSES {
            out.push(QueueCount {
                market,
                status,
                count: 0,
            });
        }
    }
    for (currency, status, count) in s.db.payments_queue_counts(&statuses).await? {
        let market = if currency == kilat_domain::Currency::Inr.code() {
            Market::India
        } else {
            Market::Indonesia
        };
        if !op.may_see(market) {
            continue;
        }
        if let Some(slot) = out
            .iter_mut()
            .find(|c| c.market == market && c.status.code() == status)
        {
            slot.count = count;
        }
    }
    Ok(out)
}

fn major(minor: i64) -> String {
    let sign = if minor < 0 { "-" } else { "" };
    let minor = minor.unsigned_abs();
    format!("{sign}{}.{:02}", minor / 100, minor % 100)
}

/// Finance's queue, narrowed by `filter`, as CSV (amounts in major units with two decimals, times in UTC ISO 8601),
/// oldest first; CSV-injection safe.
pub async fn queue_csv(s: &Services, op: &Operator, filter: &QueueFilter) -> Result<String, Error> {
    let rows = queue(s, op, filter).await?;
    let now = s.clock.now_ms();
    let mut csv = CsvWriter::new();
    csv.header(&[
        "order_no",
        "payment_reference",
        "market",
        "currency",
        "status",
        "method",
        "choice",
        "utr",
        "amount_asked",
        "amount_received",
        "refund_amount",
        "outstanding",
        "waiting_since_utc",
        "waiting_hours",
    ]);
    for q in rows {
        let p = &q.payment.row;
        let since =
            time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(p.updated_at) * 1_000_000)
                .map_err(anyhow::Error::from)?
                .format(&time::format_description::well_known::Rfc3339)
                .map_err(anyhow::Error::from)?;
        csv.text(&p.order_no)
            .text(&p.reference)
            .raw(q.market.code())
            .raw(p.currency.code())
            .raw(&p.status)
            .raw(&p.method)
            .raw(&p.choice)
            .opt(p.utr.as_deref())
            .raw(&major(p.amount))
            .raw(&p.received_amount.map(major).unwrap_or_default())
            .raw(&p.refund_amount.map(major).unwrap_or_default())
            .raw(&major(q.outstanding.minor()))
            .raw(&since)
            .raw(&((now - p.updated_at).max(0) / 3_600_000).to_string())
            .end_row();
    }
    Ok(csv.finish())
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
/// the allocation rule (a part payment stays a part payment; beyond the payoff is owed back) — for money a provider
/// reported, only the amount it reported (`amount_reported`). Money for a loan that owes nothing is `refund_due`.
/// A payment finance rejected whose money arrived after all is `held` at the amount received, to decide as any held
/// money.
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
    decide(s, op, payment_id, received, None, None).await
}

/// The bank statement line a confirmation comes from: audited by its import and line number (with its date, amount
/// and reference, never its narration: sealed in its table because it names the payer, it stays out of the audit
/// trail, which support reads), and marked confirmed in the same transaction.
pub struct StatementSource<'a> {
    pub import_id: &'a str,
    pub line_no: i64,
    /// `YYYY-MM-DD`.
    pub on_date: &'a str,
    /// Minor units.
    pub amount: i64,
    /// The UTR the line was matched by: the payment must still hold it.
    pub utr: Option<&'a str>,
    pub reference: &'a str,
}

/// Confirms a UTR payment from a bank statement line whose amount is the one asked, by the same path as
/// [`confirm`] (the ledger, the order's lifecycle and the allocation are a manual confirmation's), once: the audit
/// entry carries the line, and the line is marked confirmed in the same transaction. A payment decided already is
/// `payment_not_open` and nothing is written.
pub async fn confirm_from_statement(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    line: &StatementSource<'_>,
) -> Result<Confirmed, Error> {
    op.require_any(crate::servicing::reconciliation::RECONCILE_ROLES)?;
    decide(s, op, payment_id, line.amount, None, Some(line)).await
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
    let row = payment_in_scope(s, op, payment_id).await?;
    let received = row.received_amount.unwrap_or(row.amount);
    decide(s, op, &row.id, received, Some(decision), None).await
}

/// The market a payment's currency is lent in.
fn market_of(currency: kilat_domain::Currency) -> Market {
    match currency {
        kilat_domain::Currency::Inr => Market::India,
        kilat_domain::Currency::Idr => Market::Indonesia,
    }
}

/// A payment the operator may see, by its id (trimmed): `not_found` for an unknown id and for a payment of a market
/// not theirs alike.
async fn payment_in_scope(
    s: &Services,
    op: &Operator,
    payment_id: &str,
) -> Result<crate::store::payments::PaymentRow, Error> {
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    op.see(market_of(row.currency))?;
    Ok(row)
}

/// Finance's decision on a payment, inside one transaction with the order locked.
async fn decide(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    received: i64,
    decision: Option<Decision>,
    line: Option<&StatementSource<'_>>,
) -> Result<Confirmed, Error> {
    let row = payment_in_scope(s, op, payment_id).await?;
    let now = s.clock.now_ms();
    let actor = Actor::Operator(op.id.clone());
    let mut tx = s.db.begin().await?;
    let mut loan = load_in(&mut tx, &row.order_id).await?;
    let row = tx.payment_in_tx(&row.id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    // Money in another currency than the payment's is never the payment's money: it goes back through the provider.
    if payment.row.foreign_currency().is_some() {
        return Err(Refusal::OtherCurrency.into());
    }
    let decision = match (payment.status, decision) {
        // A statement line confirms only a UTR payment waiting, for exactly the amount asked, that still holds the
        // line's UTR (one corrected since the import is not that money: the line must not credit it).
        (PaymentStatus::Verifying, None)
            if line.is_some_and(|l| {
                l.amount != payment.row.amount || l.utr != payment.row.utr.as_deref()
            }) =>
        {
            return Err(Refusal::PaymentNotOpen.into());
        }
        (PaymentStatus::Verifying, None) => Decision::AsAsked,
        (_, None) if line.is_some() => return Err(Refusal::PaymentNotOpen.into()),
        (PaymentStatus::Held, None) => Decision::Credit,
        // Money for a payment finance had rejected turned up after all (a statement, the bank): it is held at what
        // came, to credit or owe back, as a provider's report of it would be.
        (PaymentStatus::Rejected, None) => Decision::Hold,
        (PaymentStatus::Held, Some(d)) => d,
        _ => return Err(Refusal::PaymentNotOpen.into()),
    };
    // Money a provider reported is the amount it reported: finance credits that, never a figure typed over it (a
    // typo would post cash that never came, and owe back the difference).
    let reported = payment.row.received_amount.unwrap_or(payment.row.amount);
    if payment.status == PaymentStatus::Held
        && received != reported
        && tx.payment_money_reported_in_tx(&payment.row.id).await?
    {
        return Err(Error::field(
            "amount",
            FieldProblem::new("field.amount_reported").with("amount", reported),
        ));
    }
    let settled = settle_in(
        s,
        &mut tx,
        &mut loan,
        &payment,
        received,
        decision,
        Some(&op.id),
        None,
        None,
        &actor,
        now,
    )
    .await?;
    let after = PaymentRow {
        received_amount: Some(received),
        refund_amount: (settled.refund > 0).then_some(settled.refund),
        ..payment.row.clone()
    };
    let mut after_json = audit_json(&after, settled.status, None)?;
    if let Some(line) = line {
        if !tx
            .confirm_statement_line(line.import_id, line.line_no, &op.id, now)
            .await?
        {
            return Err(Refusal::PaymentNotOpen.into());
        }
        let mut value: serde_json::Value =
            serde_json::from_str(&after_json).map_err(anyhow::Error::from)?;
        value["statementLine"] = serde_json::json!({
            "importId": line.import_id,
            "lineNo": line.line_no,
            "date": line.on_date,
            "amount": line.amount,
            "reference": line.reference,
        });
        after_json = value.to_string();
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: settled_action(settled.status),
        entity: "order",
        entity_id: &loan.order.id,
        before_json: Some(&audit_json(&payment.row, payment.status, None)?),
        after_json: Some(&after_json),
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

/// Says that `op` is sending the refund of a `refund_due` payment now (finance), so that no other finance operator sends
/// the same money: another operator's claim is `refund_claimed` unless `take_over` (they know the first did not send
/// it). One conditional update; audited `payment.refund_claim` with whom it was taken from. Not owed back (decided,
/// refunded) → `payment_not_open`.
pub async fn claim_refund(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    take_over: bool,
) -> Result<Payment, Error> {
    op.require_any(FINANCE_ROLES)?;
    let row = payment_in_scope(s, op, payment_id).await?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // Taken over from the operator read here, and only from them: the audit names whom it was taken from.
    let from = row.refund_claimed_by.as_deref().filter(|_| take_over);
    if !tx.claim_refund(&row.id, &op.id, from, now).await? {
        let refusal = not_recorded(&mut tx, &row.id).await?;
        tx.rollback().await?;
        return Err(refusal);
    }
    let before =
        serde_json::json!({"paymentId": row.id, "sendingBy": row.refund_claimed_by}).to_string();
    let after =
        serde_json::json!({"paymentId": row.id, "sendingBy": op.id, "takenOver": take_over})
            .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payment.refund_claim",
        entity: "order",
        entity_id: &row.order_id,
        before_json: Some(&before),
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row = s.db.payment(&row.id).await?.ok_or(Error::NotFound)?;
    payment_of(s, row)
}

/// Records the bank transfer that sent a payment's refund back (finance): `refund_due` → `refunded` once, with the
/// bank's reference; audited. The borrower sees it on the payment. A refund another operator is sending
/// ([`claim_refund`]) is `refund_claimed`. The reference is this transfer's alone: one a payout
/// or another order's refund has is `422` on `bankReference` naming that order (one transfer may send back two refunds
/// of the same order).
pub async fn record_refund(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    bank_reference: Option<&str>,
) -> Result<Payment, Error> {
    op.require_any(FINANCE_ROLES)?;
    let reference = crate::providers::check_bank_reference(bank_reference)?;
    let reference = reference.as_str();
    let row = payment_in_scope(s, op, payment_id).await?;
    let before = payment_of(s, row)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if let Some(other) = tx
        .take_transfer_reference(reference, &before.row.order_id, "refund")
        .await?
    {
        tx.rollback().await?;
        return Err(crate::servicing::payout::reference_taken(&other));
    }
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
/// Nothing is posted; the UTR stays used. Money a provider reported for a held payment did arrive: it is credited
/// or owed back, never rejected out of every queue (`money_reported`).
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
    let row = payment_in_scope(s, op, payment_id).await?;
    let before = payment_of(s, row)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // The order's lock, as a provider's callback takes it: a report of the money cannot land between the check and
    // the move.
    tx.order_locked_in_tx(&before.row.order_id)
        .await?
        .ok_or(Error::NotFound)?;
    // Money in another currency is sent back through the provider, then the payment rejected.
    if before.status == PaymentStatus::Held
        && before.row.foreign_currency().is_none()
        && tx.payment_money_reported_in_tx(&before.row.id).await?
    {
        tx.rollback().await?;
        return Err(Refusal::MoneyReported.into());
    }
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
        after_json: Some(&with_reason(
            &audit_json(&before.row, PaymentStatus::Rejected, None)?,
            reason,
        )?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row = s.db.payment(&before.row.id).await?.ok_or(Error::NotFound)?;
    payment_of(s, row)
}

/// A payment's audit JSON with the reason finance gave (the one the borrower reads).
fn with_reason(json: &str, reason: &str) -> Result<String, Error> {
    let mut value: serde_json::Value = serde_json::from_str(json).map_err(anyhow::Error::from)?;
    value["reason"] = serde_json::Value::String(reason.to_owned());
    Ok(value.to_string())
}
