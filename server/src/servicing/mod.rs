//! A loan after payout (docs/MONEY.md §9): finance's payout through a payout provider, which fixes the plan and
//! opens the ledger; the borrower's installment plan, the stored ledger's replay (kept beside it as the loan's
//! position, [`own_loan`]); and payments (`payments`): the repayment choices priced by the money engine, payment types
//! per market, UTR submission and finance's confirmation, which posts through the money engine and moves the order
//! through `orders::apply_in`.

pub mod callbacks;
pub mod exports;
pub mod payments;
pub mod payout;
pub mod payout_file;
pub mod reconciliation;
pub mod unmatched;

use kilat_domain::{
    InstallmentBalance, InstallmentStatus, KeyFactStatement, LedgerEntry, LoanBalances, OrderState,
    Plan, replay,
};
use time::Date;

use crate::auth::Borrower;
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::orders;
use crate::services::Services;
use crate::store::Tx;
use crate::store::loans::{LoanBalancesRead, OrderPlanRow, PayoutRow, StoredEntry};
use crate::store::orders::OrderRow;

/// A paid-out order with its plan, its ledger and the balances replayed from it.
pub struct Loan {
    pub order: OrderRow,
    pub plan: Plan,
    pub entries: Vec<LedgerEntry>,
    pub balances: LoanBalances,
}

/// A paid-out order with its plan and its balances, without the ledger's entries: what a borrower's loan screen
/// shows and prices (the plan, the repayment choices, a payment's amount, an extension), read from the loan's kept
/// position ([`own_loan`]).
pub struct LoanView {
    pub order: OrderRow,
    pub plan: Plan,
    pub balances: LoanBalances,
}

impl LoanView {
    /// Today in the loan's market.
    pub fn today(&self, s: &Services) -> Date {
        s.clock.today(self.order.market)
    }
}

impl From<Loan> for LoanView {
    fn from(loan: Loan) -> Self {
        Self {
            order: loan.order,
            plan: loan.plan,
            balances: loan.balances,
        }
    }
}

impl Loan {
    /// Today in the loan's market.
    pub fn today(&self, s: &Services) -> Date {
        s.clock.today(self.order.market)
    }
}

/// The plan of an order at payout on `payout`: the accepted KFS's schedule moved there (same amounts, same APR), its
/// term's period read from the product version the order was made on, so an edit of the product since changes nothing.
pub(crate) async fn plan_at_payout(
    s: &Services,
    order: &OrderRow,
    payout: Date,
) -> Result<Plan, Error> {
    let kfs: KeyFactStatement =
        serde_json::from_str(&order.kfs_json).map_err(anyhow::Error::from)?;
    let version = s.db.order_product_version(&order.id).await?.unwrap_or(1);
    let definition =
        s.db.product_definition(&order.product_code, version)
            .await?
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "order {}: product {} version {version} is not stored",
                    order.order_no,
                    order.product_code
                )
            })?;
    let product: kilat_domain::Product =
        serde_json::from_str(&definition).map_err(anyhow::Error::from)?;
    let period = product
        .terms
        .iter()
        .find(|t| t.code == order.term_code)
        .map(|t| t.period)
        .ok_or_else(|| {
            anyhow::anyhow!(
                "order {}: product {} version {version} has no term {}",
                order.order_no,
                order.product_code,
                order.term_code
            )
        })?;
    Plan::from_kfs(&kfs, period, payout).map_err(|e| Error::Internal(e.into()))
}

pub(crate) fn balances_of(plan: &Plan, entries: &[LedgerEntry]) -> Result<LoanBalances, Error> {
    replay(plan, entries)
        .map_err(|e| Error::Internal(anyhow::Error::from(e).context("ledger replay")))
}

fn plan_from_json(json: &str) -> Result<Plan, Error> {
    Ok(serde_json::from_str(json).map_err(anyhow::Error::from)?)
}

/// A loan's stored entries in sequence order, refused when one is missing.
pub(crate) fn entries_of(stored: Vec<StoredEntry>) -> Result<Vec<LedgerEntry>, Error> {
    stored
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            if e.seq == i as u64 {
                Ok(e.entry)
            } else {
                Err(anyhow::anyhow!("ledger gap at {i}").into())
            }
        })
        .collect()
}

/// The loan of an order, or not found when it has not been paid out.
pub async fn load(s: &Services, order: OrderRow) -> Result<Loan, Error> {
    let row = s.db.loan(&order.id).await?.ok_or(Error::NotFound)?;
    let plan = plan_from_json(&row.plan_json)?;
    let stored = s.db.ledger(&order.id).await?;
    replayed(order, plan, stored)
}

/// The loan inside a transaction, its order locked first (with its plan, in one statement): what a posting prices
/// from.
pub(crate) async fn load_in(tx: &mut Tx, order_id: &str) -> Result<Loan, Error> {
    let row = tx.loan_locked_in_tx(order_id).await?;
    let (order, plan) = with_plan(row)?;
    let stored = tx.ledger_in_tx(&order.id).await?;
    replayed(order, plan, stored)
}

