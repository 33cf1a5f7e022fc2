//! Xendit's outbound side: creating the fixed virtual account of a payment by a `POST
//! {base_url}/callback_virtual_accounts` (HTTP basic auth with the secret API key as user, the payment's reference as
//! `external_id` and as the `X-IDEMPOTENCY-KEY`, so a retry gets the same account). The paid callback is this
//! folder's `mod.rs`. It is the `VirtualAccountProvider` named by `va_provider = "xendit"`, called before the
//! payment's transaction (docs/API-WEBHOOKS.md).

use std::time::Duration;

use anyhow::{Context, bail};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::providers::VirtualAccount;

/// A client of a Xendit-compatible API at `base_url`.
pub struct XenditVirtualAccounts {
    client: reqwest::Client,
    base_url: String,
    api_key: SecretString,
    bank_code: String,
    account_name: String,
}

#[derive(Serialize)]
struct CreateRequest<'a> {
    external_id: &'a str,
    bank_code: &'a str,
    name: &'a str,
    /// Whole rupiah.
    expected_amount: i64,
    is_closed: bool,
    is_single_use: bool,
    /// ISO 8601, UTC.
    expiration_date: String,
}

#[derive(Deserialize)]
struct CreateResponse {
    #[serde(default)]
    id: Option<String>,
    account_number: String,
    bank_code: String,
    name: String,
    external_id: String,
}

impl XenditVirtualAccounts {
    pub fn new(
        base_url: &str,
        api_key: SecretString,
        bank_code: &str,
        account_name: &str,
        timeout: Duration,
    ) -> anyhow::Result<Self> {
        // rustls needs a process-wide crypto provider; a second install is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .context("building the virtual-account provider's HTTP client")?;
        Ok(Self {
            client,
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            bank_code: bank_code.to_owned(),
            account_name: account_name.to_owned(),
        })
    }

    /// Creates (or, for a reference seen before, finds again) the closed, single-use virtual account that expects
    /// `amount_sen` for the payment `reference`. A provider error or an answer for another reference is an error.
    pub async fn create(
        &self,
        reference: &str,
        amount_sen: i64,
        expires_at_ms: i64,
    ) -> anyhow::Result<VirtualAccount> {
        let started = std::time::Instant::now();
        let created = self.call_create(reference, amount_sen, expires_at_ms).await;
        crate::infra::metrics::provider_call(
            "xendit",
            "create_virtual_account",
            created.is_ok(),
            started.elapsed(),
        );
        created
    }

    async fn call_create(
        &self,
        reference: &str,
        amount_sen: i64,
        expires_at_ms: i64,
    ) -> anyhow::Result<VirtualAccount> {
        if amount_sen <= 0 || amount_sen % 100 != 0 {
            bail!("a virtual account expects whole rupiah, not {amount_sen} sen");
        }
        let at = time::OffsetDateTime::from_unix_timestamp(expires_at_ms / 1000)
            .context("the account's expiry")?;
        let expiration_date = format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            at.year(),
            u8::from(at.month()),
            at.day(),
            at.hour(),
            at.minute(),
            at.second()
        );
        let response = self
            .client
            .post(format!("{}/callback_virtual_accounts", self.base_url))
            .basic_auth(self.api_key.expose_secret(), Some(""))
            .header("x-idempotency-key", reference)
            .json(&CreateRequest {
                external_id: reference,
                bank_code: &self.bank_code,
                name: &self.account_name,
                expected_amount: amount_sen / 100,
                is_closed: true,
                is_single_use: true,
                expiration_date,
            })
            .send()
            .await
            .context("calling the virtual-account provider")?;
        let status = response.status();
        if !status.is_success() {
            bail!("the virtual-account provider answered {status}");
        }
        let created: CreateResponse = response
            .json()
            .await
            .context("reading the virtual-account provider's answer")?;
        if created.external_id != reference || created.account_number.trim().is_empty() {
            bail!("the virtual-account provider answered for another payment");
        }
        Ok(VirtualAccount {
            bank_code: created.bank_code,
            number: created.account_number,
            account_name: created.name,
            provider_ref: created.id,
        })
    }
}

#[cfg(test)]
mod tests {
    use wiremock::matchers::{basic_auth, body_partial_json, header, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;

    fn client(base: &str) -> XenditVirtualAccounts {
        XenditVirtualAccounts::new(
            base,
            SecretString::from("xnd_development_key".to_owned()),
            "BCA",
            "PT Kilat Finansial Indonesia",
            Duration::from_secs(5),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn the_account_is_created_by_a_signed_call_to_the_configured_base_url() {
        let double = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/callback_virtual_accounts"))
            .and(basic_auth("xnd_development_key", ""))
            .and(header("x-idempotency-key", "KP7M2Q9X4ZKA"))
            .and(body_partial_json(serde_json::json!({
                "external_id": "KP7M2Q9X4ZKA", "bank_code": "BCA", "expected_amount": 1_050_000,
                "is_closed": true, "is_single_use": true,
            })))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "id": "57fb4df9af86ce19778ad359", "external_id": "KP7M2Q9X4ZKA", "bank_code": "BCA",
                "account_number": "8808999912345678", "name": "PT Kilat Finansial Indonesia", "status": "PENDING",
            })))
            .expect(1)
            .mount(&double)
            .await;
        let account = client(&format!("{}/", double.uri()))
            .create("KP7M2Q9X4ZKA", 105_000_000, 1_764_000_000_000)
            .await
            .unwrap();
        assert_eq!(account.number, "8808999912345678");
        assert_eq!(account.bank_code, "BCA");
    }

    #[tokio::test]
    async fn a_provider_error_or_an_answer_for_another_payment_is_an_error() {
        let double = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(
                ResponseTemplate::new(400)
                    .set_body_json(serde_json::json!({"error_code": "API_VALIDATION_ERROR"})),
            )
            .up_to_n_times(1)
            .mount(&double)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "external_id": "SOMEONE-ELSE", "bank_code": "BCA", "account_number": "8808000000000001",
                "name": "x",
            })))
            .mount(&double)
            .await;
        let xendit = client(&double.uri());
        let err = xendit
            .create("KP7M2Q9X4ZKA", 100_000, 1_764_000_000_000)
            .await
            .unwrap_err();
        assert!(err.to_string().contains("400"), "{err}");
        assert!(
            xendit
                .create("KP7M2Q9X4ZKA", 100_000, 1_764_000_000_000)
                .await
                .is_err()
        );
        assert!(
            xendit
                .create("KP7M2Q9X4ZKA", 100_050, 1_764_000_000_000)
                .await
                .is_err(),
            "not whole rupiah"
        );
    }
}
