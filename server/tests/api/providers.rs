//! Payment providers wired (issue 8): Xendit virtual accounts created through the configured base URL (a local HTTP
//! double here) before the payment is stored, once per payment even across retries and a crash; a provider down or
//! slow is a 503 that stores nothing; Dragonpay's payment instructions and postback. Verification codes for a
//! sensitive change and the bank-account change rule; confirm checking the agreement the borrower read.

use std::time::Duration;

use kilat_server::auth::operators::Role;
use kilat_server::providers::dragonpay::digest as dragonpay_digest;
use reqwest::StatusCode;
use serde_json::{Value, json};
use wiremock::matchers::{basic_auth, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_with};
use crate::servicing::{
    approved, check_ledger, count, create_payment, disburse, operator, status_of,
};

const XENDIT_KEY: &str = "xnd_development_key";

/// A Xendit double's answer to a create: the account for the request's `external_id`.
fn created_account(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap();
    let reference = body["external_id"].as_str().unwrap().to_owned();
    let digits: String = reference
        .bytes()
        .map(|b| char::from(b'0' + b % 10))
        .collect();
    ResponseTemplate::new(200).set_body_json(json!({
        "id": format!("va_{reference}"),
        "external_id": reference,
        "bank_code": body["bank_code"],
        "account_number": format!("9988{digits}"),
        "name": body["name"],
        "expected_amount": body["expected_amount"],
        "expiration_date": body["expiration_date"],
        "status": "PENDING",
    }))
}

async fn xendit_app(double: &MockServer, timeout_ms: u64) -> TestApp {
    let base = double.uri();
    spawn_app_with(move |s| {
        s.payments.indonesia.va_provider = "xendit".into();
        s.payments.indonesia.xendit_base_url = base;
        s.payments.indonesia.xendit_api_key = Some(XENDIT_KEY.into());
        s.payments.indonesia.xendit_timeout_ms = timeout_ms;
    })
    .await
}

/// The create calls the double received: (idempotency key, body).
async fn creates(double: &MockServer) -> Vec<(String, Value)> {
    double
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .filter(|r| r.url.path() == "/callback_virtual_accounts")
        .map(|r| {
            (
                r.headers
                    .get("x-idempotency-key")
                    .map(|v| v.to_str().unwrap().to_owned())
                    .unwrap_or_default(),
                serde_json::from_slice(&r.body).unwrap(),
            )
        })
        .collect()
}

/// Sends the requests at once; their answers in order.
async fn at_once(requests: Vec<reqwest::RequestBuilder>) -> Vec<reqwest::Response> {
    let handles: Vec<_> = requests
        .into_iter()
        .map(|r| tokio::spawn(r.send()))
        .collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await.unwrap().unwrap());
    }
    out
}

async fn payments_of(app: &TestApp, order_id: &str) -> i64 {
    count(
        app,
        "SELECT COUNT(*) FROM payments WHERE order_id = $1",
        order_id,
    )
    .await
}

