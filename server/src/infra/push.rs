//! Pushes to a borrower's device (payment receipts, issue 19 item 16): a trait with a development sender (`log`) and a
//! push gateway's HTTP API (`http`), chosen by the settings `[push]`; `off` queues none. The device's push token is
//! the one its app uploaded (`POST /api/v1/borrower/device-token`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;

use crate::settings::{PushSenderKind, PushSettings};

/// One push to one device.
#[derive(Debug, Clone)]
pub struct PushMessage {
    /// The token the device's app uploaded.
    pub token: String,
    /// `android` or `ios`, as uploaded.
    pub platform: String,
    /// In the borrower's language.
    pub title: String,
    pub body: String,
}

/// What became of a push.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushOutcome {
    /// The gateway took it.
    Delivered,
    /// The gateway no longer knows the token (the app was removed, or the token replaced): forget it.
    TokenGone,
}

pub type PushFuture<'a> =
    std::pin::Pin<Box<dyn Future<Output = anyhow::Result<PushOutcome>> + Send + 'a>>;

/// Something that gets a push to a device.
pub trait PushSender: Send + Sync {
    fn send<'a>(&'a self, message: &'a PushMessage) -> PushFuture<'a>;
}

/// Builds the sender the settings name; none when pushes are off.
pub fn from_settings(settings: &PushSettings) -> anyhow::Result<Option<Arc<dyn PushSender>>> {
    Ok(match settings.sender {
        PushSenderKind::Off => None,
        PushSenderKind::Log => Some(Arc::new(LogPush)),
        PushSenderKind::Http => Some(Arc::new(HttpPush::new(
            settings.http_url.clone(),
            settings.http_api_key.clone(),
            Duration::from_millis(settings.http_timeout_ms),
            settings.http_retries,
        )?)),
    })
}

/// Development: the push goes to the server log (the token's last characters only). Never a real device.
pub struct LogPush;

impl PushSender for LogPush {
    fn send<'a>(&'a self, message: &'a PushMessage) -> PushFuture<'a> {
        Box::pin(async move {
            let tail: String = {
                let chars: Vec<char> = message.token.chars().collect();
                chars[chars.len().saturating_sub(6)..].iter().collect()
            };
            tracing::info!(token_ends = %tail, platform = %message.platform, title = %message.title,
                body = %message.body, "development push (push.sender = log)");
            Ok(PushOutcome::Delivered)
        })
    }
}

/// A push gateway's HTTP API: `POST url` with `{"token", "platform", "title", "body"}` and a bearer API key. Network
/// errors and 5xx answers are retried with a short back-off; 404 and 410 mean the token is gone; another 4xx is final.
pub struct HttpPush {
    client: reqwest::Client,
    url: String,
    api_key: Option<SecretString>,
    retries: u32,
}

#[derive(Serialize)]
struct GatewayRequest<'a> {
    token: &'a str,
    platform: &'a str,
    title: &'a str,
    body: &'a str,
}

impl HttpPush {
    pub fn new(
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
            .context("building the push gateway's HTTP client")?;
        Ok(Self {
            client,
            url,
            api_key,
            retries,
        })
    }

    /// One attempt: the outcome, or whether the error is worth a retry and the error.
    async fn attempt(
        &self,
        body: &GatewayRequest<'_>,
    ) -> Result<PushOutcome, (bool, anyhow::Error)> {
        let mut request = self.client.post(&self.url).json(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key.expose_secret());
        }
        let started = std::time::Instant::now();
        let result = match request.send().await {
            Ok(response) if response.status().is_success() => Ok(PushOutcome::Delivered),
            Ok(response)
                if matches!(
                    response.status(),
                    reqwest::StatusCode::NOT_FOUND | reqwest::StatusCode::GONE
                ) =>
            {
                Ok(PushOutcome::TokenGone)
            }
            Ok(response) => {
                let status = response.status();
                Err((
                    status.is_server_error(),
                    anyhow::anyhow!("the push gateway answered {status}"),
                ))
            }
            Err(err) => Err((
                true,
                anyhow::Error::new(err).context("the push gateway could not be reached"),
            )),
        };
        crate::infra::metrics::provider_call("push", "send", result.is_ok(), started.elapsed());
        result
    }
}

impl PushSender for HttpPush {
    fn send<'a>(&'a self, message: &'a PushMessage) -> PushFuture<'a> {
        Box::pin(async move {
            let body = GatewayRequest {
                token: &message.token,
                platform: &message.platform,
                title: &message.title,
                body: &message.body,
            };
            let mut tries = 0;
            loop {
                match self.attempt(&body).await {
                    Ok(outcome) => return Ok(outcome),
                    Err((retryable, err)) if retryable && tries < self.retries => {
                        tries += 1;
                        tracing::warn!(error = %err, tries, "a push failed; retrying");
                        tokio::time::sleep(Duration::from_millis(200 * u64::from(tries))).await;
                    }
                    Err((_, err)) => return Err(err),
                }
            }
        })
    }
}
