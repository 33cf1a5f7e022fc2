//! An outside party's HTTP endpoint that takes a JSON `POST` with a bearer API key: the SMS provider (`sms`) and the
//! push gateway (`push`). Network errors and 5xx answers are retried with a short back-off; any other answer is the
//! sender's to read. A post that ends without one says whether the party may have acted on it ([`PostFailed`]).

use std::time::Duration;

use anyhow::Context;
use reqwest::StatusCode;
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;

/// The longest a gateway's [`Gateway::post`] may take, every attempt timing out: what the settings allow (`[sms]` and
/// `[push]`, checked by [`longest_post`]). The reminders' sender holds its claim on a text well beyond it
/// (`jobs::reminders::SENDING_LEASE_MS`).
pub const LONGEST_POST: Duration = Duration::from_secs(60);

/// The longest [`Gateway::post`] takes with these settings: each of its `retries + 1` attempts timing out, and the
/// back-offs between them.
pub fn longest_post(timeout: Duration, retries: u32) -> Duration {
    let attempts = retries.saturating_add(1);
    let back_offs = (1..=u64::from(retries)).map(back_off).sum::<Duration>();
    timeout.saturating_mul(attempts).saturating_add(back_offs)
}

/// The pause before retry number `tries` (from 1).
fn back_off(tries: u64) -> Duration {
    Duration::from_millis(200u64.saturating_mul(tries))
}

/// A post that ended without an answer to read (every attempt failed), and whether the party may have acted on it.
#[derive(Debug, thiserror::Error)]
#[error("{error:#}")]
pub struct PostFailed {
    /// Some attempt may have reached the party and been acted on: it timed out or broke after connecting, or a proxy
    /// answered 504 (the party did not answer in time). False when every attempt failed to connect, or the party
    /// itself answered that it failed (any other 5xx): nothing was done.
    pub maybe_delivered: bool,
    error: anyhow::Error,
}

pub struct Gateway {
    /// The party, as `/metrics` and the errors name it (`sms`, `push`).
    name: &'static str,
    client: reqwest::Client,
    url: String,
    api_key: Option<SecretString>,
    retries: u32,
}

impl Gateway {
    pub fn new(
        name: &'static str,
        url: String,
        api_key: Option<SecretString>,
        timeout: Duration,
        retries: u32,
    ) -> anyhow::Result<Self> {
        // rustls needs a process-wide crypto provider; a second install (tests) is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .build()
            .with_context(|| format!("building the {name} gateway's HTTP client"))?;
        Ok(Self {
            name,
            client,
            url,
            api_key,
            retries,
        })
    }

    /// Posts `body`, again after a failure that certainly did nothing (not connected, or the party answered a 5xx
    /// other than 504), at most `retries` times: the status of the answer that ended it (a success or a 4xx), or the
    /// error. One that may have been acted on (a timeout after connecting, a 504) is never sent again: the caller
    /// learns it may have been (`maybe_delivered`), and a text is not sent twice.
    pub async fn post(&self, body: &impl Serialize) -> Result<StatusCode, PostFailed> {
        self.post_retrying(body, false).await
    }

    /// [`Gateway::post`] that also sends again after an attempt that may have been acted on: for a message whose
    /// second copy is harmless and whose loss is not (a sign-in code: the same code twice, never none). The error
    /// still says whether any attempt may have been acted on.
    pub async fn post_even_if_unsure(
        &self,
        body: &impl Serialize,
    ) -> Result<StatusCode, PostFailed> {
        self.post_retrying(body, true).await
    }

    async fn post_retrying(
        &self,
        body: &impl Serialize,
        even_if_unsure: bool,
    ) -> Result<StatusCode, PostFailed> {
        let mut tries = 0;
        let mut maybe_delivered = false;
        loop {
            match self.attempt(body).await {
                Ok(status) => return Ok(status),
                Err(failed) => {
                    maybe_delivered |= failed.maybe_delivered;
                    if (failed.maybe_delivered && !even_if_unsure) || tries >= self.retries {
                        return Err(PostFailed {
                            maybe_delivered,
                            ..failed
                        });
                    }
                    tries += 1;
                    tracing::warn!(gateway = self.name, error = %failed, tries, "a call failed; retrying");
                    tokio::time::sleep(back_off(u64::from(tries))).await;
                }
            }
        }
    }

    /// One call: the status of an answer that is not a 5xx, or the error worth a retry.
    async fn attempt(&self, body: &impl Serialize) -> Result<StatusCode, PostFailed> {
        let mut request = self.client.post(&self.url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose_secret());
        }
        let started = std::time::Instant::now();
        let result = match request.send().await {
            Ok(response) if response.status().is_server_error() => Err(PostFailed {
                maybe_delivered: response.status() == StatusCode::GATEWAY_TIMEOUT,
                error: anyhow::anyhow!("the {} gateway answered {}", self.name, response.status()),
            }),
            Ok(response) => Ok(response.status()),
            Err(err) => Err(PostFailed {
                // Not connected (or never built): nothing left this server.
                maybe_delivered: !(err.is_connect() || err.is_builder()),
                error: anyhow::Error::new(err)
                    .context(format!("the {} gateway could not be reached", self.name)),
            }),
        };
        let ok = matches!(result, Ok(status) if status.is_success());
        crate::infra::metrics::provider_call(self.name, "send", ok, started.elapsed());
        result
    }
}
