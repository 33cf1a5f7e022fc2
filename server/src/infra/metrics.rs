//! Metrics in the Prometheus text format: recorded with the `metrics` crate's macros where things happen (the HTTP
//! edge, the jobs, the callbacks, the limiter, the providers' calls) and rendered by `metrics-exporter-prometheus` for
//! `GET /metrics` on a listener of its own (`[metrics] listen`), never on the public address.
//!
//! The names, one place for all of them (docs/OPERATIONS.md lists them with their labels):
//! - `kilat_http_requests_total{route,method,status}` and `kilat_http_request_duration_seconds{route,method}`: the API
//!   and the probes by matched route (a path template, so an order number never becomes a label);
//! - `kilat_db_pool_connections{pool,state}`: the shared pool's open and idle connections, read at each scrape;
//!   `kilat_db_pool_acquire_seconds`: the wait for a connection of the shared pool;
//! - `kilat_job_runs_total{job,outcome}` and `kilat_job_duration_seconds{job}`: each job's runs (ran, skipped when
//!   another runner had it, failed);
//! - `kilat_provider_calls_total{provider,call,outcome}` and `kilat_provider_call_duration_seconds{provider,call}`;
//! - `kilat_callbacks_total{provider,outcome}`: the payment providers' callbacks by what they did;
//!   `kilat_callback_batches_total{result}`: batches of callbacks credited together (`committed`, or `failed` and
//!   left to one at a time) and `kilat_callbacks_batched_total`: the callbacks those committed credited;
//! - `kilat_limits_refused_total{limit}`: requests refused by a limit.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Duration;

use metrics::{Counter, Histogram};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};

pub const HTTP_REQUESTS: &str = "kilat_http_requests_total";
pub const HTTP_DURATION: &str = "kilat_http_request_duration_seconds";
pub const DB_POOL_CONNECTIONS: &str = "kilat_db_pool_connections";
pub const DB_POOL_ACQUIRE: &str = "kilat_db_pool_acquire_seconds";
pub const JOB_RUNS: &str = "kilat_job_runs_total";
pub const JOB_DURATION: &str = "kilat_job_duration_seconds";
pub const PROVIDER_CALLS: &str = "kilat_provider_calls_total";
pub const PROVIDER_DURATION: &str = "kilat_provider_call_duration_seconds";
pub const CALLBACKS: &str = "kilat_callbacks_total";
pub const CALLBACK_BATCHES: &str = "kilat_callback_batches_total";
pub const CALLBACKS_BATCHED: &str = "kilat_callbacks_batched_total";
pub const LIMITS_REFUSED: &str = "kilat_limits_refused_total";

/// Latency buckets in seconds, from a cached read (1 ms) to a slow job (5 min).
const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0,
];

/// How often the recorder folds the samples recorded since into its histograms' buckets (see [`install`]).
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process's recorder (once: a second server in the same process, as the tests run, shares it) and
/// returns the handle that renders it. The recorder keeps every histogram sample until its next upkeep folds them
/// into the buckets: a thread of its own runs that every [`UPKEEP_EVERY`], so memory stays bounded between scrapes
/// (without it, samples piled up for as long as nobody scraped: 6.8 MB more resident after the borrower
/// benchmark's SQLite rounds).
pub fn install() -> &'static PrometheusHandle {
    HANDLE.get_or_init(|| {
        let recorder = PrometheusBuilder::new()
            .set_buckets(BUCKETS)
            .expect("the buckets are not empty")
            .build_recorder();
        let handle = recorder.handle();
        let upkeep = handle.clone();
        if let Err(err) = std::thread::Builder::new()
            .name("kilat-metrics-upkeep".to_owned())
            .spawn(move || {
                loop {
                    std::thread::sleep(UPKEEP_EVERY);
                    upkeep.run_upkeep();
                }
            })
        {
            tracing::error!(%err, "cannot start the metrics' upkeep: histograms grow until scraped");
        }
        // Another recorder installed first (a library's test harness): its metrics go there, and this handle renders
        // an empty page rather than failing the start.
        if metrics::set_global_recorder(recorder).is_err() {
            tracing::warn!("a metrics recorder was already installed; /metrics shows only what this one records");
        }
        handle
    })
}