/// [`load_in`] for the order of the payment with this reference (a provider's callback knows no other key): the order
/// is locked by the statement that finds it, before the payment is read. A payment not found, or an order not paid
/// out, is not found.
pub(crate) async fn load_of_payment_in(tx: &mut Tx, reference: &str) -> Result<Loan, Error> {
    let row = tx.loan_of_payment_locked_in_tx(reference).await?;
    let (order, plan) = with_plan(row)?;
    let stored = tx.ledger_in_tx(&order.id).await?;
    replayed(order, plan, stored)
}

/// [`load_of_payment_in`] for a batch of callbacks: the orders of the payments with these references, locked in one
/// statement (in id order), their ledgers in one read, each replayed; by order id. An order not paid out, or held by
/// another transaction (PostgreSQL: not waited for), is left out.
pub(crate) async fn loans_of_payments_in(
    tx: &mut Tx,
    references: &[&str],
) -> Result<std::collections::HashMap<String, Loan>, Error> {
    let rows = tx.loans_of_payments_locked_in_tx(references).await?;
    let paid_out = rows
        .into_iter()
        .filter(|row| row.plan_json.is_some())
        .map(|row| with_plan(Some(row)))
        .collect::<Result<Vec<_>, Error>>()?;
    let ids: Vec<&str> = paid_out
        .iter()
        .map(|(order, _)| order.id.as_str())
        .collect();
    let mut ledgers = tx.ledgers_in_tx(&ids).await?;
    paid_out
        .into_iter()
        .map(|(order, plan)| {
            let stored = ledgers.remove(&order.id).unwrap_or_default();
            Ok((order.id.clone(), replayed(order, plan, stored)?))
        })
        .collect()
}

