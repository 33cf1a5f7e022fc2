//! The one request limiter (issue 17; docs/ARCHITECTURE.md, "Security: limits"): a burst admits exactly the limit on
//! either database, two servers on one database hold one count, the contact form and complaints are limited, and the
//! per-address limits key IPv6 by its /64 and are sized for an address many phones share.

use std::collections::BTreeMap;
use std::sync::Arc;

use kilat_server::infra::limits::{self, KeyKind, Limit};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{ServerProcess, TestApp, data, shared_database, spawn_app, spawn_app_with};

const CONTACT: &str = "/api/v1/site/contact-messages";
const SMS: &str = "/api/v1/borrower/login/sms-code";
const LOGIN: &str = "/api/v1/borrower/login";
const COMPLAINTS: &str = "/api/v1/borrower/complaints";

/// Sends every request at the same moment ([`crate::limits::burst`]); answers how many got each envelope code (`ok`
/// for a success), checking that every `rate_limited` carried `Retry-After`.
async fn burst(requests: Vec<RequestBuilder>) -> BTreeMap<String, usize> {
    let answers = crate::limits::burst(requests).await;
    for answer in &answers {
        if answer.code == "rate_limited" {
            assert!(
                answer.retry_after.is_some(),
                "a 429 without Retry-After: {answer:?}"
            );
        }
    }
    crate::limits::tally(&answers)
        .into_iter()
        .map(|(code, n)| (code.to_owned(), n))
        .collect()
}

fn tally(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
    pairs
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(code, n)| ((*code).to_owned(), *n))
        .collect()
}

