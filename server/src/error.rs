//! What can go wrong in a capability, in business terms: the fields at fault, a refusal with its reason, a loan the
//! money rules refuse, or an internal failure. Only `http::error` turns these into statuses and response bodies; the
//! texts come from the message catalogs (`i18n`), in the language of whoever reads them.

use std::collections::BTreeMap;

use crate::auth::SignInError;
use crate::auth::operators::OperatorSignInError;
use crate::i18n::{self, Lang};

/// Every stable error `code` the API answers with. Each has its message in the catalogs as `error.{code}`.
pub const ERROR_CODES: &[&str] = &[
    "validation_failed",
    "not_found",
    "method_not_allowed",
    "payload_too_large",
    "unsupported_media_type",
    "bad_request",
    "rate_limited",
    "cap_exceeded",
    "internal",
    "certification_out_of_order",
    "certification_incomplete",
    "open_order_exists",
    "not_eligible",
    "kfs_changed",
    "idempotency_key_reused",
    "invalid_transition",
    "unauthorized",
    "cross_site_request",
    "code_resend_too_soon",
    "daily_limit_reached",
    "code_invalid",
    "code_expired",
    "code_attempts_exceeded",
    "code_delivery_failed",
    "credentials_invalid",
    "operator_locked",
    "forbidden",
    "csrf_token_invalid",
    "choice_unavailable",
    "payment_not_open",
    "money_reported",
    "utr_already_used",
    "utr_locked",
    "utr_corrections_exhausted",
    "already_rated",
    "own_admin_account",
    "last_admin",
    "provider_unavailable",
    "complaint_not_answered",
    "complaint_closed",
    "complaint_unanswered",
    "refund_claimed",
    "receipt_resolved",
    "credit_not_taken_back",
    "money_outstanding",
    "payment_unsettled",
    "payout_sent",
    "payment_waiting",
    "product_changed",
    "other_currency",
    "extension_over_cap",
    "handover_invalid",
    "handover_not_allowed",
    "signed_in_as_another",
    "server_busy",
    "application_claimed",
    "own_payout_approval",
    "payout_not_awaiting",
    "payout_awaiting_approval",
    "loan_not_closed",
    "password_change_required",
];

/// Why a field was refused: a catalog key (`field.…`) and the values its text names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldProblem {
    key: &'static str,
    args: Vec<(&'static str, String)>,
}

impl FieldProblem {
    /// A rule's explanation, by its key in the catalogs.
    pub fn new(key: &'static str) -> Self {
        Self {
            key,
            args: Vec::new(),
        }
    }

    /// Fills `{name}` in the text.
    #[must_use]
    pub fn with(mut self, name: &'static str, value: impl ToString) -> Self {
        self.args.push((name, value.to_string()));
        self
    }

    pub fn required() -> Self {
        Self::new("field.required")
    }

    pub fn too_long(max: usize) -> Self {
        Self::new("field.too_long").with("max", max)
    }

    pub fn invalid_phone() -> Self {
        Self::new("field.invalid_phone")
    }

    pub fn unknown_market() -> Self {
        Self::new("field.unknown_market")
    }

    pub fn key(&self) -> &'static str {
        self.key
    }

    /// The explanation in `lang`.
    pub fn text(&self, lang: Lang) -> String {
        let args: Vec<(&str, &str)> = self.args.iter().map(|(n, v)| (*n, v.as_str())).collect();
        i18n::format(lang, self.key, &args)
    }
}

/// Field-level failures collected while checking a request, by the field's name in the API.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct FieldErrors(BTreeMap<&'static str, FieldProblem>);

impl FieldErrors {
    /// Records the first problem of a field; later ones for the same field are dropped.
    pub fn add(&mut self, field: &'static str, problem: FieldProblem) {
        self.0.entry(field).or_insert(problem);
    }

    /// Takes in another set of problems.
    pub fn merge(&mut self, other: FieldErrors) {
        for (field, problem) in other.0 {
            self.add(field, problem);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, field: &str) -> Option<&FieldProblem> {
        self.0.get(field)
    }

    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &FieldProblem)> {
        self.0.iter().map(|(name, problem)| (*name, problem))
    }

    /// One field's problem as a set.
    pub fn one(field: &'static str, problem: FieldProblem) -> Self {
        let mut errors = Self::default();
        errors.add(field, problem);
        errors
    }

