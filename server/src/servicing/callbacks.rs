//! What a verified payment callback does (docs/API-WEBHOOKS.md). Each provider (`crate::providers`) verifies its own
//! request and reads it into one [`Callback`]; [`receive`] credits it through the same settlement as finance's
//! confirmation, in the transaction that records the provider's event id under a unique key: a replay, or twenty
//! copies at once, posts once and is answered as a success. An amount (or currency) other than the payment's is held
//! for finance, not credited; a provider the payment was not made with credits nothing.

use kilat_domain::Code;

use super::load_in;
use super::payments::{Decision, PaymentStatus, payment_of, settle_in};
use crate::error::Error;
use crate::orders::Actor;
pub use crate::providers::{Callback, CallbackError};
use crate::providers::{CallbackProvider, PaymentOrigin};
use crate::services::Services;
use crate::store::audit::NewAuditEntry;

/// What a verified callback did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Credited: the ledger entry posted.
    Confirmed,
    /// The amount differs: held for finance, nothing credited.
    Held,
    /// A status or event that credits nothing (e.g. Dragonpay's `P`, Razorpay's other events).
    Ignored,
    /// The payment was settled before (by finance or another event): nothing posted.
    NotOpen,
    /// This event was taken before: nothing posted.
    Replayed,
    /// Money for a loan that owes nothing, or beyond what it owed: credited up to what was owed, the rest owed back
    /// to the borrower (finance's refunds).
    RefundDue,
    /// The payment was not made with this provider (another method, market or issuer): recorded and audited, nothing
    /// credited.
    WrongProvider,
}

impl Outcome {
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Confirmed => "confirmed",
            Outcome::Held => "held",
            Outcome::Ignored => "ignored",
            Outcome::NotOpen => "not_open",
            Outcome::Replayed => "replayed",
            Outcome::RefundDue => "refund_due",
            Outcome::WrongProvider => "wrong_provider",
        }
    }
}

/// Takes a verified callback. In one transaction: the order is locked first (every writer of a payment locks its
/// order first, so two callbacks and finance queue instead of deadlocking), then the event is recorded under its
/// unique key (a replay stops here and posts nothing). A provider that the payment does not belong to credits
/// nothing (recorded and audited, `wrong_provider`). Otherwise the money settles the payment as finance's confirm
/// does: the amount asked is credited, another amount held for finance, money the loan does not owe becomes a
/// refund due; money for a payment finance had rejected comes back to finance's queue, held. A payment not found is
/// `not_found`.
pub async fn receive(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
) -> Result<Outcome, CallbackError> {
    let row =
        s.db.payment_by_reference(&cb.reference)
            .await?
            .ok_or(Error::NotFound)?;
    let now = s.clock.now_ms();
    let provider = source.code();
    let mut tx = s.db.begin().await?;
    let mut loan = load_in(&mut tx, &row.order_id).await?;
    if !tx
        .insert_callback(provider, &cb.event_id, &row.id, cb.amount, "received", now)
        .await?
    {
        tx.rollback().await?;
        return Ok(Outcome::Replayed);
    }
    let row = tx.payment_in_tx(&row.id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    let received = cb.amount.unwrap_or(payment.row.amount);
    let audit = |status: &str| {
        serde_json::json!({
            "paymentId": payment.row.id,
            "orderNo": payment.row.order_no,
            "amount": payment.row.amount,
            "received": received,
            "currency": cb.currency,
            "provider": provider,
            "eventId": cb.event_id,
            "status": status,
        })
        .to_string()
    };
    if !source.settles(PaymentOrigin {
        method: payment.method,
        currency: payment.row.currency,
        issuer: payment.row.provider.as_deref(),
    }) {
        tx.set_callback_outcome(provider, &cb.event_id, Outcome::WrongProvider.code())
            .await?;
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "system",
            actor_id: None,
            action: "payment.callback_wrong_provider",
            entity: "order",
            entity_id: &loan.order.id,
            before_json: Some(&audit(payment.status.code())),
            after_json: Some(&audit(payment.status.code())),
            at: now,
        })
        .await?;
        tx.commit().await?;
        tracing::warn!(provider, payment = %payment.row.id, method = payment.method.code(),
            "a callback from a provider this payment was not made with: nothing credited");
        return Ok(Outcome::WrongProvider);
    }
    if !cb.credits {
        tx.set_callback_outcome(provider, &cb.event_id, Outcome::Ignored.code())
            .await?;
        tx.commit().await?;
        return Ok(Outcome::Ignored);
    }
    let decision = match payment.status {
        PaymentStatus::Pending | PaymentStatus::Verifying => Decision::AsAsked,
        // Finance found no transfer, but the provider says the money arrived: it goes back to finance, held.
        PaymentStatus::Rejected => Decision::Hold,
        _ => {
            tx.set_callback_outcome(provider, &cb.event_id, Outcome::NotOpen.code())
                .await?;
            tx.commit().await?;
            return Ok(Outcome::NotOpen);
        }
    };
    if let Some(id) = &cb.provider_payment_id {
        tx.set_payment_provider_id(&payment.row.id, id).await?;
    }
    let same_currency = cb
        .currency
        .as_deref()
        .is_none_or(|c| c.eq_ignore_ascii_case(payment.row.currency.code()));
    // A currency other than the payment's is never the payment's amount: held.
    let decision = if same_currency {
        decision
    } else {
        Decision::Hold
    };
    let actor = Actor::System(source.actor());
    let settled = settle_in(
        s, &mut tx, &mut loan, &payment, received, decision, None, &actor, now,
    )
    .await?;
    let outcome = match settled.status {
        PaymentStatus::Confirmed => Outcome::Confirmed,
        PaymentStatus::RefundDue => Outcome::RefundDue,
        _ => Outcome::Held,
    };
    tx.set_callback_outcome(provider, &cb.event_id, outcome.code())
        .await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "system",
        actor_id: None,
        action: match outcome {
            Outcome::Held => "payment.callback_hold",
            Outcome::RefundDue => "payment.callback_refund_due",
            _ => "payment.callback_confirm",
        },
        entity: "order",
        entity_id: &loan.order.id,
        before_json: Some(&audit(payment.status.code())),
        after_json: Some(&audit(settled.status.code())),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(outcome)
}
