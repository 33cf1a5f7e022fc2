//! What a verified payment callback does (docs/API-WEBHOOKS.md). Each provider (`crate::providers`) verifies its own
//! request and reads it into one [`Callback`]; [`receive`] credits it through the same settlement as finance's
//! confirmation, in the transaction that records the provider's event id under a unique key: a replay, or twenty
//! copies at once, posts once and is answered as a success. An amount (or currency) other than the payment's is held
//! for finance, not credited; a provider the payment was not made with credits nothing. Callbacks that arrive together
//! are credited in batches ([`Crediting`]): the plain ones in one transaction of multi-row statements, writing what
//! [`receive`] would write for each; every other one by [`receive`].

use std::collections::{HashMap, HashSet};

use kilat_domain::{Code, OrderEvent, OrderState};

use super::payments::{
    Decision, Payment, PaymentStatus, credit_many_in, order_event_after_credit, payment_of,
    plain_credit, receipt_text, settle_in,
};
use super::{balances_of, load_of_payment_in, loans_of_payments_in};
use crate::error::{Error, Refusal};
use crate::ledger;
use crate::orders::{self, Actor};
pub use crate::providers::{Callback, CallbackError};
use crate::providers::{CallbackProvider, PaymentOrigin};
use crate::services::Services;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::batch::{BatchFuture, Batcher};
use crate::store::callbacks::NewCallback;
use crate::store::jobs::NewReceipt;
use crate::store::orders::OrderStatusRow;
use crate::store::payments::{Issued, NewPayment, PaymentRow};
use crate::store::unmatched::{NewUnmatched, UnmatchedRow};

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
    /// No payment has the reference the provider quoted (or it quoted none): the money is recorded for finance,
    /// audited, and shown to them until they say what they did with it.
    Unmatched,
    /// The provider took back money it had reported received (a refund, a chargeback, a void): recorded for finance,
    /// audited; the loan's credit stands until finance acts.
    Reversed,
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
            Outcome::Unmatched => "unmatched",
            Outcome::Reversed => "reversed",
        }
    }
}

/// Takes a verified callback. In one transaction: the order is locked first, by the statement that finds it through
/// the payment's reference (every writer of a payment locks its order first, so two callbacks and finance queue
/// instead of deadlocking), then the payment is read; the event is recorded under its unique key with what it did,
/// once that is known, and a replay (the key taken) rolls everything back and posts nothing. A provider that the
/// payment does not belong to credits nothing (recorded and audited, `wrong_provider`); money it received is kept
/// for finance as an unmatched receipt naming the payment. Otherwise the money settles the payment as finance's confirm
/// does: the amount asked is credited, another amount held for finance, money the loan does not owe becomes a
/// refund due; money for a payment finance had rejected comes back to finance's queue, held; a second transfer for a
/// payment paid once already (another provider payment id) becomes a payment of its own, held or owed back
/// ([`second_receipt`]). Money for a reference no payment has is recorded for finance ([`unmatched`]).
///
/// Money received is never lost from view: when the money rules or the order's lifecycle refuse the credit (a case
/// no rule foresaw), everything is rolled back and the callback is taken again with the money held for finance, so
/// it is recorded and answered, not refused with an error the provider retries for ever.
pub async fn receive(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
) -> Result<Outcome, CallbackError> {
    match take(s, source, cb, false).await {
        Err(CallbackError::Service(
            refused @ (Error::Loan(_) | Error::Refused(Refusal::InvalidTransition)),
        )) => {
            tracing::error!(provider = source.code(), reference = %cb.reference, error = %refused,
                "the money rules refused a callback's credit: the money is held for finance");
            take(s, source, cb, true).await
        }
        taken => taken,
    }
}

