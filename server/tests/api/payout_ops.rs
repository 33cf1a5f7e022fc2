//! Payout operations (issue 18, items 1 and 3): the beneficiary shown to finance in full (each view audited), the bank
//! bulk payment file of both markets, the bank's result file imported line by line, maker-checker above the market's
//! threshold (a burst of approvals starts the loan once), and the month-end exports with their role checks.

use std::sync::Arc;

use kilat_server::auth::operators::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::builders::{Application, ID, IN, Loan};
use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_with};
use crate::servicing::{
    Op, bank_reference_of, confirm, count, create_payment, disburse, op_call, operator, status_of,
    submit_utr,
};

/// An order's net payout in minor units: the figure the bank file, the result file and the exports must show.
async fn net_of(app: &TestApp, order_id: &str) -> i64 {
    let (net,): (i64,) = sqlx::query_as("SELECT net_disbursed FROM orders WHERE id = $1")
        .bind(order_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    net
}

async fn get(app: &TestApp, op: &Op, path: &str) -> reqwest::Response {
    op_call(app, op, Method::GET, path, None).await
}

async fn import(app: &TestApp, op: &Op, market: &str, content: &str) -> reqwest::Response {
    op_call(
        app,
        op,
        Method::POST,
        "/api/v1/console/payouts/bank-result",
        Some(json!({"market": market, "content": content})),
    )
    .await
}

async fn record(app: &TestApp, op: &Op, order_no: &str, reference: &str) -> reqwest::Response {
    op_call(
        app,
        op,
        Method::POST,
        &format!("/api/v1/console/orders/{order_no}/disburse"),
        Some(json!({"bankReference": reference})),
    )
    .await
}

async fn approve(app: &TestApp, op: &Op, order_no: &str) -> reqwest::Response {
    op_call(
        app,
        op,
        Method::POST,
        &format!("/api/v1/console/orders/{order_no}/payout/approve"),
        None,
    )
    .await
}

async fn audits_of(app: &TestApp, action: &str, order_id: &str) -> i64 {
    count(
        app,
        &format!("SELECT COUNT(*) FROM audit_log WHERE action = '{action}' AND entity_id = $1"),
        order_id,
    )
    .await
}

/// The `after_json` of each audit entry of `action`, oldest first.
async fn audit_after(app: &TestApp, action: &str) -> Vec<String> {
    let rows: Vec<(Option<String>,)> =
        sqlx::query_as("SELECT after_json FROM audit_log WHERE action = $1 ORDER BY at, id")
            .bind(action)
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    rows.into_iter().map(|(a,)| a.unwrap_or_default()).collect()
}

/// The rows of a CSV answer (the server writes no quoted line breaks in these files).
fn rows(csv: &str) -> Vec<Vec<String>> {
    csv.split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect()
}

#[tokio::test]
async fn finance_sees_the_beneficiary_in_full_in_the_list_and_the_order_and_every_view_is_audited()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let support = operator(&app, "sup", &[Role::Support]).await;
    let Application {
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .name("Asha Verma")
        .loan("in-flexi-6m", 2_000_000, "m6")
        .approved()
        .await;
    let net = net_of(&app, &id).await;
    let Application {
        order_id: id_id, ..
    } = app
        .borrower(ID)
        .loan("id-kilat-30", 300_000_000, "14d")
        .approved()
        .await;

    let list = data(get(&app, &finance, "/api/v1/console/payouts?market=IN").await).await;
    let entry = &list.as_array().unwrap()[0];
    assert_eq!(entry["orderNo"], order_no);
    assert_eq!(entry["netDisbursed"], net);
    assert_eq!(entry["needsApproval"], false);
    assert_eq!(entry["pendingPayout"], Value::Null);
    let b = &entry["beneficiary"];
    assert_eq!(b["name"], "Asha Verma");
    assert_eq!(b["bankName"], "HDFC Bank");
    assert_eq!(b["bankCode"], "HDFC");
    assert_eq!(b["accountNumber"], "501001234567");
    assert_eq!(b["ifsc"], "HDFC0001234");
    assert_eq!(audits_of(&app, "view_unmasked", &id).await, 1);

    // Indonesia: the bank's name from the reference data, not its code; no IFSC.
    let list = data(get(&app, &finance, "/api/v1/console/payouts?market=ID").await).await;
    let b = &list[0]["beneficiary"];
    assert_eq!(b["bankName"], "BCA (Bank Central Asia)");
    assert_eq!(b["bankCode"], "014");
    assert_eq!(b["accountNumber"], "1234567890");
    assert_eq!(b["ifsc"], Value::Null);
    assert_eq!(audits_of(&app, "view_unmasked", &id_id).await, 1);

    let view = data(
        get(
            &app,
            &finance,
            &format!("/api/v1/console/orders/{order_no}"),
        )
        .await,
    )
    .await;
    assert_eq!(view["beneficiary"]["accountNumber"], "501001234567");
    assert_eq!(
        view["unmasked"], false,
        "the certification stays masked for finance"
    );
    assert_eq!(audits_of(&app, "view_unmasked", &id).await, 2);
    let (actor, after): (String, String) = sqlx::query_as(
        "SELECT actor_id, after_json FROM audit_log WHERE action = 'view_unmasked' AND entity_id = $1
         ORDER BY at DESC, id DESC LIMIT 1",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert!(after.contains("beneficiary"), "{after}");
    assert!(!actor.is_empty());

    // Support sees the order without the beneficiary, and nothing is audited as unmasked.
    let view = data(
        get(
            &app,
            &support,
            &format!("/api/v1/console/orders/{order_no}"),
        )
        .await,
    )
    .await;
    assert_eq!(view["beneficiary"], Value::Null);
    assert_eq!(audits_of(&app, "view_unmasked", &id).await, 2);
    assert_eq!(
        get(&app, &support, "/api/v1/console/payouts?market=IN")
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    app.stop().await;
}

#[tokio::test]
async fn the_bank_file_lists_each_market_s_unpaid_loans_with_exact_amounts_safe_cells_and_an_audit()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let Application {
        order_no: a_no,
        order_id: a_id,
        ..
    } = app
        .borrower(IN)
        .name("Asha Verma")
        .loan("in-flexi-6m", 2_000_000, "m6")
        .approved()
        .await;
    let a_net = net_of(&app, &a_id).await;
    // A name a spreadsheet would run as a formula: the name rule takes letters, spaces and . ' - only, and a leading
    // `-` is one.
    let Application {
        order_no: b_no,
        order_id: b_id,
        ..
    } = app
        .borrower(IN)
        .name("-Ravi Kumar")
        .loan("in-flexi-6m", 1_500_000, "m6")
        .approved()
        .await;
    let b_net = net_of(&app, &b_id).await;
    let Loan {
        order_no: paid_no, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .finance(&finance)
        .disbursed()
        .await;
    let Application {
        order_no: c_no,
        order_id: c_id,
        ..
    } = app
        .borrower(ID)
        .name("Budi Santoso")
        .loan("id-kilat-30", 300_000_000, "14d")
        .approved()
        .await;
    let c_net = net_of(&app, &c_id).await;

    assert_eq!(
        op_call(
            &app,
            &reviewer,
            Method::POST,
            "/api/v1/console/payouts/bank-file?market=IN",
            None
        )
        .await
        .status(),
        StatusCode::FORBIDDEN
    );
    let response = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.contains("attachment; filename=\"kilat-payouts-IN-"),
        "{disposition}"
    );
    let csv = response.text().await.unwrap();
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "Beneficiary Name,Beneficiary Account Number,IFSC,Amount (INR),Payment Reference,Beneficiary Bank"
    );
    assert_eq!(
        lines.len(),
        3,
        "the paid loan and Indonesia's are not in it: {csv}"
    );
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);
    assert!(
        lines.contains(
            &format!(
                "Asha Verma,501001234567,HDFC0001234,{},{a_no},HDFC Bank",
                rupees(a_net)
            )
            .as_str()
        ),
        "{csv}"
    );
    assert!(
        lines.contains(
            &format!(
                "'-Ravi Kumar,501001234567,HDFC0001234,{},{b_no},HDFC Bank",
                rupees(b_net)
            )
            .as_str()
        ),
        "{csv}"
    );
    assert!(!csv.contains(&paid_no));

    let csv = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=ID",
        None,
    )
    .await
    .text()
    .await
    .unwrap();
    let r = rows(&csv);
    assert_eq!(r[0][2], "Bank Code");
    assert_eq!(r[0][3], "Amount (IDR)");
    assert_eq!(r.len(), 2);
    assert_eq!(c_net % 100, 0, "Indonesian payouts are whole rupiah");
    assert_eq!(
        r[1],
        vec![
            "Budi Santoso".to_owned(),
            "1234567890".to_owned(),
            "014".to_owned(),
            (c_net / 100).to_string(),
            c_no.clone(),
            "BCA (Bank Central Asia)".to_owned()
        ]
    );

    // Each download is audited with who and which orders.
    let audits = audit_after(&app, "payout.bank_file").await;
    assert_eq!(audits.len(), 2);
    let after: Value = serde_json::from_str(&audits[0]).unwrap();
    assert_eq!(after["market"], "IN");
    let orders: Vec<&str> = after["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_str().unwrap())
        .collect();
    assert_eq!(orders.len(), 2);
    assert!(orders.contains(&a_no.as_str()) && orders.contains(&b_no.as_str()));
    assert_eq!(after["total"], a_net + b_net);
    assert_eq!(
        op_call(
            &app,
            &finance,
            Method::POST,
            "/api/v1/console/payouts/bank-file?market=XX",
            None
        )
        .await
        .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    app.stop().await;
}

#[tokio::test]
async fn an_imported_result_file_pays_matched_lines_once_and_answers_every_line() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        order_no: a,
        order_id: a_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .approved()
        .await;
    let a_net = net_of(&app, &a_id).await;
    let Application {
        order_no: b,
        order_id: b_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_500_000, "m6")
        .approved()
        .await;
    let b_net = net_of(&app, &b_id).await;
    let Application {
        order_no: c,
        order_id: c_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let c_net = net_of(&app, &c_id).await;
    let Loan {
        order_no: d,
        order_id: d_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .finance(&finance)
        .disbursed()
        .await;
    let d_net = net_of(&app, &d_id).await;
    let Application {
        order_no: e,
        order_id: e_id,
        ..
    } = app
        .borrower(ID)
        .loan("id-kilat-30", 300_000_000, "14d")
        .approved()
        .await;
    let e_net = net_of(&app, &e_id).await;
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);
    let file = format!(
        "Payment Reference,UTR,Status,Amount (INR),Narration\r\n\
         {a},N3312600001,SUCCESS,{},payout\r\n\
         {b},N3312600002,failed,{},account closed\r\n\
         {c},N3312600003,success,{},\r\n\
         {a},N3312600001,success,{},again\r\n\
         {d},N3312600004,success,{},\r\n\
         KL-000000-XXXXXX,N3312600005,success,100.00,\r\n\
         {e},N3312600006,success,{},other market\r\n\
         {b},N3312600007,pending,{},\r\n",
        rupees(a_net),
        rupees(b_net),
        rupees(c_net + 1),
        rupees(a_net),
        rupees(d_net),
        e_net / 100,
        rupees(b_net),
    );
    let report = data(import(&app, &finance, "IN", &file).await).await;
    let outcomes: Vec<(&str, &str)> = report["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["reference"].as_str().unwrap(),
                l["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        vec![
            (a.as_str(), "paid"),
            (b.as_str(), "failed"),
            (c.as_str(), "amount_mismatch"),
            (a.as_str(), "duplicate_line"),
            // Paid out by hand under another reference: the bank reports a second transfer.
            (d.as_str(), "second_transfer"),
            ("KL-000000-XXXXXX", "unknown_reference"),
            (e.as_str(), "unknown_reference"),
            (b.as_str(), "invalid"),
        ]
    );
    assert_eq!(report["lines"][7]["detail"], "status");
    assert_eq!(report["lines"][0]["line"], 2);
    assert_eq!(report["lines"][2]["expectedAmount"], c_net);
    assert_eq!(report["lines"][2]["amount"], c_net + 1);
    assert_eq!(report["lines"][4]["detail"], bank_reference_of(&d));
    assert_eq!(status_of(&app, &a_id).await, "disbursed");
    assert_eq!(status_of(&app, &b_id).await, "approved");
    assert_eq!(status_of(&app, &c_id).await, "approved");
    let (reference,): (String,) =
        sqlx::query_as("SELECT bank_reference FROM payouts WHERE order_id = $1")
            .bind(&a_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(reference, "N3312600001");
    assert_eq!(audits_of(&app, "payout.create", &a_id).await, 1);

    // The bank returns a paid line's transfer afterwards: flagged for finance, never the silent "failed" of an order
    // still waiting.
    let returned = data(
        import(
            &app,
            &finance,
            "IN",
            &format!(
                "Payment Reference,UTR,Status,Amount (INR)\r\n{a},N3312600001,returned,{}\r\n",
                rupees(a_net)
            ),
        )
        .await,
    )
    .await;
    assert_eq!(
        returned["lines"][0]["outcome"], "failed_after_payout",
        "{returned}"
    );
    assert_eq!(returned["lines"][0]["detail"], "N3312600001");
    assert_eq!(status_of(&app, &a_id).await, "disbursed");

    // The same file again pays nothing twice.
    let again = data(import(&app, &finance, "IN", &file).await).await;
    assert_eq!(again["lines"][0]["outcome"], "already_paid");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payouts WHERE order_id = $1",
            &a_id
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payouts WHERE order_id = $1",
            &d_id
        )
        .await,
        1
    );
    assert_eq!(audits_of(&app, "payout.create", &a_id).await, 1);
    let imports = audit_after(&app, "payout.import").await;
    assert_eq!(imports.len(), 3);
    assert!(imports[0].contains("\"failed\""), "{}", imports[0]);

    // A line with an invalid status is answered as such; files without the columns or not CSV are refused.
    let invalid = data(
        import(
            &app,
            &finance,
            "IN",
            &format!(
                "reference,bank_reference,status,amount\n{c},N33126,maybe,{}\n",
                rupees(c_net)
            ),
        )
        .await,
    )
    .await;
    assert_eq!(invalid["lines"][0]["outcome"], "invalid");
    assert_eq!(invalid["lines"][0]["detail"], "status");
    let body = error(import(&app, &finance, "IN", "order,amount\nx,1\n").await).await;
    assert!(body["fields"]["content"].is_string(), "{body}");
    let body =
        error(import(&app, &finance, "IN", "reference,utr,status,amount\n\"x,1\n").await).await;
    assert!(body["fields"]["content"].is_string(), "{body}");
    let body = error(import(&app, &finance, "IN", "").await).await;
    assert!(body["fields"]["content"].is_string(), "{body}");
    app.stop().await;
}

