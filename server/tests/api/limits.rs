//! Sign-in limits under concurrency: bursts of requests sent at the same moment, on one server and on two server
//! processes sharing one database, each limit held exactly (docs/API-BORROWER.md, Limits).

use std::collections::BTreeMap;
use std::sync::Arc;

use kilat_server::auth::{DAILY_CODES_PER_PHONE, MAX_FAILED_ATTEMPTS};
use kilat_server::store::Db;
use reqwest::{RequestBuilder, StatusCode};
use serde_json::json;

use crate::helpers::{ServerProcess, TestApp, data, error, shared_database, spawn_app_with};

const SMS: &str = "/api/v1/borrower/login/sms-code";
const VOICE: &str = "/api/v1/borrower/login/voice-code";
const LOGIN: &str = "/api/v1/borrower/login";

/// What one request of a burst got.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    /// The envelope's `code`: `ok` for a success, else the error code.
    pub(crate) code: String,
    pub(crate) retry_after: Option<u64>,
}

/// Sends every request at the same moment (each on its own task, released together) and returns the answers in
/// order.
pub(crate) async fn burst(requests: Vec<RequestBuilder>) -> Vec<Answer> {
    let start = Arc::new(tokio::sync::Barrier::new(requests.len()));
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|request| {
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.expect("the request is sent");
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok()?.parse().ok());
                let body: serde_json::Value = response.json().await.expect("a JSON body");
                let code = match &body["code"] {
                    serde_json::Value::String(code) => code.clone(),
                    other if other == 0 => "ok".to_owned(),
                    other => panic!("not an envelope: {other}"),
                };
                Answer {
                    status,
                    code,
                    retry_after,
                }
            })
        })
        .collect();
    let mut answers = Vec::with_capacity(tasks.len());
    for task in tasks {
        answers.push(task.await.expect("a request task"));
    }
    answers
}

/// How many answers had each code.
pub(crate) fn tally(answers: &[Answer]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for answer in answers {
        *counts.entry(answer.code.as_str()).or_default() += 1;
    }
    counts
}

async fn count(db: &Db, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(db.pool())
        .await
        .expect("a count")
}

/// An Indian mobile number per index, all distinct.
fn phone(n: usize) -> String {
    format!("98765{n:05}")
}

/// A different client address per (group, index), for `X-Forwarded-For`.
fn address(group: usize, n: usize) -> String {
    format!("10.{group}.{}.{}", n / 256, n % 256)
}

fn login_from(app: &TestApp, addr: &str, phone: &str, code: &str) -> RequestBuilder {
    app.client
        .post(app.url(LOGIN))
        .header("x-forwarded-for", addr)
        .json(&json!({"market": "IN", "phone": phone, "code": code}))
}

/// A wrong code other than `right`, varied by `n`.
fn wrong_code(right: &str, n: usize) -> String {
    let guess = format!("{:06}", (n * 7919) % 1_000_000);
    if guess == right {
        format!("{:06}", (n * 7919 + 1) % 1_000_000)
    } else {
        guess
    }
}

/// The per-address caps these tests set (the defaults are sized for an address many people share, `[limits]`).
const DAILY_CODES_PER_ADDRESS: i64 = 30;
const LOGIN_ATTEMPTS_PER_ADDRESS: i64 = 20;
/// The same as settings of a server process.
const SMALL_ADDRESS_CAPS: &[(&str, &str)] = &[
    ("KILAT_LIMITS__CODES_PER_ADDRESS_PER_DAY", "30"),
    ("KILAT_LIMITS__SIGN_INS_PER_ADDRESS", "20"),
];

