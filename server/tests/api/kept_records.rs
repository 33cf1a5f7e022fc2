//! The records-retention job (docs/ACCOUNT.md, "Retention"): a deleted account's loan records are purged on the
//! business date its market's retention after the relationship ended, and kept the day before; the end is the later
//! of the deletion and the last order's close; a live borrower's records are never touched; each purge is audited as
//! a system action and leaves no row naming the account, its orders, payments or complaints; runners and sweeps
//! started at once purge each account once.

use std::sync::Arc;

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use kilat_server::jobs::records_retention;
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::{Date, Duration, OffsetDateTime};

use crate::account::{borrower_with_closed_order, text_columns};
use crate::builders::{IN, Loan};
use crate::helpers::{TestApp, data, spawn_app};
use crate::servicing::{Op, operator, pay};

const PURGED: &str = "records.purged";
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn local_date(market: Market, ms: i64) -> Date {
    market
        .local_date(OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).unwrap())
}

/// Moves the clock so that Indonesia's business date is `date`. Not `TestApp::set_date`: that sets India's, and
/// Indonesia's is a day ahead of India's for part of every day (17:00 to 18:30 UTC), so its period would end a day off.
async fn set_indonesian_date(app: &TestApp, date: Date) {
    app.services
        .clock
        .set_business_date(Market::Indonesia, date)
        .expect("a test clock moves");
    assert_eq!(app.services.clock.today(Market::Indonesia), date);
}

async fn run(app: &TestApp, market: Market) -> records_retention::Report {
    let date = app.services.clock.today(market);
    records_retention::run(&app.services, market, date, "test")
        .await
        .expect("the job runs")
}

async fn file_complaint(app: &TestApp, session: &str, order_no: &str) {
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            session,
            &json!({"category": "charges", "orderNo": order_no, "description": "I was charged a fee twice."}),
        )
        .await;
    assert_eq!(filed.status(), StatusCode::CREATED);
}

async fn delete_account(app: &TestApp, session: &str) -> i64 {
    // The borrower took their data with them first: the export's limit row names the account too.
    let export = app.get_as("/api/v1/borrower/export", session).await;
    assert_eq!(export.status(), StatusCode::OK);
    let deleted = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    data(deleted).await["deletedAt"].as_i64().unwrap()
}

/// An Indian loan paid out and paid off by UPI with a UTR that finance confirmed, with a complaint about it:
/// (session, borrower id, order number). Orders, timeline, loan, payout, ledger, payment, UTR and audit entries.
async fn repaid_loan(
    app: &TestApp,
    finance: &Op,
    phone: &str,
    utr: &str,
) -> (String, String, String) {
    let Loan {
        session, order_no, ..
    } = app
        .borrower(IN)
        .phone(phone)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .finance(finance)
        .disbursed()
        .await;
    let key = format!("payoff-{phone}");
    let paid = pay(app, finance, &session, &order_no, "payoff", &key, utr).await;
    assert_eq!(paid["orderStatus"], "repaid");
    file_complaint(app, &session, &order_no).await;
    let id = app.borrower_id(&session).await;
    (session, id, order_no)
}

/// A certified borrower of `market` whose application was confirmed and withdrawn: (session, borrower id, order no).
async fn withdrawn_application(
    app: &TestApp,
    market: &str,
    phone: &str,
) -> (String, String, String) {
    let (session, order_no) = borrower_with_closed_order(app, market, phone).await;
    let id = app.borrower_id(&session).await;
    (session, id, order_no)
}

async fn strings(app: &TestApp, sql: &str, id: &str) -> Vec<String> {
    sqlx::query_scalar(sql)
        .bind(id)
        .fetch_all(app.db.pool())
        .await
        .unwrap()
}

/// Every identifier of what the account holds: its id, its orders' ids and numbers, payments' ids and references,
/// UTRs, ledger entries, complaints' ids and ticket numbers.
async fn identifiers(app: &TestApp, borrower_id: &str) -> Vec<String> {
    let mut out = vec![borrower_id.to_owned()];
    for sql in [
        "SELECT id FROM orders WHERE borrower_id = $1",
        "SELECT order_no FROM orders WHERE borrower_id = $1",
        "SELECT id FROM payments WHERE borrower_id = $1",
        "SELECT reference FROM payments WHERE borrower_id = $1",
        "SELECT u.utr FROM payment_utrs u JOIN payments p ON p.id = u.payment_id WHERE p.borrower_id = $1",
        "SELECT e.id FROM ledger_entries e JOIN orders o ON o.id = e.order_id WHERE o.borrower_id = $1",
        "SELECT id FROM complaints WHERE borrower_id = $1",
        "SELECT ticket_no FROM complaints WHERE borrower_id = $1",
    ] {
        out.extend(strings(app, sql, borrower_id).await);
    }
    out
}

