//! Every outside party that moves money, behind a trait (docs/ARCHITECTURE.md "How to add a payment provider"):
//! virtual accounts (Indonesia: `simulated` in development, `xendit`), payouts (`manual`: finance's transfer in the
//! bank's portal), and callbacks (`razorpay`, `xendit`, `dragonpay`: each verifies its own signature and reads its own
//! body into one [`Callback`]). [`registry`] is the one list of them; the webhook routes and the settings-driven
//! choices are made from it. A provider knows nothing of loans: what a callback does to a payment is
//! `servicing::callbacks`, what a payout does to a loan is `servicing::payout`.
//!
//! A provider is called before a payment's transaction, never inside it.

pub mod dragonpay;
pub mod manual;
pub mod razorpay;
pub mod registry;
pub mod simulated;
pub mod xendit;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use http::HeaderMap;
use kilat_domain::{Currency, Market, PaymentMethod};
use secrecy::ExposeSecret;

use crate::error::{Error, FieldProblem};
use crate::settings::{PaymentSettings, WebhookSecret};
use crate::store::orders::OrderRow;

pub use manual::{ManualPayout, check_bank_reference};
pub use simulated::SimulatedVirtualAccounts;
pub use xendit::XenditVirtualAccounts;

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

/// What a payout provider is asked to send.
pub struct PayoutRequest<'a> {
    pub order: &'a OrderRow,
    /// Minor units: the net amount of the accepted KFS.
    pub amount: i64,
    /// What the operator typed, for a provider that records a transfer made outside the system.
    pub bank_reference: Option<&'a str>,
}

/// A payout the provider made (or recorded).
pub struct PayoutDone {
    pub provider: &'static str,
    pub bank_reference: String,
}

/// Sends a loan's funds to the borrower's account.
pub trait PayoutProvider: Send + Sync {
    fn name(&self) -> &'static str;
    /// Makes (or records) the transfer; a refusal is a field error on what the operator gave.
    fn pay(&self, request: &PayoutRequest<'_>) -> Result<PayoutDone, Error>;
}

/// A provider's request to us, as it arrived: the headers and the raw body (for a callback sent as a query string,
/// the raw query). Nothing is parsed before the provider has verified it.
pub struct Inbound<'a> {
    pub headers: &'a HeaderMap,
    pub body: &'a [u8],
}

impl Inbound<'_> {
    /// A header's value, when it is present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A verified callback, read into what settles a payment: the one event type every provider's callback becomes.
#[derive(Debug, Clone)]
pub struct Callback {
    /// The provider's id of this event: the deduplication key (with the provider's code).
    pub event_id: String,
    /// Our payment's reference, as the provider quotes it.
    pub reference: String,
    /// The provider's id of the payment (stored on the payment, unique).
    pub provider_payment_id: Option<String>,
    /// Minor units received; `None` when the provider does not say (Dragonpay's classic postback): the payment's.
    pub amount: Option<i64>,
    /// The currency code received, when the provider says.
    pub currency: Option<String>,
    /// False for a status that credits nothing.
    pub credits: bool,
    /// True for an event that takes money back after it was reported received (a refund the provider made, a
    /// chargeback, a void): recorded for finance, never a credit (`credits` is false).
    pub reverses: bool,
    /// When the provider says the money was sent (ms since the epoch), from the verified body; `None` when it does
    /// not say. The money is priced for that day, not for the day the callback came (a provider retries for a day
    /// or more).
    pub sent_at: Option<i64>,
}

/// Why a callback was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    /// The signature, token or digest is missing or wrong: nothing was read or written.
    #[error("the callback's signature does not verify")]
    BadSignature,
    /// The provider is not enabled on this server.
    #[error("this provider is not enabled")]
    Disabled,
    #[error(transparent)]
    Service(#[from] Error),
}

impl From<sqlx::Error> for CallbackError {
    fn from(e: sqlx::Error) -> Self {
        CallbackError::Service(e.into())
    }
}

/// How a provider expects a taken callback to be answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// Our JSON envelope with the outcome.
    Envelope,
    /// This text, as `text/plain` (Dragonpay's `result=OK`).
    Text(&'static str),
}

/// A payment as a callback provider sees it: how it was made, in what currency, and who issued its reference.
#[derive(Debug, Clone, Copy)]
pub struct PaymentOrigin<'a> {
    pub method: PaymentMethod,
    pub currency: Currency,
    /// The provider that issued the payment's account or reference (`xendit`, `simulated`, `dragonpay`), if any.
    pub issuer: Option<&'a str>,
}

/// A provider that calls back when money arrives. Its route is `/api/v1/webhooks/{route}`; it verifies the request
/// with the secret of its settings table before reading anything, and reads it into a [`Callback`].
pub trait CallbackProvider: Send + Sync {
    /// Recorded with each event (`payment_callbacks.provider`), in the audit trail and the logs.
    fn code(&self) -> &'static str;
    /// The actor named on what its callbacks change (`callback:{code}`).
    fn actor(&self) -> &'static str;
    /// The path under `/api/v1/webhooks/`.
    fn route(&self) -> &'static str;
    /// The one market whose money it takes, if it takes only one's.
    fn market(&self) -> Option<Market> {
        None
    }
    /// True when the provider may also call with the fields in a `GET`'s query string.
    fn takes_query(&self) -> bool {
        false
    }
    /// Its settings table: on or off, and the secret that verifies it.
    fn settings<'a>(&self, settings: &'a PaymentSettings) -> &'a WebhookSecret;
    /// Verifies the request with `secret`, then reads it: `None` is a verified event that concerns no payment
    /// (answered `ignored`).
    fn read(&self, secret: &[u8], inbound: &Inbound<'_>)
    -> Result<Option<Callback>, CallbackError>;
    /// True when this provider may settle a payment of this origin; any other is recorded and credits nothing.
    fn settles(&self, payment: PaymentOrigin<'_>) -> bool;
    /// True when payments of this method may be this provider's (the markets it serves are those offering it).
    fn settles_method(&self, method: PaymentMethod) -> bool {
        let _ = method;
        false
    }
    /// The answer it expects once a callback is taken.
    fn reply(&self) -> Reply {
        Reply::Envelope
    }
}

/// Verifies and reads a request to `provider`'s route: a provider that is off, or has no secret, is `Disabled` (404)
/// before anything is read.
pub fn read_callback(
    provider: &dyn CallbackProvider,
    settings: &PaymentSettings,
    inbound: &Inbound<'_>,
) -> Result<Option<Callback>, CallbackError> {
    let secret = provider
        .settings(settings)
        .active()
        .ok_or(CallbackError::Disabled)?;
    provider.read(secret.expose_secret().as_bytes(), inbound)
}

/// The body is not what the provider sends.
pub(crate) fn bad_body() -> CallbackError {
    CallbackError::Service(Error::field(
        "body",
        FieldProblem::new("field.callback_body"),
    ))
}

/// The payment side of the services: settings per market, the payout provider, the virtual-account provider.
pub struct PaymentServices {
    pub settings: PaymentSettings,
    pub payouts: Arc<dyn PayoutProvider>,
    pub virtual_accounts: Arc<dyn VirtualAccountProvider>,
}

impl PaymentServices {
    /// The providers the settings name, from the registry.
    pub fn from_settings(settings: &PaymentSettings) -> anyhow::Result<Self> {
        Ok(Self {
            settings: settings.clone(),
            payouts: registry::payouts(settings)?,
            virtual_accounts: registry::virtual_accounts(settings)?,
        })
    }
}
