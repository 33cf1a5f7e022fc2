//! The only writer of a payment's status ([`move_payment`], through the domain's state machine) and the settlement of
//! money received for a payment ([`settle_in`]): finance's decisions and the providers' callbacks both come here.

use super::*;
use crate::i18n;
use crate::store::jobs::NewReceipt;
use crate::store::payments::CreditedPayment;

/// What finance (or nobody, for a provider's callback) decided about money received for a payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Credit it as the payment was priced when it is the amount asked; hold anything else.
    AsAsked,
    /// Credit what was received (a held amount), by the allocation rule, up to the payoff.
    Credit,
    /// Owe all of it back to the borrower.
    Refund,
    /// Hold it for finance, whatever the amount (a currency other than the payment's; money for a payment finance
    /// had rejected).
    Hold,
}

/// Fields recorded with a payment's move.
#[derive(Default)]
pub(crate) struct MoveFields<'a> {
    pub received_amount: Option<i64>,
    pub reason: Option<&'a str>,
    pub decided_by: Option<&'a str>,
    pub refund_amount: Option<i64>,
    /// The provider's id of the money (a callback's), recorded with the move unless the payment has one or another
    /// payment holds it.
    pub provider_id: Option<&'a str>,
}

/// The only writer of a payment's status: moves the payment, read as `from` inside `tx`, by `event` through the
/// domain's state machine ([`PaymentStatus::apply`]), with a conditional update on `from` so that a decision happens
/// once. A move the state machine refuses, or a payment that changed meanwhile, is `payment_not_open`.
pub(crate) async fn move_payment(
    tx: &mut Tx,
    id: &str,
    from: PaymentStatus,
    event: PaymentEvent,
    fields: MoveFields<'_>,
    now: i64,
) -> Result<PaymentStatus, Error> {
    Ok(move_counting_held(tx, id, from, event, fields, now)
        .await?
        .0)
}

/// [`move_payment`], also answering how many other payments of the order hold money (`held`), read in the same
/// statement.
async fn move_counting_held(
    tx: &mut Tx,
    id: &str,
    from: PaymentStatus,
    event: PaymentEvent,
    fields: MoveFields<'_>,
    now: i64,
) -> Result<(PaymentStatus, i64), Error> {
    let to = from
        .apply(event)
        .map_err(|_| Error::from(Refusal::PaymentNotOpen))?;
    let moved = tx
        .set_payment_status(
            id,
            &[from.code()],
            &PaymentMove {
                to: to.code(),
                received_amount: fields.received_amount,
                reason: fields.reason,
                decided_by: fields.decided_by,
                refund_amount: fields.refund_amount,
                provider_id: fields.provider_id,
            },
            now,
        )
        .await?;
    match moved {
        Some(held) => Ok((to, held)),
        None => Err(Refusal::PaymentNotOpen.into()),
    }
}

/// [`move_payment`] for a batch of callbacks' plain credits: each payment, read in its status inside `tx` (its
/// order locked), moves by [`PaymentEvent::Credit`] through the state machine, with the amount received and the
/// provider's id of the money, in a few multi-row conditional updates. If the state machine refuses any, or any
/// payment changed since its read, nothing is written and the call fails: the caller drops the transaction.
pub(crate) async fn credit_many_in(
    tx: &mut Tx,
    credits: &[(&Payment, i64, Option<&str>)],
    now: i64,
) -> Result<(), Error> {
    let mut rows = Vec::with_capacity(credits.len());
    for (payment, received, provider_id) in credits {
        let to = payment
            .status
            .apply(PaymentEvent::Credit)
            .map_err(|_| Error::from(Refusal::PaymentNotOpen))?;
        if to != PaymentStatus::Confirmed {
            return Err(anyhow::anyhow!(
                "payment {}: a credit moved it to {}",
                payment.row.id,
                to.code()
            )
            .into());
        }
        rows.push(CreditedPayment {
            id: &payment.row.id,
            from: payment.status.code(),
            received: *received,
            provider_id: *provider_id,
        });
    }
    if tx.credit_payments(&rows, now).await? != rows.len() as u64 {
        return Err(Refusal::PaymentNotOpen.into());
    }
    Ok(())
}