fn contact_from(client: &reqwest::Client, url: String, addr: &str, n: usize) -> RequestBuilder {
    client
        .post(url)
        .header("x-forwarded-for", addr)
        .json(&json!({"name": format!("Visitor {n}"), "telephone": "0812 0000 0000", "message": "Please call me."}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_simultaneous_hits_on_one_key_admits_exactly_the_limit() {
    let app = spawn_app().await;
    let limit = Limit {
        name: "burst_test",
        key: KeyKind::Address,
        max: 7,
        window_ms: 60_000,
    };
    let now = app.services.clock.now_ms();
    let start = Arc::new(tokio::sync::Barrier::new(60));
    let tasks: Vec<_> = (0..60)
        .map(|n| {
            let db = app.db.clone();
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                // Half counted alone, half with a second limit in one transaction (all or nothing).
                if n % 2 == 0 {
                    limits::count(&db, &limit, "one", now)
                        .await
                        .unwrap()
                        .is_ok()
                } else {
                    let wide = Limit {
                        name: "burst_wide",
                        max: 1_000,
                        ..limit
                    };
                    limits::count_all(&db, &[(&wide, "one"), (&limit, "one")], now)
                        .await
                        .unwrap()
                        .is_ok()
                }
            })
        })
        .collect();
    let mut admitted = 0;
    for task in tasks {
        admitted += usize::from(task.await.unwrap());
    }
    assert_eq!(admitted, 7);
    // A refusal inside a transaction counted nowhere: the wide limit holds only the admitted ones of its half.
    let wide: i64 = sqlx::query_scalar("SELECT hits FROM rate_limits WHERE key = 'burst_wide:one'")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert!(wide <= 7, "{wide}");
    // The window over, the key admits again.
    assert!(
        limits::count(&app.db, &limit, "one", now + 60_000)
            .await
            .unwrap()
            .is_ok()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_database_hold_the_contact_forms_limits_together() {
    let database = shared_database().await;
    let first = ServerProcess::start(&database.url).await;
    let second =
        ServerProcess::start_with(&database.url, &[("KILAT_LIMITS__CONTACT_PER_DAY", "8")]).await;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    let servers = [&first, &second];
    // Five a minute from one address, whichever server each message reaches.
    let sends = (0..20)
        .map(|n| contact_from(&client, servers[n % 2].url(CONTACT), "203.0.113.9", n))
        .collect();
    assert_eq!(
        burst(sends).await,
        tally(&[("ok", 5), ("rate_limited", 15)])
    );
    // Another address is served.
    let other = contact_from(&client, first.url(CONTACT), "203.0.113.10", 0)
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), StatusCode::CREATED);
    let db = kilat_server::store::Db::connect(&database.url, 2)
        .await
        .unwrap();
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM contact_messages")
        .fetch_one(db.pool())
        .await
        .unwrap();
    assert_eq!(stored, 6);
    db.close().await;
    first.stop().await;
    second.stop().await;
    database.remove().await;
}

#[tokio::test]
async fn the_contact_form_has_a_daily_limit_per_address_and_an_ipv6_64_is_one_address() {
    let app = spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.contact.per_minute = 100;
        s.limits.contact_per_day = 3;
    })
    .await;
    for n in 0..3 {
        let sent = contact_from(
            &app.client,
            app.url(CONTACT),
            &format!("2001:db8:5:5::{n}"),
            n,
        )
        .send()
        .await
        .unwrap();
        assert_eq!(sent.status(), StatusCode::CREATED, "{n}");
    }
    let refused = contact_from(&app.client, app.url(CONTACT), "2001:db8:5:5:abcd::99", 9)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((86_000..=86_400).contains(&wait), "{wait}");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "rate_limited");
    assert_eq!(body["data"], Value::Null);
    // The next /64 is another address.
    let next = contact_from(&app.client, app.url(CONTACT), "2001:db8:5:6::1", 0)
        .send()
        .await
        .unwrap();
    assert_eq!(next.status(), StatusCode::CREATED);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_complaints_from_one_borrower_files_exactly_the_days_limit() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let other = app.sign_in("IN", "9812345678").await;
    let max = app.services.limits.complaints_per_borrower.max as usize;
    let complaint = |session: &str, n: usize| {
        app.client
            .post(app.url(COMPLAINTS))
            .header("x-session-id", session)
            .json(&json!({"category": "app", "description": format!("The app shows a blank page, try {n}.")}))
    };
    let answers = burst((0..30).map(|n| complaint(&session, n)).collect()).await;
    assert_eq!(answers, tally(&[("ok", max), ("rate_limited", 30 - max)]));
    let filed: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM complaints")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(filed, max as i64);
    // A refused or invalid complaint uses none of the day's: another borrower files, and the first one's invalid
    // request is still a field error.
    let theirs = complaint(&other, 0).send().await.unwrap();
    assert_eq!(theirs.status(), StatusCode::CREATED);
    let invalid = app
        .post_as(COMPLAINTS, &session, &json!({"category": "app"}))
        .await;
    assert_eq!(invalid.status(), StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_addresses_of_one_ipv6_64_share_one_cap_and_mapped_ipv4_is_its_ipv4() {
    let app = spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.limits.codes_per_address_per_day = 30;
    })
    .await;
    let sends = (0..40)
        .map(|n| {
            app.client
                .post(app.url(SMS))
                .header("x-forwarded-for", format!("2001:db8:1:2::{:x}", n + 1))
                .json(&json!({"market": "IN", "phone": format!("98765{n:05}")}))
        })
        .collect();
    assert_eq!(
        burst(sends).await,
        tally(&[("ok", 30), ("daily_limit_reached", 10)])
    );
    // IPv4 and the same address mapped into IPv6 are one address.
    for n in 0..30 {
        let addr = if n % 2 == 0 {
            "203.0.113.7"
        } else {
            "::ffff:203.0.113.7"
        };
        let sent = app
            .client
            .post(app.url(SMS))
            .header("x-forwarded-for", addr)
            .json(&json!({"market": "IN", "phone": format!("98111{n:05}")}))
            .send()
            .await
            .unwrap();
        assert_eq!(sent.status(), StatusCode::OK, "{n}");
    }
    let mapped = app
        .client
        .post(app.url(SMS))
        .header("x-forwarded-for", "::ffff:203.0.113.7")
        .json(&json!({"market": "IN", "phone": "9822200000"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mapped.status(), StatusCode::TOO_MANY_REQUESTS);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_phones_behind_one_address_all_get_codes_and_sign_in_with_the_default_limits() {
    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    let phone = |n: usize| format!("98765{n:05}");
    let sends = (0..200)
        .map(|n| {
            app.client
                .post(app.url(SMS))
                .header("x-forwarded-for", "100.64.0.1")
                .json(&json!({"market": "IN", "phone": phone(n)}))
        })
        .collect();
    assert_eq!(burst(sends).await, tally(&[("ok", 200)]));
    // Each phone signs in with its code from the same shared address.
    let outbox = data(app.get("/api/v1/dev/outbox").await).await;
    let codes: BTreeMap<String, String> = outbox
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["phone"].as_str().unwrap().to_owned(),
                e["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let logins = (0..200)
        .map(|n| {
            app.client
                .post(app.url(LOGIN))
                .header("x-forwarded-for", "100.64.0.1")
                .json(&json!({"market": "IN", "phone": phone(n), "code": codes[&format!("+91{}", phone(n))]}))
        })
        .collect();
    assert_eq!(burst(logins).await, tally(&[("ok", 200)]));
    app.stop().await;
}

/// The per-phone limits still hold behind a shared address: a phone's second code within the minute is refused.
#[tokio::test]
async fn behind_a_shared_address_each_phone_keeps_its_own_limits() {
    let app: TestApp = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    let send = |phone: &str| {
        app.client
            .post(app.url(SMS))
            .header("x-forwarded-for", "100.64.0.1")
            .json(&json!({"market": "IN", "phone": phone}))
            .send()
    };
    assert_eq!(send("9876500001").await.unwrap().status(), StatusCode::OK);
    let again = send("9876500001").await.unwrap();
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);
    let body: Value = again.json().await.unwrap();
    assert_eq!(body["code"], "code_resend_too_soon");
    assert_eq!(send("9876500002").await.unwrap().status(), StatusCode::OK);
    app.stop().await;
}
