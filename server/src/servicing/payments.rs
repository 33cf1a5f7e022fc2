//! Repayments: the choices a borrower has today, priced by the money engine (this installment, the payoff, the
//! cooling-off exit while it is open, an extension where the product allows one); the payment types of each market
//! (India: UPI or bank transfer to the collection account; Indonesia: a virtual account from a provider); payments
//! with a reference unique to each, idempotent on the client's key; UTR submission; and finance's queue, confirm
//! and reject. A confirmation posts the payment's ledger entry and any status change in one transaction, once; an
//! amount other than the payment's is held for finance, never credited.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use kilat_domain::{
    Code, EntryKind, ExtensionQuote, LedgerEntry, Market, Money, OrderEvent, OrderState,
    allocate_repayment, cooling_off_settlement, extend, payoff,
};
use serde::{Deserialize, Serialize};
use time::Date;
use utoipa::ToSchema;

use super::payout::{ManualPayout, PayoutProvider};
use super::xendit::XenditVirtualAccounts;
use super::{Loan, load, load_in, own_loan, post};
use crate::auth::Borrower;
use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::orders::{self, Actor};
use crate::services::Services;
use crate::settings::PaymentSettings;
use crate::store::Tx;
use crate::store::audit::NewAuditEntry;
use crate::store::loans::{date_code, parse_date};
use crate::store::payments::{Issued, NewPayment, PaymentMove, PaymentRow};

/// Who works the repayment queue and decides on payments.
pub const FINANCE_ROLES: &[Role] = &[Role::Finance];
/// The longest reason finance may give for a rejection.
pub const MAX_REASON_CHARS: usize = 500;
const QUEUE_LIMIT: i64 = 200;

/// What a payment pays for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RepaymentChoice {
    /// What is due now: every installment past its due date, or else the next one.
    Due,
    /// Everything, as a payoff quote for today (no prepayment charge).
    Payoff,
    /// The cooling-off exit: principal and the interest for the days used.
    CoolingOff,
    /// The extension fee of the installment due next, which moves its due date.
    Extension,
}

impl Code for RepaymentChoice {
    const ALL: &'static [Self] = &[
        RepaymentChoice::Due,
        RepaymentChoice::Payoff,
        RepaymentChoice::CoolingOff,
        RepaymentChoice::Extension,
    ];

    fn code(self) -> &'static str {
        match self {
            RepaymentChoice::Due => "due",
            RepaymentChoice::Payoff => "payoff",
            RepaymentChoice::CoolingOff => "cooling_off",
            RepaymentChoice::Extension => "extension",
        }
    }
}

/// How the borrower pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentMethod {
    /// India: UPI to the collection account's UPI id; the UTR is 12 digits.
    Upi,
    /// India: IMPS, NEFT or RTGS to the collection account; the UTR is 12 digits (IMPS) or 16 or 22 letters and
    /// digits (NEFT, RTGS).
    BankTransfer,
    /// Indonesia: a transfer to the payment's virtual account.
    VirtualAccount,
    /// Dragonpay, where the settings offer it: the payment's reference paid at an outlet before it expires, credited
    /// by Dragonpay's postback.
    Dragonpay,
}

impl Code for PaymentMethod {
    const ALL: &'static [Self] = &[
        PaymentMethod::Upi,
        PaymentMethod::BankTransfer,
        PaymentMethod::VirtualAccount,
        PaymentMethod::Dragonpay,
    ];

    fn code(self) -> &'static str {
        match self {
            PaymentMethod::Upi => "upi",
            PaymentMethod::BankTransfer => "bank_transfer",
            PaymentMethod::VirtualAccount => "virtual_account",
            PaymentMethod::Dragonpay => "dragonpay",
        }
    }
}

impl PaymentMethod {
    /// The payment types of a market as the settings offer them, in the order shown: India UPI and bank transfer,
    /// Indonesia the virtual account; then Dragonpay where the market offers it and its postback is enabled.
    pub fn of_market(settings: &PaymentSettings, market: Market) -> Vec<PaymentMethod> {
        let (mut methods, dragonpay) = match market {
            Market::India => (
                vec![PaymentMethod::Upi, PaymentMethod::BankTransfer],
                settings.india.dragonpay,
            ),
            Market::Indonesia => (
                vec![PaymentMethod::VirtualAccount],
                settings.indonesia.dragonpay,
            ),
        };
        if dragonpay && settings.dragonpay.active().is_some() {
            methods.push(PaymentMethod::Dragonpay);
        }
        methods
    }

    /// True when the borrower submits a UTR for it (India's transfers).
    pub fn takes_utr(self) -> bool {
        matches!(self, PaymentMethod::Upi | PaymentMethod::BankTransfer)
    }
}

/// Where a payment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PaymentStatus {
    /// Created; waiting for the borrower's transfer (and UTR).
    Pending,
    /// The borrower submitted a UTR; finance verifies it ("payment received, verifying").
    Verifying,
    /// Finance confirmed it; the ledger records it.
    Confirmed,
    /// Finance rejected it, with a reason.
    Rejected,
    /// The amount received differs from the payment's: held for finance, not credited.
    Held,
}

