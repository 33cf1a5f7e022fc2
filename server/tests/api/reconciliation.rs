//! Reconciliation (issue 18, item 2): bank statement layouts saved per bank, two banks' layouts in Indian and
//! Indonesian number formats, imports matched against the UTR payments waiting for finance (matched, mismatched
//! amount, unknown UTR, a payment without a line), confirming the matched ones through finance's path once (repeated,
//! and in a burst by two operators), the same file twice, a payment confirmed by hand first, roles, audit rows with the
//! statement line, and field-level errors for bad files. Also finance's queue: market, status and search filters,
//! counts, and the CSV export. Runs on SQLite, and on PostgreSQL with `TEST_DATABASE_URL`.

use std::sync::Arc;

use kilat_server::auth::operators::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{
    Op, approved, confirm, count, create_payment, disburse, op_call, operator, submit_utr,
};
use crate::webhooks::LEDGER;

const MAPPINGS: &str = "/api/v1/console/reconciliation/mappings";
const PREVIEW: &str = "/api/v1/console/reconciliation/preview";
const IMPORTS: &str = "/api/v1/console/reconciliation/imports";

/// HDFC-like: a header row, date dd/mm/yyyy, narration, reference, debit and credit apart, Indian grouping.
fn hdfc() -> Value {
    json!({
        "name": "HDFC current account",
        "market": "IN",
        "skipRows": 1,
        "dateColumn": 1,
        "dateFormat": "dd/mm/yyyy",
        "narrationColumn": 2,
        "referenceColumn": 3,
        "debitColumn": 4,
        "creditColumn": 5,
        "decimalSeparator": ".",
        "thousandsSeparator": ","
    })
}

/// BCA-like: two header rows, `;`, date dd mmm yyyy (Indonesian months), one signed amount with CR/DR, dots for
/// thousands and a decimal comma.
fn bca() -> Value {
    json!({
        "name": "BCA giro",
        "market": "ID",
        "delimiter": ";",
        "skipRows": 2,
        "dateColumn": 1,
        "dateFormat": "dd mmm yyyy",
        "narrationColumn": 2,
        "referenceColumn": 3,
        "amountColumn": 4,
        "decimalSeparator": ",",
        "thousandsSeparator": "."
    })
}

/// A console call answered in English (the console's language; without `Accept-Language` errors are Indonesian).
async fn op_en(
    app: &TestApp,
    op: &Op,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let mut request = app
        .client
        .request(method, app.url(path))
        .header("cookie", format!("kilat_console={}", op.token))
        .header("x-csrf-token", &op.csrf)
        .header("accept-language", "en");
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

/// The audit entries of an action, oldest first: (entity id, before, after).
async fn audits(app: &TestApp, action: &str) -> Vec<(String, Option<String>, Option<String>)> {
    sqlx::query_as(
        "SELECT entity_id, before_json, after_json FROM audit_log WHERE action = $1 ORDER BY at, id",
    )
    .bind(action)
    .fetch_all(app.db.pool())
    .await
    .unwrap()
}

async fn call(app: &TestApp, op: &Op, method: Method, path: &str, body: Option<Value>) -> Value {
    let response = op_call(app, op, method, path, body).await;
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    data(response).await
}

async fn save_mapping(app: &TestApp, op: &Op, mapping: Value) -> String {
    let saved = call(app, op, Method::POST, MAPPINGS, Some(mapping)).await;
    saved["id"].as_str().unwrap().to_owned()
}

/// (payment id, amount asked) of an Indian loan's installment paid by UPI with `utr`, waiting for finance.
async fn waiting_payment(app: &TestApp, finance: &Op, phone: &str, utr: &str) -> (String, i64) {
    let (id, amount, _) = waiting_payment_with_session(app, finance, phone, utr).await;
    (id, amount)
}

/// [`waiting_payment`], with the borrower's session.
async fn waiting_payment_with_session(
    app: &TestApp,
    finance: &Op,
    phone: &str,
    utr: &str,
) -> (String, i64, String) {
    let (session, order_no, _) = approved(app, phone, "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(app, finance, &order_no).await.status(),
        StatusCode::OK
    );
    let payment = data(
        create_payment(
            app,
            &session,
            &order_no,
            "due",
            "upi",
            &format!("k-{phone}"),
        )
        .await,
    )
    .await;
    let id = payment["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(
        submit_utr(app, &session, &id, utr).await.status(),
        StatusCode::OK
    );
    (id, payment["amount"].as_i64().unwrap(), session)
}

fn rupees(minor: i64) -> String {
    // Indian grouping: 1,00,000.50
    let whole = (minor / 100).to_string();
    let (head, tail) = whole.split_at(whole.len().saturating_sub(3));
    let mut groups: Vec<String> = Vec::new();
    let mut h = head.to_owned();
    while h.len() > 2 {
        groups.insert(0, h[h.len() - 2..].to_owned());
        h.truncate(h.len() - 2);
    }
    if !h.is_empty() {
        groups.insert(0, h);
    }
    let mut out = groups.join(",");
    if !out.is_empty() {
        out.push(',');
    }
    format!("{out}{tail}.{:02}", minor % 100)
}

async fn import(app: &TestApp, op: &Op, mapping: &str, name: &str, content: &str) -> Value {
    call(
        app,
        op,
        Method::POST,
        IMPORTS,
        Some(json!({"mappingId": mapping, "fileName": name, "content": content})),
    )
    .await
}

fn line(result: &Value, line_no: i64) -> &Value {
    result["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["lineNo"] == line_no)
        .unwrap_or_else(|| panic!("line {line_no}"))
}

async fn payment_status(app: &TestApp, id: &str) -> String {
    let (status,): (String,) = sqlx::query_as("SELECT status FROM payments WHERE id = $1")
        .bind(id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    status
}

#[tokio::test]
async fn two_banks_layouts_are_saved_once_and_read_indian_and_indonesian_numbers() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let hdfc_id = save_mapping(&app, &finance, hdfc()).await;
    let bca_id = save_mapping(&app, &finance, bca()).await;
    let list = call(&app, &finance, Method::GET, MAPPINGS, None).await;
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["BCA giro", "HDFC current account"]);
    assert_eq!(list[0]["thousandsSeparator"], ".");
    assert_eq!(list[0]["delimiter"], ";");
    assert_eq!(list[1]["creditColumn"], 5);
    assert_eq!(list[1]["amountColumn"], Value::Null);

    // The same name again is refused on the field.
    let taken = op_call(&app, &finance, Method::POST, MAPPINGS, Some(hdfc())).await;
    assert_eq!(taken.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(taken).await["fields"]["name"].is_string());

    let indian = "Date,Narration,Chq./Ref.No.,Withdrawal Amt.,Deposit Amt.\r\n\
                  27/11/2026,\"UPI/712345678901/RAVI KUMAR\",712345678901,,\"1,00,000.50\"\r\n\
                  28/11/2026,NEFT charges,CHG0001,11.80,\r\n";
    let preview = call(
        &app,
        &finance,
        Method::POST,
        PREVIEW,
        Some(json!({"content": indian, "mappingId": hdfc_id})),
    )
    .await;
    assert_eq!(preview["rows"][0][2], "Chq./Ref.No.");
    assert_eq!(preview["lines"][0]["lineNo"], 2);
    assert_eq!(preview["lines"][0]["date"], "2026-11-27");
    assert_eq!(preview["lines"][0]["amount"], 10_000_050);
    assert_eq!(preview["lines"][0]["credit"], true);
    assert_eq!(preview["lines"][0]["utrs"], json!(["712345678901"]));
    assert_eq!(preview["lines"][1]["amount"], 1_180);
    assert_eq!(preview["lines"][1]["credit"], false);
    assert_eq!(preview["problems"], json!([]));

    let indonesian = "PT KILAT DANA INDONESIA;Rekening 1234567890\n\
                      Tanggal;Keterangan;Referensi;Mutasi\n\
                      05 Des 2026;TRSF E-BANKING CR;REF123;3.180.000,00 CR\n\
                      06 Des 2026;BIAYA ADM;ADM;15.00,00 DB\n\
                      07 Des 2026;TRSF;REF124;-2.500,00\n";
    // A layout as typed, before it is saved: the preview reads with it.
    let mut typed = bca();
    typed["name"] = Value::Null;
    let preview = call(
        &app,
        &finance,
        Method::POST,
        PREVIEW,
        Some(json!({"content": indonesian, "mapping": typed})),
    )
    .await;
    assert_eq!(preview["rows"][1][3], "Mutasi");
    assert_eq!(preview["lines"][0]["date"], "2026-12-05");
    assert_eq!(preview["lines"][0]["amount"], 318_000_000);
    assert_eq!(preview["lines"][0]["credit"], true);
    // A thousands group of two digits at the end is no amount: the line is named with its column.
    assert_eq!(
        preview["problems"][0],
        json!({"lineNo": 4, "column": 4, "field": "amount", "problem": "bad_amount", "value": "15.00,00 DB"})
    );
    assert_eq!(preview["lines"][1]["amount"], 250_000);
    assert_eq!(preview["lines"][1]["credit"], false);

    // The saved layout changes (audited) and reads the same file.
    let mut edited = bca();
    edited["name"] = json!("BCA giro (IDR)");
    let saved = call(
        &app,
        &finance,
        Method::PUT,
        &format!("{MAPPINGS}/{bca_id}"),
        Some(edited),
    )
    .await;
    assert_eq!(saved["name"], "BCA giro (IDR)");
    let updates = audits(&app, "statement_mapping.update").await;
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].0, bca_id);
    assert!(updates[0].1.as_deref().unwrap().contains("\"BCA giro\""));
    assert!(updates[0].2.as_deref().unwrap().contains("BCA giro (IDR)"));
    assert_eq!(audits(&app, "statement_mapping.create").await.len(), 2);
    app.stop().await;
}

