//! Payments: created by the borrower for one repayment choice, their UTRs (unique across all payments), and
//! finance's decision. Status moves by conditional updates, so two decisions on one payment cannot both apply.

use kilat_domain::{Code, Currency};

use super::lists::Kind::{Int, Text};
use super::lists::{BindValues, Rows, Value};
use super::{Db, Tx, new_id};

/// A payment as stored. `choice`, `method` and `status` are the codes of `servicing::payments`.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct PaymentRow {
    pub id: String,
    pub order_id: String,
    pub order_no: String,
    pub borrower_id: String,
    pub choice: String,
    pub method: String,
    pub installment: Option<i64>,
    /// `due`: the last installment it covers (`installment..=installment_to`).
    pub installment_to: Option<i64>,
    pub amount: i64,
    #[row(try_from = "String")]
    pub currency: Currency,
    pub priced_on: String,
    /// An extension's: the extensions the loan had been granted when it was priced (none before migration 0071).
    pub extensions_before: Option<i64>,
    pub status: String,
    pub reference: String,
    pub idempotency_key: String,
    pub utr: Option<String>,
    pub received_amount: Option<i64>,
    /// The currency of the money received when a provider reported another than the payment's; null otherwise.
    pub received_currency: Option<String>,
    pub decision_reason: Option<String>,
    /// The provider that issued the payment's instructions (`simulated`, `xendit`, `dragonpay`), if any.
    pub provider: Option<String>,
    /// The provider's id of what it issued (Xendit's virtual-account id).
    pub provider_ref: Option<String>,
    pub va_bank_code: Option<String>,
    pub va_number: Option<String>,
    pub va_name: Option<String>,
    /// Epoch milliseconds: when the instructions stop working; none when they do not expire.
    pub expires_at: Option<i64>,
    /// Minor units owed back to the borrower (`refund_due`, `refunded`): all of the money for a loan that owed
    /// nothing, or the part beyond what it owed.
    pub refund_amount: Option<i64>,
    /// The bank's reference of the refund, once finance sent it.
    pub refund_reference: Option<String>,
    pub refunded_at: Option<i64>,
    /// The finance operator who said they are sending the refund (`refund_due`), and since when.
    pub refund_claimed_by: Option<String>,
    pub refund_claimed_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl PaymentRow {
    /// The currency of the money received when it is not the payment's (a provider reported another): such money is
    /// held, never credited or owed back as the payment's currency.
    pub fn foreign_currency(&self) -> Option<&str> {
        self.received_currency
            .as_deref()
            .filter(|c| !c.eq_ignore_ascii_case(self.currency.code()))
    }
}

/// A payment to create.
pub struct NewPayment<'a> {
    pub order_id: &'a str,
    pub borrower_id: &'a str,
    pub choice: &'a str,
    pub method: &'a str,
    pub installment: Option<i64>,
    pub installment_to: Option<i64>,
    pub amount: i64,
    pub currency: Currency,
    pub priced_on: &'a str,
    pub extensions_before: Option<i64>,
    pub status: &'a str,
    pub reference: &'a str,
    pub idempotency_key: &'a str,
    /// What a provider issued for it, if any.
    pub issued: Option<Issued<'a>>,
    pub now: i64,
}

/// What a provider issued for a payment, stored with it.
pub struct Issued<'a> {
    pub provider: &'a str,
    pub provider_ref: Option<&'a str>,
    pub va_bank_code: Option<&'a str>,
    pub va_number: Option<&'a str>,
    pub va_name: Option<&'a str>,
    pub expires_at: Option<i64>,
}

/// A payment's move to a new status, with what finance recorded (each `None` keeps the stored value).
pub struct PaymentMove<'a> {
    pub to: &'a str,
    pub received_amount: Option<i64>,
    pub reason: Option<&'a str>,
    /// The operator who decided; sets the decision time.
    pub decided_by: Option<&'a str>,
    /// Minor units to refund (`refund_due`).
    pub refund_amount: Option<i64>,
    /// The provider's id of the money (a callback's payment id), recorded unless the payment has one or another
    /// payment holds it (the column is unique), as [`Tx::set_payment_provider_id`] does.
    pub provider_id: Option<&'a str>,
}

