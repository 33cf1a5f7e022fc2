//! The borrower's loan after payout (docs/API-BORROWER.md, "Servicing"): the installment plan and one installment,
//! the repayment choices with their amounts, the payment types, payments with their instructions, and UTR
//! submission. Every read is scoped to the signed-in borrower.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use kilat_domain::{Buckets, Currency, EntryKind, InstallmentStatus, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::Session;
use crate::error::{Error, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::servicing::payments::{
    self, Instructions, Payment, PaymentMethod, PaymentRequest, PaymentStatus, Priced,
    RepaymentChoice,
};
use crate::servicing::{self, InstallmentView, PlanView};

/// Where an installment stands today.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum InstallmentState {
    /// Before its due date.
    Upcoming,
    /// Due today.
    Due,
    /// Past its due date with something outstanding.
    Overdue,
    /// Nothing outstanding.
    Paid,
}

impl From<InstallmentStatus> for InstallmentState {
    fn from(s: InstallmentStatus) -> Self {
        match s {
            InstallmentStatus::Upcoming => Self::Upcoming,
            InstallmentStatus::Due => Self::Due,
            InstallmentStatus::Overdue => Self::Overdue,
            InstallmentStatus::Paid => Self::Paid,
        }
    }
}

/// Amounts per bucket, in minor units.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BucketsView {
    pub late_charges: i64,
    pub fees: i64,
    pub interest: i64,
    pub principal: i64,
    /// The sum of the four.
    pub total: i64,
}

