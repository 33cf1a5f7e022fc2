//! Delivery of sign-in codes by SMS or voice call: a trait with a development sender (`log`) and a provider's HTTP API
//! (`http`), chosen by the settings.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kilat_domain::Phone;
use secrecy::SecretString;
use serde::Serialize;

use crate::infra::gateway::Gateway;
use crate::settings::{SmsSender, SmsSettings};

/// By text message or by an automated voice call reading the digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Sms,
    Voice,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sms => "sms",
            Self::Voice => "voice",
        }
    }
}

/// One code to deliver.
#[derive(Debug, Clone)]
pub struct CodeMessage {
    pub phone: Phone,
    pub code: String,
    pub channel: Channel,
    /// The text in the borrower's language.
    pub text: String,
}

pub type SendFuture<'a> = Pin<Box<dyn Future<Output = Result<(), SendError>> + Send + 'a>>;

/// A code that did not certainly reach the provider's hands.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// Certainly not sent: the provider refused it, said it failed, or was never reached.
    #[error("{0:#}")]
    NotSent(anyhow::Error),
    /// Perhaps sent: the provider may have taken it (a call timed out after connecting), so the code may arrive.
    #[error("{0:#}")]
    Unknown(anyhow::Error),
}

/// Something that gets a code to a phone.
pub trait CodeSender: Send + Sync {
    fn send<'a>(&'a self, message: &'a CodeMessage) -> SendFuture<'a>;
}

/// Builds the sender the settings name.
pub fn from_settings(
    settings: &SmsSettings,
    outbox: Arc<Outbox>,
) -> anyhow::Result<Arc<dyn CodeSender>> {
    Ok(match settings.sender {
        SmsSender::Log => Arc::new(LogSender { outbox }),
        SmsSender::Http => Arc::new(HttpSender::new(
            settings.http_url.clone(),
            settings.http_api_key.clone(),
            Duration::from_millis(settings.http_timeout_ms),
            settings.http_retries,
        )?),
    })
}

/// Development: the code goes to the server log and to the outbox (readable at `GET /api/v1/dev/outbox` only in
/// development mode). Never a real phone.
pub struct LogSender {
    outbox: Arc<Outbox>,
}

impl CodeSender for LogSender {
    fn send<'a>(&'a self, message: &'a CodeMessage) -> SendFuture<'a> {
        Box::pin(async move {
            tracing::info!(phone = %message.phone, channel = message.channel.as_str(), code = %message.code,
                "development sign-in code (sms.sender = log)");
            self.outbox.push(OutboxEntry {
                phone: message.phone.e164().to_owned(),
                channel: message.channel,
                code: message.code.clone(),
                sent_at: time_now_ms(),
            });
            Ok(())
        })
    }
}

/// What the development sender "sent".
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    pub phone: String,
    pub channel: Channel,
    pub code: String,
    pub sent_at: i64,
}

/// The last few hundred development messages, in memory only.
#[derive(Default)]
pub struct Outbox {
    entries: Mutex<VecDeque<OutboxEntry>>,
}

impl Outbox {
    const CAPACITY: usize = 500;

    fn push(&self, entry: OutboxEntry) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if entries.len() == Self::CAPACITY {
            entries.pop_back();
        }
        entries.push_front(entry);
    }

    /// Newest first, optionally for one E.164 number.
    pub fn list(&self, phone: Option<&str>) -> Vec<OutboxEntry> {
        let entries = self
            .entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        entries
            .iter()
            .filter(|e| phone.is_none_or(|p| e.phone == p))
            .cloned()
            .collect()
    }
}

/// A provider's HTTP API: `POST url` with `{"to", "channel", "code", "text"}` and a bearer API key
/// ([`Gateway`]: network errors and 5xx answers retried); a 4xx answer is final.
pub struct HttpSender {
    gateway: Gateway,
}

#[derive(Serialize)]
struct ProviderRequest<'a> {
    to: &'a str,
    channel: Channel,
    code: &'a str,
    text: &'a str,
}

impl HttpSender {
    pub fn new(
        url: String,
        api_key: Option<SecretString>,
        timeout: Duration,
        retries: u32,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            gateway: Gateway::new("sms", url, api_key, timeout, retries)?,
        })
    }
}

impl CodeSender for HttpSender {
    fn send<'a>(&'a self, message: &'a CodeMessage) -> SendFuture<'a> {
        Box::pin(async move {
            let body = ProviderRequest {
                to: message.phone.e164(),
                channel: message.channel,
                code: &message.code,
                text: &message.text,
            };
            // A sign-in code is sent again when unsure (the same code twice; none would lock the borrower out); any
            // other text (a reminder) never twice.
            let answer = if message.code.is_empty() {
                self.gateway.post(&body).await
            } else {
                self.gateway.post_even_if_unsure(&body).await
            };
            match answer {
                Ok(status) if status.is_success() => Ok(()),
                Ok(status) => Err(SendError::NotSent(anyhow::anyhow!(
                    "the SMS provider answered {status}"
                ))),
                Err(failed) if failed.maybe_delivered => Err(SendError::Unknown(failed.into())),
                Err(failed) => Err(SendError::NotSent(failed.into())),
            }
        })
    }
}

/// The time an outbox entry was written (the development outbox is for people reading it, not for rules).
fn time_now_ms() -> i64 {
    i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).unwrap_or(0)
}