/// Each (table.column, value) of any table where a stored value contains one of `needles`, but for the purge's own
/// audit entries.
async fn traces(app: &TestApp, needles: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for (table, column) in text_columns(app).await {
        let except = if table == "audit_log" {
            format!(" WHERE action <> '{PURGED}'")
        } else {
            String::new()
        };
        let values: Vec<(Option<String>,)> = sqlx::query_as(&format!(
            r#"SELECT CAST("{column}" AS TEXT) FROM "{table}"{except}"#
        ))
        .fetch_all(app.db.pool())
        .await
        .unwrap();
        for value in values.into_iter().filter_map(|(v,)| v) {
            for needle in needles.iter().filter(|n| value.contains(n.as_str())) {
                found.push(format!("{table}.{column} holds {needle}"));
            }
        }
    }
    found
}

/// How many rows of each kind the account has.
async fn holdings(app: &TestApp, borrower_id: &str) -> Vec<i64> {
    let mut out = Vec::new();
    for sql in [
        "SELECT COUNT(*) FROM borrowers WHERE id = $1",
        "SELECT COUNT(*) FROM orders WHERE borrower_id = $1",
        "SELECT COUNT(*) FROM order_events e JOIN orders o ON o.id = e.order_id WHERE o.borrower_id = $1",
        "SELECT COUNT(*) FROM ledger_entries e JOIN orders o ON o.id = e.order_id WHERE o.borrower_id = $1",
        "SELECT COUNT(*) FROM payments WHERE borrower_id = $1",
        "SELECT COUNT(*) FROM payment_utrs u JOIN payments p ON p.id = u.payment_id WHERE p.borrower_id = $1",
        "SELECT COUNT(*) FROM complaints WHERE borrower_id = $1",
        "SELECT COUNT(*) FROM audit_log a JOIN orders o ON a.entity = 'order' AND a.entity_id = o.id
         WHERE o.borrower_id = $1",
    ] {
        let (n,): (i64,) = sqlx::query_as(sql)
            .bind(borrower_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        out.push(n);
    }
    out
}

/// The purge's audit entries about the account: (actor kind, actor id, before JSON).
async fn purge_entries(app: &TestApp, borrower_id: &str) -> Vec<(String, Option<String>, Value)> {
    let rows: Vec<(String, Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT actor_kind, actor_id, before_json FROM audit_log
         WHERE action = $1 AND entity = 'borrower' AND entity_id = $2",
    )
    .bind(PURGED)
    .bind(borrower_id)
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    rows.into_iter()
        .map(|(kind, id, before)| (kind, id, serde_json::from_str(&before.unwrap()).unwrap()))
        .collect()
}

#[tokio::test]
async fn a_deleted_accounts_records_are_purged_on_the_day_the_period_ends_and_a_live_borrowers_are_kept()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (gone_session, gone, _) = repaid_loan(&app, &finance, "9876560001", "500000060001").await;
    let (_, live, live_order) = repaid_loan(&app, &finance, "9876560002", "500000060002").await;
    let (id_session, indonesian, id_order) =
        withdrawn_application(&app, "ID", "081298760003").await;
    file_complaint(&app, &id_session, &id_order).await;
    let deleted_at = delete_account(&app, &gone_session).await;
    let id_deleted_at = delete_account(&app, &id_session).await;

    let needles = identifiers(&app, &gone).await;
    let id_needles = identifiers(&app, &indonesian).await;
    assert!(needles.len() >= 9, "{needles:?}");
    // Before: the scan finds them (so it can fail).
    assert!(!traces(&app, &needles).await.is_empty());
    let gone_held = holdings(&app, &gone).await;
    let live_held = holdings(&app, &live).await;
    assert!(gone_held.iter().all(|n| *n > 0), "{gone_held:?}");
    assert!(live_held.iter().all(|n| *n > 0), "{live_held:?}");

    // The day before the period ends: nothing is purged in either market.
    let ended = local_date(Market::India, deleted_at);
    app.set_date(ended + Duration::days(1825)).await;
    let report = run(&app, Market::India).await;
    assert!(report.ran);
    assert_eq!(report.purged.borrowers, 0);
    assert_eq!(holdings(&app, &gone).await, gone_held);
    set_indonesian_date(
        &app,
        local_date(Market::Indonesia, id_deleted_at) + Duration::days(1825),
    )
    .await;
    assert_eq!(run(&app, Market::Indonesia).await.purged.borrowers, 0);
    assert!(purge_entries(&app, &indonesian).await.is_empty());

    // On the day: the deleted Indian account's records go, the live borrower's stay, Indonesia waits for its own run.
    app.set_date(ended + Duration::days(1827)).await;
    let report = run(&app, Market::India).await;
    assert!(report.ran);
    let purged = &report.purged;
    assert_eq!(
        (
            purged.borrowers,
            purged.orders,
            purged.payments,
            purged.utrs,
            purged.complaints
        ),
        (1, 1, 1, 1, 1)
    );
    assert_eq!(purged.ledger_entries, gone_held[3] as u64);
    assert!(purged.audit_entries >= gone_held[7] as u64, "{purged:?}");
    let left = traces(&app, &needles).await;
    assert!(left.is_empty(), "records left: {left:?}");
    assert_eq!(holdings(&app, &live).await, live_held);
    assert_eq!(holdings(&app, &indonesian).await[..2], [1, 1]);

    // Audited once, as the job, with no personal data: when the relationship ended and how many orders it had.
    let entries = purge_entries(&app, &gone).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    let (kind, actor, record) = &entries[0];
    assert_eq!(kind, "system");
    assert_eq!(actor.as_deref(), Some("records_retention"));
    assert_eq!(record["relationshipEndedAt"], deleted_at);
    assert_eq!(record["orders"], 1);
    assert_eq!(record["retentionDays"], 1827);
    assert_eq!(record["market"], "IN");

    // The date is claimed: a second run does nothing, and a sweep without the claim finds nothing more.
    assert!(!run(&app, Market::India).await.ran);
    let again = records_retention::sweep(
        &app.services,
        Market::India,
        app.services.clock.today(Market::India),
    )
    .await
    .unwrap();
    assert_eq!(again.borrowers, 0);
    assert_eq!(purge_entries(&app, &gone).await.len(), 1);

    // The live borrower signs in again (the old session expired with the years) and still has the loan.
    let session = app.sign_in("IN", "9876560002").await;
    let orders = data(app.get_as("/api/v1/borrower/orders", &session).await).await;
    assert_eq!(orders[0]["orderNo"], live_order.as_str(), "{orders}");
    let plan = app
        .get_as(
            &format!("/api/v1/borrower/orders/{live_order}/plan"),
            &session,
        )
        .await;
    assert_eq!(plan.status(), StatusCode::OK);

    // Indonesia's run on its own day purges the Indonesian account.
    set_indonesian_date(
        &app,
        local_date(Market::Indonesia, id_deleted_at) + Duration::days(1827),
    )
    .await;
    let report = run(&app, Market::Indonesia).await;
    assert_eq!((report.purged.borrowers, report.purged.complaints), (1, 1));
    assert!(traces(&app, &id_needles).await.is_empty());
    assert_eq!(purge_entries(&app, &indonesian).await.len(), 1);
    app.stop().await;
}