impl From<Buckets> for BucketsView {
    fn from(b: Buckets) -> Self {
        let (l, f, i, p) = (
            b.late_charges.minor(),
            b.fees.minor(),
            b.interest.minor(),
            b.principal.minor(),
        );
        Self {
            late_charges: l,
            fees: f,
            interest: i,
            principal: p,
            total: l.saturating_add(f).saturating_add(i).saturating_add(p),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstallmentPlanView {
    /// 1-based.
    pub seq: u32,
    /// The current due date (after any extension).
    #[schema(format = Date)]
    pub due_date: String,
    /// The due date of the plan at payout.
    #[schema(format = Date)]
    pub planned_due_date: String,
    /// What is due: principal, interest, fees and late charges posted.
    pub due: BucketsView,
    pub paid: BucketsView,
    pub outstanding: BucketsView,
    pub status: InstallmentState,
    /// True while a payment of this loan waits for finance (a submitted UTR being checked, or money held): "payment being
    /// checked"; no late charge accrues on what it pays meanwhile.
    pub verifying: bool,
}

impl From<&InstallmentView> for InstallmentPlanView {
    fn from(i: &InstallmentView) -> Self {
        Self {
            seq: i.balance.number,
            due_date: i.balance.due_date.to_string(),
            planned_due_date: i.balance.planned_due_date.to_string(),
            due: i.balance.due.into(),
            paid: i.balance.paid.into(),
            outstanding: i.balance.outstanding.into(),
            status: i.status.into(),
            verifying: i.verifying,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoanPlanView {
    pub order_no: String,
    pub status: OrderState,
    /// Of every amount, in its minor unit.
    pub currency: Currency,
    #[schema(format = Date)]
    pub payout_date: String,
    /// The market's business date the statuses are for.
    #[schema(format = Date)]
    pub today: String,
    /// Principal paid out plus fees kept (the sanctioned amount).
    pub principal: i64,
    /// The net amount sent to the borrower's account.
    pub paid_out: i64,
    /// Fees kept from the payout, less any a settlement gave back (zero after a cooling-off exit).
    pub fees_kept: i64,
    /// Fees kept at payout that a settlement gave back (a cooling-off exit), netted from what the borrower paid.
    pub fees_refunded: i64,
    /// Everything the borrower has paid for the loan: the cash received (less any excess owed back) and the fees kept
    /// from the payout.
    pub paid_in_all: i64,
    pub due: BucketsView,
    pub paid: BucketsView,
    pub outstanding: BucketsView,
    pub extensions_granted: u32,
    /// True while a submitted UTR waits for finance: "payment being checked".
    pub verifying: bool,
    /// How the loan ended (`payoff`, `cooling_off_exit`); null while open or repaid by installments.
    #[schema(required = true, value_type = Option<String>)]
    pub closed_by: Option<EntryKind>,
    pub installments: Vec<InstallmentPlanView>,
}

impl From<&PlanView> for LoanPlanView {
    fn from(p: &PlanView) -> Self {
        Self {
            order_no: p.order_no.clone(),
            status: p.status,
            currency: p.currency,
            payout_date: p.payout_date.to_string(),
            today: p.today.to_string(),
            principal: p.balances.principal.minor(),
            paid_out: p.balances.paid_out.minor(),
            fees_kept: p.balances.fees_kept.minor(),
            fees_refunded: p.balances.refunded.minor(),
            paid_in_all: p.balances.paid_in_all().map_or(0, |m| m.minor()),
            due: p.balances.due.into(),
            paid: p.balances.paid.into(),
            outstanding: p.balances.outstanding.into(),
            extensions_granted: p.balances.extensions_granted,
            verifying: p.verifying,
            closed_by: p.balances.closed_by,
            installments: p.installments.iter().map(Into::into).collect(),
        }
    }
}

/// The installment plan of a paid-out loan: each installment's due date, what is due (principal, interest, fees,
/// late charges), paid, outstanding and status, replayed from the ledger.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/plan", tag = "borrower",
    operation_id = "borrower_plan",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<LoanPlanView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower, or not paid out yet", body = ErrorBody)))]
pub async fn plan(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<LoanPlanView>>, ApiError> {
    let view = servicing::plan(&state.services, &session.borrower, &order_no).await?;
    Ok(Envelope::ok((&view).into()))
}

/// One installment of the plan, by its number (1-based).
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/plan/{seq}", tag = "borrower",
    operation_id = "borrower_plan_installment",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q"),
        ("seq" = u32, Path, description = "The installment's number, from 1")),
    responses((status = 200, body = Envelope<InstallmentPlanView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower, not paid out, or no such installment", body = ErrorBody)))]
pub async fn plan_installment(
    State(state): State<AppState>,
    session: Session,
    Path((order_no, seq)): Path<(String, String)>,
) -> Result<Json<Envelope<InstallmentPlanView>>, ApiError> {
    let number: u32 = seq.trim().parse().map_err(|_| Error::NotFound)?;
    let (_, one) =
        servicing::installment(&state.services, &session.borrower, &order_no, number).await?;
    Ok(Envelope::ok((&one).into()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    pub choice: RepaymentChoice,
    /// Minor units: exactly what to pay for this choice today.
    pub amount: i64,
    /// The installment it is for (`due`: the oldest it pays; `extension`: the one that moves); null otherwise.
    #[schema(required = true)]
    pub installment: Option<u32>,
    /// `due`: the latest due date it covers; `extension`: the new due date. Null otherwise.
    #[schema(required = true, format = Date)]
    pub due_date: Option<String>,
    /// `due`: what the installments it covers ask on their due date. Before that date `amount` may be less (paid
    /// early, interest only for the days used); null for the other choices.
    #[schema(required = true)]
    pub amount_on_due_date: Option<i64>,
}

impl ChoiceView {
    /// The choice as the borrower reads it, with what a `due` payment would be on its date (`balances`'s outstanding
    /// of the installments it covers).
    fn of(p: &Priced, balances: &kilat_domain::LoanBalances) -> Self {
        let on_due_date = match (p.choice, p.installment, p.installment_to) {
            (RepaymentChoice::Due, Some(first), Some(last)) => {
                balances.outstanding_of(first, last).ok().map(|m| m.minor())
            }
            _ => None,
        };
        Self {
            choice: p.choice,
            amount: p.amount.minor(),
            installment: p.installment,
            due_date: p.due_date.map(|d| d.to_string()),
            amount_on_due_date: on_due_date,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepaymentView {
    pub order_no: String,
    pub status: OrderState,
    pub currency: Currency,
    #[schema(format = Date)]
    pub today: String,
    /// Everything outstanding, in minor units.
    pub outstanding: i64,
    /// True while a submitted UTR waits for finance: "payment being checked".
    pub verifying: bool,
    /// The choices the loan offers today, in the order `due`, `payoff`, `cooling_off`, `extension`; empty when
    /// there is nothing to pay.
    pub choices: Vec<ChoiceView>,
    /// What is past its due date, in its parts, with tomorrow's late charge; null when nothing is.
    #[schema(required = true)]
    pub arrears: Option<ArrearsView>,
    /// The cooling-off exit in its parts and its last day, while the loan offers it; null otherwise.
    #[schema(required = true)]
    pub cooling_off: Option<CoolingOffView>,
    /// The payment whose UTR waits for finance; null when none does.
    #[schema(required = true)]
    pub verifying_payment: Option<VerifyingPaymentView>,
}

/// What is past its due date today (minor units), from the money engine: the parts, the days late, and what the
/// overdue job adds tomorrow if nothing is paid.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArrearsView {
    /// The oldest installment past its due date.
    pub installment: u32,
    /// The latest one (equal to `installment` when one is late).
    pub installment_to: u32,
    /// The oldest one's due date.
    #[schema(format = Date)]
    pub due_date: String,
    pub days_late: i64,
    /// Principal, interest and fees of the installments past their due date.
    pub owed: i64,
    /// Late charges posted on them, unpaid.
    pub late_charges: i64,
    /// `owed + lateCharges`.
    pub total: i64,
    /// The late charge added tomorrow if nothing is paid (0: it does not grow tomorrow).
    pub late_charge_tomorrow: i64,
    /// The most the late charge can still add to these installments (0: it no longer grows).
    pub late_charge_more_at_most: i64,
}

impl From<kilat_domain::Arrears> for ArrearsView {
    fn from(a: kilat_domain::Arrears) -> Self {
        Self {
            installment: a.first,
            installment_to: a.last,
            due_date: a.due_date.to_string(),
            days_late: a.days_late,
            owed: a.owed.minor(),
            late_charges: a.late_charges.minor(),
            total: a.total.minor(),
            late_charge_tomorrow: a.late_charge_tomorrow.minor(),
            late_charge_more_at_most: a.late_charge_more_at_most.minor(),
        }
    }
}

/// The cooling-off exit (minor units): `principal + interest − feesRefunded − repaid = amount`, open until `openUntil`.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoolingOffView {
    pub days_used: i64,
    pub principal: i64,
    /// Interest for the days used.
    pub interest: i64,
    /// Fees kept at payout, given back.
    pub fees_refunded: i64,
    /// What the borrower repaid before (an installment paid early), counted towards the exit.
    pub repaid: i64,
    /// What to pay: the `cooling_off` choice's amount.
    pub amount: i64,
    /// The last day the exit is open (the market's date).
    #[schema(format = Date)]
    pub open_until: String,
}

impl From<kilat_domain::CoolingOffOffer> for CoolingOffView {
    fn from(c: kilat_domain::CoolingOffOffer) -> Self {
        Self {
            days_used: c.days_used,
            principal: c.principal.minor(),
            interest: c.interest.minor(),
            fees_refunded: c.fees_refunded.minor(),
            repaid: c.repaid.minor(),
            amount: c.amount.minor(),
            open_until: c.open_until.to_string(),
        }
    }
}

/// A payment whose UTR waits for finance ("payment being checked").
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VerifyingPaymentView {
    pub payment_id: String,
    pub method: PaymentMethod,
    pub choice: RepaymentChoice,
    /// Minor units asked.
    pub amount: i64,
    pub utr: String,
    /// When the UTR was submitted, epoch milliseconds.
    pub submitted_at: i64,
    /// The day finance checks it by (working days from the settings, the market's holidays skipped).
    #[schema(format = Date)]
    pub check_by: String,
    /// How many more times the borrower may correct the UTR (`PUT /payments/{paymentId}/utr`).
    pub corrections_left: i64,
}

impl From<payments::VerifyingUtr> for VerifyingPaymentView {
    fn from(v: payments::VerifyingUtr) -> Self {
        Self {
            payment_id: v.payment.row.id,
            method: v.payment.method,
            choice: v.payment.choice,
            amount: v.payment.row.amount,
            utr: v.payment.row.utr.unwrap_or_default(),
            submitted_at: v.submitted_at,
            check_by: v.check_by.to_string(),
            corrections_left: v.corrections_left,
        }
    }
}

/// Whether to repay and how: this installment, everything (a payoff quote for today), the cooling-off exit while it
/// is open, and an extension where the product allows one, each with its exact amount.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/repayment", tag = "borrower",
    operation_id = "borrower_repayment",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<RepaymentView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower, or not paid out yet", body = ErrorBody)))]
pub async fn repayment(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<RepaymentView>>, ApiError> {
    let r = payments::repayment(&state.services, &session.borrower, &order_no).await?;
    Ok(Envelope::ok(RepaymentView {
        order_no: r.loan.order.order_no.clone(),
        status: r.loan.order.status,
        currency: r.loan.order.currency,
        today: r.today.to_string(),
        outstanding: r.loan.balances.outstanding.total().map_or(0, |m| m.minor()),
        verifying: r.verifying,
        choices: r
            .choices
            .iter()
            .map(|c| ChoiceView::of(c, &r.loan.balances))
            .collect(),
        arrears: r.arrears.map(Into::into),
        cooling_off: r.cooling_off.map(Into::into),
        verifying_payment: r.verifying_utr.map(Into::into),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstructionsView {
    pub method: PaymentMethod,
    /// Who the money goes to: the name the bank or UPI app shows.
    pub payee_name: String,
    /// The lender, when `payeeName` is another company collecting payments for it ("PT Kilat Finansial Indonesia
    /// collects payments for PT Kilat Dana Indonesia"); null when the payee is the lender.
    #[schema(required = true)]
    pub collects_for: Option<String>,
    /// `upi`: the collection UPI id.
    #[schema(required = true)]
    pub upi_id: Option<String>,
    /// `upi`, on a payment: a `upi://pay` link with the amount and the reference.
    #[schema(required = true)]
    pub upi_uri: Option<String>,
    /// `bank_transfer`: the collection account.
    #[schema(required = true)]
    pub bank_name: Option<String>,
    #[schema(required = true)]
    pub account_number: Option<String>,
    #[schema(required = true)]
    pub ifsc: Option<String>,
    /// `virtual_account`: the bank.
    #[schema(required = true)]
    pub bank_code: Option<String>,
    /// `virtual_account`, on a payment: the account number to transfer to.
    #[schema(required = true)]
    pub virtual_account: Option<String>,
    /// `dragonpay`: where the payment's reference can be paid (outlets, banks); empty for the other types.
    pub channels: Vec<String>,
    /// On a payment whose instructions expire (a virtual account, a Dragonpay reference): when, epoch milliseconds;
    /// null otherwise.
    #[schema(required = true)]
    pub expires_at: Option<i64>,
}

impl From<Instructions> for InstructionsView {
    fn from(i: Instructions) -> Self {
        Self {
            method: i.method,
            payee_name: i.payee_name,
            collects_for: i.collects_for,
            upi_id: i.upi_id,
            upi_uri: i.upi_uri,
            bank_name: i.bank_name,
            account_number: i.account_number,
            ifsc: i.ifsc,
            bank_code: i.bank_code,
            virtual_account: i.virtual_account,
            channels: i.channels,
            expires_at: i.expires_at,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct PaymentTypesQuery {
    /// The order to pay for (required).
    #[param(required = true)]
    pub order_no: Option<String>,
}

/// The payment types of the order's market, from the settings: India UPI and bank transfer to the collection
/// account; Indonesia a virtual account (its number comes with each payment); Dragonpay where the settings offer it
/// (its reference and expiry come with each payment).
#[utoipa::path(get, path = "/api/v1/borrower/payment-types", tag = "borrower",
    operation_id = "borrower_payment_types",
    security(("session_header" = []), ("session_cookie" = [])), params(PaymentTypesQuery),
    responses((status = 200, body = Envelope<Vec<InstructionsView>>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower", body = ErrorBody),
        (status = 422, description = "validation_failed: `orderNo`", body = ErrorBody)))]
pub async fn payment_types(
    State(state): State<AppState>,
    session: Session,
    ApiQuery(query): ApiQuery<PaymentTypesQuery>,
) -> Result<Json<Envelope<Vec<InstructionsView>>>, ApiError> {
    let order_no = query
        .order_no
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Error::field("orderNo", FieldProblem::required()))?;
    let s = &state.services;
    let methods = payments::payment_types(s, &session.borrower, order_no).await?;
    Ok(Envelope::ok(
        methods
            .into_iter()
            .map(|m| payments::method_instructions(s, session.borrower.market, m).into())
            .collect(),
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentCreateRequest {
    #[schema(value_type = RepaymentChoice, required = true)]
    pub choice: Option<String>,
    #[schema(value_type = PaymentMethod, required = true)]
    pub method: Option<String>,
    /// 8 to 64 characters `[A-Za-z0-9_-]`; or the `Idempotency-Key` header (which wins).
    #[schema(nullable = false)]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentView {
    pub payment_id: String,
    pub order_no: String,
    pub choice: RepaymentChoice,
    pub method: PaymentMethod,
    /// Minor units: the amount to pay, priced on `pricedOn`.
    pub amount: i64,
    pub currency: Currency,
    #[schema(format = Date)]
    pub priced_on: String,
    pub status: PaymentStatus,
    /// Quote it with the transfer (UPI note, bank remarks).
    pub reference: String,
    /// The UTR submitted; null before.
    #[schema(required = true)]
    pub utr: Option<String>,
    /// Finance's reason when rejected; null otherwise.
    #[schema(required = true)]
    pub reason: Option<String>,
    /// Minor units received, once known (a provider's callback or finance); null before.
    #[schema(required = true)]
    pub received_amount: Option<i64>,
    /// The currency of the money received when a provider reported another than `currency` (held, sent back through
    /// the provider); null otherwise.
    #[schema(required = true)]
    pub received_currency: Option<String>,
    /// Minor units the lender owes back (`refund_due`: to be sent; `refunded`: sent); null otherwise.
    #[schema(required = true)]
    pub refund_amount: Option<i64>,
    /// The bank's reference of the refund once sent; null before.
    #[schema(required = true)]
    pub refund_reference: Option<String>,
    pub instructions: InstructionsView,
    /// Epoch milliseconds.
    pub created_at: i64,
}

impl From<Payment> for PaymentView {
    fn from(p: Payment) -> Self {
        let received_currency = p.row.foreign_currency().map(str::to_owned);
        Self {
            payment_id: p.row.id,
            order_no: p.row.order_no,
            choice: p.choice,
            method: p.method,
            amount: p.row.amount,
            currency: p.row.currency,
            priced_on: p.row.priced_on,
            status: p.status,
            reference: p.row.reference,
            utr: p.row.utr,
            reason: p.row.decision_reason,
            received_currency,
            received_amount: p.row.received_amount,
            refund_amount: p.row.refund_amount,
            refund_reference: p.row.refund_reference,
            instructions: p.instructions.into(),
            created_at: p.row.created_at,
        }
    }
}

/// Starts a payment for a repayment choice, priced now, with its instructions and a reference unique to it.
/// Idempotent on `Idempotency-Key`: a retry answers the same payment. A virtual account is created by the provider
/// before the payment is stored (the same account for a retry); Dragonpay answers its payment instructions (the
/// reference to quote, the amount, where to pay, the expiry). A provider down or slow is `503 provider_unavailable`
/// and stores nothing.
#[utoipa::path(post, path = "/api/v1/borrower/orders/{orderNo}/payments", tag = "borrower",
    operation_id = "borrower_create_payment",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q"),
        ("Idempotency-Key" = Option<String>, Header, description = "8 to 64 characters [A-Za-z0-9_-], once per payment")),
    request_body(content((PaymentCreateRequest = "application/json"), (PaymentCreateRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such order of this borrower, or not paid out yet", body = ErrorBody),
        (status = 409, description = "choice_unavailable or idempotency_key_reused", body = ErrorBody),
        (status = 422, description = "validation_failed: `choice`, `method` or `Idempotency-Key`", body = ErrorBody),
        (status = 429, description = "rate_limited: `[limits] payments_per_day` payments started today; see Retry-After", body = ErrorBody),
        (status = 503, description = "provider_unavailable: the virtual-account provider is down or slow; nothing was stored", body = ErrorBody)))]
pub async fn create_payment(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
    headers: HeaderMap,
    JsonOrForm(req): JsonOrForm<PaymentCreateRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let header_key = headers.get("idempotency-key").and_then(|v| v.to_str().ok());
    let payment = payments::create(
        &state.services,
        &session.borrower,
        &order_no,
        &PaymentRequest {
            choice: req.choice.as_deref(),
            method: req.method.as_deref(),
            idempotency_key: header_key.or(req.idempotency_key.as_deref()),
        },
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}

/// The payments of the borrower's loan, oldest first, each with its status: what it asked, what arrived, and what
/// became of it (credited, held for finance, owed back with `refundAmount`, refunded with `refundReference`).
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/payments", tag = "borrower",
    operation_id = "borrower_loan_payments",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path)),
    responses((status = 200, body = Envelope<Vec<PaymentView>>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower", body = ErrorBody)))]
pub async fn loan_payments(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<Vec<PaymentView>>>, ApiError> {
    let payments = payments::of_loan(&state.services, &session.borrower, &order_no).await?;
    Ok(Envelope::ok(payments.into_iter().map(Into::into).collect()))
}

/// One of the borrower's payments, with its instructions and status.
#[utoipa::path(get, path = "/api/v1/borrower/payments/{paymentId}", tag = "borrower",
    operation_id = "borrower_payment",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("paymentId" = String, Path)),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such payment of this borrower", body = ErrorBody)))]
pub async fn payment(
    State(state): State<AppState>,
    session: Session,
    Path(payment_id): Path<String>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::own_payment(&state.services, &session.borrower, &payment_id).await?;
    Ok(Envelope::ok(payment.into()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct UtrRequest {
    /// UPI: 12 digits. Bank transfer: 12 digits (IMPS) or 16 or 22 letters and digits (NEFT, RTGS).
    #[schema(value_type = String, required = true, example = "412345678901")]
    pub utr: Option<String>,
}

/// Submits the UTR of the borrower's transfer: the payment waits for finance ("transfer reported, being checked").
#[utoipa::path(post, path = "/api/v1/borrower/payments/{paymentId}/utr", tag = "borrower",
    operation_id = "borrower_submit_utr",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((UtrRequest = "application/json"), (UtrRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such payment of this borrower", body = ErrorBody),
        (status = 409, description = "utr_already_used, or payment_not_open (a UTR already submitted, or a virtual-account payment)", body = ErrorBody),
        (status = 422, description = "validation_failed: `utr`", body = ErrorBody)))]
pub async fn submit_utr(
    State(state): State<AppState>,
    session: Session,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<UtrRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::submit_utr(
        &state.services,
        &session.borrower,
        &payment_id,
        req.utr.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}

/// Corrects the UTR of a payment waiting for finance (a mistyped number), while finance has not acted: with the
/// order locked, as finance's decision is, so one of the two goes first. The UTR replaced is freed; the new one
/// follows the same format and uniqueness rules. The same UTR again answers the payment as it stands.
#[utoipa::path(put, path = "/api/v1/borrower/payments/{paymentId}/utr", tag = "borrower",
    operation_id = "borrower_correct_utr",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("paymentId" = String, Path)),
    request_body(content((UtrRequest = "application/json"), (UtrRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such payment of this borrower", body = ErrorBody),
        (status = 409, description = "utr_locked (finance confirmed or rejected the payment), utr_corrections_exhausted, utr_already_used, or payment_not_open (no UTR submitted yet, or a payment without one)", body = ErrorBody),
        (status = 422, description = "validation_failed: `utr`", body = ErrorBody)))]
pub async fn correct_utr(
    State(state): State<AppState>,
    session: Session,
    Path(payment_id): Path<String>,
    JsonOrForm(req): JsonOrForm<UtrRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let payment = payments::correct_utr(
        &state.services,
        &session.borrower,
        &payment_id,
        req.utr.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisedInstallment {
    pub seq: u32,
    #[schema(format = Date)]
    pub due_date: String,
    pub principal: i64,
    pub interest: i64,
    pub fees: i64,
    /// The installment's scheduled amount (principal, interest and fees).
    pub amount: i64,
    /// Paid of it so far (late charges included).
    pub paid: i64,
    /// Late charges posted on it and not paid: the extension does not take them away.
    pub late_charges: i64,
    /// What is asked on its due date: the scheduled amount less what was paid, plus the late charges owed.
    pub to_pay: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionView {
    pub order_no: String,
    pub currency: Currency,
    /// The installment whose due date moves.
    pub installment: u32,
    /// Days it moves.
    pub days: u32,
    /// Minor units: the fee with tax, paid before the date moves; nothing else changes.
    pub fee: i64,
    #[schema(format = Date)]
    pub current_due_date: String,
    #[schema(format = Date)]
    pub new_due_date: String,
    /// Extensions granted so far.
    pub extensions_granted: u32,
    /// The schedule once the fee is paid: this installment and the later ones moved by `days`, the amounts unchanged;
    /// each with what is asked on its date (`toPay`: less what was paid, with the late charges owed).
    pub revised_schedule: Vec<RevisedInstallment>,
}

/// The extension ("repay delay") the loan offers today: the fee, the new due date and the revised schedule, shown
/// before the borrower accepts.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/extension", tag = "borrower",
    operation_id = "borrower_extension",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, body = Envelope<ExtensionView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such order of this borrower, or not paid out yet", body = ErrorBody),
        (status = 409, description = "choice_unavailable: no extension now (the product has none, the maximum is reached, or the loan is closed); extension_over_cap: with its fee the loan would cost more than an OJK cap allows (`msg` names the cost and the cap); payment_waiting: a payment of the loan waits for finance (a UTR being checked, an amount held)", body = ErrorBody)))]
pub async fn extension(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<ExtensionView>>, ApiError> {
    let (loan, priced) =
        payments::extension_offer(&state.services, &session.borrower, &order_no).await?;
    let quote = priced
        .extension
        .ok_or_else(|| anyhow::anyhow!("an extension price without its quote"))?;
    let current = loan
        .balances
        .installments
        .iter()
        .find(|i| i.number == quote.installment)
        .map(|i| i.due_date.to_string())
        .unwrap_or_default();
    Ok(Envelope::ok(ExtensionView {
        order_no: loan.order.order_no.clone(),
        currency: loan.order.currency,
        installment: quote.installment,
        days: quote.days,
        fee: quote.fee.total.minor(),
        current_due_date: current,
        new_due_date: priced.due_date.map(|d| d.to_string()).unwrap_or_default(),
        extensions_granted: loan.balances.extensions_granted,
        revised_schedule: quote
            .revised
            .iter()
            .map(|i| {
                // What the loan's ledger says of it now: the extension moves its date, not what is owed.
                let now = loan
                    .balances
                    .installments
                    .iter()
                    .find(|b| b.number == i.number);
                let (paid, late_charges, to_pay) = match now {
                    Some(b) => (
                        b.paid.total()?.minor(),
                        b.outstanding.late_charges.minor(),
                        b.outstanding.total()?.minor(),
                    ),
                    None => (0, 0, i.amount.minor()),
                };
                Ok(RevisedInstallment {
                    seq: i.number,
                    due_date: i.due_date.to_string(),
                    principal: i.principal.minor(),
                    interest: i.interest.minor(),
                    fees: i.fees.minor(),
                    amount: i.amount.minor(),
                    paid,
                    late_charges,
                    to_pay,
                })
            })
            .collect::<Result<_, kilat_domain::Error>>()
            .map_err(crate::error::Error::Loan)?,
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExtensionAcceptRequest {
    #[schema(value_type = PaymentMethod, required = true)]
    pub method: Option<String>,
    /// 8 to 64 characters `[A-Za-z0-9_-]`; or the `Idempotency-Key` header (which wins).
    #[schema(nullable = false)]
    pub idempotency_key: Option<String>,
}

/// Accepts the extension: starts the payment of its fee (as `POST /orders/{orderNo}/payments` with `choice:
/// extension`); the due date moves when the fee is paid.
#[utoipa::path(post, path = "/api/v1/borrower/orders/{orderNo}/extension", tag = "borrower",
    operation_id = "borrower_accept_extension",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q"),
        ("Idempotency-Key" = Option<String>, Header, description = "8 to 64 characters [A-Za-z0-9_-], once per payment")),
    request_body(content((ExtensionAcceptRequest = "application/json"), (ExtensionAcceptRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<PaymentView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such order of this borrower, or not paid out yet", body = ErrorBody),
        (status = 409, description = "choice_unavailable, extension_over_cap, payment_waiting (an extension while a payment of the loan waits for finance) or idempotency_key_reused", body = ErrorBody),
        (status = 422, description = "validation_failed: `method` or `Idempotency-Key`", body = ErrorBody),
        (status = 503, description = "provider_unavailable: the virtual-account provider is down or slow; nothing was stored", body = ErrorBody)))]
pub async fn accept_extension(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
    headers: HeaderMap,
    JsonOrForm(req): JsonOrForm<ExtensionAcceptRequest>,
) -> Result<Json<Envelope<PaymentView>>, ApiError> {
    let header_key = headers.get("idempotency-key").and_then(|v| v.to_str().ok());
    let payment = payments::create(
        &state.services,
        &session.borrower,
        &order_no,
        &PaymentRequest {
            choice: Some("extension"),
            method: req.method.as_deref(),
            idempotency_key: header_key.or(req.idempotency_key.as_deref()),
        },
    )
    .await?;
    Ok(Envelope::ok(payment.into()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct RatingRequest {
    /// 1 to 5.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 5, example = 5)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub score: Option<i64>,
    /// At most 500 characters.
    #[schema(nullable = false)]
    pub comment: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RatingSaved {
    pub order_no: String,
    pub score: i64,
}

/// The borrower rates a loan that has ended (repaid, or exited in cooling-off), once.
#[utoipa::path(post, path = "/api/v1/borrower/orders/{orderNo}/rating", tag = "borrower",
    operation_id = "borrower_rate_order",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    request_body(content((RatingRequest = "application/json"), (RatingRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<RatingSaved>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such order of this borrower", body = ErrorBody),
        (status = 409, description = "invalid_transition (the loan has not ended) or already_rated", body = ErrorBody),
        (status = 422, description = "validation_failed: `score` or `comment`", body = ErrorBody)))]
pub async fn rate(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<RatingRequest>,
) -> Result<Json<Envelope<RatingSaved>>, ApiError> {
    servicing::rate(
        &state.services,
        &session.borrower,
        &order_no,
        req.score,
        req.comment.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(RatingSaved {
        order_no: order_no.trim().to_owned(),
        score: req.score.unwrap_or_default(),
    }))
}