/// Money a provider took back from a payment, as its receipt names it ([`take_back_credit_in`]).
pub(crate) struct TakenMoney<'a> {
    pub payment_id: &'a str,
    pub provider_payment_id: Option<&'a str>,
    pub amount: Option<i64>,
    pub currency: Option<&'a str>,
}

/// A payment's credit taken back from the loan's ledger ([`take_back_credit_in`]).
#[derive(Debug, Clone)]
pub(crate) struct TakenBack {
    pub order_no: String,
    /// The number of the entry reversed, and of its reversal.
    pub entry: u64,
    pub reversal: u64,
    pub amount: i64,
    pub order_status: OrderState,
}

/// Takes back the credit of a payment whose money its provider took back (a refund or chargeback after the loan was
/// credited, PRODUCT.md §6: corrections are reversals): the payment's one credit entry — an installment's repayment or
/// an extension's fee, which moves its due dates back — is reversed in the ledger, so the loan owes that money again
/// and replaying the entries gives the balances. Only the very money credited (the provider's id it was credited
/// under), whole and in the loan's currency, of an open loan's credit with nothing owed back on the payment and no
/// late charges waived with it, is taken back by itself: anything else is `credit_not_taken_back` (finance settles it
/// by hand). A loan of another market than the operator's is not found. A loan past a due
/// date once the money is gone is overdue again at once, through the orders lifecycle. The order is locked as read.
pub(crate) async fn take_back_credit_in(
    s: &Services,
    tx: &mut Tx,
    op: &Operator,
    taken: &TakenMoney<'_>,
    now: i64,
) -> Result<TakenBack, Error> {
    let refused = || Error::from(Refusal::CreditNotTakenBack);
    let payment_id = taken.payment_id;
    let row = tx.payment_in_tx(payment_id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    let mut loan = load_in(tx, &payment.row.order_id).await?;
    if !op.may_see(loan.order.market) {
        return Err(Error::NotFound);
    }
    // The money taken back must be the very money credited: the provider's id it was credited under (not money a
    // wrong provider kept apart for this payment), all of it (below), in the loan's currency.
    let credited_as = tx.payment_provider_id_in_tx(payment_id).await?;
    let same_money = credited_as.is_some() && credited_as.as_deref() == taken.provider_payment_id;
    let same_currency = taken.currency == Some(loan.order.currency.code());
    if payment.status != PaymentStatus::Confirmed
        || !matches!(
            loan.order.status,
            OrderState::Disbursed | OrderState::Overdue
        )
        || !same_money
        || !same_currency
    {
        return Err(refused());
    }
    let seqs = tx
        .entries_of_payment_in_tx(&loan.order.id, payment_id)
        .await?;
    let reversed = |seq: u64| loan.entries.iter().any(|e| e.reverses == Some(seq));
    let credits: Vec<u64> = seqs
        .into_iter()
        .filter_map(|seq| u64::try_from(seq).ok())
        .filter(|seq| {
            loan.entries
                .get(*seq as usize)
                .is_some_and(|e| matches!(e.kind, EntryKind::Repayment | EntryKind::ExtensionFee))
        })
        .collect();
    let [seq] = credits[..] else {
        return Err(refused());
    };
    let entry = &loan.entries[seq as usize];
    // Late charges waived with the credit (posted just before it, as reversals of late charges) rest on money the
    // borrower no longer paid: the ledger does not take them back by itself.
    let waived_with_it = seq
        .checked_sub(1)
        .and_then(|before| loan.entries.get(before as usize))
        .is_some_and(|e| {
            e.kind == EntryKind::Reversal
                && e.reverses
                    .and_then(|t| loan.entries.get(t as usize))
                    .is_some_and(|t| t.kind == EntryKind::LateCharge)
        });
    if reversed(seq)
        || waived_with_it
        || entry.excess.minor() != 0
        || taken.amount != Some(entry.cash.minor())
    {
        return Err(refused());
    }
    let cash = entry.cash.minor();
    let today = loan.today(s);
    let reversal = kilat_domain::reversal(&loan.entries, seq, today).map_err(Error::Loan)?;
    // The ledger must still replay with it (a later entry may rest on this credit): else by hand.
    let mut with = loan.entries.clone();
    with.push(reversal.clone());
    if kilat_domain::replay(&loan.plan, &with).is_err() {
        return Err(refused());
    }
    let at = loan.entries.len() as u64;
    post(tx, &mut loan, reversal, Some(payment_id), now).await?;
    let mut order_status = loan.order.status;
    if order_status == OrderState::Disbursed && loan.balances.is_overdue(today) {
        let actor = Actor::Operator(op.id.clone());
        order_status =
            orders::apply_locked_in(tx, &loan.order, OrderEvent::FallOverdue, &actor, now).await?;
    }
    Ok(TakenBack {
        order_no: loan.order.order_no.clone(),
        entry: seq,
        reversal: at,
        amount: cash,
        order_status,
    })
}

/// Records the bank transfer that sent a payment's refund back: the move `refund_due` → `refunded` through the state
/// machine, once (a second recording finds the status changed: `payment_not_open`).
pub(crate) async fn refund_sent(
    tx: &mut Tx,
    id: &str,
    from: PaymentStatus,
    bank_reference: &str,
    operator_id: &str,
    now: i64,
) -> Result<(), Error> {
    from.apply(PaymentEvent::RecordRefund)
        .map_err(|_| Error::from(Refusal::PaymentNotOpen))?;
    if tx
        .record_refund(id, bank_reference, operator_id, now)
        .await?
    {
        return Ok(());
    }
    Err(not_recorded(tx, id).await?)
}

/// Why a refund's claim or recording changed nothing: still owed back, so another operator is sending it
/// (`refund_claimed`); or no longer owed back (`payment_not_open`: recorded or decided meanwhile).
pub(crate) async fn not_recorded(tx: &mut Tx, id: &str) -> Result<Error, Error> {
    let still_due = tx
        .payment_in_tx(id)
        .await?
        .is_some_and(|p| p.status == PaymentStatus::RefundDue.code());
    Ok(if still_due {
        Refusal::RefundClaimed
    } else {
        Refusal::PaymentNotOpen
    }
    .into())
}

/// What settling a payment did.
pub(crate) struct Settled {
    /// `confirmed`; `refund_due` when some or all of it is owed back; `held` when nothing was credited.
    pub status: PaymentStatus,
    /// The sequence number of the ledger entry posted; none when nothing was credited.
    pub entry: Option<u64>,
    pub order_status: OrderState,
    /// Minor units owed back to the borrower.
    pub refund: i64,
}

/// `payment` as the money engine prices it ([`kilat_domain::Asked`]), its money sent on the latest day it can have
/// been as far as Kilat knows: the day its UTR was first submitted or a provider says it sent the money (`sent_at`),
/// the day its instructions expired (a virtual account or Dragonpay reference takes no money after), else `today`;
/// never before the day it was priced. A price holds for money sent within [`kilat_domain::QUOTE_HOLDS_DAYS`] of its
/// day, so a UTR checked by finance days later, or a provider's callback delivered late, is credited as priced, while
/// a quote kept for weeks is priced for the day its money came.
pub(crate) fn asked_of(
    loan: &Loan,
    payment: &Payment,
    today: Date,
    sent_at: Option<i64>,
    repayment_waiting: bool,
) -> Result<kilat_domain::Asked, Error> {
    let priced_on = parse_date(&payment.row.priced_on)?;
    let market = loan.order.market;
    let day_of = |ms: i64| {
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .ok()
            .map(|at| market.local_date(at))
    };
    let sent_on = [sent_at, payment.row.expires_at]
        .into_iter()
        .flatten()
        .filter_map(day_of)
        .fold(today, Date::min)
        .max(priced_on);
    Ok(kilat_domain::Asked {
        choice: payment.choice,
        installment: parse_installment(payment.row.installment),
        priced_on,
        amount: Money::from_minor(payment.row.amount),
        sent_on,
        extensions_before: payment
            .row
            .extensions_before
            .and_then(|n| u32::try_from(n).ok()),
        repayment_waiting,
    })
}

pub(crate) fn parse_installment(n: Option<i64>) -> Option<u32> {
    n.and_then(|n| u32::try_from(n).ok())
}

/// Settles `payment`, read inside `tx` with the order locked and `loan` loaded in it, with `received` (finance's
/// confirm and decisions and a provider's callback all come here, the callback with the provider's id of the money,
/// recorded on the payment by the same write as its move), as the money engine says
/// ([`kilat_domain::settle`]): the amount asked is credited as priced; another amount is held for finance; money for
/// a loan that owes nothing, or beyond what it owed, is owed back (`refund_due`). The ledger entry is appended and the
/// order moves (repaid, exited in cooling-off, extended, caught up) in the same transaction. When the loan closes,
/// any other amount held for it is owed back too. `sent_at` is when a provider's callback says its money was sent; the
/// money is priced for the earliest day Kilat knows it was sent ([`asked_of`]), with what the store knows (the UTR,
/// callbacks before) — so finance crediting held money days later charges nothing for those days.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn settle_in(
    s: &Services,
    tx: &mut Tx,
    loan: &mut Loan,
    payment: &Payment,
    received: i64,
    decision: Decision,
    decided_by: Option<&str>,
    provider_id: Option<&str>,
    sent_at: Option<i64>,
    actor: &Actor,
    now: i64,
) -> Result<Settled, Error> {
    use kilat_domain::PaymentSettlement as Outcome;
    let today = loan.today(s);
    // A payment still pending with no UTR has had no money reported (a callback that brought some moved it).
    let known = if payment.row.utr.is_some() || payment.status != PaymentStatus::Pending {
        tx.money_sent_at_in_tx(&payment.row.id).await?
    } else {
        None
    };
    // Whether a repayment of the loan waits for finance matters to an extension's fee only (the money engine holds
    // the fee then), read here with the order locked as the fee's money arrives.
    let repayment_waiting = payment.choice == RepaymentChoice::Extension
        && tx
            .other_payment_waiting_in_tx(&loan.order.id, &payment.row.id)
            .await?;
    let asked = asked_of(
        loan,
        payment,
        today,
        known.into_iter().chain(sent_at).min(),
        repayment_waiting,
    )?;
    let received_money = Money::from_minor(received);
    // Late charges posted for days after the one the money is priced for, which the credit leaves the borrower not
    // late on, are waived with it: the money pays what it was asked for on its day, not the days a callback or
    // finance took ([`kilat_domain::settle_waiving_later_charges`]).
    let (waived, outcome) = match decision {
        Decision::AsAsked => settle_waiving(loan, payment, &asked, received_money, today, |b| {
            kilat_domain::settle(&loan.plan, b, &asked, received_money, today, &s.caps)
        })?,
        Decision::Credit => settle_waiving(loan, payment, &asked, received_money, today, |b| {
            kilat_domain::credit_received(&loan.plan, b, &asked, received_money, today)
        })?,
        Decision::Refund => (Vec::new(), Outcome::RefundAll),
        Decision::Hold => (Vec::new(), Outcome::Hold),
    };
    let fields = |refund: Option<i64>| MoveFields {
        received_amount: Some(received),
        reason: None,
        decided_by,
        refund_amount: refund,
        provider_id,
    };
    let mut entry_seq = None;
    let mut order_status = loan.order.status;
    let (status, refund) = match outcome {
        Outcome::Hold => {
            let status = move_payment(
                tx,
                &payment.row.id,
                payment.status,
                PaymentEvent::Hold,
                fields(None),
                now,
            )
            .await?;
            (status, 0)
        }
        Outcome::RefundAll => {
            let status = move_payment(
                tx,
                &payment.row.id,
                payment.status,
                PaymentEvent::RefundAll,
                fields(Some(received)),
                now,
            )
            .await?;
            (status, received)
        }
        Outcome::Credit { entry, refund } => {
            let refund = refund.minor();
            let event = if refund > 0 {
                PaymentEvent::CreditWithExcess
            } else {
                PaymentEvent::Credit
            };
            let (status, others_held) = move_counting_held(
                tx,
                &payment.row.id,
                payment.status,
                event,
                fields((refund > 0).then_some(refund)),
                now,
            )
            .await?;
            let kind = entry.kind;
            // Not the payment's entries (no money moved): the credit just after them is.
            for reversal in waived {
                post(tx, loan, reversal, None, now).await?;
            }
            entry_seq = Some(loan.entries.len() as u64);
            post(tx, loan, entry, Some(&payment.row.id), now).await?;
            if let Some(event) = order_event_after_credit(kind, loan, today) {
                // The order was read and locked by `load_in` in this transaction: it is not read again.
                order_status = orders::apply_locked_in(tx, &loan.order, event, actor, now).await?;
            }
            if order_status.is_final() && others_held > 0 {
                refund_held_in(tx, loan, &payment.row.id, actor, now).await?;
            }
            queue_receipt_in(s, tx, loan, payment, received, refund, order_status, now).await?;
            (status, refund)
        }
    };
    Ok(Settled {
        status,
        entry: entry_seq,
        order_status,
        refund,
    })
}