#[tokio::test]
async fn the_period_counts_from_the_last_orders_close_when_it_is_later_than_the_deletion() {
    let app = spawn_app().await;
    let (session, id, order_no) = withdrawn_application(&app, "IN", "9876560011").await;
    delete_account(&app, &session).await;
    // The account was deleted ten days before its order closed (records moved by hand: the app refuses a deletion
    // while an order is open, but a close dated later, a late refund say, must still count).
    let (closed_at,): (i64,) = sqlx::query_as("SELECT closed_at FROM orders WHERE order_no = $1")
        .bind(&order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    sqlx::query("UPDATE borrowers SET deleted_at = $1 WHERE id = $2")
        .bind(closed_at - 10 * DAY_MS)
        .bind(&id)
        .execute(app.db.pool())
        .await
        .unwrap();
    let closed = local_date(Market::India, closed_at);
    // Another deleted account whose order is open again (by hand: a deletion refuses an open order): never purged.
    let (open_session, open_id, _) = withdrawn_application(&app, "IN", "9876560012").await;
    delete_account(&app, &open_session).await;
    app.execute(&format!(
        "UPDATE orders SET closed_at = NULL WHERE borrower_id = '{open_id}'"
    ))
    .await;

    // Past the period from the deletion, not from the close: kept.
    app.set_date(closed + Duration::days(1825)).await;
    assert_eq!(run(&app, Market::India).await.purged.borrowers, 0);
    assert_eq!(holdings(&app, &id).await[..2], [1, 1]);

    app.set_date(closed + Duration::days(1827)).await;
    assert_eq!(run(&app, Market::India).await.purged.borrowers, 1);
    assert_eq!(holdings(&app, &id).await[..2], [0, 0]);
    let entries = purge_entries(&app, &id).await;
    assert_eq!(entries[0].2["relationshipEndedAt"], closed_at);
    app.set_date(closed + Duration::days(3000)).await;
    assert_eq!(run(&app, Market::India).await.purged.borrowers, 0);
    assert_eq!(holdings(&app, &open_id).await[..2], [1, 1]);
    app.stop().await;
}

#[tokio::test]
async fn sweeps_and_runners_started_at_once_purge_each_account_once() {
    let app = Arc::new(spawn_app().await);
    let mut deleted = Vec::new();
    let mut last = 0;
    for n in 0..5 {
        let (session, id, _) = withdrawn_application(&app, "IN", &format!("98765601{n:02}")).await;
        last = last.max(delete_account(&app, &session).await);
        deleted.push(id);
    }
    let (_, live, _) = withdrawn_application(&app, "IN", "9876560199").await;
    let live_held = holdings(&app, &live).await;
    app.set_date(local_date(Market::India, last) + Duration::days(1827))
        .await;
    let date = app.services.clock.today(Market::India);

    // Four sweeps without the claim, in pages of two: each account is purged and audited by exactly one of them.
    let mut sweeps = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let app = Arc::clone(&app);
        sweeps.spawn(async move {
            records_retention::sweep_in_pages(&app.services, Market::India, date, 2).await
        });
    }
    let mut total = 0;
    for sweep in sweeps.join_all().await {
        total += sweep.expect("a sweep succeeds").borrowers;
    }
    assert_eq!(total, 5);
    for id in &deleted {
        assert_eq!(purge_entries(&app, id).await.len(), 1, "{id}");
        assert_eq!(holdings(&app, id).await.iter().sum::<i64>(), 0, "{id}");
    }
    assert_eq!(holdings(&app, &live).await, live_held);

    // Four runners at once: one claims the date, and finds nothing left.
    let mut runs = tokio::task::JoinSet::new();
    for n in 0..4 {
        let app = Arc::clone(&app);
        runs.spawn(async move {
            records_retention::run(&app.services, Market::India, date, &format!("r{n}")).await
        });
    }
    let reports: Vec<_> = runs
        .join_all()
        .await
        .into_iter()
        .map(|r| r.expect("a run succeeds"))
        .collect();
    assert_eq!(reports.iter().filter(|r| r.ran).count(), 1, "{reports:?}");
    assert!(reports.iter().all(|r| r.purged.borrowers == 0));
    let (audits,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM audit_log WHERE action = $1")
        .bind(PURGED)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(audits, 5);
}

#[tokio::test]
async fn two_kilat_jobs_run_records_retention_processes_purge_once() {
    let app = spawn_app().await;
    let (session, id, _) = withdrawn_application(&app, "IN", "9876560201").await;
    delete_account(&app, &session).await;
    // The processes run on the real date: the records are aged by hand instead, to six years ago.
    let years = 6 * 366 * DAY_MS;
    app.execute(&format!(
        "UPDATE orders SET closed_at = closed_at - {years}, created_at = created_at - {years} WHERE borrower_id = '{id}'"
    ))
    .await;
    app.execute(&format!(
        "UPDATE borrowers SET deleted_at = deleted_at - {years} WHERE id = '{id}'"
    ))
    .await;
    let spawn = || {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_kilat"))
            .args(["jobs", "run", "records-retention", "--market", "IN"])
            .env("KILAT_DATABASE_URL", &app.database_url)
            .env("KILAT_LOG__FORMAT", "json")
            .env_remove("KILAT_CONFIG")
            .output()
    };
    let (a, b) = tokio::join!(spawn(), spawn());
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let (a, b) = (
        String::from_utf8_lossy(&a.stdout).into_owned(),
        String::from_utf8_lossy(&b.stdout).into_owned(),
    );
    let ran = [&a, &b]
        .iter()
        .filter(|o| o.contains("1 accounts purged (1 orders"))
        .count();
    let skipped = [&a, &b]
        .iter()
        .filter(|o| o.contains("already run"))
        .count();
    assert_eq!((ran, skipped), (1, 1), "{a}\n{b}");
    assert_eq!(holdings(&app, &id).await.iter().sum::<i64>(), 0);
    assert_eq!(purge_entries(&app, &id).await.len(), 1);
    app.stop().await;
}

/// The tables no statement removes rows from (an operator is deactivated, a statement mapping replaced): a foreign key
/// onto them is never checked on a delete, and its columns need no index for it.
const NEVER_REMOVED: [&str; 2] = ["operators", "statement_mappings"];

/// Every foreign key as (table, the table it names, its columns).
async fn foreign_keys(app: &TestApp) -> Vec<(String, String, Vec<String>)> {
    if app.db.is_sqlite() {
        let mut keys = Vec::new();
        for table in tables(app).await {
            let columns: Vec<(i64, String, String)> = sqlx::query_as(&format!(
                r#"SELECT id, "table", "from" FROM pragma_foreign_key_list('{table}') ORDER BY id, seq"#
            ))
            .fetch_all(app.db.pool())
            .await
            .unwrap();
            let mut by_key: std::collections::BTreeMap<i64, (String, Vec<String>)> =
                std::collections::BTreeMap::new();
            for (id, parent, column) in columns {
                by_key
                    .entry(id)
                    .or_insert((parent, Vec::new()))
                    .1
                    .push(column);
            }
            keys.extend(
                by_key
                    .into_values()
                    .map(|(parent, columns)| (table.clone(), parent, columns)),
            );
        }
        return keys;
    }
    // The pool speaks `Any`, which has no arrays: the columns come as one comma-separated text.
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text,
                array_to_string(ARRAY(SELECT a.attname::text
                      FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n)
                      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n), ',')
         FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace
         WHERE c.contype = 'f' AND s.nspname = current_schema()",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    rows.into_iter()
        .map(|(table, parent, columns)| (table, parent, split(&columns)))
        .collect()
}

