//! The order lifecycle: the only code that changes an order's status. Every change goes through the domain's state
//! machine (`OrderState::apply`) and writes the status, the timeline entry and the audit entry in one transaction.
//! Also the borrower's reads of their orders (the list, one order with its accepted KFS and timeline, the agreement)
//! and the borrower's own change: withdrawing an application before the payout ([`cancel`]).

pub mod agreement;

use std::collections::{BTreeMap, HashMap, HashSet};

use kilat_domain::{Code, KeyFactStatement, OrderEvent, OrderState};
use serde::Serialize;

use crate::auth::{Borrower, SignInService};
use crate::error::{Error, Refusal};
use crate::infra::crypto::Secrets;
use crate::services::Services;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::orders::{
    Conflict, NewOrder, NewOrderEvent, OrderEventRow, OrderListRow, OrderRow, OrderStatusRow,
};

/// Who made a change, as the timeline and the audit trail name them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    Borrower(String),
    Operator(String),
    /// A job or a provider's callback, by name.
    System(&'static str),
}

impl Actor {
    fn kind(&self) -> &'static str {
        match self {
            Actor::Borrower(_) => "borrower",
            Actor::Operator(_) => "operator",
            Actor::System(_) => "system",
        }
    }

    fn id(&self) -> Option<&str> {
        match self {
            Actor::Borrower(id) | Actor::Operator(id) => Some(id),
            Actor::System(name) => Some(name),
        }
    }

    /// The actor's kind and id as an audit entry records them.
    pub(crate) fn audit_parts(&self) -> (&'static str, Option<&str>) {
        (self.kind(), self.id())
    }
}

/// The state of an order as the audit trail records it before and after a change.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuditState<'a> {
    order_no: &'a str,
    status: &'a str,
    /// A reviewer's decision: the reason the borrower reads, and the team's note, as recorded with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

/// What a reviewer wrote with a decision, recorded in its audit entry ([`apply_decision_in`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct DecisionTexts<'a> {
    pub reason: Option<&'a str>,
    pub note: Option<&'a str>,
}

/// Opens a new order in its first state, `pending_review`, with its timeline and audit entries. `Err(Conflict)`
/// when a unique index refused it; the transaction is then spoilt and must be dropped.
pub(crate) async fn open(
    tx: &mut Tx,
    secrets: &Secrets,
    new: &NewOrder<'_>,
    actor: &Actor,
) -> Result<Result<String, Conflict>, Error> {
    debug_assert_eq!(new.status, OrderState::PendingReview);
    let id = match tx.insert_order(secrets, new).await? {
        Ok(id) => id,
        Err(conflict) => return Ok(Err(conflict)),
    };
    tx.insert_order_event(&id, new.status, None, actor.kind(), actor.id(), new.now)
        .await?;
    let after = serde_json::to_string(&AuditState {
        order_no: new.order_no,
        status: new.status.code(),
        reason: None,
        note: None,
    })
    .map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: actor.kind(),
        actor_id: actor.id(),
        action: "order.open",
        entity: "order",
        entity_id: &id,
        before_json: None,
        after_json: Some(&after),
        at: new.now,
    })
    .await?;
    Ok(Ok(id))
}

/// Applies `event` to the order inside the caller's transaction: reads (and on PostgreSQL locks) the order, asks the
/// state machine for the next state, and writes status, timeline and audit. An event the state refuses is
/// `invalid_transition` and writes nothing. Returns the new state.
pub async fn apply_in(
    tx: &mut Tx,
    order_id: &str,
    event: OrderEvent,
    actor: &Actor,
    now: i64,
) -> Result<OrderState, Error> {
    apply_decision_in(tx, order_id, event, actor, now, DecisionTexts::default()).await
}

/// [`apply_in`] for a reviewer's decision: its audit entry records, after the new status, the reason the borrower
/// reads and the team's note.
pub async fn apply_decision_in(
    tx: &mut Tx,
    order_id: &str,
    event: OrderEvent,
    actor: &Actor,
    now: i64,
    texts: DecisionTexts<'_>,
) -> Result<OrderState, Error> {
    let order = tx
        .order_for_update(order_id)
        .await?
        .ok_or(Error::NotFound)?;
    move_in(
        tx,
        order_id,
        &order.order_no,
        order.status,
        event,
        actor,
        now,
        texts,
    )
    .await
}

/// [`apply_in`] for an order that the caller read, locked, in this transaction and has not moved since (a loan's
/// order read by `servicing::load_in`): the same writes, without reading the order again. The conditional update still
/// refuses a status that changed since the read.
pub(crate) async fn apply_locked_in(
    tx: &mut Tx,
    order: &OrderRow,
    event: OrderEvent,
    actor: &Actor,
    now: i64,
) -> Result<OrderState, Error> {
    move_in(
        tx,
        &order.id,
        &order.order_no,
        order.status,
        event,
        actor,
        now,
        DecisionTexts::default(),
    )
    .await
}