/// The ledger entry that `received` for `payment` posts when it is a plain credit, priced as [`settle_in`] prices
/// [`Decision::AsAsked`] from the loan as loaded: the amount asked, credited with nothing owed back, its money sent at
/// `sent_at` when the provider says. `None` for any other outcome (an amount held for finance, money owed back), which
/// [`settle_in`] decides one payment at a time.
pub(crate) fn plain_credit(
    s: &Services,
    loan: &Loan,
    payment: &Payment,
    received: i64,
    sent_at: Option<i64>,
) -> Result<Option<kilat_domain::LedgerEntry>, Error> {
    if payment.row.utr.is_some() || payment.status != PaymentStatus::Pending {
        // When its money was sent may be the UTR's day, which settle_in reads.
        return Ok(None);
    }
    if payment.choice == RepaymentChoice::Extension {
        // Whether another payment of the loan waits for finance is settle_in's to read, in its transaction.
        return Ok(None);
    }
    // Whether a repayment waits is not known here: an extension's fee was left to settle_in above.
    let asked = asked_of(loan, payment, loan.today(s), sent_at, false)?;
    let received_money = Money::from_minor(received);
    let today = loan.today(s);
    let (waived, outcome) = settle_waiving(loan, payment, &asked, received_money, today, |b| {
        kilat_domain::settle(&loan.plan, b, &asked, received_money, today, &s.caps)
    })?;
    if !waived.is_empty() {
        // Late charges to waive first: settle_in posts them with the credit.
        return Ok(None);
    }
    Ok(match outcome {
        kilat_domain::PaymentSettlement::Credit { entry, refund } if refund.minor() == 0 => {
            Some(entry)
        }
        _ => None,
    })
}