#[tokio::test]
async fn above_the_threshold_a_second_operator_approves_a_burst_starts_the_loan_once_and_below_one_suffices()
 {
    // ₹15,000: the ₹20,000 loan needs two operators, the ₹10,000 one does not.
    let app = Arc::new(
        spawn_app_with(|s| {
            s.payouts.india.approval_threshold = 1_500_000;
        })
        .await,
    );
    let maker = operator(&app, "fin-maker", &[Role::Finance]).await;
    let checkers = [
        operator(&app, "fin-check-1", &[Role::Finance]).await,
        operator(&app, "fin-check-2", &[Role::Finance]).await,
    ];
    let Application {
        order_no: big,
        order_id: big_id,
        session: big_session,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .approved()
        .await;
    let big_net = net_of(&app, &big_id).await;
    let Application {
        order_no: small,
        order_id: small_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let small_net = net_of(&app, &small_id).await;
    assert!(big_net > 1_500_000 && small_net <= 1_500_000);

    // Below the threshold: one operator, the loan starts.
    let done = data(record(&app, &maker, &small, "N3312600100").await).await;
    assert_eq!(done["awaitingApproval"], false);
    assert_eq!(done["status"], "disbursed");
    assert_eq!(status_of(&app, &small_id).await, "disbursed");
    let _ = small_id;

    // Above: recorded, waiting, still approved.
    let done = data(record(&app, &maker, &big, "N3312600200").await).await;
    assert_eq!(done["awaitingApproval"], true);
    assert_eq!(done["status"], "approved");
    assert_eq!(done["payoutDate"], Value::Null);
    assert_eq!(done["amount"], big_net);
    assert_eq!(status_of(&app, &big_id).await, "approved");
    assert_eq!(audits_of(&app, "payout.record", &big_id).await, 1);
    // The money is sent: its borrower can no longer cancel the order (which would leave the transfer with no loan).
    let refused = app
        .post_as(
            &format!("/api/v1/borrower/orders/{big}/cancel"),
            &big_session,
            &json!({}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payout_sent");
    assert_eq!(status_of(&app, &big_id).await, "approved");
    let body = error(record(&app, &checkers[0], &big, "N3312600201").await).await;
    assert_eq!(body["code"], "payout_awaiting_approval");
    let list = data(get(&app, &maker, "/api/v1/console/payouts?market=IN").await).await;
    let entry = list
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["orderNo"] == big.as_str())
        .unwrap();
    assert_eq!(entry["needsApproval"], true);
    assert_eq!(entry["pendingPayout"]["bankReference"], "N3312600200");
    assert_eq!(entry["pendingPayout"]["recordedByUsername"], "fin-maker");
    // Recorded payouts are not in the bank file again.
    let csv = op_call(
        &app,
        &maker,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(!csv.contains(&big));

    // The maker can never approve their own.
    let response = approve(&app, &maker, &big).await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(response).await["code"], "own_payout_approval");
    assert_eq!(status_of(&app, &big_id).await, "approved");

    // A burst of approvals by two other operators starts the loan exactly once.
    let mut handles = Vec::new();
    for i in 0..8 {
        let (app, op, no) = (app.clone(), checkers[i % 2].clone(), big.clone());
        handles.push(tokio::spawn(async move {
            let response = approve(&app, &op, &no).await;
            let status = response.status();
            (status, response.json::<Value>().await.unwrap())
        }));
    }
    let mut ok = 0;
    for h in handles {
        let (status, body) = h.await.unwrap();
        if status == StatusCode::OK {
            ok += 1;
            assert_eq!(body["data"]["status"], "disbursed");
            assert_eq!(body["data"]["bankReference"], "N3312600200");
        } else {
            assert_eq!(status, StatusCode::CONFLICT, "{body}");
            assert_eq!(body["code"], "payout_not_awaiting");
        }
    }
    assert_eq!(ok, 1);
    assert_eq!(status_of(&app, &big_id).await, "disbursed");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payouts WHERE order_id = $1",
            &big_id
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM loans WHERE order_id = $1",
            &big_id
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1 AND seq = 0",
            &big_id
        )
        .await,
        1
    );
    assert_eq!(audits_of(&app, "payout.approve", &big_id).await, 1);
    let (maker_id, checker_id): (Option<String>, Option<String>) =
        sqlx::query_as("SELECT operator_id, approved_by FROM payouts WHERE order_id = $1")
            .bind(&big_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert!(maker_id.is_some() && checker_id.is_some() && maker_id != checker_id);
    Arc::try_unwrap(app)
        .ok()
        .expect("no clone left")
        .stop()
        .await;
}

#[tokio::test]
async fn a_checker_rejects_a_recorded_payout_with_a_reason_and_the_import_records_above_the_threshold()
 {
    let app = spawn_app_with(|s| {
        s.payouts.india.approval_threshold = 0;
    })
    .await;
    let maker = operator(&app, "fin-maker", &[Role::Finance]).await;
    let checker = operator(&app, "fin-check", &[Role::Finance]).await;
    let Application {
        order_no: no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let net = net_of(&app, &id).await;
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);
    let file = format!(
        "reference,utr,status,amount\n{no},N3312600300,success,{}\n",
        rupees(net)
    );
    let report = data(import(&app, &maker, "IN", &file).await).await;
    assert_eq!(report["lines"][0]["outcome"], "awaiting_approval");
    let report = data(import(&app, &maker, "IN", &file).await).await;
    assert_eq!(report["lines"][0]["outcome"], "already_recorded");
    assert_eq!(status_of(&app, &id).await, "approved");

    let reject = |op: Op, body: Value| {
        let app = &app;
        let no = no.clone();
        async move {
            op_call(
                app,
                &op,
                Method::POST,
                &format!("/api/v1/console/orders/{no}/payout/reject"),
                Some(body),
            )
            .await
        }
    };
    assert_eq!(
        error(reject(maker.clone(), json!({"reason": "mine"})).await).await["code"],
        "own_payout_approval"
    );
    let body = error(reject(checker.clone(), json!({})).await).await;
    assert!(body["fields"]["reason"].is_string(), "{body}");
    let done = data(
        reject(
            checker.clone(),
            json!({"reason": "UTR not on the statement"}),
        )
        .await,
    )
    .await;
    assert_eq!(done["status"], "approved");
    assert_eq!(status_of(&app, &id).await, "approved");
    let audits = app.audit_entries("payout.reject", "order").await;
    assert_eq!(audits.len(), 1);
    assert!(audits[0].2.contains("N3312600300"));
    assert!(audits[0].3.contains("UTR not on the statement"));
    assert_eq!(
        error(approve(&app, &checker, &no).await).await["code"],
        "payout_not_awaiting"
    );
    // Back in the bank file; recorded again and approved by the checker, the loan starts.
    let csv = op_call(
        &app,
        &maker,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(csv.contains(&no));
    // Sent in that file, it is paid by the bank's result, not by hand (the bank may be sending its money).
    assert_eq!(
        error(record(&app, &maker, &no, "N3312600301").await).await["code"],
        "payout_sent"
    );
    let file = file.replace("N3312600300", "N3312600301");
    let report = data(import(&app, &maker, "IN", &file).await).await;
    assert_eq!(report["lines"][0]["outcome"], "awaiting_approval");
    let done = data(approve(&app, &checker, &no).await).await;
    assert_eq!(done["status"], "disbursed");
    assert_eq!(done["bankReference"], "N3312600301");
    app.stop().await;
}

#[tokio::test]
async fn month_end_exports_hold_the_market_s_money_for_finance_and_admins_only_and_are_audited() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let admin = operator(&app, "adm", &[Role::Admin]).await;
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let Application {
        session,
        order_no: no,
        order_id: id,
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let net = net_of(&app, &id).await;
    let done = data(disburse(&app, &finance, &no).await).await;
    let day = done["payoutDate"].as_str().unwrap().to_owned();
    let payment =
        data(create_payment(&app, &session, &no, "payoff", "upi", "pay-key-0001").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "712345678901")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        confirm(&app, &finance, &payment_id, amount).await.status(),
        StatusCode::OK
    );
    let Application {
        order_no: id_no, ..
    } = app
        .borrower(ID)
        .loan("id-kilat-30", 300_000_000, "14d")
        .approved()
        .await;
    let path = |kind: &str, market: &str| {
        format!("/api/v1/console/exports?market={market}&kind={kind}&from={day}&to={day}")
    };
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);

    let response = get(&app, &finance, &path("payouts", "IN")).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains(&format!("kilat-payouts-IN-{day}-{day}.csv"))
    );
    let r = rows(&response.text().await.unwrap());
    assert_eq!(r.len(), 2);
    assert_eq!(r[1][0], day);
    assert_eq!(r[1][1], no);
    assert_eq!(r[1][3], "INR");
    assert_eq!(r[1][4], "10000.00");
    assert_eq!(r[1][5], rupees(net));
    assert_eq!(r[1][7], bank_reference_of(&no));
    assert_eq!(r[1][8], "fin");

    let r = rows(
        &get(&app, &admin, &path("repayments", "IN"))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(r.len(), 2, "{r:?}");
    assert_eq!(r[1][1], no);
    assert_eq!(r[1][7], "712345678901");
    assert_eq!(r[1][9], rupees(amount));

    let r = rows(
        &get(&app, &finance, &path("ledger", "IN"))
            .await
            .text()
            .await
            .unwrap(),
    );
    // The payout, its fee and the schedule, then the payoff: every entry of the day.
    let (entries,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM ledger_entries e JOIN orders o ON o.id = e.order_id WHERE o.order_no = $1",
    )
    .bind(&no)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(i64::try_from(r.len()).unwrap() - 1, entries);
    assert_eq!(r[1][3], "payout");
    assert_eq!(r[1][5], rupees(net));

    let r = rows(
        &get(&app, &finance, &path("refunds", "IN"))
            .await
            .text()
            .await
            .unwrap(),
    );
    assert_eq!(r.len(), 1, "a header only: no refund was sent");

    // Indonesia's export holds none of India's money (its order is not paid out).
    let csv = get(&app, &finance, &path("ledger", "ID"))
        .await
        .text()
        .await
        .unwrap();
    assert!(!csv.contains(&no) && !csv.contains(&id_no));

    assert_eq!(
        get(&app, &reviewer, &path("payouts", "IN")).await.status(),
        StatusCode::FORBIDDEN
    );
    let body = error(
        get(
            &app,
            &finance,
            "/api/v1/console/exports?market=IN&kind=payouts&from=2026-01-01&to=2026-03-01",
        )
        .await,
    )
    .await;
    assert!(body["fields"]["to"].is_string(), "{body}");
    let body = error(
        get(
            &app,
            &finance,
            "/api/v1/console/exports?market=IN&kind=loans&from=2026-01-01&to=2026-01-02",
        )
        .await,
    )
    .await;
    assert!(body["fields"]["kind"].is_string(), "{body}");
    assert_eq!(audit_after(&app, "export.payouts").await.len(), 1);
    assert_eq!(audit_after(&app, "export.ledger").await.len(), 2);
    assert!(audit_after(&app, "export.payouts").await[0].contains(&format!("\"from\":\"{day}\"")));
    app.stop().await;
}

/// The month's money received and not in the ledger, so the exports tie to the bank: a payment held (its amount
/// differs), a provider's receipt with no payment, one of no known market, and one resolved in the range with how;
/// one resolved before the range is not in it, nor another market's.
#[tokio::test]
async fn the_not_credited_export_lists_money_held_or_kept_apart_open_now_or_resolved_in_the_range()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        session,
        order_no: no,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let done = data(disburse(&app, &finance, &no).await).await;
    let day = done["payoutDate"].as_str().unwrap().to_owned();
    let payment =
        data(create_payment(&app, &session, &no, "payoff", "upi", "pay-key-0101").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let reference = payment["reference"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    submit_utr(&app, &session, &payment_id, "712345678911").await;
    let held = data(confirm(&app, &finance, &payment_id, amount - 100).await).await;
    assert_eq!(held["payment"]["status"], "held");
    let now = app.services.clock.now_ms();
    for (id, market, reference, resolved_at, resolution) in [
        ("u-open", Some("IN"), "KLUPI-OPEN", None, None),
        ("u-nowhere", None, "KLUPI-NOWHERE", None, None),
        (
            "u-today",
            Some("IN"),
            "KLUPI-TODAY",
            Some(now),
            Some("Returned to the payer (UTR 5566)."),
        ),
        (
            "u-old",
            Some("IN"),
            "KLUPI-OLD",
            Some(86_400_000),
            Some("Credited by hand."),
        ),
        ("u-id", Some("ID"), "KLVA-ID", None, None),
    ] {
        sqlx::query(
            "INSERT INTO unmatched_receipts (id, provider, event_id, market, reference, amount, currency, received_at,
                 resolved_at, resolution, kind)
             VALUES ($1, 'razorpay', $1, $2, $3, 123450, $4, $5, $6, $7, 'unmatched')",
        )
        .bind(id)
        .bind(market)
        .bind(reference)
        .bind(if market == Some("ID") { "IDR" } else { "INR" })
        .bind(now - 1000)
        .bind(resolved_at)
        .bind(resolution)
        .execute(app.db.pool())
        .await
        .unwrap();
    }
    let response = get(
        &app,
        &finance,
        &format!("/api/v1/console/exports?market=IN&kind=not_credited&from={day}&to={day}"),
    )
    .await;
    assert_eq!(response.status(), StatusCode::OK);
    let r = rows(&response.text().await.unwrap());
    assert_eq!(
        r[0],
        [
            "Since (Last Change)",
            "Source",
            "State",
            "Order No",
            "Reference",
            "Provider",
            "Currency",
            "Amount",
            "Resolved At",
            "Resolution"
        ]
    );
    let found: Vec<(&str, &str, &str)> = r[1..]
        .iter()
        .map(|row| (row[1].as_str(), row[2].as_str(), row[4].as_str()))
        .collect();
    assert_eq!(found.len(), 4, "{r:?}");
    assert!(
        found.contains(&("payment", "held", reference.as_str())),
        "{r:?}"
    );
    for kept in ["KLUPI-OPEN", "KLUPI-NOWHERE", "KLUPI-TODAY"] {
        assert!(
            found.contains(&("receipt", "unmatched", kept)),
            "{kept}: {r:?}"
        );
    }
    let held_row = r.iter().find(|row| row[4] == reference).unwrap();
    assert_eq!(held_row[3], no);
    assert_eq!(held_row[6], "INR");
    assert_eq!(
        held_row[7],
        format!("{}.{:02}", (amount - 100) / 100, (amount - 100) % 100)
    );
    let resolved = r.iter().find(|row| row[4] == "KLUPI-TODAY").unwrap();
    assert_eq!(resolved[7], "1234.50");
    assert!(!resolved[8].is_empty());
    assert_eq!(resolved[9], "Returned to the payer (UTR 5566).");
    assert_eq!(audit_after(&app, "export.not_credited").await.len(), 1);
    app.stop().await;
}

/// A downloaded bank file holds each order once: the money of an order in it may be on its way, so a second download
/// (the same operator again, or two at the same moment) leaves it out, the list says which file holds it, and the
/// borrower can no longer cancel it. It goes back in the next file when the bank's result reports its transfer failed,
/// or when finance puts it back (the bank did not pay it) — never while a payout of it is recorded for approval.
#[tokio::test]
async fn a_downloaded_bank_file_holds_each_order_once_and_its_borrower_cannot_cancel_it() {
    // Every payout above ₹11,000 waits for a second operator.
    let app = spawn_app_with(|s| {
        s.payouts.india.approval_threshold = 1_100_000;
    })
    .await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let other = operator(&app, "fin2", &[Role::Finance]).await;
    let mut orders = Vec::new();
    for n in 0..4 {
        let Application {
            session,
            order_no,
            order_id,
            ..
        } = app
            .borrower(IN)
            .loan("in-flexi-6m", 1_000_000 + n * 100_000, "m6")
            .approved()
            .await;
        orders.push((session, order_no, order_id));
    }
    let file_of = |csv: &str| {
        orders
            .iter()
            .filter(|(_, no, _)| csv.contains(no.as_str()))
            .map(|(_, no, _)| no.clone())
            .collect::<Vec<_>>()
    };
    // A download puts its orders in the file, so no link or image can make one: a GET is not a download, nor a POST
    // without the session's CSRF token; neither puts anything in a file.
    let path = "/api/v1/console/payouts/bank-file?market=IN";
    assert_eq!(
        get(&app, &finance, path).await.status(),
        StatusCode::METHOD_NOT_ALLOWED
    );
    let forged = app
        .client
        .post(app.url(path))
        .header("cookie", format!("kilat_console={}", finance.token))
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), StatusCode::FORBIDDEN);
    let claimed: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM payout_sends")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(claimed, 0);
    // Two finance operators download at the same moment: each order is in exactly one of the files.
    let (one, two) = tokio::join!(
        op_call(
            &app,
            &finance,
            Method::POST,
            "/api/v1/console/payouts/bank-file?market=IN",
            None
        ),
        op_call(
            &app,
            &other,
            Method::POST,
            "/api/v1/console/payouts/bank-file?market=IN",
            None
        ),
    );
    let (one, two) = (one.text().await.unwrap(), two.text().await.unwrap());
    let (in_one, in_two) = (file_of(&one), file_of(&two));
    assert_eq!(in_one.len() + in_two.len(), 4, "{one}\n{two}");
    assert!(in_one.iter().all(|no| !in_two.contains(no)), "{one}\n{two}");
    let again = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert!(file_of(&again.text().await.unwrap()).is_empty());
    let list = data(get(&app, &finance, "/api/v1/console/payouts?market=IN").await).await;
    for entry in list.as_array().unwrap() {
        assert!(entry["inBankFile"]["sentAt"].is_i64(), "{entry}");
        assert!(["fin", "fin2"].contains(&entry["inBankFile"]["sentByUsername"].as_str().unwrap()));
    }

    // Its borrower cannot cancel it: the money may be on its way.
    let (session, order_no, order_id) = &orders[0];
    let refused = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            session,
            &json!({}),
        )
        .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payout_sent");
    assert_eq!(status_of(&app, order_id).await, "approved");

    // The bank reports the first order's transfer failed: it is in the next file.
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);
    let net = net_of(&app, order_id).await;
    let failed = format!(
        "Payment Reference,UTR,Status,Amount (INR)\r\n{order_no},N3312609001,FAILED,{}\r\n",
        rupees(net)
    );
    assert_eq!(
        data(import(&app, &finance, "IN", &failed).await).await["lines"][0]["outcome"],
        "failed"
    );
    assert_eq!(audits_of(&app, "payout.send_failed", order_id).await, 1);
    let next = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    let next = next.text().await.unwrap();
    assert_eq!(file_of(&next), vec![order_no.clone()]);
    // Its second send is numbered, so the bank's result names the file it answers.
    assert!(next.contains(&format!(",{order_no}-2,")), "{next}");

    // The first file's result imported again: its failed line leaves the order in the newer file, whose money may be
    // on its way — a third file would send it twice.
    let again = data(import(&app, &finance, "IN", &failed).await).await;
    assert_eq!(again["lines"][0]["outcome"], "failed_other_file", "{again}");
    assert_eq!(again["lines"][0]["detail"], format!("{order_no}-2"));
    assert_eq!(audits_of(&app, "payout.send_failed", order_id).await, 1);
    let third = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert!(file_of(&third.text().await.unwrap()).is_empty());
    // The second file's own failed line takes it out: the next send is the third.
    let failed_again = failed.replace(order_no.as_str(), &format!("{order_no}-2"));
    assert_eq!(
        data(import(&app, &finance, "IN", &failed_again).await).await["lines"][0]["outcome"],
        "failed"
    );
    assert_eq!(audits_of(&app, "payout.send_failed", order_id).await, 2);
    let third = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await
    .text()
    .await
    .unwrap();
    assert!(third.contains(&format!(",{order_no}-3,")), "{third}");

    // Finance puts the second back (the upload was refused): the borrower may cancel it again.
    let (session, order_no, order_id) = &orders[1];
    let put_back = |no: String| {
        let (app, finance) = (&app, &finance);
        async move {
            op_call(
                app,
                finance,
                Method::POST,
                &format!("/api/v1/console/orders/{no}/payout/put-back"),
                None,
            )
            .await
        }
    };
    assert_eq!(put_back(order_no.clone()).await.status(), StatusCode::OK);
    assert_eq!(audits_of(&app, "payout.put_back", order_id).await, 1);
    assert_eq!(
        put_back(order_no.clone()).await.status(),
        StatusCode::NOT_FOUND,
        "in no file now"
    );
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);

    // A transfer by hand for an order in a file is refused, above the threshold (recorded for approval) and below
    // it (paid out): the bank may be sending its money, and the borrower would be paid twice.
    let (_, order_no, order_id) = &orders[3];
    let by_hand = record(&app, &finance, order_no, "N3312609003").await;
    assert_eq!(by_hand.status(), StatusCode::CONFLICT);
    assert_eq!(error(by_hand).await["code"], "payout_sent");
    assert_eq!(audits_of(&app, "payout.record", order_id).await, 0);
    // The bank's result records it for approval; it was sent, so it is not put back, and a checker's rejection never
    // puts it in a file.
    let net = net_of(&app, order_id).await;
    let paid = format!(
        "Payment Reference,UTR,Status,Amount (INR)\r\n{order_no},N3312609003,SUCCESS,{}\r\n",
        rupees(net)
    );
    assert_eq!(
        data(import(&app, &finance, "IN", &paid).await).await["lines"][0]["outcome"],
        "awaiting_approval"
    );
    assert_eq!(
        put_back(order_no.clone()).await.status(),
        StatusCode::CONFLICT
    );
    app.stop().await;
}

