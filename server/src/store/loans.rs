//! Loans after payout: the plan fixed at payout, the payout's bank reference, and the append-only ledger (entries
//! and their per-installment lines). Entries are only ever inserted, numbered per order; nothing here edits one.

use kilat_domain::{Buckets, Code, EntryKind, LedgerEntry, Line, Money};
use time::Date;
use time::macros::format_description;

use super::lists::Kind::{Int, Text};
use super::lists::{BindValues, Rows, Value, any_of, texts};
use super::orders::{COLUMNS as ORDER_COLUMNS, OrderRow};
use super::{Db, Tx, new_id};

/// The plan of a paid-out order, as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LoanRow {
    pub order_id: String,
    pub payout_date: String,
    pub plan_json: String,
    pub created_at: i64,
}

/// An order with its loan's plan as stored (`None` before the payout), read in one statement (with the order's row
/// lock inside a posting's transaction).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OrderPlanRow {
    #[row(flatten)]
    pub order: OrderRow,
    pub plan_json: Option<String>,
}

/// A borrower's order with its loan's plan, how many of its payments wait for finance (a UTR submitted, an amount
/// held), and, when its balances were asked for, the loan's position kept beside its ledger (`loan_arrears`).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct OwnLoanRow {
    #[row(flatten)]
    pub loan: OrderPlanRow,
    pub waiting: i64,
    /// The money engine's balances as the ledger's last posting left them (JSON); null when not asked for, before
    /// the payout, or for a loan without one yet (written before migration 0044).
    pub position_json: Option<String>,
}

/// The payout of an order.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PayoutRow {
    pub id: String,
    pub provider: String,
    pub bank_reference: String,
    pub amount: i64,
    pub operator_id: Option<String>,
    /// The second operator who approved it (maker-checker); null when one operator sufficed.
    pub approved_by: Option<String>,
    pub created_at: i64,
}

/// An approved order waiting for its payout, with its borrower's encrypted phone and when it was approved.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AwaitingPayoutRow {
    pub order_id: String,
    pub order_no: String,
    pub borrower_id: String,
    /// As lists show it, written with the encrypted phone (empty once the account is erased).
    pub phone_masked: String,
    pub product_code: String,
    pub product_name: String,
    pub term_code: String,
    #[row(try_from = "String")]
    pub currency: kilat_domain::Currency,
    pub amount: i64,
    pub net_disbursed: i64,
    /// Epoch milliseconds of the approval (the order's last move to `approved`).
    pub approved_at: i64,
    /// A payout recorded and waiting for a second operator's approval (maker-checker): its bank reference, who
    /// recorded it (id and username) and when; all null when none.
    pub pending_reference: Option<String>,
    pub pending_by: Option<String>,
    pub pending_by_name: Option<String>,
    pub pending_at: Option<i64>,
    /// The order is in a bank file finance downloaded: when, and by whom (username); null when it is not.
    pub sent_at: Option<i64>,
    pub sent_by_name: Option<String>,
}

/// A payout to record.
pub struct NewPayout<'a> {
    pub order_id: &'a str,
    pub provider: &'a str,
    pub bank_reference: &'a str,
    pub amount: i64,
    pub operator_id: Option<&'a str>,
    /// The checker, when a second operator approved it.
    pub approved_by: Option<&'a str>,
    pub now: i64,
}

#[derive(Debug, Clone, kilat_row::FromRow)]
struct EntryRow {
    id: String,
    seq: i64,
    kind: String,
    on_date: String,
    cash: i64,
    excess: i64,
    refunded: i64,
    reverses: Option<i64>,
}

#[derive(Debug, Clone, kilat_row::FromRow)]
struct LineRow {
    entry_id: String,
    installment: i64,
    due_late_charges: i64,
    due_fees: i64,
    due_interest: i64,
    due_principal: i64,
    paid_late_charges: i64,
    paid_fees: i64,
    paid_interest: i64,
    paid_principal: i64,
}

/// A stored entry: its sequence number in the order's ledger, the payment it records (if any), and the entry.
#[derive(Debug, Clone)]
pub struct StoredEntry {
    pub seq: u64,
    pub entry: LedgerEntry,
}

/// The ISO form of a business date as stored (`YYYY-MM-DD`).
pub fn date_code(date: Date) -> String {
    date.format(format_description!("[year]-[month]-[day]"))
        .unwrap_or_default()
}

/// A stored business date.
pub fn parse_date(text: &str) -> anyhow::Result<Date> {
    Ok(Date::parse(
        text,
        format_description!("[year]-[month]-[day]"),
    )?)
}