#[tokio::test]
async fn a_statement_matches_by_utr_and_exact_amount_and_confirms_the_matched_ones_once() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (matched, matched_amount) =
        waiting_payment(&app, &finance, "9876500301", "712345678901").await;
    let (short, short_amount) = waiting_payment(&app, &finance, "9876500302", "712345678902").await;
    let (no_line, _) = waiting_payment(&app, &finance, "9876500303", "712345678903").await;
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n\
         27/11/2026,UPI/RAVI KUMAR/ravi@okhdfc,712345678901,,\"{}\"\n\
         27/11/2026,UPI 712345678902 PRIYA,UPI-IN,,\"{}\"\n\
         27/11/2026,UPI/UNKNOWN,799999999999,,500.00\n\
         28/11/2026,NEFT charges,CHG0001,11.80,\n",
        rupees(matched_amount),
        rupees(short_amount - 100),
    );
    let imported = import(&app, &finance, &mapping, "hdfc-27-11.csv", &statement).await;
    assert_eq!(imported["duplicate"], false);
    let result = &imported["result"];
    let import_id = result["import"]["importId"].as_str().unwrap().to_owned();
    assert_eq!(result["import"]["fileName"], "hdfc-27-11.csv");
    assert_eq!(result["import"]["importedBy"], "fin");
    assert_eq!(result["import"]["lineCount"], 4);
    assert_eq!(result["import"]["creditCount"], 3);
    assert_eq!(result["import"]["market"], "IN");
    assert_eq!(line(result, 2)["kind"], "matched");
    assert_eq!(line(result, 2)["paymentId"], matched.as_str());
    assert_eq!(line(result, 2)["narration"], "UPI/RAVI KUMAR/ravi@okhdfc");
    // The UTR found in the narration; the amounts side by side.
    assert_eq!(line(result, 3)["kind"], "mismatched");
    assert_eq!(line(result, 3)["utr"], "712345678902");
    assert_eq!(line(result, 3)["amount"], short_amount - 100);
    assert_eq!(line(result, 3)["paymentAmount"], short_amount);
    assert_eq!(line(result, 4)["kind"], "unmatched");
    assert_eq!(line(result, 5)["kind"], "debit");
    let waiting: Vec<&str> = result["waiting"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["paymentId"].as_str().unwrap())
        .collect();
    assert_eq!(waiting, [no_line.as_str()]);
    assert_eq!(result["matchedCount"], 1);
    assert_eq!(result["matchedTotal"], matched_amount);
    // The narration is sealed at rest.
    let (stored,): (String,) = sqlx::query_as(
        "SELECT narration_enc FROM statement_lines WHERE import_id = $1 AND line_no = 2",
    )
    .bind(&import_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert!(!stored.contains("RAVI"));
    assert_eq!(audits(&app, "statement.import").await.len(), 1);

    let confirm_path = format!("{IMPORTS}/{import_id}/confirm");
    let done = call(&app, &finance, Method::POST, &confirm_path, None).await;
    assert_eq!(done["confirmedCount"], 1);
    assert_eq!(done["confirmedTotal"], matched_amount);
    assert_eq!(done["skippedCount"], 0);
    assert_eq!(line(&done["result"], 2)["kind"], "confirmed");
    assert_eq!(line(&done["result"], 2)["confirmedBy"], "fin");
    assert_eq!(done["result"]["import"]["confirmedCount"], 1);
    assert_eq!(payment_status(&app, &matched).await, "confirmed");
    assert_eq!(count(&app, LEDGER, &matched).await, 1);
    // A mismatched amount is never confirmed from here.
    assert_eq!(payment_status(&app, &short).await, "verifying");
    assert_eq!(count(&app, LEDGER, &short).await, 0);

    // The audit entry of the confirmation names the statement line by its import and number, and holds nothing of
    // its narration (sealed in its table: it names the payer).
    let confirms = audits(&app, "payment.confirm").await;
    assert_eq!(confirms.len(), 1);
    let after: Value = serde_json::from_str(confirms[0].2.as_deref().unwrap()).unwrap();
    assert_eq!(after["paymentId"], matched.as_str());
    assert_eq!(after["receivedAmount"], matched_amount);
    // Reading the import again shows the payers' names and UPI ids: audited as a view of it.
    call(
        &app,
        &finance,
        Method::GET,
        &format!("/api/v1/console/reconciliation/imports/{import_id}"),
        None,
    )
    .await;
    let views = audits(&app, "view_unmasked").await;
    assert!(
        views.iter().any(|(entity, _, after)| entity == &import_id
            && after.as_deref() == Some(r#"{"scope":"statement_lines"}"#)),
        "{views:?}"
    );
    assert_eq!(
        after["statementLine"],
        json!({
            "importId": import_id,
            "lineNo": 2,
            "date": "2026-11-27",
            "amount": matched_amount,
            "reference": "712345678901",
        })
    );
    let trail: Vec<(Option<String>, Option<String>)> =
        sqlx::query_as("SELECT before_json, after_json FROM audit_log")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    for (before, after) in &trail {
        for json in [before, after].into_iter().flatten() {
            for words in ["RAVI", "ravi@okhdfc", "UPI/"] {
                assert!(
                    !json.contains(words),
                    "the audit trail holds {words}: {json}"
                );
            }
        }
    }

    // Confirming again credits nothing more.
    let again = call(&app, &finance, Method::POST, &confirm_path, None).await;
    assert_eq!(again["confirmedCount"], 0);
    assert_eq!(count(&app, LEDGER, &matched).await, 1);

    // The same file again is the first import: nothing new is stored or confirmed.
    let twice = import(&app, &finance, &mapping, "copy.csv", &statement).await;
    assert_eq!(twice["duplicate"], true);
    assert_eq!(twice["result"]["import"]["importId"], import_id.as_str());
    assert_eq!(twice["result"]["import"]["fileName"], "hdfc-27-11.csv");
    assert_eq!(line(&twice["result"], 2)["kind"], "confirmed");
    let history = call(&app, &finance, Method::GET, IMPORTS, None).await;
    assert_eq!(history.as_array().unwrap().len(), 1);
    assert_eq!(history[0]["confirmedCount"], 1);
    assert_eq!(
        call(
            &app,
            &finance,
            Method::GET,
            &format!("{IMPORTS}?market=ID"),
            None
        )
        .await
        .as_array()
        .unwrap()
        .len(),
        0
    );

    // The same line in another file (an overlapping statement) shows the payment as confirmed already.
    let overlap = format!("{statement}29/11/2026,x,X1,1.00,\n");
    let second = import(&app, &finance, &mapping, "hdfc-overlap.csv", &overlap).await;
    assert_eq!(second["duplicate"], false);
    assert_eq!(line(&second["result"], 2)["kind"], "already_confirmed");
    assert_eq!(second["result"]["matchedCount"], 0);
    app.stop().await;
}

#[tokio::test]
async fn a_payment_confirmed_by_hand_first_shows_as_such_and_is_not_credited_again() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (paid, amount) = waiting_payment(&app, &finance, "9876500311", "712345678911").await;
    let statement = format!(
        "h\n27/11/2026,UPI,712345678911,,{}\n",
        rupees(amount).replace(',', "")
    );
    let imported = import(&app, &finance, &mapping, "s.csv", &statement).await;
    let import_id = imported["result"]["import"]["importId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(line(&imported["result"], 2)["kind"], "matched");
    assert_eq!(
        confirm(&app, &finance, &paid, amount).await.status(),
        StatusCode::OK
    );
    let result = call(
        &app,
        &finance,
        Method::GET,
        &format!("{IMPORTS}/{import_id}"),
        None,
    )
    .await;
    assert_eq!(line(&result, 2)["kind"], "already_confirmed");
    assert_eq!(line(&result, 2)["paymentStatus"], "confirmed");
    assert_eq!(result["matchedCount"], 0);
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{IMPORTS}/{import_id}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 0);
    assert_eq!(count(&app, LEDGER, &paid).await, 1);
    app.stop().await;
}

#[tokio::test]
async fn two_operators_confirming_one_import_at_once_credit_each_payment_exactly_once() {
    let app = Arc::new(spawn_app().await);
    let first = operator(&app, "fin1", &[Role::Finance]).await;
    let second = operator(&app, "adm", &[Role::Admin]).await;
    let mapping = save_mapping(&app, &first, hdfc()).await;
    let mut rows = String::from("h\n");
    let mut payments = Vec::new();
    for (i, phone) in ["9876500321", "9876500322", "9876500323"]
        .iter()
        .enumerate()
    {
        let utr = format!("71234567893{i}");
        let (id, amount) = waiting_payment(&app, &first, phone, &utr).await;
        rows.push_str(&format!("27/11/2026,UPI,{utr},,\"{}\"\n", rupees(amount)));
        payments.push(id);
    }
    let imported = import(&app, &first, &mapping, "burst.csv", &rows).await;
    let import_id = imported["result"]["import"]["importId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(imported["result"]["matchedCount"], 3);
    let path = format!("{IMPORTS}/{import_id}/confirm");
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (app, op, path) = (
            Arc::clone(&app),
            if i % 2 == 0 {
                first.clone()
            } else {
                second.clone()
            },
            path.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let response = op_call(&app, &op, Method::POST, &path, None).await;
            assert_eq!(response.status(), StatusCode::OK);
            data(response).await["confirmedCount"].as_i64().unwrap()
        }));
    }
    let mut confirmed = 0;
    for task in tasks {
        confirmed += task.await.unwrap();
    }
    assert_eq!(
        confirmed, 3,
        "each payment confirmed by exactly one request"
    );
    for id in &payments {
        assert_eq!(payment_status(&app, id).await, "confirmed");
        assert_eq!(count(&app, LEDGER, id).await, 1);
    }
    assert_eq!(audits(&app, "payment.confirm").await.len(), 3);
    let (marked,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM statement_lines WHERE import_id = $1 AND confirmed_at IS NOT NULL",
    )
    .bind(&import_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(marked, 3);
    Arc::into_inner(app).unwrap().stop().await;
}