fn split(columns: &str) -> Vec<String> {
    columns.split(',').map(str::to_owned).collect()
}

/// Every index (unique constraints' and primary keys' too) as (table, its columns in order; an expression's place,
/// as migration 0051's family index has, reads `(expression)`).
async fn indexes(app: &TestApp) -> Vec<(String, Vec<String>)> {
    if app.db.is_sqlite() {
        let mut out = Vec::new();
        for table in tables(app).await {
            let names: Vec<(String,)> =
                sqlx::query_as(&format!("SELECT name FROM pragma_index_list('{table}')"))
                    .fetch_all(app.db.pool())
                    .await
                    .unwrap();
            for (index,) in names {
                let columns: Vec<(String,)> = sqlx::query_as(&format!(
                    "SELECT COALESCE(name, '(expression)') FROM pragma_index_info('{index}') ORDER BY seqno"
                ))
                .fetch_all(app.db.pool())
                .await
                .unwrap();
                out.push((table.clone(), columns.into_iter().map(|(c,)| c).collect()));
            }
        }
        return out;
    }
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT i.indrelid::regclass::text,
                array_to_string(ARRAY(SELECT COALESCE(a.attname::text, '(expression)')
                      FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                      LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.n), ',')
         FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace s ON s.oid = t.relnamespace
         WHERE s.nspname = current_schema()",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    rows.into_iter()
        .map(|(table, columns)| (table, split(&columns)))
        .collect()
}

