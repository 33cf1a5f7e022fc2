//! Payment providers' callbacks (issue 8, docs/API-WEBHOOKS.md): each verified before it is read (a bad signature is
//! 401 and writes nothing), credited once in the transaction that records its event id (a replay, or twenty at
//! once, posts once), an amount that differs held for finance; an Indonesian order closes through a signed
//! virtual-account callback without any operator. After each step the stored ledger is replayed with the money engine
//! and must equal the API's balances.

use kilat_server::auth::operators::Role;
use kilat_server::providers::dragonpay::digest as dragonpay_digest;
use kilat_server::providers::razorpay::signature as razorpay_signature;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::builders::{ID, IN, Loan};
use crate::helpers::{TestApp, data, error, spawn_app};
use crate::roles::{sample, scrape};
use crate::servicing::{
    Op, bank_reference_of, check_ledger, count, create_payment, operator, status_of,
};

pub(crate) const XENDIT_TOKEN: &str = "dev-xendit-callback-token";
const RAZORPAY_SECRET: &str = "dev-razorpay-webhook-secret";
const DRAGONPAY_SECRET: &str = "dev-dragonpay-password";

pub(crate) const LEDGER: &str = "SELECT COUNT(*) FROM ledger_entries WHERE payment_id = $1";
/// A provider's payment id with what an array literal gives meaning to (quotes, a backslash, a comma, braces, the word
/// NULL): on PostgreSQL a batch binds its texts as arrays (`store::lists`), and the id must be kept as it came.
const HOSTILE_PROVIDER_ID: &str = r#"xnd "batch" \3, {NULL}"#;
const CALLBACKS: &str = "SELECT COUNT(*) FROM payment_callbacks WHERE payment_id = $1";

