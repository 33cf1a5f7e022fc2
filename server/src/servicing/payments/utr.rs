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