    /// `Ok(())` when nothing was at fault.
    pub fn into_result(self) -> Result<(), Error> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(self))
        }
    }
}

/// Refusals of a borrower's or an operator's request by the rules, each with its own code (docs/API-BORROWER.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A certification step saved before the steps ahead of it.
    CertificationOutOfOrder,
    /// Applying before the five steps are done.
    CertificationIncomplete,
    /// Applying while another order is open.
    OpenOrderExists,
    /// The borrower's income is below the market's minimum.
    NotEligible,
    /// The KFS accepted is not the one the server computes now.
    KfsChanged,
    /// An idempotency key reused for another application.
    IdempotencyKeyReused,
    /// An event the order's state does not accept (the state machine in `kilat_domain::order`).
    InvalidTransition,
    /// An operator without any of the roles an action needs.
    RoleMissing,
    /// A repayment choice the loan does not offer now (closed, not paid out, outside the cooling-off window, no
    /// extension in the product).
    ChoiceUnavailable,
    /// A payment not in a state that takes this step (a UTR on a payment already submitted, a decision on one
    /// decided).
    PaymentNotOpen,
    /// Rejecting a held payment whose money a provider reported: it arrived, so it is credited or owed back.
    MoneyReported,
    /// Deleting the account while a payment of it is unsettled (a UTR waiting, money held or owed back).
    PaymentUnsettled,
    /// Cancelling an approved order finance has put in a bank file: its money may be on its way.
    PayoutSent,
    /// A payment of the loan waits for finance (a UTR being checked, an amount held): an extension is bought once it
    /// is decided, so its fee never buys days on an installment that money paid.
    PaymentWaiting,
    /// Editing a product from a version another admin replaced since: their change would be undone unseen.
    ProductChanged,
    /// Crediting or refunding money a provider reported in another currency than the payment's.
    OtherCurrency,
    /// A UTR already submitted, for this or any other payment.
    UtrAlreadyUsed,
    /// A UTR correction after finance confirmed or rejected the payment.
    UtrLocked,
    /// A UTR correction beyond the most a payment allows.
    UtrCorrectionsExhausted,
    /// A rating of an order (or a complaint's answer) rated already.
    AlreadyRated,
    /// An admin disabling themself or dropping their own admin role.
    OwnAdminAccount,
    /// A change that would leave no enabled admin.
    LastAdmin,
    /// A payment provider down, slow or refusing: nothing was written, the request can be retried.
    ProviderUnavailable,
    /// A complaint's answer rated before support has answered.
    ComplaintNotAnswered,
    /// A reply to, or closing of, a complaint closed already.
    ComplaintClosed,
    /// Closing a complaint whose borrower's last message has no answer (new, or replied to since support's answer).
    ComplaintUnanswered,
    /// Sending or recording a refund another finance operator said they are sending.
    RefundClaimed,
    /// Resolving money no payment matched that finance resolved already.
    ReceiptResolved,
    /// Taking back the credit of money a provider took back when the ledger cannot do it itself: the loan is closed,
    /// the payment owed money back, only part was taken back, or nothing of it is credited.
    CreditNotTakenBack,
    /// A finance operator approving (or rejecting) the payout they recorded themself (maker-checker).
    OwnPayoutApproval,
    /// Approving or rejecting a payout when none is recorded and waiting for approval on the order.
    PayoutNotAwaiting,
    /// Paying out an order whose payout is already recorded and waiting for a second operator's approval.
    PayoutAwaitingApproval,
    /// The account was deleted meanwhile (a request that passed the session check as the deletion committed).
    AccountDeleted,
    /// An application in review that another reviewer holds a live claim on (claiming it, or deciding it).
    ApplicationClaimed,
    /// A document of a closed loan (the no-dues certificate) asked for while the loan is not closed.
    LoanNotClosed,
    /// An operator signed in with a password an admin set, asking for anything but `me`, `logout` or `password`:
    /// they choose their own first.
    PasswordChangeRequired,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::CertificationOutOfOrder => "certification_out_of_order",
            Refusal::CertificationIncomplete => "certification_incomplete",
            Refusal::OpenOrderExists => "open_order_exists",
            Refusal::NotEligible => "not_eligible",
            Refusal::KfsChanged => "kfs_changed",
            Refusal::IdempotencyKeyReused => "idempotency_key_reused",
            Refusal::InvalidTransition => "invalid_transition",
            Refusal::RoleMissing => "forbidden",
            Refusal::ChoiceUnavailable => "choice_unavailable",
            Refusal::PaymentNotOpen => "payment_not_open",
            Refusal::MoneyReported => "money_reported",
            Refusal::PaymentUnsettled => "payment_unsettled",
            Refusal::PayoutSent => "payout_sent",
            Refusal::PaymentWaiting => "payment_waiting",
            Refusal::ProductChanged => "product_changed",
            Refusal::OtherCurrency => "other_currency",
            Refusal::UtrAlreadyUsed => "utr_already_used",
            Refusal::UtrLocked => "utr_locked",
            Refusal::UtrCorrectionsExhausted => "utr_corrections_exhausted",
            Refusal::AlreadyRated => "already_rated",
            Refusal::OwnAdminAccount => "own_admin_account",
            Refusal::LastAdmin => "last_admin",
            Refusal::ProviderUnavailable => "provider_unavailable",
            Refusal::ComplaintNotAnswered => "complaint_not_answered",
            Refusal::ComplaintClosed => "complaint_closed",
            Refusal::ComplaintUnanswered => "complaint_unanswered",
            Refusal::RefundClaimed => "refund_claimed",
            Refusal::ReceiptResolved => "receipt_resolved",
            Refusal::CreditNotTakenBack => "credit_not_taken_back",
            Refusal::OwnPayoutApproval => "own_payout_approval",
            Refusal::PayoutNotAwaiting => "payout_not_awaiting",
            Refusal::PayoutAwaitingApproval => "payout_awaiting_approval",
            Refusal::AccountDeleted => "unauthorized",
            Refusal::ApplicationClaimed => "application_claimed",
            Refusal::LoanNotClosed => "loan_not_closed",
            Refusal::PasswordChangeRequired => "password_change_required",
        }
    }
}