pub(crate) async fn xendit(app: &TestApp, token: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/webhooks/xendit/va-paid"))
        .header("x-callback-token", token)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// [`xendit`] on a task of its own (callbacks at once): answers the callback's outcome; anything but 200 fails with the
/// answer's body.
pub(crate) fn spawn_xendit(app: &TestApp, body: Value) -> tokio::task::JoinHandle<String> {
    let (client, url) = (
        app.client.clone(),
        app.url("/api/v1/webhooks/xendit/va-paid"),
    );
    tokio::spawn(async move {
        let response = client
            .post(url)
            .header("x-callback-token", XENDIT_TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let text = response.text().await.unwrap();
        assert_eq!(status, StatusCode::OK, "{text}");
        serde_json::from_str::<Value>(&text).unwrap()["data"]["outcome"]
            .as_str()
            .unwrap()
            .to_owned()
    })
}

pub(crate) fn xendit_paid(payment: &Value, payment_id: &str, rupiah: i64) -> Value {
    json!({
        "id": format!("cb-{payment_id}"),
        "payment_id": payment_id,
        "callback_virtual_account_id": "va-1",
        "external_id": payment["reference"],
        "bank_code": "BCA",
        "account_number": payment["instructions"]["virtualAccount"],
        "amount": rupiah,
        "currency": "IDR",
    })
}

async fn razorpay(app: &TestApp, secret: &str, event_id: &str, body: &Value) -> reqwest::Response {
    let raw = serde_json::to_vec(body).unwrap();
    app.client
        .post(app.url("/api/v1/webhooks/razorpay"))
        .header("content-type", "application/json")
        .header("x-razorpay-signature", razorpay_signature(secret, &raw))
        .header("x-razorpay-event-id", event_id)
        .body(raw)
        .send()
        .await
        .unwrap()
}

fn captured(payment: &Value, amount: i64) -> Value {
    json!({
        "entity": "event",
        "event": "payment.captured",
        "contains": ["payment"],
        "payload": {"payment": {"entity": {
            "id": format!("pay_{}", payment["reference"].as_str().unwrap()),
            "amount": amount,
            "currency": "INR",
            "status": "captured",
            "notes": {"reference": payment["reference"]},
        }}},
    })
}

async fn dragonpay(app: &TestApp, fields: &[(&str, String)]) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/webhooks/dragonpay/postback"))
        .form(fields)
        .send()
        .await
        .unwrap()
}

fn postback(
    reference: &str,
    refno: &str,
    status: &str,
    secret: &str,
) -> Vec<(&'static str, String)> {
    let message = "Payment received";
    vec![
        ("txnid", reference.to_owned()),
        ("refno", refno.to_owned()),
        ("status", status.to_owned()),
        ("message", message.to_owned()),
        (
            "digest",
            dragonpay_digest(reference, refno, status, message, secret),
        ),
    ]
}

pub(crate) async fn payment_status(app: &TestApp, id: &str) -> String {
    let (status,): (String,) = sqlx::query_as("SELECT status FROM payments WHERE id = $1")
        .bind(id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    status
}

/// A disbursed Indonesian order and a virtual-account payment of `choice`: (session, order no, order id, payment).
pub(crate) async fn indonesian_payment(
    app: &TestApp,
    finance: &Op,
    phone: &str,
    choice: &str,
) -> (String, String, String, Value) {
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(ID)
        .phone(phone)
        .finance(finance)
        .disbursed()
        .await;
    let response = create_payment(
        app,
        &session,
        &order_no,
        choice,
        "virtual_account",
        &format!("va-{phone}"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let payment = data(response).await;
    (session, order_no, id, payment)
}

pub(crate) fn rupiah(payment: &Value) -> i64 {
    let sen = payment["amount"].as_i64().unwrap();
    assert_eq!(sen % 100, 0, "an Indonesian amount is whole rupiah: {sen}");
    sen / 100
}

#[tokio::test]
async fn a_signed_virtual_account_callback_closes_an_indonesian_order_without_an_operator_and_a_replay_posts_nothing()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id, payment) =
        indonesian_payment(&app, &finance, "081234567811", "payoff").await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    let body = xendit_paid(&payment, "xnd-pay-0001", rupiah(&payment));

    // A wrong or missing token: 401, nothing written.
    let bad = xendit(&app, "not-the-token", &body).await;
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(error(bad).await["code"], "unauthorized");
    let none = app
        .client
        .post(app.url("/api/v1/webhooks/xendit/va-paid"))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count(&app, CALLBACKS, payment_id).await, 0);
    assert_eq!(payment_status(&app, payment_id).await, "pending");

    // Signed: credited, the order repaid, no operator involved.
    let ok = xendit(&app, XENDIT_TOKEN, &body).await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(data(ok).await["outcome"], "confirmed");
    assert_eq!(payment_status(&app, payment_id).await, "confirmed");
    assert_eq!(status_of(&app, &id).await, "repaid");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["outstanding"]["total"], 0);
    let (provider_id,): (Option<String>,) =
        sqlx::query_as("SELECT provider_id FROM payments WHERE id = $1")
            .bind(payment_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(provider_id.as_deref(), Some("xnd-pay-0001"));
    let (actor,): (String,) = sqlx::query_as(
        "SELECT actor_kind FROM audit_log WHERE entity_id = $1 AND action = 'payment.callback_confirm'",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(actor, "system");

    // The same callback again: success, nothing posted.
    let again = xendit(&app, XENDIT_TOKEN, &body).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(data(again).await["outcome"], "replayed");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    check_ledger(&app, &session, &order_no, &id).await;

    // Another transfer for a payment already paid, the loan closed: new money, owed back to the borrower as a payment
    // of its own; the first is credited once.
    let other = xendit(
        &app,
        XENDIT_TOKEN,
        &xendit_paid(&payment, "xnd-pay-0002", rupiah(&payment)),
    )
    .await;
    assert_eq!(data(other).await["outcome"], "refund_due");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    let (status, refund): (String, Option<i64>) = sqlx::query_as(
        "SELECT status, refund_amount FROM payments WHERE order_id = $1 AND id <> $2",
    )
    .bind(&id)
    .bind(payment_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(
        (status.as_str(), refund),
        ("refund_due", payment["amount"].as_i64())
    );
    check_ledger(&app, &session, &order_no, &id).await;

    // A reference nobody issued is money kept for finance (`unmatched`); a body that is not Xendit's is 422; never
    // 500.
    let mut unknown = body.clone();
    unknown["external_id"] = json!("KPNOSUCHREF0");
    unknown["payment_id"] = json!("xnd-pay-0003");
    let unmatched = xendit(&app, XENDIT_TOKEN, &unknown).await;
    assert_eq!(unmatched.status(), StatusCode::OK);
    assert_eq!(data(unmatched).await["outcome"], "unmatched");
    let garbage = xendit(&app, XENDIT_TOKEN, &json!({"amount": "lots"})).await;
    assert_eq!(garbage.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(garbage).await["fields"]["body"].is_string());
    app.stop().await;
}

#[tokio::test]
async fn twenty_identical_callbacks_at_once_post_exactly_once() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id, payment) =
        indonesian_payment(&app, &finance, "081234567812", "due").await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let body = xendit_paid(&payment, "xnd-burst-0001", rupiah(&payment));
    let mut tasks = Vec::new();
    for _ in 0..20 {
        tasks.push(spawn_xendit(&app, body.clone()));
    }
    let mut outcomes = Vec::new();
    for t in tasks {
        outcomes.push(t.await.unwrap());
    }
    assert_eq!(
        outcomes.iter().filter(|o| *o == "confirmed").count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        outcomes.iter().filter(|o| *o == "replayed").count(),
        19,
        "{outcomes:?}"
    );
    assert_eq!(count(&app, LEDGER, &payment_id).await, 1);
    assert_eq!(count(&app, CALLBACKS, &payment_id).await, 1);
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn an_amount_that_differs_is_held_for_finance_and_credits_nothing() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id, payment) =
        indonesian_payment(&app, &finance, "081234567813", "payoff").await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    let short = xendit(
        &app,
        XENDIT_TOKEN,
        &xendit_paid(&payment, "xnd-short-1", rupiah(&payment) - 1),
    )
    .await;
    assert_eq!(data(short).await["outcome"], "held");
    assert_eq!(payment_status(&app, payment_id).await, "held");
    assert_eq!(count(&app, LEDGER, payment_id).await, 0);
    assert_eq!(status_of(&app, &id).await, "disbursed");
    check_ledger(&app, &session, &order_no, &id).await;
    // It waits in finance's queue with the amount received.
    let queue = data(
        crate::servicing::op_call(
            &app,
            &finance,
            reqwest::Method::GET,
            "/api/v1/console/payments",
            None,
        )
        .await,
    )
    .await;
    let held = queue
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["payment"]["paymentId"] == json!(payment_id))
        .expect("the held payment is in finance's queue");
    assert_eq!(held["payment"]["status"], "held");
    // The provider reported the money: it arrived, so finance credits it or owes it back, and cannot reject it out
    // of every queue (before, `rejected` took it out of sight).
    let rejected = crate::servicing::op_call(
        &app,
        &finance,
        reqwest::Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/reject"),
        Some(json!({"reason": "No such transfer on our statement."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::CONFLICT);
    assert_eq!(error(rejected).await["code"], "money_reported");
    assert_eq!(payment_status(&app, payment_id).await, "held");
    app.stop().await;
}

/// Money received is never lost from view, even where the money rules refuse its credit (a case no rule foresaw;
/// here an order whose status was set by hand to one no credit can move): the callback is recorded and answered,
/// the money held for finance. Before, the answer was a 409 that recorded nothing, and the provider retried for ever.
#[tokio::test]
async fn a_callback_whose_credit_the_rules_refuse_is_held_for_finance_not_refused() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (_, _, id, payment) = indonesian_payment(&app, &finance, "081234567819", "payoff").await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    app.execute(&format!(
        "UPDATE orders SET status = 'approved' WHERE id = '{id}'"
    ))
    .await;
    let paid = xendit(
        &app,
        XENDIT_TOKEN,
        &xendit_paid(&payment, "xnd-refused-1", rupiah(&payment)),
    )
    .await;
    assert_eq!(paid.status(), StatusCode::OK);
    assert_eq!(data(paid).await["outcome"], "held");
    assert_eq!(payment_status(&app, payment_id).await, "held");
    assert_eq!(count(&app, LEDGER, payment_id).await, 0);
    assert_eq!(count(&app, CALLBACKS, payment_id).await, 1);
    assert_eq!(status_of(&app, &id).await, "approved");
    app.stop().await;
}

#[tokio::test]
async fn a_razorpay_capture_is_credited_once_when_its_signature_verifies() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "upi", "rzp-key-0001").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    let amount = payment["amount"].as_i64().unwrap();
    let body = captured(&payment, amount);

    let bad = razorpay(&app, "not-the-secret", "evt_0001", &body).await;
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    // The signature is over the raw body: one byte changed does not verify.
    let raw = serde_json::to_vec(&body).unwrap();
    let signature = razorpay_signature(RAZORPAY_SECRET, &raw);
    let mut tampered = raw.clone();
    tampered.push(b' ');
    let tampered = app
        .client
        .post(app.url("/api/v1/webhooks/razorpay"))
        .header("x-razorpay-signature", &signature)
        .header("x-razorpay-event-id", "evt_0001")
        .body(tampered)
        .send()
        .await
        .unwrap();
    assert_eq!(tampered.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(count(&app, CALLBACKS, payment_id).await, 0);

    let ok = razorpay(&app, RAZORPAY_SECRET, "evt_0001", &body).await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(data(ok).await["outcome"], "confirmed");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["installments"][0]["outstanding"]["total"], 0);
    let again = razorpay(&app, RAZORPAY_SECRET, "evt_0001", &body).await;
    assert_eq!(data(again).await["outcome"], "replayed");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    // Another event type, signed: acknowledged, nothing written.
    let other = razorpay(
        &app,
        RAZORPAY_SECRET,
        "evt_0002",
        &json!({"event": "payment.failed", "payload": {}}),
    )
    .await;
    assert_eq!(data(other).await["outcome"], "ignored");
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn a_dragonpay_postback_credits_only_on_s_and_answers_result_ok() {
    // Dragonpay offered in India too, so that an Indian loan can be paid through it.
    let app = crate::helpers::spawn_app_with(|s| s.payments.india.dragonpay = true).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "dragonpay", "dp-key-0001").await)
            .await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    let reference = payment["reference"].as_str().unwrap();

    let mut forged = postback(reference, "DP0001", "S", "wrong-password");
    let bad = dragonpay(&app, &forged).await;
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    forged.pop();
    assert_eq!(
        dragonpay(&app, &forged).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(count(&app, CALLBACKS, payment_id).await, 0);

    // Pending: acknowledged, nothing credited.
    let pending = dragonpay(&app, &postback(reference, "DP0001", "P", DRAGONPAY_SECRET)).await;
    assert_eq!(pending.status(), StatusCode::OK);
    assert!(
        pending.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    assert_eq!(pending.text().await.unwrap(), "result=OK");
    assert_eq!(count(&app, LEDGER, payment_id).await, 0);
    assert_eq!(payment_status(&app, payment_id).await, "pending");
    let failed = dragonpay(&app, &postback(reference, "DP0001", "F", DRAGONPAY_SECRET)).await;
    assert_eq!(failed.text().await.unwrap(), "result=OK");
    assert_eq!(count(&app, LEDGER, payment_id).await, 0);
    check_ledger(&app, &session, &order_no, &id).await;

    // Success: credited once, also when repeated (as a GET this time). The amount and currency a postback carries
    // are outside its digest (the borrower's browser gets the same fields on its return), so they are not read: the
    // money is the amount the reference was issued for. Before, an inflated amount was held and credited as posted.
    let mut success = postback(reference, "DP0001", "S", DRAGONPAY_SECRET);
    success.push(("amount", "999999.00".to_owned()));
    success.push(("ccy", "USD".to_owned()));
    assert_eq!(
        dragonpay(&app, &success).await.text().await.unwrap(),
        "result=OK"
    );
    assert_eq!(payment_status(&app, payment_id).await, "confirmed");
    let (received,): (Option<i64>,) =
        sqlx::query_as("SELECT received_amount FROM payments WHERE id = $1")
            .bind(payment_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(received, payment["amount"].as_i64());
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    let query = serde_urlencoded::to_string(&success).unwrap();
    let replay = app
        .client
        .get(app.url(&format!("/api/v1/webhooks/dragonpay/postback?{query}")))
        .send()
        .await
        .unwrap();
    assert_eq!(replay.text().await.unwrap(), "result=OK");
    assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn callbacks_pass_the_same_origin_check_and_a_disabled_provider_is_not_found() {
    let app = crate::helpers::spawn_app_with(|s| s.payments.xendit.enabled = false).await;
    let cross = app
        .client
        .post(app.url("/api/v1/webhooks/razorpay"))
        .header("origin", "https://evil.example")
        .header("sec-fetch-site", "cross-site")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(
        cross.status(),
        StatusCode::UNAUTHORIZED,
        "verified, not refused as cross-site"
    );
    let off = xendit(&app, XENDIT_TOKEN, &json!({})).await;
    assert_eq!(off.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

/// The benchmark of scripts/bench-callbacks.sh (ignored by `make test`): 100 disbursed Indonesian orders, each with a
/// `due` payment, credited by 100 signed virtual-account callbacks sent at once; prints the repayments credited per
/// second. Every callback must credit its payment once and the ledgers must replay. The batches' lanes run where
/// `kilat serve` runs them, on a runtime of two worker threads (main.rs) beside the HTTP workers' own threads, and
/// not on one thread with the hundred requests' client, as a test's runtime would have them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: scripts/bench-callbacks.sh"]
async fn bench_signed_callbacks_credit_100_orders_in_parallel() {
    let orders: usize = crate::helpers::knob("BENCH_CALLBACK_ORDERS").unwrap_or(100);
    // The pool size every test runs with (4) unless BENCH_CALLBACK_POOL sets another (0: the server's default, 16 on
    // PostgreSQL). More connections were slower on two cores: 300 callbacks on PostgreSQL, 550/s with 4, 540/s with
    // 10, 438/s with 16 (docs/PERFORMANCE.md).
    let pool: u32 = crate::helpers::knob("BENCH_CALLBACK_POOL").unwrap_or(4);
    // The most callbacks credited in one batch: `[payments] callback_batch` unless BENCH_CALLBACK_BATCH sets another
    // (1: each on its own, as before issue 20's batches), and the lanes (`callback_lanes`) BENCH_CALLBACK_LANES.
    let batch: Option<usize> = crate::helpers::knob("BENCH_CALLBACK_BATCH");
    let lanes: Option<usize> = crate::helpers::knob("BENCH_CALLBACK_LANES");
    let app = crate::helpers::spawn_app_with(|s| {
        s.database_max_connections = pool;
        if let Some(batch) = batch {
            s.payments.callback_batch = batch;
        }
        if let Some(lanes) = lanes {
            s.payments.callback_lanes = lanes;
        }
    })
    .await;
    // Callbacks credited before the timed burst (BENCH_CALLBACK_WARMUP, default none): a server that has been crediting
    // for a while, its connections holding the statements prepared, rather than the first burst after its start.
    let warmup: usize = crate::helpers::knob("BENCH_CALLBACK_WARMUP").unwrap_or(0);
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mut bodies = Vec::with_capacity(orders + warmup);
    for i in 0..orders + warmup {
        let phone = format!("0812{:08}", 50_000_000 + i);
        // Seeding only: the sign-in limits per client address (codes a day, attempts a window) would stop the hundred
        // borrowers early.
        app.execute("DELETE FROM rate_limits").await;
        let (_, _, _, payment) = indonesian_payment(&app, &finance, &phone, "due").await;
        bodies.push((
            payment["paymentId"].as_str().unwrap().to_owned(),
            xendit_paid(&payment, &format!("xnd-bench-{i:05}"), rupiah(&payment)),
        ));
    }
    let before: Vec<_> = bodies.drain(orders..).collect();
    let tasks: Vec<_> = before
        .iter()
        .map(|(_, body)| spawn_xendit(&app, body.clone()))
        .collect();
    for t in tasks {
        assert_eq!(t.await.unwrap(), "confirmed");
    }
    // A quiet pause before and after the timed burst (BENCH_CALLBACK_PAUSE_MS, default none), each announced on
    // stderr, so a profiler or PostgreSQL's statement log can take the burst alone
    // (scripts/bench/callbacks-statements.sh).
    let pause: u64 = crate::helpers::knob("BENCH_CALLBACK_PAUSE_MS").unwrap_or(0);
    if pause > 0 {
        eprintln!("BENCH_BURST_SOON");
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
    }
    let started = std::time::Instant::now();
    let mut tasks = Vec::with_capacity(orders);
    for (_, body) in &bodies {
        tasks.push(spawn_xendit(&app, body.clone()));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), "confirmed");
    }
    let seconds = started.elapsed().as_secs_f64();
    if pause > 0 {
        eprintln!("BENCH_BURST_DONE");
        tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
    }
    for (payment_id, _) in &bodies {
        assert_eq!(count(&app, LEDGER, payment_id).await, 1);
    }
    let database = if app.db.is_sqlite() {
        "sqlite"
    } else {
        "postgres"
    };
    println!(
        "BENCH_CALLBACKS database={database} orders={orders} pool={pool} batch={} lanes={} warmup={warmup} seconds={seconds:.3} per_second={:.1}",
        app.services.payments.settings.callback_batch,
        app.services.payments.settings.callback_lanes,
        orders as f64 / seconds
    );
    app.stop().await;
}

/// Every row of `sql` (bound to `key`) as text, a column to a `name=value` pair: the ids and times each run makes its
/// own are left out (ids, times, operators' ids, virtual-account numbers), and the values that name this run's order, payments and borrower are replaced by what they are.
async fn rows_as_text(
    app: &TestApp,
    sql: &str,
    key: &str,
    names: &[(String, String)],
) -> Vec<String> {
    use sqlx::{Column, Row};
    let rows = sqlx::query(sql)
        .bind(key)
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    let mut out: Vec<String> = rows
        .iter()
        .map(|row| {
            row.columns()
                .iter()
                .filter(|c| {
                    let name = c.name();
                    // Ids, times, the operators' ids and the virtual account's number are each run's own.
                    !(name == "id"
                        || name == "at"
                        || name.ends_with("_at")
                        || name == "entry_id"
                        || name == "actor_id"
                        || name == "va_number")
                })
                .map(|c| {
                    let i = c.ordinal();
                    let value = row
                        .try_get::<Option<String>, _>(i)
                        .map(|v| v.unwrap_or_else(|| "null".into()))
                        .or_else(|_| row.try_get::<Option<i64>, _>(i).map(|v| format!("{v:?}")))
                        .or_else(|_| row.try_get::<Option<i32>, _>(i).map(|v| format!("{v:?}")))
                        .or_else(|_| row.try_get::<Option<bool>, _>(i).map(|v| format!("{v:?}")))
                        .unwrap_or_else(|e| panic!("{sql}: column {}: {e}", c.name()));
                    let value = names
                        .iter()
                        .fold(value, |v, (real, name)| v.replace(real.as_str(), name));
                    format!("{}={value}", c.name())
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    out.sort();
    out
}

/// A batch of callbacks never waits for an order another transaction holds (PostgreSQL; SQLite has no row locks, and
/// a transaction that writes there holds the whole database). With one lane, a callback for an order held elsewhere —
/// as finance deciding one of its payments would hold it — goes first, then two for free orders: those two are
/// credited while the order stays held (a batch that waited for it would hold them up until it is let go), the held
/// order's payment stays open, and once it is let go its callback is credited on its own, exactly once.
#[tokio::test]
async fn a_batch_of_callbacks_credits_the_free_orders_while_another_transaction_holds_one() {
    let app = crate::helpers::spawn_app_with(|s| {
        s.payments.callback_lanes = 1;
        s.metrics.listen = "127.0.0.1:0".into();
        // Room in the shared pool (a quarter of it) for the holder, the held order's callback and a batch.
        s.database_max_connections = 16;
    })
    .await;
    if app.db.is_sqlite() {
        app.stop().await;
        return;
    }
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mut orders = Vec::new();
    for i in 0..3 {
        app.execute("DELETE FROM rate_limits").await;
        let phone = format!("0812{:08}", 61_000_000 + i);
        let (_, _, order_id, payment) = indonesian_payment(&app, &finance, &phone, "due").await;
        orders.push((order_id, payment));
    }
    let mut holder = app.db.pool().begin().await.unwrap();
    sqlx::query("SELECT id FROM orders WHERE id = $1 FOR UPDATE")
        .bind(&orders[0].0)
        .fetch_one(&mut *holder)
        .await
        .unwrap();
    let send = |payment: &Value, event: &str| {
        spawn_xendit(&app, xendit_paid(payment, event, rupiah(payment)))
    };
    let held = send(&orders[0].1, "xnd-held-0");
    // The held order's callback goes first: on until a statement waits for the order's lock (the lane's batch with a
    // lock that waits, the callback on its own with one that skips).
    let waiting_for_the_lock = async {
        loop {
            let (waiting,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM pg_stat_activity
                 WHERE datname = current_database() AND wait_event_type = 'Lock'",
            )
            .fetch_one(&mut *holder)
            .await
            .unwrap();
            if waiting > 0 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), waiting_for_the_lock)
        .await
        .expect("the held order's callback waits for its lock");
    let free = [
        send(&orders[1].1, "xnd-free-1"),
        send(&orders[2].1, "xnd-free-2"),
    ];
    for task in free {
        let outcome = tokio::time::timeout(std::time::Duration::from_secs(20), task)
            .await
            .expect("a callback for a free order is credited while another order is held")
            .unwrap();
        assert_eq!(outcome, "confirmed");
    }
    assert!(!held.is_finished());
    let held_payment = orders[0].1["paymentId"].as_str().unwrap();
    assert_eq!(payment_status(&app, held_payment).await, "pending");
    holder.rollback().await.unwrap();
    assert_eq!(held.await.unwrap(), "confirmed");
    for (order_id, payment) in &orders {
        assert_eq!(
            count(&app, LEDGER, payment["paymentId"].as_str().unwrap()).await,
            1
        );
        assert_eq!(status_of(&app, order_id).await, "repaid");
    }
    // The two free ones by a batch, the held one on its own.
    assert_eq!(batched_total(&app).await, Some(2.0));
    app.stop().await;
}

/// One order of [`callbacks_credited_in_batches_write_what_one_at_a_time_writes_and_leave_the_rest_to_it`]'s bursts:
/// its borrower's phone, its ids and the payments made for it, in order.
struct Burst {
    phone: String,
    order_no: String,
    order_id: String,
    payments: Vec<Value>,
}

/// Folds the dashboard's book's moves a few times, as the worker's tick would, while callbacks are credited.
async fn fold_book_meanwhile(app: &TestApp) {
    for _ in 0..10 {
        app.db.fold_book().await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
}

/// Sends one Xendit callback per body at once and answers their outcomes in the bodies' order.
async fn xendit_burst(app: &TestApp, bodies: &[Value]) -> Vec<String> {
    futures_util::future::join_all(bodies.iter().map(|body| async move {
        let response = xendit(app, XENDIT_TOKEN, body).await;
        assert_eq!(response.status(), StatusCode::OK);
        data(response).await["outcome"].as_str().unwrap().to_owned()
    }))
    .await
}

/// `kilat_callbacks_batched_total` as the server's `/metrics` states it (`None` before any batch credited one).
async fn batched_total(app: &TestApp) -> Option<f64> {
    let addr = app.metrics_addr.expect("/metrics is bound");
    sample(
        &scrape(&app.client, addr).await,
        "kilat_callbacks_batched_total",
        &[],
    )
}

/// Crediting verified callbacks in batches (issue 20: `[payments] callback_batch`) writes, row for row, what crediting
/// each on its own writes, and leaves to that path every callback that is not a plain credit. The same days go to a
/// server with batches off (1) and one with batches of up to 100, from the same business date:
/// - the first burst, at once: eight disbursed Indonesian orders' `due` payments (one callback for an amount other
///   than the payment's: held; one event sent twice: replayed), a cooling-off exit and an extension fee;
/// - forty days later, after the overdue job: a `due` payment that catches an overdue instalment loan up, a payoff of
///   another, and a payoff of the extended loan, now overdue too, in a second burst.
///
/// Both servers answer the same outcomes and move the orders the same way (exited in cooling-off, extended, caught
/// up, repaid out of overdue); the batched server's metrics count the callbacks its batches credited (all but the
/// held one and the replay), the other's none; and every order's rows — the order, its timeline, its payments, the
/// ledger's entries and lines, the loan's position, the receipts, the callbacks' records and the audit trail — are
/// the same on both but for ids, times and the order's own names.
#[tokio::test]
async fn callbacks_credited_in_batches_write_what_one_at_a_time_writes_and_leave_the_rest_to_it() {
    let day0 = time::macros::date!(2026 - 03 - 02);
    let mut written: Vec<Vec<Vec<String>>> = Vec::new();
    for batch in [1usize, 100] {
        let app = crate::helpers::spawn_app_with(move |s| {
            s.payments.callback_batch = batch;
            s.metrics.listen = "127.0.0.1:0".into();
        })
        .await;
        app.set_indonesia_date(day0).await;
        let finance = operator(&app, "fin", &[Role::Finance]).await;
        let mut orders = Vec::new();
        for (i, choice) in ["due"; 8]
            .into_iter()
            .chain(["cooling_off", "extension"])
            .enumerate()
        {
            // Seeding only: the sign-in limits per client address would stop the borrowers early.
            app.execute("DELETE FROM rate_limits").await;
            let phone = format!("0812{:08}", 60_000_000 + i);
            let (_, order_no, order_id, payment) =
                indonesian_payment(&app, &finance, &phone, choice).await;
            orders.push(Burst {
                phone,
                order_no,
                order_id,
                payments: vec![payment],
            });
        }
        for i in 0..2 {
            app.execute("DELETE FROM rate_limits").await;
            let phone = format!("0812{:08}", 60_000_100 + i);
            let loan = app
                .borrower(ID)
                .phone(&phone)
                .loan("id-kilat-cicil", 200_000_000, "m3")
                .finance(&finance)
                .disbursed()
                .await;
            orders.push(Burst {
                phone,
                order_no: loan.order_no,
                order_id: loan.order_id,
                payments: Vec::new(),
            });
        }

        // The first burst: 8 due (the seventh's amount differs), the eighth's event again, the exit, the extension.
        let mut bodies: Vec<Value> = orders[..10]
            .iter()
            .enumerate()
            .map(|(i, order)| {
                let payment = &order.payments[0];
                let amount = rupiah(payment) - i64::from(i == 6);
                // One provider id that an array literal would misread.
                let id = if i == 3 {
                    HOSTILE_PROVIDER_ID.to_owned()
                } else {
                    format!("xnd-batch-{i}")
                };
                xendit_paid(payment, &id, amount)
            })
            .collect();
        bodies.push(bodies[7].clone());
        // Two workers folding the dashboard's book meanwhile (migration 0052).
        let (answers, (), ()) = tokio::join!(
            xendit_burst(&app, &bodies),
            fold_book_meanwhile(&app),
            fold_book_meanwhile(&app)
        );
        let mut expected = vec!["confirmed"; 11];
        expected[6] = "held";
        let replay = if answers[7] == "replayed" { 7 } else { 10 };
        expected[replay] = "replayed";
        assert_eq!(answers, expected, "batch {batch}");
        assert_eq!(
            status_of(&app, &orders[8].order_id).await,
            "exited_in_cooling_off"
        );
        assert_eq!(status_of(&app, &orders[9].order_id).await, "disbursed");

        // Forty days on, past the instalment loans' first due date and the extended one's.
        app.set_indonesia_date(day0 + time::Duration::days(40))
            .await;
        app.run_overdue(kilat_domain::Market::Indonesia).await;
        for order in &orders[9..] {
            assert_eq!(status_of(&app, &order.order_id).await, "overdue");
        }
        let mut bodies = Vec::new();
        for (i, choice) in [(9, "payoff"), (10, "due"), (11, "payoff")] {
            app.execute("DELETE FROM rate_limits").await;
            let order = &mut orders[i];
            // Signed in again: moving the date ended the older sessions.
            let session = app.sign_in("ID", &order.phone).await;
            let response = create_payment(
                &app,
                &session,
                &order.order_no,
                choice,
                "virtual_account",
                &format!("late-key-{i}"),
            )
            .await;
            let payment = data(response).await;
            bodies.push(xendit_paid(
                &payment,
                &format!("xnd-late-{i}"),
                rupiah(&payment),
            ));
            order.payments.push(payment);
        }
        let (answers, ()) = tokio::join!(xendit_burst(&app, &bodies), fold_book_meanwhile(&app));
        assert_eq!(answers, ["confirmed"; 3], "batch {batch}");
        // The book the callbacks moved is the book counted from the loans' positions: the loans exited or repaid
        // taken out, the others at their new positions.
        let book = app.book_as_counted().await;
        let (open,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM orders WHERE status IN ('disbursed', 'overdue')")
                .fetch_one(app.db.pool())
                .await
                .unwrap();
        assert!(open > 0);
        assert_eq!(
            book.iter().map(|row| row.5).sum::<i64>(),
            open,
            "batch {batch}"
        );
        for (i, status) in [(9, "repaid"), (10, "disbursed"), (11, "repaid")] {
            assert_eq!(
                status_of(&app, &orders[i].order_id).await,
                status,
                "order {i}"
            );
        }

        let batched = batched_total(&app).await;
        if batch == 1 {
            assert_eq!(batched, None);
        } else {
            // All but the extension's fee, which is settled one at a time: whether another payment of its loan waits
            // for finance is read with its order locked.
            assert_eq!(batched, Some(11.0));
        }
        let mut per_order = Vec::new();
        for (i, order) in orders.iter().enumerate() {
            for payment in &order.payments {
                let payment_id = payment["paymentId"].as_str().unwrap();
                assert_eq!(count(&app, LEDGER, payment_id).await, i64::from(i != 6));
            }
            let (borrower,): (String,) =
                sqlx::query_as("SELECT borrower_id FROM orders WHERE id = $1")
                    .bind(&order.order_id)
                    .fetch_one(app.db.pool())
                    .await
                    .unwrap();
            let mut names = vec![
                (
                    bank_reference_of(&order.order_no),
                    "BANK-REFERENCE".to_owned(),
                ),
                (order.order_id.clone(), "ORDER-ID".to_owned()),
                (order.order_no.clone(), "ORDER-NO".to_owned()),
                (borrower, "BORROWER".to_owned()),
            ];
            for (n, payment) in order.payments.iter().enumerate() {
                names.push((
                    payment["paymentId"].as_str().unwrap().to_owned(),
                    format!("PAYMENT-ID-{n}"),
                ));
                names.push((
                    payment["reference"].as_str().unwrap().to_owned(),
                    format!("REFERENCE-{n}"),
                ));
            }
            let mut rows = Vec::new();
            for sql in [
                // What a callback writes of the order (its status), not the KFS and agreement frozen before.
                "SELECT status, borrower_id, amount FROM orders WHERE id = $1",
                "SELECT * FROM order_events WHERE order_id = $1",
                "SELECT * FROM payments WHERE order_id = $1",
                "SELECT * FROM ledger_entries WHERE order_id = $1",
                "SELECT e.seq, l.* FROM ledger_lines l JOIN ledger_entries e ON e.id = l.entry_id
                 WHERE e.order_id = $1",
                "SELECT * FROM loan_arrears WHERE order_id = $1",
                "SELECT * FROM notification_outbox WHERE order_id = $1",
                "SELECT c.* FROM payment_callbacks c JOIN payments p ON p.id = c.payment_id WHERE p.order_id = $1",
                "SELECT * FROM audit_log WHERE entity_id = $1",
            ] {
                rows.extend(rows_as_text(&app, sql, &order.order_id, &names).await);
            }
            per_order.push(rows);
        }
        // The provider's id kept as it came, as the callback's event and the payment's provider id.
        let (kept,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM payment_callbacks c JOIN payments p ON p.id = c.payment_id
             WHERE c.event_id = $1 AND p.provider_id = $1",
        )
        .bind(HOSTILE_PROVIDER_ID)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
        assert_eq!(kept, 1, "batch {batch}");
        written.push(per_order);
        app.stop().await;
    }
    for (i, (one, batched)) in written[0].iter().zip(&written[1]).enumerate() {
        let only_one: Vec<_> = one.iter().filter(|r| !batched.contains(r)).collect();
        let only_batched: Vec<_> = batched.iter().filter(|r| !one.contains(r)).collect();
        assert!(
            only_one.is_empty() && only_batched.is_empty() && one.len() == batched.len(),
            "order {i}: written one at a time only: {only_one:#?}\nin batches only: {only_batched:#?}"
        );
    }
}

/// Dragonpay's postback names no currency: money it reports for a reference no payment has is the money of the one
/// market Dragonpay is on in, shown to that market's finance only.
#[tokio::test]
async fn unmatched_dragonpay_money_is_the_market_s_that_offers_dragonpay() {
    let app = spawn_app().await;
    let answer = dragonpay(
        &app,
        &postback("KPNOSUCHDRAGON", "DP7777", "S", DRAGONPAY_SECRET),
    )
    .await;
    assert_eq!(answer.status(), StatusCode::OK);
    // A chargeback for a reference no payment has took back nothing any loan counts: nothing for finance.
    let back = dragonpay(
        &app,
        &postback("KPNOSUCHDRAGON2", "DP7778", "K", DRAGONPAY_SECRET),
    )
    .await;
    assert_eq!(back.status(), StatusCode::OK);
    let india = crate::servicing::operator_in(
        &app,
        "fin-in",
        &[Role::Finance],
        &[kilat_domain::Market::India],
    )
    .await;
    let indonesia = crate::servicing::operator_in(
        &app,
        "fin-id",
        &[Role::Finance],
        &[kilat_domain::Market::Indonesia],
    )
    .await;
    let listed = |op: Op| {
        let app = &app;
        async move {
            data(
                crate::servicing::op_call(
                    app,
                    &op,
                    reqwest::Method::GET,
                    "/api/v1/console/unmatched-receipts",
                    None,
                )
                .await,
            )
            .await
        }
    };
    let theirs = listed(indonesia).await;
    assert_eq!(theirs[0]["reference"], "KPNOSUCHDRAGON");
    assert_eq!(theirs[0]["market"], "ID");
    assert_eq!(listed(india).await, json!([]));
}
