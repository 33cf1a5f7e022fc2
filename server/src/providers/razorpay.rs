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
    match event.event.as_str() {
        "payment.captured" => {}
        "refund.processed" => {
            return parse_reversal(&event.event, &event.payload, "refund").map(Some);
        }
        "payment.dispute.lost" => {
            return parse_reversal(&event.event, &event.payload, "dispute").map(Some);
        }
        _ => return Ok(None),
    }
    let payment = serde_json::from_value::<RazorpayPayload>(event.payload)
        .map_err(|_| bad_body())?
        .payment
        .entity;
    // A capture of nothing (or less) is no money: a malformed body, not a payment to hold.
    if payment.id.trim().is_empty() || payment.id.len() > 64 || payment.amount <= 0 {
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
        reverses: false,
        sent_at: payment.created_at.and_then(|s| s.checked_mul(1000)),
    }))
}

/// What a refund or a dispute carries: its own id, and the money it takes back.
#[derive(Deserialize)]
struct RazorpayReversal {
    id: String,
    amount: i64,
    currency: String,
    #[serde(default)]
    created_at: Option<i64>,
}

/// Reads a verified refund (`refund.processed`) or lost dispute (`payment.dispute.lost`): money taken back from a
/// captured payment, keyed on the event and the refund's or dispute's id, the payment's reference from its notes.
fn parse_reversal(
    event: &str,
    payload: &serde_json::Value,
    key: &str,
) -> Result<Callback, CallbackError> {
    let entity = |name: &str| payload.get(name).and_then(|p| p.get("entity")).cloned();
    let reversal: RazorpayReversal = entity(key)
        .and_then(|e| serde_json::from_value(e).ok())
        .ok_or_else(bad_body)?;
    let payment: RazorpayPayment = entity("payment")
        .and_then(|e| serde_json::from_value(e).ok())
        .ok_or_else(bad_body)?;
    let ok = |id: &str| !id.trim().is_empty() && id.len() <= 64;
    if !ok(&reversal.id) || !ok(&payment.id) || reversal.amount <= 0 {
        return Err(bad_body());
    }
    Ok(Callback {
        event_id: format!("{event}:{}", reversal.id),
        reference: payment
            .notes
            .reference
            .filter(|r| r.len() <= 64)
            .unwrap_or_default(),
        provider_payment_id: Some(payment.id),
        amount: Some(reversal.amount),
        currency: Some(reversal.currency),
        credits: false,
        reverses: true,
        sent_at: reversal.created_at.and_then(|s| s.checked_mul(1000)),
    })
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
        // A capture of nothing, or less, is a malformed body (422), never money to hold.
        for amount in ["0", "-500"] {
            let body = format!(
                r#"{{"event":"payment.captured","payload":{{"payment":{{"entity":{{"id":"pay_3","amount":{amount},"currency":"INR","notes":{{"reference":"KREF"}}}}}}}}}}"#
            );
            assert!(parse(body.as_bytes()).is_err(), "{amount}");
        }
    }

    #[test]
    fn a_refund_or_a_lost_dispute_reads_as_money_taken_back_keyed_on_its_own_id() {
        let refund = br#"{"event":"refund.processed","payload":{"refund":{"entity":{"id":"rfnd_1","amount":500,"currency":"INR","payment_id":"pay_1"}},"payment":{"entity":{"id":"pay_1","amount":524500,"currency":"INR","notes":{"reference":"KREF"}}}}}"#;
        let cb = parse(refund).unwrap().unwrap();
        assert!(cb.reverses && !cb.credits);
        assert_eq!(cb.event_id, "refund.processed:rfnd_1");
        assert_eq!((cb.reference.as_str(), cb.amount), ("KREF", Some(500)));
        assert_eq!(cb.provider_payment_id.as_deref(), Some("pay_1"));
        let dispute = br#"{"event":"payment.dispute.lost","payload":{"dispute":{"entity":{"id":"disp_1","amount":524500,"currency":"INR"}},"payment":{"entity":{"id":"pay_1","amount":524500,"currency":"INR","notes":{}}}}}"#;
        let cb = parse(dispute).unwrap().unwrap();
        assert!(cb.reverses);
        assert_eq!(
            (cb.event_id.as_str(), cb.reference.as_str()),
            ("payment.dispute.lost:disp_1", "")
        );
        // Without the refund's own entity it is no refund.
        let bare = br#"{"event":"refund.processed","payload":{"payment":{"entity":{"id":"pay_1","amount":1,"currency":"INR"}}}}"#;
        assert!(parse(bare).is_err());
        // Other events stay ignored.
        assert!(
            parse(br#"{"event":"refund.created","payload":{}}"#)
                .unwrap()
                .is_none()
        );
    }
}