/// A unique constraint refused the write (the idempotency key, the reference, or the UTR).
#[derive(Debug)]
pub struct Duplicate;

/// The columns of a [`PaymentRow`], over `payments p JOIN orders o`.
pub(super) const COLUMNS: &str = "p.id, p.order_id, o.order_no, p.borrower_id, p.choice, p.method, p.installment, p.installment_to, p.amount, \
     p.currency, p.priced_on, p.extensions_before, p.status, p.reference, p.idempotency_key, \
     (SELECT MIN(u.utr) FROM payment_utrs u WHERE u.payment_id = p.id) AS utr, \
     p.received_amount, p.received_currency, p.decision_reason, p.provider, p.provider_ref, p.va_bank_code, p.va_number, p.va_name, \
     p.expires_at, p.refund_amount, p.refund_reference, p.refunded_at, p.refund_claimed_by, p.refund_claimed_at, \
     p.created_at, p.updated_at";

fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

impl Db {
    pub async fn payment(&self, id: &str) -> sqlx::Result<Option<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.id = $1"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await
    }

    pub async fn payment_by_idempotency_key(
        &self,
        borrower_id: &str,
        key: &str,
    ) -> sqlx::Result<Option<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.borrower_id = $1 AND p.idempotency_key = $2"
        ))
        .bind(borrower_id)
        .bind(key)
        .fetch_optional(self.pool())
        .await
    }

    /// Every payment of an order, oldest first.
    pub async fn payments_of_order(&self, order_id: &str) -> sqlx::Result<Vec<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.order_id = $1 ORDER BY p.created_at, p.id"
        ))
        .bind(order_id)
        .fetch_all(self.pool())
        .await
    }

    /// The order's payment waiting for finance with a UTR (`verifying`), with when its UTR was submitted (epoch
    /// milliseconds) and how many times it was corrected; the latest when there were several.
    pub async fn verifying_utr_payment(
        &self,
        order_id: &str,
    ) -> sqlx::Result<Option<(PaymentRow, i64, i64)>> {
        let Some(row): Option<PaymentRow> = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.order_id = $1 AND p.status = 'verifying' ORDER BY p.created_at DESC, p.id DESC LIMIT 1"
        ))
        .bind(order_id)
        .fetch_optional(self.pool())
        .await?
        else {
            return Ok(None);
        };
        let (submitted_at, corrections): (Option<i64>, i64) = sqlx::query_as(
            "SELECT (SELECT MAX(submitted_at) FROM payment_utrs WHERE payment_id = $1),
                    (SELECT COUNT(*) FROM payment_utr_corrections WHERE payment_id = $1)",
        )
        .bind(&row.id)
        .fetch_one(self.pool())
        .await?;
        let submitted_at = submitted_at.unwrap_or(row.updated_at);
        Ok(Some((row, submitted_at, corrections)))
    }

    /// True when a payment of the order waits for finance (a UTR submitted, or an amount held).
    pub async fn order_has_verifying_payment(&self, order_id: &str) -> sqlx::Result<bool> {
        let found: Option<(String,)> = sqlx::query_as(
            "SELECT id FROM payments WHERE order_id = $1 AND status IN ('verifying', 'held') LIMIT 1",
        )
        .bind(order_id)
        .fetch_optional(self.pool())
        .await?;
        Ok(found.is_some())
    }
}

