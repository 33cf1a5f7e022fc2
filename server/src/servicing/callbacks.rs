//! What a verified payment callback does (docs/API-WEBHOOKS.md). Each provider (`crate::providers`) verifies its own
//! request and reads it into one [`Callback`]; [`receive`] credits it through the same settlement as finance's
//! confirmation, in the transaction that records the provider's event id under a unique key: a replay, or twenty
//! copies at once, posts once and is answered as a success. An amount (or currency) other than the payment's is held
//! for finance, not credited; a provider the payment was not made with credits nothing.

use kilat_domain::Code;

use super::load_of_payment_in;
use super::payments::{Decision, Payment, PaymentStatus, payment_of, settle_in};
use crate::error::Error;
use crate::orders::Actor;
pub use crate::providers::{Callback, CallbackError};
use crate::providers::{CallbackProvider, PaymentOrigin};
use crate::services::Services;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::payments::{Issued, NewPayment};

/// What a verified callback did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Credited: the ledger entry posted.
    Confirmed,
    /// The amount differs: held for finance, nothing credited.
    Held,
    /// A status or event that credits nothing (e.g. Dragonpay's `P`, Razorpay's other events).
    Ignored,
    /// This event was taken before: nothing posted.
    Replayed,
    /// The payment was settled before and this is the same money (the provider reporting a transfer finance had
    /// confirmed, or one already taken): nothing posted.
    NotOpen,
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

/// Takes a verified callback. In one transaction: the order is locked first, by the statement that finds it through
/// the payment's reference (every writer of a payment locks its order first, so two callbacks and finance queue
/// instead of deadlocking), then the payment is read; the event is recorded under its unique key with what it did,
/// once that is known, and a replay (the key taken) rolls everything back and posts nothing. A provider that the payment does not belong to credits
/// nothing (recorded and audited, `wrong_provider`). Otherwise the money settles the payment as finance's confirm
/// does: the amount asked is credited, another amount held for finance, money the loan does not owe becomes a
/// refund due; money for a payment finance had rejected comes back to finance's queue, held; a second transfer for a
/// payment paid once already (another provider payment id) becomes a payment of its own, held or owed back
/// ([`second_receipt`]). A payment not found is `not_found`.
pub async fn receive(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
) -> Result<Outcome, CallbackError> {
    let now = s.clock.now_ms();
    let provider = source.code();
    let mut tx = s.db.begin().await?;
    let mut loan = load_of_payment_in(&mut tx, &cb.reference).await?;
    let row = tx
        .payment_by_reference_in_tx(&cb.reference)
        .await?
        .ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    // The event under its unique key, with what it did: false when it was taken before, and the transaction is then
    // rolled back, whatever it wrote.
    let record = async |tx: &mut Tx, outcome: Outcome| {
        tx.insert_callback(
            provider,
            &cb.event_id,
            &payment.row.id,
            cb.amount,
            outcome.code(),
            now,
        )
        .await
    };
    let received = cb.amount.unwrap_or(payment.row.amount);
    let audit = |payment: &Payment, status: &str| {
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
        if !record(&mut tx, Outcome::WrongProvider).await? {
            tx.rollback().await?;
            return Ok(Outcome::Replayed);
        }
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "system",
            actor_id: None,
            action: "payment.callback_wrong_provider",
            entity: "order",
            entity_id: &loan.order.id,
            before_json: Some(&audit(&payment, payment.status.code())),
            after_json: Some(&audit(&payment, payment.status.code())),
            at: now,
        })
        .await?;
        tx.commit().await?;
        tracing::warn!(provider, payment = %payment.row.id, method = payment.method.code(),
            "a callback from a provider this payment was not made with: nothing credited");
        return Ok(Outcome::WrongProvider);
    }
    if !cb.credits {
        if !record(&mut tx, Outcome::Ignored).await? {
            tx.rollback().await?;
            return Ok(Outcome::Replayed);
        }
        tx.commit().await?;
        return Ok(Outcome::Ignored);
    }
    let (decision, again) = match payment.status {
        PaymentStatus::Pending | PaymentStatus::Verifying => (Decision::AsAsked, None),
        // Finance found no transfer, but the provider says the money arrived: it goes back to finance, held.
        PaymentStatus::Rejected => (Decision::Hold, None),
        // Paid once already (confirmed, held, owed back or refunded). The provider's payment id tells the money: one
        // the payment had none of (finance settled it from the UTR) is the provider reporting that same money, and
        // one another payment carries is a transfer already taken: recorded, nothing posted. Another id than the one
        // the payment was credited under is more money — the borrower paid twice — and it is never dropped: a payment
        // of its own, held for finance while the loan is open, owed back once it is closed.
        _ => {
            let more_money = match &cb.provider_payment_id {
                Some(id) => {
                    !tx.set_payment_provider_id(&payment.row.id, id).await?
                        && !tx.provider_id_known(id).await?
                }
                None => false,
            };
            if !more_money {
                if !record(&mut tx, Outcome::NotOpen).await? {
                    tx.rollback().await?;
                    return Ok(Outcome::Replayed);
                }
                tx.commit().await?;
                return Ok(Outcome::NotOpen);
            }
            let again = second_receipt(s, &mut tx, &payment, source, cb, received, now).await?;
            let decision = if loan.order.status.is_final() {
                Decision::Refund
            } else {
                Decision::Hold
            };
            (decision, Some(again))
        }
    };
    let first = &payment;
    let payment = again.as_ref().unwrap_or(first);
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
        s,
        &mut tx,
        &mut loan,
        payment,
        received,
        decision,
        None,
        cb.provider_payment_id.as_deref(),
        &actor,
        now,
    )
    .await?;
    let outcome = match settled.status {
        PaymentStatus::Confirmed => Outcome::Confirmed,
        PaymentStatus::RefundDue => Outcome::RefundDue,
        _ => Outcome::Held,
    };
    if !record(&mut tx, outcome).await? {
        tx.rollback().await?;
        return Ok(Outcome::Replayed);
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "system",
        actor_id: None,
        action: match outcome {
            _ if again.is_some() => "payment.callback_second_receipt",
            Outcome::Held => "payment.callback_hold",
            Outcome::RefundDue => "payment.callback_refund_due",
            _ => "payment.callback_confirm",
        },
        entity: "order",
        entity_id: &loan.order.id,
        // A second receipt: before is the payment paid once, after the new one.
        before_json: Some(&audit(first, first.status.code())),
        after_json: Some(&audit(payment, settled.status.code())),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(outcome)
}