/// [`receive`]'s transaction; with `hold_only`, money that would be credited is held for finance instead.
async fn take(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
    hold_only: bool,
) -> Result<Outcome, CallbackError> {
    let now = s.clock.now_ms();
    let provider = source.code();
    let mut tx = s.db.begin().await?;
    // Money taken back is the money credited under the provider's payment id, whatever reference its notes carry (a
    // second transfer is a payment of its own, with a reference of its own); one no payment was credited under took
    // back nothing any loan counts: money kept for finance ([`reversed_unmatched`]), or an authorisation never
    // captured.
    let reference = match (cb.reverses, &cb.provider_payment_id) {
        (true, Some(id)) => match tx.reference_of_provider_id(id).await? {
            Some(reference) => reference,
            None => {
                tx.rollback().await?;
                return reversed_unmatched(s, source, cb).await;
            }
        },
        _ => cb.reference.clone(),
    };
    let mut loan = match load_of_payment_in(&mut tx, &reference).await {
        Err(Error::NotFound) => {
            tx.rollback().await?;
            return unmatched(s, source, cb).await;
        }
        loan => loan?,
    };
    let row = tx
        .payment_by_reference_in_tx(&reference)
        .await?
        .ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    // The event under its unique key, with what it did: false when it was taken before, and the transaction is then
    // rolled back, whatever it wrote.
    let record = async |tx: &mut Tx, outcome: Outcome| {
        let row = NewCallback {
            provider,
            event_id: &cb.event_id,
            payment_id: &payment.row.id,
            amount: cb.amount,
            outcome: outcome.code(),
            sent_at: cb.sent_at,
        };
        tx.insert_callback(&row, now).await
    };
    let received = cb.amount.unwrap_or(payment.row.amount);
    let audit =
        |payment: &Payment, status: &str| audit_json(payment, received, provider, cb, status);
    if !source.settles(PaymentOrigin {
        method: payment.method,
        currency: payment.row.currency,
        issuer: payment.row.provider.as_deref(),
    }) {
        if !record(&mut tx, Outcome::WrongProvider).await? {
            tx.rollback().await?;
            return Ok(Outcome::Replayed);
        }
        // Money the provider received all the same (a borrower who paid a reference through another gateway) is
        // for finance, beside the money no payment matches, naming the payment whose reference it quoted: returned
        // to the payer or credited by hand, never seen only in the audit trail. It is the loan's market's finance's
        // (the borrower's lender: staff of one market see only its borrowers), whatever the money's currency. Money
        // it later takes back (Dragonpay's reversal names the reference only) is kept beside it.
        let reference: String = cb.reference.trim().chars().take(100).collect();
        if cb.reverses
            && let Some(kept) = tx
                .unmatched_money_in_tx(
                    provider,
                    cb.provider_payment_id.as_deref(),
                    &reference,
                    Some(&payment.row.id),
                )
                .await?
        {
            reverse_kept_in(&mut tx, provider, cb, &kept, now).await?;
        }
        if cb.credits {
            let currency = cb.currency.as_deref().map(clean_currency);
            let market = loan.order.market;
            tx.insert_unmatched_receipt(
                &NewUnmatched {
                    kind: "unmatched",
                    payment_id: Some(&payment.row.id),
                    provider,
                    event_id: &cb.event_id,
                    market: Some(market.code()),
                    reference: &reference,
                    provider_payment_id: cb.provider_payment_id.as_deref(),
                    amount: cb.amount,
                    currency: currency.as_deref(),
                    sent_at: cb.sent_at,
                },
                now,
            )
            .await?;
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
            "a callback from a provider this payment was not made with: nothing credited, any money kept for finance");
        return Ok(Outcome::WrongProvider);
    }
    // Money taken back from a payment that was paid and kept: for finance, beside the money no payment matches. One
    // never paid (a void of a payment still pending, a refund of an authorisation never captured) took nothing, and
    // one owed back or refunded is the lender's own refund (made through the provider): ignored.
    let paid = matches!(
        payment.status,
        PaymentStatus::Confirmed | PaymentStatus::Held
    );
    if cb.reverses && paid {
        if !record(&mut tx, Outcome::Reversed).await? {
            tx.rollback().await?;
            return Ok(Outcome::Replayed);
        }
        let currency = cb.currency.as_deref().map(clean_currency);
        let item = tx
            .insert_unmatched_receipt(
                &NewUnmatched {
                    kind: "reversed",
                    payment_id: Some(&payment.row.id),
                    provider,
                    event_id: &cb.event_id,
                    market: Some(loan.order.market.code()),
                    reference: &payment.row.reference,
                    provider_payment_id: cb.provider_payment_id.as_deref(),
                    amount: cb.amount,
                    currency: currency.as_deref(),
                    sent_at: cb.sent_at,
                },
                now,
            )
            .await?;
        let after = serde_json::json!({
            "provider": provider,
            "payment": payment.row.id,
            "reference": payment.row.reference,
            "providerPaymentId": cb.provider_payment_id,
            "amount": cb.amount,
            "currency": currency,
            "item": item,
        });
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "system",
            actor_id: None,
            action: "payment.callback_reversed",
            entity: "order",
            entity_id: &loan.order.id,
            before_json: None,
            after_json: Some(&after.to_string()),
            at: now,
        })
        .await?;
        tx.commit().await?;
        tracing::warn!(provider, payment = %payment.row.id, amount = ?cb.amount,
            "a provider took back money it had reported received: recorded for finance");
        return Ok(Outcome::Reversed);
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
        // the payment had none of (finance settled it from the UTR) is the provider reporting that same money — if it
        // is the amount and currency finance received — and one another payment carries is a transfer already
        // taken: recorded, nothing posted. Another id than the one the payment was credited under, or another amount
        // than finance received, is more money — the borrower paid twice — and it is never dropped: a payment of its
        // own, held for finance while the loan is open, owed back once it is closed.
        _ => {
            let as_received = cb
                .amount
                .is_none_or(|a| payment.row.received_amount == Some(a))
                && cb.currency.as_deref().is_none_or(|c| {
                    let received = payment.row.received_currency.as_deref();
                    c.trim()
                        .eq_ignore_ascii_case(received.unwrap_or(payment.row.currency.code()))
                });
            let more_money = match &cb.provider_payment_id {
                Some(id) => {
                    let this_money =
                        as_received && tx.set_payment_provider_id(&payment.row.id, id).await?;
                    !this_money && !tx.provider_id_known(id).await?
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
    // A currency other than the payment's is never the payment's amount: held; so is money whose credit the rules
    // refused (`hold_only`), unless it is owed back whole.
    let keep = same_currency && (!hold_only || matches!(decision, Decision::Refund));
    let decision = if keep { decision } else { Decision::Hold };
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
        cb.sent_at,
        &actor,
        now,
    )
    .await?;
    if !same_currency && let Some(currency) = cb.currency.as_deref() {
        // Held as money of another currency: never credited or owed back as the payment's.
        tx.set_received_currency(&payment.row.id, &clean_currency(currency))
            .await?;
    }
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

/// A verified callback whose reference no payment has (a borrower who paid through the gateway without it, or with
/// a mistyped one). Money is recorded for finance once per event (a replay is `replayed`), audited, and answered as
/// taken: an error would have the provider retry for days and then drop it, the money seen by nobody. An event that
/// credits nothing is `ignored`.
async fn unmatched(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
) -> Result<Outcome, CallbackError> {
    // Money taken back under a reference no payment has took back nothing any loan counts; it may be money kept
    // for finance.
    if !cb.credits {
        return if cb.reverses {
            reversed_unmatched(s, source, cb).await
        } else {
            Ok(Outcome::Ignored)
        };
    }
    let now = s.clock.now_ms();
    let currency = cb.currency.as_deref().map(clean_currency);
    let market = match currency.as_deref() {
        Some("INR") => Some(kilat_domain::Market::India),
        Some("IDR") => Some(kilat_domain::Market::Indonesia),
        _ => source.market().or_else(|| only_market_offering(s, source)),
    };
    let reference: String = cb.reference.trim().chars().take(100).collect();
    let mut tx = s.db.begin().await?;
    let recorded = tx
        .insert_unmatched_receipt(
            &NewUnmatched {
                kind: "unmatched",
                payment_id: None,
                provider: source.code(),
                event_id: &cb.event_id,
                market: market.map(Code::code),
                reference: &reference,
                provider_payment_id: cb.provider_payment_id.as_deref(),
                amount: cb.amount,
                currency: currency.as_deref(),
                sent_at: cb.sent_at,
            },
            now,
        )
        .await?;
    let Some(id) = recorded else {
        tx.rollback().await?;
        return Ok(Outcome::Replayed);
    };
    let after = serde_json::json!({
        "provider": source.code(),
        "reference": reference,
        "providerPaymentId": cb.provider_payment_id,
        "amount": cb.amount,
        "currency": currency,
    });
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "system",
        actor_id: None,
        action: "payment.callback_unmatched",
        entity: "unmatched_receipt",
        entity_id: &id,
        before_json: None,
        after_json: Some(&after.to_string()),
        at: now,
    })
    .await?;
    tx.commit().await?;
    tracing::warn!(provider = source.code(), reference = %reference, amount = ?cb.amount,
        "money reported for a reference no payment has: recorded for finance");
    Ok(Outcome::Unmatched)
}