/// A payout by hand of an order in a downloaded bank file, below the threshold: refused with the order untouched, so
/// the bank's transfer and finance's never both pay the loan; once the order is back out of the file it pays.
#[tokio::test]
async fn a_payout_by_hand_is_refused_while_its_order_is_in_a_bank_file() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        order_no, order_id, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let file = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert!(file.text().await.unwrap().contains(order_no.as_str()));
    let refused = record(&app, &finance, &order_no, "N3312609100").await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payout_sent");
    assert_eq!(status_of(&app, &order_id).await, "approved");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payouts WHERE order_id = $1",
            &order_id
        )
        .await,
        0
    );
    assert_eq!(audits_of(&app, "payout.create", &order_id).await, 0);
    // Put back (the upload was refused at the bank): finance pays it by hand.
    let put_back = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/orders/{order_no}/payout/put-back"),
        None,
    )
    .await;
    assert_eq!(put_back.status(), StatusCode::OK);
    let paid = record(&app, &finance, &order_no, "N3312609100").await;
    assert_eq!(data(paid).await["status"], "disbursed");
    app.stop().await;
}

/// An order recorded as paid by hand (waiting for its second operator) is never put in a bank file, even when the
/// file's list was read before the recording: the claim itself refuses it.
#[tokio::test]
async fn a_bank_file_never_claims_an_order_recorded_for_approval() {
    let app = spawn_app_with(|s| {
        s.payouts.india.approval_threshold = 100;
    })
    .await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        order_no, order_id, ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    assert_eq!(
        data(record(&app, &finance, &order_no, "N3312609200").await).await["awaitingApproval"],
        true
    );
    let mut tx = app.db.begin().await.unwrap();
    let claimed = tx
        .claim_for_bank_file(&order_id, "file-1", "someone", 1)
        .await
        .unwrap();
    assert_eq!(claimed, None);
    drop(tx);
    app.stop().await;
}