/// `received` for `payment` settled by `settle` on the loan's balances, with the late charges it is owed a waiver of
/// ([`kilat_domain::settle_waiving_later_charges`], on the installments the payment covers).
fn settle_waiving(
    loan: &Loan,
    payment: &Payment,
    asked: &kilat_domain::Asked,
    received: Money,
    today: Date,
    settle: impl Fn(
        &kilat_domain::LoanBalances,
    ) -> kilat_domain::Result<kilat_domain::PaymentSettlement>,
) -> Result<
    (
        Vec<kilat_domain::LedgerEntry>,
        kilat_domain::PaymentSettlement,
    ),
    Error,
> {
    let covered = kilat_domain::frozen_installments(
        &loan.plan,
        payment.choice,
        parse_installment(payment.row.installment),
        parse_installment(payment.row.installment_to),
    );
    kilat_domain::settle_waiving_later_charges(
        &loan.plan,
        &loan.entries,
        &loan.balances,
        asked,
        &covered,
        received,
        today,
        settle,
    )
    .map_err(Error::Loan)
}

/// How a credit that posted an entry of `kind` moves the loan's order, read from the loan after it (its entries and
/// balances with the entry; its order as locked before): a cooling-off exit, repaid in full, extended, caught up out of
/// overdue, or no move.
pub(crate) fn order_event_after_credit(
    kind: EntryKind,
    loan: &Loan,
    today: Date,
) -> Option<OrderEvent> {
    match kind {
        EntryKind::CoolingOffExit => Some(OrderEvent::ExitInCoolingOff),
        _ if loan.balances.settled || loan.balances.closed_by.is_some() => {
            Some(OrderEvent::RepayInFull)
        }
        // An extension credited after its new due date passed (finance confirmed it late; the money counts on the
        // day it was sent) leaves an overdue loan overdue.
        EntryKind::ExtensionFee
            if loan.order.status == OrderState::Overdue && loan.balances.is_overdue(today) =>
        {
            None
        }
        EntryKind::ExtensionFee => Some(OrderEvent::Extend),
        _ if loan.order.status == OrderState::Overdue && !loan.balances.is_overdue(today) => {
            Some(OrderEvent::CatchUp)
        }
        _ => None,
    }
}

