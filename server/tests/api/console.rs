//! The operators' console API (PRODUCT.md §6): sign-in with its lockout and CSRF token, 12-hour sessions, every
//! endpoint against every role, the review queue, decisions through the order lifecycle, unmasked views audited for
//! reviewers only, and the audit search.

use std::collections::BTreeMap;
use std::sync::Arc;

use kilat_server::auth::operators::{self, LOCKOUT_MS, MAX_PASSWORD_CHECKS, Role};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, as_production, data, error, spawn_app, spawn_app_with};
use crate::lifecycle::confirmed_order;

pub(crate) const PASSWORD: &str = "correct horse battery";
const LOGIN: &str = "/api/v1/console/login";

/// A signed-in operator: the session token (the cookie's value) and the CSRF token.
#[derive(Clone)]
pub(crate) struct Console {
    pub(crate) token: String,
    pub(crate) csrf: String,
    pub(crate) id: String,
}

pub(crate) async fn create(app: &TestApp, username: &str, roles: &[Role]) -> String {
    operators::create(&app.services, username, PASSWORD, roles)
        .await
        .expect("the operator is created")
        .id
}

pub(crate) async fn login(app: &TestApp, username: &str, password: &str) -> reqwest::Response {
    app.post_json(LOGIN, &json!({"username": username, "password": password}))
        .await
}

/// The value of the `kilat_console` cookie a response sets, with the cookie's attributes.
fn set_cookie(response: &reqwest::Response) -> String {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("kilat_console="))
        .expect("a kilat_console cookie")
}

