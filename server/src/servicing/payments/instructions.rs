//! How to pay: the collection account (India's UPI and bank transfers), the payment's virtual account (Indonesia) or
//! Dragonpay's reference, as the borrower's screens show them.

use super::*;

/// How to pay: the collection account or virtual account, and the reference to quote.
#[derive(Debug, Clone)]
pub struct Instructions {
    pub method: PaymentMethod,
    pub payee_name: String,
    /// The lender, when the payee the bank app shows is another company collecting payments for it.
    pub collects_for: Option<String>,
    pub upi_id: Option<String>,
    /// A `upi://pay` link with the amount and the reference.
    pub upi_uri: Option<String>,
    pub bank_name: Option<String>,
    pub account_number: Option<String>,
    pub ifsc: Option<String>,
    /// Indonesia: the virtual account's bank and number.
    pub bank_code: Option<String>,
    pub virtual_account: Option<String>,
    /// Dragonpay: where the reference can be paid.
    pub channels: Vec<String>,
    /// On a payment whose instructions expire (a virtual account, a Dragonpay reference): when, epoch milliseconds.
    pub expires_at: Option<i64>,
}

/// The payment types of the borrower's order's market, from the settings, in the order shown.
pub async fn payment_types(
    s: &Services,
    borrower: &Borrower,
    order_no: &str,
) -> Result<Vec<PaymentMethod>, Error> {
    let read =
        s.db.own_order(&borrower.id, order_no.trim(), false)
            .await?
            .ok_or(Error::NotFound)?;
    Ok(methods_of_market(
        &s.payments.settings,
        read.row.loan.order.market,
    ))
}

/// The instructions of a method without a payment (the collection account; a virtual account comes per payment).
pub fn method_instructions(s: &Services, market: Market, method: PaymentMethod) -> Instructions {
    instructions(s, market, method, None)
}

fn rupees(amount: i64) -> String {
    format!("{}.{:02}", amount / 100, amount % 100)
}

/// The instructions of a payment.
///
/// With a payment, UPI adds a `upi://pay` link with its reference and amount, Indonesia the payment's virtual account
/// as issued and stored with it, Dragonpay the payment's expiry.
pub fn instructions(
    s: &Services,
    market: Market,
    method: PaymentMethod,
    payment: Option<&PaymentRow>,
) -> Instructions {
    let india = &s.payments.settings.india;
    let none = Instructions {
        method,
        payee_name: String::new(),
        collects_for: None,
        upi_id: None,
        upi_uri: None,
        bank_name: None,
        account_number: None,
        ifsc: None,
        bank_code: None,
        virtual_account: None,
        channels: Vec::new(),
        expires_at: payment.and_then(|p| p.expires_at),
    };
    let mut how = match method {
        PaymentMethod::Upi => Instructions {
            payee_name: india.payee_name.clone(),
            upi_uri: payment.map(|p| (p.reference.as_str(), p.amount)).map(
                |(reference, amount)| {
                    format!(
                        "upi://pay?pa={}&pn={}&am={}&cu=INR&tr={reference}&tn={reference}",
                        urlencoding(&india.upi_id),
                        urlencoding(&india.payee_name),
                        rupees(amount),
                    )
                },
            ),
            upi_id: Some(india.upi_id.clone()),
            ..none
        },
        PaymentMethod::BankTransfer => Instructions {
            payee_name: india.payee_name.clone(),
            bank_name: Some(india.bank_name.clone()),
            account_number: Some(india.account_number.clone()),
            ifsc: Some(india.ifsc.clone()),
            ..none
        },
        PaymentMethod::VirtualAccount => {
            let indonesia = &s.payments.settings.indonesia;
            // A payment made before accounts were stored with it (migration 0014) had a simulated one.
            let legacy = payment.filter(|p| p.va_number.is_none()).map(|p| {
                SimulatedVirtualAccounts {
                    bank_code: indonesia.bank_code.clone(),
                    account_name: indonesia.account_name.clone(),
                }
                .account_for(&p.reference)
            });
            let stored = payment.and_then(|p| {
                Some(VirtualAccount {
                    number: p.va_number.clone()?,
                    bank_code: p
                        .va_bank_code
                        .clone()
                        .unwrap_or_else(|| indonesia.bank_code.clone()),
                    account_name: p
                        .va_name
                        .clone()
                        .unwrap_or_else(|| indonesia.account_name.clone()),
                    provider_ref: p.provider_ref.clone(),
                })
            });
            let va = stored.or(legacy);
            Instructions {
                payee_name: va.as_ref().map_or_else(
                    || indonesia.account_name.clone(),
                    |v| v.account_name.clone(),
                ),
                bank_code: Some(
                    va.as_ref()
                        .map_or_else(|| indonesia.bank_code.clone(), |v| v.bank_code.clone()),
                ),
                virtual_account: va.map(|v| v.number),
                ..none
            }
        }
        PaymentMethod::Dragonpay => {
            let channels = match market {
                Market::India => &s.payments.settings.india.dragonpay_channels,
                Market::Indonesia => &s.payments.settings.indonesia.dragonpay_channels,
            };
            Instructions {
                payee_name: s.site.lender(market).name.clone(),
                channels: channels.clone(),
                ..none
            }
        }
    };
    how.collects_for = collecting_for(&s.site.lender(market).name, &how.payee_name);
    how
}

/// The lender's name when `payee` (the name the bank app shows) is not the lender's: a collecting company, named so
/// the borrower does not take the transfer for a scam. The lender's legal suffix ("Kilat Finance Private Limited
/// (NBFC)") does not make a payee another company.
pub fn collecting_for(lender: &str, payee: &str) -> Option<String> {
    let (lender_n, payee_n) = (lender.trim().to_lowercase(), payee.trim().to_lowercase());
    (!payee_n.is_empty() && !lender_n.starts_with(&payee_n)).then(|| lender.trim().to_owned())
}

fn urlencoding(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'@' => {
                (b as char).to_string()
            }
            b' ' => "%20".to_owned(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