#[tokio::test]
async fn only_finance_and_admin_reconcile() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let admin = operator(&app, "adm", &[Role::Admin]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let content = "h\n27/11/2026,x,712345678999,,1.00\n";
    let imported = import(&app, &admin, &mapping, "a.csv", content).await;
    let import_id = imported["result"]["import"]["importId"]
        .as_str()
        .unwrap()
        .to_owned();
    for role in [Role::Reviewer, Role::Support] {
        let op = operator(&app, role.code(), &[role]).await;
        let mut calls = vec![
            (Method::GET, MAPPINGS.to_owned(), None),
            (Method::POST, MAPPINGS.to_owned(), Some(hdfc())),
            (Method::PUT, format!("{MAPPINGS}/{mapping}"), Some(hdfc())),
            (
                Method::POST,
                PREVIEW.to_owned(),
                Some(json!({"content": content})),
            ),
            (Method::GET, IMPORTS.to_owned(), None),
            (
                Method::POST,
                IMPORTS.to_owned(),
                Some(
                    json!({"mappingId": mapping, "fileName": "b.csv", "content": "h\n28/11/2026,x,1,,1\n"}),
                ),
            ),
            (Method::GET, format!("{IMPORTS}/{import_id}"), None),
            (Method::POST, format!("{IMPORTS}/{import_id}/confirm"), None),
        ];
        calls.push((Method::GET, "/api/v1/console/payments/counts".into(), None));
        calls.push((Method::GET, "/api/v1/console/payments/export".into(), None));
        for (method, path, body) in calls {
            let response = op_call(&app, &op, method.clone(), &path, body).await;
            assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method} {path}");
            assert_eq!(error(response).await["code"], "forbidden");
        }
    }
    let (imports,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM statement_imports")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(imports, 1);
    app.stop().await;
}

