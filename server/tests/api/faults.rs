//! A short fault test (issue 17, "Also"): a real `kilat serve` process under a mixed load — sign-in codes from many
//! phones and signed virtual-account callbacks for many loans, a third of each from clients that give up after a few
//! milliseconds — is killed with SIGKILL in the middle of it. After a restart on the same database: every write the
//! server had acknowledged is there, no payment is credited twice, every loan's stored ledger replays to the balances
//! the API shows, and every kind of write works again at once. On SQLite and, with TEST_DATABASE_URL, PostgreSQL.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kilat_server::auth::operators::Role;
use kilat_server::store::Db;
use reqwest::{RequestBuilder, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{ServerProcess, data, shared_database, spawn_app_on};
use crate::servicing::{check_ledger, count, operator};
use crate::webhooks::{LEDGER, XENDIT_TOKEN, indonesian_payment, rupiah, xendit_paid};

const LOANS: usize = 12;
const PHONES: usize = 60;

/// What the killed server answered 200 to.
#[derive(Default)]
struct Acknowledged {
    /// Payment ids whose callback was answered `confirmed`.
    credited: Vec<String>,
    /// Client addresses whose code request was answered 200 (one request each).
    codes: Vec<String>,
}

fn code_request(n: usize) -> (String, Value) {
    (
        format!("10.77.{}.{}", n / 200, n % 200 + 1),
        json!({"market": "ID", "phone": format!("0813{:08}", 40_000_000 + n)}),
    )
}

/// Sends the `n`th request of its kind `step_ms × n` after the load starts; every third gives up after 1–4 ms, as a
/// phone closing the app does. The answer, when it is a 200.
async fn send_spread(request: RequestBuilder, n: usize, step_ms: u64) -> Option<reqwest::Response> {
    tokio::time::sleep(Duration::from_millis(step_ms * n as u64)).await;
    let request = if n.is_multiple_of(3) {
        request.timeout(Duration::from_millis(1 + n as u64 % 4))
    } else {
        request
    };
    request
        .send()
        .await
        .ok()
        .filter(|response| response.status() == StatusCode::OK)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_killed_under_load_with_aborted_requests_loses_no_acknowledged_write() {
    let database = shared_database().await;

    // The loans, each with a `due` payment waiting for its virtual-account transfer.
    let app = spawn_app_on(&database.url).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mut loans = Vec::with_capacity(LOANS);
    for i in 0..LOANS {
        // Seeding only: the sign-in limits per client address would stop the borrowers early.
        app.execute("DELETE FROM rate_limits").await;
        let phone = format!("0812{:08}", 60_000_000 + i);
        loans.push(indonesian_payment(&app, &finance, &phone, "due").await);
    }
    app.stop().await;

    let server = ServerProcess::start(&database.url).await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let acknowledged = Arc::new(Mutex::new(Acknowledged::default()));
    let mut tasks = Vec::new();
    for (i, (_, _, _, payment)) in loans.iter().enumerate() {
        let body = xendit_paid(payment, &format!("xnd-fault-{i:03}"), rupiah(payment));
        let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
        let request = client
            .post(server.url("/api/v1/webhooks/xendit/va-paid"))
            .header("x-callback-token", XENDIT_TOKEN)
            .json(&body);
        let acknowledged = acknowledged.clone();
        tasks.push(tokio::spawn(async move {
            // Spread over the load, so that the kill lands among them.
            if let Some(response) = send_spread(request, i, 40).await
                && let Ok(answer) = response.json::<Value>().await
                && answer["data"]["outcome"] == "confirmed"
            {
                acknowledged.lock().unwrap().credited.push(payment_id);
            }
        }));
    }
    for n in 0..PHONES {
        let (addr, body) = code_request(n);
        let request = client
            .post(server.url("/api/v1/borrower/login/sms-code"))
            .header("x-forwarded-for", &addr)
            .json(&body);
        let acknowledged = acknowledged.clone();
        tasks.push(tokio::spawn(async move {
            if send_spread(request, n, 8).await.is_some() {
                acknowledged.lock().unwrap().codes.push(addr);
            }
        }));
    }
    // SIGKILL in the middle of the load, once a few writes of each kind were acknowledged: no shutdown, no
    // checkpoint, transactions cut wherever they were.
    let waiting = Instant::now();
    while waiting.elapsed() < Duration::from_secs(20) {
        let enough = {
            let so_far = acknowledged.lock().unwrap();
            so_far.credited.len() >= 3 && so_far.codes.len() >= 10
        };
        if enough {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.stop().await;
    for task in tasks {
        task.await.unwrap();
    }
    let acknowledged = std::mem::take(&mut *acknowledged.lock().unwrap());
    assert!(
        !acknowledged.credited.is_empty() && !acknowledged.codes.is_empty(),
        "the kill landed after some writes were acknowledged: {} callbacks, {} codes",
        acknowledged.credited.len(),
        acknowledged.codes.len()
    );
    println!(
        "FAULTS killed with {} of {LOANS} callbacks and {} of {PHONES} codes acknowledged",
        acknowledged.credited.len(),
        acknowledged.codes.len()
    );
    assert!(
        acknowledged.credited.len() < LOANS || acknowledged.codes.len() < PHONES,
        "the kill landed before the load ended"
    );

    // The restart recovers the database (SQLite's write-ahead log, PostgreSQL's own), then every acknowledged write
    // is found (that nothing was credited twice is checked at the end, once every callback was sent again).
    let restarted = ServerProcess::start(&database.url).await;
    let db = Db::connect(&database.url, 2).await.unwrap();
    for payment_id in &acknowledged.credited {
        let (status,): (String,) = sqlx::query_as("SELECT status FROM payments WHERE id = $1")
            .bind(payment_id)
            .fetch_one(db.pool())
            .await
            .unwrap();
        assert_eq!(
            status, "confirmed",
            "an acknowledged credit of {payment_id}"
        );
    }
    for addr in &acknowledged.codes {
        let (codes,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM login_codes WHERE client_addr = $1")
                .bind(addr)
                .fetch_one(db.pool())
                .await
                .unwrap();
        assert_eq!(codes, 1, "the acknowledged code sent to {addr}");
    }

    // Every kind of write works at once (well inside the 5 s a write would wait for a lock left behind): each callback
    // sent again is credited (or answered as a replay of what was taken), and new codes are sent.
    let quick = |started: Instant| {
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "a write after the restart waited {:?}",
            started.elapsed()
        )
    };
    for (i, (_, _, _, payment)) in loans.iter().enumerate() {
        let started = Instant::now();
        let body = xendit_paid(payment, &format!("xnd-fault-{i:03}"), rupiah(payment));
        let response = client
            .post(restarted.url("/api/v1/webhooks/xendit/va-paid"))
            .header("x-callback-token", XENDIT_TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let outcome = data(response).await["outcome"].as_str().unwrap().to_owned();
        assert!(
            ["confirmed", "replayed"].contains(&outcome.as_str()),
            "{outcome}"
        );
        quick(started);
    }
    let started = Instant::now();
    let (addr, body) = code_request(PHONES);
    let response = client
        .post(restarted.url("/api/v1/borrower/login/sms-code"))
        .header("x-forwarded-for", &addr)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    quick(started);
    restarted.stop().await;

    // Each loan is paid once, and its stored ledger replays to what the API shows.
    let app = spawn_app_on(&database.url).await;
    for (session, order_no, id, payment) in &loans {
        let entries = count(&app, LEDGER, payment["paymentId"].as_str().unwrap()).await;
        assert_eq!(entries, 1, "{order_no}: credited exactly once");
        check_ledger(&app, session, order_no, id).await;
    }
    app.stop().await;
    db.close().await;
    database.remove().await;
}
