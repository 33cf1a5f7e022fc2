//! Finance's payout operations (issue 18): payouts recorded and waiting for a second operator's approval
//! (maker-checker, `payout_approvals`), and the month-end exports' reads (payouts, repayments, refunds, ledger) of one
//! market over a bounded range.

use kilat_domain::{Code, Market};

use super::{Db, Tx};

/// A payout recorded by one finance operator, waiting for a second one's approval.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PendingPayoutRow {
    pub order_id: String,
    pub bank_reference: String,
    /// Minor units: the order's net amount, as recorded.
    pub amount: i64,
    /// The operator who recorded it (the maker).
    pub recorded_by: String,
    /// Epoch milliseconds.
    pub recorded_at: i64,
}

const PENDING_COLUMNS: &str = "order_id, bank_reference, amount, recorded_by, recorded_at";

impl Tx {
    /// Records a payout waiting for approval; false (nothing written) when the order already has one.
    pub async fn insert_payout_approval(&mut self, row: &PendingPayoutRow) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "INSERT INTO payout_approvals (order_id, bank_reference, amount, recorded_by, recorded_at)
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (order_id) DO NOTHING",
        )
        .bind(&row.order_id)
        .bind(&row.bank_reference)
        .bind(row.amount)
        .bind(&row.recorded_by)
        .bind(row.recorded_at)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Takes the order's waiting payout off the list in one statement, only when `checker` is not the operator who
    /// recorded it: `None` when there is none, or it is the checker's own (the caller tells which apart). Two
    /// checkers at once: one gets the row, the other `None`.
    pub async fn take_payout_approval(
        &mut self,
        order_id: &str,
        checker: &str,
    ) -> sqlx::Result<Option<PendingPayoutRow>> {
        sqlx::query_as(&format!(
            "DELETE FROM payout_approvals WHERE order_id = $1 AND recorded_by <> $2 RETURNING {PENDING_COLUMNS}"
        ))
        .bind(order_id)
        .bind(checker)
        .fetch_optional(self.conn())
        .await
    }

    /// The order's waiting payout, read inside the transaction.
    pub async fn payout_approval_in_tx(
        &mut self,
        order_id: &str,
    ) -> sqlx::Result<Option<PendingPayoutRow>> {
        sqlx::query_as(&format!(
            "SELECT {PENDING_COLUMNS} FROM payout_approvals WHERE order_id = $1"
        ))
        .bind(order_id)
        .fetch_optional(self.conn())
        .await
    }
}

/// One payout of the export.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PayoutExportRow {
    pub order_no: String,
    pub payout_date: String,
    pub product_code: String,
    #[row(try_from = "String")]
    pub currency: kilat_domain::Currency,
    /// Minor units: the sanctioned amount.
    pub principal: i64,
    /// Minor units: what was sent.
    pub amount: i64,
    pub provider: String,
    pub bank_reference: String,
    pub recorded_by: Option<String>,
    pub approved_by: Option<String>,
    pub created_at: i64,
}

/// One ledger entry that records money received (a repayment, a payoff, a cooling-off exit, an extension fee).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct RepaymentExportRow {
    pub order_no: String,
    pub on_date: String,
    pub kind: String,
    pub seq: i64,
    pub reference: String,
    pub method: String,
    pub choice: String,
    pub utr: Option<String>,
    #[row(try_from = "String")]
    pub currency: kilat_domain::Currency,
    pub cash: i64,
    pub excess: i64,
    pub refunded: i64,
}

/// One refund sent.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct RefundExportRow {
    pub order_no: String,
    pub reference: String,
    #[row(try_from = "String")]
    pub currency: kilat_domain::Currency,
    pub received_amount: Option<i64>,
    pub refund_amount: i64,
    pub refund_reference: String,
    pub refunded_by: Option<String>,
    pub refunded_at: i64,
}