#[tokio::test]
async fn bad_files_and_layouts_are_refused_field_by_field_and_store_nothing() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let refused = |response: reqwest::Response| async move {
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        error(response).await["fields"].clone()
    };

    // A layout: each wrong value on its field.
    let bad = json!({"name": "", "market": "XX", "delimiter": ":", "skipRows": 99, "dateColumn": 0,
        "dateFormat": "yyyy/dd", "amountColumn": 3, "creditColumn": 4, "referenceColumn": 51,
        "decimalSeparator": ",", "thousandsSeparator": ","});
    let fields = refused(op_call(&app, &finance, Method::POST, MAPPINGS, Some(bad)).await).await;
    for field in [
        "name",
        "market",
        "delimiter",
        "skipRows",
        "dateColumn",
        "dateFormat",
        "amountColumn",
        "referenceColumn",
    ] {
        assert!(fields[field].is_string(), "{field}: {fields}");
    }
    let same = json!({"name": "x", "market": "IN", "dateColumn": 1, "dateFormat": "dd/mm/yyyy",
        "amountColumn": 2, "referenceColumn": 3, "decimalSeparator": ",", "thousandsSeparator": ","});
    let fields = refused(op_call(&app, &finance, Method::POST, MAPPINGS, Some(same)).await).await;
    assert!(fields["thousandsSeparator"].is_string());

    let send = |content: String, mapping: &str| json!({"mappingId": mapping, "fileName": "bad.csv", "content": content});
    // A bad date and a bad amount: the first named by line and column, the count of the others.
    let content =
        "h\n27/11/2026,ok,712345678901,,1.00\n2026-11-28,x,R,,1.00\n28/11/2026,x,R,,1.0x\n";
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send(content.into(), &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(
        fields["content"],
        "Line 3, column 1 (date): “2026-11-28” is not a date written dd/mm/yyyy."
    );
    assert_eq!(
        fields["lines"],
        "2 lines cannot be read: preview the file to see each."
    );
    // The preview lists each.
    let preview = call(
        &app,
        &finance,
        Method::POST,
        PREVIEW,
        Some(json!({"content": content, "mappingId": mapping})),
    )
    .await;
    assert_eq!(preview["problems"].as_array().unwrap().len(), 2);
    assert_eq!(preview["problems"][1]["lineNo"], 4);
    assert_eq!(preview["problems"][1]["column"], 5);
    assert_eq!(preview["problems"][1]["field"], "credit");

    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send("h\n27/11/2026,x\n".into(), &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(fields["content"], "Line 2 has no column 5 (credit).");
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send("h\n27/11/2026,\"x,R,,1\n".into(), &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(
        fields["content"],
        "Line 2: a quote (\") opens and never closes."
    );
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send("h\n".into(), &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(
        fields["content"],
        "The file has no lines after the 1 header rows."
    );
    let many = format!("h\n{}", "27/11/2026,x,R,,1.00\n".repeat(5_001));
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send(many, &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(
        fields["content"],
        "A statement may have at most 5000 lines: split the file."
    );
    let large = format!("h\n{}", "x".repeat(2 * 1024 * 1024));
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(send(large, &mapping)),
        )
        .await,
    )
    .await;
    assert_eq!(fields["content"], "A statement may be at most 2 MB.");
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(json!({"mappingId": "nope", "fileName": "", "content": "h\n"})),
        )
        .await,
    )
    .await;
    assert!(fields["fileName"].is_string());
    let fields = refused(
        op_en(
            &app,
            &finance,
            Method::POST,
            IMPORTS,
            Some(json!({"mappingId": "nope", "fileName": "f.csv", "content": "h\n1"})),
        )
        .await,
    )
    .await;
    assert_eq!(fields["mappingId"], "Choose a saved layout.");
    assert_eq!(
        op_call(
            &app,
            &finance,
            Method::GET,
            &format!("{IMPORTS}/nope"),
            None
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    let (imports,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM statement_imports")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(imports, 0);
    // Over the body limit: 413 in the envelope, never a 500. The server may answer before the client has written
    // the whole body (it knows the length), which the client sees as a broken pipe; either way nothing is stored.
    let huge = format!("h\n{}", "x".repeat(4 * 1024 * 1024));
    let sent = reqwest::Client::new()
        .post(app.url(IMPORTS))
        .header("cookie", format!("kilat_console={}", finance.token))
        .header("x-csrf-token", &finance.csrf)
        .json(&send(huge, &mapping))
        .send()
        .await;
    match sent {
        Ok(response) => {
            assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
            assert_eq!(error(response).await["code"], "payload_too_large");
        }
        Err(e) => assert!(e.is_request(), "{e}"),
    }
    let (imports,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM statement_imports")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(imports, 0);
    app.stop().await;
}

#[tokio::test]
async fn the_queue_filters_by_market_status_and_search_counts_and_exports_csv() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (first, amount) = waiting_payment(&app, &finance, "9876500331", "712345678941").await;
    let (second, _) = waiting_payment(&app, &finance, "9876500332", "712345678942").await;
    let queue = |query: &'static str| {
        let (app, finance) = (&app, &finance);
        async move {
            call(
                app,
                finance,
                Method::GET,
                &format!("/api/v1/console/payments{query}"),
                None,
            )
            .await
        }
    };
    let all = queue("").await;
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert!(all[0]["waitingSince"].as_i64().unwrap() > 0);
    assert_eq!(
        queue("?market=IN&status=verifying")
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(queue("?market=ID").await.as_array().unwrap().len(), 0);
    assert_eq!(queue("?status=held").await.as_array().unwrap().len(), 0);
    let by_utr = queue("?q=7123%204567%208941").await;
    assert_eq!(by_utr.as_array().unwrap().len(), 1);
    assert_eq!(by_utr[0]["payment"]["paymentId"], first.as_str());
    let order_no = by_utr[0]["payment"]["orderNo"].as_str().unwrap().to_owned();
    let reference = by_utr[0]["payment"]["reference"]
        .as_str()
        .unwrap()
        .to_owned();
    let by_order = call(
        &app,
        &finance,
        Method::GET,
        &format!("/api/v1/console/payments?q={}", order_no.to_lowercase()),
        None,
    )
    .await;
    assert_eq!(by_order[0]["payment"]["paymentId"], first.as_str());
    let by_reference = call(
        &app,
        &finance,
        Method::GET,
        &format!("/api/v1/console/payments?q={reference}"),
        None,
    )
    .await;
    assert_eq!(by_reference.as_array().unwrap().len(), 1);
    assert_eq!(queue("?q=000000000000").await.as_array().unwrap().len(), 0);
    for bad in ["?market=XX", "?status=confirmed"] {
        let response = op_call(
            &app,
            &finance,
            Method::GET,
            &format!("/api/v1/console/payments{bad}"),
            None,
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
    }

    let counts = call(
        &app,
        &finance,
        Method::GET,
        "/api/v1/console/payments/counts",
        None,
    )
    .await;
    let counts = counts.as_array().unwrap();
    assert_eq!(counts.len(), 6);
    let verifying_in = counts
        .iter()
        .find(|c| c["market"] == "IN" && c["status"] == "verifying")
        .unwrap();
    assert_eq!(verifying_in["count"], 2);
    assert!(
        counts
            .iter()
            .filter(|c| c["market"] == "ID")
            .all(|c| c["count"] == 0)
    );

    let response = op_call(
        &app,
        &finance,
        Method::GET,
        &format!("/api/v1/console/payments/export?q={order_no}"),
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
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    let csv = response.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0].starts_with("order_no,payment_reference,market"));
    assert!(lines[1].starts_with(&format!("{order_no},{reference},IN,INR,verifying")));
    assert!(lines[1].contains(&format!(",{}.{:02},", amount / 100, amount % 100)));
    assert!(lines[1].contains(",712345678941,"));
    assert!(!csv.contains(&second));
    app.stop().await;
}

/// A line matched by a UTR that the borrower then corrected away (and put on another waiting payment) is no longer
/// that payment's money: it shows unmatched, confirms nothing, and the payment waits without a line. A later
/// statement with the same bank line matches the payment that holds the UTR now, so the one transfer is credited
/// once (before, the first statement credited the first payment and the second the other).
#[tokio::test]
async fn a_line_whose_utr_was_corrected_away_after_the_import_credits_nothing_and_the_transfer_once()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (a, amount, a_session) =
        waiting_payment_with_session(&app, &finance, "9876500321", "712345678921").await;
    let (b, b_amount, b_session) =
        waiting_payment_with_session(&app, &finance, "9876500322", "712345678922").await;
    assert_eq!(amount, b_amount);
    let first = format!(
        "h\n27/11/2026,UPI,712345678921,,{}\n",
        rupees(amount).replace(',', "")
    );
    let imported = import(&app, &finance, &mapping, "s1.csv", &first).await;
    let import_id = imported["result"]["import"]["importId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(line(&imported["result"], 2)["kind"], "matched");
    assert_eq!(line(&imported["result"], 2)["paymentId"], a.as_str());
    for (session, id, utr) in [
        (&a_session, &a, "712345678929"),
        (&b_session, &b, "712345678921"),
    ] {
        let corrected = app
            .client
            .put(app.url(&format!("/api/v1/borrower/payments/{id}/utr")))
            .header("x-session-id", session.as_str())
            .json(&json!({"utr": utr}))
            .send()
            .await
            .unwrap();
        assert_eq!(corrected.status(), StatusCode::OK);
    }
    let path = format!("{IMPORTS}/{import_id}");
    let result = call(&app, &finance, Method::GET, &path, None).await;
    assert_eq!(line(&result, 2)["kind"], "unmatched");
    assert_eq!(line(&result, 2)["paymentId"], Value::Null);
    assert_eq!(result["matchedCount"], 0);
    assert!(
        result["waiting"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["paymentId"] == a.as_str()),
        "{result}"
    );
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{path}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 0);
    assert_eq!(payment_status(&app, &a).await, "verifying");
    assert_eq!(payment_status(&app, &b).await, "verifying");
    // The same bank line in the next day's statement: the payment holding the UTR now.
    let second = format!("{first}28/11/2026,NEFT charges,CHG0001,11.80,\n");
    let imported = import(&app, &finance, &mapping, "s2.csv", &second).await;
    assert_eq!(line(&imported["result"], 2)["kind"], "matched");
    assert_eq!(line(&imported["result"], 2)["paymentId"], b.as_str());
    let second_id = imported["result"]["import"]["importId"].as_str().unwrap();
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{IMPORTS}/{second_id}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 1);
    assert_eq!(count(&app, LEDGER, &b).await, 1);
    assert_eq!(count(&app, LEDGER, &a).await, 0);
    // The first statement's line cannot credit anyone now either.
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{path}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 0);
    assert_eq!(count(&app, LEDGER, &a).await, 0);
    app.stop().await;
}