/// The borrower's receipt of a credited payment (issue 19 item 16), queued in the notification outbox in the
/// transaction that credits it, so that it goes out once the credit is committed and never otherwise; at most one per
/// payment (the outbox's unique index), however many times or by whichever path the payment is confirmed. It names
/// the amount received and what is left to repay, or that the loan is repaid (or closed in cooling-off), and any
/// amount owed back; in the market's language, with the app's dates and money. The same text goes as a push to the
/// borrower's devices when pushes are on (`[push]`) and a device uploaded a push token.
#[allow(clippy::too_many_arguments)]
async fn queue_receipt_in(
    s: &Services,
    tx: &mut Tx,
    loan: &Loan,
    payment: &Payment,
    received: i64,
    refund: i64,
    order_status: OrderState,
    now: i64,
) -> Result<(), Error> {
    let text = receipt_text(s, loan, received, refund, order_status)?;
    let receipt = NewReceipt {
        order_id: &loan.order.id,
        borrower_id: &payment.row.borrower_id,
        market: loan.order.market.code(),
        payment_id: &payment.row.id,
        entry_seq: (loan.entries.len() as u64).saturating_sub(1),
        text: &text,
    };
    tx.queue_receipts(&receipt, s.push.is_some(), now).await?;
    Ok(())
}