impl Code for PaymentStatus {
    const ALL: &'static [Self] = &[
        PaymentStatus::Pending,
        PaymentStatus::Verifying,
        PaymentStatus::Confirmed,
        PaymentStatus::Rejected,
        PaymentStatus::Held,
    ];

    fn code(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "pending",
            PaymentStatus::Verifying => "verifying",
            PaymentStatus::Confirmed => "confirmed",
            PaymentStatus::Rejected => "rejected",
            PaymentStatus::Held => "held",
        }
    }
}

/// A virtual account issued for one payment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualAccount {
    pub bank_code: String,
    pub number: String,
    pub account_name: String,
    /// The provider's id of the account (Xendit's), if it has one.
    pub provider_ref: Option<String>,
}

/// What a virtual account is asked for: the payment's reference (the provider's `external_id` and idempotency key,
/// so asking twice gets the same account), the amount it expects and when it stops taking payment.
#[derive(Debug, Clone, Copy)]
pub struct AccountRequest<'a> {
    pub reference: &'a str,
    /// Minor units (sen).
    pub amount: i64,
    /// Epoch milliseconds.
    pub expires_at: i64,
}

/// A provider's answer, on its way.
pub type IssueFuture<'a> =
    Pin<Box<dyn Future<Output = anyhow::Result<VirtualAccount>> + Send + 'a>>;

/// Issues virtual accounts (Indonesia): `simulated` locally (development), `xendit` by a call to the provider. A call
/// is made before the payment's transaction, never inside it; the same reference always gets the same account.
pub trait VirtualAccountProvider: Send + Sync {
    fn name(&self) -> &'static str;
    /// The account for the payment with this reference; an error when the provider is down, slow or refuses.
    fn create<'a>(&'a self, request: &'a AccountRequest<'a>) -> IssueFuture<'a>;
}

/// Development's provider: the number is the bank's prefix `8808` and twelve digits derived from the reference.
pub struct SimulatedVirtualAccounts {
    pub bank_code: String,
    pub account_name: String,
}

impl SimulatedVirtualAccounts {
    fn account_for(&self, reference: &str) -> VirtualAccount {
        let mut n: u64 = 0;
        for b in reference.bytes() {
            n = n.wrapping_mul(31).wrapping_add(u64::from(b));
        }
        VirtualAccount {
            bank_code: self.bank_code.clone(),
            number: format!("8808{:012}", n % 1_000_000_000_000),
            account_name: self.account_name.clone(),
            provider_ref: None,
        }
    }
}

impl VirtualAccountProvider for SimulatedVirtualAccounts {
    fn name(&self) -> &'static str {
        "simulated"
    }

    fn create<'a>(&'a self, request: &'a AccountRequest<'a>) -> IssueFuture<'a> {
        Box::pin(async move { Ok(self.account_for(request.reference)) })
    }
}

impl VirtualAccountProvider for XenditVirtualAccounts {
    fn name(&self) -> &'static str {
        "xendit"
    }

    fn create<'a>(&'a self, request: &'a AccountRequest<'a>) -> IssueFuture<'a> {
        Box::pin(async move {
            XenditVirtualAccounts::create(
                self,
                request.reference,
                request.amount,
                request.expires_at,
            )
            .await
        })
    }
}

/// The payment side of the services: settings per market, the payout provider, the virtual-account provider.
pub struct PaymentServices {
    pub settings: PaymentSettings,
    pub payouts: Arc<dyn PayoutProvider>,
    pub virtual_accounts: Arc<dyn VirtualAccountProvider>,
}

impl PaymentServices {
    /// The providers the settings name (`manual` payouts; `simulated` or `xendit` virtual accounts).
    pub fn from_settings(settings: &PaymentSettings) -> anyhow::Result<Self> {
        let id = &settings.indonesia;
        let virtual_accounts: Arc<dyn VirtualAccountProvider> = match id.va_provider.as_str() {
            "simulated" => Arc::new(SimulatedVirtualAccounts {
                bank_code: id.bank_code.clone(),
                account_name: id.account_name.clone(),
            }),
            "xendit" => Arc::new(XenditVirtualAccounts::new(
                &id.xendit_base_url,
                id.xendit_api_key.clone().ok_or_else(|| {
                    anyhow::anyhow!(
                        "KILAT_PAYMENTS__ID__XENDIT_API_KEY is required with va_provider = \"xendit\""
                    )
                })?,
                &id.bank_code,
                &id.account_name,
                Duration::from_millis(id.xendit_timeout_ms.max(1)),
            )?),
            other => anyhow::bail!(
                "KILAT_PAYMENTS__ID__VA_PROVIDER={other:?} is not a provider this server has: use simulated or xendit"
            ),
        };
        Ok(Self {
            settings: settings.clone(),
            payouts: Arc::new(ManualPayout),
            virtual_accounts,
        })
    }
}

