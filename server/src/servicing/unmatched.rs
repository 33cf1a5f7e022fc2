//! Money a provider reported for a reference no payment has (`callbacks::unmatched` records it): finance sees it until
//! they say what they did with it — returned it to the payer, or credited it to a loan by hand — audited.

use kilat_domain::{Code, Market};

use super::payments::FINANCE_ROLES;
use crate::auth::operators::Operator;
use crate::error::{Error, FieldProblem, Refusal};
use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::unmatched::UnmatchedRow;

/// The most receipts one list shows, newest first.
pub const LIST_LIMIT: i64 = 200;
/// The longest account of what was done.
pub const MAX_RESOLUTION_CHARS: usize = 500;

/// The receipts finance may see (finance): of `market` (one of theirs, else `422` on `market`) or of all theirs, with
/// those of no known market; waiting ones only unless `all`.
pub async fn list(
    s: &Services,
    op: &Operator,
    market: Option<Market>,
    all: bool,
) -> Result<Vec<UnmatchedRow>, Error> {
    op.require_any(FINANCE_ROLES)?;
    let markets: Vec<&str> = match op.market_filter(market)? {
        Some(market) => vec![market.code()],
        None => op.markets().map(Code::code).collect(),
    };
    Ok(s.db.unmatched_receipts(&markets, all, LIST_LIMIT).await?)
}

/// Records what finance did with a waiting receipt (finance), once: a second time is `receipt_resolved`. A receipt of
/// another market is not found. With `take_back`, a receipt of money the provider took back (`reversed`) also takes
/// the payment's credit back from the loan's ledger in the same transaction
/// ([`take_back_credit_in`](super::payments::take_back_credit_in)): the loan owes it again, and the month's exports
/// show it; one the ledger cannot take back by itself is `credit_not_taken_back`, and nothing is written.
pub async fn resolve(
    s: &Services,
    op: &Operator,
    id: &str,
    resolution: Option<&str>,
    take_back: bool,
) -> Result<UnmatchedRow, Error> {
    op.require_any(FINANCE_ROLES)?;
    let resolution = resolution.map(str::trim).unwrap_or_default();
    if resolution.is_empty() {
        return Err(Error::field("resolution", FieldProblem::required()));
    }
    if resolution.chars().count() > MAX_RESOLUTION_CHARS {
        return Err(Error::field(
            "resolution",
            FieldProblem::too_long(MAX_RESOLUTION_CHARS),
        ));
    }
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let row = tx
        .unmatched_receipt_in_tx(id.trim())
        .await?
        .filter(|row| {
            row.market
                .as_deref()
                .and_then(Market::from_code)
                .is_none_or(|market| op.may_see(market))
        })
        .ok_or(Error::NotFound)?;
    if !tx
        .resolve_unmatched_receipt(&row.id, &op.id, resolution, now)
        .await?
    {
        return Err(Refusal::ReceiptResolved.into());
    }
    let taken_back = match (take_back, row.kind.as_str(), row.payment_id.as_deref()) {
        (false, _, _) => None,
        (true, "reversed", Some(payment_id)) => Some(
            super::payments::take_back_credit_in(
                s,
                &mut tx,
                op,
                &super::payments::TakenMoney {
                    payment_id,
                    provider_payment_id: row.provider_payment_id.as_deref(),
                    amount: row.amount,
                    currency: row.currency.as_deref(),
                },
                now,
            )
            .await?,
        ),
        (true, _, _) => return Err(Refusal::CreditNotTakenBack.into()),
    };
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payment.unmatched_resolve",
        entity: "unmatched_receipt",
        entity_id: &row.id,
        // The money it was, so the trail says what finance settled: kind, provider and its ids, amount and currency,
        // the payment and order it names (a reversal).
        before_json: Some(
            &serde_json::json!({
                "resolved": false,
                "kind": row.kind,
                "provider": row.provider,
                "reference": row.reference,
                "providerPaymentId": row.provider_payment_id,
                "amount": row.amount,
                "currency": row.currency,
                "paymentId": row.payment_id,
                "orderNo": row.order_no,
            })
            .to_string(),
        ),
        after_json: Some(
            &serde_json::json!({
                "resolved": true,
                "resolution": resolution,
                "takenBack": taken_back.as_ref().map(|t| serde_json::json!({
                    "orderNo": t.order_no, "entry": t.entry, "reversal": t.reversal, "amount": t.amount,
                    "orderStatus": t.order_status.code(),
                })),
            })
            .to_string(),
        ),
        at: now,
    })
    .await?;
    let row = tx
        .unmatched_receipt_in_tx(&row.id)
        .await?
        .ok_or(Error::NotFound)?;
    tx.commit().await?;
    Ok(row)
}