pub(crate) async fn sign_in(app: &TestApp, username: &str) -> Console {
    let response = login(app, username, PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = set_cookie(&response);
    let token = cookie
        .trim_start_matches("kilat_console=")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let body = data(response).await;
    Console {
        token,
        csrf: body["csrfToken"].as_str().unwrap().to_owned(),
        id: body["operator"]["id"].as_str().unwrap().to_owned(),
    }
}

/// A request as this operator: the cookie, and the CSRF token on unsafe methods.
pub(crate) fn as_op(app: &TestApp, op: &Console, method: Method, path: &str) -> RequestBuilder {
    let unsafe_method = !matches!(method, Method::GET | Method::HEAD);
    let mut request = app
        .client
        .request(method, app.url(path))
        .header("cookie", format!("kilat_console={}", op.token));
    if unsafe_method {
        request = request.header("x-csrf-token", &op.csrf);
    }
    request
}

async fn get(app: &TestApp, op: &Console, path: &str) -> reqwest::Response {
    as_op(app, op, Method::GET, path).send().await.unwrap()
}

async fn post(app: &TestApp, op: &Console, path: &str, body: &Value) -> reqwest::Response {
    as_op(app, op, Method::POST, path)
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn count(app: &TestApp, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn an_operator_signs_in_with_the_right_password_and_gets_a_strict_cookie_and_a_csrf_token() {
    let app = spawn_app().await;
    let id = create(&app, "Asha", &[Role::Support, Role::Reviewer]).await;
    let response = login(&app, "  asha ", PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = set_cookie(&response);
    assert!(cookie.contains("; HttpOnly"), "{cookie}");
    assert!(cookie.contains("; SameSite=Strict"), "{cookie}");
    assert!(cookie.contains("; Max-Age=43200"), "{cookie}");
    assert!(
        !cookie.contains("Secure"),
        "development is plain HTTP: {cookie}"
    );
    let body = data(response).await;
    assert_eq!(
        body["operator"],
        json!({"id": id, "username": "asha", "roles": ["reviewer", "support"], "markets": ["IN", "ID"],
            "passwordChangeRequired": false})
    );
    let csrf = body["csrfToken"].as_str().unwrap();
    assert!(csrf.len() >= 40, "{csrf}");
    // Only hashes are stored.
    let (token_hash, csrf_hash): (String, String) =
        sqlx::query_as("SELECT token_hash, csrf_hash FROM operator_sessions")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert!(!cookie.contains(&token_hash) && token_hash.len() == 64);
    assert_ne!(csrf_hash, csrf);

    let op = sign_in(&app, "asha").await;
    let me = data(get(&app, &op, "/api/v1/console/me").await).await;
    assert_eq!(me["username"], "asha");
    app.stop().await;
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_username_get_the_same_answer() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let wrong = login(&app, "asha", "not the password").await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let wrong = error(wrong).await;
    let unknown = login(&app, "nobody", PASSWORD).await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(error(unknown).await, wrong);
    assert_eq!(wrong["code"], "credentials_invalid");
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM operator_sessions").await,
        0
    );

    let missing = app.post_json(LOGIN, &json!({"username": " "})).await;
    assert_eq!(missing.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let missing = error(missing).await;
    assert_eq!(missing["code"], "validation_failed");
    assert!(missing["fields"]["username"].is_string() && missing["fields"]["password"].is_string());
    app.stop().await;
}

#[tokio::test]
async fn in_production_the_console_cookie_is_secure() {
    let app = spawn_app_with(as_production).await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let response = login(&app, "asha", PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(set_cookie(&response).ends_with("; Secure"));
    app.stop().await;
}

/// A sign-in from `addr` (`X-Forwarded-For`, trusted by the app).
async fn login_from(
    app: &TestApp,
    addr: &str,
    username: &str,
    password: &str,
) -> reqwest::Response {
    app.client
        .post(app.url(LOGIN))
        .header("x-forwarded-for", addr)
        .json(&json!({"username": username, "password": password}))
        .send()
        .await
        .unwrap()
}

/// Sends every sign-in at the same moment, `(address, password)` each; answers (status, code, Retry-After seconds).
async fn login_burst(
    app: &TestApp,
    username: &str,
    tries: Vec<(String, String)>,
) -> Vec<(StatusCode, String, Option<i64>)> {
    let start = Arc::new(tokio::sync::Barrier::new(tries.len()));
    let tasks: Vec<_> = tries
        .into_iter()
        .map(|(addr, password)| {
            let request = app
                .client
                .post(app.url(LOGIN))
                .header("x-forwarded-for", addr)
                .json(&json!({"username": username, "password": password}));
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.unwrap();
                let status = response.status();
                let retry_after = response
                    .headers()
                    .get("retry-after")
                    .map(|v| v.to_str().unwrap().parse().unwrap());
                let body: Value = response.json().await.unwrap();
                (
                    status,
                    body["code"].as_str().unwrap().to_owned(),
                    retry_after,
                )
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    answers
}

/// How many answers had each code; a locked answer is a 429 with a wait within the window, a wrong password a 401.
fn tally_logins(answers: &[(StatusCode, String, Option<i64>)]) -> BTreeMap<String, usize> {
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (status, code, retry_after) in answers {
        match code.as_str() {
            "credentials_invalid" => assert_eq!(*status, StatusCode::UNAUTHORIZED),
            "operator_locked" => {
                assert_eq!(*status, StatusCode::TOO_MANY_REQUESTS);
                let secs = retry_after.expect("Retry-After");
                assert!((1..=LOCKOUT_MS / 1000).contains(&secs), "{secs}");
            }
            other => panic!("unexpected {other}"),
        }
        *tally.entry(code.clone()).or_default() += 1;
    }
    tally
}

/// The password checks counted for an operator at an address (the limiter's row).
async fn checks_at(app: &TestApp, operator_id: &str, addr: &str) -> i64 {
    sqlx::query_scalar("SELECT COALESCE(MAX(hits), 0) FROM rate_limits WHERE key = $1")
        .bind(format!("password_addr:{operator_id}:{addr}"))
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn five_wrong_passwords_from_one_address_leave_the_right_password_from_another_address_signing_in()
 {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    let id = create(&app, "asha", &[Role::Reviewer]).await;
    for n in 0..MAX_PASSWORD_CHECKS {
        let wrong = login_from(&app, "203.0.113.66", "asha", &format!("wrong {n}")).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "try {n}");
    }
    // That address is done for fifteen minutes, even with the right password...
    let locked = login_from(&app, "203.0.113.66", "asha", PASSWORD).await;
    assert_eq!(locked.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: i64 = locked.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        wait > LOCKOUT_MS / 1000 - 60 && wait <= LOCKOUT_MS / 1000,
        "{wait}"
    );
    assert_eq!(error(locked).await["code"], "operator_locked");
    assert_eq!(
        checks_at(&app, &id, "203.0.113.66").await,
        MAX_PASSWORD_CHECKS
    );
    // ...but the operator at another address, never seen before, signs in.
    let right = login_from(&app, "198.51.100.20", "asha", PASSWORD).await;
    assert_eq!(right.status(), StatusCode::OK);
    // An IPv6 attacker is one address per /64: rotating within it does not buy more guesses.
    for n in 0..MAX_PASSWORD_CHECKS {
        let wrong = login_from(&app, &format!("2001:db8:7:7::{n:x}"), "asha", "wrong").await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "try {n}");
    }
    let rotated = login_from(&app, "2001:db8:7:7:ffff::1", "asha", "wrong").await;
    assert_eq!(error(rotated).await["code"], "operator_locked");

    // Fifteen minutes later the first address has five checks again.
    app.execute(&format!(
        "UPDATE rate_limits SET window_start = window_start - {LOCKOUT_MS}"
    ))
    .await;
    assert_eq!(
        login_from(&app, "203.0.113.66", "asha", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        checks_at(&app, &id, "203.0.113.66").await,
        0,
        "a success forgets the count"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_fifty_wrong_passwords_from_one_address_gets_at_most_five_compared() {
    // The per-address allowance of sign-in attempts raised, so that only the password checks hold the burst.
    let app = spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.limits.console_sign_ins_per_address = 1_000;
    })
    .await;
    let id = create(&app, "asha", &[Role::Reviewer]).await;
    let tries = (0..50)
        .map(|n| ("203.0.113.66".to_owned(), format!("wrong guess {n}")))
        .collect();
    let tally = tally_logins(&login_burst(&app, "asha", tries).await);
    let checked = usize::try_from(MAX_PASSWORD_CHECKS).unwrap();
    assert_eq!(
        tally,
        BTreeMap::from([
            ("credentials_invalid".to_owned(), checked),
            ("operator_locked".to_owned(), 50 - checked),
        ]),
        "exactly five passwords are compared; every other guess is refused unseen"
    );
    assert_eq!(
        checks_at(&app, &id, "203.0.113.66").await,
        MAX_PASSWORD_CHECKS
    );
    // Another address is untouched.
    assert_eq!(
        login_from(&app, "203.0.113.67", "asha", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn guesses_spread_over_many_addresses_are_capped_per_account_and_the_operators_own_address_still_signs_in()
 {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    let id = create(&app, "asha", &[Role::Reviewer]).await;
    // The operator's office: signed in from before.
    assert_eq!(
        login_from(&app, "198.51.100.20", "asha", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    // Sixty strangers, one guess each: the account's ceiling for unknown addresses is compared, no more.
    let tries = (0..60)
        .map(|n| (format!("10.9.0.{n}"), format!("wrong guess {n}")))
        .collect();
    let tally = tally_logins(&login_burst(&app, "asha", tries).await);
    let ceiling = app.services.limits.password_checks_per_account.max as usize;
    assert_eq!(
        tally,
        BTreeMap::from([
            ("credentials_invalid".to_owned(), ceiling),
            ("operator_locked".to_owned(), 60 - ceiling),
        ])
    );
    let counted: i64 = sqlx::query_scalar("SELECT hits FROM rate_limits WHERE key = $1")
        .bind(format!("password_account:{id}"))
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(counted, ceiling as i64);

    // A new address waits out the window, even with the right password; the operator's own address signs in.
    let stranger = login_from(&app, "10.9.1.1", "asha", PASSWORD).await;
    assert_eq!(error(stranger).await["code"], "operator_locked");
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM operator_sessions").await,
        1
    );
    assert_eq!(
        login_from(&app, "198.51.100.20", "asha", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    // The admins' list says the account refuses new addresses for now.
    let admin = create(&app, "boss", &[Role::Admin]).await;
    assert!(!admin.is_empty());
    let boss = sign_in(&app, "boss").await;
    let list = data(get(&app, &boss, "/api/v1/console/operators").await).await;
    let asha = list
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["username"] == "asha")
        .unwrap();
    assert_eq!(asha["locked"], true);

    // Fifteen minutes later a new address is compared again.
    app.execute(&format!(
        "UPDATE rate_limits SET window_start = window_start - {LOCKOUT_MS}"
    ))
    .await;
    assert_eq!(
        login_from(&app, "10.9.1.1", "asha", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_address_gets_twenty_console_sign_in_attempts_in_ten_minutes_then_rate_limited() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    // Spread over unknown usernames, which the per-account lockout cannot hold back.
    let start = Arc::new(tokio::sync::Barrier::new(30));
    let tasks: Vec<_> = (0..30)
        .map(|n| {
            let request = app
                .client
                .post(app.url(LOGIN))
                .json(&json!({"username": format!("guess{n}"), "password": PASSWORD}));
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.unwrap();
                let retry_after = response.headers().contains_key("retry-after");
                let body: Value = response.json().await.unwrap();
                (body["code"].as_str().unwrap().to_owned(), retry_after)
            })
        })
        .collect();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for task in tasks {
        let (code, retry_after) = task.await.unwrap();
        assert_eq!(retry_after, code == "rate_limited", "{code}");
        *tally.entry(code).or_default() += 1;
    }
    assert_eq!(
        tally,
        BTreeMap::from([
            ("credentials_invalid".to_owned(), 20),
            ("rate_limited".to_owned(), 10)
        ])
    );
    // The right password from that address waits too; the borrower's sign-in keeps its own count.
    let right = login(&app, "asha", PASSWORD).await;
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(right).await["code"], "rate_limited");
    let borrower = app
        .post_json(
            "/api/v1/borrower/login",
            &json!({"market": "IN", "phone": "9876543210", "code": "123456"}),
        )
        .await;
    assert_eq!(error(borrower).await["code"], "code_expired");
    app.stop().await;
}

#[tokio::test]
async fn the_right_password_on_the_fifth_check_still_signs_in() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    for n in 0..MAX_PASSWORD_CHECKS - 1 {
        assert_eq!(
            login(&app, "asha", &format!("wrong {n}")).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(login(&app, "asha", PASSWORD).await.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn an_unsafe_console_request_needs_the_sessions_csrf_token() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let op = sign_in(&app, "asha").await;
    let other = sign_in(&app, "asha").await;
    let cookie = format!("kilat_console={}", op.token);
    let logout = || {
        app.client
            .post(app.url("/api/v1/console/logout"))
            .header("cookie", &cookie)
    };
    for (what, request) in [
        ("no token", logout()),
        ("an empty token", logout().header("x-csrf-token", "")),
        (
            "a wrong token",
            logout().header("x-csrf-token", "not-the-token"),
        ),
        (
            "another session's token",
            logout().header("x-csrf-token", &other.csrf),
        ),
    ] {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{what}");
        assert_eq!(
            error(response).await["code"],
            "csrf_token_invalid",
            "{what}"
        );
    }
    // Reads need no token; the session is still live.
    assert_eq!(
        get(&app, &op, "/api/v1/console/me").await.status(),
        StatusCode::OK
    );
    let out = logout()
        .header("x-csrf-token", &op.csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::OK);
    assert!(set_cookie(&out).contains("Max-Age=0"));
    assert_eq!(
        get(&app, &op, "/api/v1/console/me").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get(&app, &other, "/api/v1/console/me").await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test]
async fn console_requests_from_another_site_are_refused_login_included() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let op = sign_in(&app, "asha").await;
    let response = app
        .client
        .post(app.url(LOGIN))
        .header("origin", "https://evil.example")
        .json(&json!({"username": "asha", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(response).await["code"], "cross_site_request");
    let response = as_op(&app, &op, Method::POST, "/api/v1/console/logout")
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(response).await["code"], "cross_site_request");
    app.stop().await;
}

#[tokio::test]
async fn a_console_session_ends_twelve_hours_after_sign_in() {
    let app = spawn_app().await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let op = sign_in(&app, "asha").await;
    let hour = 60 * 60 * 1000;
    app.execute(&format!(
        "UPDATE operator_sessions SET created_at = created_at - {}",
        12 * hour - 60_000
    ))
    .await;
    assert_eq!(
        get(&app, &op, "/api/v1/console/me").await.status(),
        StatusCode::OK
    );
    app.execute("UPDATE operator_sessions SET created_at = created_at - 120000")
        .await;
    let expired = get(&app, &op, "/api/v1/console/me").await;
    assert_eq!(expired.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(error(expired).await["code"], "unauthorized");

    // The business date moved a day on ends a fresh session too.
    let fresh = sign_in(&app, "asha").await;
    assert_eq!(
        get(&app, &fresh, "/api/v1/console/me").await.status(),
        StatusCode::OK
    );
    let tomorrow = app
        .services
        .clock
        .today(kilat_domain::Market::India)
        .next_day()
        .unwrap();
    app.set_date(tomorrow).await;
    assert_eq!(
        get(&app, &fresh, "/api/v1/console/me").await.status(),
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}

/// Who calls: an operator of one role, a borrower with their session cookie, or nobody.
#[derive(Clone)]
enum Caller {
    Operator(&'static str, Console),
    Borrower(String),
    Nobody,
}

impl Caller {
    fn name(&self) -> &str {
        match self {
            Caller::Operator(name, _) => name,
            Caller::Borrower(_) => "borrower",
            Caller::Nobody => "nobody",
        }
    }

    async fn call(
        &self,
        app: &TestApp,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> reqwest::Response {
        let mut request = match self {
            Caller::Operator(_, op) => as_op(app, op, method, path),
            Caller::Borrower(session) => app
                .client
                .request(method, app.url(path))
                .header("cookie", format!("kilat_session={session}")),
            Caller::Nobody => app.client.request(method, app.url(path)),
        };
        if let Some(body) = body {
            request = request.json(body);
        }
        request.send().await.unwrap()
    }
}

#[tokio::test]
async fn every_console_endpoint_answers_each_role_a_borrower_and_nobody_exactly() {
    let app = spawn_app().await;
    let (_, approve_no, _) = confirmed_order(&app, "9876500001").await;
    let (borrower, reject_no, _) = confirmed_order(&app, "9876500002").await;
    let mut callers = Vec::new();
    for (name, role) in [
        ("admin", Role::Admin),
        ("reviewer", Role::Reviewer),
        ("finance", Role::Finance),
        ("support", Role::Support),
    ] {
        create(&app, name, &[role]).await;
        callers.push(Caller::Operator(name, sign_in(&app, name).await));
    }
    callers.push(Caller::Borrower(borrower));
    callers.push(Caller::Nobody);
    // An operator for the admins' operator endpoints, and a product definition for theirs.
    let spare = create(&app, "spare", &[Role::Support]).await;
    let product = crate::admin::demo_product("in-flexi-14d");
    let mut new_product = product.clone();
    new_product["code"] = json!("in-matrix");

    // A paid-out loan with two payments waiting for finance, for confirm and reject.
    let (payer, paid_no, paid_id) = confirmed_order(&app, "9876500003").await;
    kilat_server::orders::apply(
        &app.services,
        &paid_id,
        kilat_domain::OrderEvent::Approve,
        &kilat_server::orders::Actor::Operator("reviewer".into()),
    )
    .await
    .unwrap();
    let Caller::Operator(_, finance) = &callers[2] else {
        unreachable!()
    };
    let paid_out = as_op(
        &app,
        finance,
        Method::POST,
        &format!("/api/v1/console/orders/{paid_no}/disburse"),
    )
    .json(&json!({"bankReference": "UTIBN52026112500001"}))
    .send()
    .await
    .unwrap();
    assert_eq!(paid_out.status(), StatusCode::OK);
    let mut payments = Vec::new();
    for (key, utr) in [
        ("matrix-key-1", "700000000001"),
        ("matrix-key-2", "700000000002"),
    ] {
        let payment = data(
            app.post_as(
                &format!("/api/v1/borrower/orders/{paid_no}/payments"),
                &payer,
                &json!({"choice": "due", "method": "upi", "idempotencyKey": key}),
            )
            .await,
        )
        .await;
        let id = payment["paymentId"].as_str().unwrap().to_owned();
        let submitted = app
            .post_as(
                &format!("/api/v1/borrower/payments/{id}/utr"),
                &payer,
                &json!({"utr": utr}),
            )
            .await;
        assert_eq!(submitted.status(), StatusCode::OK);
        payments.push((id, payment["amount"].as_i64().unwrap()));
    }

    // A complaint (with an image), a contact message and an FAQ entry for support's and admins' endpoints.
    let complaint = support_fixtures(&app, &borrower_of_reject(&callers)).await;

    let reason = json!({"reason": "Checked against the documents."});
    // (method, path, body, the callers answered 200 in the order admin, reviewer, finance, support); the borrower
    // and nobody always get 401. Decisions run with the reviewer last, so that the others are refused on an order
    // still in review.
    let matrix: Vec<(Method, String, Option<Value>, [bool; 4])> = vec![
        (
            Method::GET,
            "/api/v1/console/me".into(),
            None,
            [true, true, true, true],
        ),
        (
            Method::GET,
            "/api/v1/console/applications?market=IN".into(),
            None,
            [false, true, false, true],
        ),
        (
            Method::GET,
            format!("/api/v1/console/orders/{approve_no}"),
            None,
            [false, true, true, true],
        ),
        (
            Method::GET,
            "/api/v1/console/audit".into(),
            None,
            [true, false, false, true],
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{approve_no}/approve"),
            Some(reason.clone()),
            [false, true, false, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{reject_no}/reject"),
            Some(reason.clone()),
            [false, true, false, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{approve_no}/disburse"),
            Some(json!({"bankReference": "UTIBN52026112500002"})),
            [false, false, true, false],
        ),
        (
            Method::GET,
            "/api/v1/console/payouts?market=IN".into(),
            None,
            [false, false, true, false],
        ),
        (
            Method::GET,
            "/api/v1/console/payments".into(),
            None,
            [false, false, true, false],
        ),
        (
            Method::GET,
            "/api/v1/console/dashboard?market=IN".into(),
            None,
            [true, false, true, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{}/confirm", payments[0].0),
            Some(json!({"amount": payments[0].1})),
            [false, false, true, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{}/reject", payments[1].0),
            Some(reason.clone()),
            [false, false, true, false],
        ),
        (
            Method::GET,
            "/api/v1/console/products".into(),
            None,
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/products".into(),
            Some(new_product),
            [true, false, false, false],
        ),
        (
            Method::PUT,
            "/api/v1/console/products/in-flexi-14d?baseVersion=1".into(),
            Some(product),
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/products/in-matrix/disable".into(),
            None,
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/products/in-matrix/enable".into(),
            None,
            [true, false, false, false],
        ),
        (
            Method::GET,
            "/api/v1/console/operators".into(),
            None,
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/operators".into(),
            Some(
                json!({"username": "newcomer", "password": "a long enough password", "roles": ["support"]}),
            ),
            [true, false, false, false],
        ),
        (
            Method::PUT,
            format!("/api/v1/console/operators/{spare}/roles"),
            Some(json!({"roles": ["support", "finance"]})),
            [true, false, false, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/operators/{spare}/password"),
            Some(json!({"password": "another long password"})),
            [true, false, false, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/operators/{spare}/disable"),
            None,
            [true, false, false, false],
        ),
        (
            Method::POST,
            format!("/api/v1/console/operators/{spare}/enable"),
            None,
            [true, false, false, false],
        ),
        (
            Method::GET,
            "/api/v1/console/complaints".into(),
            None,
            [true, false, false, true],
        ),
        (
            Method::GET,
            format!("/api/v1/console/complaints/{}", complaint.ticket),
            None,
            [true, false, false, true],
        ),
        (
            Method::POST,
            format!("/api/v1/console/complaints/{}/reply", complaint.ticket),
            Some(json!({"body": "We are looking into it."})),
            [true, false, false, true],
        ),
        (
            Method::GET,
            format!("/api/v1/console/complaint-images/{}", complaint.image),
            None,
            [true, false, false, true],
        ),
        (
            Method::GET,
            "/api/v1/console/contact-messages".into(),
            None,
            [true, false, false, true],
        ),
        (
            Method::POST,
            format!(
                "/api/v1/console/contact-messages/{}/handled",
                complaint.contact
            ),
            None,
            [true, false, false, true],
        ),
        (
            Method::GET,
            "/api/v1/console/faq".into(),
            None,
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/faq".into(),
            Some(faq_body()),
            [true, false, false, false],
        ),
        (
            Method::PUT,
            format!("/api/v1/console/faq/{}", complaint.faq),
            Some(faq_body()),
            [true, false, false, false],
        ),
        // After the PUT above, the last of its category (position 5, after the admin's new entry by id).
        (
            Method::POST,
            format!("/api/v1/console/faq/{}/move", complaint.faq),
            Some(json!({"direction": "up"})),
            [true, false, false, false],
        ),
        (
            Method::POST,
            "/api/v1/console/logout".into(),
            None,
            [true, true, true, true],
        ),
    ];
    let mut order = callers.clone();
    // Non-reviewers first.
    order.sort_by_key(|c| c.name() == "reviewer");
    for (method, path, body, allowed) in &matrix {
        for caller in &order {
            let expected = match caller {
                Caller::Operator(name, _) => {
                    let i = ["admin", "reviewer", "finance", "support"]
                        .iter()
                        .position(|n| n == name)
                        .unwrap();
                    if allowed[i] {
                        StatusCode::OK
                    } else {
                        StatusCode::FORBIDDEN
                    }
                }
                _ => StatusCode::UNAUTHORIZED,
            };
            let response = caller.call(&app, method.clone(), path, body.as_ref()).await;
            let status = response.status();
            // An image answers its bytes, not the envelope.
            if status == StatusCode::OK && path.contains("/complaint-images/") {
                assert_eq!(response.headers()["content-type"], "image/png");
                assert_eq!(status, expected, "{method} {path} as {}", caller.name());
                continue;
            }
            let body: Value = response.json().await.unwrap();
            assert_eq!(
                status,
                expected,
                "{method} {path} as {}: {body}",
                caller.name()
            );
            let code = match expected {
                StatusCode::OK => json!(0),
                StatusCode::FORBIDDEN => json!("forbidden"),
                _ => json!("unauthorized"),
            };
            assert_eq!(body["code"], code, "{method} {path} as {}", caller.name());
        }
    }
    app.stop().await;
}

/// What support's and admins' endpoints act on in the role matrix.
struct SupportFixtures {
    ticket: String,
    image: String,
    contact: String,
    faq: String,
}

fn borrower_of_reject(callers: &[Caller]) -> String {
    callers
        .iter()
        .find_map(|c| match c {
            Caller::Borrower(session) => Some(session.clone()),
            _ => None,
        })
        .unwrap()
}

fn faq_body() -> Value {
    json!({"lang": "en", "category": "apply", "question": "Is it safe?", "answer": "Yes.", "position": 5})
}

async fn file_complaint(app: &TestApp, session: &str) -> (String, String) {
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(image::RgbImage::new(8, 8))
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let uploaded = app
        .client
        .post(app.url("/api/v1/borrower/complaints/images"))
        .header("x-session-id", session)
        .header("content-type", "image/png")
        .body(png.into_inner())
        .send()
        .await
        .unwrap();
    let image = data(uploaded).await["imageId"].as_str().unwrap().to_owned();
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            session,
            &json!({"category": "app", "description": "The page does not load.", "imageIds": [image]}),
        )
        .await;
    (
        data(filed).await["ticketNo"].as_str().unwrap().to_owned(),
        image,
    )
}

async fn support_fixtures(app: &TestApp, session: &str) -> SupportFixtures {
    let (ticket, image) = file_complaint(app, session).await;
    let contact = app
        .post_json(
            "/api/v1/site/contact-messages",
            &json!({"name": "Ravi", "telephone": "98765", "message": "Call me."}),
        )
        .await;
    let contact = data(contact).await["id"].as_str().unwrap().to_owned();
    let faq: String = sqlx::query_scalar("SELECT id FROM faq_entries ORDER BY id LIMIT 1")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    SupportFixtures {
        ticket,
        image,
        contact,
        faq,
    }
}

#[tokio::test]
async fn closing_a_complaint_and_deleting_an_faq_entry_answer_each_role_exactly() {
    // Each is done once, so each caller acts on a record of its own.
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876500041").await;
    let mut callers = Vec::new();
    for (name, role) in [
        ("admin", Role::Admin),
        ("reviewer", Role::Reviewer),
        ("finance", Role::Finance),
        ("support", Role::Support),
    ] {
        create(&app, name, &[role]).await;
        callers.push(Caller::Operator(name, sign_in(&app, name).await));
    }
    callers.push(Caller::Borrower(session.clone()));
    callers.push(Caller::Nobody);
    let Caller::Operator(_, admin) = &callers[0] else {
        unreachable!()
    };
    let admin = admin.clone();
    for caller in &callers {
        let (ticket, _) = file_complaint(&app, &session).await;
        // Answered, as a complaint is before it is closed.
        let answered = post(
            &app,
            &admin,
            &format!("/api/v1/console/complaints/{ticket}/reply"),
            &json!({"body": "Sorted."}),
        )
        .await;
        assert_eq!(answered.status(), StatusCode::OK);
        let faq = data(post(&app, &admin, "/api/v1/console/faq", &faq_body()).await).await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        for (method, path, allowed) in [
            (
                Method::POST,
                format!("/api/v1/console/complaints/{ticket}/close"),
                ["admin", "support"].as_slice(),
            ),
            (
                Method::DELETE,
                format!("/api/v1/console/faq/{faq}"),
                ["admin"].as_slice(),
            ),
        ] {
            let expected = match caller {
                Caller::Operator(name, _) if allowed.contains(name) => StatusCode::OK,
                Caller::Operator(..) => StatusCode::FORBIDDEN,
                _ => StatusCode::UNAUTHORIZED,
            };
            let response = caller.call(&app, method.clone(), &path, None).await;
            assert_eq!(
                response.status(),
                expected,
                "{method} {path} as {}",
                caller.name()
            );
        }
    }
    app.stop().await;
}

async fn approve(app: &TestApp, order_id: &str) {
    kilat_server::orders::apply(
        &app.services,
        order_id,
        kilat_domain::OrderEvent::Approve,
        &kilat_server::orders::Actor::Operator("reviewer".into()),
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn finance_lists_approved_orders_by_approval_and_the_order_view_shows_the_loan_once_paid_out()
{
    let app = spawn_app().await;
    let (_, first_no, first_id) = confirmed_order(&app, "9876500031").await;
    let (payer, second_no, second_id) = confirmed_order(&app, "9876500032").await;
    // Still in review: not in the list.
    let (_, waiting_no, _) = confirmed_order(&app, "9876500033").await;
    create(&app, "fiona", &[Role::Finance]).await;
    let op = sign_in(&app, "fiona").await;
    approve(&app, &first_id).await;
    approve(&app, &second_id).await;
    // The second order was approved a minute before the first: the list follows the approval, not the application.
    // (The approval is the order's last change while it waits for its payout, so its `updated_at` moves with it.)
    for statement in [
        "UPDATE order_events SET at = at - 120000 WHERE order_id = $1 AND status = 'approved'",
        "UPDATE orders SET updated_at = updated_at - 120000 WHERE id = $1",
    ] {
        sqlx::query(statement)
            .bind(&second_id)
            .execute(app.db.pool())
            .await
            .unwrap();
    }
    let (net,): (i64,) = sqlx::query_as("SELECT net_disbursed FROM orders WHERE id = $1")
        .bind(&second_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();

    let list = data(get(&app, &op, "/api/v1/console/payouts?market=IN").await).await;
    let numbers: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["orderNo"].as_str().unwrap())
        .collect();
    assert_eq!(numbers, [second_no.as_str(), first_no.as_str()]);
    assert!(!numbers.contains(&waiting_no.as_str()));
    let entry = &list[0];
    assert_eq!(entry["productCode"], "in-flexi-6m");
    assert_eq!(entry["termCode"], "m6");
    assert_eq!(entry["currency"], "INR");
    assert_eq!(entry["amount"], 2_000_000);
    assert_eq!(entry["netDisbursed"], net);
    assert!(net > 0 && net <= 2_000_000);
    let phone = entry["phoneMasked"].as_str().unwrap();
    assert!(
        !phone.contains("9876500032") && phone.ends_with("32"),
        "{phone}"
    );
    assert!(entry["ageSeconds"].as_i64().unwrap() >= 120, "{entry}");
    assert!(entry["approvedAt"].as_i64().unwrap() < list[1]["approvedAt"].as_i64().unwrap());
    assert_eq!(
        data(get(&app, &op, "/api/v1/console/payouts?market=ID").await).await,
        json!([])
    );
    for bad in ["?market=XX", ""] {
        let response = get(&app, &op, &format!("/api/v1/console/payouts{bad}")).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(
            error(response).await["fields"]["market"].is_string(),
            "{bad}"
        );
    }
    // A page at a time, in the same order; only the orders shown are audited as viewed unmasked.
    let viewed = |app: &TestApp| {
        let pool = app.db.pool().clone();
        async move {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM audit_log WHERE action = 'view_unmasked' AND after_json LIKE '%payouts%'",
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            n
        }
    };
    let before = viewed(&app).await;
    for (page, want) in [(1, &second_no), (2, &first_no)] {
        let one = data(
            get(
                &app,
                &op,
                &format!("/api/v1/console/payouts?market=IN&pageSize=1&page={page}"),
            )
            .await,
        )
        .await;
        assert_eq!(one.as_array().unwrap().len(), 1, "page {page}");
        assert_eq!(one[0]["orderNo"], json!(want), "page {page}");
    }
    let past = get(
        &app,
        &op,
        "/api/v1/console/payouts?market=IN&pageSize=1&page=3",
    )
    .await;
    assert_eq!(data(past).await, json!([]));
    assert_eq!(viewed(&app).await, before + 2, "one view per order shown");
    for (bad, field) in [
        ("pageSize=0", "pageSize"),
        ("pageSize=101", "pageSize"),
        ("pageSize=", "pageSize"),
        ("page=0", "page"),
        ("page=x", "page"),
    ] {
        let response = get(
            &app,
            &op,
            &format!("/api/v1/console/payouts?market=IN&{bad}"),
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(response).await["fields"][field].is_string(), "{bad}");
    }

    let order_path = format!("/api/v1/console/orders/{second_no}");
    assert!(data(get(&app, &op, &order_path).await).await["loan"].is_null());
    let paid_out = post(
        &app,
        &op,
        &format!("{order_path}/disburse"),
        &json!({"bankReference": "HDFCN52026112599999"}),
    )
    .await;
    assert_eq!(paid_out.status(), StatusCode::OK);
    let list = data(get(&app, &op, "/api/v1/console/payouts?market=IN").await).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["orderNo"], first_no.as_str());

    let loan = data(get(&app, &op, &order_path).await).await["loan"].clone();
    assert_eq!(loan["payout"]["bankReference"], "HDFCN52026112599999");
    assert_eq!(loan["payout"]["provider"], "manual");
    assert_eq!(loan["payout"]["amount"], net);
    assert_eq!(loan["payout"]["date"], loan["plan"]["payoutDate"]);
    let installments = loan["plan"]["installments"].as_array().unwrap();
    assert_eq!(installments.len(), 6);
    assert!(installments.iter().all(|i| i["status"] == "upcoming"));
    assert_eq!(loan["plan"]["status"], "disbursed");
    assert_eq!(loan["payments"], json!([]));
    assert_eq!(loan["ledger"][0]["seq"], 0);
    assert_eq!(loan["ledger"][0]["kind"], "payout");
    assert_eq!(loan["ledger"][0]["cash"], net);
    let opening = loan["ledger"].as_array().unwrap().len();

    // The borrower pays the first installment with a UTR; finance confirms; the view shows it paid and the entry.
    let payment = data(
        app.post_as(
            &format!("/api/v1/borrower/orders/{second_no}/payments"),
            &payer,
            &json!({"choice": "due", "method": "upi", "idempotencyKey": "view-key-1"}),
        )
        .await,
    )
    .await;
    let id = payment["paymentId"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    let submitted = app
        .post_as(
            &format!("/api/v1/borrower/payments/{id}/utr"),
            &payer,
            &json!({"utr": "700000000031"}),
        )
        .await;
    assert_eq!(submitted.status(), StatusCode::OK);
    let loan = data(get(&app, &op, &order_path).await).await["loan"].clone();
    assert_eq!(loan["payments"][0]["status"], "verifying");
    assert_eq!(loan["payments"][0]["utr"], "700000000031");
    assert_eq!(loan["payments"][0]["method"], "upi");
    assert!(loan["payments"][0]["receivedAmount"].is_null());
    let confirmed = post(
        &app,
        &op,
        &format!("/api/v1/console/payments/{id}/confirm"),
        &json!({"amount": amount}),
    )
    .await;
    assert_eq!(confirmed.status(), StatusCode::OK);
    let loan = data(get(&app, &op, &order_path).await).await["loan"].clone();
    assert_eq!(loan["payments"][0]["status"], "confirmed");
    assert_eq!(loan["payments"][0]["receivedAmount"], amount);
    assert_eq!(loan["plan"]["installments"][0]["status"], "paid");
    assert_eq!(loan["plan"]["installments"][0]["paid"]["total"], amount);
    assert_eq!(loan["plan"]["installments"][1]["status"], "upcoming");
    let ledger = loan["ledger"].as_array().unwrap();
    assert_eq!(ledger.len(), opening + 1);
    let last = &ledger[opening];
    assert_eq!(last["seq"], opening);
    assert_eq!(last["kind"], "repayment");
    assert_eq!(last["cash"], amount);
    assert_eq!(last["paid"]["total"], amount);
    assert!(last["reverses"].is_null());
    app.stop().await;
}

#[tokio::test]
async fn the_review_queue_lists_a_markets_orders_in_review_oldest_first_with_what_a_reviewer_needs()
{
    let app = spawn_app().await;
    let (first_session, first, _) = confirmed_order(&app, "9876500011").await;
    let (_, second, _) = confirmed_order(&app, "9876500012").await;
    let (_, third, _) = confirmed_order(&app, "9876500013").await;
    // The second waited an hour longer than the others.
    app.execute(&format!(
        "UPDATE orders SET created_at = created_at - 3600000 WHERE order_no = '{second}'"
    ))
    .await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    post(
        &app,
        &op,
        &format!("/api/v1/console/orders/{third}/approve"),
        &json!({"reason": "ok"}),
    )
    .await;

    let queue = data(get(&app, &op, "/api/v1/console/applications?market=in").await).await;
    let numbers: Vec<&str> = queue
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["orderNo"].as_str().unwrap())
        .collect();
    assert_eq!(
        numbers,
        [second.as_str(), first.as_str()],
        "approved orders leave the queue"
    );
    let detail = data(
        app.get_as(&format!("/api/v1/borrower/orders/{first}"), &first_session)
            .await,
    )
    .await;
    let entry = &queue[1];
    assert_eq!(entry["productCode"], "in-flexi-6m");
    assert_eq!(entry["amount"], 2_000_000);
    assert_eq!(entry["termCode"], "m6");
    assert_eq!(entry["currency"], "INR");
    assert_eq!(entry["apr"], detail["kfs"]["apr"]);
    assert_eq!(entry["aprDisplay"], detail["kfs"]["aprDisplay"]);
    assert_eq!(entry["phoneMasked"], "+91 ******0011");
    assert!(
        entry["borrowerId"]
            .as_str()
            .is_some_and(|id| id.len() == 36)
    );
    assert!(entry["ageSeconds"].as_i64().unwrap() < 600);
    assert!(queue[0]["ageSeconds"].as_i64().unwrap() >= 3600);

    let indonesia = data(get(&app, &op, "/api/v1/console/applications?market=ID").await).await;
    assert_eq!(indonesia, json!([]));
    for bad in ["", "?market=", "?market=XX"] {
        let response = get(&app, &op, &format!("/api/v1/console/applications{bad}")).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(response).await["fields"]["market"].is_string());
    }
    app.stop().await;
}

#[tokio::test]
async fn approving_writes_status_timeline_audit_and_reason_together_and_twice_is_a_conflict() {
    let app = spawn_app().await;
    let (session, order_no, order_id) = confirmed_order(&app, "9876500021").await;
    let reviewer_id = create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    let path = format!("/api/v1/console/orders/{order_no}/approve");

    for (body, field_problem) in [
        (json!({"note": "x".repeat(501)}), "note"),
        (json!({"reason": "x".repeat(501)}), "reason"),
    ] {
        let response = post(&app, &op, &path, &body).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert!(error(response).await["fields"][field_problem].is_string());
    }
    let approved = post(&app, &op, &path, &json!({"reason": "Income verified."})).await;
    assert_eq!(approved.status(), StatusCode::OK);
    assert_eq!(
        data(approved).await,
        json!({"orderNo": order_no, "status": "approved"})
    );

    // An approval's words (sent as `reason` by clients from before `note`) are the team's note.
    let (status, reason, note): (String, Option<String>, Option<String>) =
        sqlx::query_as("SELECT status, review_reason, review_note FROM orders WHERE id = $1")
            .bind(&order_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(
        (status.as_str(), reason.as_deref(), note.as_deref()),
        ("approved", None, Some("Income verified."))
    );
    let (actor, actor_id): (String, Option<String>) = sqlx::query_as(
        "SELECT actor, actor_id FROM order_events WHERE order_id = $1 AND status = 'approved'",
    )
    .bind(&order_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(
        (actor.as_str(), actor_id.as_deref()),
        ("operator", Some(reviewer_id.as_str()))
    );
    let audit = app.db.audit_of("order", &order_id).await.unwrap();
    let approve = audit
        .iter()
        .find(|a| a.action == "order.approve")
        .expect("audited");
    assert_eq!(approve.actor_kind, "operator");
    assert_eq!(approve.actor_id.as_deref(), Some(reviewer_id.as_str()));

    for again in [
        path.clone(),
        format!("/api/v1/console/orders/{order_no}/reject"),
    ] {
        let response = post(&app, &op, &again, &json!({"reason": "again"})).await;
        assert_eq!(response.status(), StatusCode::CONFLICT, "{again}");
        assert_eq!(error(response).await["code"], "invalid_transition");
    }
    let events = count(
        &app,
        &format!("SELECT COUNT(*) FROM order_events WHERE order_id = '{order_id}'"),
    )
    .await;
    assert_eq!(events, 2, "a refused decision writes nothing");

    let view = data(get(&app, &op, &format!("/api/v1/console/orders/{order_no}")).await).await;
    assert_eq!(view["reviewNote"], "Income verified.");
    assert_eq!(view["reviewReason"], Value::Null);
    assert_eq!(view["order"]["status"], "approved");
    let timeline: Vec<(&str, &str)> = view["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["status"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        timeline,
        [("pending_review", "borrower"), ("approved", "operator")]
    );
    // The borrower sees the new status.
    let detail = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    assert_eq!(detail["status"], "approved");
    // An approval's note is the operators' own: the borrower is shown a reason only on a rejection.
    assert_eq!(detail["rejectionReason"], Value::Null);

    let missing = post(
        &app,
        &op,
        "/api/v1/console/orders/KL-000000-NOPE00/approve",
        &json!({"reason": "x"}),
    )
    .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn rejecting_closes_the_order_with_the_reason() {
    let app = spawn_app().await;
    let (session, order_no, order_id) = confirmed_order(&app, "9876500031").await;
    let detail_path = format!("/api/v1/borrower/orders/{order_no}");
    let before = data(app.get_as(&detail_path, &session).await).await;
    assert_eq!(before["rejectionReason"], Value::Null);
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    let rejected = post(
        &app,
        &op,
        &format!("/api/v1/console/orders/{order_no}/reject"),
        &json!({"reason": "The income could not be verified."}),
    )
    .await;
    assert_eq!(data(rejected).await["status"], "rejected");
    let (status, closed, reason): (String, Option<i64>, Option<String>) =
        sqlx::query_as("SELECT status, closed_at, review_reason FROM orders WHERE id = $1")
            .bind(&order_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(status, "rejected");
    assert!(closed.is_some());
    assert_eq!(reason.as_deref(), Some("The income could not be verified."));
    let audit = app.db.audit_of("order", &order_id).await.unwrap();
    assert!(audit.iter().any(|a| a.action == "order.reject"));
    // The borrower is shown the reason on the order.
    let after = data(app.get_as(&detail_path, &session).await).await;
    assert_eq!(after["status"], "rejected");
    assert_eq!(
        after["rejectionReason"],
        "The income could not be verified."
    );
    app.stop().await;
}

#[tokio::test]
async fn reviewers_see_id_and_account_numbers_in_full_and_each_view_is_audited_others_see_them_masked()
 {
    let app = spawn_app().await;
    let (_, order_no, order_id) = confirmed_order(&app, "9876500041").await;
    let reviewer_id = create(&app, "rita", &[Role::Reviewer]).await;
    create(&app, "sam", &[Role::Support]).await;
    create(&app, "fin", &[Role::Finance]).await;
    let path = format!("/api/v1/console/orders/{order_no}");
    let unmasked_views = || {
        count(
            &app,
            "SELECT COUNT(*) FROM audit_log WHERE action = 'view_unmasked'",
        )
    };

    let rita = sign_in(&app, "rita").await;
    let view = data(get(&app, &rita, &path).await).await;
    assert_eq!(view["unmasked"], true);
    let step = |view: &Value, name: &str| {
        view["certification"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == name)
            .unwrap()["data"]
            .clone()
    };
    assert_eq!(step(&view, "base")["idNumber"], "ABCPE1234F");
    assert_eq!(step(&view, "bank")["accountNumber"], "501001234567");
    assert_eq!(view["certification"].as_array().unwrap().len(), 5);
    assert_eq!(view["phoneMasked"], "+91 ******0041");
    assert_eq!(view["order"]["kfs"]["currency"], "INR");
    assert_eq!(unmasked_views().await, 1);
    let (actor_kind, actor_id, entity, entity_id): (String, Option<String>, String, String) =
        sqlx::query_as(
            "SELECT actor_kind, actor_id, entity, entity_id FROM audit_log WHERE action = 'view_unmasked'",
        )
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(
        (
            actor_kind.as_str(),
            actor_id.as_deref(),
            entity.as_str(),
            entity_id.as_str()
        ),
        (
            "operator",
            Some(reviewer_id.as_str()),
            "order",
            order_id.as_str()
        )
    );
    data(get(&app, &rita, &path).await).await;
    assert_eq!(unmasked_views().await, 2, "every view is audited");

    for name in ["sam", "fin"] {
        let op = sign_in(&app, name).await;
        let view = data(get(&app, &op, &path).await).await;
        assert_eq!(view["unmasked"], false, "{name}");
        assert_eq!(step(&view, "base")["idNumber"], "******234F", "{name}");
        assert_eq!(
            step(&view, "bank")["accountNumber"],
            "**** **** 4567",
            "{name}"
        );
    }
    assert_eq!(
        unmasked_views().await,
        2,
        "masked views are not audited as unmasked"
    );

    let missing = get(&app, &rita, "/api/v1/console/orders/KL-000000-NOPE00").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(unmasked_views().await, 2);
    app.stop().await;
}

#[tokio::test]
async fn support_and_finance_see_the_emergency_contacts_phones_masked_and_reviewers_in_full_audited()
 {
    let app = spawn_app().await;
    let (_, order_no, _) = confirmed_order(&app, "9876500042").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    create(&app, "sam", &[Role::Support]).await;
    create(&app, "fin", &[Role::Finance]).await;
    let path = format!("/api/v1/console/orders/{order_no}");
    let unmasked_views = || {
        count(
            &app,
            "SELECT COUNT(*) FROM audit_log WHERE action = 'view_unmasked'",
        )
    };
    let extended = |view: &Value| {
        view["certification"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["step"] == "extended")
            .unwrap()["data"]
            .clone()
    };
    // The certification's contacts (helpers::valid_steps): 98111 22233 and 98222 33344.
    for name in ["sam", "fin"] {
        let op = sign_in(&app, name).await;
        let view = data(get(&app, &op, &path).await).await;
        assert_eq!(view["unmasked"], false, "{name}");
        let contacts = extended(&view);
        assert_eq!(contacts["contact1Phone"], "+91 ******2233", "{name}");
        assert_eq!(contacts["contact2Phone"], "+91 ******3344", "{name}");
        assert_eq!(contacts["contact1Name"], "Ravi Verma", "{name}");
        let whole = view.to_string();
        for digits in ["981112", "9811122233", "982223", "9822233344"] {
            assert!(!whole.contains(digits), "{name} sees {digits}: {whole}");
        }
    }
    assert_eq!(unmasked_views().await, 0, "masked views are not audited");

    let rita = sign_in(&app, "rita").await;
    let view = data(get(&app, &rita, &path).await).await;
    assert_eq!(view["unmasked"], true);
    let contacts = extended(&view);
    assert_eq!(contacts["contact1Phone"], "+919811122233");
    assert_eq!(contacts["contact2Phone"], "+919822233344");
    assert_eq!(unmasked_views().await, 1, "the reviewer's view is audited");
    app.stop().await;
}

#[tokio::test]
async fn the_audit_search_filters_by_order_operator_and_time() {
    let app = spawn_app().await;
    let (_, one, _) = confirmed_order(&app, "9876500051").await;
    let (_, two, _) = confirmed_order(&app, "9876500052").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    create(&app, "ravi", &[Role::Reviewer]).await;
    create(&app, "sam", &[Role::Support]).await;
    let rita = sign_in(&app, "rita").await;
    let ravi = sign_in(&app, "ravi").await;
    let sam = sign_in(&app, "sam").await;
    let before = app.services.clock.now_ms();
    post(
        &app,
        &rita,
        &format!("/api/v1/console/orders/{one}/approve"),
        &json!({"reason": "ok"}),
    )
    .await;
    post(
        &app,
        &ravi,
        &format!("/api/v1/console/orders/{two}/reject"),
        &json!({"reason": "no"}),
    )
    .await;

    let search = |query: String| {
        let sam = sam.clone();
        let app = &app;
        async move {
            data(get(app, &sam, &format!("/api/v1/console/audit{query}")).await).await["entries"]
                .clone()
        }
    };
    let actions = |entries: &Value| -> Vec<String> {
        entries
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = search(String::new()).await;
    assert_eq!(
        actions(&all),
        ["order.reject", "order.approve", "order.open", "order.open"],
        "newest first"
    );
    assert_eq!(all[0]["actorKind"], "operator");
    assert_eq!(all[0]["actorId"], ravi.id);
    // The reason the borrower reads is recorded with the decision.
    assert_eq!(
        all[0]["after"],
        json!({"orderNo": two, "status": "rejected", "reason": "no"})
    );
    assert_eq!(
        all[1]["after"],
        json!({"orderNo": one, "status": "approved", "note": "ok"})
    );

    assert_eq!(
        actions(&search(format!("?orderNo={one}")).await),
        ["order.approve", "order.open"]
    );
    assert_eq!(
        actions(&search("?operator=rita".into()).await),
        ["order.approve"]
    );
    assert_eq!(
        actions(&search(format!("?operator={}", ravi.id)).await),
        ["order.reject"]
    );
    assert_eq!(
        actions(&search(format!("?from={before}")).await),
        ["order.reject", "order.approve"]
    );
    assert_eq!(
        actions(&search(format!("?to={before}")).await),
        ["order.open", "order.open"]
    );
    assert_eq!(search("?orderNo=KL-000000-NOPE00".into()).await, json!([]));
    assert_eq!(search("?operator=nobody".into()).await, json!([]));

    for bad in ["?from=yesterday", "?to=1.5", "?from=-1"] {
        let response = get(&app, &sam, &format!("/api/v1/console/audit{bad}")).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        let body = error(response).await;
        assert_eq!(body["code"], "validation_failed");
        assert!(body["fields"].as_object().unwrap().len() == 1, "{body}");
    }
    app.stop().await;
}

/// Issue 18 item 9: the trail names the operator and the order, lists what changed field by field, filters by action
/// or a family of actions, and exports to CSV, the export itself audited.
#[tokio::test]
async fn the_audit_trail_reads_with_names_numbers_and_changes_and_exports_to_csv() {
    let app = spawn_app().await;
    let (_, one, _) = confirmed_order(&app, "9876500061").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    create(&app, "sam", &[Role::Support]).await;
    let rita = sign_in(&app, "rita").await;
    let sam = sign_in(&app, "sam").await;
    post(
        &app,
        &rita,
        &format!("/api/v1/console/orders/{one}/approve"),
        &json!({"reason": "ok"}),
    )
    .await;

    let all = data(get(&app, &sam, "/api/v1/console/audit").await).await["entries"].clone();
    let approve = &all[0];
    assert_eq!(approve["action"], "order.approve");
    assert_eq!(approve["actorName"], "rita");
    assert_eq!(approve["orderNo"], json!(one));
    assert_eq!(approve["currency"], "INR");
    let changed: Vec<&str> = approve["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["field"].as_str().unwrap())
        .collect();
    assert!(changed.contains(&"status"), "{approve}");
    let status = approve["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["field"] == "status")
        .unwrap();
    assert_eq!(status["after"], "approved");

    let actions = |entries: &Value| -> Vec<String> {
        entries
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["action"].as_str().unwrap().to_owned())
            .collect()
    };
    let exact =
        data(get(&app, &sam, "/api/v1/console/audit?action=order.open").await).await["entries"]
            .clone();
    assert_eq!(actions(&exact), ["order.open"]);
    let family =
        data(get(&app, &sam, "/api/v1/console/audit?action=order.").await).await["entries"].clone();
    assert_eq!(actions(&family), ["order.approve", "order.open"]);
    for bad in ["order.%25", "Order.open", "x%27--"] {
        let response = get(&app, &sam, &format!("/api/v1/console/audit?action={bad}")).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(response).await["fields"]["action"].is_string());
    }

    let export = get(
        &app,
        &sam,
        &format!("/api/v1/console/audit/export?orderNo={one}"),
    )
    .await;
    assert_eq!(export.status(), StatusCode::OK);
    assert!(
        export.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert!(
        export.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    let text = export.text().await.unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "time_utc,actor,action,record,changes,before,after"
    );
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[1].contains(",rita,order.approve,order "),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(&one), "{}", lines[1]);
    assert!(
        lines[1].contains("status: \"\"pending_review\"\" → \"\"approved\"\""),
        "{}",
        lines[1]
    );

    // The export is in the trail: who took which entries out.
    let exports =
        data(get(&app, &sam, "/api/v1/console/audit?action=audit.export").await).await["entries"]
            .clone();
    assert_eq!(exports.as_array().unwrap().len(), 1);
    assert_eq!(exports[0]["actorName"], "sam");
    assert_eq!(exports[0]["after"]["entries"], 2);
    assert_eq!(exports[0]["after"]["filters"]["orderNo"], json!(one));

    // Reviewers read neither.
    let refused = get(&app, &rita, "/api/v1/console/audit/export").await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    app.stop().await;
}

/// A family of actions (`payment.`) is every action starting with it, of any depth (`site.` and `site.claims.` both
/// find `site.claims.update`), combined with the other filters; it is read through the family index
/// (`audit_log_family`, migration 0051) on both databases, not by reading the whole trail.
#[tokio::test]
async fn an_action_family_finds_every_action_starting_with_it_through_its_index() {
    use kilat_server::store::audit::AuditFilter;
    let app = spawn_app().await;
    let ada = create(&app, "ada", &[Role::Admin]).await;
    let bob = create(&app, "bob", &[Role::Finance]).await;
    let ada_session = sign_in(&app, "ada").await;
    // A trail of 20,000 entries of other families, then a few of the ones searched for.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
         INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
         SELECT 'bulk-' || i, 'operator', $1, CASE WHEN i % 3 = 0 THEN 'order.claim' ELSE 'view_unmasked' END,
                'order', 'none', NULL, NULL, 1000 + i
         FROM n",
    )
    .bind(&bob)
    .execute(app.db.pool())
    .await
    .unwrap();
    for (id, actor, action, at) in [
        ("e1", &ada, "site.claims.update", 30_001),
        ("e2", &ada, "payment.utr", 30_002),
        ("e3", &ada, "payments.export", 30_003),
        ("e4", &bob, "payment.refunded", 30_004),
    ] {
        sqlx::query(
            "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
             VALUES ($1, 'operator', $2, $3, 'payment', 'p', NULL, NULL, $4)",
        )
        .bind(id)
        .bind(actor)
        .bind(action)
        .bind(at as i64)
        .execute(app.db.pool())
        .await
        .unwrap();
    }
    let found = |query: &'static str| {
        let app = &app;
        let ada_session = &ada_session;
        async move {
            let entries =
                data(get(app, ada_session, &format!("/api/v1/console/audit?{query}")).await).await
                    ["entries"]
                    .clone();
            entries
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["action"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(found("action=site.").await, ["site.claims.update"]);
    assert_eq!(found("action=site.claims.").await, ["site.claims.update"]);
    assert!(found("action=site.claim.").await.is_empty());
    assert_eq!(
        found("action=payment.").await,
        ["payment.refunded", "payment.utr"]
    );
    assert_eq!(found("action=payments.").await, ["payments.export"]);
    assert_eq!(found("action=payment.&operator=ada").await, ["payment.utr"]);
    assert_eq!(
        found("action=payment.&from=30003").await,
        ["payment.refunded"]
    );
    assert_eq!(found("action=payment.&to=30003").await, ["payment.utr"]);
    assert_eq!(found("action=payment.utr").await, ["payment.utr"]);
    assert_eq!(found("action=order.").await.len(), 200);

    // With the planner's figures (as a live database has them), a family is read through its index.
    sqlx::query("ANALYZE audit_log")
        .execute(app.db.pool())
        .await
        .unwrap();
    for family in ["site.", "site.claims.", "payment."] {
        let plan = app
            .db
            .audit_search_plan(
                &AuditFilter {
                    action: Some(family),
                    ..AuditFilter::default()
                },
                200,
            )
            .await
            .unwrap()
            .join("\n");
        assert!(plan.contains("audit_log_family"), "{family}: {plan}");
    }
    app.stop().await;
}

/// The audit search pages, newest first, 200 entries at a time: following `next` reads every entry once, even where
/// many share a millisecond across a page's end, and the last page says there is no more. A cursor that is not one
/// is a field error. An export of more than 10,000 entries is refused by the field (narrow the dates), never cut
/// short without a word; 10,000 exactly export whole.
#[tokio::test]
async fn the_audit_search_pages_through_every_entry_and_an_export_too_large_is_refused() {
    let app = spawn_app().await;
    let ada = create(&app, "ada", &[Role::Admin]).await;
    let ada_session = sign_in(&app, "ada").await;
    // 10,000 entries: 450 `payment.utr` of which 300 share one millisecond (the page's end falls inside them), and
    // the rest `view_unmasked`, the oldest.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
         INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
         SELECT 'e-' || (100000 + i), 'operator', $1,
                CASE WHEN i > 9550 THEN 'payment.utr' ELSE 'view_unmasked' END, 'payment', 'p', NULL, NULL,
                CASE WHEN i > 9550 AND i <= 9850 THEN 50000 ELSE 1000 + i END
         FROM n",
    )
    .bind(&ada)
    .execute(app.db.pool())
    .await
    .unwrap();

    let page = |query: String| {
        let app = &app;
        let ada_session = &ada_session;
        async move { data(get(app, ada_session, &format!("/api/v1/console/audit?{query}")).await).await }
    };
    let mut seen = Vec::new();
    let mut pages = 0;
    let mut before: Option<String> = None;
    loop {
        let query = match &before {
            Some(cursor) => format!("action=payment.&before={cursor}"),
            None => "action=payment.".to_owned(),
        };
        let answer = page(query).await;
        pages += 1;
        let entries = answer["entries"].as_array().unwrap();
        assert!(entries.len() <= 200, "a page holds at most 200");
        seen.extend(entries.iter().map(|e| {
            (
                e["at"].as_i64().unwrap(),
                e["id"].as_str().unwrap().to_owned(),
            )
        }));
        match answer["next"].as_str() {
            Some(cursor) => before = Some(cursor.to_owned()),
            None => break,
        }
        assert!(pages < 10, "the pages end");
    }
    assert_eq!(pages, 3);
    assert_eq!(seen.len(), 450, "every entry, once");
    let mut sorted = seen.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    sorted.dedup();
    assert_eq!(sorted, seen, "newest first, none twice");

    // Exactly 200: one page, and no next.
    let last = page("action=view_unmasked&from=10351".into()).await;
    assert_eq!(
        last["entries"].as_array().unwrap().len(),
        200,
        "{}",
        last["next"]
    );
    assert_eq!(last["next"], Value::Null);

    for bad in ["yesterday", "12.", ".e-1", "-1.e-1", "1.a%20b"] {
        let response = get(
            &app,
            &ada_session,
            &format!("/api/v1/console/audit?before={bad}"),
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(
            error(response).await["fields"]["before"].is_string(),
            "{bad}"
        );
    }

    // The 10,000 (all before `to`: the trail's own entries are of today) export whole; one more is refused by the
    // field, never cut short; narrowed, they export again.
    let export = get(&app, &ada_session, "/api/v1/console/audit/export?to=60000").await;
    assert_eq!(export.status(), StatusCode::OK);
    assert_eq!(export.text().await.unwrap().lines().count(), 10_001);
    sqlx::query(
        "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
         VALUES ('e-more', 'operator', $1, 'view_unmasked', 'payment', 'p', NULL, NULL, 500)",
    )
    .bind(&ada)
    .execute(app.db.pool())
    .await
    .unwrap();
    let refused = get(&app, &ada_session, "/api/v1/console/audit/export?to=60000").await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(refused).await["fields"]["from"].is_string());
    let narrowed = get(
        &app,
        &ada_session,
        "/api/v1/console/audit/export?from=1000&to=60000",
    )
    .await;
    assert_eq!(narrowed.status(), StatusCode::OK);
    assert_eq!(narrowed.text().await.unwrap().lines().count(), 10_001);
    app.stop().await;
}

/// A session guessing its operator's current password (to keep the account once the session ends) is stopped at the
/// account's count whatever address it guesses from: five an address, twenty in all, then `operator_locked`.
#[tokio::test]
async fn guessing_the_current_password_from_many_addresses_is_stopped_at_the_accounts_count() {
    let app = crate::helpers::spawn_app_with(|s| s.trusted_proxy_hops = 1).await;
    create(&app, "ada", &[Role::Admin]).await;
    let ada = sign_in(&app, "ada").await;
    let guess = |address: String| {
        as_op(&app, &ada, Method::POST, "/api/v1/console/password")
            .header("x-forwarded-for", address)
            .json(
                &json!({"currentPassword": "a guess of mine", "password": "another long password"}),
            )
            .send()
    };
    for address in 1..=4 {
        for n in 0..5 {
            let answer = guess(format!("203.0.113.{address}")).await.unwrap();
            assert_eq!(
                answer.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "address {address}, guess {n}"
            );
        }
    }
    let refused = guess("203.0.113.9".into()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(refused).await["code"], "operator_locked");
    app.stop().await;
}

/// A query parameter given empty is refused like any other value that is not one of its kind, never read as left
/// out (the API contract: `market` is a market, `pageSize` a whole number).
#[tokio::test]
async fn a_query_parameter_given_empty_is_refused_by_the_field() {
    let app = spawn_app().await;
    create(&app, "ada", &[Role::Admin, Role::Reviewer, Role::Finance]).await;
    let ada = sign_in(&app, "ada").await;
    for (path, field) in [
        (
            "/api/v1/console/applications?market=IN&pageSize=",
            "pageSize",
        ),
        ("/api/v1/console/payments?market=", "market"),
        ("/api/v1/console/payments/export?market=", "market"),
        ("/api/v1/console/reconciliation/imports?market=", "market"),
        ("/api/v1/console/audit?from=", "from"),
    ] {
        let response = get(&app, &ada, path).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{path}"
        );
        assert!(error(response).await["fields"][field].is_string(), "{path}");
    }
    // Left out, they are the defaults.
    for path in [
        "/api/v1/console/applications?market=IN",
        "/api/v1/console/payments",
        "/api/v1/console/reconciliation/imports",
    ] {
        assert_eq!(
            get(&app, &ada, path).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
    app.stop().await;
}

/// `kilat` with only the given environment (no KILAT_* of the caller's).
fn kilat(database_url: &str) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_kilat"));
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("KILAT_")) {
        command.env_remove(name);
    }
    command
        .env("KILAT_DATABASE_URL", database_url)
        .env("KILAT_MODE", "development")
        .env("RUST_LOG", "warn")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    command
}

#[tokio::test]
async fn kilat_serve_in_development_creates_a_demo_admin_once_and_the_cli_creates_operators() {
    use tokio::io::AsyncBufReadExt;

    let database = crate::helpers::shared_database().await;
    let mut serve = kilat(&database.url)
        .args(["serve"])
        .env("KILAT_LISTEN", "127.0.0.1:0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(serve.stdout.take().unwrap()).lines();
    let (console_line, addr) = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        let mut console_line = None;
        while let Some(line) = lines.next_line().await.unwrap() {
            if line.starts_with("Console: ") {
                console_line = Some(line);
            } else if let Some(rest) = line.strip_prefix("Kilat is running at http://") {
                return (console_line, rest.split('/').next().unwrap().to_owned());
            }
        }
        panic!("kilat serve exited before it listened");
    })
    .await
    .unwrap();
    let console_line = console_line.expect("the demo admin's line");
    assert!(
        console_line.contains(&format!("http://{addr}/console/ as admin, password ")),
        "{console_line}"
    );
    let password = console_line
        .split("password ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let login = |username: &'static str, password: String| {
        client
            .post(format!("http://{addr}{LOGIN}"))
            .json(&json!({"username": username, "password": password}))
            .send()
    };
    let admin = login("admin", password).await.unwrap();
    assert_eq!(admin.status(), StatusCode::OK);
    assert_eq!(
        data(admin).await["operator"]["roles"],
        json!(["admin", "reviewer", "finance", "support", "collections"])
    );

    let created = kilat(&database.url)
        .args([
            "operator",
            "create",
            "--username",
            "Rita",
            "--role",
            "reviewer,support",
        ])
        .env("KILAT_OPERATOR_PASSWORD", PASSWORD)
        .output()
        .await
        .unwrap();
    assert!(created.status.success(), "{created:?}");
    let rita = login("rita", PASSWORD.to_owned()).await.unwrap();
    assert_eq!(
        data(rita).await["operator"]["roles"],
        json!(["reviewer", "support"])
    );
    let taken = kilat(&database.url)
        .args([
            "operator",
            "create",
            "--username",
            "rita",
            "--role",
            "admin",
        ])
        .env("KILAT_OPERATOR_PASSWORD", PASSWORD)
        .output()
        .await
        .unwrap();
    assert!(!taken.status.success());
    assert!(String::from_utf8_lossy(&taken.stderr).contains("username: This username is taken."));
    let _ = serve.kill().await;

    // Operators exist now: a second start creates no demo admin.
    let mut again = kilat(&database.url)
        .args(["serve"])
        .env("KILAT_LISTEN", "127.0.0.1:0")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(again.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(std::time::Duration::from_secs(60), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(first.starts_with("Kilat is running at "), "{first}");
    let _ = again.kill().await;
    database.remove().await;
}

/// Moves every time of an order by `shift_ms` and dates its ledger `date` (its payout's business date).
async fn shift_order(app: &TestApp, order_id: &str, shift_ms: i64, date: Option<&str>) {
    for sql in [
        format!("UPDATE orders SET created_at = created_at + {shift_ms} WHERE id = '{order_id}'"),
        format!("UPDATE order_events SET at = at + {shift_ms} WHERE order_id = '{order_id}'"),
        format!(
            "UPDATE payouts SET created_at = created_at + {shift_ms} WHERE order_id = '{order_id}'"
        ),
    ] {
        app.execute(&sql).await;
    }
    if let Some(date) = date {
        app.execute(&format!(
            "UPDATE ledger_entries SET on_date = '{date}' WHERE order_id = '{order_id}'"
        ))
        .await;
    }
}

/// Sets one time of an order (ms since the epoch).
async fn set_time(app: &TestApp, sql: &str) {
    app.execute(sql).await;
}

#[tokio::test]
async fn the_dashboard_counts_each_day_of_the_market_from_known_orders() {
    let app = spawn_app().await;
    create(&app, "ada", &[Role::Admin]).await;
    create(&app, "fiona", &[Role::Finance]).await;
    let admin = sign_in(&app, "ada").await;
    let finance = sign_in(&app, "fiona").await;
    let day = 86_400_000_i64;
    let ist = 19_800_000_i64;
    let today = app.services.clock.today(kilat_domain::Market::India);
    let today_n = i64::from(today.to_julian_day()) - 2_440_588;
    // Local midnight of `n` days ago, in UTC ms.
    let midnight = |n: i64| (today_n - n) * day - ist;
    let date = |n: i64| (today - time::Duration::days(n)).to_string();

    // A: applied two days ago at 10:00, approved at 11:00, paid out at 11:30 (90 minutes).
    // B: applied yesterday at 09:00, approved at 09:10, paid out at 09:30 (30 minutes), overdue since today 08:00.
    // C: applied today, still in review.
    let mut orders = Vec::new();
    for (phone, n) in [("9876500041", 2), ("9876500042", 1)] {
        let (_, no, id) = confirmed_order(&app, phone).await;
        approve(&app, &id).await;
        let response = post(
            &app,
            &finance,
            &format!("/api/v1/console/orders/{no}/disburse"),
            &json!({"bankReference": format!("UTIBN5202611250000{n}")}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        orders.push((id, n));
    }
    let (_, _, c_id) = confirmed_order(&app, "9876500043").await;
    let times = [
        (2, 10 * 60, 11 * 60, 11 * 60 + 30),
        (1, 9 * 60, 9 * 60 + 10, 9 * 60 + 30),
    ];
    for ((id, n), (_, applied, approved, paid)) in orders.iter().zip(times) {
        shift_order(&app, id, 0, Some(&date(*n))).await;
        let at = |minutes: i64| midnight(*n) + minutes * 60_000;
        set_time(
            &app,
            &format!(
                "UPDATE orders SET created_at = {} WHERE id = '{id}'",
                at(applied)
            ),
        )
        .await;
        set_time(&app, &format!("UPDATE order_events SET at = {} WHERE order_id = '{id}' AND status = 'pending_review'", at(applied))).await;
        set_time(
            &app,
            &format!(
                "UPDATE order_events SET at = {} WHERE order_id = '{id}' AND status = 'approved'",
                at(approved)
            ),
        )
        .await;
        set_time(
            &app,
            &format!(
                "UPDATE order_events SET at = {} WHERE order_id = '{id}' AND status = 'disbursed'",
                at(paid)
            ),
        )
        .await;
        set_time(
            &app,
            &format!(
                "UPDATE payouts SET created_at = {} WHERE order_id = '{id}'",
                at(paid)
            ),
        )
        .await;
    }
    set_time(
        &app,
        &format!(
            "UPDATE orders SET created_at = {} WHERE id = '{c_id}'",
            midnight(0) + 60_000
        ),
    )
    .await;
    set_time(
        &app,
        &format!(
            "UPDATE order_events SET at = {} WHERE order_id = '{c_id}'",
            midnight(0) + 60_000
        ),
    )
    .await;
    let b_id = &orders[1].0;
    app.execute(&format!(
        "INSERT INTO order_events (id, order_id, status, actor, at) VALUES ('ev-b-overdue', '{b_id}', 'overdue', 'job', {})",
        midnight(0) + 8 * 3_600_000
    ))
    .await;
    // As the overdue job moves it: the order's status is its timeline's last. Written here without the lifecycle, so
    // the dashboard's book is counted again, as after a migration.
    app.execute(&format!(
        "UPDATE orders SET status = 'overdue' WHERE id = '{b_id}'"
    ))
    .await;
    app.count_book().await;
    // A repayment of ₹1,500.00 on A yesterday.
    let a_id = &orders[0].0;
    app.execute(&format!(
        "INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, created_at)
         VALUES ('le-a-repay', '{a_id}', 99, 'repayment', '{}', 150000, 0, 0, {})",
        date(1),
        midnight(1) + 3_600_000
    ))
    .await;
    let (net,): (i64,) = sqlx::query_as("SELECT net_disbursed FROM orders WHERE id = $1")
        .bind(a_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();

    // Two complaints came in the day before yesterday, one yesterday (stored as the complaint flow stores them, at
    // known times).
    let (borrower_id,): (String,) = sqlx::query_as("SELECT borrower_id FROM orders WHERE id = $1")
        .bind(&c_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    for (i, at) in [
        midnight(2) + 60_000,
        midnight(1) - 60_000,
        midnight(0) - 60_000,
    ]
    .into_iter()
    .enumerate()
    {
        sqlx::query(
            "INSERT INTO complaints (id, ticket_no, borrower_id, market, category, status, received_on, created_at,
                                     updated_at)
             VALUES ($1, $2, $3, 'IN', 'other', 'open', '2025-01-01', $4, $4)",
        )
        .bind(format!("dash-complaint-{i}"))
        .bind(format!("CP-DASH0000000{i}"))
        .bind(&borrower_id)
        .bind(at)
        .execute(app.db.pool())
        .await
        .unwrap();
    }

    // The principal of each loan (scheduled at its payout; the repayment above has no ledger lines).
    let mut principals = Vec::new();
    for (id, _) in &orders {
        let (amount,): (i64,) = sqlx::query_as("SELECT amount FROM orders WHERE id = $1")
            .bind(id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        principals.push(amount);
    }
    let (a_principal, b_principal) = (principals[0], principals[1]);

    let board = data(get(&app, &admin, "/api/v1/console/dashboard?market=IN").await).await;
    assert_eq!(board["market"], "IN");
    assert_eq!(board["currency"], "INR");
    let days = board["days"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    assert_eq!(days[29]["date"], date(0));
    assert_eq!(days[0]["date"], date(29));
    let pick = |n: usize| &days[29 - n];
    assert_eq!(
        pick(2),
        &json!({"date": date(2), "applications": 1, "approvals": 1, "paidOut": net, "repaid": 0,
                "openLoans": 1, "overdueLoans": 0, "complaints": 2, "medianMinutesToPayout": 90,
                "outstandingPrincipal": a_principal})
    );
    assert_eq!(
        pick(1),
        &json!({"date": date(1), "applications": 1, "approvals": 1, "paidOut": net, "repaid": 150000,
                "openLoans": 2, "overdueLoans": 0, "complaints": 1, "medianMinutesToPayout": 30,
                "outstandingPrincipal": a_principal + b_principal})
    );
    assert_eq!(
        pick(0),
        &json!({"date": date(0), "applications": 1, "approvals": 0, "paidOut": 0, "repaid": 0,
                "openLoans": 2, "overdueLoans": 1, "complaints": 0, "medianMinutesToPayout": null,
                "outstandingPrincipal": a_principal + b_principal})
    );
    assert_eq!(
        pick(3),
        &json!({"date": date(3), "applications": 0, "approvals": 0, "paidOut": 0, "repaid": 0,
                "openLoans": 0, "overdueLoans": 0, "complaints": 0, "medianMinutesToPayout": null,
                "outstandingPrincipal": 0})
    );
    assert_eq!(
        board["book"]["outstandingPrincipal"],
        a_principal + b_principal
    );
    // Indonesia has none of India's orders.
    let id_board = data(get(&app, &admin, "/api/v1/console/dashboard?market=ID").await).await;
    assert_eq!(id_board["currency"], "IDR");
    assert!(
        id_board["days"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["applications"] == 0 && d["openLoans"] == 0 && d["complaints"] == 0)
    );
    // The worker keeps the ended days (all 29, or 28 in the first minutes after midnight): the board is the same, and
    // read from them. Two runners at once keep each day once; a later run keeps nothing more.
    let india = kilat_domain::Market::India;
    let (one, two) = tokio::join!(
        kilat_server::jobs::dashboard_days::run(&app.services, india),
        kilat_server::jobs::dashboard_days::run(&app.services, india)
    );
    let kept = one.unwrap() + two.unwrap();
    assert!((28..=29).contains(&kept), "{kept} days kept");
    let (rows,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM dashboard_days WHERE market = 'IN'")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(usize::try_from(rows).unwrap(), kept);
    assert_eq!(
        kilat_server::jobs::dashboard_days::run(&app.services, india)
            .await
            .unwrap(),
        0
    );
    let again = data(get(&app, &admin, "/api/v1/console/dashboard?market=IN").await).await;
    assert_eq!(again, board);
    // A's application rewritten to three days ago after its day was kept: the kept days stand (an ended day's figures
    // are kept as they were; today is still computed).
    app.execute(&format!(
        "UPDATE orders SET created_at = created_at - {day} WHERE id = '{}'",
        orders[0].0
    ))
    .await;
    let again = data(get(&app, &admin, "/api/v1/console/dashboard?market=IN").await).await;
    assert_eq!(again["days"][29 - 2]["applications"], 1);
    assert_eq!(again["days"][29 - 3]["applications"], 0);
    // Once the days are forgotten (as when the development clock moves back), they are computed from the tables again.
    app.execute("DELETE FROM dashboard_days").await;
    app.execute("DELETE FROM dashboard_payout_minutes").await;
    let again = data(get(&app, &admin, "/api/v1/console/dashboard?market=IN").await).await;
    assert_eq!(again["days"][29 - 2]["applications"], 0);
    assert_eq!(again["days"][29 - 3]["applications"], 1);
    // A bad market is a field error.
    let response = get(&app, &admin, "/api/v1/console/dashboard?market=XX").await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(response).await["fields"]["market"].is_string());
    app.stop().await;
}

/// A wrong password for an unknown username is answered as one for a real operator, lock and all: five `401`s, then
/// `429 operator_locked` (before, a real username locked on the sixth try and an unknown one never did, so six tries
/// told which names exist). A disabled operator's name answers the same.
#[tokio::test]
async fn an_unknown_username_locks_like_a_real_one_so_the_lock_tells_no_names() {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let mut seen = Vec::new();
    for (n, name) in ["asha", "nobody"].into_iter().enumerate() {
        let mut answers = Vec::new();
        for _ in 0..=MAX_PASSWORD_CHECKS {
            let answer = login_from(&app, &format!("203.0.113.{}", 80 + n), name, "wrong").await;
            let status = answer.status();
            answers.push((
                status,
                error(answer).await["code"].as_str().unwrap().to_owned(),
            ));
        }
        seen.push(answers);
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[1].last().unwrap().1, "operator_locked");
    assert_eq!(
        seen[1]
            .iter()
            .filter(|(s, _)| *s == StatusCode::UNAUTHORIZED)
            .count() as i64,
        MAX_PASSWORD_CHECKS
    );
    app.stop().await;
}

/// An operator's own password change is written only while the password it checked is still the account's and its
/// session is live: an admin's reset landing while the hashes ran (which ends every session) wins, instead of being
/// silently undone by the change.
#[tokio::test]
async fn an_own_password_change_never_undoes_an_admins_reset_made_meanwhile() {
    let app = spawn_app().await;
    let id = create(&app, "kiran", &[Role::Support]).await;
    let kiran = sign_in(&app, "kiran").await;
    let stored = || async {
        sqlx::query_scalar::<_, String>("SELECT password_hash FROM operators WHERE id = $1")
            .bind(&id)
            .fetch_one(app.db.pool())
            .await
            .unwrap()
    };
    let checked = stored().await;
    let session = kilat_server::infra::crypto::token_hash(&kiran.token);
    // The admin's reset: a new hash, every session ended.
    let mut tx = app.db.begin().await.unwrap();
    tx.set_operator_password(&id, "$argon2id$the-admins-reset", true)
        .await
        .unwrap();
    tx.revoke_operator_sessions(&id, 1).await.unwrap();
    tx.commit().await.unwrap();
    let mut tx = app.db.begin().await.unwrap();
    let changed = tx
        .change_own_operator_password(&id, &checked, "$argon2id$kirans-choice", &session)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert!(!changed);
    assert_eq!(stored().await, "$argon2id$the-admins-reset");

    // Signed in again with the admin's password, the change goes through.
    sqlx::query("UPDATE operator_sessions SET revoked_at = NULL WHERE token_hash = $1")
        .bind(&session)
        .execute(app.db.pool())
        .await
        .unwrap();
    let mut tx = app.db.begin().await.unwrap();
    assert!(
        tx.change_own_operator_password(
            &id,
            "$argon2id$the-admins-reset",
            "$argon2id$kirans-choice",
            &session
        )
        .await
        .unwrap()
    );
    tx.commit().await.unwrap();
    assert_eq!(stored().await, "$argon2id$kirans-choice");
    app.stop().await;
}