/// One repayment choice priced for today.
#[derive(Debug, Clone)]
pub struct Priced {
    pub choice: RepaymentChoice,
    /// Minor units: exactly what to pay.
    pub amount: Money,
    /// The installment it is for (`due`: the oldest paid; `extension`: the one that moves).
    pub installment: Option<u32>,
    /// The due date it pays up to (`due`) or the new due date (`extension`).
    pub due_date: Option<Date>,
    /// For an extension: its price and revised schedule.
    pub extension: Option<ExtensionQuote>,
}

/// The installments a `due` payment covers: every one past or at its due date with something outstanding, or else
/// the next one.
fn due_now(loan: &Loan, today: Date) -> Option<(Money, u32, Date)> {
    let open: Vec<_> = loan
        .balances
        .installments
        .iter()
        .filter(|i| i.scheduled && !i.outstanding.is_zero())
        .collect();
    let first = open.first()?;
    let reached: Vec<_> = open.iter().filter(|i| i.due_date <= today).collect();
    let (amount, last_date) = if reached.is_empty() {
        (first.outstanding.total().ok()?, first.due_date)
    } else {
        let mut sum = Money::ZERO;
        for i in &reached {
            sum = sum.checked_add(i.outstanding.total().ok()?).ok()?;
        }
        (sum, reached.last()?.due_date)
    };
    Some((amount, first.number, last_date))
}

fn unavailable() -> Error {
    Refusal::ChoiceUnavailable.into()
}

/// Prices `choice` for the loan on `on`; a choice the loan does not offer today is `choice_unavailable`.
pub fn price(
    s: &Services,
    loan: &Loan,
    choice: RepaymentChoice,
    on: Date,
) -> Result<Priced, Error> {
    if !loan.order.status.is_active_loan() || loan.balances.closed_by.is_some() {
        return Err(unavailable());
    }
    let priced = match choice {
        RepaymentChoice::Due => {
            let (amount, number, date) = due_now(loan, on).ok_or_else(unavailable)?;
            Priced {
                choice,
                amount,
                installment: Some(number),
                due_date: Some(date),
                extension: None,
            }
        }
        RepaymentChoice::Payoff => {
            let settlement = payoff(&loan.plan, &loan.balances, on).map_err(|_| unavailable())?;
            if settlement.amount.minor() <= 0 {
                return Err(unavailable());
            }
            Priced {
                choice,
                amount: settlement.amount,
                installment: None,
                due_date: None,
                extension: None,
            }
        }
        RepaymentChoice::CoolingOff => {
            let settlement = cooling_off_settlement(&loan.plan, &loan.balances, on)
                .map_err(|_| unavailable())?;
            if settlement.amount.minor() <= 0 || loan.order.status != OrderState::Disbursed {
                return Err(unavailable());
            }
            Priced {
                choice,
                amount: settlement.amount,
                installment: None,
                due_date: None,
                extension: None,
            }
        }
        RepaymentChoice::Extension => {
            loan.plan.quote.extension.ok_or_else(unavailable)?;
            let (_, number, _) = due_now(loan, on).ok_or_else(unavailable)?;
            let (quote, _) = extend(&loan.plan, &loan.balances, number, on, s.catalog.caps())
                .map_err(|e| Error::extension_refused(e, loan.plan.quote.currency))?;
            let new_date = quote
                .revised
                .iter()
                .find(|i| i.number == number)
                .map(|i| i.due_date);
            Priced {
                choice,
                amount: quote.fee.total,
                installment: Some(number),
                due_date: new_date,
                extension: Some(quote),
            }
        }
    };
    Ok(priced)
}

/// What the borrower may pay today.
pub struct Repayment {
    pub loan: Loan,
    pub today: Date,
    pub choices: Vec<Priced>,
    /// A submitted UTR (or a held amount) waits for finance: "payment received, verifying".
    pub verifying: bool,
}