/// The text a scrape gets.
pub fn render() -> String {
    install().render()
}

/// Most (method, status, route) handles an HTTP worker keeps: routes are path templates, so far fewer exist; past
/// it the cache starts again rather than grow.
const HTTP_HANDLES_MOST: usize = 1024;

/// A thread's handles of the request metrics, by "METHOD STATUS ROUTE", with the buffer that key is written in: a
/// request finds its counter and histogram without allocating or going through the recorder's registry.
#[derive(Default)]
struct HttpHandles {
    key: String,
    by_key: HashMap<Box<str>, (Histogram, Counter)>,
}

thread_local! {
    static HTTP_HANDLES: RefCell<HttpHandles> = RefCell::default();
}

/// Counts and times an API request by its route (the path template), method and status.
pub fn http_request(route: &str, method: &str, status: u16, took: Duration) {
    HTTP_HANDLES.with(|cell| {
        let HttpHandles {
            key,
            by_key: handles,
        } = &mut *cell.borrow_mut();
        key.clear();
        let _ = write!(key, "{method} {status} {route}");
        if !handles.contains_key(key.as_str()) {
            if handles.len() >= HTTP_HANDLES_MOST {
                handles.clear();
            }
            let (route, method) = (route.to_owned(), method.to_owned());
            let histogram =
                metrics::histogram!(HTTP_DURATION, "route" => route.clone(), "method" => method.clone());
            let counter = metrics::counter!(HTTP_REQUESTS, "route" => route, "method" => method,
                "status" => status.to_string());
            handles.insert(key.as_str().into(), (histogram, counter));
        }
        if let Some((histogram, counter)) = handles.get(key.as_str()) {
            histogram.record(took.as_secs_f64());
            counter.increment(1);
        }
    });
}

/// Records a job's run: `outcome` is `ran`, `skipped` (another runner had it, or nothing to do) or `failed`.
pub fn job_run(job: &'static str, outcome: &'static str, took: Duration) {
    metrics::counter!(JOB_RUNS, "job" => job, "outcome" => outcome).increment(1);
    if outcome != "skipped" {
        metrics::histogram!(JOB_DURATION, "job" => job).record(took.as_secs_f64());
    }
}

/// Records a call to an outside party (an SMS gateway, a payment provider).
pub fn provider_call(provider: &'static str, call: &'static str, ok: bool, took: Duration) {
    let outcome = if ok { "ok" } else { "error" };
    metrics::counter!(PROVIDER_CALLS, "provider" => provider, "call" => call, "outcome" => outcome)
        .increment(1);
    metrics::histogram!(PROVIDER_DURATION, "provider" => provider, "call" => call)
        .record(took.as_secs_f64());
}

/// Records a payment provider's callback by what it did (`credited`, `duplicate`, `held`, …, or `refused` when its
/// signature or body was refused).
pub fn callback(provider: &'static str, outcome: &'static str) {
    metrics::counter!(CALLBACKS, "provider" => provider, "outcome" => outcome).increment(1);
}

/// Records a batch of callbacks credited together: `credited` of them when it committed, none when it failed (each
/// then taken on its own).
pub fn callback_batch(committed: bool, credited: usize) {
    let result = if committed { "committed" } else { "failed" };
    metrics::counter!(CALLBACK_BATCHES, "result" => result).increment(1);
    metrics::counter!(CALLBACKS_BATCHED).increment(credited as u64);
}

/// Records a request refused by a limit.
pub fn limit_refused(limit: &'static str) {
    metrics::counter!(LIMITS_REFUSED, "limit" => limit).increment(1);
}

/// Records the wait for a connection of the shared pool.
pub fn pool_acquired(took: Duration) {
    metrics::histogram!(DB_POOL_ACQUIRE).record(took.as_secs_f64());
}

/// Sets the shared pool's gauges (read at each scrape).
pub fn pool_state(open: u32, idle: usize) {
    metrics::gauge!(DB_POOL_CONNECTIONS, "pool" => "shared", "state" => "open").set(open as f64);
    metrics::gauge!(DB_POOL_CONNECTIONS, "pool" => "shared", "state" => "idle").set(idle as f64);
}