/// Moves the order, read as `status`, by `event`: status, timeline and audit (with a decision's `texts` after).
#[allow(clippy::too_many_arguments)]
async fn move_in(
    tx: &mut Tx,
    order_id: &str,
    order_no: &str,
    status: OrderState,
    event: OrderEvent,
    actor: &Actor,
    now: i64,
    texts: DecisionTexts<'_>,
) -> Result<OrderState, Error> {
    let next = status
        .apply(event)
        .map_err(|_| Error::Refused(Refusal::InvalidTransition))?;
    // The conditional update is the guard that holds even without the row lock (SQLite): a status changed by another
    // transaction since the read is not overwritten.
    if !tx.set_order_status(order_id, status, next, now).await? {
        return Err(Refusal::InvalidTransition.into());
    }
    tx.insert_order_event(order_id, next, Some(event), actor.kind(), actor.id(), now)
        .await?;
    let state = |status: OrderState, texts: DecisionTexts<'_>| {
        serde_json::to_string(&AuditState {
            order_no,
            status: status.code(),
            reason: texts.reason,
            note: texts.note,
        })
        .map_err(anyhow::Error::from)
    };
    let (before, after) = (
        state(status, DecisionTexts::default())?,
        state(next, texts)?,
    );
    let action = format!("order.{}", event.code());
    tx.insert_audit(&NewAuditEntry {
        actor_kind: actor.kind(),
        actor_id: actor.id(),
        action: &action,
        entity: "order",
        entity_id: order_id,
        before_json: Some(&before),
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tracing::info!(
        order_no,
        from = status.code(),
        to = next.code(),
        "order status changed"
    );
    Ok(next)
}

/// [`apply_in`] for many orders at once, in a few statements whatever their number: reads (and on PostgreSQL locks)
/// them all in one statement, then [`apply_many_held_in`]. Each order at most once in `changes`. If any order is
/// missing (`not_found`), its state refuses its event or it changed since the read (`invalid_transition`), the call
/// fails and the caller must drop the transaction, as after a failed `apply_in`. Returns each order's new state, in
/// the order of `changes`.
pub async fn apply_many_in(
    tx: &mut Tx,
    changes: &[(&str, OrderEvent)],
    actor: &Actor,
    now: i64,
) -> Result<Vec<OrderState>, Error> {
    let ids: Vec<&str> = changes.iter().map(|(id, _)| *id).collect();
    let rows = tx.orders_for_update(&ids).await?;
    let by_id: HashMap<&str, &OrderStatusRow> = rows.iter().map(|r| (r.id.as_str(), r)).collect();
    let held = changes
        .iter()
        .map(|(id, event)| Ok((*by_id.get(id).ok_or(Error::NotFound)?, *event)))
        .collect::<Result<Vec<_>, Error>>()?;
    apply_many_held_in(tx, &held, actor, now).await
}

/// [`apply_many_in`] for orders this transaction has already read under its lock (on PostgreSQL `FOR UPDATE`, as the
/// overdue job's page and a batch of callbacks do): each change carries its order as read then, and the orders are not
/// read a second time. Asks the state machine for each order's next state, moves them with one conditional update per
/// (from, to) pair, and writes their timeline and audit entries in multi-row inserts: the same rows `apply_in` writes
/// order by order. The conditional update holds whatever the caller read: an order whose status is no longer the one
/// given is not overwritten, and the call fails (`invalid_transition`). Each order at most once.
pub async fn apply_many_held_in(
    tx: &mut Tx,
    changes: &[(&OrderStatusRow, OrderEvent)],
    actor: &Actor,
    now: i64,
) -> Result<Vec<OrderState>, Error> {
    if changes.is_empty() {
        return Ok(Vec::new());
    }
    if changes
        .iter()
        .map(|(order, _)| order.id.as_str())
        .collect::<HashSet<_>>()
        .len()
        != changes.len()
    {
        return Err(anyhow::anyhow!("an order appears twice in one batch of changes").into());
    }
    let mut moves: Vec<(&OrderStatusRow, OrderEvent, OrderState)> =
        Vec::with_capacity(changes.len());
    // Orders grouped by their move, in a stable order: one conditional update per group.
    let mut groups: BTreeMap<(&'static str, &'static str), (OrderState, OrderState, Vec<&str>)> =
        BTreeMap::new();
    for &(order, event) in changes {
        let next = order
            .status
            .apply(event)
            .map_err(|_| Error::Refused(Refusal::InvalidTransition))?;
        groups
            .entry((order.status.code(), next.code()))
            .or_insert_with(|| (order.status, next, Vec::new()))
            .2
            .push(order.id.as_str());
        moves.push((order, event, next));
    }
    // As in `apply_in`, the conditional update holds even without the row locks (SQLite): an order whose status
    // changed since the read is not overwritten, and the batch fails.
    for (from, to, group) in groups.values() {
        if tx.set_orders_status(group, *from, *to, now).await? != group.len() as u64 {
            return Err(Refusal::InvalidTransition.into());
        }
    }
    let timeline: Vec<NewOrderEvent<'_>> = moves
        .iter()
        .map(|(order, event, next)| NewOrderEvent {
            order_id: &order.id,
            status: *next,
            event: Some(*event),
            actor: actor.kind(),
            actor_id: actor.id(),
            at: now,
        })
        .collect();
    tx.insert_order_events(&timeline).await?;
    let texts = moves
        .iter()
        .map(|(order, event, next)| {
            let state = |status: OrderState| {
                serde_json::to_string(&AuditState {
                    order_no: &order.order_no,
                    status: status.code(),
                    reason: None,
                    note: None,
                })
            };
            Ok((
                format!("order.{}", event.code()),
                state(order.status)?,
                state(*next)?,
            ))
        })
        .collect::<Result<Vec<_>, serde_json::Error>>()
        .map_err(anyhow::Error::from)?;
    let audit: Vec<NewAuditEntry<'_>> = moves
        .iter()
        .zip(&texts)
        .map(|((order, _, _), (action, before, after))| NewAuditEntry {
            actor_kind: actor.kind(),
            actor_id: actor.id(),
            action,
            entity: "order",
            entity_id: &order.id,
            before_json: Some(before),
            after_json: Some(after),
            at: now,
        })
        .collect();
    tx.insert_audits(&audit).await?;
    for (order, _, next) in &moves {
        tracing::info!(order_no = %order.order_no, from = order.status.code(), to = next.code(), "order status changed");
    }
    Ok(moves.into_iter().map(|(_, _, next)| next).collect())
}

/// Applies `event` to the order in a transaction of its own.
pub async fn apply(
    s: &Services,
    order_id: &str,
    event: OrderEvent,
    actor: &Actor,
) -> Result<OrderState, Error> {
    let mut tx = s.db.begin().await?;
    let next = apply_in(&mut tx, order_id, event, actor, s.clock.now_ms()).await?;
    tx.commit().await?;
    Ok(next)
}

/// The order list of a session token: the orders of its borrower (newest first, at most 100), and how long the session now lives when this
/// request extended it. `None` when the token names no live session (exactly the limits of
/// `SignInService::borrower_for_token`). One statement reads the session and the orders together: one round trip, and
/// no borrower phone to decrypt, as the list does not show it.
pub struct SessionList {
    pub orders: Vec<OrderListRow>,
    pub extended_for_ms: Option<i64>,
}

pub async fn list_for_token(s: &Services, token: &str) -> Result<Option<SessionList>, Error> {
    let sign_in = SignInService::of(s);
    let window = sign_in.session_window();
    let token_hash = crate::infra::crypto::token_hash(token);
    let Some(listed) =
        s.db.session_orders(&token_hash, window.idle_since, window.created_since, 100)
            .await?
    else {
        return Ok(None);
    };
    let extended_for_ms = sign_in
        .keep_alive(
            &token_hash,
            window,
            listed.session_created_at,
            listed.last_seen_at,
        )
        .await?;
    Ok(Some(SessionList {
        orders: listed.orders,
        extended_for_ms,
    }))
}

/// One order with its accepted KFS and its timeline.
pub struct OrderDetail {
    pub order: OrderRow,
    pub kfs: KeyFactStatement,
    pub timeline: Vec<OrderEventRow>,
}

/// The borrower's order by its number; another borrower's order is not found.
pub async fn own(s: &Services, borrower: &Borrower, order_no: &str) -> Result<OrderRow, Error> {
    s.db.order_of(&borrower.id, order_no.trim())
        .await?
        .ok_or(Error::NotFound)
}

pub async fn detail_of(s: &Services, order: OrderRow) -> Result<OrderDetail, Error> {
    let kfs: KeyFactStatement =
        serde_json::from_str(&order.kfs_json).map_err(anyhow::Error::from)?;
    let timeline = s.db.order_events(&order.id).await?;
    Ok(OrderDetail {
        order,
        kfs,
        timeline,
    })
}

/// One of the borrower's orders, in full.
pub async fn detail(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<OrderDetail, Error> {
    let order = own(s, borrower, order_no).await?;
    detail_of(s, order).await
}

/// The borrower withdraws their application: one still pending review, or approved but not paid out
/// (`OrderEvent::Cancel`). Any other state is `invalid_transition`; another borrower's order is not found. Racing
/// changes (a second cancel, an approval, a payout) are settled by [`apply`]: exactly one of them moves the order.
pub async fn cancel(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<OrderDetail, Error> {
    let order = own(s, borrower, order_no).await?;
    let mut tx = s.db.begin().await?;
    let locked = tx
        .order_locked_in_tx(&order.id)
        .await?
        .ok_or(Error::NotFound)?;
    // In a bank file finance downloaded, or paid out by hand and waiting for a second operator's approval: the money
    // may be on its way or sent, so the order is no longer the borrower's to cancel (the lock orders this against the
    // file's claim of it and against the payout's record).
    if tx.payout_sent_in_tx(&order.id).await?
        || tx.payout_approval_in_tx(&order.id).await?.is_some()
    {
        return Err(Refusal::PayoutSent.into());
    }
    apply_locked_in(
        &mut tx,
        &locked,
        OrderEvent::Cancel,
        &Actor::Borrower(borrower.id.clone()),
        s.clock.now_ms(),
    )
    .await?;
    tx.commit().await?;
    detail(s, borrower, &order.order_no).await
}