/// Money received and not in the ledger (the month-end's suspense): a payment held or owed back, or a provider's
/// receipt kept apart (money with no payment, a wrong provider's, or money the provider took back).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct NotCreditedRow {
    /// When it came (a receipt), or when the payment last changed (held or owed back since then at the latest).
    pub since: i64,
    /// `payment` or `receipt`.
    pub source: String,
    /// A payment's status (`held`, `refund_due`), or a receipt's kind (`unmatched`, `reversed`).
    pub state: String,
    pub order_no: Option<String>,
    pub reference: String,
    pub provider: String,
    pub currency: Option<String>,
    pub amount: Option<i64>,
    pub resolved_at: Option<i64>,
    pub resolution: Option<String>,
}

/// One ledger entry with its lines summed over the installments.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LedgerExportRow {
    pub order_no: String,
    pub seq: i64,
    pub kind: String,
    pub on_date: String,
    #[row(try_from = "String")]
    pub currency: kilat_domain::Currency,
    pub cash: i64,
    pub excess: i64,
    pub refunded: i64,
    pub reverses: Option<i64>,
    pub payment_reference: Option<String>,
    pub due_principal: i64,
    pub due_interest: i64,
    pub due_fees: i64,
    pub due_late_charges: i64,
    pub paid_principal: i64,
    pub paid_interest: i64,
    pub paid_fees: i64,
    pub paid_late_charges: i64,
}

