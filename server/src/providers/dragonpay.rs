//! Dragonpay: the postback `POST /api/v1/webhooks/dragonpay/postback`, form-encoded or as a `GET`'s query string.
//! The digest (SHA-1 of `txnid:refno:status:message:password`) is verified first; `txnid` is our reference,
//! `refno:status` the deduplication key (a pending then a success are two events); only `S` credits; the answer is
//! `result=OK` as plain text.

use serde::Deserialize;
use subtle::ConstantTimeEq;

use kilat_domain::PaymentMethod;

use super::{Callback, CallbackError, CallbackProvider, Inbound, PaymentOrigin, Reply, bad_body};
use crate::settings::{PaymentSettings, WebhookSecret};

/// Dragonpay's postback.
pub struct DragonpayCallbacks;

/// Dragonpay's postback fields.
#[derive(Debug, Deserialize)]
pub struct DragonpayPostback {
    pub txnid: Option<String>,
    pub refno: Option<String>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub digest: Option<String>,
    /// Newer postbacks carry the amount (`1234.50`) and currency. Neither is in the digest, so neither is read.
    pub amount: Option<String>,
    pub ccy: Option<String>,
}

/// The SHA-1 hex digest Dragonpay computes over `txnid:refno:status:message:secret`.
pub fn digest(txnid: &str, refno: &str, status: &str, message: &str, secret: &str) -> String {
    use sha1::Digest;
    hex::encode(sha1::Sha1::digest(
        format!("{txnid}:{refno}:{status}:{message}:{secret}").as_bytes(),
    ))
}

/// Verifies a postback's digest (constant time) and reads it.
fn verify(secret: &[u8], form: &DragonpayPostback) -> Result<Callback, CallbackError> {
    let secret = std::str::from_utf8(secret).map_err(|_| CallbackError::Disabled)?;
    let field = |f: &Option<String>| f.clone().unwrap_or_default();
    let (txnid, refno, status, message) = (
        field(&form.txnid),
        field(&form.refno),
        field(&form.status),
        field(&form.message),
    );
    let expected = digest(&txnid, &refno, &status, &message, secret);
    let given = form
        .digest
        .as_deref()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if !(given.len() == expected.len() && bool::from(given.as_bytes().ct_eq(expected.as_bytes()))) {
        return Err(CallbackError::BadSignature);
    }
    let ok = |s: &str| !s.is_empty() && s.len() <= 64;
    if !ok(&txnid) || !ok(&refno) || !ok(&status) {
        return Err(bad_body());
    }
    // The amount and currency are outside the digest, and Dragonpay hands the same fields to the borrower's browser on
    // its return URL: a postback replayed with another amount would be taken as money received. Dragonpay collects
    // exactly the amount the reference was issued for, so that is what is credited (`amount: None`).
    Ok(Callback {
        event_id: format!("{refno}:{status}"),
        reference: txnid,
        provider_payment_id: Some(refno).filter(|_| status == "S"),
        amount: None,
        currency: None,
        credits: status == "S",
        // Refund, chargeback, void: money taken back after an `S`.
        reverses: matches!(status.as_str(), "R" | "K" | "V"),
        // The digest covers no time.
        sent_at: None,
    })
}

impl CallbackProvider for DragonpayCallbacks {
    fn code(&self) -> &'static str {
        "dragonpay"
    }

    fn actor(&self) -> &'static str {
        "callback:dragonpay"
    }

    fn route(&self) -> &'static str {
        "dragonpay/postback"
    }

    fn takes_query(&self) -> bool {
        true
    }

    fn settings<'a>(&self, settings: &'a PaymentSettings) -> &'a WebhookSecret {
        &settings.dragonpay
    }

    /// The digest is over the fields' values: they are split out of the form, verified, and only then read. A body
    /// that is not a form cannot carry a valid digest.
    fn read(
        &self,
        secret: &[u8],
        inbound: &Inbound<'_>,
    ) -> Result<Option<Callback>, CallbackError> {
        let form: DragonpayPostback =
            serde_urlencoded::from_bytes(inbound.body).map_err(|_| CallbackError::BadSignature)?;
        verify(secret, &form).map(Some)
    }

    /// Only the payments it issued.
    fn settles(&self, payment: PaymentOrigin<'_>) -> bool {
        payment.method == PaymentMethod::Dragonpay && payment.issuer == Some("dragonpay")
    }

    fn settles_method(&self, method: PaymentMethod) -> bool {
        method == PaymentMethod::Dragonpay
    }

    fn reply(&self) -> Reply {
        Reply::Text("result=OK")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha1_of_the_fields_and_only_s_credits() {
        // SHA-1 of "a:b:S:m:k".
        let good = digest("a", "b", "S", "m", "k");
        assert_eq!(good, "5813ff25dd55dfa7db5957cd20276463aec0606c");
        let form = |status: &str, digest: String| DragonpayPostback {
            txnid: Some("a".into()),
            refno: Some("b".into()),
            status: Some(status.into()),
            message: Some("m".into()),
            digest: Some(digest),
            amount: Some("12.5".into()),
            ccy: None,
        };
        let cb = verify(b"k", &form("S", good.clone())).unwrap();
        assert!(cb.credits);
        // The posted amount is outside the digest: not read.
        assert_eq!(cb.amount, None);
        assert_eq!(cb.event_id, "b:S");
        assert!(verify(b"k", &form("P", good.clone())).is_err());
        let pending = digest("a", "b", "P", "m", "k");
        let pending = verify(b"k", &form("P", pending)).unwrap();
        assert!(!pending.credits && !pending.reverses);
        assert!(!cb.reverses);
        // A refund, a chargeback and a void take money back: for finance, never a credit.
        for status in ["R", "K", "V"] {
            let back = verify(b"k", &form(status, digest("a", "b", status, "m", "k"))).unwrap();
            assert!(back.reverses && !back.credits, "{status}");
            assert_eq!(back.event_id, format!("b:{status}"));
        }
        assert!(verify(b"x", &form("S", good)).is_err());
    }
}