/// The repayment choices of the borrower's loan today, each with its exact amount.
pub async fn repayment(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<Repayment, Error> {
    let loan = own_loan(s, borrower, order_no).await?;
    let today = loan.today(s);
    let choices = RepaymentChoice::ALL
        .iter()
        .filter_map(|c| price(s, &loan, *c, today).ok())
        .collect();
    let verifying = s.db.order_has_verifying_payment(&loan.order.id).await?;
    Ok(Repayment {
        loan,
        today,
        choices,
        verifying,
    })
}

/// The extension the borrower's loan offers today: its fee, the installment that moves and the revised schedule.
/// A loan without one (the product allows none, the maximum is reached, closed) is `choice_unavailable`.
pub async fn extension_offer(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<(Loan, Priced), Error> {
    let loan = own_loan(s, borrower, order_no).await?;
    let today = loan.today(s);
    let priced = price(s, &loan, RepaymentChoice::Extension, today)?;
    Ok((loan, priced))
}

/// How to pay: the collection account or virtual account, and the reference to quote.
#[derive(Debug, Clone)]
pub struct Instructions {
    pub method: PaymentMethod,
    pub payee_name: String,
    pub upi_id: Option<String>,
    /// A `upi://pay` link with the amount and the reference.
    pub upi_uri: Option<String>,
    pub bank_name: Option<String>,
    pub account_number: Option<String>,
    pub ifsc: Option<String>,
    /// Indonesia: the virtual account's bank and number.
    pub bank_code: Option<String>,
    pub virtual_account: Option<String>,
    /// Dragonpay: where the reference can be paid.
    pub channels: Vec<String>,
    /// On a payment whose instructions expire (a virtual account, a Dragonpay reference): when, epoch milliseconds.
    pub expires_at: Option<i64>,
}

/// The payment types of the borrower's order's market, from the settings, in the order shown.
pub async fn payment_types(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<Vec<PaymentMethod>, Error> {
    let order = orders::own(s, borrower, order_no).await?;
    Ok(PaymentMethod::of_market(&s.payments.settings, order.market))
}

/// The instructions of a method without a payment (the collection account; a virtual account comes per payment).
pub fn method_instructions(s: &Services, market: Market, method: PaymentMethod) -> Instructions {
    instructions(s, market, method, None)
}

fn rupees(amount: i64) -> String {
    format!("{}.{:02}", amount / 100, amount % 100)
}

/// The instructions of a payment.
///
/// With a payment, UPI adds a `upi://pay` link with its reference and amount, Indonesia the payment's virtual account
/// as issued and stored with it, Dragonpay the payment's expiry.
pub fn instructions(
    s: &Services,
    market: Market,
    method: PaymentMethod,
    payment: Option<&PaymentRow>,
) -> Instructions {
    let india = &s.payments.settings.india;
    let none = Instructions {
        method,
        payee_name: String::new(),
        upi_id: None,
        upi_uri: None,
        bank_name: None,
        account_number: None,
        ifsc: None,
        bank_code: None,
        virtual_account: None,
        channels: Vec::new(),
        expires_at: payment.and_then(|p| p.expires_at),
    };
    match method {
        PaymentMethod::Upi => Instructions {
            payee_name: india.payee_name.clone(),
            upi_uri: payment.map(|p| (p.reference.as_str(), p.amount)).map(
                |(reference, amount)| {
                    format!(
                        "upi://pay?pa={}&pn={}&am={}&cu=INR&tr={reference}&tn={reference}",
                        urlencoding(&india.upi_id),
                        urlencoding(&india.payee_name),
                        rupees(amount),
                    )
                },
            ),
            upi_id: Some(india.upi_id.clone()),
            ..none
        },
        PaymentMethod::BankTransfer => Instructions {
            payee_name: india.payee_name.clone(),
            bank_name: Some(india.bank_name.clone()),
            account_number: Some(india.account_number.clone()),
            ifsc: Some(india.ifsc.clone()),
            ..none
        },
        PaymentMethod::VirtualAccount => {
            let indonesia = &s.payments.settings.indonesia;
            // A payment made before accounts were stored with it (migration 0014) had a simulated one.
            let legacy = payment.filter(|p| p.va_number.is_none()).map(|p| {
                SimulatedVirtualAccounts {
                    bank_code: indonesia.bank_code.clone(),
                    account_name: indonesia.account_name.clone(),
                }
                .account_for(&p.reference)
            });
            let stored = payment.and_then(|p| {
                Some(VirtualAccount {
                    number: p.va_number.clone()?,
                    bank_code: p
                        .va_bank_code
                        .clone()
                        .unwrap_or_else(|| indonesia.bank_code.clone()),
                    account_name: p
                        .va_name
                        .clone()
                        .unwrap_or_else(|| indonesia.account_name.clone()),
                    provider_ref: p.provider_ref.clone(),
                })
            });
            let va = stored.or(legacy);
            Instructions {
                payee_name: va.as_ref().map_or_else(
                    || indonesia.account_name.clone(),
                    |v| v.account_name.clone(),
                ),
                bank_code: Some(
                    va.as_ref()
                        .map_or_else(|| indonesia.bank_code.clone(), |v| v.bank_code.clone()),
                ),
                virtual_account: va.map(|v| v.number),
                ..none
            }
        }
        PaymentMethod::Dragonpay => {
            let channels = match market {
                Market::India => &s.payments.settings.india.dragonpay_channels,
                Market::Indonesia => &s.payments.settings.indonesia.dragonpay_channels,
            };
            Instructions {
                payee_name: s.site.lender(market).name.clone(),
                channels: channels.clone(),
                ..none
            }
        }
    }
}

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'@' => {
                (b as char).to_string()
            }
            b' ' => "%20".to_owned(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A payment with its parsed codes and its instructions.
pub struct Payment {
    pub row: PaymentRow,
    pub choice: RepaymentChoice,
    pub method: PaymentMethod,
    pub status: PaymentStatus,
    pub instructions: Instructions,
}

pub(crate) fn payment_of(s: &Services, row: PaymentRow) -> Result<Payment, Error> {
    let code = |what: &str, v: &str| anyhow::anyhow!("payment {}: unknown {what} {v:?}", row.id);
    let choice =
        RepaymentChoice::from_code(&row.choice).ok_or_else(|| code("choice", &row.choice))?;
    let method =
        PaymentMethod::from_code(&row.method).ok_or_else(|| code("method", &row.method))?;
    let status =
        PaymentStatus::from_code(&row.status).ok_or_else(|| code("status", &row.status))?;
    let market = if row.currency == kilat_domain::Currency::Inr {
        Market::India
    } else {
        Market::Indonesia
    };
    let instructions = instructions(s, market, method, Some(&row));
    Ok(Payment {
        row,
        choice,
        method,
        status,
        instructions,
    })
}

/// The reference of a payment request: `KP` and ten characters of Crockford's base 32 (no look-alikes), derived by a
/// keyed hash from the borrower, their idempotency key and what is paid (order, choice, method, amount, day). A retry
/// of the same request thus gets the same reference, and a provider asked again with it (its `external_id` and
/// idempotency key) answers the account it made the first time: a crash between the provider's answer and our
/// insert leaves no second account. Anything else gets another reference.
fn reference_for(s: &Services, parts: &[&str]) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mac = s.secrets.mac("payment-reference", &parts.join("\n"));
    let bytes = hex::decode(&mac[..20]).unwrap_or_default();
    let suffix: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    format!("KP{suffix}")
}

/// Checks a client's idempotency key: 8 to 64 characters `[A-Za-z0-9_-]`.
fn check_key(key: Option<&str>, errors: &mut FieldErrors) -> Option<String> {
    match key.map(str::trim).filter(|k| !k.is_empty()) {
        None => {
            errors.add("Idempotency-Key", FieldProblem::required());
            None
        }
        Some(k)
            if (8..=64).contains(&k.len())
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(k.to_owned())
        }
        Some(_) => {
            errors.add(
                "Idempotency-Key",
                FieldProblem::new("field.idempotency_key"),
            );
            None
        }
    }
}

/// A payment request as the borrower sends it.
pub struct PaymentRequest<'a> {
    pub choice: Option<&'a str>,
    pub method: Option<&'a str>,
    pub idempotency_key: Option<&'a str>,
}

/// Starts a payment of `choice` by `method` for the borrower's loan, priced now, with a reference unique to it.
/// Idempotent on the client's key: the same key for the same order, choice and method answers the payment it made;
/// for anything else it is `idempotency_key_reused`. A unique index on (borrower, key) settles a race of retries.
pub async fn create(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    req: &PaymentRequest<'_>,
) -> Result<Payment, Error> {
    let mut errors = FieldErrors::default();
    let choice = match req.choice.map(str::trim).filter(|c| !c.is_empty()) {
        None => {
            errors.add("choice", FieldProblem::required());
            None
        }
        Some(c) => RepaymentChoice::from_code(c).or_else(|| {
            errors.add("choice", FieldProblem::new("field.payment_choice"));
            None
        }),
    };
    let method = match req.method.map(str::trim).filter(|m| !m.is_empty()) {
        None => {
            errors.add("method", FieldProblem::required());
            None
        }
        Some(m) => PaymentMethod::from_code(m)
            .filter(|m| PaymentMethod::of_market(&s.payments.settings, borrower.market).contains(m))
            .or_else(|| {
                errors.add("method", FieldProblem::new("field.unknown_method"));
                None
            }),
    };
    let key = check_key(req.idempotency_key, &mut errors);
    errors.into_result()?;
    let (choice, method, key) = (
        choice.expect("checked"),
        method.expect("checked"),
        key.expect("checked"),
    );
    let loan = own_loan(s, borrower, order_no).await?;
    let same = |row: &PaymentRow| {
        row.order_id == loan.order.id && row.choice == choice.code() && row.method == method.code()
    };
    if let Some(existing) = s.db.payment_by_idempotency_key(&borrower.id, &key).await? {
        return if same(&existing) {
            payment_of(s, existing)
        } else {
            Err(Refusal::IdempotencyKeyReused.into())
        };
    }
    let today = loan.today(s);
    let priced = price(s, &loan, choice, today)?;
    let amount = priced.amount.minor();
    let reference = reference_for(
        s,
        &[
            &borrower.id,
            &key,
            &loan.order.id,
            choice.code(),
            method.code(),
            &amount.to_string(),
            &date_code(today),
        ],
    );
    let now = s.clock.now_ms();
    // What a provider issues is asked for before the transaction (a slow provider holds no lock), with the reference
    // as its idempotency key; a provider down or slow is `provider_unavailable` and nothing is written.
    let issued = issue(s, borrower.market, method, &reference, amount, now).await?;
    let mut tx = s.db.begin().await?;
    let inserted = tx
        .insert_payment(&NewPayment {
            order_id: &loan.order.id,
            borrower_id: &borrower.id,
            choice: choice.code(),
            method: method.code(),
            installment: priced.installment.map(i64::from),
            amount: priced.amount.minor(),
            currency: loan.order.currency,
            priced_on: &date_code(today),
            status: PaymentStatus::Pending.code(),
            reference: &reference,
            idempotency_key: &key,
            issued: issued.as_ref().map(|(provider, va, expires_at)| Issued {
                provider,
                provider_ref: va.as_ref().and_then(|v| v.provider_ref.as_deref()),
                va_bank_code: va.as_ref().map(|v| v.bank_code.as_str()),
                va_number: va.as_ref().map(|v| v.number.as_str()),
                va_name: va.as_ref().map(|v| v.account_name.as_str()),
                expires_at: Some(*expires_at),
            }),
            now,
        })
        .await?;
    let id = match inserted {
        Ok(id) => id,
        Err(_) => {
            // Another request with this key won the race: answer with its payment.
            tx.rollback().await?;
            let existing =
                s.db.payment_by_idempotency_key(&borrower.id, &key)
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("a payment reference collided"))?;
            return if same(&existing) {
                payment_of(s, existing)
            } else {
                Err(Refusal::IdempotencyKeyReused.into())
            };
        }
    };
    tx.commit().await?;
    let row =
        s.db.payment(&id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("payment {id} vanished"))?;
    payment_of(s, row)
}