/// Imports a statement of one credit line, `utr` for `amount` (minor units), which matches its waiting payment, and
/// confirms the matched lines: the outcome.
async fn confirm_one_line(
    app: &TestApp,
    finance: &Op,
    mapping: &str,
    file: &str,
    utr: &str,
    amount: i64,
) -> Value {
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n27/11/2026,UPI/PAYER,{utr},,\"{}\"\n",
        rupees(amount),
    );
    let imported = import(app, finance, mapping, file, &statement).await;
    assert_eq!(line(&imported["result"], 2)["kind"], "matched");
    let import_id = imported["result"]["import"]["importId"].as_str().unwrap();
    call(
        app,
        finance,
        Method::POST,
        &format!("{IMPORTS}/{import_id}/confirm"),
        None,
    )
    .await
}

/// A matched line whose loan was repaid meanwhile by another payment: confirming it credits nothing, the whole amount
/// is owed back, and the outcome says so instead of counting it credited.
#[tokio::test]
async fn confirming_a_line_whose_loan_was_repaid_meanwhile_reports_the_money_owed_back() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (session, order_no, _) = approved(&app, "9876500311", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let due =
        data(create_payment(&app, &session, &order_no, "due", "upi", "k-due-311").await).await;
    let due_id = due["paymentId"].as_str().unwrap().to_owned();
    let due_amount = due["amount"].as_i64().unwrap();
    assert_eq!(
        submit_utr(&app, &session, &due_id, "712345678911")
            .await
            .status(),
        StatusCode::OK
    );
    let payoff = crate::servicing::pay(
        &app,
        &finance,
        &session,
        &order_no,
        "payoff",
        "k-payoff-311",
        "712345678912",
    )
    .await;
    assert_eq!(payoff["orderStatus"], "repaid");
    let done = confirm_one_line(
        &app,
        &finance,
        &mapping,
        "hdfc-owed.csv",
        "712345678911",
        due_amount,
    )
    .await;
    assert_eq!(done["confirmedCount"], 1, "{done}");
    assert_eq!(done["confirmedTotal"], 0, "{done}");
    assert_eq!(done["owedBackCount"], 1, "{done}");
    assert_eq!(done["owedBackTotal"], due_amount, "{done}");
    assert_eq!(payment_status(&app, &due_id).await, "refund_due");
    app.stop().await;
}

