//! Development's virtual accounts (`va_provider = "simulated"`): nothing is called; the number is the bank's prefix
//! `8808` and twelve digits derived from the payment's reference, so the same payment always shows the same account.
//! Production refuses to start with it (settings).

use super::{AccountRequest, IssueFuture, VirtualAccount, VirtualAccountProvider};

/// Development's provider.
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