const HOUR_MS: i64 = 60 * 60 * 1000;

/// What a provider issues for a new payment by `method`: the provider's name, the virtual account (Indonesia) and
/// when the instructions expire. India's transfers to the collection account issue nothing.
async fn issue(
    s: &Services,
    market: Market,
    method: PaymentMethod,
    reference: &str,
    amount: i64,
    now: i64,
) -> Result<Option<(&'static str, Option<VirtualAccount>, i64)>, Error> {
    let settings = &s.payments.settings;
    match method {
        PaymentMethod::Upi | PaymentMethod::BankTransfer => Ok(None),
        PaymentMethod::VirtualAccount => {
            let expires_at = now + i64::from(settings.indonesia.va_expiry_hours.max(1)) * HOUR_MS;
            let provider = &s.payments.virtual_accounts;
            let request = AccountRequest {
                reference,
                amount,
                expires_at,
            };
            match provider.create(&request).await {
                Ok(va) => Ok(Some((provider.name(), Some(va), expires_at))),
                Err(err) => {
                    tracing::error!(provider = provider.name(), %reference, error = ?err,
                        "the virtual-account provider failed; no payment made");
                    Err(Refusal::ProviderUnavailable.into())
                }
            }
        }
        PaymentMethod::Dragonpay => {
            let hours = match market {
                Market::India => settings.india.dragonpay_expiry_hours,
                Market::Indonesia => settings.indonesia.dragonpay_expiry_hours,
            };
            Ok(Some((
                "dragonpay",
                None,
                now + i64::from(hours.max(1)) * HOUR_MS,
            )))
        }
    }
}

