//! The UTR of an Indian transfer: its format per method, and its submission (the payment waits for finance).

use super::*;

/// Checks a UTR's format for the payment's method: 12 digits for UPI; for a bank transfer 12 digits (IMPS) or 16 or
/// 22 letters and digits (NEFT, RTGS). Letters are taken in capitals.
pub fn check_utr(method: PaymentMethod, utr: Option<&str>) -> Result<String, Error> {
    let utr = utr
        .map(|u| u.trim().to_ascii_uppercase())
        .filter(|u| !u.is_empty())
        .ok_or_else(|| Error::field("utr", FieldProblem::required()))?;
    let digits = utr.len() == 12 && utr.bytes().all(|b| b.is_ascii_digit());
    let alnum = matches!(utr.len(), 16 | 22) && utr.bytes().all(|b| b.is_ascii_alphanumeric());
    let ok = match method {
        PaymentMethod::Upi => digits,
        PaymentMethod::BankTransfer => digits || alnum,
        PaymentMethod::VirtualAccount | PaymentMethod::Dragonpay => false,
    };
    if ok {
        Ok(utr)
    } else {
        Err(Error::field(
            "utr",
            FieldProblem::new(if method == PaymentMethod::Upi {
                "field.utr_upi"
            } else {
                "field.utr_bank"
            }),
        ))
    }
}

/// Records the UTR of the borrower's transfer: the payment moves to `verifying` and waits for finance. The same UTR
/// sent again for the same payment (an answer lost on a flaky network, or two taps at once) answers the payment as it
/// stands and records nothing more. A UTR used before on another payment is `utr_already_used`; a payment not waiting
/// for one is `payment_not_open`.
pub async fn submit_utr(
    s: &Services,
    borrower: &Borrower,
    payment_id: &str,
    utr: Option<&str>,
) -> Result<Payment, Error> {
    let payment = own_payment(s, borrower, payment_id).await?;
    if !payment.method.takes_utr() {
        return Err(Refusal::PaymentNotOpen.into());
    }
    let utr = check_utr(payment.method, utr)?;
    let resent = |p: &Payment| p.row.utr.as_deref() == Some(utr.as_str());
    if resent(&payment) {
        return Ok(payment);
    }
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if let Err(refused) = move_payment(
        &mut tx,
        &payment.row.id,
        payment.status,
        PaymentEvent::SubmitUtr,
        MoveFields::default(),
        now,
    )
    .await
    {
        // Another request moved it meanwhile: the same UTR is an answer, anything else the refusal.
        tx.rollback().await?;
        let now = own_payment(s, borrower, payment_id).await?;
        return if resent(&now) { Ok(now) } else { Err(refused) };
    }
    if tx.insert_utr(&utr, &payment.row.id, now).await?.is_err() {
        tx.rollback().await?;
        return Err(Refusal::UtrAlreadyUsed.into());
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "borrower",
        actor_id: Some(&borrower.id),
        action: "payment.utr",
        entity: "order",
        entity_id: &payment.row.order_id,
        before_json: None,
        after_json: Some(&audit_json(
            &payment.row,
            PaymentStatus::Verifying,
            Some(&utr),
        )?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    own_payment(s, borrower, payment_id).await
}

/// How many times a borrower may correct a payment's UTR: enough for typing mistakes, bounded so the UTR finance
/// checks does not keep changing.
pub const MAX_UTR_CORRECTIONS: i64 = 3;

/// Corrects the UTR of the borrower's payment waiting for finance (a mistyped number), in one transaction with the
/// order locked, the lock finance's decision takes too: the payment must still be `verifying` when the new UTR is
/// written, so a correction after finance confirmed or rejected it is `utr_locked` and changes nothing, and a
/// decision after a correction sees the corrected UTR. The new UTR follows the method's format and the uniqueness of
/// every UTR (`utr_already_used`); the one replaced is freed and kept in the payment's corrections. The same UTR again
/// answers the payment as it stands; after [`MAX_UTR_CORRECTIONS`] it is `utr_corrections_exhausted`.
pub async fn correct_utr(
    s: &Services,
    borrower: &Borrower,
    payment_id: &str,
    utr: Option<&str>,
) -> Result<Payment, Error> {
    let payment = own_payment(s, borrower, payment_id).await?;
    if !payment.method.takes_utr() {
        return Err(Refusal::PaymentNotOpen.into());
    }
    let utr = check_utr(payment.method, utr)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // The order's lock, as finance's decision takes it: one of the two goes first, the other sees what it did.
    tx.order_locked_in_tx(&payment.row.order_id)
        .await?
        .ok_or(Error::NotFound)?;
    let row = tx
        .payment_in_tx(&payment.row.id)
        .await?
        .ok_or(Error::NotFound)?;
    let current = payment_of(s, row)?;
    if current.status != PaymentStatus::Verifying {
        tx.rollback().await?;
        return Err(if current.status == PaymentStatus::Pending {
            Refusal::PaymentNotOpen
        } else {
            Refusal::UtrLocked
        }
        .into());
    }
    let Some(old) = current.row.utr.clone() else {
        tx.rollback().await?;
        return Err(Refusal::PaymentNotOpen.into());
    };
    if old == utr {
        tx.rollback().await?;
        return Ok(current);
    }
    let corrections = tx.utr_corrections_in_tx(&current.row.id).await?;
    if corrections >= MAX_UTR_CORRECTIONS {
        tx.rollback().await?;
        return Err(Refusal::UtrCorrectionsExhausted.into());
    }
    if tx
        .replace_utr(&current.row.id, &old, &utr, corrections + 1, now)
        .await?
        .is_err()
    {
        tx.rollback().await?;
        return Err(Refusal::UtrAlreadyUsed.into());
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "borrower",
        actor_id: Some(&borrower.id),
        action: "payment.utr_corrected",
        entity: "order",
        entity_id: &current.row.order_id,
        before_json: Some(&audit_json(
            &current.row,
            PaymentStatus::Verifying,
            Some(&old),
        )?),
        after_json: Some(&audit_json(
            &current.row,
            PaymentStatus::Verifying,
            Some(&utr),
        )?),
        at: now,
    })
    .await?;
    tx.commit().await?;
    own_payment(s, borrower, payment_id).await
}

/// The borrower's UTR waiting for finance on a loan: the payment, when it was submitted, by when finance checks it
/// (the market's business day `utr_check_working_days` working days later, from the settings), and whether it can
/// still be corrected.
pub struct VerifyingUtr {
    pub payment: Payment,
    pub submitted_at: i64,
    pub check_by: Date,
    pub corrections_left: i64,
}

/// The loan's payment whose UTR waits for finance, if there is one.
pub async fn verifying_utr(s: &Services, loan: &LoanView) -> Result<Option<VerifyingUtr>, Error> {
    let Some((row, submitted_at, corrections)) = s.db.verifying_utr_payment(&loan.order.id).await?
    else {
        return Ok(None);
    };
    let payment = payment_of(s, row)?;
    let market = loan.order.market;
    let submitted_on =
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(submitted_at) * 1_000_000)
            .map(|t| market.local_date(t))
            .unwrap_or_else(|_| loan.today(s));
    let check_by = kilat_domain::calendar::add_working_days(
        submitted_on,
        s.payments.settings.india.utr_check_working_days,
        s.holidays.of(market),
    )
    .map_err(|e| Error::Internal(e.into()))?;
    Ok(Some(VerifyingUtr {
        payment,
        submitted_at,
        check_by,
        corrections_left: (MAX_UTR_CORRECTIONS - corrections).max(0),
    }))
}
