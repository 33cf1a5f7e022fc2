//! Razorpay (India): the webhook `POST /api/v1/webhooks/razorpay`. `X-Razorpay-Signature` is the hex HMAC-SHA256 of
//! the raw body with the webhook secret; `payment.captured` credits the payment whose reference is in
//! `payload.payment.entity.notes.reference` (`amount` in paise), its money sent at `created_at`; any other event is
//! acknowledged and ignored.

use hmac::{Hmac, Mac};
use kilat_domain::{Currency, Market};
use serde::Deserialize;
use sha2::Sha256;

use super::{Callback, CallbackError, CallbackProvider, Inbound, PaymentOrigin, bad_body};
use crate::settings::{PaymentSettings, WebhookSecret};

/// Razorpay's webhook.
pub struct RazorpayCallbacks;

/// Checks `X-Razorpay-Signature` against the raw body.
fn verify(key: &[u8], body: &[u8], signature: Option<&str>) -> Result<(), CallbackError> {
    let given = signature
        .and_then(|s| hex::decode(s.trim()).ok())
        .ok_or(CallbackError::BadSignature)?;
    let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(key)
        .map_err(|_| CallbackError::BadSignature)?;
    mac.update(body);
    mac.verify_slice(&given)
        .map_err(|_| CallbackError::BadSignature)
}

/// The hex HMAC-SHA256 Razorpay signs a body with (for tests and the benchmark).
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = <Hmac<Sha256> as hmac::KeyInit>::new_from_slice(secret.as_bytes())
        .expect("HMAC takes any key length");
    mac.update(body);
    hex::encode(mac.finalize().into_bytes())
}

#[derive(Deserialize)]
struct RazorpayEvent {
    event: String,
    #[serde(default)]
    payload: serde_json::Value,
}

#[derive(Deserialize)]
struct RazorpayPayload {
    payment: RazorpayPaymentWrap,
}

#[derive(Deserialize)]
struct RazorpayPaymentWrap {
    entity: RazorpayPayment,
}

#[derive(Deserialize)]
struct RazorpayPayment {
    id: String,
    amount: i64,
    currency: String,
    /// When the payment was made, in seconds since the epoch.
    #[serde(default)]
    created_at: Option<i64>,
    #[serde(default)]
    notes: RazorpayNotes,
}

#[derive(Deserialize, Default)]
struct RazorpayNotes {
    #[serde(default)]
    reference: Option<String>,
}

/// Reads a verified event. Its key is taken from the signed body (the event and the provider's payment id), never
/// from an unsigned header: a replayed capture of one payment is the same event whatever headers come with it.
fn parse(body: &[u8]) -> Result<Option<Callback>, CallbackError> {
    let event: RazorpayEvent = serde_json::from_slice(body).map_err(|_| bad_body())?;
    if event.event != "payment.captured" {
        return Ok(None);
    }
    let payment = serde_json::from_value::<RazorpayPayload>(event.payload)
        .map_err(|_| bad_body())?
        .payment
        .entity;
    if payment.id.trim().is_empty() || payment.id.len() > 64 {
        return Err(bad_body());
    }
    let event_id = format!("{}:{}", event.event, payment.id);
    // Money captured without our reference (or with one too long to be ours) is still money: read with none, it is
    // recorded for finance as matching no payment.
    let reference = payment
        .notes
        .reference
        .filter(|r| r.len() <= 64)
        .unwrap_or_default();
    Ok(Some(Callback {
        event_id,
        reference,
        provider_payment_id: Some(payment.id),
        amount: Some(payment.amount),
        currency: Some(payment.currency),
        credits: true,
        sent_at: payment.created_at.and_then(|s| s.checked_mul(1000)),
    }))
}

impl CallbackProvider for RazorpayCallbacks {
    fn code(&self) -> &'static str {
        "razorpay"
    }

    fn actor(&self) -> &'static str {
        "callback:razorpay"
    }

    fn route(&self) -> &'static str {
        "razorpay"
    }

    fn market(&self) -> Option<Market> {
        Some(Market::India)
    }

    fn settings<'a>(&self, settings: &'a PaymentSettings) -> &'a WebhookSecret {
        &settings.razorpay
    }

    fn read(
        &self,
        secret: &[u8],
        inbound: &Inbound<'_>,
    ) -> Result<Option<Callback>, CallbackError> {
        verify(secret, inbound.body, inbound.header("x-razorpay-signature"))?;
        parse(inbound.body)
    }

    /// India's UPI and bank transfers only.
    fn settles(&self, payment: PaymentOrigin<'_>) -> bool {
        payment.method.takes_utr() && payment.currency == Currency::Inr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_verify_only_with_the_secret_and_the_exact_body() {
        let body = br#"{"event":"payment.captured"}"#;
        let good = signature("s3cret", body);
        assert!(verify(b"s3cret", body, Some(&good)).is_ok());
        assert!(matches!(
            verify(b"other", body, Some(&good)),
            Err(CallbackError::BadSignature)
        ));
        assert!(matches!(
            verify(b"s3cret", b"{}", Some(&good)),
            Err(CallbackError::BadSignature)
        ));
        assert!(matches!(
            verify(b"s3cret", body, None),
            Err(CallbackError::BadSignature)
        ));
    }

    #[test]
    fn only_a_capture_reads_into_a_callback_keyed_on_the_signed_body() {
        assert!(
            parse(br#"{"event":"payment.failed","payload":{}}"#)
                .unwrap()
                .is_none()
        );
        let body = br#"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_1","amount":524500,"currency":"INR","notes":{"reference":"KREF"}}}}}"#;
        let cb = parse(body).unwrap().unwrap();
        assert_eq!(cb.event_id, "payment.captured:pay_1");
        assert_eq!((cb.reference.as_str(), cb.amount), ("KREF", Some(524_500)));
        assert_eq!(cb.sent_at, None, "no time given");
        let made = br#"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_2","amount":1,"currency":"INR","created_at":1796000000,"notes":{"reference":"KREF"}}}}}"#;
        assert_eq!(
            parse(made).unwrap().unwrap().sent_at,
            Some(1_796_000_000_000)
        );
        let no_reference = br#"{"event":"payment.captured","payload":{"payment":{"entity":{"id":"pay_1","amount":1,"currency":"INR"}}}}"#;
        assert_eq!(parse(no_reference).unwrap().unwrap().reference, "");
    }
}
