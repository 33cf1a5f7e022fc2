//! Payment providers' callbacks (docs/API-WEBHOOKS.md): Razorpay's `payment.captured` (India), Xendit's
//! virtual-account paid callback (Indonesia) and Dragonpay's postback. Each is verified before it is parsed (an
//! HMAC, a token or a digest, compared in constant time), then credited through the same settlement as finance's
//! confirmation, in the transaction that records the provider's event id under a unique key: a replay, or twenty
//! copies at once, posts once and is answered as a success. An amount (or currency) other than the payment's is held
//! for finance, not credited.

use hmac::{Hmac, Mac};
use kilat_domain::{Code, Currency};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::load_in;
use super::payments::{Decision, PaymentMethod, PaymentStatus, payment_of, settle_in};
use crate::error::{Error, FieldProblem};
use crate::orders::Actor;
use crate::services::Services;
use crate::store::audit::NewAuditEntry;

/// A provider that calls back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Razorpay,
    Xendit,
    Dragonpay,
}

impl Provider {
    pub fn code(self) -> &'static str {
        match self {
            Provider::Razorpay => "razorpay",
            Provider::Xendit => "xendit",
            Provider::Dragonpay => "dragonpay",
        }
    }

    fn actor(self) -> Actor {
        Actor::System(match self {
            Provider::Razorpay => "callback:razorpay",
            Provider::Xendit => "callback:xendit",
            Provider::Dragonpay => "callback:dragonpay",
        })
    }
}

/// Why a callback was not taken.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    /// The signature, token or digest is missing or wrong: nothing was read or written.
    #[error("the callback's signature does not verify")]
    BadSignature,
    /// The provider is not enabled on this server.
    #[error("this provider is not enabled")]
    Disabled,
    #[error(transparent)]
    Service(#[from] Error),
}

impl From<sqlx::Error> for CallbackError {
    fn from(e: sqlx::Error) -> Self {
        CallbackError::Service(e.into())
    }
}

/// What a verified callback did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Credited: the ledger entry posted.
    Confirmed,
    /// The amount differs: held for finance, nothing credited.
    Held,
    /// A status or event that credits nothing (e.g. Dragonpay's `P`, Razorpay's other events).
    Ignored,
    /// The payment was settled before (by finance or another event): nothing posted.
    NotOpen,
    /// This event was taken before: nothing posted.
    Replayed,
    /// Money for a loan that owes nothing, or beyond what it owed: credited up to what was owed, the rest owed back
    /// to the borrower (finance's refunds).
    RefundDue,
    /// The payment was not made with this provider (another method, market or issuer): recorded and audited, nothing
    /// credited.
    WrongProvider,
}

impl Outcome {
    pub fn code(self) -> &'static str {
        match self {
            Outcome::Confirmed => "confirmed",
            Outcome::Held => "held",
            Outcome::Ignored => "ignored",
            Outcome::NotOpen => "not_open",
            Outcome::Replayed => "replayed",
            Outcome::RefundDue => "refund_due",
            Outcome::WrongProvider => "wrong_provider",
        }
    }
}

/// A verified callback, read into what settles a payment.
#[derive(Debug, Clone)]
pub struct Callback {
    pub provider: Provider,
    /// The provider's id of this event: the deduplication key.
    pub event_id: String,
    /// Our payment's reference, as the provider quotes it.
    pub reference: String,
    /// The provider's id of the payment (stored on the payment, unique).
    pub provider_payment_id: Option<String>,
    /// Minor units received; `None` when the provider does not say (Dragonpay's classic postback): the payment's.
    pub amount: Option<i64>,
    /// The currency code received, when the provider says.
    pub currency: Option<String>,
    /// False for a status that credits nothing.
    pub credits: bool,
}

fn bad_body() -> CallbackError {
    CallbackError::Service(Error::field(
        "body",
        FieldProblem::new("field.callback_body"),
    ))
}

fn secret_of(secret: &Option<SecretString>) -> Result<&[u8], CallbackError> {
    secret
        .as_ref()
        .map(|s| s.expose_secret().as_bytes())
        .filter(|s| !s.is_empty())
        .ok_or(CallbackError::Disabled)
}