/// Money taken back that no payment was credited with. When it is money kept for finance as unmatched (reported
/// under the same payment id at the provider, else the same reference), a `reversed` item beside it, once per event,
/// audited ([`reverse_kept_in`]). Else (an authorisation never captured) it took back nothing anyone holds: `ignored`.
async fn reversed_unmatched(
    s: &Services,
    source: &dyn CallbackProvider,
    cb: &Callback,
) -> Result<Outcome, CallbackError> {
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let reference: String = cb.reference.trim().chars().take(100).collect();
    let Some(kept) = tx
        .unmatched_money_in_tx(
            source.code(),
            cb.provider_payment_id.as_deref(),
            &reference,
            None,
        )
        .await?
    else {
        tx.rollback().await?;
        return Ok(Outcome::Ignored);
    };
    if !reverse_kept_in(&mut tx, source.code(), cb, &kept, now).await? {
        tx.rollback().await?;
        return Ok(Outcome::Replayed);
    }
    tx.commit().await?;
    Ok(Outcome::Reversed)
}

/// Records, in `tx`, that `cb` took back the money `kept` for finance: a `reversed` item beside it (its payment, market
/// and reference), audited, so finance does not return to the payer, or credit to a loan, money the provider took
/// back already. False when this event was recorded before (a replay).
async fn reverse_kept_in(
    tx: &mut Tx,
    provider: &str,
    cb: &Callback,
    kept: &UnmatchedRow,
    now: i64,
) -> Result<bool, CallbackError> {
    let currency = cb
        .currency
        .as_deref()
        .map(clean_currency)
        .or_else(|| kept.currency.clone());
    let amount = cb.amount.or(kept.amount);
    let item = tx
        .insert_unmatched_receipt(
            &NewUnmatched {
                kind: "reversed",
                payment_id: kept.payment_id.as_deref(),
                provider,
                event_id: &cb.event_id,
                market: kept.market.as_deref(),
                reference: &kept.reference,
                provider_payment_id: kept.provider_payment_id.as_deref(),
                amount,
                currency: currency.as_deref(),
                sent_at: cb.sent_at,
            },
            now,
        )
        .await?;
    let Some(item) = item else {
        return Ok(false);
    };
    let after = serde_json::json!({
        "provider": provider,
        "reference": kept.reference,
        "providerPaymentId": kept.provider_payment_id,
        "amount": amount,
        "currency": currency,
        "item": item,
    });
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "system",
        actor_id: None,
        action: "payment.callback_reversed",
        entity: "unmatched_receipt",
        entity_id: &kept.id,
        before_json: None,
        after_json: Some(&after.to_string()),
        at: now,
    })
    .await?;
    tracing::warn!(provider, item = %kept.id, amount = ?amount,
        "a provider took back money no payment matched: recorded for finance beside it");
    Ok(true)
}