fn assemble(entries: Vec<EntryRow>, lines: Vec<LineRow>) -> anyhow::Result<Vec<StoredEntry>> {
    let mut out = Vec::with_capacity(entries.len());
    let mut lines = lines.into_iter().peekable();
    let mut by_entry: std::collections::HashMap<String, Vec<Line>> =
        std::collections::HashMap::new();
    for l in lines.by_ref() {
        by_entry.entry(l.entry_id.clone()).or_default().push(Line {
            installment: u32::try_from(l.installment)?,
            due: Buckets {
                late_charges: Money::from_minor(l.due_late_charges),
                fees: Money::from_minor(l.due_fees),
                interest: Money::from_minor(l.due_interest),
                principal: Money::from_minor(l.due_principal),
            },
            paid: Buckets {
                late_charges: Money::from_minor(l.paid_late_charges),
                fees: Money::from_minor(l.paid_fees),
                interest: Money::from_minor(l.paid_interest),
                principal: Money::from_minor(l.paid_principal),
            },
        });
    }
    for e in entries {
        let kind = EntryKind::from_code(&e.kind)
            .ok_or_else(|| anyhow::anyhow!("unknown ledger entry kind {:?}", e.kind))?;
        let mut entry_lines = by_entry.remove(&e.id).unwrap_or_default();
        entry_lines.sort_by_key(|l| l.installment);
        out.push(StoredEntry {
            seq: u64::try_from(e.seq)?,
            entry: LedgerEntry {
                kind,
                on: parse_date(&e.on_date)?,
                cash: Money::from_minor(e.cash),
                excess: Money::from_minor(e.excess),
                refunded: Money::from_minor(e.refunded),
                lines: entry_lines,
                reverses: e.reverses.map(u64::try_from).transpose()?,
            },
        });
    }
    Ok(out)
}

const ENTRY_COLUMNS: &str = "id, seq, kind, on_date, cash, excess, refunded, reverses";
/// The entry's columns, then its line's (null for an entry without lines), over `ledger_entries e LEFT JOIN
/// ledger_lines l`.
const ENTRY_LINE_COLUMNS: &str = "e.id, e.seq, e.kind, e.on_date, e.cash, e.excess, e.refunded, e.reverses, \
     l.installment, l.due_late_charges, l.due_fees, l.due_interest, l.due_principal, l.paid_late_charges, l.paid_fees, \
     l.paid_interest, l.paid_principal";

/// A row of an order's ledger read in one statement: an entry with one of its lines, or with none.
#[derive(Debug, Clone, kilat_row::FromRow)]
struct EntryLineRow {
    #[row(flatten)]
    entry: EntryRow,
    installment: Option<i64>,
    due_late_charges: Option<i64>,
    due_fees: Option<i64>,
    due_interest: Option<i64>,
    due_principal: Option<i64>,
    paid_late_charges: Option<i64>,
    paid_fees: Option<i64>,
    paid_interest: Option<i64>,
    paid_principal: Option<i64>,
}

/// One order's ledger on one connection (a pool's, or a transaction's), entries and lines in one statement: each entry
/// joined to its lines, in sequence and installment order.
async fn read_ledger(
    conn: &mut sqlx::AnyConnection,
    order_id: &str,
) -> anyhow::Result<Vec<StoredEntry>> {
    let rows: Vec<EntryLineRow> = sqlx::query_as(&format!(
        "SELECT {ENTRY_LINE_COLUMNS} FROM ledger_entries e LEFT JOIN ledger_lines l ON l.entry_id = e.id
         WHERE e.order_id = $1 ORDER BY e.seq, l.installment"
    ))
    .bind(order_id)
    .fetch_all(conn)
    .await?;
    ledger_of(rows)
}

/// A ledger from its rows of entries joined to their lines, in sequence and installment order.
fn ledger_of(rows: impl IntoIterator<Item = EntryLineRow>) -> anyhow::Result<Vec<StoredEntry>> {
    let mut entries: Vec<EntryRow> = Vec::new();
    let mut lines = Vec::new();
    for row in rows {
        if let Some(installment) = row.installment {
            let amount = |m: Option<i64>| m.unwrap_or_default();
            lines.push(LineRow {
                entry_id: row.entry.id.clone(),
                installment,
                due_late_charges: amount(row.due_late_charges),
                due_fees: amount(row.due_fees),
                due_interest: amount(row.due_interest),
                due_principal: amount(row.due_principal),
                paid_late_charges: amount(row.paid_late_charges),
                paid_fees: amount(row.paid_fees),
                paid_interest: amount(row.paid_interest),
                paid_principal: amount(row.paid_principal),
            });
        }
        if entries.last().is_none_or(|e| e.id != row.entry.id) {
            entries.push(row.entry);
        }
    }
    assemble(entries, lines)
}

/// Which of a borrower's orders a loan screen reads ([`Db::own_order`]), and whether with its loan's balances.
#[derive(Debug, Clone)]
pub(crate) struct OwnOrderKey {
    pub borrower_id: String,
    pub order_no: String,
    /// Read the loan's balances too (when the order has been paid out).
    pub balances: bool,
}

/// Where a loan's balances come from: its kept position, or its ledger to replay when it has none.
#[derive(Debug, Clone)]
pub enum LoanBalancesRead {
    /// The position written with the ledger's last posting (`loan_arrears.balances_json`).
    Kept(String),
    /// The ledger, in sequence order (a loan whose position was never written).
    Ledger(Vec<StoredEntry>),
}