/// The borrower's paid-out order with its balances; another borrower's, or one not paid out, is not found.
pub async fn own_loan(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<LoanView, Error> {
    Ok(own_loan_and_waiting(s, borrower, order_no).await?.0)
}

/// [`own_loan`], and whether a payment of it waits for finance. The order, its plan, that and the loan's kept
/// position are one read ([`crate::store::Db::own_order`]): a borrower's every loan screen starts here. A loan without
/// a position (paid out before migration 0044 and not posted to since) has its ledger read and replayed instead.
pub(crate) async fn own_loan_and_waiting(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<(LoanView, bool), Error> {
    let read =
        s.db.own_order(&borrower.id, order_no.trim(), true)
            .await?
            .ok_or(Error::NotFound)?;
    let (order, plan) = with_plan(Some(read.row.loan))?;
    let view = match read.balances.ok_or(Error::NotFound)? {
        LoanBalancesRead::Kept(json) => LoanView {
            balances: serde_json::from_str(&json).map_err(|e| {
                anyhow::anyhow!(
                    "order {}: the kept position does not read: {e}",
                    order.order_no
                )
            })?,
            order,
            plan,
        },
        LoanBalancesRead::Ledger(stored) => replayed(order, plan, stored)?.into(),
    };
    Ok((view, read.row.waiting > 0))
}

/// The order and the plan of a row that read them together; not found before the payout.
fn with_plan(row: Option<OrderPlanRow>) -> Result<(OrderRow, Plan), Error> {
    let OrderPlanRow { order, plan_json } = row.ok_or(Error::NotFound)?;
    let plan = plan_from_json(&plan_json.ok_or(Error::NotFound)?)?;
    Ok((order, plan))
}

/// The loan of an order and its plan, its stored ledger replayed.
fn replayed(order: OrderRow, plan: Plan, stored: Vec<StoredEntry>) -> Result<Loan, Error> {
    let entries = entries_of(stored)?;
    let balances = balances_of(&plan, &entries)?;
    Ok(Loan {
        order,
        plan,
        entries,
        balances,
    })
}

/// One installment as the borrower sees it.
pub struct InstallmentView {
    pub balance: InstallmentBalance,
    pub status: InstallmentStatus,
    /// A payment for this loan waits for finance (a UTR submitted).
    pub verifying: bool,
}

/// The plan as the borrower sees it today.
pub struct PlanView {
    pub order_no: String,
    pub status: OrderState,
    pub currency: kilat_domain::Currency,
    pub payout_date: Date,
    pub today: Date,
    pub balances: LoanBalances,
    pub installments: Vec<InstallmentView>,
    pub verifying: bool,
}

/// The installment plan of the borrower's loan: its ledger's replay, as its kept position holds it ([`own_loan`]).
pub async fn plan(s: &Services, borrower: &Borrower, order_no: &str) -> Result<PlanView, Error> {
    let (loan, verifying) = own_loan_and_waiting(s, borrower, order_no).await?;
    Ok(plan_view_of(s, loan, verifying))
}

/// The plan of a loan as of today's business date.
async fn plan_view(s: &Services, loan: LoanView) -> Result<PlanView, Error> {
    let verifying = s.db.order_has_verifying_payment(&loan.order.id).await?;
    Ok(plan_view_of(s, loan, verifying))
}

/// [`plan_view`] when whether a payment waits for finance is known (`verifying`).
fn plan_view_of(s: &Services, loan: LoanView, verifying: bool) -> PlanView {
    let today = loan.today(s);
    let installments = loan
        .balances
        .installments
        .iter()
        .map(|b| InstallmentView {
            status: b.status(today),
            balance: b.clone(),
            verifying,
        })
        .collect();
    PlanView {
        order_no: loan.order.order_no.clone(),
        status: loan.order.status,
        currency: loan.order.currency,
        payout_date: loan.plan.payout_date(),
        today,
        installments,
        verifying,
        balances: loan.balances,
    }
}

/// One entry of a loan's ledger with what it added to the installments, summed over its lines.
pub struct EntryView {
    pub seq: u64,
    pub entry: LedgerEntry,
    pub due: kilat_domain::Buckets,
    pub paid: kilat_domain::Buckets,
}

/// Everything about a paid-out loan an operator sees: the payout, the plan replayed from the ledger, the payments and
/// the ledger's entries.
pub struct LoanRecord {
    pub payout_date: Date,
    /// The payout as recorded; null only for a loan written without one.
    pub payout: Option<PayoutRow>,
    pub plan: PlanView,
    pub payments: Vec<payments::Payment>,
    pub entries: Vec<EntryView>,
}

/// The loan of an order for the console, or `None` before payout. The caller checks the operator's roles.
pub async fn record(s: &Services, order: OrderRow) -> Result<Option<LoanRecord>, Error> {
    let loan = match load(s, order).await {
        Ok(loan) => loan,
        // Not paid out: no loan row.
        Err(Error::NotFound) => return Ok(None),
        Err(e) => return Err(e),
    };
    let internal = |e: kilat_domain::Error| Error::Internal(e.into());
    let entries = loan
        .entries
        .iter()
        .enumerate()
        .map(|(seq, entry)| {
            let (mut due, mut paid) = (
                kilat_domain::Buckets::default(),
                kilat_domain::Buckets::default(),
            );
            for line in &entry.lines {
                due = due.plus(line.due).map_err(internal)?;
                paid = paid.plus(line.paid).map_err(internal)?;
            }
            Ok(EntryView {
                seq: seq as u64,
                entry: entry.clone(),
                due,
                paid,
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let payout = s.db.payout(&loan.order.id).await?;
    let payment_rows = s.db.payments_of_order(&loan.order.id).await?;
    let payments = payment_rows
        .into_iter()
        .map(|row| payments::payment_of(s, row))
        .collect::<Result<Vec<_>, Error>>()?;
    let payout_date = loan.plan.payout_date();
    Ok(Some(LoanRecord {
        payout_date,
        payout,
        plan: plan_view(s, loan.into()).await?,
        payments,
        entries,
    }))
}

/// One installment of the plan by its number (1-based); a number the plan does not have is not found.
pub async fn installment(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    number: u32,
) -> Result<(PlanView, InstallmentView), Error> {
    let mut view = plan(s, borrower, order_no).await?;
    let index = view
        .installments
        .iter()
        .position(|i| i.balance.number == number)
        .ok_or(Error::NotFound)?;
    let one = view.installments.remove(index);
    Ok((view, one))
}

/// The longest comment with a rating.
pub const MAX_COMMENT_CHARS: usize = 500;

/// The borrower rates an ended loan (repaid, or exited in cooling-off), once: a score from 1 to 5 and an optional
/// comment. An order still open is `invalid_transition`; a second rating is `already_rated`.
pub async fn rate(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    score: Option<i64>,
    comment: Option<&str>,
) -> Result<(), Error> {
    let mut errors = FieldErrors::default();
    match score {
        None => errors.add("score", FieldProblem::required()),
        Some(n) if !(1..=5).contains(&n) => {
            errors.add("score", FieldProblem::new("field.rating_score"))
        }
        Some(_) => {}
    }
    let comment = comment.map(str::trim).filter(|c| !c.is_empty());
    if comment.is_some_and(|c| c.chars().count() > MAX_COMMENT_CHARS) {
        errors.add("comment", FieldProblem::too_long(MAX_COMMENT_CHARS));
    }
    errors.into_result()?;
    let order = orders::own(s, borrower, order_no).await?;
    if !matches!(
        order.status,
        OrderState::Repaid | OrderState::ExitedInCoolingOff
    ) {
        return Err(Refusal::InvalidTransition.into());
    }
    // The comment is free text: written only while the account is live (its deletion clears it).
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    if !tx
        .insert_rating(
            &order.id,
            score.unwrap_or_default(),
            comment,
            s.clock.now_ms(),
        )
        .await?
    {
        return Err(Refusal::AlreadyRated.into());
    }
    tx.commit().await?;
    Ok(())
}