/// Finance rejected a UTR it could not find, and the next statement shows the money: the payment is found again by
/// its UTR, and confirming what came holds it (the borrower's late charges stop), to credit as any held money; without
/// a search, rejected payments stay out of the queue.
#[tokio::test]
async fn a_rejected_utr_whose_money_arrives_after_all_is_found_by_it_held_and_credited() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (id, amount) = waiting_payment(&app, &finance, "9876500351", "712345678951").await;
    let rejected = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/payments/{id}/reject"),
        Some(json!({"reason": "No such credit on the statement."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    // The trail holds the reason the borrower reads.
    let trail = audits(&app, "payment.reject").await;
    let after: Value = serde_json::from_str(trail[0].2.as_deref().unwrap()).unwrap();
    assert_eq!(after["reason"], "No such credit on the statement.");
    assert_eq!(after["status"], "rejected");
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n28/11/2026,UPI/LATE CREDIT,712345678951,,\"{}\"\n",
        rupees(amount),
    );
    let imported = import(&app, &finance, &mapping, "hdfc-late.csv", &statement).await;
    assert_eq!(line(&imported["result"], 2)["kind"], "not_waiting");
    assert_eq!(line(&imported["result"], 2)["paymentId"], id.as_str());

    let queue = |query: String| {
        let (app, finance) = (&app, &finance);
        async move {
            call(
                app,
                finance,
                Method::GET,
                &format!("/api/v1/console/payments{query}"),
                None,
            )
            .await
        }
    };
    assert_eq!(queue(String::new()).await, json!([]));
    assert_eq!(
        queue("?q=712345678951&status=verifying".into()).await,
        json!([])
    );
    let found = queue("?q=712345678951".into()).await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["payment"]["paymentId"], id.as_str());
    assert_eq!(found[0]["payment"]["status"], "rejected");

    let held = data(confirm(&app, &finance, &id, amount).await).await;
    assert_eq!(held["payment"]["status"], "held", "{held}");
    assert_eq!(held["payment"]["receivedAmount"], amount);
    assert_eq!(count(&app, LEDGER, &id).await, 0);
    let credited = data(confirm(&app, &finance, &id, amount).await).await;
    assert_eq!(credited["payment"]["status"], "confirmed", "{credited}");
    assert_eq!(count(&app, LEDGER, &id).await, 1);
    // The trail says what was held and what finance credited.
    let confirms = audits(&app, "payment.confirm").await;
    let (before, after) = confirms
        .last()
        .map(|(_, b, a)| (b.clone(), a.clone()))
        .unwrap();
    let before: Value = serde_json::from_str(&before.unwrap()).unwrap();
    let after: Value = serde_json::from_str(&after.unwrap()).unwrap();
    assert_eq!(
        (&before["status"], &before["receivedAmount"]),
        (&json!("held"), &json!(amount))
    );
    assert_eq!(after["receivedAmount"], amount);
    // Decided once: a second confirmation is refused.
    assert_eq!(
        confirm(&app, &finance, &id, amount).await.status(),
        StatusCode::CONFLICT
    );
    app.stop().await;
}

/// A matched line whose payment's price no longer holds (its UTR came days after it was priced) is held, nothing
/// credited, and the outcome counts it as held, not as credited.
#[tokio::test]
async fn confirming_a_line_whose_price_no_longer_holds_reports_it_held() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    // ₹10,000 at 0.1% a day: a payoff priced today asks less than one paid ten days on.
    let crate::builders::Loan {
        session, order_no, ..
    } = app
        .borrower(crate::builders::IN)
        .phone("9876500361")
        .disbursed()
        .await;
    let due =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "k-payoff-361").await)
            .await;
    let id = due["paymentId"].as_str().unwrap().to_owned();
    let amount = due["amount"].as_i64().unwrap();
    let today = app.services.clock.today(kilat_domain::Market::India);
    app.set_date(today + time::Duration::days(10)).await;
    let session = app.sign_in("IN", "9876500361").await;
    assert_eq!(
        submit_utr(&app, &session, &id, "712345678961")
            .await
            .status(),
        StatusCode::OK
    );
    let finance = crate::servicing::op_sign_in(&app, "fin").await;
    let done = confirm_one_line(
        &app,
        &finance,
        &mapping,
        "hdfc-late-price.csv",
        "712345678961",
        amount,
    )
    .await;
    assert_eq!(payment_status(&app, &id).await, "held");
    assert_eq!(
        (
            done["confirmedTotal"].clone(),
            done["heldCount"].clone(),
            done["heldTotal"].clone()
        ),
        (json!(0), json!(1), json!(amount)),
        "{done}"
    );
    app.stop().await;
}

