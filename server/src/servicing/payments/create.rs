//! Starting a payment: priced now, with a reference unique to it, idempotent on the client's key; what a provider
//! issues for it is asked for before the transaction.

use super::*;
use crate::infra::limits;

/// The reference of a payment request: `KP` and ten characters of Crockford's base 32 (no look-alikes), derived by a
/// keyed hash from the borrower, their idempotency key and what is paid (order, choice, method, amount, day). A retry
/// of the same request thus gets the same reference, and a provider asked again with it (its `external_id` and
/// idempotency key) answers the account it made the first time: a crash between the provider's answer and our
/// insert leaves no second account. Anything else gets another reference.
fn reference_for(s: &Services, parts: &[&str]) -> String {
    const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    let mac = s.secrets.mac("payment-reference", &parts.join("\n"));
    let bytes = hex::decode(&mac[..20]).unwrap_or_default();
    let suffix: String = bytes
        .iter()
        .map(|b| ALPHABET[usize::from(b % 32)] as char)
        .collect();
    format!("KP{suffix}")
}

/// Checks a client's idempotency key: 8 to 64 characters `[A-Za-z0-9_-]`.
fn check_key(key: Option<&str>, errors: &mut FieldErrors) -> Option<String> {
    match key.map(str::trim).filter(|k| !k.is_empty()) {
        None => {
            errors.add("Idempotency-Key", FieldProblem::required());
            None
        }
        Some(k)
            if (8..=64).contains(&k.len())
                && k.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
        {
            Some(k.to_owned())
        }
        Some(_) => {
            errors.add(
                "Idempotency-Key",
                FieldProblem::new("field.idempotency_key"),
            );
            None
        }
    }
}

/// A payment request as the borrower sends it.
pub struct PaymentRequest<'a> {
    pub choice: Option<&'a str>,
    pub method: Option<&'a str>,
    pub idempotency_key: Option<&'a str>,
}

