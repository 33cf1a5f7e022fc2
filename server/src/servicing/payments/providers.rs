//! The providers behind a payment: the virtual accounts of Indonesia (simulated in development, Xendit), and the
//! payment side of the services (settings per market, the payout provider, the virtual-account provider). A
//! provider is called before a payment's transaction, never inside it.

use super::*;

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
    pub(crate) fn account_for(&self, reference: &str) -> VirtualAccount {
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