/// A credit the same statement takes back (a debit naming its UTR: the bank returned it) is no money received: it is
/// `reversed`, never confirmed by "confirm matched", and its payment keeps waiting for finance.
#[tokio::test]
async fn a_credit_the_same_statement_reverses_is_never_confirmed_from_it() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (returned, amount) = waiting_payment(&app, &finance, "9876500331", "712345678931").await;
    let (kept, kept_amount) = waiting_payment(&app, &finance, "9876500332", "712345678932").await;
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n\
         27/11/2026,UPI/PAYER,712345678931,,\"{}\"\n\
         27/11/2026,UPI/PAYER TWO,712345678932,,\"{}\"\n\
         28/11/2026,UPI REV 712345678931,RETURN,\"{}\",\n",
        rupees(amount),
        rupees(kept_amount),
        rupees(amount),
    );
    let imported = import(&app, &finance, &mapping, "returned.csv", &statement).await;
    let result = &imported["result"];
    assert_eq!(line(result, 2)["kind"], "reversed");
    assert_eq!(line(result, 3)["kind"], "matched");
    assert_eq!(line(result, 4)["kind"], "debit");
    assert_eq!(result["matchedCount"], 1);
    assert_eq!(result["matchedTotal"], kept_amount);
    let import_id = result["import"]["importId"].as_str().unwrap();
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{IMPORTS}/{import_id}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 1);
    assert_eq!(payment_status(&app, &kept).await, "confirmed");
    assert_eq!(payment_status(&app, &returned).await, "verifying");
    // Kept for finance on Repayments, with the money providers took back, naming the payment's loan.
    let items = call(
        &app,
        &finance,
        Method::GET,
        "/api/v1/console/unmatched-receipts",
        None,
    )
    .await;
    let [item] = &items.as_array().unwrap()[..] else {
        panic!("one item: {items}")
    };
    assert_eq!(item["kind"], "reversed");
    assert_eq!(item["provider"], "statement");
    assert_eq!(item["reference"], "712345678931");
    assert_eq!(item["amount"], amount);
    assert!(item["orderNo"].is_string());
    // The same file again is the same import: nothing new for finance.
    import(&app, &finance, &mapping, "returned.csv", &statement).await;
    let items = call(
        &app,
        &finance,
        Method::GET,
        "/api/v1/console/unmatched-receipts",
        None,
    )
    .await;
    assert_eq!(items.as_array().unwrap().len(), 1);
}

/// One matched line that cannot be confirmed (its loan unreadable) is reported by its line number and the lines after
/// it are confirmed all the same; confirming again tries it again.
#[tokio::test]
async fn a_line_that_cannot_be_confirmed_is_reported_and_the_others_are_confirmed() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (broken, amount) = waiting_payment(&app, &finance, "9876500341", "712345678941").await;
    let (fine, fine_amount) = waiting_payment(&app, &finance, "9876500342", "712345678942").await;
    // The first payment's loan can no longer be read.
    sqlx::query("UPDATE loans SET plan_json = '{' WHERE order_id = (SELECT order_id FROM payments WHERE id = $1)")
        .bind(&broken)
        .execute(app.db.pool())
        .await
        .unwrap();
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n\
         27/11/2026,UPI/ONE,712345678941,,\"{}\"\n\
         27/11/2026,UPI/TWO,712345678942,,\"{}\"\n",
        rupees(amount),
        rupees(fine_amount),
    );
    let imported = import(&app, &finance, &mapping, "partly.csv", &statement).await;
    let import_id = imported["result"]["import"]["importId"].as_str().unwrap();
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{IMPORTS}/{import_id}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["failedLines"], json!([2]));
    assert_eq!(done["confirmedCount"], 1);
    assert_eq!(payment_status(&app, &fine).await, "confirmed");
    assert_eq!(payment_status(&app, &broken).await, "verifying");
    assert_eq!(line(&done["result"], 2)["kind"], "matched");
}

/// A file first imported with a layout that read it wrong (credit and debit columns swapped: every credit a debit) is
/// read anew once the layout is corrected, instead of answering the broken import for ever; the same file read the
/// same way is still the same import.
#[tokio::test]
async fn a_file_imported_with_a_wrong_layout_is_read_again_once_the_layout_is_corrected() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mut swapped = hdfc();
    swapped["debitColumn"] = json!(5);
    swapped["creditColumn"] = json!(4);
    let mapping = save_mapping(&app, &finance, swapped).await;
    let (paid, amount) = waiting_payment(&app, &finance, "9876500351", "712345678951").await;
    let statement = format!(
        "Date,Narration,Ref,Debit,Credit\n27/11/2026,UPI/PAYER,712345678951,,\"{}\"\n",
        rupees(amount)
    );
    let wrong = import(&app, &finance, &mapping, "hdfc.csv", &statement).await;
    assert_eq!(line(&wrong["result"], 2)["kind"], "debit");
    call(
        &app,
        &finance,
        Method::PUT,
        &format!("{MAPPINGS}/{mapping}"),
        Some(hdfc()),
    )
    .await;
    let right = import(&app, &finance, &mapping, "hdfc.csv", &statement).await;
    assert_eq!(right["duplicate"], false);
    assert_eq!(line(&right["result"], 2)["kind"], "matched");
    assert_eq!(line(&right["result"], 2)["paymentId"], json!(paid));
    let again = import(&app, &finance, &mapping, "hdfc.csv", &statement).await;
    assert_eq!(again["duplicate"], true);
    assert_eq!(
        again["result"]["import"]["importId"],
        right["result"]["import"]["importId"]
    );
    // A change of the layout that reads the file to the same lines (its name) leaves it the same import.
    let mut renamed = hdfc();
    renamed["name"] = json!("HDFC current account (main)");
    call(
        &app,
        &finance,
        Method::PUT,
        &format!("{MAPPINGS}/{mapping}"),
        Some(renamed),
    )
    .await;
    let same = import(&app, &finance, &mapping, "hdfc.csv", &statement).await;
    assert_eq!(same["duplicate"], true);
    // An import kept before the lines were hashed with the file (its hash the file's alone) is found by the file,
    // when it read it to the same lines.
    use sha2::Digest;
    sqlx::query("UPDATE statement_imports SET file_hash = $1 WHERE id = $2")
        .bind(hex::encode(sha2::Sha256::digest(statement.as_bytes())))
        .bind(right["result"]["import"]["importId"].as_str().unwrap())
        .execute(app.db.pool())
        .await
        .unwrap();
    let legacy = import(&app, &finance, &mapping, "hdfc.csv", &statement).await;
    assert_eq!(legacy["duplicate"], true);
    assert_eq!(
        legacy["result"]["import"]["importId"],
        right["result"]["import"]["importId"]
    );
}

/// What finance has waiting on Repayments of money no payment matched or taken back.
async fn items(app: &TestApp, finance: &Op) -> Vec<Value> {
    call(
        app,
        finance,
        Method::GET,
        "/api/v1/console/unmatched-receipts",
        None,
    )
    .await
    .as_array()
    .unwrap()
    .clone()
}

