//! `kilat dev seed` (issue 20 item 1): the book it writes is one every reader of the real thing reads — phones and
//! certification that decrypt, fingerprints that find a duplicate, loans whose stored arrears date is their ledger's,
//! every status and every overdue bucket — and the console's queues answer on it. And `kilat dev seed-loans`' borrowers
//! have phones of their own that the collections queue shows (it answered 500 on them before).

use kilat_domain::{Code, Market, Plan, replay};
use kilat_server::auth::operators::Role;
use kilat_server::auth::unseal_phone;
use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{TestApp, data, spawn_app};
use crate::servicing::{Op, op_call, operator};

async fn get(app: &TestApp, op: &Op, path: &str) -> Value {
    let response = op_call(app, op, Method::GET, path, None).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    data(response).await
}

#[tokio::test]
async fn the_seeded_book_is_read_by_every_queue_as_a_real_one() {
    let app = spawn_app().await;
    let seeded = kilat_server::jobs::dataset::seed(&app.services, &app.catalog, 1_000, 2_500, 700)
        .await
        .unwrap();
    assert_eq!((seeded.borrowers, seeded.orders), (1_000, 2_500));
    let pool = app.db.pool();

    // Every status, at most one open order per borrower, the older orders closed.
    let statuses: Vec<(String, i64)> =
        sqlx::query_as("SELECT status, COUNT(*) FROM orders GROUP BY status ORDER BY status")
            .fetch_all(pool)
            .await
            .unwrap();
    let names: Vec<&str> = statuses.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        names,
        [
            "approved",
            "cancelled",
            "disbursed",
            "overdue",
            "pending_review",
            "rejected",
            "repaid"
        ]
    );
    assert_eq!(statuses.iter().map(|(_, n)| n).sum::<i64>(), 2_500);
    let open: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM orders WHERE closed_at IS NULL")
        .fetch_one(pool)
        .await
        .unwrap();
    let open_borrowers: i64 = sqlx::query_scalar(
        "SELECT COUNT(DISTINCT borrower_id) FROM orders WHERE closed_at IS NULL",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(open, open_borrowers);
    assert!(open <= 1_000);

    // Written oldest first, as a live book appends them: written in the staging's order, a queue's newest rows lay
    // across the whole table (docs/PERFORMANCE.md, the console's queues at scale). SQLite's row ids are the order of
    // the inserts: each order was created no earlier than the one before. PostgreSQL places a row in an earlier
    // page's free space when it fits there, so its row positions are not that order; each batch is a transaction of
    // its own, and every order of a batch was created no earlier than every order of the batches before.
    let spans: Vec<(i64, i64)> = if app.db.is_sqlite() {
        sqlx::query_scalar(
            "SELECT created_at FROM orders WHERE order_no LIKE 'KL-SD%' ORDER BY rowid",
        )
        .fetch_all(pool)
        .await
        .unwrap()
        .into_iter()
        .map(|t: i64| (t, t))
        .collect()
    } else {
        sqlx::query_as(
            "SELECT MIN(created_at), MAX(created_at)
             FROM (SELECT CAST(CAST(xmin AS TEXT) AS BIGINT) AS tx, created_at FROM orders
                   WHERE order_no LIKE 'KL-SD%') o
             GROUP BY tx ORDER BY tx",
        )
        .fetch_all(pool)
        .await
        .unwrap()
    };
    assert_eq!(spans.len(), if app.db.is_sqlite() { 2_500 } else { 4 });
    let out_of_order = spans.windows(2).filter(|w| w[1].0 < w[0].1).count();
    assert_eq!(out_of_order, 0, "orders written out of creation order");

    // Phones and certification decrypt under their own borrower's binding.
    let rows: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT id, market, phone_enc, phone_masked FROM borrowers ORDER BY id LIMIT 20",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    for (id, market, phone_enc, phone_masked) in rows {
        let market = Market::from_code(&market).unwrap();
        let phone = unseal_phone(&app.secrets, &id, market, &phone_enc).unwrap();
        assert_eq!(phone.masked(), phone_masked);
    }
    // Each job step carries its income verdict against its market's minimum (the seed's incomes all meet it), and no
    // other step does.
    let (jobs, judged, others): (i64, i64, i64) = sqlx::query_as(
        "SELECT SUM(CASE WHEN c.step = 'job' THEN 1 ELSE 0 END),
           SUM(CASE WHEN c.step = 'job' AND c.income_below = 0
             AND c.income_minimum = CASE b.market WHEN 'IN' THEN 1200000 WHEN 'ID' THEN 500000000 END THEN 1 ELSE 0 END),
           SUM(CASE WHEN c.step <> 'job' AND (c.income_minimum IS NOT NULL OR c.income_below IS NOT NULL) THEN 1 ELSE 0 END)
         FROM certification_steps c JOIN borrowers b ON b.id = c.borrower_id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert!(jobs >= 1_000, "{jobs} job steps");
    assert_eq!((judged, others), (jobs, 0));
    // A duplicate NIK: one borrower in a thousand shares the one before's.
    let shared: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM (SELECT hash FROM borrower_fingerprints WHERE kind = 'id'
             GROUP BY hash HAVING COUNT(*) > 1) d",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(shared, 1);

    // Each loan's stored arrears date is its ledger's; a repaid loan owes nothing.
    let loans: Vec<(String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT o.id, o.status, l.plan_json, a.oldest_unpaid_due FROM orders o JOIN loans l ON l.order_id = o.id
         JOIN loan_arrears a ON a.order_id = o.id",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    assert!(loans.len() > 1_000);
    for (id, status, plan_json, due) in &loans {
        let plan: Plan = serde_json::from_str(plan_json).unwrap();
        let entries: Vec<_> = app
            .db
            .ledger(id)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.entry)
            .collect();
        let balances = replay(&plan, &entries).unwrap();
        let replayed = kilat_server::ledger::arrears_date(&balances)
            .map(kilat_server::store::loans::date_code);
        assert_eq!(&replayed, due, "{id} ({status})");
        assert_eq!(status == "repaid", balances.outstanding.is_zero(), "{id}");
    }

    let op = operator(
        &app,
        "ops",
        &[Role::Reviewer, Role::Finance, Role::Collections],
    )
    .await;
    // The review queue: masked phones, no decryption.
    let review = get(&app, &op, "/api/v1/console/applications?market=IN").await;
    let review = review.as_array().unwrap();
    assert!(!review.is_empty());
    assert!(
        review
            .iter()
            .all(|r| r["phoneMasked"].as_str().unwrap().starts_with("+91"))
    );
    // The payout list: every beneficiary in full, each view audited.
    let payouts = get(&app, &op, "/api/v1/console/payouts?market=IN").await;
    let payouts = payouts.as_array().unwrap();
    assert!(!payouts.is_empty());
    for p in payouts {
        assert!(
            p["beneficiary"]["accountNumber"]
                .as_str()
                .unwrap()
                .starts_with("50")
        );
        assert_eq!(p["beneficiary"]["bankName"], "HDFC Bank");
    }
    let audited: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'view_unmasked' AND after_json LIKE '%payouts%'",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    assert_eq!(audited, payouts.len() as i64);
    // The repayments queue: every waiting UTR payment with its loan's outstanding amount.
    let waiting: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM payments WHERE status = 'verifying'")
            .fetch_one(pool)
            .await
            .unwrap();
    let queue = get(&app, &op, "/api/v1/console/payments").await;
    let queue = queue.as_array().unwrap();
    assert_eq!(queue.len() as i64, waiting);
    assert!(waiting > 0);
    assert!(queue.iter().all(|q| q["outstanding"].as_i64().unwrap() > 0));
    // The overdue queue: every bucket, phones masked.
    let overdue = get(&app, &op, "/api/v1/console/collections?market=IN").await;
    for bucket in ["1-7", "8-30", "31-60", "61-90", "90+"] {
        assert!(
            overdue["counts"][bucket].as_i64().unwrap() > 0,
            "{bucket}: {overdue}"
        );
    }
    let items = overdue["items"].as_array().unwrap();
    assert!(!items.is_empty());
    assert!(
        items
            .iter()
            .all(|i| i["phoneMasked"].as_str().unwrap().starts_with("+91"))
    );
    // The order view of one order of each status.
    for (status, _) in &statuses {
        let order_no: String = sqlx::query_scalar(
            "SELECT order_no FROM orders WHERE status = $1 ORDER BY order_no LIMIT 1",
        )
        .bind(status)
        .fetch_one(pool)
        .await
        .unwrap();
        get(&app, &op, &format!("/api/v1/console/orders/{order_no}")).await;
    }
}