/// The borrower's payment; another borrower's is not found.
pub async fn own_payment(
    s: &Services,
    borrower: &Borrower,
    payment_id: &str,
) -> Result<Payment, Error> {
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .filter(|p| p.borrower_id == borrower.id)
            .ok_or(Error::NotFound)?;
    payment_of(s, row)
}

/// Checks a UTR's format for the payment's method: 12 digits for UPI; for a bank transfer 12 digits (IMPS) or 16 or
/// 22 letters and digits (NEFT, RTGS). Letters are taken in capitals.
pub fn check_utr(method: PaymentMethod, utr: Option<&str>) -> Result<String, Error> {
    let utr = utr
        .map(|u| u.trim().to_ascii_uppercase())
        .filter(|u| !u.is_empty())
        .ok_or_else(|| Error::field("utr", FieldProblem::required()))?;
    let digits = utr.len() == 12 && utr.bytes().all(|b| b.is_ascii_digit());
    let alnum = matches!(utr.len(), 16 | 22) && utr.bytes().all(|b| b.is_ascii_alphanumeric());
    let ok = match method {
        PaymentMethod::Upi => digits,
        PaymentMethod::BankTransfer => digits || alnum,
        PaymentMethod::VirtualAccount | PaymentMethod::Dragonpay => false,
    };
    if ok {
        Ok(utr)
    } else {
        Err(Error::field(
            "utr",
            FieldProblem::new(if method == PaymentMethod::Upi {
                "field.utr_upi"
            } else {
                "field.utr_bank"
            }),
        ))
    }
}

