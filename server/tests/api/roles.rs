//! Web and worker roles (issue 20 item 4): `kilat serve --jobs off` web servers and `kilat worker` processes on one
//! database; and `/metrics` (item 5), on its own address and nowhere else.

use std::collections::BTreeMap;
use std::time::Duration;

use kilat_server::store::Db;
use serde_json::json;

use crate::helpers::{ServerProcess, shared_database, spawn_app_with};
use crate::limits::{burst, tally};

/// Reads `/metrics` at `addr`.
pub(crate) async fn scrape(client: &reqwest::Client, addr: std::net::SocketAddr) -> String {
    let response = client
        .get(format!("http://{addr}/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    response.text().await.unwrap()
}

/// The value of the sample of `name` whose labels include every one of `labels` (`key="value"`), if any.
pub(crate) fn sample(text: &str, name: &str, labels: &[&str]) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.strip_prefix(name))
        .filter(|rest| rest.starts_with('{') || rest.starts_with(' '))
        .find(|rest| labels.iter().all(|label| rest.contains(label)))
        .and_then(|rest| rest.rsplit(' ').next())
        .and_then(|value| value.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_web_servers_with_jobs_off_and_two_workers_run_each_job_once_and_hold_the_limits() {
    let database = shared_database().await;
    // One after the other: the first applies the migrations.
    let web = [
        ServerProcess::start_args(&database.url, &["serve", "--jobs", "off"], &[]).await,
        ServerProcess::start_args(&database.url, &["serve", "--jobs", "off"], &[]).await,
    ];
    let metrics_listen = [("KILAT_METRICS__LISTEN", "127.0.0.1:0")];
    let workers = [
        ServerProcess::start_args(&database.url, &["worker"], &metrics_listen).await,
        ServerProcess::start_args(&database.url, &["worker"], &metrics_listen).await,
    ];
    let db = Db::connect(&database.url, 2).await.unwrap();
    let runs = || async {
        sqlx::query_as::<_, (String, String, String, String)>(
            "SELECT job, market, business_date, runner FROM job_runs ORDER BY job, market",
        )
        .fetch_all(db.pool())
        .await
        .unwrap()
    };
    // Each worker ticks at once on start: every daily job of both markets, and the orphan-files sweep.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let mut seen = runs().await;
    while seen.len() < 5 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
        seen = runs().await;
    }
    // A moment more, in which a second run of any of them would show.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let seen = runs().await;
    let jobs: Vec<_> = seen
        .iter()
        .map(|(job, market, _, _)| format!("{job} {market}"))
        .collect();
    assert_eq!(
        jobs.len(),
        5,
        "overdue and records retention once per market and business date, the sweep once: {seen:?}"
    );
    for (job, market, _, runner) in &seen {
        assert!(
            runner.starts_with("worker-"),
            "{job} {market} was run by {runner}: a server with --jobs off runs none"
        );
    }

    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::new();
    // The workers' /metrics: between them, each daily job ran once per market.
    let mut ran = BTreeMap::<&str, f64>::new();
    for worker in &workers {
        let text = scrape(&client, worker.metrics_addr.expect("the worker's /metrics")).await;
        for job in ["overdue", "records_retention"] {
            let n = sample(
                &text,
                "kilat_job_runs_total",
                &[&format!("job=\"{job}\""), "outcome=\"ran\""],
            )
            .unwrap_or(0.0);
            *ran.entry(job).or_default() += n;
        }
    }
    assert_eq!(
        ran,
        BTreeMap::from([("overdue", 2.0), ("records_retention", 2.0)]),
        "two markets each"
    );

    // The web servers hold the limits together: one phone, one code, whichever server each request reached.
    let sends = (0..20)
        .map(|n| {
            client
                .post(web[n % 2].url("/api/v1/borrower/login/sms-code"))
                .header("x-forwarded-for", format!("198.51.100.{}", n + 1))
                .json(&json!({"market": "IN", "phone": "9876512340"}))
        })
        .collect();
    assert_eq!(
        tally(&burst(sends).await),
        BTreeMap::from([("ok", 1), ("code_resend_too_soon", 19)])
    );
    db.close().await;
    for process in web.into_iter().chain(workers) {
        process.stop().await;
    }
}

#[tokio::test]
async fn metrics_count_requests_by_route_limits_refused_and_callbacks_on_their_own_address_only() {
    let app = spawn_app_with(|s| s.metrics.listen = "127.0.0.1:0".into()).await;
    let metrics = app.metrics_addr.expect("/metrics is bound");
    assert_ne!(metrics, app.addr);

    for _ in 0..3 {
        assert_eq!(app.get("/api/v1/site/settings").await.status(), 200);
    }
    assert_eq!(
        app.get("/api/v1/borrower/orders/KL-0000").await.status(),
        401
    );
    // The contact form's per-minute limit (5) refuses the sixth.
    for n in 0..6 {
        app.post_json(
            "/api/v1/site/contact-messages",
            &json!({"name": "Asha", "telephone": "98765 00001", "message": format!("Hello {n}")}),
        )
        .await;
    }
    // A callback whose signature is wrong.
    let refused = app
        .post_json(
            "/api/v1/webhooks/razorpay",
            &json!({"event": "payment.captured"}),
        )
        .await;
    assert!(refused.status().is_client_error(), "{}", refused.status());

    let text = scrape(&app.client, metrics).await;
    assert_eq!(
        sample(
            &text,
            "kilat_http_requests_total",
            &[
                "route=\"/api/v1/site/settings\"",
                "method=\"GET\"",
                "status=\"200\""
            ]
        ),
        Some(3.0),
        "{text}"
    );
    // The order number is not a label: the route's template is.
    assert!(!text.contains("KL-0000"), "{text}");
    assert!(
        sample(&text, "kilat_http_requests_total", &["status=\"401\""]).is_some(),
        "{text}"
    );
    assert!(
        sample(
            &text,
            "kilat_http_request_duration_seconds_count",
            &["route=\"/api/v1/site/settings\""]
        ) == Some(3.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "kilat_limits_refused_total",
            &["limit=\"contact_min\""]
        ),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            "kilat_callbacks_total",
            &["provider=\"razorpay\"", "outcome=\"refused\""]
        ),
        Some(1.0),
        "{text}"
    );
    assert!(
        sample(
            &text,
            "kilat_db_pool_connections",
            &["pool=\"shared\"", "state=\"open\""]
        )
        .is_some_and(|open| open >= 1.0),
        "{text}"
    );
    assert!(
        sample(&text, "kilat_db_pool_acquire_seconds_count", &[]).is_some_and(|n| n >= 1.0),
        "{text}"
    );

    // The public address does not serve it.
    let public = app.get("/metrics").await;
    let body = public.text().await.unwrap();
    assert!(!body.contains("kilat_http_requests_total"));
    app.stop().await;
}