#[tokio::test]
async fn the_overdue_benchmarks_borrowers_have_their_own_phones_in_the_collections_queue() {
    let app = spawn_app().await;
    kilat_server::jobs::seed::open_loans(
        &app.services,
        &app.catalog.get(Market::India, "in-flexi-6m").unwrap(),
        2_000_000,
        "m6",
        time::macros::date!(2026 - 01 - 01),
        30,
    )
    .await
    .unwrap();
    let rows: Vec<(String, String, String)> =
        sqlx::query_as("SELECT id, phone_enc, phone_masked FROM borrowers ORDER BY id")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert_eq!(rows.len(), 30);
    let mut phones = std::collections::HashSet::new();
    for (id, phone_enc, phone_masked) in &rows {
        let phone = unseal_phone(&app.secrets, id, Market::India, phone_enc).unwrap();
        assert_eq!(&phone.masked(), phone_masked);
        phones.insert(phone.e164().to_owned());
    }
    assert_eq!(phones.len(), 30);
    let op = operator(&app, "agent", &[Role::Collections]).await;
    let overdue = get(
        &app,
        &op,
        "/api/v1/console/collections?market=IN&pageSize=50",
    )
    .await;
    let items = overdue["items"].as_array().unwrap();
    assert_eq!(items.len(), 30);
    assert!(
        items
            .iter()
            .all(|i| i["phoneMasked"].as_str().unwrap().starts_with("+91"))
    );
}

/// At the book's scale the planner's estimates grow until PostgreSQL would compile kilat's key lookups on every
/// execution: at 3,000,000 borrowers home's statement cost 224,000 and took 16.8 ms, nearly all of it compiling
/// (docs/PERFORMANCE.md). kilat's connections turn JIT off whatever the server's setting
/// (`store::POSTGRES_SESSION`).
#[tokio::test]
async fn kilats_postgresql_connections_run_without_jit() {
    let app = spawn_app().await;
    if app.db.is_sqlite() {
        app.stop().await;
        return;
    }
    let (jit,): (String,) = sqlx::query_as("SHOW jit")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(jit, "off");
    app.stop().await;
}