/// Borrowers' cancels racing the bank file's download: each order ends either cancelled and out of the file, or in
/// the file and still approved — never cancelled with its money on its way. The cancels are spread over the download
/// (one every 20 ms), and the last is sent once the file is out, so at least one lands after its order's claim.
#[tokio::test]
async fn cancels_racing_a_bank_file_download_never_leave_a_cancelled_order_in_the_file() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mut orders = Vec::new();
    for _ in 0..8 {
        let Application {
            session,
            order_no,
            order_id,
            ..
        } = app
            .borrower(IN)
            .loan("in-flexi-6m", 1_000_000, "m6")
            .approved()
            .await;
        orders.push((session, order_no, order_id));
    }
    let cancel = |n: usize| {
        let (session, order_no, _) = &orders[n];
        let app = &app;
        async move {
            app.post_as(
                &format!("/api/v1/borrower/orders/{order_no}/cancel"),
                session,
                &json!({}),
            )
            .await
        }
    };
    let racing = futures_util::future::join_all((0..7).map(|n| async move {
        tokio::time::sleep(std::time::Duration::from_millis(20 * n as u64)).await;
        cancel(n).await
    }));
    let (file, mut answers) = tokio::join!(
        op_call(
            &app,
            &finance,
            Method::POST,
            "/api/v1/console/payouts/bank-file?market=IN",
            None
        ),
        racing
    );
    let file = file.text().await.unwrap();
    answers.push(cancel(7).await);
    assert!(file.contains(orders[7].1.as_str()), "{file}");
    for ((_, order_no, order_id), answer) in orders.iter().zip(answers) {
        let status = status_of(&app, order_id).await;
        if file.contains(order_no.as_str()) {
            assert_eq!(answer.status(), StatusCode::CONFLICT, "{order_no}");
            assert_eq!(status, "approved", "{order_no}");
        } else {
            assert_eq!(answer.status(), StatusCode::OK, "{order_no}");
            assert_eq!(status, "cancelled", "{order_no}");
        }
    }
    app.stop().await;
}