/// Records the UTR of the borrower's transfer: the payment moves to `verifying` and waits for finance. A UTR used
/// before, on any payment, is `utr_already_used`; a payment not waiting for one is `payment_not_open`.
pub async fn submit_utr(
    s: &Services,
    borrower: &Borrower,
    payment_id: &str,
    utr: Option<&str>,
) -> Result<Payment, Error> {
    let payment = own_payment(s, borrower, payment_id).await?;
    if !payment.method.takes_utr() {
        return Err(Refusal::PaymentNotOpen.into());
    }
    let utr = check_utr(payment.method, utr)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if !tx
        .set_payment_status(
            &payment.row.id,
            &[PaymentStatus::Pending.code()],
            &PaymentMove {
                to: PaymentStatus::Verifying.code(),
                received_amount: None,
                reason: None,
                decided_by: None,
            },
            now,
        )
        .await?
    {
        return Err(Refusal::PaymentNotOpen.into());
    }
    if tx.insert_utr(&utr, &payment.row.id, now).await?.is_err() {
        tx.rollback().await?;
        return Err(Refusal::UtrAlreadyUsed.into());
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "borrower",
        actor_id: Some(&borrower.id),
        action: "payment.utr",
        entity: "order",
        entity_id: &payment.row.order_id,
        before_json: None,
        after_json: Some(&audit_json(
            &payment.row,
            PaymentStatus::Verifying,
            Some(&utr),
        )?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    own_payment(s, borrower, payment_id).await
}

fn audit_json(row: &PaymentRow, status: PaymentStatus, utr: Option<&str>) -> Result<String, Error> {
    Ok(serde_json::to_string(&serde_json::json!({
        "paymentId": row.id,
        "orderNo": row.order_no,
        "choice": row.choice,
        "amount": row.amount,
        "status": status.code(),
        "utr": utr.or(row.utr.as_deref()),
    }))
    .map_err(anyhow::Error::from)?)
}

/// One payment in finance's queue, with its loan's outstanding amount.
pub struct QueuedPayment {
    pub payment: Payment,
    /// Minor units: everything the loan has outstanding now.
    pub outstanding: Money,
    pub market: Market,
}

/// Finance's queue: payments with a UTR to verify, and amounts held, oldest first.
pub async fn queue(s: &Services, op: &Operator) -> Result<Vec<QueuedPayment>, Error> {
    op.require_any(FINANCE_ROLES)?;
    let rows =
        s.db.payments_in(
            &[PaymentStatus::Verifying.code(), PaymentStatus::Held.code()],
            QUEUE_LIMIT,
        )
        .await?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let order =
            s.db.order_by_no(&row.order_no)
                .await?
                .ok_or_else(|| anyhow::anyhow!("payment {}: order missing", row.id))?;
        let market = order.market;
        let loan = load(s, order).await?;
        out.push(QueuedPayment {
            outstanding: loan
                .balances
                .outstanding
                .total()
                .map_err(|e| Error::Internal(e.into()))?,
            market,
            payment: payment_of(s, row)?,
        });
    }
    Ok(out)
}

/// What a confirmation did.
pub struct Confirmed {
    pub payment: Payment,
    pub order_status: OrderState,
    /// The sequence number of the ledger entry posted; none when the amount was held.
    pub entry: Option<u64>,
}

/// The ledger entry a payment of `choice` posts when `amount` is received.
fn entry_for(
    s: &Services,
    loan: &Loan,
    row: &PaymentRow,
    choice: RepaymentChoice,
    amount: Money,
    today: Date,
) -> Result<LedgerEntry, Error> {
    let priced_on = parse_date(&row.priced_on)?;
    let refused = |_: kilat_domain::Error| Error::from(Refusal::ChoiceUnavailable);
    match choice {
        RepaymentChoice::Due => Ok(allocate_repayment(&loan.balances, amount, today)
            .map_err(refused)?
            .0),
        RepaymentChoice::Payoff => Ok(payoff(&loan.plan, &loan.balances, priced_on)
            .map_err(refused)?
            .entry),
        RepaymentChoice::CoolingOff => {
            Ok(
                cooling_off_settlement(&loan.plan, &loan.balances, priced_on)
                    .map_err(refused)?
                    .entry,
            )
        }
        RepaymentChoice::Extension => {
            let number = row
                .installment
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    anyhow::anyhow!("extension payment {} has no installment", row.id)
                })?;
            Ok(extend(
                &loan.plan,
                &loan.balances,
                number,
                priced_on,
                s.catalog.caps(),
            )
            .map_err(refused)?
            .1)
        }
    }
}

/// What settling a payment did.
pub(crate) struct Settled {
    /// `confirmed`, or `held` when nothing was credited.
    pub status: PaymentStatus,
    /// The sequence number of the ledger entry posted; none when held.
    pub entry: Option<u64>,
    pub order_status: OrderState,
}

