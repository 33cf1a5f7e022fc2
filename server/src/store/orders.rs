//! Orders: created on confirm with the accepted KFS, their status changes, listed for their borrower, with their
//! timeline. Status changes are written only by `crate::orders` (the lifecycle), through [`Tx`].

use std::collections::HashMap;

use kilat_domain::{Code, Currency, Market, OrderEvent, OrderState};
use sqlx::{AnyPool, Row};

use super::batch::{SessionKey, live_sessions_in, session_bounds};
use super::book::Counted;
use super::lists::Kind::{Int, Text};
use super::lists::{BindValues, Rows, Value, any_of, texts};
use super::sign_in::live_session;
use super::{Db, Tx, new_id};
use crate::infra::crypto::{Binding, Secrets};

/// Orders per statement in the batched status reads and updates (one bound id each).
const IDS_PER_STATEMENT: usize = 1000;

/// Timeline rows per multi-row insert (7 bound values each).
const EVENTS_PER_INSERT: usize = 400;

/// One timeline entry to append in a batch ([`Tx::insert_order_events`]).
#[derive(Debug, Clone)]
pub struct NewOrderEvent<'a> {
    pub order_id: &'a str,
    pub status: OrderState,
    pub event: Option<OrderEvent>,
    pub actor: &'a str,
    pub actor_id: Option<&'a str>,
    pub at: i64,
}

/// A new order in its first state.
#[derive(Debug, Clone)]
pub struct NewOrder<'a> {
    pub order_no: &'a str,
    pub borrower_id: &'a str,
    pub market: Market,
    pub product_code: &'a str,
    pub product_name: &'a str,
    pub term_code: &'a str,
    pub currency: Currency,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: &'a str,
    pub status: OrderState,
    pub kfs_json: &'a str,
    pub kfs_hash: &'a str,
    /// The agreement accepted with the KFS, frozen (`orders::agreement::Snapshot` as JSON), in clear: the insert
    /// seals it to the new order's row.
    pub agreement_json: &'a str,
    pub idempotency_key: &'a str,
    pub request_hash: &'a str,
    /// The product version the KFS was priced on (`products`, migration 0013).
    pub product_version: i64,
    pub now: i64,
}

/// An order with everything stored about it, the accepted KFS included, but for the agreement frozen at confirm
/// (`agreement_json`: its text in every language, sealed, about 8 KB a row that PostgreSQL keeps out of line), which
/// only the documents and the export show and [`Db::order_agreement`] reads: the loan's screens and the money paths
/// read this row on every request.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OrderRow {
    pub id: String,
    pub order_no: String,
    pub borrower_id: String,
    #[row(try_from = "String")]
    pub market: Market,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    #[row(try_from = "String")]
    pub currency: Currency,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: String,
    #[row(try_from = "String")]
    pub status: OrderState,
    pub kfs_json: String,
    pub request_hash: String,
    /// What the reviewer wrote with the approval or rejection (shown to the borrower when rejected).
    pub review_reason: Option<String>,
    /// Why the lender withdrew the approved order without paying it out; none otherwise.
    pub withdrawal_reason: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What `orders.agreement_json` is bound to: its order (the agreement names the borrower, docs/ARCHITECTURE.md
/// "Data at rest").
pub fn agreement_binding(order_id: &str) -> Binding<'_> {
    Binding::OrderAgreement { order_id }
}

/// Seals an order's agreement (JSON) to its row, as `orders.agreement_json` holds it.
pub fn seal_agreement(secrets: &Secrets, order_id: &str, json: &str) -> String {
    secrets.encrypt(json, agreement_binding(order_id))
}

/// Opens what [`seal_agreement`] stored for `order_id`.
pub fn open_agreement(
    secrets: &Secrets,
    order_id: &str,
    stored: Option<&str>,
) -> anyhow::Result<Option<String>> {
    stored
        .map(|sealed| secrets.decrypt(sealed, agreement_binding(order_id)))
        .transpose()
        .map_err(|err| err.context(format!("the agreement of order {order_id}")))
}