#[tokio::test]
async fn a_xendit_account_is_created_once_per_payment_and_its_paid_callback_closes_the_order() {
    let double = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/callback_virtual_accounts"))
        .and(basic_auth(XENDIT_KEY, ""))
        .respond_with(created_account)
        .mount(&double)
        .await;
    let app = xendit_app(&double, 5_000).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "081234567811", "id-kilat-30", 100_000_000, "14d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let before = app.services.clock.now_ms();
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "xnd-key-0001",
        )
        .await,
    )
    .await;
    let reference = payment["reference"].as_str().unwrap().to_owned();
    let calls = creates(&double).await;
    assert_eq!(calls.len(), 1);
    let (key, body) = &calls[0];
    assert_eq!(
        key, &reference,
        "the reference is the provider's idempotency key"
    );
    assert_eq!(body["external_id"], json!(reference));
    assert_eq!(body["bank_code"], "BCA");
    assert_eq!(
        body["expected_amount"].as_i64().unwrap() * 100,
        payment["amount"].as_i64().unwrap()
    );
    let va = payment["instructions"]["virtualAccount"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(va.starts_with("9988"), "the provider's number: {va}");
    let expires = payment["instructions"]["expiresAt"].as_i64().unwrap();
    assert!(expires >= before + 23 * 3_600_000 && expires <= before + 25 * 3_600_000);

    // A retry with the key answers the stored payment: no second call, the same account.
    let again = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "xnd-key-0001",
        )
        .await,
    )
    .await;
    assert_eq!(again["paymentId"], payment["paymentId"]);
    assert_eq!(again["instructions"]["virtualAccount"], json!(va));
    assert_eq!(creates(&double).await.len(), 1);

    // Five retries at once with a new key: one payment; any call made went with one reference.
    let answers = at_once(
        (0..5)
            .map(|_| {
                app.client
                    .post(app.url(&format!("/api/v1/borrower/orders/{order_no}/payments")))
                    .header("x-session-id", &session)
                    .header("idempotency-key", "xnd-key-0002")
                    .json(&json!({"choice": "due", "method": "virtual_account"}))
            })
            .collect(),
    )
    .await;
    let mut ids = Vec::new();
    for answer in answers {
        assert_eq!(answer.status(), StatusCode::OK);
        ids.push(data(answer).await["paymentId"].clone());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(payments_of(&app, &id).await, 2);
    let keys: std::collections::BTreeSet<String> = creates(&double)
        .await
        .into_iter()
        .skip(1)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys.len(), 1, "{keys:?}");

    // A crash between the provider's answer and our insert: the retry asks again with the same reference, so the
    // provider (idempotent on it) answers the account it made, never a second one.
    let crashed = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "xnd-key-0003",
        )
        .await,
    )
    .await;
    sqlx::query("DELETE FROM payments WHERE id = $1")
        .bind(crashed["paymentId"].as_str().unwrap())
        .execute(app.db.pool())
        .await
        .unwrap();
    let retried = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "xnd-key-0003",
        )
        .await,
    )
    .await;
    assert_eq!(retried["reference"], crashed["reference"]);
    let last_two: Vec<String> = creates(&double)
        .await
        .into_iter()
        .rev()
        .take(2)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(last_two[0], last_two[1]);

    // The paid callback for that account credits the order, which closes without an operator.
    let rupiah = payment["amount"].as_i64().unwrap() / 100;
    let paid = app
        .client
        .post(app.url("/api/v1/webhooks/xendit/va-paid"))
        .header("x-callback-token", "dev-xendit-callback-token")
        .json(&json!({
            "id": "cb-xnd-1", "payment_id": "xnd-payment-1", "callback_virtual_account_id": format!("va_{reference}"),
            "external_id": reference, "bank_code": "BCA", "account_number": va, "amount": rupiah,
            "currency": "IDR",
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(paid.status(), StatusCode::OK);
    assert_eq!(status_of(&app, &id).await, "repaid");
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn a_provider_timeout_or_5xx_is_a_503_that_stores_no_payment() {
    let double = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(DelayedAccount)
        .up_to_n_times(1)
        .mount(&double)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503).set_body_string("maintenance"))
        .up_to_n_times(1)
        .mount(&double)
        .await;
    Mock::given(method("POST"))
        .respond_with(created_account)
        .mount(&double)
        .await;
    let app = xendit_app(&double, 300).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "081234567812", "id-kilat-30", 100_000_000, "14d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    for (what, lang, text) in [
        ("timeout", "en-IN", "The payment provider is not answering."),
        ("5xx", "id-ID", "Penyedia pembayaran tidak menjawab."),
    ] {
        let answer = app
            .client
            .post(app.url(&format!("/api/v1/borrower/orders/{order_no}/payments")))
            .header("x-session-id", &session)
            .header("idempotency-key", "xnd-down-0001")
            .header("accept-language", lang)
            .json(&json!({"choice": "due", "method": "virtual_account"}))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), StatusCode::SERVICE_UNAVAILABLE, "{what}");
        let body = error(answer).await;
        assert_eq!(body["code"], "provider_unavailable", "{what}");
        assert!(body["msg"].as_str().unwrap().starts_with(text), "{body}");
        assert_eq!(payments_of(&app, &id).await, 0, "{what}: nothing stored");
    }
    // The provider back: the same key makes the payment, with the same reference as the calls that failed.
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "xnd-down-0001",
        )
        .await,
    )
    .await;
    let keys: std::collections::BTreeSet<String> =
        creates(&double).await.into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys.len(), 1);
    assert!(keys.contains(payment["reference"].as_str().unwrap()));
    assert_eq!(payments_of(&app, &id).await, 1);
    app.stop().await;
}

/// A responder answering like `created_account`, but after the client's timeout.
struct DelayedAccount;

impl wiremock::Respond for DelayedAccount {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        created_account(request).set_delay(Duration::from_secs(3))
    }
}