async fn tables(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name NOT LIKE '_sqlx%'",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap()
}

/// Removing a row makes the database look for the rows whose foreign keys name it, on both databases. Without an index
/// leading with the key's columns each removed borrower, order or payment scans the whole referencing table: the
/// purge of a page of deleted accounts scanned every ledger entry once per payment, and a borrower's own deletion every
/// reminder ever queued (docs/PERFORMANCE.md). So every foreign key onto a table rows are removed from has one, and
/// the store removes nothing from the tables that are exempt.
#[tokio::test]
async fn every_foreign_key_onto_rows_that_are_removed_has_an_index_leading_with_its_columns() {
    let app = spawn_app().await;
    let keys = foreign_keys(&app).await;
    let indexes = indexes(&app).await;
    assert!(
        keys.len() > 30,
        "the catalog lists the foreign keys: {keys:?}"
    );
    let leads = |table: &str, columns: &[String]| {
        indexes.iter().any(|(t, ic)| {
            t == table && ic.len() >= columns.len() && {
                let mut lead = ic[..columns.len()].to_vec();
                let mut want = columns.to_vec();
                lead.sort();
                want.sort();
                lead == want
            }
        })
    };
    let unindexed: Vec<_> = keys
        .iter()
        .filter(|(table, parent, columns)| {
            !NEVER_REMOVED.contains(&parent.as_str()) && !leads(table, columns)
        })
        .collect();
    assert!(
        unindexed.is_empty(),
        "foreign keys onto rows that are removed, with no index leading with their columns: {unindexed:?}"
    );
    let store = concat!(env!("CARGO_MANIFEST_DIR"), "/src/store");
    for entry in std::fs::read_dir(store).unwrap() {
        let path = entry.unwrap().path();
        let source = std::fs::read_to_string(&path).unwrap();
        for table in NEVER_REMOVED {
            assert!(
                !source.contains(&format!("DELETE FROM {table}")),
                "{} removes rows from {table}: index the foreign keys onto it",
                path.display()
            );
        }
    }
    app.stop().await;
}