/// Starts a payment of `choice` by `method` for the borrower's loan, priced now, with a reference unique to it.
/// Idempotent on the client's key: the same key for the same order, choice and method answers the payment it made;
/// for anything else it is `idempotency_key_reused`. A unique index on (borrower, key) settles a race of retries.
/// A new payment counts against `[limits] payments_per_day` (then `429 rate_limited`), before a provider is asked.
/// A new extension while a payment of the loan waits for finance is `payment_waiting` (see [`extension_offer`]).
pub async fn create(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
    req: &PaymentRequest<'_>,
) -> Result<Payment, Error> {
    let mut errors = FieldErrors::default();
    let choice = match req.choice.map(str::trim).filter(|c| !c.is_empty()) {
        None => {
            errors.add("choice", FieldProblem::required());
            None
        }
        Some(c) => RepaymentChoice::from_code(c).or_else(|| {
            errors.add("choice", FieldProblem::new("field.payment_choice"));
            None
        }),
    };
    let method = match req.method.map(str::trim).filter(|m| !m.is_empty()) {
        None => {
            errors.add("method", FieldProblem::required());
            None
        }
        Some(m) => PaymentMethod::from_code(m)
            .filter(|m| methods_of_market(&s.payments.settings, borrower.market).contains(m))
            .or_else(|| {
                errors.add("method", FieldProblem::new("field.unknown_method"));
                None
            }),
    };
    let key = check_key(req.idempotency_key, &mut errors);
    errors.into_result()?;
    let (choice, method, key) = (
        choice.expect("checked"),
        method.expect("checked"),
        key.expect("checked"),
    );
    let (loan, waiting) = own_loan_and_waiting(s, borrower, order_no).await?;
    let same = |row: &PaymentRow| {
        row.order_id == loan.order.id && row.choice == choice.code() && row.method == method.code()
    };
    if let Some(existing) = s.db.payment_by_idempotency_key(&borrower.id, &key).await? {
        return if same(&existing) {
            payment_of(s, existing)
        } else {
            Err(Refusal::IdempotencyKeyReused.into())
        };
    }
    if choice == RepaymentChoice::Extension && waiting {
        return Err(Refusal::PaymentWaiting.into());
    }
    let today = loan.today(s);
    let priced = price(s, &loan, choice, today)?;
    // Counted before the provider is asked for anything: a borrower cannot have it issue accounts without end.
    limits::count(
        &s.db,
        &s.limits.payments_per_borrower,
        &borrower.id,
        s.clock.now_ms(),
    )
    .await?
    .map_err(limits::Refused::rate_limited)?;
    let amount = priced.amount.minor();
    let reference = reference_for(
        s,
        &[
            &borrower.id,
            &key,
            &loan.order.id,
            choice.code(),
            method.code(),
            &amount.to_string(),
            &date_code(today),
        ],
    );
    let now = s.clock.now_ms();
    // What a provider issues is asked for before the transaction (a slow provider holds no lock), with the reference
    // as its idempotency key; a provider down or slow is `provider_unavailable` and nothing is written.
    let issued = issue(s, borrower.market, method, &reference, amount, now).await?;
    let mut tx = s.db.begin().await?;
    let inserted = tx
        .insert_payment(&NewPayment {
            order_id: &loan.order.id,
            borrower_id: &borrower.id,
            choice: choice.code(),
            method: method.code(),
            installment: priced.installment.map(i64::from),
            installment_to: priced.installment_to.map(i64::from),
            amount: priced.amount.minor(),
            currency: loan.order.currency,
            priced_on: &date_code(today),
            extensions_before: priced.extensions_before.map(i64::from),
            status: PaymentStatus::Pending.code(),
            reference: &reference,
            idempotency_key: &key,
            issued: issued.as_ref().map(|(provider, va, expires_at)| Issued {
                provider,
                provider_ref: va.as_ref().and_then(|v| v.provider_ref.as_deref()),
                va_bank_code: va.as_ref().map(|v| v.bank_code.as_str()),
                va_number: va.as_ref().map(|v| v.number.as_str()),
                va_name: va.as_ref().map(|v| v.account_name.as_str()),
                expires_at: Some(*expires_at),
            }),
            now,
        })
        .await?;
    let id = match inserted {
        Ok(id) => id,
        Err(_) => {
            // Another request with this key won the race: answer with its payment.
            tx.rollback().await?;
            let existing =
                s.db.payment_by_idempotency_key(&borrower.id, &key)
                    .await?
                    .ok_or_else(|| anyhow::anyhow!("a payment reference collided"))?;
            return if same(&existing) {
                payment_of(s, existing)
            } else {
                Err(Refusal::IdempotencyKeyReused.into())
            };
        }
    };
    tx.commit().await?;
    let row =
        s.db.payment(&id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("payment {id} vanished"))?;
    payment_of(s, row)
}

const HOUR_MS: i64 = 60 * 60 * 1000;

/// What a provider issues for a new payment by `method`: the provider's name, the virtual account (Indonesia) and
/// when the instructions expire. India's transfers to the collection account issue nothing.
async fn issue(
    s: &Services,
    market: Market,
    method: PaymentMethod,
    reference: &str,
    amount: i64,
    now: i64,
) -> Result<Option<(&'static str, Option<VirtualAccount>, i64)>, Error> {
    let settings = &s.payments.settings;
    match method {
        PaymentMethod::Upi | PaymentMethod::BankTransfer => Ok(None),
        PaymentMethod::VirtualAccount => {
            let expires_at = now + i64::from(settings.indonesia.va_expiry_hours.max(1)) * HOUR_MS;
            let provider = &s.payments.virtual_accounts;
            let request = AccountRequest {
                reference,
                amount,
                expires_at,
            };
            match provider.create(&request).await {
                Ok(va) => Ok(Some((provider.name(), Some(va), expires_at))),
                Err(err) => {
                    tracing::error!(provider = provider.name(), %reference, error = ?err,
                        "the virtual-account provider failed; no payment made");
                    Err(Refusal::ProviderUnavailable.into())
                }
            }
        }
        PaymentMethod::Dragonpay => {
            let hours = match market {
                Market::India => settings.india.dragonpay_expiry_hours,
                Market::Indonesia => settings.indonesia.dragonpay_expiry_hours,
            };
            Ok(Some((
                "dragonpay",
                None,
                now + i64::from(hours.max(1)) * HOUR_MS,
            )))
        }
    }
}