impl Db {
    /// The market's payouts dated `from..=to` (business dates, `YYYY-MM-DD`), in date order (at most `limit`).
    pub async fn export_payouts(
        &self,
        market: Market,
        from: &str,
        to: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<PayoutExportRow>> {
        sqlx::query_as(
            "SELECT o.order_no, l.payout_date, o.product_code, o.currency, o.amount AS principal, p.amount,
                    p.provider, p.bank_reference, m.username AS recorded_by, c.username AS approved_by, p.created_at
             FROM loans l JOIN orders o ON o.id = l.order_id JOIN payouts p ON p.order_id = l.order_id
             LEFT JOIN operators m ON m.id = p.operator_id LEFT JOIN operators c ON c.id = p.approved_by
             WHERE o.market = $1 AND l.payout_date >= $2 AND l.payout_date <= $3
             ORDER BY l.payout_date, o.order_no LIMIT $4",
        )
        .bind(market.code())
        .bind(from)
        .bind(to)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The market's money received, as the ledger credited it on `from..=to` (business dates), in date order.
    pub async fn export_repayments(
        &self,
        market: Market,
        from: &str,
        to: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<RepaymentExportRow>> {
        sqlx::query_as(
            "SELECT o.order_no, e.on_date, e.kind, e.seq, p.reference, p.method, p.choice,
                    (SELECT MIN(u.utr) FROM payment_utrs u WHERE u.payment_id = p.id) AS utr, o.currency,
                    e.cash, e.excess, e.refunded
             FROM ledger_entries e JOIN payments p ON p.id = e.payment_id JOIN orders o ON o.id = e.order_id
             WHERE o.market = $1 AND e.on_date >= $2 AND e.on_date <= $3
             ORDER BY e.on_date, o.order_no, e.seq LIMIT $4",
        )
        .bind(market.code())
        .bind(from)
        .bind(to)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The market's refunds sent in `from_ms..to_ms` (epoch milliseconds, end excluded), in time order.
    pub async fn export_refunds(
        &self,
        market: Market,
        from_ms: i64,
        to_ms: i64,
        limit: i64,
    ) -> sqlx::Result<Vec<RefundExportRow>> {
        sqlx::query_as(
            "SELECT o.order_no, p.reference, p.currency, p.received_amount, p.refund_amount, p.refund_reference,
                    r.username AS refunded_by, p.refunded_at
             FROM payments p JOIN orders o ON o.id = p.order_id LEFT JOIN operators r ON r.id = p.refunded_by
             WHERE o.market = $1 AND p.refunded_at >= $2 AND p.refunded_at < $3 AND p.status = 'refunded'
             ORDER BY p.refunded_at, p.id LIMIT $4",
        )
        .bind(market.code())
        .bind(from_ms)
        .bind(to_ms)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The market's money received and not in the ledger, oldest first: every payment held or owed back now, every
    /// provider's receipt kept apart and not resolved (those of no known market too, as finance's list shows them),
    /// and those resolved at `resolved_from..resolved_to` (epoch ms) with how.
    pub async fn export_not_credited(
        &self,
        market: Market,
        resolved_from: i64,
        resolved_to: i64,
        limit: i64,
    ) -> sqlx::Result<Vec<NotCreditedRow>> {
        sqlx::query_as(
            "SELECT since, source, state, order_no, reference, provider, currency, amount, resolved_at, resolution
             FROM (
               SELECT p.updated_at AS since, 'payment' AS source, p.status AS state, o.order_no, p.reference,
                      COALESCE(p.provider, '') AS provider, COALESCE(p.received_currency, p.currency) AS currency,
                      COALESCE(p.received_amount, p.amount) AS amount, CAST(NULL AS BIGINT) AS resolved_at,
                      CAST(NULL AS TEXT) AS resolution, p.id AS id
               FROM payments p JOIN orders o ON o.id = p.order_id
               WHERE o.market = $1 AND p.status IN ('held', 'refund_due')
               UNION ALL
               SELECT u.received_at, 'receipt', u.kind, o.order_no, u.reference, u.provider, u.currency, u.amount,
                      u.resolved_at, u.resolution, u.id
               FROM unmatched_receipts u LEFT JOIN payments p ON p.id = u.payment_id
                    LEFT JOIN orders o ON o.id = p.order_id
               WHERE (u.market = $1 OR u.market IS NULL)
                 AND (u.resolved_at IS NULL OR (u.resolved_at >= $2 AND u.resolved_at < $3))
             ) items
             ORDER BY since, id LIMIT $4",
        )
        .bind(market.code())
        .bind(resolved_from)
        .bind(resolved_to)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The market's ledger entries dated `from..=to` (business dates), each with its lines summed, in date order.
    pub async fn export_ledger(
        &self,
        market: Market,
        from: &str,
        to: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<LedgerExportRow>> {
        sqlx::query_as(
            "SELECT o.order_no, e.seq, e.kind, e.on_date, o.currency, e.cash, e.excess, e.refunded, e.reverses,
                    p.reference AS payment_reference,
                    CAST(COALESCE(SUM(l.due_principal), 0) AS BIGINT) AS due_principal,
                    CAST(COALESCE(SUM(l.due_interest), 0) AS BIGINT) AS due_interest,
                    CAST(COALESCE(SUM(l.due_fees), 0) AS BIGINT) AS due_fees,
                    CAST(COALESCE(SUM(l.due_late_charges), 0) AS BIGINT) AS due_late_charges,
                    CAST(COALESCE(SUM(l.paid_principal), 0) AS BIGINT) AS paid_principal,
                    CAST(COALESCE(SUM(l.paid_interest), 0) AS BIGINT) AS paid_interest,
                    CAST(COALESCE(SUM(l.paid_fees), 0) AS BIGINT) AS paid_fees,
                    CAST(COALESCE(SUM(l.paid_late_charges), 0) AS BIGINT) AS paid_late_charges
             FROM ledger_entries e JOIN orders o ON o.id = e.order_id
             LEFT JOIN ledger_lines l ON l.entry_id = e.id LEFT JOIN payments p ON p.id = e.payment_id
             WHERE o.market = $1 AND e.on_date >= $2 AND e.on_date <= $3
             GROUP BY e.id, o.order_no, e.seq, e.kind, e.on_date, o.currency, e.cash, e.excess, e.refunded,
                      e.reverses, p.reference
             ORDER BY e.on_date, o.order_no, e.seq LIMIT $4",
        )
        .bind(market.code())
        .bind(from)
        .bind(to)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }
}