/// Records money taken back from the borrower's payment (a chargeback) as the provider's callback does: a `reversed`
/// item for finance naming the payment, unsettled. Its id.
async fn money_taken_back(app: &TestApp, borrower_id: &str, event: &str) -> String {
    let (payment_id, reference): (String, String) =
        sqlx::query_as("SELECT id, reference FROM payments WHERE borrower_id = $1")
            .bind(borrower_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    let id = format!("ur-{event}");
    app.execute(&format!(
        "INSERT INTO unmatched_receipts (id, provider, event_id, market, reference, provider_payment_id, amount,
             currency, sent_at, received_at, kind, payment_id)
         VALUES ('{id}', 'razorpay', '{event}', 'IN', '{reference}', 'pay_{event}', 100, 'INR', NULL, 1,
             'reversed', '{payment_id}')"
    ))
    .await;
    id
}

/// Money taken back after it was credited (a chargeback) and not yet settled by finance keeps the account: its
/// deletion is refused until finance settles it, and one taken back after the deletion keeps the records past their
/// period until it is settled; then they are purged with the settled item.
#[tokio::test]
async fn money_taken_back_and_unsettled_keeps_the_account_and_its_records() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, gone, _) = repaid_loan(&app, &finance, "9876560031", "500000060031").await;
    let first = money_taken_back(&app, &gone, "chargeback-1").await;
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(data_code(refused).await, "payment_unsettled");
    app.execute(&format!(
        "UPDATE unmatched_receipts SET resolved_at = 2, resolved_by = 'fin', resolution = 'Collected again.'
         WHERE id = '{first}'"
    ))
    .await;
    let deleted_at = delete_account(&app, &session).await;
    // A second chargeback after the deletion.
    let second = money_taken_back(&app, &gone, "chargeback-2").await;
    let needles = identifiers(&app, &gone).await;

    let ended = local_date(Market::India, deleted_at);
    app.set_date(ended + Duration::days(1827)).await;
    assert_eq!(run(&app, Market::India).await.purged.borrowers, 0);
    assert_eq!(holdings(&app, &gone).await[0], 1);
    app.execute(&format!(
        "UPDATE unmatched_receipts SET resolved_at = 3, resolved_by = 'fin', resolution = 'Written off.'
         WHERE id = '{second}'"
    ))
    .await;
    app.set_date(ended + Duration::days(1828)).await;
    assert_eq!(run(&app, Market::India).await.purged.borrowers, 1);
    let left = traces(&app, &needles).await;
    assert!(left.is_empty(), "records left: {left:?}");
    app.stop().await;
}

async fn data_code(response: reqwest::Response) -> String {
    let body: Value = response.json().await.unwrap();
    body["code"].as_str().unwrap().to_owned()
}