#[test]
fn the_metrics_address_must_differ_from_the_public_one() {
    let mut settings = kilat_server::settings::Settings::load(None).unwrap();
    settings.listen = "127.0.0.1:8080".parse().unwrap();
    settings.metrics.listen = "127.0.0.1:8080".into();
    let err = settings.validate().unwrap_err().to_string();
    assert!(err.contains("KILAT_METRICS__LISTEN"), "{err}");
    settings.metrics.listen = "not an address".into();
    let err = settings.validate().unwrap_err().to_string();
    assert!(err.contains("host:port"), "{err}");
    settings.metrics.listen = String::new();
    settings.validate().unwrap();
}

#[tokio::test]
async fn a_request_id_is_kept_only_from_a_trusted_proxy_and_only_when_plain() {
    let id_of = |app: &crate::helpers::TestApp, sent: &'static str| {
        let request = app
            .client
            .get(app.url("/api/v1/site/settings"))
            .header("x-request-id", sent);
        async move {
            let response = request.send().await.unwrap();
            response.headers()["x-request-id"]
                .to_str()
                .unwrap()
                .to_owned()
        }
    };
    let direct = spawn_app_with(|_| {}).await;
    let ours = id_of(&direct, "lb-7f3a-0001").await;
    assert_ne!(ours, "lb-7f3a-0001", "a client's own id is not trusted");
    assert!(!ours.is_empty());
    direct.stop().await;

    let proxied = spawn_app_with(|s| s.trusted_proxy_hops = 1).await;
    assert_eq!(id_of(&proxied, "lb-7f3a-0001").await, "lb-7f3a-0001");
    let replaced = id_of(&proxied, "two words").await;
    assert_ne!(replaced, "two words", "an id with a space is replaced");
    proxied.stop().await;
}

/// A server without a metrics address installs no recorder, so the metrics calls on every request stay no-ops and keep
/// nothing (a recorder nobody scrapes had cost each request its labels and kept every sample). nextest runs each test
/// in a process of its own: the process's global recorder is this test's to find.
#[tokio::test]
async fn without_a_metrics_address_no_recorder_is_installed() {
    let app = crate::helpers::spawn_app().await;
    assert!(app.metrics_addr.is_none());
    // Requests that would be counted, one of them refused by a limit.
    assert_eq!(app.get("/api/v1/site/settings").await.status(), 200);
    for n in 0..6 {
        app.post_json(
            "/api/v1/site/contact-messages",
            &json!({"name": "Asha", "telephone": "98765 00001", "message": format!("Hello {n}")}),
        )
        .await;
    }
    assert!(
        metrics::set_global_recorder(metrics::NoopRecorder).is_ok(),
        "a recorder was installed without a metrics address"
    );
    app.stop().await;
}