#[tokio::test]
async fn dragonpay_answers_its_payment_instructions_and_the_postback_credits_them() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "081234567813", "id-kilat-30", 100_000_000, "14d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let types = data(
        app.get_as(
            &format!("/api/v1/borrower/payment-types?orderNo={order_no}"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(types[0]["method"], "virtual_account");
    assert_eq!(types[1]["method"], "dragonpay");
    assert!(
        types[1]["channels"]
            .as_array()
            .unwrap()
            .contains(&json!("Alfamart"))
    );
    let before = app.services.clock.now_ms();
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "dragonpay",
            "dp-order-0001",
        )
        .await,
    )
    .await;
    assert_eq!(payment["method"], "dragonpay");
    assert_eq!(payment["status"], "pending");
    let instructions = &payment["instructions"];
    assert_eq!(instructions["payeeName"], "PT Kilat Dana Indonesia");
    assert_eq!(instructions["channels"], types[1]["channels"]);
    let expires = instructions["expiresAt"].as_i64().unwrap();
    assert!(expires >= before + 47 * 3_600_000 && expires <= before + 49 * 3_600_000);
    // No UTR for it.
    let utr = crate::servicing::submit_utr(
        &app,
        &session,
        payment["paymentId"].as_str().unwrap(),
        "412345678901",
    )
    .await;
    assert_eq!(error(utr).await["code"], "payment_not_open");

    let reference = payment["reference"].as_str().unwrap();
    let message = "Paid at Alfamart";
    let digest = dragonpay_digest(reference, "DP7001", "S", message, "dev-dragonpay-password");
    let postback = app
        .client
        .post(app.url("/api/v1/webhooks/dragonpay/postback"))
        .form(&[
            ("txnid", reference),
            ("refno", "DP7001"),
            ("status", "S"),
            ("message", message),
            ("digest", &digest),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(postback.text().await.unwrap(), "result=OK");
    assert_eq!(status_of(&app, &id).await, "repaid");
    check_ledger(&app, &session, &order_no, &id).await;

    // India does not offer it with the defaults.
    let (india, india_no, _) = approved(&app, "9876500901", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &india_no).await.status(),
        StatusCode::OK
    );
    let refused =
        create_payment(&app, &india, &india_no, "due", "dragonpay", "dp-india-0001").await;
    assert_eq!(
        error(refused).await["fields"]["method"],
        "Pilih jenis pembayaran yang tersedia untuk pinjaman ini."
    );
    app.stop().await;
}

// ---------------------------------------------------------------------------------------------------------------
// Verification codes and the bank-account change rule.

const NEW_ACCOUNT: fn() -> Value = || {
    json!({"bankCode": "ICIC", "accountNumber": "9999 8888 7777", "accountNumberConfirm": "999988887777",
        "ifsc": "ICIC0000999"})
};

async fn send_code(app: &TestApp, session: &str) -> reqwest::Response {
    app.post_as(
        "/api/v1/borrower/verification-code",
        session,
        &json!({"purpose": "bank_account"}),
    )
    .await
}