/// A borrower's order as a loan screen reads it: the order, its plan and its payments waiting for finance, and its
/// balances when asked for and paid out.
#[derive(Debug, Clone)]
pub struct OwnOrderRead {
    pub row: OwnLoanRow,
    pub balances: Option<LoanBalancesRead>,
}

/// [`EntryLineRow`] with its order.
#[derive(kilat_row::FromRow)]
struct OrderEntryLineRow {
    order_id: String,
    #[row(flatten)]
    row: EntryLineRow,
}

/// [`Db::own_order`] for each key, in the keys' order, in one statement on one connection whatever their number: the
/// orders (each with its plan, its count of payments waiting and, when asked for, its loan's kept position, on
/// `(borrower_id, order_no)`, so another borrower's order is never read). A second statement reads the ledgers of the
/// loans asked for that have no position yet, entries joined to their lines. (`IN (VALUES …)`: SQLite takes a list of
/// row values only from a subquery.)
///
/// The position is the money engine's replay of the ledger, written in the transaction of every entry
/// ([`crate::ledger`]), so it is what replaying the ledger gives; reading it instead spares the ledger's rows, the
/// larger part of a loan screen's cost (docs/PERFORMANCE.md, "At the site's scale on PostgreSQL").
pub(super) async fn own_orders_in(
    pool: &sqlx::AnyPool,
    keys: &[OwnOrderKey],
) -> sqlx::Result<Vec<Option<OwnOrderRead>>> {
    use std::collections::HashMap;
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let pairs = (0..keys.len())
        .map(|n| format!("(${}, ${})", 2 * n + 1, 2 * n + 2))
        .collect::<Vec<_>>()
        .join(", ");
    let position = if keys.iter().any(|key| key.balances) {
        "(SELECT a.balances_json FROM loan_arrears a WHERE a.order_id = orders.id)"
    } else {
        "CAST(NULL AS TEXT)"
    };
    let sql = format!(
        "SELECT {ORDER_COLUMNS}, (SELECT l.plan_json FROM loans l WHERE l.order_id = orders.id) AS plan_json,
             (SELECT COUNT(*) FROM payments p WHERE p.order_id = orders.id AND p.status IN ('verifying', 'held'))
                 AS waiting,
             {position} AS position_json
         FROM orders WHERE (borrower_id, order_no) IN (VALUES {pairs})"
    );
    let mut query = sqlx::query_as::<_, OwnLoanRow>(&sql);
    for key in keys {
        query = query
            .bind(key.borrower_id.as_str())
            .bind(key.order_no.as_str());
    }
    let mut conn = pool.acquire().await?;
    let rows = query.fetch_all(&mut *conn).await?;
    let found: HashMap<(&str, &str), &OwnLoanRow> = rows
        .iter()
        .map(|r| {
            (
                (
                    r.loan.order.borrower_id.as_str(),
                    r.loan.order.order_no.as_str(),
                ),
                r,
            )
        })
        .collect();
    let row_of = |key: &OwnOrderKey| {
        found
            .get(&(key.borrower_id.as_str(), key.order_no.as_str()))
            .copied()
    };
    // The ledgers of the balances asked for, of orders paid out (with a plan) that have no position, each once.
    let mut with_ledger: Vec<&str> = keys
        .iter()
        .filter(|key| key.balances)
        .filter_map(|key| {
            row_of(key).filter(|r| r.loan.plan_json.is_some() && r.position_json.is_none())
        })
        .map(|r| r.loan.order.id.as_str())
        .collect();
    with_ledger.sort_unstable();
    with_ledger.dedup();
    let mut rows_of: HashMap<String, Vec<EntryLineRow>> = HashMap::new();
    if !with_ledger.is_empty() {
        let sql = format!(
            "SELECT e.order_id, {ENTRY_LINE_COLUMNS} FROM ledger_entries e LEFT JOIN ledger_lines l ON l.entry_id = e.id
             WHERE e.order_id IN ({}) ORDER BY e.order_id, e.seq, l.installment",
            placeholders(1, with_ledger.len())
        );
        let mut query = sqlx::query_as::<_, OrderEntryLineRow>(&sql);
        for id in &with_ledger {
            query = query.bind(*id);
        }
        for OrderEntryLineRow { order_id, row } in query.fetch_all(&mut *conn).await? {
            rows_of.entry(order_id).or_default().push(row);
        }
    }
    let decode = |e: anyhow::Error| sqlx::Error::Decode(e.into());
    let ledgers = rows_of
        .into_iter()
        .map(|(order_id, rows)| Ok((order_id, ledger_of(rows).map_err(decode)?)))
        .collect::<sqlx::Result<HashMap<String, Vec<StoredEntry>>>>()?;
    Ok(keys
        .iter()
        .map(|key| {
            let row = row_of(key)?;
            let balances = (key.balances && row.loan.plan_json.is_some()).then(|| {
                match &row.position_json {
                    Some(json) => LoanBalancesRead::Kept(json.clone()),
                    // An order paid out without a row of its ledger read has an empty one, as a query of its own
                    // answers.
                    None => LoanBalancesRead::Ledger(
                        ledgers.get(&row.loan.order.id).cloned().unwrap_or_default(),
                    ),
                }
            });
            Some(OwnOrderRead {
                row: row.clone(),
                balances,
            })
        })
        .collect())
}