/// Money the bank takes back on a later statement than the one it arrived on (a debit naming the credit's UTR): kept
/// for finance once, naming the loan, however many statements show the debit; the earlier import's credit is no
/// longer confirmed from there; a payment confirmed already is left as it is (finance decides); and a file read again
/// with its credit and debit columns swapped is no reversal.
#[tokio::test]
async fn a_credit_taken_back_on_a_later_statement_is_kept_for_finance_once_and_never_confirmed() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (confirmed, a) = waiting_payment(&app, &finance, "9876500361", "712345678961").await;
    confirm_one_line(&app, &finance, &mapping, "day1.csv", "712345678961", a).await;
    assert_eq!(payment_status(&app, &confirmed).await, "confirmed");
    let (waiting, b) = waiting_payment(&app, &finance, "9876500362", "712345678962").await;
    let day1b = format!(
        "Date,Narration,Ref,Debit,Credit\n27/11/2026,UPI/PAYER TWO,712345678962,,\"{}\"\n",
        rupees(b)
    );
    let earlier = import(&app, &finance, &mapping, "day1b.csv", &day1b).await;
    assert_eq!(line(&earlier["result"], 2)["kind"], "matched");
    let earlier_id = earlier["result"]["import"]["importId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(items(&app, &finance).await.is_empty());

    // The next day's statement takes both back.
    let returns = format!(
        "28/11/2026,UPI REV 712345678961,RETURN1,\"{}\",\n28/11/2026,UPI REV 712345678962,RETURN2,\"{}\",\n",
        rupees(a),
        rupees(b),
    );
    let day2 = format!("Date,Narration,Ref,Debit,Credit\n{returns}");
    import(&app, &finance, &mapping, "day2.csv", &day2).await;
    let kept = items(&app, &finance).await;
    assert_eq!(kept.len(), 2, "{kept:?}");
    for (utr, amount) in [("712345678961", a), ("712345678962", b)] {
        let item = kept.iter().find(|i| i["reference"] == utr).unwrap();
        assert_eq!(item["kind"], "reversed");
        assert_eq!(item["provider"], "statement");
        assert_eq!(item["amount"], amount);
        assert!(item["orderNo"].is_string());
    }
    // Nothing is undone by itself: the confirmed payment stays confirmed until finance decides.
    assert_eq!(payment_status(&app, &confirmed).await, "confirmed");
    // The earlier import's credit is taken back: never confirmed from there.
    let result = call(
        &app,
        &finance,
        Method::GET,
        &format!("{IMPORTS}/{earlier_id}"),
        None,
    )
    .await;
    assert_eq!(line(&result, 2)["kind"], "reversed", "{result}");
    let done = call(
        &app,
        &finance,
        Method::POST,
        &format!("{IMPORTS}/{earlier_id}/confirm"),
        None,
    )
    .await;
    assert_eq!(done["confirmedCount"], 0);
    assert_eq!(payment_status(&app, &waiting).await, "verifying");

    // A statement overlapping the last one shows the same debits again: nothing new for finance.
    let overlapping =
        format!("Date,Narration,Ref,Debit,Credit\n{returns}29/11/2026,CHARGES,FEE1,\"10.00\",\n");
    import(&app, &finance, &mapping, "day2-3.csv", &overlapping).await;
    assert_eq!(items(&app, &finance).await.len(), 2);

    // The first day's file read again with the credit and debit columns swapped: its credit, read as a debit, is
    // the same bank row, not money taken back.
    let mut swapped = hdfc();
    swapped["name"] = json!("HDFC swapped");
    swapped["debitColumn"] = json!(5);
    swapped["creditColumn"] = json!(4);
    let swapped = save_mapping(&app, &finance, swapped).await;
    let (third, c) = waiting_payment(&app, &finance, "9876500363", "712345678963").await;
    let day3 = format!(
        "Date,Narration,Ref,Debit,Credit\n30/11/2026,UPI/PAYER THREE,712345678963,,\"{}\"\n",
        rupees(c)
    );
    import(&app, &finance, &mapping, "day3.csv", &day3).await;
    let misread = import(&app, &finance, &swapped, "day3.csv", &day3).await;
    assert_eq!(line(&misread["result"], 2)["kind"], "debit");
    assert_eq!(items(&app, &finance).await.len(), 2);
    assert_eq!(payment_status(&app, &third).await, "verifying");
}

/// Two more returns kept for finance: a full day's statement that holds a credit an earlier import of part of the day
/// read, and that credit's return on the same day for the same amount (not a swapped re-read: the statement credits
/// the UTR too); and a return of money whose credit was imported before the borrower gave its UTR (matched to nothing
/// then, found by its reference).
#[tokio::test]
async fn a_return_on_the_day_and_of_money_imported_before_its_utr_are_kept_for_finance() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let mapping = save_mapping(&app, &finance, hdfc()).await;
    let (_, a) = waiting_payment(&app, &finance, "9876500371", "712345678971").await;
    let credit = format!("27/11/2026,UPI/PAYER,712345678971,,\"{}\"\n", rupees(a));
    let noon = format!("Date,Narration,Ref,Debit,Credit\n{credit}");
    import(&app, &finance, &mapping, "noon.csv", &noon).await;
    // The whole day: the credit again, and the bank's return of it, same day, same amount, same reference.
    let day = format!(
        "Date,Narration,Ref,Debit,Credit\n{credit}27/11/2026,UPI/PAYER,712345678971,\"{}\",\n",
        rupees(a)
    );
    import(&app, &finance, &mapping, "day.csv", &day).await;
    let kept = items(&app, &finance).await;
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0]["reference"], "712345678971");

    // Money arrives before the borrower gives its UTR: the credit matches nothing at its import.
    let early = format!(
        "Date,Narration,Ref,Debit,Credit\n28/11/2026,UPI/PAYER TWO,712345678972,,\"{}\"\n",
        rupees(500_000)
    );
    let imported = import(&app, &finance, &mapping, "early.csv", &early).await;
    assert_eq!(line(&imported["result"], 2)["kind"], "unmatched");
    let (_, b) = waiting_payment(&app, &finance, "9876500372", "712345678972").await;
    let back = format!(
        "Date,Narration,Ref,Debit,Credit\n29/11/2026,UPI REV 712345678972,RETURN2,\"{}\",\n",
        rupees(b)
    );
    import(&app, &finance, &mapping, "back.csv", &back).await;
    let kept = items(&app, &finance).await;
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter()
            .any(|i| i["reference"] == "712345678972" && i["kind"] == "reversed")
    );
}