/// The application with `X-Forwarded-For` trusted, so that one test can speak for many client addresses, and the
/// per-address caps small.
async fn spawn_app_behind_proxy() -> TestApp {
    spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.limits.codes_per_address_per_day = DAILY_CODES_PER_ADDRESS as u32;
        s.limits.sign_ins_per_address = LOGIN_ATTEMPTS_PER_ADDRESS as u32;
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_wrong_guesses_at_one_code_gets_exactly_five_compared_and_then_the_right_code_is_refused()
 {
    let app = spawn_app_behind_proxy().await;
    for round in 0..6 {
        // Each guess from its own address, so that the per-address limiter on /login does not hide the per-code one.
        let phone = phone(round);
        let code = app.request_code("IN", &phone).await;
        let guesses = (0..200)
            .map(|n| login_from(&app, &address(round, n), &phone, &wrong_code(&code, n)))
            .collect();
        let answers = burst(guesses).await;

        let compared = usize::try_from(MAX_FAILED_ATTEMPTS).unwrap();
        assert_eq!(
            tally(&answers),
            BTreeMap::from([
                ("code_invalid", compared - 1),
                ("code_attempts_exceeded", 200 - (compared - 1)),
            ]),
            "round {round}: the first four tries are told the code is wrong, every other one that tries are over"
        );
        assert!(
            answers.iter().all(|a| a.status == StatusCode::BAD_REQUEST
                || a.status == StatusCode::TOO_MANY_REQUESTS)
        );
        let tries: i64 = sqlx::query_scalar("SELECT failed_attempts FROM login_codes")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        assert_eq!(tries, MAX_FAILED_ATTEMPTS, "round {round}: tries compared");

        let right = app
            .post_json(
                LOGIN,
                &json!({"market": "IN", "phone": phone, "code": code}),
            )
            .await;
        assert_eq!(
            right.status(),
            StatusCode::TOO_MANY_REQUESTS,
            "round {round}"
        );
        assert_eq!(error(right).await["code"], "code_attempts_exceeded");
        assert_eq!(count(&app.db, "SELECT COUNT(*) FROM borrowers").await, 0);
        assert_eq!(
            count(&app.db, "SELECT COUNT(*) FROM borrower_sessions").await,
            0
        );
        app.execute("DELETE FROM login_codes").await;
        app.execute("DELETE FROM rate_limits").await;
    }
    app.stop().await;
}

#[tokio::test]
async fn the_right_code_on_the_fifth_try_still_signs_in() {
    let app = spawn_app_behind_proxy().await;
    let code = app.request_code("IN", "9876543210").await;
    for n in 1..MAX_FAILED_ATTEMPTS {
        let wrong = login_from(&app, "10.0.0.1", "9876543210", &wrong_code(&code, 0))
            .send()
            .await
            .unwrap();
        assert_eq!(error(wrong).await["code"], "code_invalid", "try {n}");
    }
    let right = login_from(&app, "10.0.0.1", "9876543210", &code)
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), StatusCode::OK);
    assert_eq!(data(right).await["borrower"]["isNew"], true);
    let used: (i64, Option<i64>) =
        sqlx::query_as("SELECT failed_attempts, consumed_at FROM login_codes")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(used.0, MAX_FAILED_ATTEMPTS);
    assert!(used.1.is_some(), "the code is used");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_sends_to_one_phone_sends_exactly_one_code() {
    let app = spawn_app_behind_proxy().await;
    for round in 0..4 {
        let phone = phone(round);
        let sends = (0..50)
            .map(|n| {
                app.client
                    .post(app.url(if n % 2 == 0 { SMS } else { VOICE }))
                    .header("x-forwarded-for", address(round, n))
                    .json(&json!({"market": "IN", "phone": phone}))
            })
            .collect();
        let answers = burst(sends).await;
        assert_eq!(
            tally(&answers),
            BTreeMap::from([("ok", 1), ("code_resend_too_soon", 49)]),
            "round {round}"
        );
        let waits: Vec<_> = answers
            .iter()
            .filter(|a| a.code == "code_resend_too_soon")
            .map(|a| a.retry_after)
            .collect();
        assert!(
            waits
                .iter()
                .all(|s| s.is_some_and(|s| (55..=60).contains(&s))),
            "Retry-After {waits:?}"
        );
        let outbox = data(
            app.get(&format!("/api/v1/dev/outbox?phone=%2B91{phone}"))
                .await,
        )
        .await;
        assert_eq!(
            outbox.as_array().unwrap().len(),
            1,
            "round {round}: codes delivered"
        );
    }
    assert_eq!(count(&app.db, "SELECT COUNT(*) FROM login_codes").await, 4);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_phone_with_nine_codes_today_gets_exactly_one_more_from_a_burst_and_then_none() {
    let app = spawn_app_behind_proxy().await;
    let phone = phone(7);
    app.request_code("IN", &phone).await;
    // Eight more codes earlier today (the phone's day holds nine), and the first one aged past the resend wait.
    app.execute(&format!(
        "UPDATE rate_limits SET hits = {} WHERE key LIKE 'codes_phone:%'",
        DAILY_CODES_PER_PHONE - 1
    ))
    .await;
    app.execute(
        "UPDATE rate_limits SET window_start = window_start - 61000 WHERE key LIKE 'code_resend:%'",
    )
    .await;

    let sends = |group| {
        (0..40)
            .map(|n| {
                app.client
                    .post(app.url(SMS))
                    .header("x-forwarded-for", address(group, n))
                    .json(&json!({"market": "IN", "phone": phone}))
            })
            .collect()
    };
    let answers = burst(sends(1)).await;
    assert_eq!(
        tally(&answers),
        BTreeMap::from([("ok", 1), ("code_resend_too_soon", 39)])
    );
    let phone_day = "SELECT hits FROM rate_limits WHERE key LIKE 'codes_phone:%'";
    assert_eq!(count(&app.db, phone_day).await, DAILY_CODES_PER_PHONE);
    assert_eq!(count(&app.db, "SELECT COUNT(*) FROM login_codes").await, 2);

    app.execute(
        "UPDATE rate_limits SET window_start = window_start - 61000 WHERE key LIKE 'code_resend:%'",
    )
    .await;
    let answers = burst(sends(2)).await;
    assert_eq!(
        tally(&answers),
        BTreeMap::from([("daily_limit_reached", 40)])
    );
    assert_eq!(count(&app.db, phone_day).await, DAILY_CODES_PER_PHONE);
    assert_eq!(count(&app.db, "SELECT COUNT(*) FROM login_codes").await, 2);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_sends_to_sixty_phones_from_one_address_sends_exactly_thirty_codes() {
    let app = spawn_app_behind_proxy().await;
    let sends = (0..60)
        .map(|n| {
            app.client
                .post(app.url(SMS))
                .header("x-forwarded-for", "203.0.113.7")
                .json(&json!({"market": "IN", "phone": phone(n)}))
        })
        .collect();
    let answers = burst(sends).await;
    let cap = usize::try_from(DAILY_CODES_PER_ADDRESS).unwrap();
    assert_eq!(
        tally(&answers),
        BTreeMap::from([("ok", cap), ("daily_limit_reached", 60 - cap)])
    );
    let outbox = data(app.get("/api/v1/dev/outbox").await).await;
    assert_eq!(outbox.as_array().unwrap().len(), cap);
    assert_eq!(
        count(&app.db, "SELECT COUNT(*) FROM login_codes").await,
        DAILY_CODES_PER_ADDRESS
    );
    // Another address is served.
    let other = app
        .client
        .post(app.url(SMS))
        .header("x-forwarded-for", "203.0.113.8")
        .json(&json!({"market": "IN", "phone": phone(99)}))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), StatusCode::OK);
    app.stop().await;
}