/// Money a provider reports for a payment that was paid once already (a second capture, a second transfer to the
/// account): recorded as a payment of its own on the same order, made as the first was (its method, provider and
/// account), for the amount received, with a reference of its own derived from the provider's event. The caller settles
/// it in the same transaction.
async fn second_receipt(
    s: &Services,
    tx: &mut Tx,
    first: &Payment,
    source: &dyn CallbackProvider,
    cb: &Callback,
    received: i64,
    now: i64,
) -> Result<Payment, CallbackError> {
    let mac = s.secrets.mac(
        "second-receipt",
        &format!("{}\n{}", source.code(), cb.event_id),
    );
    let reference = format!("{}-{}", first.row.reference, mac[..8].to_ascii_uppercase());
    let key = format!("receipt:{}:{}", source.code(), cb.event_id);
    let row = &first.row;
    let id = tx
        .insert_payment(&NewPayment {
            order_id: &row.order_id,
            borrower_id: &row.borrower_id,
            choice: &row.choice,
            method: &row.method,
            installment: row.installment,
            installment_to: row.installment_to,
            amount: received,
            currency: row.currency,
            priced_on: &row.priced_on,
            status: PaymentStatus::Pending.code(),
            reference: &reference,
            idempotency_key: &key,
            issued: row.provider.as_deref().map(|provider| Issued {
                provider,
                provider_ref: row.provider_ref.as_deref(),
                va_bank_code: row.va_bank_code.as_deref(),
                va_number: row.va_number.as_deref(),
                va_name: row.va_name.as_deref(),
                expires_at: row.expires_at,
            }),
            now,
        })
        .await?
        .map_err(|_| anyhow::anyhow!("a second receipt's payment collided: {reference}"))
        .map_err(Error::Internal)?;
    let again = tx
        .payment_in_tx(&id)
        .await?
        .ok_or_else(|| Error::Internal(anyhow::anyhow!("payment {id} vanished")))?;
    Ok(payment_of(s, again)?)
}