/// A capability's failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("validation failed: {0:?}")]
    Validation(FieldErrors),
    #[error("not found")]
    NotFound,
    #[error("refused: {0:?}")]
    Refused(Refusal),
    /// A loan the money rules refuse (cap) or cannot compute.
    #[error("loan refused: {0}")]
    Loan(kilat_domain::Error),
    #[error(transparent)]
    SignIn(#[from] SignInError),
    #[error(transparent)]
    OperatorSignIn(#[from] OperatorSignInError),
    #[error("rate limited")]
    RateLimited { retry_after_secs: u64 },
    /// Costly work (an image decode, a password hash) already running as much as the server allows at once
    /// (`crate::infra::bounds`): nothing was done, the request can be retried.
    #[error("server busy")]
    Busy { retry_after_secs: u64 },
    /// Deleting an account while a loan still owes `amount` (formatted in the loan's currency).
    #[error("money outstanding: {amount}")]
    MoneyOutstanding { amount: String },
    /// An extension the loan's product offers, refused because with its fee the loan would cost `actual`, over what
    /// an OJK cap allows it (`limit`); both formatted in the loan's currency.
    #[error("extension over the cap: {actual} > {limit}")]
    ExtensionOverCap { limit: String, actual: String },
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl From<sqlx::Error> for Error {
    fn from(err: sqlx::Error) -> Self {
        Self::Internal(anyhow::Error::new(err).context("database"))
    }
}

impl From<Refusal> for Error {
    fn from(refusal: Refusal) -> Self {
        Self::Refused(refusal)
    }
}

impl Error {
    /// Why an extension is refused: a cap it would break is named with its figures (`extension_over_cap`); anything
    /// else is `choice_unavailable` (no extension in the product, the maximum reached, the loan closed).
    pub fn extension_refused(err: kilat_domain::Error, currency: kilat_domain::Currency) -> Self {
        match err {
            kilat_domain::Error::ExtensionOverCap { limit, actual, .. } => {
                Error::ExtensionOverCap {
                    limit: i18n::format_money(limit, currency),
                    actual: i18n::format_money(actual, currency),
                }
            }
            _ => Refusal::ChoiceUnavailable.into(),
        }
    }

    /// One field's problem.
    pub fn field(field: &'static str, problem: FieldProblem) -> Self {
        Self::Validation(FieldErrors::one(field, problem))
    }

    /// The stable machine-readable code of this failure (one of [`ERROR_CODES`]).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Validation(_) => "validation_failed",
            Error::NotFound => "not_found",
            Error::Refused(refusal) => refusal.code(),
            Error::Loan(kilat_domain::Error::CapExceeded { .. }) => "cap_exceeded",
            Error::Loan(
                kilat_domain::Error::AmountOutOfRange { .. }
                | kilat_domain::Error::AmountNotOnStep { .. }
                | kilat_domain::Error::NegativeAmount
                | kilat_domain::Error::UnknownTerm(_),
            ) => "validation_failed",
            Error::Loan(kilat_domain::Error::InvalidTransition { .. }) => "invalid_transition",
            Error::Loan(_) | Error::Internal(_) => "internal",
            Error::SignIn(err) => match err {
                SignInError::ResendTooSoon { .. } => "code_resend_too_soon",
                SignInError::DailyLimit => "daily_limit_reached",
                SignInError::CodeInvalid => "code_invalid",
                SignInError::CodeExpired => "code_expired",
                SignInError::AttemptsExceeded => "code_attempts_exceeded",
                SignInError::Delivery(_) => "code_delivery_failed",
                SignInError::Throttled { .. } => "rate_limited",
                SignInError::HandoverInvalid => "handover_invalid",
                SignInError::HandoverNotAllowed => "handover_not_allowed",
                SignInError::SignedInAsAnother => "signed_in_as_another",
                SignInError::Store(_) => "internal",
            },
            Error::OperatorSignIn(OperatorSignInError::CredentialsInvalid) => "credentials_invalid",
            Error::OperatorSignIn(OperatorSignInError::Locked { .. }) => "operator_locked",
            Error::RateLimited { .. } => "rate_limited",
            Error::Busy { .. } => "server_busy",
            Error::MoneyOutstanding { .. } => "money_outstanding",
            Error::ExtensionOverCap { .. } => "extension_over_cap",
        }
    }

    /// The fields at fault, where fields were at fault.
    pub fn field_errors(&self) -> Option<FieldErrors> {
        match self {
            Error::Validation(fields) => Some(fields.clone()),
            Error::Loan(err) => {
                loan_field(err).map(|(field, problem)| FieldErrors::one(field, problem))
            }
            Error::SignIn(SignInError::CodeInvalid) => Some(FieldErrors::one(
                "code",
                FieldProblem::new("field.wrong_code"),
            )),
            _ => None,
        }
    }

    /// The values the error's message names (`{amount}`), where it names any.
    pub fn message_args(&self) -> Vec<(&'static str, String)> {
        match self {
            Error::MoneyOutstanding { amount } => vec![("amount", amount.clone())],
            Error::ExtensionOverCap { limit, actual } => {
                vec![("limit", limit.clone()), ("actual", actual.clone())]
            }
            _ => Vec::new(),
        }
    }

    /// How long a client should wait before trying again, for the limits that say.
    pub fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Error::RateLimited { retry_after_secs }
            | Error::Busy { retry_after_secs }
            | Error::SignIn(
                SignInError::ResendTooSoon { retry_after_secs }
                | SignInError::Throttled { retry_after_secs },
            )
            | Error::OperatorSignIn(OperatorSignInError::Locked { retry_after_secs }) => {
                Some(*retry_after_secs)
            }
            _ => None,
        }
    }
}

/// The request field a refused loan is about (amounts here are in minor units: callers that know the market word
/// them in its money first, see `catalog::key_fact_statement`).
fn loan_field(err: &kilat_domain::Error) -> Option<(&'static str, FieldProblem)> {
    use kilat_domain::Error as E;
    match err {
        E::AmountOutOfRange { min, max, .. } => Some((
            "amount",
            FieldProblem::new("field.amount_out_of_range")
                .with("min", min)
                .with("max", max),
        )),
        E::AmountNotOnStep { step, .. } => Some((
            "amount",
            FieldProblem::new("field.amount_not_on_step").with("step", step),
        )),
        E::NegativeAmount => Some(("amount", FieldProblem::required())),
        E::UnknownTerm(_) => Some(("termCode", FieldProblem::new("field.unknown_term"))),
        _ => None,
    }
}