/// The one market whose payment methods include `source`'s (Dragonpay names no currency: its money is of the one
/// market it is on in); none when it is on in both or neither.
fn only_market_offering(
    s: &Services,
    source: &dyn CallbackProvider,
) -> Option<kilat_domain::Market> {
    let mut on = <kilat_domain::Market as Code>::ALL
        .iter()
        .copied()
        .filter(|m| {
            crate::servicing::payments::methods_of_market(&s.payments.settings, *m)
                .into_iter()
                .any(|method| source.settles_method(method))
        });
    match (on.next(), on.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// A currency code as a provider wrote it, made safe to keep: trimmed, at most 16 characters, in capitals.
fn clean_currency(code: &str) -> String {
    code.trim()
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_uppercase()
}

/// What a callback's audit entry records of the payment, the money and the event.
fn audit_json(
    payment: &Payment,
    received: i64,
    provider: &str,
    cb: &Callback,
    status: &str,
) -> String {
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
}

/// One callback waiting in [`Crediting`]'s queue.
struct Queued {
    source: &'static dyn CallbackProvider,
    cb: Callback,
}

/// Verified callbacks credited together (issue 20: thousands a second on two cores). Callbacks that arrive while a
/// batch is out wait for the next, which takes its lane's even share of them (what waits and what the other lanes
/// have out, split over the lanes, up to `[payments] callback_batch`: `store::batch`) and credits the
/// plain ones — the amount asked, for a payment still open, from the provider it was made with, with nothing owed
/// back and no other money held for a loan it closes — in one transaction of a few multi-row statements
/// ([`credit_batch`]): the same rows, through the same state machines, as [`receive`] writes one callback at a time.
/// Every other callback (a replay, an amount held, a second transfer, a wrong provider, a second callback for an order
/// of the batch), and every callback of a batch that fails, is taken by [`receive`], on its own, after the batch. A
/// lone callback is a batch of one: a lane is busy while its transaction is out, and the callbacks that arrive
/// meanwhile make the next batch, on the next lane free (`[payments] callback_lanes`; on PostgreSQL batches overlap).
/// A batch locks only the orders no other transaction holds and never waits for one: a callback whose order is busy
/// (finance deciding a payment of it, the overdue job's page, another batch) is left to [`receive`], which waits for
/// that order alone while the rest of the batch is credited. A request cancelled while its callback waits does not
/// stop the batch: the money is credited once, and the provider's retry finds the event taken.
#[derive(Clone)]
pub struct Crediting {
    /// None when batches are off (`callback_batch` 1): each callback on its own.
    batcher: Option<Batcher<Queued, Option<Outcome>>>,
}

impl Crediting {
    /// Starts the queue's `lanes` (at least one) on the current runtime, each taking up to `batch` callbacks at once;
    /// they end when the last handle is dropped.
    pub fn start(s: Services, batch: usize, lanes: usize) -> Self {
        let batcher = (batch > 1).then(|| {
            Batcher::spawn(
                lanes,
                batch,
                move |jobs: Vec<Queued>| -> BatchFuture<Option<Outcome>> {
                    let s = s.clone();
                    Box::pin(async move { Ok(receive_many(&s, &jobs).await) })
                },
            )
        });
        Self { batcher }
    }

    /// Takes a verified callback: credited in the next batch when it is a plain credit, else by [`receive`].
    pub async fn take(
        &self,
        s: &Services,
        source: &'static dyn CallbackProvider,
        cb: &Callback,
    ) -> Result<Outcome, CallbackError> {
        let Some(batcher) = &self.batcher else {
            return receive(s, source, cb).await;
        };
        let queued = Queued {
            source,
            cb: cb.clone(),
        };
        match batcher.get(queued).await {
            Ok(Some(outcome)) => Ok(outcome),
            // Not a plain credit, or the batch failed (or its lane is gone): on its own.
            Ok(None) | Err(_) => receive(s, source, cb).await,
        }
    }
}

/// A batch's outcomes, in its order: `None` for each callback [`receive`] is to take on its own.
async fn receive_many(s: &Services, jobs: &[Queued]) -> Vec<Option<Outcome>> {
    match credit_batch(s, jobs).await {
        Ok(outcomes) => {
            let credited = outcomes.iter().filter(|o| o.is_some()).count();
            if credited > 0 {
                crate::infra::metrics::callback_batch(true, credited);
            }
            outcomes
        }
        Err(e) => {
            crate::infra::metrics::callback_batch(false, 0);
            tracing::warn!(error = %e, callbacks = jobs.len(),
                "a batch of callbacks failed and was rolled back: each is taken on its own");
            vec![None; jobs.len()]
        }
    }
}

/// One plain credit of a batch.
struct Credit<'a> {
    job: usize,
    source: &'static dyn CallbackProvider,
    cb: &'a Callback,
    payment: Payment,
    received: i64,
    order_id: String,
    /// The order's move, when the credit moves it.
    event: Option<OrderEvent>,
}

/// Credits a batch's plain credits in one transaction, whose statements PostgreSQL plans once per connection
/// ([`crate::store::Db::begin_generic`]): the orders locked (in id order) and their payments, ledgers
/// and held amounts read in four statements; each credit priced by the money engine from its loan; then the events
/// recorded (a replay drops out, for [`receive`]), the payments moved, the entries and positions posted, the orders
/// moved, the receipts queued and the audit written, each in multi-row statements, and one commit. Answers each
/// callback's outcome, `None` for those left to [`receive`]. Any failure rolls everything back.
async fn credit_batch(s: &Services, jobs: &[Queued]) -> Result<Vec<Option<Outcome>>, Error> {
    let now = s.clock.now_ms();
    let references: Vec<&str> = jobs
        .iter()
        .map(|j| j.cb.reference.as_str())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut tx = s.db.begin_generic().await?;
    let mut loans = loans_of_payments_in(&mut tx, &references).await?;
    let mut payments: HashMap<String, PaymentRow> = tx
        .payments_by_references_in_tx(&references)
        .await?
        .into_iter()
        .map(|row| (row.reference.clone(), row))
        .collect();
    let order_ids: Vec<&str> = loans.keys().map(String::as_str).collect();
    let held = tx.held_counts_in_tx(&order_ids).await?;
    let mut orders_seen = HashSet::new();
    let mut events_seen = HashSet::new();
    let mut money_seen = HashSet::new();
    let mut credits: Vec<Credit<'_>> = Vec::new();
    for (job, Queued { source, cb }) in jobs.iter().enumerate() {
        let Some(row) = payments.remove(&cb.reference) else {
            continue;
        };
        // One callback per order, event and provider payment id in a batch: another goes on its own, after it.
        let first_of_order = orders_seen.insert(row.order_id.clone());
        let first_event = events_seen.insert((source.code(), cb.event_id.as_str()));
        let first_money = cb
            .provider_payment_id
            .as_deref()
            .is_none_or(|id| money_seen.insert(id));
        if !(first_of_order && first_event && first_money && cb.credits) {
            continue;
        }
        let Some(loan) = loans.get_mut(&row.order_id) else {
            continue;
        };
        let payment = payment_of(s, row)?;
        let open = matches!(
            payment.status,
            PaymentStatus::Pending | PaymentStatus::Verifying
        );
        let same_currency = cb
            .currency
            .as_deref()
            .is_none_or(|c| c.eq_ignore_ascii_case(payment.row.currency.code()));
        let from_its_provider = source.settles(PaymentOrigin {
            method: payment.method,
            currency: payment.row.currency,
            issuer: payment.row.provider.as_deref(),
        });
        if !(open && same_currency && from_its_provider) {
            continue;
        }
        let received = cb.amount.unwrap_or(payment.row.amount);
        let Ok(Some(entry)) = plain_credit(s, loan, &payment, received, cb.sent_at) else {
            continue;
        };
        // The loan with the entry: its order's move, as `settle_in` decides it. This loan is in no other credit of the
        // batch, so one left to `receive` leaves nothing behind.
        let kind = entry.kind;
        loan.entries.push(entry);
        let Ok(balances) = balances_of(&loan.plan, &loan.entries) else {
            continue;
        };
        loan.balances = balances;
        let event = order_event_after_credit(kind, loan, loan.today(s));
        let closes = match event {
            Some(event) => match loan.order.status.apply(event) {
                Ok(next) => next.is_final(),
                Err(_) => continue,
            },
            None => false,
        };
        // Closing a loan owes back any other money held for it: `settle_in` does that, one payment at a time.
        if closes && held.get(&loan.order.id).is_some_and(|n| *n > 0) {
            continue;
        }
        credits.push(Credit {
            job,
            source: *source,
            cb,
            order_id: loan.order.id.clone(),
            payment,
            received,
            event,
        });
    }
    if credits.is_empty() {
        tx.rollback().await?;
        return Ok(vec![None; jobs.len()]);
    }
    // The events first, recorded as credited: one taken before (a replay, or a retry another server is crediting)
    // drops out of the batch and is left to `receive`, which finds it taken.
    let recorded = tx
        .insert_callbacks(
            &credits
                .iter()
                .map(|c| NewCallback {
                    provider: c.source.code(),
                    event_id: &c.cb.event_id,
                    payment_id: &c.payment.row.id,
                    amount: c.cb.amount,
                    outcome: Outcome::Confirmed.code(),
                    sent_at: c.cb.sent_at,
                })
                .collect::<Vec<_>>(),
            now,
        )
        .await?;
    credits.retain(|c| recorded.contains(&(c.source.code().to_owned(), c.cb.event_id.clone())));
    if credits.is_empty() {
        tx.rollback().await?;
        return Ok(vec![None; jobs.len()]);
    }
    credit_many_in(
        &mut tx,
        &credits
            .iter()
            .map(|c| (&c.payment, c.received, c.cb.provider_payment_id.as_deref()))
            .collect::<Vec<_>>(),
        now,
    )
    .await?;
    ledger::post_credits_in(
        &mut tx,
        &credits
            .iter()
            .map(|c| (&loans[&c.order_id], c.payment.row.id.as_str()))
            .collect::<Vec<_>>(),
        now,
    )
    .await?;
    // The orders' moves, through the order lifecycle, in a few statements per provider (the actor they name).
    let mut statuses: HashMap<&str, OrderState> = credits
        .iter()
        .map(|c| (c.order_id.as_str(), loans[&c.order_id].order.status))
        .collect();
    // The orders as this transaction read and locked them (`loans_of_payments_in`): the lifecycle does not read them
    // again.
    let held: HashMap<&str, OrderStatusRow> = credits
        .iter()
        .filter(|c| c.event.is_some())
        .map(|c| {
            let order = &loans[&c.order_id].order;
            let row = OrderStatusRow {
                id: order.id.clone(),
                order_no: order.order_no.clone(),
                status: order.status,
            };
            (c.order_id.as_str(), row)
        })
        .collect();
    let actors: HashSet<&'static str> = credits.iter().map(|c| c.source.actor()).collect();
    for actor in actors {
        let changes: Vec<(&OrderStatusRow, OrderEvent)> = credits
            .iter()
            .filter(|c| c.source.actor() == actor)
            .filter_map(|c| c.event.map(|event| (&held[c.order_id.as_str()], event)))
            .collect();
        let moved =
            orders::apply_many_held_in(&mut tx, &changes, &Actor::System(actor), now).await?;
        for ((order, _), status) in changes.iter().zip(moved) {
            statuses.insert(order.id.as_str(), status);
        }
    }
    let texts = credits
        .iter()
        .map(|c| {
            let loan = &loans[&c.order_id];
            receipt_text(s, loan, c.received, 0, statuses[c.order_id.as_str()])
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let receipts: Vec<NewReceipt<'_>> = credits
        .iter()
        .zip(&texts)
        .map(|(c, text)| {
            let loan = &loans[&c.order_id];
            NewReceipt {
                order_id: &loan.order.id,
                borrower_id: &c.payment.row.borrower_id,
                market: loan.order.market.code(),
                payment_id: &c.payment.row.id,
                entry_seq: (loan.entries.len() as u64).saturating_sub(1),
                text,
            }
        })
        .collect();
    tx.queue_receipts_many(&receipts, s.push.is_some(), now)
        .await?;
    let audits: Vec<(String, String)> = credits
        .iter()
        .map(|c| {
            let provider = c.source.code();
            (
                audit_json(
                    &c.payment,
                    c.received,
                    provider,
                    c.cb,
                    c.payment.status.code(),
                ),
                audit_json(
                    &c.payment,
                    c.received,
                    provider,
                    c.cb,
                    PaymentStatus::Confirmed.code(),
                ),
            )
        })
        .collect();
    let entries: Vec<NewAuditEntry<'_>> = credits
        .iter()
        .zip(&audits)
        .map(|(c, (before, after))| NewAuditEntry {
            actor_kind: "system",
            actor_id: None,
            action: "payment.callback_confirm",
            entity: "order",
            entity_id: &c.order_id,
            before_json: Some(before),
            after_json: Some(after),
            at: now,
        })
        .collect();
    tx.insert_audits(&entries).await?;
    tx.commit().await?;
    let mut outcomes = vec![None; jobs.len()];
    for c in &credits {
        outcomes[c.job] = Some(Outcome::Confirmed);
    }
    Ok(outcomes)
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
            extensions_before: row.extensions_before,
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
