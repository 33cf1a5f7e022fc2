//! The one list of the payment providers this server has. Adding one is a folder beside this file (its adapter
//! behind the traits of `mod.rs`), its settings table (`[payments.<code>]` in `defaults.toml` and a field of
//! `PaymentSettings`), and a line here; its webhook route, its place in the settings' choices and its check of which
//! payments it may settle follow from that (docs/ARCHITECTURE.md "How to add a payment provider").

use std::sync::Arc;
use std::time::Duration;

use super::dragonpay::DragonpayCallbacks;
use super::razorpay::RazorpayCallbacks;
use super::xendit::XenditCallbacks;
use super::{
    CallbackProvider, ManualPayout, PayoutProvider, SimulatedVirtualAccounts,
    VirtualAccountProvider, XenditVirtualAccounts,
};
use crate::settings::PaymentSettings;

/// Every provider that calls back, each at `/api/v1/webhooks/{route}`.
pub static CALLBACKS: &[&dyn CallbackProvider] =
    &[&RazorpayCallbacks, &XenditCallbacks, &DragonpayCallbacks];

/// The callback provider with this code.
pub fn callback(code: &str) -> Option<&'static dyn CallbackProvider> {
    CALLBACKS.iter().copied().find(|p| p.code() == code)
}

/// Indonesia's virtual accounts, as `KILAT_PAYMENTS__ID__VA_PROVIDER` names them: `simulated` or `xendit`.
pub fn virtual_accounts(
    settings: &PaymentSettings,
) -> anyhow::Result<Arc<dyn VirtualAccountProvider>> {
    let id = &settings.indonesia;
    Ok(match id.va_provider.as_str() {
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
    })
}

/// The payout provider: `manual` (finance transfers in the bank's portal and records the reference).
pub fn payouts(_settings: &PaymentSettings) -> anyhow::Result<Arc<dyn PayoutProvider>> {
    Ok(Arc::new(ManualPayout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_callback_provider_has_its_own_code_route_and_actor() {
        let (mut codes, mut routes) = (Vec::new(), Vec::new());
        for p in CALLBACKS {
            assert!(!codes.contains(&p.code()), "{} twice", p.code());
            assert!(!routes.contains(&p.route()), "{} twice", p.route());
            codes.push(p.code());
            routes.push(p.route());
            assert_eq!(p.actor(), format!("callback:{}", p.code()));
            assert_eq!(
                callback(p.code()).map(|found| found.route()),
                Some(p.route())
            );
        }
        assert!(callback("paypal").is_none());
    }
}