/// Settles `payment` with `received` inside `tx`, the order locked and `loan` loaded in it (finance's confirm and a
/// provider's callback both come here): the payment moves from one of `from` once (else `payment_not_open`); an
/// amount other than the payment's, or one the loan no longer prices the same, is `held` and credits nothing;
/// otherwise the money engine's entry is appended and the order moves: repaid when nothing is outstanding, exited in
/// cooling-off, extended, or caught up.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn settle_in(
    s: &Services,
    tx: &mut Tx,
    loan: &mut Loan,
    payment: &Payment,
    received: i64,
    from: &[&str],
    decided_by: Option<&str>,
    actor: &Actor,
    now: i64,
) -> Result<Settled, Error> {
    let today = loan.today(s);
    // The entry the money engine makes of the amount; an amount other than the payment's, or one the loan no longer
    // prices the same (it changed since), is held for finance and credits nothing.
    let entry = if received == payment.row.amount {
        entry_for(
            s,
            loan,
            &payment.row,
            payment.choice,
            Money::from_minor(received),
            today,
        )
        .ok()
        .filter(|e| e.cash.minor() == received)
    } else {
        None
    };
    let status = if entry.is_none() {
        PaymentStatus::Held
    } else {
        PaymentStatus::Confirmed
    };
    if !tx
        .set_payment_status(
            &payment.row.id,
            from,
            &PaymentMove {
                to: status.code(),
                received_amount: Some(received),
                reason: None,
                decided_by,
            },
            now,
        )
        .await?
    {
        return Err(Refusal::PaymentNotOpen.into());
    }
    let mut entry_seq = None;
    let mut order_status = loan.order.status;
    if let Some(entry) = entry {
        let kind = entry.kind;
        entry_seq = Some(loan.entries.len() as u64);
        post(tx, loan, entry, Some(&payment.row.id), now).await?;
        let event = match kind {
            EntryKind::CoolingOffExit => Some(OrderEvent::ExitInCoolingOff),
            _ if loan.balances.settled || loan.balances.closed_by.is_some() => {
                Some(OrderEvent::RepayInFull)
            }
            EntryKind::ExtensionFee => Some(OrderEvent::Extend),
            _ if order_status == OrderState::Overdue && !loan.balances.is_overdue(today) => {
                Some(OrderEvent::CatchUp)
            }
            _ => None,
        };
        if let Some(event) = event {
            order_status = orders::apply_in(tx, &loan.order.id, event, actor, now).await?;
        }
    }
    Ok(Settled {
        status,
        entry: entry_seq,
        order_status,
    })
}

/// Confirms a payment finance has received `received` for (finance). In one transaction, with the order locked: the
/// payment moves from `verifying` (or `held`) once, so a second confirmation is `payment_not_open` and posts nothing;
/// an amount other than the payment's is `held`, not credited; otherwise the money engine's entry is appended (a
/// repayment split by the allocation rule, the payoff or cooling-off settlement, or the extension fee) and the order
/// moves: repaid when nothing is outstanding, exited in cooling-off, extended, or caught up.
pub async fn confirm(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    received: Option<i64>,
) -> Result<Confirmed, Error> {
    op.require_any(FINANCE_ROLES)?;
    let received = received
        .filter(|a| *a > 0)
        .ok_or_else(|| Error::field("amount", FieldProblem::new("field.positive_amount")))?;
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let now = s.clock.now_ms();
    let actor = Actor::Operator(op.id.clone());
    let mut tx = s.db.begin().await?;
    let mut loan = load_in(&mut tx, &row.order_id).await?;
    let row = tx.payment_in_tx(&row.id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    let open = [PaymentStatus::Verifying.code(), PaymentStatus::Held.code()];
    if !open.contains(&payment.status.code()) {
        return Err(Refusal::PaymentNotOpen.into());
    }
    let settled = settle_in(
        s,
        &mut tx,
        &mut loan,
        &payment,
        received,
        &open,
        Some(&op.id),
        &actor,
        now,
    )
    .await?;
    let (held, status, entry_seq, order_status) = (
        settled.status == PaymentStatus::Held,
        settled.status,
        settled.entry,
        settled.order_status,
    );
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: if held {
            "payment.hold"
        } else {
            "payment.confirm"
        },
        entity: "order",
        entity_id: &loan.order.id,
        before_json: Some(&audit_json(&payment.row, payment.status, None)?),
        after_json: Some(&audit_json(&payment.row, status, None)?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row =
        s.db.payment(&payment.row.id)
            .await?
            .ok_or(Error::NotFound)?;
    Ok(Confirmed {
        payment: payment_of(s, row)?,
        order_status,
        entry: entry_seq,
    })
}

/// Rejects a payment waiting for finance (`verifying` or `held`) with the reason the borrower is shown (finance).
/// Nothing is posted; the UTR stays used.
pub async fn reject(
    s: &Services,
    op: &Operator,
    payment_id: &str,
    reason: Option<&str>,
) -> Result<Payment, Error> {
    op.require_any(FINANCE_ROLES)?;
    let reason = reason.map(str::trim).unwrap_or_default();
    if reason.is_empty() {
        return Err(Error::field("reason", FieldProblem::required()));
    }
    if reason.chars().count() > MAX_REASON_CHARS {
        return Err(Error::field(
            "reason",
            FieldProblem::too_long(MAX_REASON_CHARS),
        ));
    }
    let row =
        s.db.payment(payment_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let before = payment_of(s, row)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if !tx
        .set_payment_status(
            &before.row.id,
            &[PaymentStatus::Verifying.code(), PaymentStatus::Held.code()],
            &PaymentMove {
                to: PaymentStatus::Rejected.code(),
                received_amount: None,
                reason: Some(reason),
                decided_by: Some(&op.id),
            },
            now,
        )
        .await?
    {
        return Err(Refusal::PaymentNotOpen.into());
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "payment.reject",
        entity: "order",
        entity_id: &before.row.order_id,
        before_json: Some(&audit_json(&before.row, before.status, None)?),
        after_json: Some(&audit_json(&before.row, PaymentStatus::Rejected, None)?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let row = s.db.payment(&before.row.id).await?.ok_or(Error::NotFound)?;
    payment_of(s, row)
}