/// Each transfer has its own bank reference: finance pasting another order's reference — paid out, or recorded for
/// approval, in any case — is refused on `bankReference`, naming that order, and the order stays approved (its
/// borrower is not charged for money never sent). Two operators typing one new reference for two orders at the same
/// moment pay out one. A recording the checker rejects frees its reference.
#[tokio::test]
async fn a_bank_reference_pays_out_one_order_only() {
    // Payouts above ₹15,000 wait for a second operator.
    let app = spawn_app_with(|s| {
        s.payouts.india.approval_threshold = 1_500_000;
    })
    .await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let other = operator(&app, "fin2", &[Role::Finance]).await;
    let mut orders = Vec::new();
    for amount in [1_000_000, 1_000_000, 1_000_000, 2_000_000] {
        let Application {
            order_no, order_id, ..
        } = app
            .borrower(IN)
            .loan("in-flexi-6m", amount, "m6")
            .approved()
            .await;
        orders.push((order_no, order_id));
    }
    let [(a, _), (b, b_id), (c, _), (big, _)] = <[(String, String); 4]>::try_from(orders).unwrap();

    assert_eq!(
        record(&app, &finance, &a, "N3312600501").await.status(),
        StatusCode::OK
    );
    let taken = error(record(&app, &finance, &b, " n3312600501 ").await).await;
    let message = taken["fields"]["bankReference"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains(a.as_str()), "{taken}");
    assert_eq!(status_of(&app, &b_id).await, "approved");

    // Two at once, one reference: one payout.
    let (one, two) = tokio::join!(
        record(&app, &finance, &b, "N3312600502"),
        record(&app, &other, &c, "N3312600502"),
    );
    let mut statuses = [one.status(), two.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::UNPROCESSABLE_ENTITY]);
    let (left, _) = if one.status() == StatusCode::OK {
        (&c, &b)
    } else {
        (&b, &c)
    };

    // Recorded for approval, the reference is the recorded order's; the checker's rejection frees it.
    assert_eq!(
        record(&app, &finance, &big, "N3312600503").await.status(),
        StatusCode::OK
    );
    let taken = error(record(&app, &other, left, "N3312600503").await).await;
    assert!(
        taken["fields"]["bankReference"]
            .as_str()
            .unwrap_or_default()
            .contains(big.as_str()),
        "{taken}"
    );
    let rejected = op_call(
        &app,
        &other,
        Method::POST,
        &format!("/api/v1/console/orders/{big}/payout/reject"),
        Some(json!({"reason": "The bank returned it."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    assert_eq!(
        record(&app, &other, left, "N3312600503").await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

/// An approved order the bank will not pay (its account closed) is withdrawn by finance with a reason the borrower
/// reads: cancelled, nothing paid, and the borrower is free again. Never while a downloaded bank file's result is
/// still to come for it, and never an order not approved.
#[tokio::test]
async fn finance_withdraws_an_approved_order_the_bank_will_not_pay_once_no_transfer_is_on_its_way()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Application {
        session,
        order_no,
        order_id,
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 1_000_000, "m6")
        .approved()
        .await;
    let withdraw = |body: Value| {
        let (app, op, path) = (
            &app,
            finance.clone(),
            format!("/api/v1/console/orders/{order_no}/withdraw"),
        );
        async move { op_call(app, &op, Method::POST, &path, Some(body)).await }
    };
    let reason = "Your bank returned the transfer: the account is closed. Update your bank account and apply again.";
    // In a bank file finance downloaded: the money may be on its way.
    let file = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert!(file.text().await.unwrap().contains(order_no.as_str()));
    let refused = withdraw(json!({"reason": reason})).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payout_sent");
    // The bank's result says the transfer failed: now it can be withdrawn, with a reason.
    let rupees = |minor: i64| format!("{}.{:02}", minor / 100, minor % 100);
    let failed = format!(
        "Payment Reference,UTR,Status,Amount (INR)\r\n{order_no},N3312609101,FAILED,{}\r\n",
        rupees(net_of(&app, &order_id).await)
    );
    assert_eq!(
        data(import(&app, &finance, "IN", &failed).await).await["lines"][0]["outcome"],
        "failed"
    );
    let missing = withdraw(json!({"reason": "  "})).await;
    assert_eq!(missing.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(missing).await["fields"]["reason"].is_string());
    let done = withdraw(json!({"reason": reason})).await;
    assert_eq!(done.status(), StatusCode::OK);
    assert_eq!(data(done).await["status"], "cancelled");
    assert_eq!(status_of(&app, &order_id).await, "cancelled");
    assert_eq!(audits_of(&app, "payout.withdraw", &order_id).await, 1);
    assert_eq!(audits_of(&app, "order.withdraw", &order_id).await, 1);
    // The borrower reads why; nothing was paid, and the next bank file leaves it out.
    let shown = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    assert_eq!(shown["status"], "cancelled");
    assert_eq!(shown["withdrawalReason"], reason);
    assert_eq!(shown["rejectionReason"], Value::Null);
    let next = op_call(
        &app,
        &finance,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=IN",
        None,
    )
    .await;
    assert!(!next.text().await.unwrap().contains(order_no.as_str()));
    // Once only; and an order the borrower withdrew reads no lender's reason.
    let again = withdraw(json!({"reason": reason})).await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "invalid_transition");
    let Application {
        session: own_session,
        order_no: own_no,
        ..
    } = app.borrower(IN).approved().await;
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{own_no}/cancel"),
            &own_session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    assert_eq!(data(cancelled).await["withdrawalReason"], Value::Null);
    app.stop().await;
}
