//! Pushes to a borrower's device (payment receipts, issue 19 item 16): a trait with a development sender (`log`) and a
//! push gateway's HTTP API (`http`), chosen by the settings `[push]`; `off` queues none. The device's push token is
//! the one its app uploaded (`POST /api/v1/borrower/device-token`).

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use secrecy::SecretString;
use serde::Serialize;

use crate::infra::gateway::Gateway;
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PushOutcome {
    /// The gateway took it.
    Delivered,
    /// The gateway no longer knows the token (the app was removed, or the token replaced): forget it.
    TokenGone,
    /// No answer came, but the gateway may have taken it (a timeout after connecting, a 504): never pushed again.
    Unconfirmed(String),
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

/// A push gateway's HTTP API: `POST url` with `{"token", "platform", "title", "body"}` and a bearer API key
/// ([`Gateway`]: network errors and 5xx answers retried); 404 and 410 mean the token is gone; another 4xx is final.
pub struct HttpPush {
    gateway: Gateway,
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
        Ok(Self {
            gateway: Gateway::new("push", url, api_key, timeout, retries)?,
        })
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
            let answer = match self.gateway.post(&body).await {
                Ok(status) => status,
                Err(failed) if failed.maybe_delivered => {
                    return Ok(PushOutcome::Unconfirmed(format!("{failed:#}")));
                }
                Err(failed) => return Err(failed.into()),
            };
            match answer {
                status if status.is_success() => Ok(PushOutcome::Delivered),
                StatusCode::NOT_FOUND | StatusCode::GONE => Ok(PushOutcome::TokenGone),
                status => anyhow::bail!("the push gateway answered {status}"),
            }
        })
    }
}