/// What a list of orders shows: no KFS.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OrderListRow {
    pub order_no: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    #[row(try_from = "String")]
    pub currency: Currency,
    pub amount: i64,
    pub net_disbursed: i64,
    pub total_repayable: i64,
    pub apr: i64,
    pub apr_display: String,
    #[row(try_from = "String")]
    pub status: OrderState,
    pub created_at: i64,
}

/// The borrower's open order, as the home screen and the eligibility check need it.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OpenOrderRow {
    pub order_no: String,
    #[row(try_from = "String")]
    pub status: OrderState,
    pub amount: i64,
    pub created_at: i64,
}

/// A live session's borrower and that borrower's orders, read in one statement (see [`Db::session_orders`]).
#[derive(Debug, Clone)]
pub struct SessionOrders {
    pub borrower_id: String,
    /// When the session was opened and last marked used, epoch milliseconds.
    pub session_created_at: i64,
    pub last_seen_at: i64,
    /// Newest first.
    pub orders: Vec<OrderListRow>,
}

/// One row of [`Db::session_orders`]: the session, and one order or (the borrower has none) NULLs.
#[derive(kilat_row::FromRow)]
struct SessionOrderRow {
    borrower_id: String,
    session_created_at: i64,
    last_seen_at: i64,
    order_no: Option<String>,
    product_code: Option<String>,
    product_name: Option<String>,
    term_code: Option<String>,
    currency: Option<String>,
    amount: Option<i64>,
    net_disbursed: Option<i64>,
    total_repayable: Option<i64>,
    apr: Option<i64>,
    apr_display: Option<String>,
    status: Option<String>,
    created_at: Option<i64>,
}

impl SessionOrderRow {
    /// The row's order; `None` for the one row of a borrower without orders.
    fn order(self) -> sqlx::Result<Option<OrderListRow>> {
        let Some(order_no) = self.order_no else {
            return Ok(None);
        };
        let decode = |e: kilat_domain::codes::UnknownCode| sqlx::Error::Decode(Box::new(e));
        let text = |v: Option<String>| v.unwrap_or_default();
        let number = |v: Option<i64>| v.unwrap_or_default();
        Ok(Some(OrderListRow {
            order_no,
            product_code: text(self.product_code),
            product_name: text(self.product_name),
            term_code: text(self.term_code),
            currency: Currency::try_from(text(self.currency)).map_err(decode)?,
            amount: number(self.amount),
            net_disbursed: number(self.net_disbursed),
            total_repayable: number(self.total_repayable),
            apr: number(self.apr),
            apr_display: text(self.apr_display),
            status: OrderState::try_from(text(self.status)).map_err(decode)?,
            created_at: number(self.created_at),
        }))
    }
}

/// An order's status as locked for a change.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OrderStatusRow {
    pub id: String,
    pub order_no: String,
    #[row(try_from = "String")]
    pub status: OrderState,
}

#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OrderEventRow {
    #[row(try_from = "String")]
    pub status: OrderState,
    pub event: Option<String>,
    pub actor: String,
    pub at: i64,
}

/// A confirm that the database's unique indexes refused.
#[derive(Debug)]
pub struct Conflict;

pub(super) const COLUMNS: &str = "id, order_no, borrower_id, market, product_code, product_name, term_code, currency, amount, \
     net_disbursed, total_repayable, apr, apr_display, status, kfs_json, request_hash, review_reason, withdrawal_reason, created_at, updated_at";
const LIST_COLUMNS: &str = "order_no, product_code, product_name, term_code, currency, amount, net_disbursed, \
     total_repayable, apr, apr_display, status, created_at";