/// Razorpay: `X-Razorpay-Signature` is the hex HMAC-SHA256 of the raw body with the webhook secret.
pub fn verify_razorpay(
    secret: &Option<SecretString>,
    body: &[u8],
    signature: Option<&str>,
) -> Result<(), CallbackError> {
    let key = secret_of(secret)?;
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
pub fn razorpay_signature(secret: &str, body: &[u8]) -> String {
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
    #[serde(default)]
    notes: RazorpayNotes,
}

#[derive(Deserialize, Default)]
struct RazorpayNotes {
    #[serde(default)]
    reference: Option<String>,
}

/// Reads a verified Razorpay event: `payment.captured` credits the payment whose reference is in
/// `payload.payment.entity.notes.reference`; any other event is acknowledged and ignored (`None`). The event's key is
/// taken from the signed body (the event and the provider's payment id), never from an unsigned header: a replayed
/// capture of one payment is the same event whatever headers come with it.
pub fn parse_razorpay(body: &[u8]) -> Result<Option<Callback>, CallbackError> {
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
    let reference = payment
        .notes
        .reference
        .filter(|r| !r.is_empty() && r.len() <= 64)
        .ok_or_else(bad_body)?;
    Ok(Some(Callback {
        provider: Provider::Razorpay,
        event_id,
        reference,
        provider_payment_id: Some(payment.id),
        amount: Some(payment.amount),
        currency: Some(payment.currency),
        credits: true,
    }))
}

/// Xendit: the `x-callback-token` header equals the account's callback token (compared in constant time).
pub fn verify_xendit(
    token: &Option<SecretString>,
    given: Option<&str>,
) -> Result<(), CallbackError> {
    let expected = secret_of(token)?;
    let given = given.ok_or(CallbackError::BadSignature)?.as_bytes();
    if given.len() == expected.len() && bool::from(given.ct_eq(expected)) {
        Ok(())
    } else {
        Err(CallbackError::BadSignature)
    }
}

#[derive(Deserialize)]
struct XenditPaid {
    payment_id: String,
    external_id: String,
    amount: i64,
    #[serde(default)]
    currency: Option<String>,
}

/// Reads a verified Xendit virtual-account paid callback: `external_id` is our reference, `payment_id` the
/// deduplication key, `amount` in whole rupiah (Xendit has no smaller unit; our minor units are sen).
pub fn parse_xendit(body: &[u8]) -> Result<Callback, CallbackError> {
    let paid: XenditPaid = serde_json::from_slice(body).map_err(|_| bad_body())?;
    let ok = |s: &str| !s.is_empty() && s.len() <= 100;
    if !ok(&paid.payment_id) || !ok(&paid.external_id) || paid.amount <= 0 {
        return Err(bad_body());
    }
    Ok(Callback {
        provider: Provider::Xendit,
        event_id: paid.payment_id.clone(),
        reference: paid.external_id,
        provider_payment_id: Some(paid.payment_id),
        amount: Some(paid.amount.checked_mul(100).ok_or_else(bad_body)?),
        currency: Some(paid.currency.unwrap_or_else(|| "IDR".into())),
        credits: true,
    })
}

/// Dragonpay's postback fields.
#[derive(Debug, Deserialize)]
pub struct DragonpayPostback {
    pub txnid: Option<String>,
    pub refno: Option<String>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub digest: Option<String>,
    /// Newer postbacks carry the amount (`1234.50`) and currency.
    pub amount: Option<String>,
    pub ccy: Option<String>,
}

/// The SHA-1 hex digest Dragonpay computes over `txnid:refno:status:message:secret`.
pub fn dragonpay_digest(
    txnid: &str,
    refno: &str,
    status: &str,
    message: &str,
    secret: &str,
) -> String {
    use sha1::Digest;
    hex::encode(sha1::Sha1::digest(
        format!("{txnid}:{refno}:{status}:{message}:{secret}").as_bytes(),
    ))
}

/// Verifies a Dragonpay postback's digest (constant time) and reads it: `txnid` is our reference, `refno:status` the
/// deduplication key (a pending then a success are two events); only `S` credits.
pub fn verify_dragonpay(
    secret: &Option<SecretString>,
    form: &DragonpayPostback,
) -> Result<Callback, CallbackError> {
    let secret = std::str::from_utf8(secret_of(secret)?).map_err(|_| CallbackError::Disabled)?;
    let field = |f: &Option<String>| f.clone().unwrap_or_default();
    let (txnid, refno, status, message) = (
        field(&form.txnid),
        field(&form.refno),
        field(&form.status),
        field(&form.message),
    );
    let expected = dragonpay_digest(&txnid, &refno, &status, &message, secret);
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
    let amount = match form
        .amount
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    {
        None => None,
        Some(a) => Some(decimal_minor(a).ok_or_else(bad_body)?),
    };
    Ok(Callback {
        provider: Provider::Dragonpay,
        event_id: format!("{refno}:{status}"),
        reference: txnid,
        provider_payment_id: Some(refno).filter(|_| status == "S"),
        amount,
        currency: form.ccy.clone().filter(|c| !c.trim().is_empty()),
        credits: status == "S",
    })
}

/// `1234.5` → 123450 minor units; anything else (a sign, more than two decimals, letters) is `None`.
fn decimal_minor(text: &str) -> Option<i64> {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    if whole.is_empty()
        || frac.len() > 2
        || !whole
            .bytes()
            .chain(frac.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let frac: i64 = format!("{frac:0<2}").parse().ok()?;
    whole.checked_mul(100)?.checked_add(frac)
}

/// True when `provider` may settle a payment made by `method` in `currency`, issued by `issuer`: Razorpay India's UPI
/// and bank transfers only, Xendit the virtual accounts it issued (or development's simulated ones), Dragonpay only
/// the payments it issued.
fn belongs(
    provider: Provider,
    method: PaymentMethod,
    currency: Currency,
    issuer: Option<&str>,
) -> bool {
    match provider {
        Provider::Razorpay => method.takes_utr() && currency == Currency::Inr,
        Provider::Xendit => {
            method == PaymentMethod::VirtualAccount
                && currency == Currency::Idr
                && matches!(issuer, Some("xendit" | "simulated"))
        }
        Provider::Dragonpay => method == PaymentMethod::Dragonpay && issuer == Some("dragonpay"),
    }
}

/// Takes a verified callback. In one transaction: the order is locked first (every writer of a payment locks its
/// order first, so two callbacks and finance queue instead of deadlocking), then the event is recorded under its
/// unique key (a replay stops here and posts nothing). A provider that the payment does not belong to credits
/// nothing (recorded and audited, `wrong_provider`). Otherwise the money settles the payment as finance's confirm
/// does: the amount asked is credited, another amount held for finance, money the loan does not owe becomes a
/// refund due; money for a payment finance had rejected comes back to finance's queue, held. A payment not found is
/// `not_found`.
pub async fn receive(s: &Services, cb: &Callback) -> Result<Outcome, CallbackError> {
    let row =
        s.db.payment_by_reference(&cb.reference)
            .await?
            .ok_or(Error::NotFound)?;
    let now = s.clock.now_ms();
    let provider = cb.provider.code();
    let mut tx = s.db.begin().await?;
    let mut loan = load_in(&mut tx, &row.order_id).await?;
    if !tx
        .insert_callback(provider, &cb.event_id, &row.id, cb.amount, "received", now)
        .await?
    {
        tx.rollback().await?;
        return Ok(Outcome::Replayed);
    }
    let row = tx.payment_in_tx(&row.id).await?.ok_or(Error::NotFound)?;
    let payment = payment_of(s, row)?;
    let received = cb.amount.unwrap_or(payment.row.amount);
    let audit = |status: &str| {
        serde_json::json!({
            "paymentId": payment.row.id,
            "orderNo": payment.row.order_no,
            "amount": payment.row.amount,
            "received": received,
            "currency": cb.currency,
            "provider": provider,
            "eventId": cb.event_id,
            "status": status,
        })
        .to_string()
    };
    if !belongs(
        cb.provider,
        payment.method,
        payment.row.currency,
        payment.row.provider.as_deref(),
    ) {
        tx.set_callback_outcome(provider, &cb.event_id, Outcome::WrongProvider.code())
            .await?;
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "system",
            actor_id: None,
            action: "payment.callback_wrong_provider",
            entity: "order",
            entity_id: &loan.order.id,
            before_json: Some(&audit(payment.status.code())),
            after_json: Some(&audit(payment.status.code())),
            at: now,
        })
        .await?;
        tx.commit().await?;
        tracing::warn!(provider, payment = %payment.row.id, method = payment.method.code(),
            "a callback from a provider this payment was not made with: nothing credited");
        return Ok(Outcome::WrongProvider);
    }
    if !cb.credits {
        tx.set_callback_outcome(provider, &cb.event_id, Outcome::Ignored.code())
            .await?;
        tx.commit().await?;
        return Ok(Outcome::Ignored);
    }
    let decision = match payment.status {
        PaymentStatus::Pending | PaymentStatus::Verifying => Decision::AsAsked,
        // Finance found no transfer, but the provider says the money arrived: it goes back to finance, held.
        PaymentStatus::Rejected => Decision::Hold,
        _ => {
            tx.set_callback_outcome(provider, &cb.event_id, Outcome::NotOpen.code())
                .await?;
            tx.commit().await?;
            return Ok(Outcome::NotOpen);
        }
    };
    if let Some(id) = &cb.provider_payment_id {
        tx.set_payment_provider_id(&payment.row.id, id).await?;
    }
    let same_currency = cb
        .currency
        .as_deref()
        .is_none_or(|c| c.eq_ignore_ascii_case(payment.row.currency.code()));
    // A currency other than the payment's is never the payment's amount: held.
    let decision = if same_currency {
        decision
    } else {
        Decision::Hold
    };
    let actor = cb.provider.actor();
    let settled = settle_in(
        s, &mut tx, &mut loan, &payment, received, decision, None, &actor, now,
    )
    .await?;
    let outcome = match settled.status {
        PaymentStatus::Confirmed => Outcome::Confirmed,
        PaymentStatus::RefundDue => Outcome::RefundDue,
        _ => Outcome::Held,
    };
    tx.set_callback_outcome(provider, &cb.event_id, outcome.code())
        .await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "system",
        actor_id: None,
        action: match outcome {
            Outcome::Held => "payment.callback_hold",
            Outcome::RefundDue => "payment.callback_refund_due",
            _ => "payment.callback_confirm",
        },
        entity: "order",
        entity_id: &loan.order.id,
        before_json: Some(&audit(payment.status.code())),
        after_json: Some(&audit(settled.status.code())),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(s: &str) -> Option<SecretString> {
        Some(SecretString::from(s.to_owned()))
    }

    #[test]
    fn razorpay_signatures_verify_only_with_the_secret_and_the_exact_body() {
        let body = br#"{"event":"payment.captured"}"#;
        let good = razorpay_signature("s3cret", body);
        assert!(verify_razorpay(&secret("s3cret"), body, Some(&good)).is_ok());
        assert!(matches!(
            verify_razorpay(&secret("other"), body, Some(&good)),
            Err(CallbackError::BadSignature)
        ));
        assert!(matches!(
            verify_razorpay(&secret("s3cret"), b"{}", Some(&good)),
            Err(CallbackError::BadSignature)
        ));
        assert!(matches!(
            verify_razorpay(&secret("s3cret"), body, None),
            Err(CallbackError::BadSignature)
        ));
        assert!(matches!(
            verify_razorpay(&None, body, Some(&good)),
            Err(CallbackError::Disabled)
        ));
    }

    #[test]
    fn xendit_tokens_must_match_exactly() {
        assert!(verify_xendit(&secret("tok"), Some("tok")).is_ok());
        assert!(verify_xendit(&secret("tok"), Some("tok2")).is_err());
        assert!(verify_xendit(&secret("tok"), Some("to")).is_err());
        assert!(verify_xendit(&secret("tok"), None).is_err());
    }

    #[test]
    fn dragonpay_digests_are_sha1_of_the_fields_and_only_s_credits() {
        // SHA-1 of "a:b:S:m:k".
        let digest = dragonpay_digest("a", "b", "S", "m", "k");
        assert_eq!(digest, "5813ff25dd55dfa7db5957cd20276463aec0606c");
        let form = |status: &str, digest: String| DragonpayPostback {
            txnid: Some("a".into()),
            refno: Some("b".into()),
            status: Some(status.into()),
            message: Some("m".into()),
            digest: Some(digest),
            amount: Some("12.5".into()),
            ccy: None,
        };
        let cb = verify_dragonpay(&secret("k"), &form("S", digest.clone())).unwrap();
        assert!(cb.credits);
        assert_eq!(cb.amount, Some(1250));
        assert_eq!(cb.event_id, "b:S");
        assert!(verify_dragonpay(&secret("k"), &form("P", digest.clone())).is_err());
        let pending = dragonpay_digest("a", "b", "P", "m", "k");
        assert!(
            !verify_dragonpay(&secret("k"), &form("P", pending))
                .unwrap()
                .credits
        );
        assert!(verify_dragonpay(&secret("x"), &form("S", digest)).is_err());
    }

    #[test]
    fn decimal_amounts_read_into_minor_units() {
        assert_eq!(decimal_minor("1234"), Some(123_400));
        assert_eq!(decimal_minor("1234.5"), Some(123_450));
        assert_eq!(decimal_minor("0.05"), Some(5));
        for bad in ["", ".5", "1.234", "-1", "1e3", "1,5"] {
            assert_eq!(decimal_minor(bad), None, "{bad}");
        }
    }
}
