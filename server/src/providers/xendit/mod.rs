//! Xendit (Indonesia): the fixed virtual account issued for each payment ([`accounts`]) and its paid callback,
//! `POST /api/v1/webhooks/xendit/va-paid`, verified by the `x-callback-token` header (compared in constant time),
//! deduplicated on `payment_id`; `external_id` is the payment's reference, `amount` whole rupiah, the money sent at
//! `transaction_timestamp`.

mod accounts;

pub use accounts::XenditVirtualAccounts;

use kilat_domain::{Currency, Market, PaymentMethod};
use serde::Deserialize;
use subtle::ConstantTimeEq;

use super::{
    AccountRequest, Callback, CallbackError, CallbackProvider, Inbound, IssueFuture, PaymentOrigin,
    VirtualAccountProvider, bad_body,
};
use crate::settings::{PaymentSettings, WebhookSecret};

/// Xendit's virtual-account paid callback.
pub struct XenditCallbacks;

#[derive(Deserialize)]
struct XenditPaid {
    payment_id: String,
    external_id: String,
    amount: i64,
    #[serde(default)]
    currency: Option<String>,
    /// When the transfer was made (RFC 3339).
    #[serde(default)]
    transaction_timestamp: Option<String>,
}

/// The `x-callback-token` header equals the account's callback token (compared in constant time).
fn verify(token: &[u8], given: Option<&str>) -> Result<(), CallbackError> {
    let given = given.ok_or(CallbackError::BadSignature)?.as_bytes();
    if given.len() == token.len() && bool::from(given.ct_eq(token)) {
        Ok(())
    } else {
        Err(CallbackError::BadSignature)
    }
}

/// Reads a verified paid callback: `external_id` is our reference, `payment_id` the deduplication key, `amount` in
/// whole rupiah (Xendit has no smaller unit; our minor units are sen).
fn parse(body: &[u8]) -> Result<Callback, CallbackError> {
    let paid: XenditPaid = serde_json::from_slice(body).map_err(|_| bad_body())?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 100;
    if !ok(&paid.payment_id) || !ok(&paid.external_id) || paid.amount <= 0 {
        return Err(bad_body());
    }
    Ok(Callback {
        event_id: paid.payment_id.clone(),
        reference: paid.external_id,
        provider_payment_id: Some(paid.payment_id),
        amount: Some(paid.amount.checked_mul(100).ok_or_else(bad_body)?),
        currency: Some(paid.currency.unwrap_or_else(|| "IDR".into())),
        credits: true,
        reverses: false,
        // A time that does not read is no reason to refuse the money: it is then the day the callback came.
        sent_at: paid.transaction_timestamp.as_deref().and_then(|t| {
            time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339)
                .ok()
                .and_then(|at| i64::try_from(at.unix_timestamp_nanos() / 1_000_000).ok())
        }),
    })
}

impl CallbackProvider for XenditCallbacks {
    fn code(&self) -> &'static str {
        "xendit"
    }

    fn actor(&self) -> &'static str {
        "callback:xendit"
    }

    fn route(&self) -> &'static str {
        "xendit/va-paid"
    }

    fn market(&self) -> Option<Market> {
        Some(Market::Indonesia)
    }

    fn settings<'a>(&self, settings: &'a PaymentSettings) -> &'a WebhookSecret {
        &settings.xendit
    }

    fn read(
        &self,
        secret: &[u8],
        inbound: &Inbound<'_>,
    ) -> Result<Option<Callback>, CallbackError> {
        verify(secret, inbound.header("x-callback-token"))?;
        parse(inbound.body).map(Some)
    }

    /// Only the virtual accounts it issued (or development's simulated ones), in rupiah.
    fn settles(&self, payment: PaymentOrigin<'_>) -> bool {
        payment.method == PaymentMethod::VirtualAccount
            && payment.currency == Currency::Idr
            && matches!(payment.issuer, Some("xendit" | "simulated"))
    }
}

impl VirtualAccountProvider for XenditVirtualAccounts {
    fn name(&self) -> &'static str {
        "xendit"
    }

    fn create<'a>(&'a self, request: &'a AccountRequest<'a>) -> IssueFuture<'a> {
        Box::pin(async move {
            XenditVirtualAccounts::create(
                self,
                request.reference,
                request.amount,
                request.expires_at,
            )
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_must_match_exactly() {
        assert!(verify(b"tok", Some("tok")).is_ok());
        assert!(verify(b"tok", Some("tok2")).is_err());
        assert!(verify(b"tok", Some("to")).is_err());
        assert!(verify(b"tok", None).is_err());
    }

    #[test]
    fn amounts_are_whole_rupiah_read_into_sen() {
        let cb = parse(br#"{"payment_id":"p1","external_id":"KREF","amount":1050000}"#).unwrap();
        assert_eq!(cb.amount, Some(105_000_000));
        assert_eq!(cb.currency.as_deref(), Some("IDR"));
        assert_eq!(cb.event_id, "p1");
        for bad in [
            &br#"{"payment_id":"","external_id":"KREF","amount":1}"#[..],
            br#"{"payment_id":"p","external_id":"KREF","amount":0}"#,
            br#"{"payment_id":"p","external_id":"KREF","amount":92233720368547759}"#,
            b"not json",
        ] {
            assert!(parse(bad).is_err());
        }
    }

    #[test]
    fn the_transfer_time_is_read_and_one_that_does_not_read_is_none() {
        let at = |body: &[u8]| parse(body).unwrap().sent_at;
        assert_eq!(
            at(br#"{"payment_id":"p1","external_id":"K","amount":1,"transaction_timestamp":"2026-12-01T09:15:53.000Z"}"#),
            Some(1_796_116_553_000)
        );
        assert_eq!(at(br#"{"payment_id":"p1","external_id":"K","amount":1,"transaction_timestamp":"yesterday"}"#), None);
        assert_eq!(
            at(br#"{"payment_id":"p1","external_id":"K","amount":1}"#),
            None
        );
    }
}