impl Tx {
    /// Creates the payment; `Err(Duplicate)` when its idempotency key (or reference) is taken. The transaction is then
    /// spoilt on PostgreSQL: drop it and look the key up.
    pub async fn insert_payment(
        &mut self,
        p: &NewPayment<'_>,
    ) -> sqlx::Result<Result<String, Duplicate>> {
        let id = new_id();
        let inserted = sqlx::query(
            "INSERT INTO payments (id, order_id, borrower_id, choice, method, installment, installment_to, amount,
                 currency, priced_on, status, reference, idempotency_key, provider, provider_ref, va_bank_code,
                 va_number, va_name, expires_at, created_at, updated_at, extensions_before)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20,
                 $21)",
        )
        .bind(&id)
        .bind(p.order_id)
        .bind(p.borrower_id)
        .bind(p.choice)
        .bind(p.method)
        .bind(p.installment)
        .bind(p.installment_to)
        .bind(p.amount)
        .bind(p.currency.code())
        .bind(p.priced_on)
        .bind(p.status)
        .bind(p.reference)
        .bind(p.idempotency_key)
        .bind(p.issued.as_ref().map(|i| i.provider))
        .bind(p.issued.as_ref().and_then(|i| i.provider_ref))
        .bind(p.issued.as_ref().and_then(|i| i.va_bank_code))
        .bind(p.issued.as_ref().and_then(|i| i.va_number))
        .bind(p.issued.as_ref().and_then(|i| i.va_name))
        .bind(p.issued.as_ref().and_then(|i| i.expires_at))
        .bind(p.now)
        .bind(p.extensions_before)
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => Ok(Ok(id)),
            Err(e) if unique_violation(&e) => Ok(Err(Duplicate)),
            Err(e) => Err(e),
        }
    }

    /// Records a UTR for the payment; `Err(Duplicate)` when the UTR was used before, on any payment.
    pub async fn insert_utr(
        &mut self,
        utr: &str,
        payment_id: &str,
        now: i64,
    ) -> sqlx::Result<Result<(), Duplicate>> {
        let inserted = sqlx::query(
            "INSERT INTO payment_utrs (utr, payment_id, submitted_at) VALUES ($1, $2, $3)",
        )
        .bind(utr)
        .bind(payment_id)
        .bind(now)
        .execute(self.conn())
        .await;
        match inserted {
            Ok(_) => Ok(Ok(())),
            Err(e) if unique_violation(&e) => Ok(Err(Duplicate)),
            Err(e) => Err(e),
        }
    }

    /// Replaces the payment's UTR with `new_utr`, keeping the one replaced in `payment_utr_corrections` as correction
    /// number `seq`; the caller holds the order's lock and has checked the payment is still `verifying`.
    /// `Err(Duplicate)` when `new_utr` was used before, on any payment (the transaction is then spoilt on PostgreSQL:
    /// roll it back).
    pub async fn replace_utr(
        &mut self,
        payment_id: &str,
        old_utr: &str,
        new_utr: &str,
        seq: i64,
        now: i64,
    ) -> sqlx::Result<Result<(), Duplicate>> {
        sqlx::query("DELETE FROM payment_utrs WHERE payment_id = $1")
            .bind(payment_id)
            .execute(self.conn())
            .await?;
        if let Err(Duplicate) = self.insert_utr(new_utr, payment_id, now).await? {
            return Ok(Err(Duplicate));
        }
        sqlx::query(
            "INSERT INTO payment_utr_corrections (payment_id, seq, old_utr, new_utr, at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(payment_id)
        .bind(seq)
        .bind(old_utr)
        .bind(new_utr)
        .bind(now)
        .execute(self.conn())
        .await?;
        sqlx::query("UPDATE payments SET updated_at = $1 WHERE id = $2")
            .bind(now)
            .bind(payment_id)
            .execute(self.conn())
            .await?;
        Ok(Ok(()))
    }

    /// When the payment's money was sent (epoch milliseconds), as far as the store knows: the first submission of its
    /// UTR, or the first correction's time when it was corrected (the first UTR's row is gone by then, and it was
    /// submitted before); or when a provider's callback that brought its money (credited, held or owed back) says it
    /// was sent, else when that callback came. The earliest of these; `None` when there is none.
    pub async fn money_sent_at_in_tx(&mut self, payment_id: &str) -> sqlx::Result<Option<i64>> {
        let (submitted, corrected, reported): (Option<i64>, Option<i64>, Option<i64>) =
            sqlx::query_as(
                "SELECT (SELECT MIN(submitted_at) FROM payment_utrs WHERE payment_id = $1),
                        (SELECT MIN(at) FROM payment_utr_corrections WHERE payment_id = $1),
                        (SELECT MIN(COALESCE(sent_at, received_at)) FROM payment_callbacks
                          WHERE payment_id = $1 AND outcome IN ('confirmed', 'held', 'refund_due'))",
            )
            .bind(payment_id)
            .fetch_one(self.conn())
            .await?;
        Ok([submitted, corrected, reported].into_iter().flatten().min())
    }

    /// True when a provider reported money for the payment: it carries the provider's id of a transfer, or a
    /// provider's callback held it.
    pub async fn payment_money_reported_in_tx(&mut self, payment_id: &str) -> sqlx::Result<bool> {
        let reported: i64 = sqlx::query_scalar(
            "SELECT (SELECT COUNT(*) FROM payments WHERE id = $1 AND provider_id IS NOT NULL)
                  + (SELECT COUNT(*) FROM payment_callbacks WHERE payment_id = $1 AND outcome = 'held')",
        )
        .bind(payment_id)
        .fetch_one(self.conn())
        .await?;
        Ok(reported > 0)
    }

    /// Records that the money a provider reported for the payment came in `currency`, not the payment's.
    pub async fn set_received_currency(
        &mut self,
        payment_id: &str,
        currency: &str,
    ) -> sqlx::Result<()> {
        sqlx::query("UPDATE payments SET received_currency = $1 WHERE id = $2")
            .bind(currency)
            .bind(payment_id)
            .execute(self.conn())
            .await?;
        Ok(())
    }

    /// How many times the payment's UTR was corrected.
    pub async fn utr_corrections_in_tx(&mut self, payment_id: &str) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM payment_utr_corrections WHERE payment_id = $1")
            .bind(payment_id)
            .fetch_one(self.conn())
            .await
    }

    /// Moves the payment as `to` says, only from one of `from`: `None` when it did not move (the guard that makes a
    /// decision happen once: a second one finds the status changed), else how many other payments of its order hold
    /// money (`held`), read in the same statement, so that closing a loan looks for them only when there are some.
    pub async fn set_payment_status(
        &mut self,
        id: &str,
        from: &[&str],
        to: &PaymentMove<'_>,
        now: i64,
    ) -> sqlx::Result<Option<i64>> {
        self.lock_provider_ids(to.provider_id).await?;
        let placeholders: Vec<String> = (0..from.len()).map(|i| format!("${}", i + 10)).collect();
        // The provider's id is written by the same statement as the move: one write of the row where a callback took
        // two.
        let sql = format!(
            "UPDATE payments SET status = $1, received_amount = COALESCE($2, received_amount),
                 decision_reason = COALESCE($3, decision_reason), decided_by = COALESCE($4, decided_by),
                 decided_at = COALESCE($5, decided_at), updated_at = $6,
                 refund_amount = COALESCE($8, refund_amount),
                 provider_id = CASE WHEN $9 IS NOT NULL AND provider_id IS NULL
                                         AND NOT EXISTS (SELECT 1 FROM payments q WHERE q.provider_id = $9)
                                    THEN $9 ELSE provider_id END
             WHERE id = $7 AND status IN ({})
             RETURNING (SELECT COUNT(*) FROM payments h
                        WHERE h.order_id = payments.order_id AND h.status = 'held' AND h.id <> payments.id)",
            placeholders.join(", ")
        );
        let mut query = sqlx::query_as::<_, (i64,)>(&sql)
            .bind(to.to)
            .bind(to.received_amount)
            .bind(to.reason)
            .bind(to.decided_by)
            .bind(to.decided_by.map(|_| now))
            .bind(now)
            .bind(id)
            .bind(to.refund_amount)
            .bind(to.provider_id);
        for f in from {
            query = query.bind(*f);
        }
        Ok(query.fetch_optional(self.conn()).await?.map(|(held,)| held))
    }

    /// Marks `operator_id` as sending the refund of a `refund_due` payment, unless another operator is — or, with
    /// `take_over_from`, unless another than that one is (the operator it was read from: a third who took it over
    /// meanwhile keeps it): one conditional update, so two operators at once are never both sending it. True when it
    /// is theirs now.
    pub async fn claim_refund(
        &mut self,
        id: &str,
        operator_id: &str,
        take_over_from: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE payments SET refund_claimed_by = $1, refund_claimed_at = $2
             WHERE id = $3 AND status = 'refund_due'
               AND (refund_claimed_by IS NULL OR refund_claimed_by = $1 OR refund_claimed_by = $4)",
        )
        .bind(operator_id)
        .bind(now)
        .bind(id)
        .bind(take_over_from)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Records the bank transfer that sent a payment's refund back: `refund_due` → `refunded` once (true when it
    /// moved; a second recording finds the status changed), unless another operator is sending it.
    pub async fn record_refund(
        &mut self,
        id: &str,
        bank_reference: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE payments SET status = 'refunded', refund_reference = $1, refunded_by = $2, refunded_at = $3,
                 updated_at = $3
             WHERE id = $4 AND status = 'refund_due' AND (refund_claimed_by IS NULL OR refund_claimed_by = $2)",
        )
        .bind(bank_reference)
        .bind(operator_id)
        .bind(now)
        .bind(id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The other payments of an order that hold money (`held`), for when the loan closes.
    pub async fn held_payments_of_order(
        &mut self,
        order_id: &str,
        except: &str,
    ) -> sqlx::Result<Vec<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.order_id = $1 AND p.status = 'held' AND p.id <> $2 ORDER BY p.created_at, p.id"
        ))
        .bind(order_id)
        .bind(except)
        .fetch_all(self.conn())
        .await
    }

    /// True when a repayment of the order (not an extension's fee: a second fee is told by the extensions it was
    /// priced on) other than `payment_id` waits for finance (a UTR being checked, an amount held), read inside the
    /// transaction that holds the order's lock.
    pub async fn other_payment_waiting_in_tx(
        &mut self,
        order_id: &str,
        payment_id: &str,
    ) -> sqlx::Result<bool> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM payments
             WHERE order_id = $1 AND id <> $2 AND status IN ('verifying', 'held') AND choice <> 'extension'",
        )
        .bind(order_id)
        .bind(payment_id)
        .fetch_one(self.conn())
        .await?;
        Ok(n > 0)
    }

    /// The payment inside the transaction.
    pub async fn payment_in_tx(&mut self, id: &str) -> sqlx::Result<Option<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.id = $1"
        ))
        .bind(id)
        .fetch_optional(self.conn())
        .await
    }
}