const LINE_COLUMNS: &str = "l.entry_id, l.installment, l.due_late_charges, l.due_fees, l.due_interest, \
     l.due_principal, l.paid_late_charges, l.paid_fees, l.paid_interest, l.paid_principal";

impl Db {
    /// One market's approved orders waiting for their payout, the longest waiting first (at most `limit`). The page
    /// is read through the partial index of approved orders (`orders_awaiting_payout`, migration 0040) in the order of
    /// their last change (the approval: nothing else changes an approved order's `updated_at`), and only its rows look
    /// up their approval's time in the timeline.
    pub async fn orders_awaiting_payout(
        &self,
        market: kilat_domain::Market,
        limit: i64,
        offset: i64,
    ) -> sqlx::Result<Vec<AwaitingPayoutRow>> {
        let approved = kilat_domain::OrderState::Approved.code();
        // The status inline (a code of a closed set, never input) so that PostgreSQL's plan may use the partial index.
        sqlx::query_as(&format!(
            "SELECT o.id AS order_id, o.order_no, o.borrower_id, b.phone_masked, o.product_code, o.product_name,
                    o.term_code, o.currency, o.amount, o.net_disbursed,
                    COALESCE((SELECT MAX(e.at) FROM order_events e WHERE e.order_id = o.id AND e.status = '{approved}'),
                             o.updated_at) AS approved_at,
                    a.bank_reference AS pending_reference, a.recorded_by AS pending_by,
                    r.username AS pending_by_name, a.recorded_at AS pending_at,
                    s.sent_at, so.username AS sent_by_name
             FROM (SELECT id, order_no, borrower_id, product_code, product_name, term_code, currency, amount,
                          net_disbursed, updated_at
                   FROM orders WHERE market = $1 AND status = '{approved}' ORDER BY updated_at, id LIMIT $2 OFFSET $3) o
             JOIN borrowers b ON b.id = o.borrower_id
             LEFT JOIN payout_approvals a ON a.order_id = o.id LEFT JOIN operators r ON r.id = a.recorded_by
             LEFT JOIN payout_sends s ON s.order_id = o.id AND s.released_at IS NULL
             LEFT JOIN operators so ON so.id = s.sent_by
             ORDER BY o.updated_at, o.id"
        ))
        .bind(market.code())
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await
    }

    /// The plans of several paid-out orders at once (finance's queue), by order id.
    pub async fn plans_of(
        &self,
        order_ids: &[&str],
    ) -> sqlx::Result<std::collections::HashMap<String, String>> {
        if order_ids.is_empty() {
            return Ok(std::collections::HashMap::new());
        }
        let sql = format!(
            "SELECT order_id, plan_json FROM loans WHERE order_id IN ({})",
            placeholders(1, order_ids.len())
        );
        let mut query = sqlx::query_as::<_, (String, String)>(&sql);
        for id in order_ids {
            query = query.bind(*id);
        }
        Ok(query.fetch_all(self.pool()).await?.into_iter().collect())
    }

    /// The plan of a paid-out order.
    pub async fn loan(&self, order_id: &str) -> sqlx::Result<Option<LoanRow>> {
        sqlx::query_as(
            "SELECT order_id, payout_date, plan_json, created_at FROM loans WHERE order_id = $1",
        )
        .bind(order_id)
        .fetch_optional(self.pool())
        .await
    }

    pub async fn payout(&self, order_id: &str) -> sqlx::Result<Option<PayoutRow>> {
        sqlx::query_as(
            "SELECT id, provider, bank_reference, amount, operator_id, approved_by, created_at
             FROM payouts WHERE order_id = $1",
        )
        .bind(order_id)
        .fetch_optional(self.pool())
        .await
    }

    /// The borrower's order numbered `order_no` with its loan's plan and how many of its payments wait for finance,
    /// and its balances when `balances` and the order was paid out (its kept position, or its ledger when it has none:
    /// [`own_orders_in`]): what every loan screen reads. Another borrower's order is not found. Batched with the other
    /// requests' on an HTTP worker of PostgreSQL ([`super::batch`]).
    pub async fn own_order(
        &self,
        borrower_id: &str,
        order_no: &str,
        balances: bool,
    ) -> sqlx::Result<Option<OwnOrderRead>> {
        let key = OwnOrderKey {
            borrower_id: borrower_id.to_owned(),
            order_no: order_no.to_owned(),
            balances,
        };
        if let Some(hot) = self.hot_reads() {
            return hot.own_orders.get(key).await;
        }
        Ok(own_orders_in(&self.read_pool(), &[key])
            .await?
            .pop()
            .flatten())
    }