/// SMS pumping spread over many addresses and numbers: every per-phone and per-address limit holds, and only the
/// market's budget of codes in ten minutes to numbers no borrower has stops it. A burst from sixty addresses to sixty
/// numbers sends exactly the budget, the rest refused with `rate_limited` and when to try again; a borrower's own
/// number still gets its code (spending the budget locks no borrower out), and the other market's budget is its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_codes_spread_over_many_addresses_and_phones_stops_at_the_markets_budget() {
    const BUDGET: usize = 25;
    let app = spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.limits.codes_per_market = BUDGET as u32;
    })
    .await;
    // A borrower who signed up before (their codes never counted against the budget).
    let borrower = app.sign_in("IN", "9876543210").await;
    app.execute("DELETE FROM rate_limits").await;
    app.execute("DELETE FROM login_codes").await;
    let sends = (0..60)
        .map(|n| {
            app.client
                .post(app.url(SMS))
                .header("x-forwarded-for", address(7, n))
                .json(&json!({"market": "IN", "phone": phone(n)}))
        })
        .collect();
    let answers = burst(sends).await;
    assert_eq!(
        tally(&answers),
        BTreeMap::from([("ok", BUDGET), ("rate_limited", 60 - BUDGET)])
    );
    assert_eq!(
        count(&app.db, "SELECT COUNT(*) FROM login_codes").await,
        i64::try_from(BUDGET).unwrap()
    );
    let refused = app
        .client
        .post(app.url(SMS))
        .header("x-forwarded-for", "10.9.9.9")
        .json(&json!({"market": "IN", "phone": phone(77)}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=600).contains(&retry), "{retry}");
    // The borrower signing in again, and asking for a verification code, is served.
    let again = app
        .client
        .post(app.url(SMS))
        .header("x-forwarded-for", "10.9.9.11")
        .json(&json!({"market": "IN", "phone": "9876543210"}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    let verification = app
        .client
        .post(app.url("/api/v1/borrower/verification-code"))
        .header("x-forwarded-for", "10.9.9.12")
        .header("x-session-id", &borrower)
        .json(&json!({"purpose": "bank_account"}))
        .send()
        .await
        .unwrap();
    assert_eq!(verification.status(), StatusCode::OK);
    // Indonesia's budget is its own.
    let indonesia = app
        .client
        .post(app.url(SMS))
        .header("x-forwarded-for", "10.9.9.10")
        .json(&json!({"market": "ID", "phone": "081234567890"}))
        .send()
        .await
        .unwrap();
    assert_eq!(indonesia.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_address_gets_twenty_sign_in_attempts_in_ten_minutes_then_rate_limited_with_retry_after()
 {
    let app = spawn_app_behind_proxy().await;
    let code = app.request_code("IN", "9876543210").await;
    // Guesses spread over many phones that were sent no code: each admitted one is answered code_expired.
    let attempts = (0..50)
        .map(|n| login_from(&app, "198.51.100.9", &phone(n + 1), &wrong_code(&code, n)))
        .collect();
    let answers = burst(attempts).await;
    let limit = usize::try_from(LOGIN_ATTEMPTS_PER_ADDRESS).unwrap();
    assert_eq!(
        tally(&answers),
        BTreeMap::from([("code_expired", limit), ("rate_limited", 50 - limit)])
    );
    for refused in answers.iter().filter(|a| a.code == "rate_limited") {
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS);
        let wait = refused.retry_after.expect("Retry-After on rate_limited");
        assert!((590..=600).contains(&wait), "Retry-After {wait}");
    }

    // The right code from the limited address is not even compared; from another address it signs in.
    let limited = login_from(&app, "198.51.100.9", "9876543210", &code)
        .send()
        .await
        .unwrap();
    assert_eq!(error(limited).await["code"], "rate_limited");
    let tries: i64 = sqlx::query_scalar("SELECT failed_attempts FROM login_codes")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(
        tries, 0,
        "the refused attempt did not use one of the code's tries"
    );
    let elsewhere = login_from(&app, "198.51.100.10", "9876543210", &code)
        .send()
        .await
        .unwrap();
    assert_eq!(elsewhere.status(), StatusCode::OK);

    // Ten minutes later the address may try again.
    app.execute("UPDATE rate_limits SET window_start = window_start - 600000")
        .await;
    let later = login_from(&app, "198.51.100.9", &phone(1), "123456")
        .send()
        .await
        .unwrap();
    assert_eq!(error(later).await["code"], "code_expired");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_server_processes_on_one_database_hold_every_limit_together() {
    let database = shared_database().await;
    // One after the other: the first applies the migrations.
    let first = ServerProcess::start_with(&database.url, SMALL_ADDRESS_CAPS).await;
    let second = ServerProcess::start_with(&database.url, SMALL_ADDRESS_CAPS).await;
    let servers = [&first, &second];
    let db = Db::connect(&database.url, 2).await.unwrap();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let post = |n: usize, path: &str, addr: &str, body: serde_json::Value| {
        client
            .post(servers[n % 2].url(path))
            .header("x-forwarded-for", addr)
            .json(&body)
    };

    // One phone: one code, whichever server each request reached.
    let sends = (0..60)
        .map(|n| {
            post(
                n,
                SMS,
                &address(1, n),
                json!({"market": "IN", "phone": phone(0)}),
            )
        })
        .collect();
    assert_eq!(
        tally(&burst(sends).await),
        BTreeMap::from([("ok", 1), ("code_resend_too_soon", 59)])
    );

    // One address, sixty phones: thirty codes.
    let sends = (0..60)
        .map(|n| {
            post(
                n,
                SMS,
                "203.0.113.7",
                json!({"market": "IN", "phone": phone(100 + n)}),
            )
        })
        .collect();
    let cap = usize::try_from(DAILY_CODES_PER_ADDRESS).unwrap();
    assert_eq!(
        tally(&burst(sends).await),
        BTreeMap::from([("ok", cap), ("daily_limit_reached", 60 - cap)])
    );
    assert_eq!(
        count(&db, "SELECT COUNT(*) FROM login_codes").await,
        1 + DAILY_CODES_PER_ADDRESS
    );

    // One code, guesses from many addresses: five compared, then the right code is refused.
    let target = phone(0);
    let outbox: serde_json::Value = client
        .get(first.url("/api/v1/dev/outbox"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let second_outbox: serde_json::Value = client
        .get(second.url("/api/v1/dev/outbox"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let code = outbox["data"]
        .as_array()
        .unwrap()
        .iter()
        .chain(second_outbox["data"].as_array().unwrap())
        .find(|e| e["phone"] == format!("+91{target}"))
        .and_then(|e| e["code"].as_str())
        .expect("the code, in one of the two outboxes")
        .to_owned();
    let guesses = (0..120)
        .map(|n| {
            post(
                n,
                LOGIN,
                &address(2, n),
                json!({"market": "IN", "phone": target, "code": wrong_code(&code, n)}),
            )
        })
        .collect();
    let compared = usize::try_from(MAX_FAILED_ATTEMPTS).unwrap();
    assert_eq!(
        tally(&burst(guesses).await),
        BTreeMap::from([
            ("code_invalid", compared - 1),
            ("code_attempts_exceeded", 120 - (compared - 1))
        ])
    );
    let tries: i64 = sqlx::query_scalar("SELECT MAX(failed_attempts) FROM login_codes")
        .fetch_one(db.pool())
        .await
        .unwrap();
    assert_eq!(tries, MAX_FAILED_ATTEMPTS);
    let right = post(
        1,
        LOGIN,
        "10.9.9.9",
        json!({"market": "IN", "phone": target, "code": code}),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(error(right).await["code"], "code_attempts_exceeded");

    // One address signing in: twenty attempts between the two servers.
    let attempts = (0..50)
        .map(|n| {
            post(
                n,
                LOGIN,
                "198.51.100.9",
                json!({"market": "IN", "phone": phone(200 + n), "code": "123456"}),
            )
        })
        .collect();
    let limit = usize::try_from(LOGIN_ATTEMPTS_PER_ADDRESS).unwrap();
    assert_eq!(
        tally(&burst(attempts).await),
        BTreeMap::from([("code_expired", limit), ("rate_limited", 50 - limit)])
    );
    assert_eq!(
        count(
            &db,
            "SELECT hits FROM rate_limits WHERE key = 'sign_in_addr:198.51.100.9'"
        )
        .await,
        50,
        "every attempt counted, the refused ones above the limit"
    );

    db.close().await;
    first.stop().await;
    second.stop().await;
    database.remove().await;
}

/// Starting repayments is bounded per borrower and day (`[limits] payments_per_day`): a burst of 30 with distinct keys
/// gets exactly the 20 allowed (before, every one was made, and in Indonesia each asked the provider for a virtual
/// account); a retry of one made answers it and counts nothing, and another borrower is not held back.
#[tokio::test]
async fn a_burst_of_new_payments_from_one_borrower_makes_exactly_the_days_limit() {
    let app = spawn_app_with(|_| {}).await;
    let crate::builders::Loan {
        session, order_no, ..
    } = app.borrower(crate::builders::IN).disbursed().await;
    let path = format!("/api/v1/borrower/orders/{order_no}/payments");
    let request = |key: String| {
        app.client
            .post(app.url(&path))
            .header("x-session-id", session.as_str())
            .header("idempotency-key", key)
            .json(&json!({"choice": "due", "method": "upi"}))
    };
    let answers = burst(
        (0..30)
            .map(|n| request(format!("pay-burst-{n:02}")))
            .collect(),
    )
    .await;
    let counts = tally(&answers);
    assert_eq!(counts.get("ok"), Some(&20), "{counts:?}");
    assert_eq!(counts.get("rate_limited"), Some(&10), "{counts:?}");
    assert!(
        answers
            .iter()
            .filter(|a| a.code == "rate_limited")
            .all(|a| a.status == StatusCode::TOO_MANY_REQUESTS && a.retry_after.is_some())
    );
    assert_eq!(
        count(&app.db, &format!("SELECT COUNT(*) FROM payments p JOIN orders o ON o.id = p.order_id WHERE o.order_no = '{order_no}'")).await,
        20
    );
    let made = answers.iter().position(|a| a.code == "ok").unwrap();
    let again = request(format!("pay-burst-{made:02}"))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::OK);
    let other = app.borrower(crate::builders::IN).disbursed().await;
    let created = crate::servicing::create_payment(
        &app,
        &other.session,
        &other.order_no,
        "due",
        "upi",
        "other-key-0001",
    )
    .await;
    assert_eq!(created.status(), StatusCode::OK);
    app.stop().await;
}