/// One payment a batch of callbacks credits ([`Tx::credit_payments`]): moved from `from` to `confirmed` with the amount
/// received and the provider's id of the money.
pub struct CreditedPayment<'a> {
    pub id: &'a str,
    pub from: &'a str,
    pub received: i64,
    pub provider_id: Option<&'a str>,
}

/// Rows per multi-row update of [`Tx::credit_payments`] (4 values each).
const CREDITS_PER_STATEMENT: usize = 200;

impl Tx {
    /// Moves many payments to `confirmed`, each only from the status it was read in (the guard of
    /// [`Tx::set_payment_status`]), with the amount received and the provider's id of the money (written unless the
    /// payment has one or another payment holds it), in multi-row updates; answers how many moved.
    pub async fn credit_payments(
        &mut self,
        rows: &[CreditedPayment<'_>],
        now: i64,
    ) -> sqlx::Result<u64> {
        self.lock_provider_ids(rows.iter().filter_map(|r| r.provider_id))
            .await?;
        let mut moved = 0;
        for chunk in rows.chunks(CREDITS_PER_STATEMENT) {
            let mut values = Rows::new(self.sqlite, &[Text, Text, Int, Text]);
            for r in chunk {
                values.push([
                    Value::Text(Some(r.id)),
                    Value::Text(Some(r.from)),
                    Value::Int(Some(r.received)),
                    Value::Text(r.provider_id),
                ]);
            }
            // `v.column1…4`: the names both databases give a `VALUES` list's columns ([`Rows::relation`]).
            let sql = format!(
                "UPDATE payments SET status = 'confirmed', received_amount = v.column3, updated_at = $1,
                     provider_id = CASE WHEN v.column4 IS NOT NULL AND payments.provider_id IS NULL
                                             AND NOT EXISTS (SELECT 1 FROM payments q WHERE q.provider_id = v.column4)
                                        THEN v.column4 ELSE payments.provider_id END
                 FROM {}
                 WHERE payments.id = v.column1 AND payments.status = v.column2",
                values.relation(2, "v")
            );
            moved += sqlx::query(&sql)
                .bind(now)
                .bind_values(values.into_values())
                .execute(self.conn())
                .await?
                .rows_affected();
        }
        Ok(moved)
    }
}