/// The text of the receipt [`queue_receipt_in`] queues, for a loan whose ledger has the credit's entry: the amount
/// received, what is left to repay or that the loan is repaid (or closed in cooling-off), and any amount owed back.
pub(crate) fn receipt_text(
    s: &Services,
    loan: &Loan,
    received: i64,
    refund: i64,
    order_status: OrderState,
) -> Result<String, Error> {
    let market = loan.order.market;
    let currency = market.currency();
    let lang = i18n::Lang::of_market(market);
    let money = |minor: i64| i18n::sms_money(Money::from_minor(minor), currency);
    let left = loan.balances.outstanding.total().map_err(Error::Loan)?;
    let key = match order_status {
        OrderState::ExitedInCoolingOff => "receipt.exited",
        _ if order_status.is_final() => "receipt.repaid",
        _ => "receipt.left",
    };
    let mut text = i18n::format(
        lang,
        key,
        &[
            ("amount", &money(received)),
            ("order_no", &loan.order.order_no),
            ("date", &i18n::format_date(lang, loan.today(s))),
            ("left", &i18n::sms_money(left, currency)),
        ],
    );
    if refund > 0 {
        text.push(' ');
        text.push_str(&i18n::format(
            lang,
            "receipt.refund",
            &[("refund", &money(refund))],
        ));
    }
    Ok(text)
}

/// The loan just closed: every other amount held for it is owed back to the borrower (it can no longer be credited),
/// each audited; money in another currency than its payment's stays held, for finance to send back through the
/// provider.
async fn refund_held_in(
    tx: &mut Tx,
    loan: &Loan,
    except: &str,
    actor: &Actor,
    now: i64,
) -> Result<(), Error> {
    for row in tx.held_payments_of_order(&loan.order.id, except).await? {
        if row.foreign_currency().is_some() {
            // Another currency's money stays held: finance sends it back through the provider.
            continue;
        }
        let received = row.received_amount.unwrap_or(row.amount);
        move_payment(
            tx,
            &row.id,
            PaymentStatus::Held,
            PaymentEvent::RefundAll,
            MoveFields {
                refund_amount: Some(received),
                ..MoveFields::default()
            },
            now,
        )
        .await?;
        let (kind, id) = actor.audit_parts();
        tx.insert_audit(&NewAuditEntry {
            actor_kind: kind,
            actor_id: id,
            action: "payment.refund_due",
            entity: "order",
            entity_id: &loan.order.id,
            before_json: Some(&audit_json(&row, PaymentStatus::Held, None)?),
            // As it is now: all it received is owed back.
            after_json: Some(&audit_json(
                &PaymentRow {
                    received_amount: Some(received),
                    refund_amount: Some(received),
                    ..row.clone()
                },
                PaymentStatus::RefundDue,
                None,
            )?),
            at: now,
        })
        .await?;
    }
    Ok(())
}

/// The audit action of a settlement's outcome.
pub(crate) fn settled_action(status: PaymentStatus) -> &'static str {
    match status {
        PaymentStatus::Held => "payment.hold",
        PaymentStatus::RefundDue => "payment.refund_due",
        _ => "payment.confirm",
    }
}