async fn change_bank(
    app: &TestApp,
    session: &str,
    code: Option<&str>,
    lang: &str,
) -> reqwest::Response {
    let mut body = NEW_ACCOUNT();
    if let Some(code) = code {
        body["verificationCode"] = json!(code);
    }
    app.client
        .post(app.url("/api/v1/borrower/certification/bank"))
        .header("x-session-id", session)
        .header("accept-language", lang)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn bank_changes(app: &TestApp) -> i64 {
    count(
        app,
        "SELECT COUNT(*) FROM audit_log WHERE action = $1",
        "certification.bank_account_change",
    )
    .await
}

fn wrong(code: &str) -> String {
    let last = (code.as_bytes()[5] - b'0' + 1) % 10;
    format!("{}{last}", &code[..5])
}

#[tokio::test]
async fn a_bank_account_change_needs_the_code_sent_to_the_borrowers_phone_once() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876500911").await;
    app.certify("IN", &session).await;

    // Who and what for.
    let nobody = app
        .post_json(
            "/api/v1/borrower/verification-code",
            &json!({"purpose": "bank_account"}),
        )
        .await;
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
    let missing = app
        .post_as("/api/v1/borrower/verification-code", &session, &json!({}))
        .await;
    assert_eq!(missing.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(missing).await["fields"]["purpose"].is_string());
    let other = app
        .post_as(
            "/api/v1/borrower/verification-code",
            &session,
            &json!({"purpose": "login"}),
        )
        .await;
    assert!(error(other).await["fields"]["purpose"].is_string());

    // Saving the same account again is no change and needs no code.
    let same = app
        .post_as(
            "/api/v1/borrower/certification/bank",
            &session,
            &crate::helpers::valid_steps("IN")
                .into_iter()
                .find(|(step, _)| *step == "bank")
                .unwrap()
                .1,
        )
        .await;
    assert_eq!(same.status(), StatusCode::OK);

    // A change without the code, in both languages.
    let en = change_bank(&app, &session, None, "en-IN").await;
    assert_eq!(en.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(en).await["fields"]["verificationCode"],
        "Enter the code we sent to your phone to change your bank account."
    );
    let id = change_bank(&app, &session, None, "id-ID").await;
    assert_eq!(
        error(id).await["fields"]["verificationCode"],
        "Masukkan kode yang kami kirim ke ponsel Anda untuk mengubah rekening bank."
    );

    let sent = send_code(&app, &session).await;
    assert_eq!(sent.status(), StatusCode::OK);
    let sent = data(sent).await;
    assert_eq!(sent["phoneMasked"], "+91 ******0911");
    let code = app.latest_code().await;

    // A wrong code; then the right one changes the account, audited; the same code again is used up.
    let bad = change_bank(&app, &session, Some(&wrong(&code)), "en-IN").await;
    assert_eq!(
        error(bad).await["fields"]["verificationCode"],
        "This code is not correct."
    );
    assert_eq!(bank_changes(&app).await, 0);
    let ok = change_bank(&app, &session, Some(&code), "en-IN").await;
    assert_eq!(ok.status(), StatusCode::OK, "{}", ok.text().await.unwrap());
    let saved = data(
        app.get_as("/api/v1/borrower/certification/bank", &session)
            .await,
    )
    .await;
    assert_eq!(saved["data"]["accountNumber"], "**** **** 7777");
    assert_eq!(bank_changes(&app).await, 1);
    let (before, after): (String, String) = sqlx::query_as(
        "SELECT before_json, after_json FROM audit_log WHERE action = 'certification.bank_account_change'",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert!(
        before.contains("4567") && !before.contains("5010"),
        "masked: {before}"
    );
    assert!(
        after.contains("7777") && !after.contains("99998888"),
        "masked: {after}"
    );

    let mut again = NEW_ACCOUNT();
    again["accountNumber"] = json!("1111 2222 3333");
    again["accountNumberConfirm"] = json!("111122223333");
    again["verificationCode"] = json!(code);
    let reused = app
        .post_as("/api/v1/borrower/certification/bank", &session, &again)
        .await;
    assert_eq!(
        error(reused).await["fields"]["verificationCode"],
        "Kode ini sudah dipakai atau kedaluwarsa. Minta kode baru."
    );
    assert_eq!(bank_changes(&app).await, 1);
    app.stop().await;
}

#[tokio::test]
async fn verification_codes_keep_the_sign_in_limits_under_a_burst() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876500912").await;
    app.certify("IN", &session).await;
    // Twenty requests at once: one code is sent; the others wait for the minute.
    let answers = at_once(
        (0..20)
            .map(|_| {
                app.client
                    .post(app.url("/api/v1/borrower/verification-code"))
                    .header("x-session-id", &session)
                    .json(&json!({"purpose": "bank_account"}))
            })
            .collect(),
    )
    .await;
    let sent = answers
        .iter()
        .filter(|a| a.status() == StatusCode::OK)
        .count();
    let waiting = answers
        .iter()
        .filter(|a| a.status() == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((sent, waiting), (1, 19));
    let (codes,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM login_codes WHERE purpose = 'bank_account'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(codes, 1);
    let stored: (String,) =
        sqlx::query_as("SELECT code_hash FROM login_codes WHERE purpose = 'bank_account'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    let code = app.latest_code().await;
    assert!(!stored.0.contains(&code), "stored hashed");

    // Ten wrong tries at once: at most five are compared, then the code is spent, even for the right digits.
    let answers = at_once(
        (0..10)
            .map(|_| {
                let mut body = NEW_ACCOUNT();
                body["verificationCode"] = json!(wrong(&code));
                app.client
                    .post(app.url("/api/v1/borrower/certification/bank"))
                    .header("x-session-id", &session)
                    .json(&body)
            })
            .collect(),
    )
    .await;
    for answer in answers {
        assert_eq!(answer.status(), StatusCode::UNPROCESSABLE_ENTITY);
    }
    let (tries,): (i64,) =
        sqlx::query_as("SELECT failed_attempts FROM login_codes WHERE purpose = 'bank_account'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(tries, 5);
    let right = change_bank(&app, &session, Some(&code), "en-IN").await;
    assert_eq!(
        error(right).await["fields"]["verificationCode"],
        "Too many wrong tries. Ask for a new code."
    );
    assert_eq!(bank_changes(&app).await, 0);
    app.stop().await;
}

#[tokio::test]
async fn the_bank_account_cannot_change_while_an_order_is_open_and_a_stale_agreement_is_not_confirmed()
 {
    let app = spawn_app().await;
    let loan = json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"});
    let session = app.sign_in("IN", "9876500913").await;
    app.certify("IN", &session).await;

    // The borrower reads the agreement, then changes the account (no order yet) before confirming: the agreement
    // read is not the one that would be frozen, so confirm asks to read it again.
    let kfs = data(app.post_as("/api/v1/borrower/apply", &session, &loan).await).await;
    let read = app.agreement_hash(&session, &loan).await;
    assert_eq!(send_code(&app, &session).await.status(), StatusCode::OK);
    let code = app.latest_code().await;
    assert_eq!(
        change_bank(&app, &session, Some(&code), "en-IN")
            .await
            .status(),
        StatusCode::OK
    );
    let mut confirm = loan.clone();
    confirm["kfsHash"] = kfs["contentHash"].clone();
    confirm["idempotencyKey"] = json!("stale-agreement-1");
    confirm["agreementHash"] = read.clone();
    let stale = app
        .client
        .post(app.url("/api/v1/borrower/orders"))
        .header("x-session-id", &session)
        .header("accept-language", "en-IN")
        .json(&confirm)
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(stale).await["fields"]["agreementHash"],
        "Your details in the agreement changed since you read it. Please review the agreement again."
    );
    let fresh = app.agreement_hash(&session, &loan).await;
    assert_ne!(fresh, read);
    confirm["agreementHash"] = fresh;
    let created = app
        .post_as("/api/v1/borrower/orders", &session, &confirm)
        .await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let order_no = data(created).await["orderNo"].as_str().unwrap().to_owned();

    // The bank step names the open loan that locks the account, so the app can say so before anything is typed; the
    // other steps never do.
    let bank = data(
        app.get_as("/api/v1/borrower/certification/bank", &session)
            .await,
    )
    .await;
    assert_eq!(bank["bankLockedBy"], json!(order_no));
    let base = data(
        app.get_as("/api/v1/borrower/certification/base", &session)
            .await,
    )
    .await;
    assert_eq!(base["bankLockedBy"], Value::Null);

    // Under review: refused, in both languages, however right the code.
    app.services
        .clock
        .set_business_date(
            kilat_domain::Market::India,
            app.services.clock.today(kilat_domain::Market::India) + time::Duration::days(1),
        )
        .unwrap();
    let session = app.sign_in("IN", "9876500913").await;
    assert_eq!(send_code(&app, &session).await.status(), StatusCode::OK);
    let code = app.latest_code().await;
    let mut body = NEW_ACCOUNT();
    body["accountNumber"] = json!("1111 2222 3333");
    body["accountNumberConfirm"] = json!("111122223333");
    body["verificationCode"] = json!(code);
    let en = app
        .client
        .post(app.url("/api/v1/borrower/certification/bank"))
        .header("x-session-id", &session)
        .header("accept-language", "en-IN")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(en.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(en).await["fields"]["accountNumber"],
        "Your bank account cannot change while you have a loan under review, approved or not yet repaid."
    );
    let id = app
        .post_as("/api/v1/borrower/certification/bank", &session, &body)
        .await;
    assert_eq!(
        error(id).await["fields"]["accountNumber"],
        "Rekening bank Anda tidak dapat diubah selama ada pinjaman yang sedang ditinjau, disetujui, atau belum lunas."
    );
    assert_eq!(bank_changes(&app).await, 1);

    // Once the application is withdrawn, the same code changes it.
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let bank = data(
        app.get_as("/api/v1/borrower/certification/bank", &session)
            .await,
    )
    .await;
    assert_eq!(bank["bankLockedBy"], Value::Null);
    let ok = app
        .post_as("/api/v1/borrower/certification/bank", &session, &body)
        .await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(data(ok).await["bankLockedBy"], Value::Null);
    assert_eq!(bank_changes(&app).await, 2);
    app.stop().await;
}