    /// The order's ledger in sequence order.
    pub async fn ledger(&self, order_id: &str) -> anyhow::Result<Vec<StoredEntry>> {
        let mut conn = self.pool().acquire().await?;
        read_ledger(&mut conn, order_id).await
    }
}

impl Tx {
    /// The provider's id of the money a payment was credited with (a callback's), if it has one.
    pub async fn payment_provider_id_in_tx(
        &mut self,
        payment_id: &str,
    ) -> sqlx::Result<Option<String>> {
        Ok(sqlx::query_scalar::<_, Option<String>>(
            "SELECT provider_id FROM payments WHERE id = $1",
        )
        .bind(payment_id)
        .fetch_optional(self.conn())
        .await?
        .flatten())
    }

    /// The numbers of the order's ledger entries that record the payment `payment_id` (its credit; a reversal of it).
    pub async fn entries_of_payment_in_tx(
        &mut self,
        order_id: &str,
        payment_id: &str,
    ) -> sqlx::Result<Vec<i64>> {
        sqlx::query_scalar(
            "SELECT seq FROM ledger_entries WHERE order_id = $1 AND payment_id = $2 ORDER BY seq",
        )
        .bind(order_id)
        .bind(payment_id)
        .fetch_all(self.conn())
        .await
    }

    /// Stores the plan fixed at payout. Fails on a second payout of the order (primary key).
    pub async fn insert_loan(
        &mut self,
        order_id: &str,
        payout_date: Date,
        plan_json: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO loans (order_id, payout_date, plan_json, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(order_id)
        .bind(date_code(payout_date))
        .bind(plan_json)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    pub async fn insert_payout(&mut self, p: &NewPayout<'_>) -> sqlx::Result<String> {
        let id = new_id();
        sqlx::query(
            "INSERT INTO payouts (id, order_id, provider, bank_reference, amount, operator_id, approved_by,
                                  created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&id)
        .bind(p.order_id)
        .bind(p.provider)
        .bind(p.bank_reference)
        .bind(p.amount)
        .bind(p.operator_id)
        .bind(p.approved_by)
        .bind(p.now)
        .execute(self.conn())
        .await?;
        Ok(id)
    }

    /// Takes `reference` (compared in capitals) for a transfer of `kind` (`payout`, `refund`) on `order_id`, by the
    /// primary key of `transfer_references`, so that two operators typing it at once get one answer: `None` when it
    /// is this order's for this kind (taken now, or before), otherwise the number of the order whose transfer has it.
    pub async fn take_transfer_reference(
        &mut self,
        reference: &str,
        order_id: &str,
        kind: &str,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query(
            "INSERT INTO transfer_references (reference, order_id, kind) VALUES (UPPER($1), $2, $3)
             ON CONFLICT (reference) DO NOTHING",
        )
        .bind(reference)
        .bind(order_id)
        .bind(kind)
        .execute(self.conn())
        .await?;
        let holder: Option<(String, String, String)> = sqlx::query_as(
            "SELECT r.order_id, r.kind, o.order_no FROM transfer_references r JOIN orders o ON o.id = r.order_id
             WHERE r.reference = UPPER($1)",
        )
        .bind(reference)
        .fetch_optional(self.conn())
        .await?;
        Ok(holder.and_then(|(holder, held_for, order_no)| {
            (holder != order_id || held_for != kind).then_some(order_no)
        }))
    }

    /// Frees the bank reference of an order's payout recording (rejected by the checker).
    pub async fn free_payout_reference(
        &mut self,
        reference: &str,
        order_id: &str,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "DELETE FROM transfer_references WHERE reference = UPPER($1) AND order_id = $2 AND kind = 'payout'",
        )
        .bind(reference)
        .bind(order_id)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Puts an approved order in the bank file `file_id`, with its row locked (PostgreSQL; SQLite's transaction holds
    /// the write lock): the send's number (1 for its first file, then 2, 3… after each release), or `None` when it is
    /// in a file already (another download took it), no longer approved (the borrower cancelled it meanwhile), or
    /// recorded as paid by hand and waiting for its second operator (recorded since the file's list was read).
    pub async fn claim_for_bank_file(
        &mut self,
        order_id: &str,
        file_id: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<Option<i64>> {
        if self.order_for_update(order_id).await?.is_none() {
            return Ok(None);
        }
        let approved = kilat_domain::OrderState::Approved.code();
        sqlx::query_scalar(&format!(
            "INSERT INTO payout_sends (order_id, file_id, sent_by, sent_at, attempt)
             SELECT id, $2, $3, $4, 1 FROM orders WHERE id = $1 AND status = '{approved}'
                 AND NOT EXISTS (SELECT 1 FROM payout_approvals a WHERE a.order_id = $1)
             ON CONFLICT (order_id) DO UPDATE SET file_id = excluded.file_id, sent_by = excluded.sent_by,
                 sent_at = excluded.sent_at, attempt = payout_sends.attempt + 1, released_at = NULL
             WHERE payout_sends.released_at IS NOT NULL
             RETURNING attempt"
        ))
        .bind(order_id)
        .bind(file_id)
        .bind(operator_id)
        .bind(now)
        .fetch_optional(self.conn())
        .await
    }

    /// True when the order is in a bank file finance downloaded (its money may be on its way).
    pub async fn payout_sent_in_tx(&mut self, order_id: &str) -> sqlx::Result<bool> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM payout_sends WHERE order_id = $1 AND released_at IS NULL",
        )
        .bind(order_id)
        .fetch_one(self.conn())
        .await?;
        Ok(n > 0)
    }

    /// The send number of the bank file the order is in, `None` when in none.
    pub async fn payout_send_attempt_in_tx(&mut self, order_id: &str) -> sqlx::Result<Option<i64>> {
        sqlx::query_scalar(
            "SELECT attempt FROM payout_sends WHERE order_id = $1 AND released_at IS NULL",
        )
        .bind(order_id)
        .fetch_optional(self.conn())
        .await
    }

    /// Takes the order out of the bank file it is in — only if that is its send number `attempt`, when given — so the
    /// next file holds it again: by whom, when and in which send it was put in; `None` when it is in none (or in
    /// another send's).
    pub async fn release_payout_send(
        &mut self,
        order_id: &str,
        attempt: Option<i64>,
        now: i64,
    ) -> sqlx::Result<Option<(String, i64, i64)>> {
        sqlx::query_as(
            "UPDATE payout_sends SET released_at = $2
             WHERE order_id = $1 AND released_at IS NULL AND attempt = COALESCE($3, attempt)
             RETURNING sent_by, sent_at, attempt",
        )
        .bind(order_id)
        .bind(now)
        .bind(attempt)
        .fetch_optional(self.conn())
        .await
    }

    /// The plan, read inside the transaction.
    pub async fn loan_in_tx(&mut self, order_id: &str) -> sqlx::Result<Option<LoanRow>> {
        sqlx::query_as(
            "SELECT order_id, payout_date, plan_json, created_at FROM loans WHERE order_id = $1",
        )
        .bind(order_id)
        .fetch_optional(self.conn())
        .await
    }

    /// The order's ledger read inside the transaction (after the order's lock, so nobody appends meanwhile).
    pub async fn ledger_in_tx(&mut self, order_id: &str) -> anyhow::Result<Vec<StoredEntry>> {
        read_ledger(self.conn(), order_id).await
    }

    /// The order of the payment with this `reference`, locked for the rest of the transaction (as
    /// [`Tx::order_locked_in_tx`] locks it), with its loan's plan (`None` before the payout): the first statement of a
    /// provider's callback, which knows the payment's reference only. A payment never changes order, so the order
    /// found is the one to lock; the payment itself is read after the lock.
    pub async fn loan_of_payment_locked_in_tx(
        &mut self,
        reference: &str,
    ) -> sqlx::Result<Option<OrderPlanRow>> {
        self.locked_loan(
            "(SELECT p.order_id FROM payments p WHERE p.reference = $1)",
            reference,
        )
        .await
    }

    /// [`Tx::order_locked_in_tx`] with the loan's plan (`None` before the payout), in one statement.
    pub async fn loan_locked_in_tx(
        &mut self,
        order_id: &str,
    ) -> sqlx::Result<Option<OrderPlanRow>> {
        self.locked_loan("$1", order_id).await
    }

    /// The order whose id is `id` (an expression of the statement's `$1`, bound to `key`; written here, never input),
    /// locked, with its loan's plan.
    async fn locked_loan(&mut self, id: &str, key: &str) -> sqlx::Result<Option<OrderPlanRow>> {
        let sql = format!(
            "SELECT {ORDER_COLUMNS}, (SELECT l.plan_json FROM loans l WHERE l.order_id = orders.id) AS plan_json
             FROM orders WHERE id = {id}{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(key)
            .fetch_optional(self.conn())
            .await
    }

    /// Records the borrower's rating of an ended order; false when the order was rated already.
    pub async fn insert_rating(
        &mut self,
        order_id: &str,
        score: i64,
        comment: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let inserted = sqlx::query(
            "INSERT INTO order_ratings (order_id, score, comment, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(order_id)
        .bind(score)
        .bind(comment)
        .bind(now)
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => Ok(true),
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Appends `entry` as number `seq` of the order's ledger, naming `payment_id` when it records one. The unique
    /// (order, seq) refuses a second writer of the same number.
    pub async fn append_entry(
        &mut self,
        order_id: &str,
        seq: u64,
        entry: &LedgerEntry,
        payment_id: Option<&str>,
        now: i64,
    ) -> anyhow::Result<()> {
        let id = new_id();
        sqlx::query(
            "INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, reverses,
                 payment_id, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )
        .bind(&id)
        .bind(order_id)
        .bind(i64::try_from(seq)?)
        .bind(entry.kind.code())
        .bind(date_code(entry.on))
        .bind(entry.cash.minor())
        .bind(entry.excess.minor())
        .bind(entry.refunded.minor())
        .bind(entry.reverses.map(i64::try_from).transpose()?)
        .bind(payment_id)
        .bind(now)
        .execute(self.conn())
        .await?;
        // The lines in one statement (a loan's installments are far fewer than a statement's parameters allow).
        if entry.lines.is_empty() {
            return Ok(());
        }
        let rows = (0..entry.lines.len())
            .map(|r| format!("($1, {})", placeholders(r * 9 + 2, 9)))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "INSERT INTO ledger_lines (entry_id, installment, due_late_charges, due_fees, due_interest,
                 due_principal, paid_late_charges, paid_fees, paid_interest, paid_principal) VALUES {rows}"
        );
        let mut query = sqlx::query(&sql).bind(&id);
        for l in &entry.lines {
            query = query
                .bind(i64::from(l.installment))
                .bind(l.due.late_charges.minor())
                .bind(l.due.fees.minor())
                .bind(l.due.interest.minor())
                .bind(l.due.principal.minor())
                .bind(l.paid.late_charges.minor())
                .bind(l.paid.fees.minor())
                .bind(l.paid.interest.minor())
                .bind(l.paid.principal.minor());
        }
        query.execute(self.conn()).await?;
        Ok(())
    }
}

/// `$first, $first+1, …` for `n` values: the placeholders of an `IN (…)` list or a `VALUES` row.
pub(crate) fn placeholders(first: usize, n: usize) -> String {
    (first..first + n)
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One ledger entry to append in a batch: the order, its sequence number there, the entry.
pub struct NewEntry<'a> {
    pub order_id: &'a str,
    pub seq: u64,
    pub entry: &'a LedgerEntry,
    /// The payment the entry credits (a callback's batch), if any.
    pub payment_id: Option<&'a str>,
}

/// Entries and lines of several orders, grouped and assembled per order.
fn group_ledgers(
    orders: usize,
    entries: Vec<OrderEntryRow>,
    lines: Vec<LineRow>,
) -> anyhow::Result<std::collections::HashMap<String, Vec<StoredEntry>>> {
    let mut out = std::collections::HashMap::with_capacity(orders);
    let mut entries_by_order: std::collections::HashMap<String, Vec<EntryRow>> =
        std::collections::HashMap::with_capacity(orders);
    let mut order_of_entry: std::collections::HashMap<String, String> =
        std::collections::HashMap::with_capacity(entries.len());
    for e in entries {
        order_of_entry.insert(e.entry.id.clone(), e.order_id.clone());
        entries_by_order
            .entry(e.order_id)
            .or_default()
            .push(e.entry);
    }
    let mut lines_by_order: std::collections::HashMap<String, Vec<LineRow>> =
        std::collections::HashMap::with_capacity(orders);
    for l in lines {
        if let Some(order) = order_of_entry.get(&l.entry_id) {
            lines_by_order.entry(order.clone()).or_default().push(l);
        }
    }
    for (order, entries) in entries_by_order {
        let lines = lines_by_order.remove(&order).unwrap_or_default();
        out.insert(order, assemble(entries, lines)?);
    }
    Ok(out)
}

impl Db {
    /// The ledgers of a few orders at once, outside a transaction (the collections queue's page), by order id, in
    /// sequence order.
    pub async fn ledgers(
        &self,
        order_ids: &[&str],
    ) -> anyhow::Result<std::collections::HashMap<String, Vec<StoredEntry>>> {
        if order_ids.is_empty() {
            return Ok(std::collections::HashMap::new());
        }
        let mut conn = self.pool().acquire().await?;
        read_ledgers(&mut conn, self.sqlite, order_ids).await
    }
}

/// Entry ids per read of their lines (well under both databases' parameter limits).
const LINES_PER_READ: usize = 900;

/// The ledgers of `order_ids` on one connection (a pool's, or a transaction's): the entries, then their lines by entry
/// id, grouped by order.
async fn read_ledgers(
    conn: &mut sqlx::AnyConnection,
    sqlite: bool,
    order_ids: &[&str],
) -> anyhow::Result<std::collections::HashMap<String, Vec<StoredEntry>>> {
    let entries_sql = format!(
        "SELECT order_id, {ENTRY_COLUMNS} FROM ledger_entries WHERE order_id {} ORDER BY order_id, seq",
        any_of(sqlite, 1, order_ids.len())
    );
    let entries = sqlx::query_as::<_, OrderEntryRow>(&entries_sql)
        .bind_values(texts(sqlite, order_ids))
        .fetch_all(&mut *conn)
        .await?;
    // The lines by their entries' ids, on the lines' primary key. Joined to the entries on the order ids instead,
    // PostgreSQL chose to hash-join a scan of every line of the book once the list was long (the overdue job's page of
    // 1,000 loans: 1.2 s at 1,000,000 orders against 3 ms a chunk here).
    let mut lines = Vec::with_capacity(entries.len());
    let entry_ids: Vec<&str> = entries.iter().map(|e| e.entry.id.as_str()).collect();
    for chunk in entry_ids.chunks(LINES_PER_READ) {
        let lines_sql = format!(
            "SELECT {LINE_COLUMNS} FROM ledger_lines l WHERE l.entry_id {}",
            any_of(sqlite, 1, chunk.len())
        );
        lines.extend(
            sqlx::query_as::<_, LineRow>(&lines_sql)
                .bind_values(texts(sqlite, chunk))
                .fetch_all(&mut *conn)
                .await?,
        );
    }
    group_ledgers(order_ids.len(), entries, lines)
}

/// Rows per multi-row `INSERT` (11 values each, well under both databases' parameter limits).
const ROWS_PER_INSERT: usize = 400;

impl Tx {
    /// The ledgers of several orders at once (the overdue job's batch read), by order id, in sequence order. Read
    /// after the orders are locked.
    pub async fn ledgers_in_tx(
        &mut self,
        order_ids: &[&str],
    ) -> anyhow::Result<std::collections::HashMap<String, Vec<StoredEntry>>> {
        if order_ids.is_empty() {
            return Ok(std::collections::HashMap::new());
        }
        let sqlite = self.sqlite;
        read_ledgers(self.conn(), sqlite, order_ids).await
    }

    /// Appends many entries in a few multi-row inserts. The unique (order, seq) refuses the whole batch if another
    /// writer took one of the numbers meanwhile; the caller retries from a fresh read.
    pub async fn append_entries(&mut self, batch: &[NewEntry<'_>], now: i64) -> anyhow::Result<()> {
        let ids: Vec<String> = batch.iter().map(|_| new_id()).collect();
        for (chunk, chunk_ids) in batch
            .chunks(ROWS_PER_INSERT)
            .zip(ids.chunks(ROWS_PER_INSERT))
        {
            let dates: Vec<String> = chunk.iter().map(|e| date_code(e.entry.on)).collect();
            let mut rows = Rows::new(
                self.sqlite,
                &[Text, Text, Int, Text, Text, Int, Int, Int, Int, Text, Int],
            );
            for ((e, id), on) in chunk.iter().zip(chunk_ids).zip(&dates) {
                rows.push([
                    Value::Text(Some(id.as_str())),
                    Value::Text(Some(e.order_id)),
                    Value::Int(Some(i64::try_from(e.seq)?)),
                    Value::Text(Some(e.entry.kind.code())),
                    Value::Text(Some(on.as_str())),
                    Value::Int(Some(e.entry.cash.minor())),
                    Value::Int(Some(e.entry.excess.minor())),
                    Value::Int(Some(e.entry.refunded.minor())),
                    Value::Int(e.entry.reverses.map(i64::try_from).transpose()?),
                    Value::Text(e.payment_id),
                    Value::Int(Some(now)),
                ]);
            }
            let sql = format!(
                "INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, reverses,
                     payment_id, created_at) {}",
                rows.values(1)
            );
            sqlx::query(&sql)
                .bind_values(rows.into_values())
                .execute(self.conn())
                .await?;
        }
        let lines: Vec<(&str, &Line)> = batch
            .iter()
            .zip(&ids)
            .flat_map(|(e, id)| e.entry.lines.iter().map(move |l| (id.as_str(), l)))
            .collect();
        for chunk in lines.chunks(ROWS_PER_INSERT) {
            let mut rows = Rows::new(
                self.sqlite,
                &[Text, Int, Int, Int, Int, Int, Int, Int, Int, Int],
            );
            for (id, l) in chunk {
                rows.push([
                    Value::Text(Some(*id)),
                    Value::Int(Some(i64::from(l.installment))),
                    Value::Int(Some(l.due.late_charges.minor())),
                    Value::Int(Some(l.due.fees.minor())),
                    Value::Int(Some(l.due.interest.minor())),
                    Value::Int(Some(l.due.principal.minor())),
                    Value::Int(Some(l.paid.late_charges.minor())),
                    Value::Int(Some(l.paid.fees.minor())),
                    Value::Int(Some(l.paid.interest.minor())),
                    Value::Int(Some(l.paid.principal.minor())),
                ]);
            }
            let sql = format!(
                "INSERT INTO ledger_lines (entry_id, installment, due_late_charges, due_fees, due_interest,
                     due_principal, paid_late_charges, paid_fees, paid_interest, paid_principal) {}",
                rows.values(1)
            );
            sqlx::query(&sql)
                .bind_values(rows.into_values())
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone)]
struct OrderEntryRow {
    order_id: String,
    entry: EntryRow,
}

impl<'r> sqlx::FromRow<'r, sqlx::any::AnyRow> for OrderEntryRow {
    fn from_row(row: &'r sqlx::any::AnyRow) -> sqlx::Result<Self> {
        use sqlx::Row;
        Ok(OrderEntryRow {
            order_id: row.try_get("order_id")?,
            entry: <EntryRow as sqlx::FromRow<'r, sqlx::any::AnyRow>>::from_row(row)?,
        })
    }
}