impl Db {
    /// The borrower's order made with this idempotency key.
    pub async fn order_by_idempotency_key(
        &self,
        borrower_id: &str,
        key: &str,
    ) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 AND idempotency_key = $2"
        ))
        .bind(borrower_id)
        .bind(key)
        .fetch_optional(self.pool())
        .await
    }

    /// The borrower's open order, if any (at most one: a partial unique index).
    pub async fn open_order(&self, borrower_id: &str) -> sqlx::Result<Option<OpenOrderRow>> {
        sqlx::query_as(
            "SELECT order_no, status, amount, created_at FROM orders WHERE borrower_id = $1 AND closed_at IS NULL",
        )
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await
    }

    /// The borrower's orders, newest first.
    pub async fn orders_of(
        &self,
        borrower_id: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<OrderListRow>> {
        sqlx::query_as(&format!(
            "SELECT {LIST_COLUMNS} FROM orders WHERE borrower_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        ))
        .bind(borrower_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// A live session (the conditions of [`Db::session_borrower`]) and its borrower's orders, newest first, at most
    /// `limit`, in one statement: the session row LEFT JOINed to the orders, so a live session with no orders is one
    /// row of NULL order columns, and no row at all means no live session. The session's last use is not moved here.
    /// On an HTTP worker with a pool of its own, batched with the other requests' ([`super::batch`]).
    pub async fn session_orders(
        &self,
        token_hash: &str,
        idle_since: i64,
        created_since: i64,
        limit: i64,
    ) -> sqlx::Result<Option<SessionOrders>> {
        if let Some(hot) = self.hot_reads() {
            let key = SessionKey {
                token_hash: token_hash.to_owned(),
                idle_since,
                created_since,
            };
            return hot.orders.get((key, limit)).await;
        }
        let rows: Vec<SessionOrderRow> = sqlx::query_as(concat!(
            "SELECT s.borrower_id, s.created_at AS session_created_at, s.last_seen_at, o.order_no, o.product_code,
               o.product_name, o.term_code, o.currency, o.amount, o.net_disbursed, o.total_repayable, o.apr,
               o.apr_display, o.status, o.created_at
             FROM borrower_sessions s LEFT JOIN orders o ON o.borrower_id = s.borrower_id
             WHERE ",
            live_session!(),
            " ORDER BY o.created_at DESC, o.id DESC LIMIT $4"
        ))
        .bind(token_hash)
        .bind(idle_since)
        .bind(created_since)
        .bind(limit)
        .fetch_all(&self.read_pool())
        .await?;
        let mut rows = rows.into_iter();
        let Some(first) = rows.next() else {
            return Ok(None);
        };
        let mut listed = SessionOrders {
            borrower_id: first.borrower_id.clone(),
            session_created_at: first.session_created_at,
            last_seen_at: first.last_seen_at,
            orders: Vec::with_capacity(rows.len() + 1),
        };
        for row in std::iter::once(first).chain(rows) {
            listed.orders.extend(row.order()?);
        }
        Ok(Some(listed))
    }

    /// One order of this borrower; another borrower's order is as good as missing.
    pub async fn order_of(
        &self,
        borrower_id: &str,
        order_no: &str,
    ) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM orders WHERE borrower_id = $1 AND order_no = $2"
        ))
        .bind(borrower_id)
        .bind(order_no)
        .fetch_optional(self.pool())
        .await
    }

    /// The agreement frozen with the order at confirm, opened (JSON): `None` for an order confirmed before migration
    /// 0010. Fails when the stored value does not open for this order: another order's agreement copied here, a
    /// changed value, another key.
    pub async fn order_agreement(
        &self,
        secrets: &Secrets,
        order_id: &str,
    ) -> anyhow::Result<Option<String>> {
        let sealed: Option<Option<String>> =
            sqlx::query_scalar("SELECT agreement_json FROM orders WHERE id = $1")
                .bind(order_id)
                .fetch_optional(self.pool())
                .await?;
        open_agreement(secrets, order_id, sealed.flatten().as_deref())
    }

    /// The order's timeline, oldest first.
    pub async fn order_events(&self, order_id: &str) -> sqlx::Result<Vec<OrderEventRow>> {
        sqlx::query_as(
            "SELECT status, event, actor, at FROM order_events WHERE order_id = $1 ORDER BY at, id",
        )
        .bind(order_id)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// Inserts the order. `Err(Conflict)` when a unique index refused it (the idempotency key, the one open order,
    /// or the order number): the transaction is then spoilt on PostgreSQL, and the caller drops it and looks.
    pub async fn insert_order(
        &mut self,
        secrets: &Secrets,
        new: &NewOrder<'_>,
    ) -> sqlx::Result<Result<String, Conflict>> {
        self.written.review = true;
        let id = new_id();
        let agreement = seal_agreement(secrets, &id, new.agreement_json);
        let inserted = sqlx::query(
            "INSERT INTO orders (id, order_no, borrower_id, market, product_code, product_name, term_code, currency,
                 amount, net_disbursed, total_repayable, apr, apr_display, status, kfs_json, kfs_hash,
                 idempotency_key, request_hash, agreement_json, created_at, updated_at, product_version)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20, $21)",
        )
        .bind(&id)
        .bind(new.order_no)
        .bind(new.borrower_id)
        .bind(new.market.code())
        .bind(new.product_code)
        .bind(new.product_name)
        .bind(new.term_code)
        .bind(new.currency.code())
        .bind(new.amount)
        .bind(new.net_disbursed)
        .bind(new.total_repayable)
        .bind(new.apr)
        .bind(new.apr_display)
        .bind(new.status.code())
        .bind(new.kfs_json)
        .bind(new.kfs_hash)
        .bind(new.idempotency_key)
        .bind(new.request_hash)
        .bind(&agreement)
        .bind(new.now)
        .bind(new.product_version)
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => Ok(Ok(id)),
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => Ok(Err(Conflict)),
            Err(e) => Err(e),
        }
    }

    /// The order, read inside the transaction (and locked on PostgreSQL) before its status changes.
    pub async fn order_for_update(
        &mut self,
        order_id: &str,
    ) -> sqlx::Result<Option<OrderStatusRow>> {
        let sql = format!(
            "SELECT id, order_no, status FROM orders WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(order_id)
            .fetch_optional(self.conn())
            .await
    }

    /// The whole order inside the transaction, its row locked for the rest of it (`FOR UPDATE` on PostgreSQL; SQLite's
    /// transaction already holds the write lock): one round trip where a lock and a read took two.
    pub async fn order_locked_in_tx(&mut self, order_id: &str) -> sqlx::Result<Option<OrderRow>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM orders WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(order_id)
            .fetch_optional(self.conn())
            .await
    }

    /// The whole order inside the transaction (for the audit's before and after).
    pub async fn order_in_tx(&mut self, order_id: &str) -> sqlx::Result<Option<OrderRow>> {
        sqlx::query_as(&format!("SELECT {COLUMNS} FROM orders WHERE id = $1"))
            .bind(order_id)
            .fetch_optional(self.conn())
            .await
    }

    /// Moves the order from `from` to `to`, only if it is still in `from`; closes it when `to` is final. True when it
    /// moved.
    pub async fn set_order_status(
        &mut self,
        order_id: &str,
        from: OrderState,
        to: OrderState,
        now: i64,
    ) -> sqlx::Result<bool> {
        if from == OrderState::PendingReview || to == OrderState::PendingReview {
            self.written.review = true;
        }
        let closed_at = to.is_final().then_some(now);
        let moved = sqlx::query(
            "UPDATE orders SET status = $1, updated_at = $2, closed_at = $3 WHERE id = $4 AND status = $5",
        )
        .bind(to.code())
        .bind(now)
        .bind(closed_at)
        .bind(order_id)
        .bind(from.code())
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1;
        if moved {
            self.book_status_move(&[order_id], from, to).await?;
        }
        Ok(moved)
    }

    /// What orders just moved from `from` to `to` add to the dashboard's book ([`super::book`]), when the move took
    /// them into the open loans, out of them, or from one open status to the other: their position now, taken away
    /// under the status they had and added under the one they have.
    async fn book_status_move(
        &mut self,
        moved: &[&str],
        from: OrderState,
        to: OrderState,
    ) -> sqlx::Result<()> {
        if from.is_active_loan() {
            self.book_move(moved, -1, Counted::All, Some(from)).await?;
        }
        if to.is_active_loan() {
            self.book_move(moved, 1, Counted::All, None).await?;
        }
        Ok(())
    }

    /// Several orders read inside the transaction (and locked on PostgreSQL, in id order so two lockers never wait on
    /// each other in a cycle) before their statuses change: the batched [`Tx::order_for_update`]. Orders not found are
    /// missing from the answer.
    pub async fn orders_for_update(
        &mut self,
        order_ids: &[&str],
    ) -> sqlx::Result<Vec<OrderStatusRow>> {
        let mut out = Vec::with_capacity(order_ids.len());
        for chunk in order_ids.chunks(IDS_PER_STATEMENT) {
            let sql = format!(
                "SELECT id, order_no, status FROM orders WHERE id {} ORDER BY id{}",
                any_of(self.sqlite, 1, chunk.len()),
                self.lock_clause()
            );
            out.extend(
                sqlx::query_as(&sql)
                    .bind_values(texts(self.sqlite, chunk))
                    .fetch_all(self.conn())
                    .await?,
            );
        }
        Ok(out)
    }

    /// Moves every order of `order_ids` from `from` to `to`, each only if it is still in `from` (the set-based
    /// [`Tx::set_order_status`]); closes them when `to` is final. Returns how many moved.
    pub async fn set_orders_status(
        &mut self,
        order_ids: &[&str],
        from: OrderState,
        to: OrderState,
        now: i64,
    ) -> sqlx::Result<u64> {
        if from == OrderState::PendingReview || to == OrderState::PendingReview {
            self.written.review = true;
        }
        let closed_at = to.is_final().then_some(now);
        // Which ones moved matters only to the book, when they are open loans before or after.
        let booked = from != to && (from.is_active_loan() || to.is_active_loan());
        let mut moved = 0;
        for chunk in order_ids.chunks(IDS_PER_STATEMENT) {
            let sql = format!(
                "UPDATE orders SET status = $1, updated_at = $2, closed_at = $3 WHERE status = $4 AND id {}{}",
                any_of(self.sqlite, 5, chunk.len()),
                if booked { " RETURNING id" } else { "" }
            );
            let query = sqlx::query(&sql)
                .bind(to.code())
                .bind(now)
                .bind(closed_at)
                .bind(from.code())
                .bind_values(texts(self.sqlite, chunk));
            if booked {
                let ids: Vec<String> = query
                    .fetch_all(self.conn())
                    .await?
                    .iter()
                    .map(|row| row.try_get(0))
                    .collect::<sqlx::Result<_>>()?;
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                self.book_status_move(&ids, from, to).await?;
                moved += ids.len() as u64;
            } else {
                moved += query.execute(self.conn()).await?.rows_affected();
            }
        }
        Ok(moved)
    }

    /// Appends to several orders' timelines in multi-row inserts.
    pub async fn insert_order_events(&mut self, rows: &[NewOrderEvent<'_>]) -> sqlx::Result<()> {
        for chunk in rows.chunks(EVENTS_PER_INSERT) {
            let ids: Vec<String> = chunk.iter().map(|_| new_id()).collect();
            let mut values = Rows::new(self.sqlite, &[Text, Text, Text, Text, Text, Text, Int]);
            for (row, id) in chunk.iter().zip(&ids) {
                values.push([
                    Value::Text(Some(id.as_str())),
                    Value::Text(Some(row.order_id)),
                    Value::Text(Some(row.status.code())),
                    Value::Text(row.event.map(Code::code)),
                    Value::Text(Some(row.actor)),
                    Value::Text(row.actor_id),
                    Value::Int(Some(row.at)),
                ]);
            }
            let sql = format!(
                "INSERT INTO order_events (id, order_id, status, event, actor, actor_id, at) {}",
                values.values(1)
            );
            sqlx::query(&sql)
                .bind_values(values.into_values())
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// Appends to the order's timeline.
    pub async fn insert_order_event(
        &mut self,
        order_id: &str,
        status: OrderState,
        event: Option<OrderEvent>,
        actor: &str,
        actor_id: Option<&str>,
        at: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO order_events (id, order_id, status, event, actor, actor_id, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(new_id())
        .bind(order_id)
        .bind(status.code())
        .bind(event.map(Code::code))
        .bind(actor)
        .bind(actor_id)
        .bind(at)
        .execute(self.conn())
        .await?;
        Ok(())
    }
}

/// A row of [`session_orders_in`]: [`SessionOrderRow`] tagged with its token's hash.
#[derive(kilat_row::FromRow)]
struct TaggedSessionOrderRow {
    token_hash: String,
    #[row(flatten)]
    row: SessionOrderRow,
}

/// [`Db::session_orders`] for each key and its limit, in the keys' order, in one statement: each session's orders
/// numbered newest first (`ROW_NUMBER() OVER (PARTITION BY` the token`)`), at most the largest limit asked for kept
/// there, each key's own limit applied here.
pub(super) async fn session_orders_in(
    pool: &AnyPool,
    keys: &[(SessionKey, i64)],
) -> sqlx::Result<Vec<Option<SessionOrders>>> {
    let sessions: Vec<SessionKey> = keys.iter().map(|(key, _)| key.clone()).collect();
    let (idle_since, created_since, tokens) = session_bounds(&sessions);
    let limit = keys.iter().map(|(_, limit)| *limit).max().unwrap_or(0);
    let sql = format!(
        "SELECT token_hash, borrower_id, session_created_at, last_seen_at, order_no, product_code, product_name,
           term_code, currency, amount, net_disbursed, total_repayable, apr, apr_display, status, created_at
         FROM (SELECT s.token_hash, s.borrower_id, s.created_at AS session_created_at, s.last_seen_at, o.order_no,
                 o.product_code, o.product_name, o.term_code, o.currency, o.amount, o.net_disbursed,
                 o.total_repayable, o.apr, o.apr_display, o.status, o.created_at,
                 ROW_NUMBER() OVER (PARTITION BY s.token_hash ORDER BY o.created_at DESC, o.id DESC) AS n
               FROM borrower_sessions s LEFT JOIN orders o ON o.borrower_id = s.borrower_id
               WHERE {}) listed
         WHERE n <= ${}
         ORDER BY token_hash, n",
        live_sessions_in(&tokens),
        keys.len() + 3
    );
    let mut query = sqlx::query_as::<_, TaggedSessionOrderRow>(&sql)
        .bind(idle_since)
        .bind(created_since);
    for key in &sessions {
        query = query.bind(key.token_hash.as_str());
    }
    let rows = query.bind(limit).fetch_all(pool).await?;
    let mut found: HashMap<String, SessionOrders> = HashMap::new();
    for TaggedSessionOrderRow { token_hash, row } in rows {
        let listed = found.entry(token_hash).or_insert_with(|| SessionOrders {
            borrower_id: row.borrower_id.clone(),
            session_created_at: row.session_created_at,
            last_seen_at: row.last_seen_at,
            orders: Vec::new(),
        });
        listed.orders.extend(row.order()?);
    }
    Ok(keys
        .iter()
        .map(|(key, limit)| {
            found
                .get(&key.token_hash)
                .filter(|listed| key.admits(listed.session_created_at, listed.last_seen_at))
                .map(|listed| SessionOrders {
                    orders: listed
                        .orders
                        .iter()
                        .take(usize::try_from(*limit).unwrap_or(0))
                        .cloned()
                        .collect(),
                    ..listed.clone_without_orders()
                })
        })
        .collect())
}

impl SessionOrders {
    fn clone_without_orders(&self) -> Self {
        Self {
            borrower_id: self.borrower_id.clone(),
            session_created_at: self.session_created_at,
            last_seen_at: self.last_seen_at,
            orders: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    /// The whole order is read on every loan screen, payment, payout and callback; the frozen agreement (about 8 KB,
    /// kept out of line by PostgreSQL) only by the documents and the export, through `Db::order_agreement`.
    #[test]
    fn the_whole_order_leaves_the_frozen_agreement_out() {
        assert!(!super::COLUMNS.contains("agreement_json"));
        assert!(super::COLUMNS.contains("kfs_json"));
    }
}
