//! Servicing (issue 8): the payout, the plan replayed from the stored ledger, repayment choices, payments with UTRs,
//! and finance's confirmation through the money engine. After every step the stored ledger is replayed with the
//! money engine and the API's balances must equal it. Bursts of simultaneous disburses, confirms and payment
//! creations with one idempotency key have exactly one effect.

use std::sync::Arc;

use kilat_domain::{KeyFactStatement, LoanBalances, OrderEvent, Period, Plan, replay};
use kilat_server::auth::operators::{self, Role};
use kilat_server::orders::{self, Actor};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};

const PASSWORD: &str = "correct horse battery";

/// A signed-in operator: the console cookie's token and the CSRF token.
#[derive(Clone)]
pub(crate) struct Op {
    pub(crate) token: String,
    pub(crate) csrf: String,
}

/// A new operator with `roles`, signed in.
pub(crate) async fn operator(app: &TestApp, username: &str, roles: &[Role]) -> Op {
    operators::create(&app.services, username, PASSWORD, roles)
        .await
        .expect("the operator is created");
    op_sign_in(app, username).await
}

/// An operator of `markets` only, signed in.
pub(crate) async fn operator_in(
    app: &TestApp,
    username: &str,
    roles: &[Role],
    markets: &[kilat_domain::Market],
) -> Op {
    operators::create_in(&app.services, username, PASSWORD, roles, markets)
        .await
        .expect("the operator is created");
    op_sign_in(app, username).await
}

/// Signs an existing operator in (again: a console session ends when the business clock moves far).
pub(crate) async fn op_sign_in(app: &TestApp, username: &str) -> Op {
    let response = app
        .post_json(
            "/api/v1/console/login",
            &json!({"username": username, "password": PASSWORD}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .find(|v| v.starts_with("kilat_console="))
        .unwrap();
    let token = cookie
        .trim_start_matches("kilat_console=")
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let body = data(response).await;
    Op {
        token,
        csrf: body["csrfToken"].as_str().unwrap().to_owned(),
    }
}

pub(crate) async fn op_call(
    app: &TestApp,
    op: &Op,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let mut request = app
        .client
        .request(method.clone(), app.url(path))
        .header("cookie", format!("kilat_console={}", op.token));
    if method != Method::GET {
        request = request.header("x-csrf-token", &op.csrf);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

/// A certified Indian borrower with an approved order of `product`: (session, order number, order id).
pub(crate) async fn approved(
    app: &TestApp,
    phone: &str,
    product: &str,
    amount: i64,
    term: &str,
) -> (String, String, String) {
    let market = if product.starts_with("id-") {
        "ID"
    } else {
        "IN"
    };
    let session = app.sign_in(market, phone).await;
    app.certify(market, &session).await;
    let loan = json!({"productCode": product, "amount": amount, "termCode": term});
    let kfs = data(app.post_as("/api/v1/borrower/apply", &session, &loan).await).await;
    let mut confirm = loan.clone();
    confirm["kfsHash"] = kfs["contentHash"].clone();
    confirm["agreementHash"] = app.agreement_hash(&session, &loan).await;
    confirm["idempotencyKey"] = json!(format!("key-{phone}"));
    let order = data(
        app.post_as("/api/v1/borrower/orders", &session, &confirm)
            .await,
    )
    .await;
    let order_no = order["orderNo"].as_str().unwrap().to_owned();
    let (id,): (String,) = sqlx::query_as("SELECT id FROM orders WHERE order_no = $1")
        .bind(&order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    orders::apply(
        &app.services,
        &id,
        OrderEvent::Approve,
        &Actor::Operator("reviewer-1".into()),
    )
    .await
    .unwrap();
    (session, order_no, id)
}

pub(crate) async fn disburse(app: &TestApp, finance: &Op, order_no: &str) -> reqwest::Response {
    op_call(
        app,
        finance,
        Method::POST,
        &format!("/api/v1/console/orders/{order_no}/disburse"),
        Some(json!({"bankReference": bank_reference_of(order_no)})),
    )
    .await
}

/// The bank reference [`disburse`] pays an order out with: its own, as each transfer has (`HDFCN5KL2611237F3K9Q`).
pub(crate) fn bank_reference_of(order_no: &str) -> String {
    format!("HDFCN5{}", order_no.replace('-', ""))
}

/// Replays the stored ledger with the money engine from the plan rebuilt from the accepted KFS, and checks that the
/// API's plan shows exactly those balances. Returns the plan the API answered.
pub(crate) async fn check_ledger(
    app: &TestApp,
    session: &str,
    order_no: &str,
    order_id: &str,
) -> Value {
    let (kfs_json,): (String,) = sqlx::query_as("SELECT kfs_json FROM orders WHERE id = $1")
        .bind(order_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    let kfs: KeyFactStatement = serde_json::from_str(&kfs_json).unwrap();
    let stored = app.db.loan(order_id).await.unwrap().expect("a loan");
    let payout = kilat_server::store::loans::parse_date(&stored.payout_date).unwrap();
    let period = match kfs.product_code.as_str() {
        "in-flexi-6m" | "id-kilat-cicil" => Period::Monthly,
        "id-kilat-30" if kfs.term_code == "30d" => Period::Days(30),
        "in-salary-advance" => Period::Days(kfs.term_code.trim_end_matches('d').parse().unwrap()),
        _ => Period::Days(14),
    };
    let plan = Plan::from_kfs(&kfs, period, payout).unwrap();
    let stored_plan: Plan = serde_json::from_str(&stored.plan_json).unwrap();
    assert_eq!(
        plan, stored_plan,
        "the stored plan is the KFS moved to the payout date"
    );
    let entries: Vec<_> = app
        .db
        .ledger(order_id)
        .await
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(i, e)| {
            assert_eq!(e.seq, i as u64, "sequence numbers without gaps");
            e.entry
        })
        .collect();
    let balances = replay(&plan, &entries).expect("the stored ledger replays");
    check_position(app, order_id, &balances).await;
    let view = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}/plan"), session)
            .await,
    )
    .await;
    assert_eq!(
        view["outstanding"]["total"],
        json!(balances.outstanding.total().unwrap().minor())
    );
    assert_eq!(
        view["paid"]["total"],
        json!(balances.paid.total().unwrap().minor())
    );
    assert_eq!(
        view["due"]["total"],
        json!(balances.due.total().unwrap().minor())
    );
    let installments = view["installments"].as_array().unwrap();
    assert_eq!(installments.len(), balances.installments.len());
    for (shown, engine) in installments.iter().zip(&balances.installments) {
        assert_eq!(shown["seq"], json!(engine.number));
        assert_eq!(shown["dueDate"], json!(engine.due_date.to_string()));
        for (bucket, value) in [
            ("principal", engine.outstanding.principal),
            ("interest", engine.outstanding.interest),
            ("fees", engine.outstanding.fees),
            ("lateCharges", engine.outstanding.late_charges),
        ] {
            assert_eq!(
                shown["outstanding"][bucket],
                json!(value.minor()),
                "{bucket}"
            );
        }
        assert_eq!(
            shown["paid"]["total"],
            json!(engine.paid.total().unwrap().minor())
        );
    }
    view
}

/// The loan's position kept beside its ledger (migration 0044: what the queues and the overdue job read instead of
/// replaying) is the ledger's replay, whatever posted last.
pub(crate) async fn check_position(app: &TestApp, order_id: &str, balances: &LoanBalances) {
    let (due, outstanding, json): (Option<String>, Option<i64>, Option<String>) = sqlx::query_as(
        "SELECT oldest_unpaid_due, outstanding, balances_json FROM loan_arrears WHERE order_id = $1",
    )
    .bind(order_id)
    .fetch_one(app.db.pool())
    .await
    .expect("a paid-out loan has a position");
    let stored: LoanBalances =
        serde_json::from_str(&json.expect("the balances are written with every entry")).unwrap();
    assert_eq!(
        &stored, balances,
        "the stored balances are the ledger's replay"
    );
    assert_eq!(
        outstanding,
        Some(balances.outstanding.total().unwrap().minor()),
        "the stored outstanding"
    );
    assert_eq!(
        due,
        kilat_server::ledger::arrears_date(balances).map(|d| d.to_string()),
        "the stored arrears date"
    );
}

pub(crate) async fn status_of(app: &TestApp, order_id: &str) -> String {
    let (status,): (String,) = sqlx::query_as("SELECT status FROM orders WHERE id = $1")
        .bind(order_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    status
}

pub(crate) async fn count(app: &TestApp, sql: &str, id: &str) -> i64 {
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    n
}

pub(crate) async fn create_payment(
    app: &TestApp,
    session: &str,
    order_no: &str,
    choice: &str,
    method: &str,
    key: &str,
) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/v1/borrower/orders/{order_no}/payments")))
        .header("x-session-id", session)
        .header("idempotency-key", key)
        .json(&json!({"choice": choice, "method": method}))
        .send()
        .await
        .unwrap()
}

pub(crate) async fn submit_utr(
    app: &TestApp,
    session: &str,
    payment_id: &str,
    utr: &str,
) -> reqwest::Response {
    app.post_as(
        &format!("/api/v1/borrower/payments/{payment_id}/utr"),
        session,
        &json!({"utr": utr}),
    )
    .await
}

pub(crate) async fn confirm(
    app: &TestApp,
    finance: &Op,
    payment_id: &str,
    amount: i64,
) -> reqwest::Response {
    op_call(
        app,
        finance,
        Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/confirm"),
        Some(json!({"amount": amount})),
    )
    .await
}

#[tokio::test]
async fn a_payout_moves_the_schedule_to_the_payout_date_opens_the_ledger_and_disburses_once() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let (session, order_no, id) =
        approved(&app, "9876500101", "in-flexi-6m", 2_000_000, "m6").await;

    // Not before payout.
    let before = app
        .get_as(
            &format!("/api/v1/borrower/orders/{order_no}/plan"),
            &session,
        )
        .await;
    assert_eq!(before.status(), StatusCode::NOT_FOUND);
    // Only finance pays out, and the bank reference is required.
    assert_eq!(
        disburse(&app, &reviewer, &order_no).await.status(),
        StatusCode::FORBIDDEN
    );
    let missing = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/orders/{order_no}/disburse"),
        Some(json!({})),
    )
    .await;
    assert_eq!(missing.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(missing).await["fields"]["bankReference"].is_string());

    let response = disburse(&app, &finance, &order_no).await;
    assert_eq!(response.status(), StatusCode::OK);
    let done = data(response).await;
    let today = app
        .services
        .clock
        .today(kilat_domain::Market::India)
        .to_string();
    assert_eq!(done["status"], "disbursed");
    assert_eq!(done["payoutDate"], json!(today));
    assert_eq!(done["provider"], "manual");
    assert_eq!(done["bankReference"], bank_reference_of(&order_no));
    assert_eq!(status_of(&app, &id).await, "disbursed");

    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["payoutDate"], json!(today));
    assert_eq!(plan["installments"].as_array().unwrap().len(), 6);
    assert_eq!(plan["paid"]["total"], 0);
    assert_eq!(plan["installments"][0]["status"], "upcoming");
    // payout, fee_deducted, six scheduled.
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        8
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM audit_log WHERE entity_id = $1 AND action = 'payout.create'",
            &id
        )
        .await,
        1
    );

    // Twice: the order is no longer approved.
    let again = disburse(&app, &finance, &order_no).await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "invalid_transition");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        8
    );

    // One installment; a number the plan does not have; another borrower.
    let one = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/plan/1"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(one["seq"], 1);
    assert_eq!(one["due"]["total"], plan["installments"][0]["due"]["total"]);
    for bad in ["7", "0", "x"] {
        let r = app
            .get_as(
                &format!("/api/v1/borrower/orders/{order_no}/plan/{bad}"),
                &session,
            )
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{bad}");
    }
    let other = app.sign_in("IN", "9876500102").await;
    for path in ["plan", "plan/1", "repayment"] {
        let r = app
            .get_as(
                &format!("/api/v1/borrower/orders/{order_no}/{path}"),
                &other,
            )
            .await;
        assert_eq!(r.status(), StatusCode::NOT_FOUND, "{path}");
    }
    app.stop().await;
}

#[tokio::test]
async fn disbursing_an_order_not_approved_is_a_conflict() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (_, order_no, id) = crate::lifecycle::confirmed_order(&app, "9876500111").await;
    let response = disburse(&app, &finance, &order_no).await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(error(response).await["code"], "invalid_transition");
    assert_eq!(status_of(&app, &id).await, "pending_review");
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        0
    );
    assert_eq!(
        count(&app, "SELECT COUNT(*) FROM loans WHERE order_id = $1", &id).await,
        0
    );
    let unknown = disburse(&app, &finance, "KL-000000-XXXXXX").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn an_installment_paid_by_upi_with_a_utr_is_credited_once_when_finance_confirms() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500121", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );

    // The choices: this installment, the payoff and the cooling-off exit (no extension in this product).
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let choices: Vec<&str> = repayment["choices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["choice"].as_str().unwrap())
        .collect();
    assert_eq!(choices, ["due", "payoff", "cooling_off"]);
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let due = &repayment["choices"][0];
    assert_eq!(
        due["amount"],
        plan["installments"][0]["outstanding"]["total"]
    );
    assert_eq!(due["installment"], 1);
    assert_eq!(repayment["verifying"], false);
    assert_eq!(plan["verifying"], false);
    assert_eq!(plan["installments"][0]["verifying"], false);

    // Payment types of India.
    let types = data(
        app.get_as(
            &format!("/api/v1/borrower/payment-types?orderNo={order_no}"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(types[0]["method"], "upi");
    assert_eq!(types[1]["method"], "bank_transfer");
    assert_eq!(types[1]["ifsc"], "EXMP0000001");
    let missing = app.get_as("/api/v1/borrower/payment-types", &session).await;
    assert_eq!(missing.status(), StatusCode::UNPROCESSABLE_ENTITY);

    // Bad requests are field errors.
    let bad = create_payment(&app, &session, &order_no, "everything", "cash", "short").await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let fields = error(bad).await["fields"].clone();
    assert!(fields["choice"].is_string() && fields["method"].is_string());
    assert!(fields["Idempotency-Key"].is_string());

    // A payment, and its retry with the same key.
    let response = create_payment(&app, &session, &order_no, "due", "upi", "pay-key-0001").await;
    assert_eq!(response.status(), StatusCode::OK);
    let payment = data(response).await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(payment["status"], "pending");
    assert_eq!(payment["amount"], due["amount"]);
    let reference = payment["reference"].as_str().unwrap();
    assert!(
        reference.starts_with("KP") && reference.len() == 12,
        "{reference}"
    );
    assert!(
        payment["instructions"]["upiUri"]
            .as_str()
            .unwrap()
            .contains(reference)
    );
    let retry =
        data(create_payment(&app, &session, &order_no, "due", "upi", "pay-key-0001").await).await;
    assert_eq!(retry["paymentId"], json!(payment_id));
    let reused = create_payment(&app, &session, &order_no, "payoff", "upi", "pay-key-0001").await;
    assert_eq!(reused.status(), StatusCode::CONFLICT);
    assert_eq!(error(reused).await["code"], "idempotency_key_reused");

    // Confirming before a UTR: nothing to confirm.
    let early = confirm(&app, &finance, &payment_id, 1).await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    assert_eq!(error(early).await["code"], "payment_not_open");

    // UTR formats: UPI takes 12 digits.
    for bad in ["12345", "ABCDEFGHIJKL", "1234567890123456"] {
        let r = submit_utr(&app, &session, &payment_id, bad).await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(r).await["fields"]["utr"].is_string());
    }
    let submitted = submit_utr(&app, &session, &payment_id, "412345678901").await;
    assert_eq!(submitted.status(), StatusCode::OK);
    assert_eq!(data(submitted).await["status"], "verifying");
    let again = submit_utr(&app, &session, &payment_id, "412345678902").await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "payment_not_open");
    let shown = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(shown["verifying"], true, "payment received, verifying");
    // The plan says it too, on the loan and on its installments (read with the order, in one statement).
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["verifying"], true);
    assert_eq!(plan["installments"][0]["verifying"], true);

    // The same UTR on another payment (a bank transfer) is refused.
    let second = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "bank_transfer",
            "pay-key-0002",
        )
        .await,
    )
    .await;
    let second_id = second["paymentId"].as_str().unwrap();
    let dup = submit_utr(&app, &session, second_id, "412345678901").await;
    assert_eq!(dup.status(), StatusCode::CONFLICT);
    assert_eq!(error(dup).await["code"], "utr_already_used");
    // NEFT/RTGS references are 16 or 22 letters and digits.
    assert_eq!(
        submit_utr(&app, &session, second_id, "HDFC1234567890")
            .await
            .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        submit_utr(&app, &session, second_id, "hdfcr5202611250000001")
            .await
            .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        submit_utr(&app, &session, second_id, "hdfcr520261125000000012")
            .await
            .status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        submit_utr(&app, &session, second_id, "HDFCN52026112512")
            .await
            .status(),
        StatusCode::OK
    );

    // Finance's queue shows both with the loan's outstanding amount.
    let queue = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/payments",
            None,
        )
        .await,
    )
    .await;
    let queue = queue.as_array().unwrap();
    assert_eq!(queue.len(), 2);
    assert_eq!(queue[0]["payment"]["paymentId"], json!(payment_id));
    assert_eq!(queue[0]["payment"]["utr"], "412345678901");
    assert_eq!(queue[0]["outstanding"], plan["outstanding"]["total"]);

    // A different amount is held, not credited.
    let amount = payment["amount"].as_i64().unwrap();
    let held = confirm(&app, &finance, &payment_id, amount - 100).await;
    assert_eq!(held.status(), StatusCode::OK);
    let held = data(held).await;
    assert_eq!(held["payment"]["status"], "held");
    assert_eq!(held["ledgerSeq"], Value::Null);
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        8
    );
    check_ledger(&app, &session, &order_no, &id).await;

    // The right amount is posted once.
    let done = data(confirm(&app, &finance, &payment_id, amount).await).await;
    assert_eq!(done["payment"]["status"], "confirmed");
    assert_eq!(done["ledgerSeq"], 8);
    assert_eq!(done["orderStatus"], "disbursed");
    let twice = confirm(&app, &finance, &payment_id, amount).await;
    assert_eq!(twice.status(), StatusCode::CONFLICT);
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        9
    );
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["installments"][0]["status"], "paid");
    assert_eq!(plan["installments"][0]["paid"]["total"], json!(amount));

    // The second payment is rejected with a reason; nothing posted. Confirmed afterwards (its money came after all),
    // it is held at what finance typed, nothing credited: finance then credits or refunds it.
    let rejected = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/payments/{second_id}/reject"),
        Some(json!({"reason": "No such credit on the statement."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    let rejected = data(rejected).await;
    assert_eq!(rejected["status"], "rejected");
    assert_eq!(rejected["reason"], "No such credit on the statement.");
    let held = data(confirm(&app, &finance, second_id, 1).await).await;
    assert_eq!(held["payment"]["status"], "held", "{held}");
    assert_eq!(held["ledgerSeq"], Value::Null);
    check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM audit_log WHERE entity_id = $1 AND action LIKE 'payment.%'",
            &id
        )
        .await,
        // two UTRs, a hold, a confirmation, a rejection, a hold
        6
    );
    // Another borrower cannot see the payment.
    let other = app.sign_in("IN", "9876500122").await;
    assert_eq!(
        app.get_as(&format!("/api/v1/borrower/payments/{payment_id}"), &other)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

/// Pays `choice` by UPI with `utr` and has finance confirm the exact amount; returns the confirmation.
pub(crate) async fn pay(
    app: &TestApp,
    finance: &Op,
    session: &str,
    order_no: &str,
    choice: &str,
    key: &str,
    utr: &str,
) -> Value {
    let response = create_payment(app, session, order_no, choice, "upi", key).await;
    assert_eq!(response.status(), StatusCode::OK, "{choice}");
    let payment = data(response).await;
    let id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(app, session, id, utr).await.status(),
        StatusCode::OK
    );
    let response = confirm(app, finance, id, payment["amount"].as_i64().unwrap()).await;
    assert_eq!(response.status(), StatusCode::OK);
    data(response).await
}

#[tokio::test]
async fn a_payoff_repays_the_loan_and_closes_the_order() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500131", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let done = pay(
        &app,
        &finance,
        &session,
        &order_no,
        "payoff",
        "payoff-key-1",
        "500000000001",
    )
    .await;
    assert_eq!(done["orderStatus"], "repaid");
    assert_eq!(status_of(&app, &id).await, "repaid");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["outstanding"]["total"], 0);
    assert_eq!(plan["closedBy"], "payoff");
    // Nothing more to pay, and a closed order takes no payment.
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(repayment["choices"], json!([]));
    let closed = create_payment(&app, &session, &order_no, "due", "upi", "after-close").await;
    assert_eq!(closed.status(), StatusCode::CONFLICT);
    assert_eq!(error(closed).await["code"], "choice_unavailable");
    app.stop().await;
}

#[tokio::test]
async fn the_cooling_off_exit_charges_principal_and_the_days_interest_only_and_ends_the_order() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500141", "in-flexi-6m", 2_000_000, "m6").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let exit = repayment["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == "cooling_off")
        .unwrap()
        .clone();
    // Paid out today: no day used, so the principal less the fees kept, which are credited back.
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(exit["amount"], plan["paidOut"]);
    let done = pay(
        &app,
        &finance,
        &session,
        &order_no,
        "cooling_off",
        "exit-key-01",
        "500000000002",
    )
    .await;
    assert_eq!(done["orderStatus"], "exited_in_cooling_off");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["closedBy"], "cooling_off_exit");
    assert_eq!(plan["paid"]["fees"], 0);
    assert_eq!(plan["paid"]["lateCharges"], 0);
    assert_eq!(plan["paid"]["interest"], 0);
    assert_eq!(plan["outstanding"]["total"], 0);
    app.stop().await;
}

/// Two fees paid for the same extension (two tabs, or UPI and a bank transfer, each its own payment): the first buys
/// it, the second is held for finance, never a second extension priced for a schedule the loan no longer has. And no
/// extension is offered or started while a payment of the loan waits for finance: money that may have paid the
/// installment is decided first, so a fee never buys days on an installment paid already.
#[tokio::test]
async fn a_second_fee_for_the_same_extension_is_held_and_none_is_sold_while_a_payment_waits() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500152", "in-salary-advance", 1_000_000, "30d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let mut fees = Vec::new();
    for (method, key) in [
        ("upi", "ext-two-tabs-1"),
        ("bank_transfer", "ext-two-tabs-2"),
    ] {
        let created =
            data(create_payment(&app, &session, &order_no, "extension", method, key).await).await;
        fees.push((
            created["paymentId"].as_str().unwrap().to_owned(),
            created["amount"].as_i64().unwrap(),
        ));
    }
    assert_eq!(fees[0].1, fees[1].1);
    for ((payment_id, _), utr) in fees.iter().zip(["500000000101", "500000000102"]) {
        assert_eq!(
            submit_utr(&app, &session, payment_id, utr).await.status(),
            StatusCode::OK
        );
    }
    // While they wait, no extension is offered or started.
    let offer = app
        .get_as(
            &format!("/api/v1/borrower/orders/{order_no}/extension"),
            &session,
        )
        .await;
    assert_eq!(offer.status(), StatusCode::CONFLICT);
    assert_eq!(error(offer).await["code"], "payment_waiting");
    let third = create_payment(
        &app,
        &session,
        &order_no,
        "extension",
        "upi",
        "ext-two-tabs-3",
    )
    .await;
    assert_eq!(third.status(), StatusCode::CONFLICT);
    assert_eq!(error(third).await["code"], "payment_waiting");
    // The one started before is answered again for its key (a retry), not refused.
    let again = create_payment(
        &app,
        &session,
        &order_no,
        "extension",
        "upi",
        "ext-two-tabs-1",
    )
    .await;
    assert_eq!(data(again).await["paymentId"], fees[0].0);
    let before = check_ledger(&app, &session, &order_no, &id).await;
    let first = data(confirm(&app, &finance, &fees[0].0, fees[0].1).await).await;
    assert_eq!(first["payment"]["status"], "confirmed", "{first}");
    let second = data(confirm(&app, &finance, &fees[1].0, fees[1].1).await).await;
    assert_eq!(second["payment"]["status"], "held", "{second}");
    let after = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(after["extensionsGranted"], 1);
    let moved = |v: &Value| {
        kilat_server::store::loans::parse_date(v["installments"][0]["dueDate"].as_str().unwrap())
            .unwrap()
    };
    assert_eq!(moved(&after) - moved(&before), time::Duration::days(7));
    // The second fee is kept for finance to credit to the loan or refund.
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payments WHERE order_id = $1 AND status = 'held'",
            &id
        )
        .await,
        1
    );
    app.stop().await;
}

#[tokio::test]
async fn an_extension_shown_accepted_and_paid_moves_the_due_date_and_the_repaid_loan_is_rated_once()
{
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500151", "in-flexi-14d", 1_000_000, "14dx3").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let before = check_ledger(&app, &session, &order_no, &id).await;
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let extension = repayment["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == "extension")
        .expect("the product allows an extension")
        .clone();
    let old = kilat_server::store::loans::parse_date(
        before["installments"][0]["dueDate"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(
        extension["dueDate"],
        json!((old + time::Duration::days(7)).to_string())
    );
    // The extension's detail before accepting: the fee, the new date, the revised schedule.
    let offer = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/extension"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(offer["fee"], extension["amount"]);
    assert_eq!(offer["newDueDate"], extension["dueDate"]);
    assert_eq!(
        offer["currentDueDate"],
        before["installments"][0]["dueDate"]
    );
    assert_eq!(offer["days"], 7);
    let revised = offer["revisedSchedule"].as_array().unwrap();
    assert_eq!(revised.len(), 3);
    assert_eq!(revised[0]["dueDate"], extension["dueDate"]);
    assert_eq!(
        revised[0]["amount"],
        before["installments"][0]["due"]["total"]
    );
    // Accepting starts the fee's payment.
    let accepted = app
        .client
        .post(app.url(&format!("/api/v1/borrower/orders/{order_no}/extension")))
        .header("x-session-id", &session)
        .header("idempotency-key", "ext-key-001")
        .json(&json!({"method": "upi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::OK);
    let payment = data(accepted).await;
    assert_eq!(payment["choice"], "extension");
    assert_eq!(payment["amount"], offer["fee"]);
    let payment_id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, payment_id, "500000000003")
            .await
            .status(),
        StatusCode::OK
    );
    let done = data(
        confirm(
            &app,
            &finance,
            payment_id,
            payment["amount"].as_i64().unwrap(),
        )
        .await,
    )
    .await;
    assert_eq!(done["orderStatus"], "disbursed");
    let after = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(after["installments"][0]["dueDate"], extension["dueDate"]);
    assert_eq!(after["installments"][1]["dueDate"], revised[1]["dueDate"]);
    assert_eq!(after["extensionsGranted"], 1);
    // The product allows one.
    let no_more = app
        .get_as(
            &format!("/api/v1/borrower/orders/{order_no}/extension"),
            &session,
        )
        .await;
    assert_eq!(no_more.status(), StatusCode::CONFLICT);
    assert_eq!(error(no_more).await["code"], "choice_unavailable");
    // Not ended yet: no rating.
    let early = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/rating"),
            &session,
            &json!({"score": 5}),
        )
        .await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    assert_eq!(error(early).await["code"], "invalid_transition");
    // Then each installment in turn until nothing is outstanding.
    for (n, utr) in ["500000000004", "500000000005", "500000000006"]
        .iter()
        .enumerate()
    {
        let done = pay(
            &app,
            &finance,
            &session,
            &order_no,
            "due",
            &format!("due-key-{n:04}"),
            utr,
        )
        .await;
        check_ledger(&app, &session, &order_no, &id).await;
        let expected = if n == 2 { "repaid" } else { "disbursed" };
        assert_eq!(done["orderStatus"], expected);
    }
    assert_eq!(status_of(&app, &id).await, "repaid");
    // The loan has ended: the borrower rates it, once.
    let rating = format!("/api/v1/borrower/orders/{order_no}/rating");
    for bad in [json!({"score": 0}), json!({"score": 6}), json!({})] {
        let r = app.post_as(&rating, &session, &bad).await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(r).await["fields"]["score"].is_string());
    }
    let rated = app
        .post_as(
            &rating,
            &session,
            &json!({"score": 5, "comment": "Quick and clear."}),
        )
        .await;
    assert_eq!(rated.status(), StatusCode::OK);
    assert_eq!(data(rated).await["score"], 5);
    let again = app.post_as(&rating, &session, &json!({"score": 4})).await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "already_rated");
    let other = app.sign_in("IN", "9876500152").await;
    assert_eq!(
        app.post_as(&rating, &other, &json!({"score": 1}))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn simultaneous_disburses_confirms_and_payment_creations_each_have_exactly_one_effect() {
    let app = Arc::new(spawn_app().await);
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500161", "in-flexi-6m", 2_000_000, "m6").await;

    let burst = |f: Arc<dyn Fn() -> futures_like::BoxFut + Send + Sync>| async move {
        let handles: Vec<_> = (0..8).map(|_| tokio::spawn(f())).collect();
        let mut statuses = Vec::new();
        for h in handles {
            statuses.push(h.await.unwrap());
        }
        statuses
    };

    let (a, f, o) = (app.clone(), finance.clone(), order_no.clone());
    let statuses = burst(Arc::new(move || {
        let (a, f, o) = (a.clone(), f.clone(), o.clone());
        Box::pin(async move { disburse(&a, &f, &o).await.status() })
    }))
    .await;
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::OK).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::OK || *s == StatusCode::CONFLICT),
        "{statuses:?}"
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payouts WHERE order_id = $1",
            &id
        )
        .await,
        1
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        8
    );

    let (a, s, o) = (app.clone(), session.clone(), order_no.clone());
    let ids = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = ids.clone();
    let statuses = burst(Arc::new(move || {
        let (a, s, o, seen) = (a.clone(), s.clone(), o.clone(), seen.clone());
        Box::pin(async move {
            let r = create_payment(&a, &s, &o, "due", "upi", "burst-key-01").await;
            let status = r.status();
            if status == StatusCode::OK {
                let id = data(r).await["paymentId"].as_str().unwrap().to_owned();
                seen.lock().unwrap().push(id);
            }
            status
        })
    }))
    .await;
    assert!(
        statuses.iter().all(|s| *s == StatusCode::OK),
        "{statuses:?}"
    );
    let ids = ids.lock().unwrap().clone();
    assert!(
        ids.iter().all(|i| *i == ids[0]),
        "one payment for one key: {ids:?}"
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM payments WHERE order_id = $1",
            &id
        )
        .await,
        1
    );

    let payment_id = ids[0].clone();
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "600000000001")
            .await
            .status(),
        StatusCode::OK
    );
    let payment = data(
        app.get_as(&format!("/api/v1/borrower/payments/{payment_id}"), &session)
            .await,
    )
    .await;
    let amount = payment["amount"].as_i64().unwrap();
    let (a, f, p) = (app.clone(), finance.clone(), payment_id.clone());
    let statuses = burst(Arc::new(move || {
        let (a, f, p) = (a.clone(), f.clone(), p.clone());
        Box::pin(async move { confirm(&a, &f, &p, amount).await.status() })
    }))
    .await;
    assert_eq!(
        statuses.iter().filter(|s| **s == StatusCode::OK).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::OK || *s == StatusCode::CONFLICT),
        "{statuses:?}"
    );
    assert_eq!(
        count(
            &app,
            "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1",
            &id
        )
        .await,
        9
    );
    check_ledger(&app, &session, &order_no, &id).await;
    Arc::try_unwrap(app)
        .ok()
        .expect("no clone left")
        .stop()
        .await;
}

#[tokio::test]
async fn an_indonesian_loan_is_paid_to_a_virtual_account_that_takes_no_utr() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "081234567801", "id-kilat-30", 100_000_000, "14d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["currency"], "IDR");
    let types = data(
        app.get_as(
            &format!("/api/v1/borrower/payment-types?orderNo={order_no}"),
            &session,
        )
        .await,
    )
    .await;
    // The virtual account first, then Dragonpay (offered in Indonesia by the defaults).
    assert_eq!(types.as_array().unwrap().len(), 2);
    assert_eq!(types[0]["method"], "virtual_account");
    assert_eq!(types[1]["method"], "dragonpay");
    assert_eq!(types[0]["bankCode"], "BCA");
    assert_eq!(types[0]["virtualAccount"], Value::Null);
    // India's methods are not Indonesia's.
    let upi = create_payment(&app, &session, &order_no, "due", "upi", "va-key-0001").await;
    assert_eq!(upi.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "va-key-0002",
        )
        .await,
    )
    .await;
    let va = payment["instructions"]["virtualAccount"].as_str().unwrap();
    assert!(va.starts_with("8808") && va.len() == 16, "{va}");
    // Paid on the payout day, the only installment costs what paying the loan off costs that day: no interest for
    // the days not used.
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let payoff = repayment["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == "payoff")
        .unwrap()["amount"]
        .clone();
    assert_eq!(payment["amount"], payoff);
    assert!(payoff.as_i64().unwrap() < plan["outstanding"]["total"].as_i64().unwrap());
    let same = data(
        app.get_as(
            &format!(
                "/api/v1/borrower/payments/{}",
                payment["paymentId"].as_str().unwrap()
            ),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(
        same["instructions"]["virtualAccount"],
        json!(va),
        "the same account each time"
    );
    let utr = submit_utr(
        &app,
        &session,
        payment["paymentId"].as_str().unwrap(),
        "412345678901",
    )
    .await;
    assert_eq!(utr.status(), StatusCode::CONFLICT);
    assert_eq!(error(utr).await["code"], "payment_not_open");
    app.stop().await;
}

#[tokio::test]
async fn an_overdue_loan_whose_due_installments_are_paid_catches_up() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (_, order_no, id) = approved(&app, "9876500171", "in-flexi-14d", 1_000_000, "14dx3").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    // Sixteen days later the first installment (due on day 14) is overdue; the overdue job (a later slice) would
    // mark the order so.
    let payout = app.services.clock.today(kilat_domain::Market::India);
    let later = payout + time::Duration::days(16);
    app.set_date(later).await;
    orders::apply(
        &app.services,
        &id,
        OrderEvent::FallOverdue,
        &Actor::System("overdue"),
    )
    .await
    .unwrap();
    // Sessions older than their idle limit ended with the move: sign in again.
    let session = app.sign_in("IN", "9876500171").await;
    let finance = operator(&app, "fin2", &[Role::Finance]).await;
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["installments"][0]["status"], "overdue");
    assert_eq!(plan["installments"][1]["status"], "upcoming");
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let due = &repayment["choices"][0];
    assert_eq!(due["choice"], "due");
    assert_eq!(
        due["amount"],
        plan["installments"][0]["outstanding"]["total"]
    );
    assert_eq!(due["dueDate"], plan["installments"][0]["dueDate"]);
    // No cooling-off exit any more (three days).
    assert!(
        repayment["choices"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["choice"] != "cooling_off")
    );
    let done = pay(
        &app,
        &finance,
        &session,
        &order_no,
        "due",
        "late-key-01",
        "800000000001",
    )
    .await;
    assert_eq!(done["orderStatus"], "disbursed", "caught up");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["installments"][0]["status"], "paid");
    assert_eq!(status_of(&app, &id).await, "disbursed");
    app.stop().await;
}

/// An extension fee sent while the loan is overdue and confirmed after the new due date has passed buys its days,
/// but the loan is overdue again on the day it is credited: the order stays `overdue`, never shown paid out and
/// current until the next overdue run.
#[tokio::test]
async fn an_extension_credited_after_its_new_due_date_leaves_the_loan_overdue() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (_, order_no, id) = approved(&app, "9876500172", "in-flexi-14d", 1_000_000, "14dx3").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let payout = app.services.clock.today(kilat_domain::Market::India);
    app.set_date(payout + time::Duration::days(20)).await;
    orders::apply(
        &app.services,
        &id,
        OrderEvent::FallOverdue,
        &Actor::System("overdue"),
    )
    .await
    .unwrap();
    app.run_overdue(kilat_domain::Market::India).await;
    let session = app.sign_in("IN", "9876500172").await;
    // The offer's schedule asks what is owed on the new date: the late charges posted stay.
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let offer = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/extension"),
            &session,
        )
        .await,
    )
    .await;
    let first = &offer["revisedSchedule"][0];
    let late = plan["installments"][0]["outstanding"]["lateCharges"]
        .as_i64()
        .unwrap();
    assert!(late > 0, "{plan}");
    assert_eq!(first["lateCharges"], late);
    assert_eq!(first["paid"], 0);
    assert_eq!(
        first["toPay"],
        plan["installments"][0]["outstanding"]["total"]
    );
    assert_eq!(
        first["toPay"].as_i64().unwrap(),
        first["amount"].as_i64().unwrap() + late
    );
    // Six days overdue, the fee moves the installment to day 21; it is sent on day 20.
    let fee =
        data(create_payment(&app, &session, &order_no, "extension", "upi", "late-ext-01").await)
            .await;
    let payment_id = fee["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "800000000011")
            .await
            .status(),
        StatusCode::OK
    );
    // Finance confirms it on day 23: the new due date has passed.
    app.set_date(payout + time::Duration::days(23)).await;
    let finance = operator(&app, "fin2", &[Role::Finance]).await;
    let confirmed =
        data(confirm(&app, &finance, &payment_id, fee["amount"].as_i64().unwrap()).await).await;
    assert_eq!(confirmed["payment"]["status"], "confirmed", "{confirmed}");
    let session = app.sign_in("IN", "9876500172").await;
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["extensionsGranted"], 1);
    assert_eq!(
        plan["installments"][0]["dueDate"],
        json!((payout + time::Duration::days(21)).to_string())
    );
    assert_eq!(
        status_of(&app, &id).await,
        "overdue",
        "overdue again on the day it is credited"
    );
    app.stop().await;
}

/// The next installment paid before its date asks only the days used (never more than paying the loan off today);
/// the choice also says what it asks on its due date, so the app never labels today's amount with that date.
#[tokio::test]
async fn the_due_choice_says_what_it_asks_on_its_date_beside_what_it_asks_today() {
    let app = spawn_app().await;
    let crate::builders::Loan {
        session,
        order_no,
        plan,
        ..
    } = app
        .borrower(crate::builders::ID)
        .loan("id-kilat-30", 100_000_000, "14d")
        .disbursed()
        .await;
    let repayment = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/repayment"),
            &session,
        )
        .await,
    )
    .await;
    let choices = repayment["choices"].as_array().unwrap();
    let due = choices.iter().find(|c| c["choice"] == "due").unwrap();
    let on_date = plan["installments"][0]["outstanding"]["total"]
        .as_i64()
        .unwrap();
    assert_eq!(due["amountOnDueDate"], on_date);
    assert!(
        due["amount"].as_i64().unwrap() < on_date,
        "paid on payout day, no day's interest: {due}"
    );
    let payoff = choices.iter().find(|c| c["choice"] == "payoff").unwrap();
    assert_eq!(payoff["amountOnDueDate"], Value::Null);
    app.stop().await;
}

mod futures_like {
    pub type BoxFut =
        std::pin::Pin<Box<dyn std::future::Future<Output = reqwest::StatusCode> + Send>>;
}

/// An extension's fee started before a repayment of the installment was sent, and paid after it: while the
/// repayment waits for finance, the fee's money is held, not credited as an extension of an installment that money may
/// have paid; finance decides both.
#[tokio::test]
async fn an_extension_fee_arriving_while_a_repayment_waits_is_held() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, id) =
        approved(&app, "9876500153", "in-salary-advance", 1_000_000, "30d").await;
    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let fee = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "extension",
            "upi",
            "ext-before-due-1",
        )
        .await,
    )
    .await;
    let due = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "bank_transfer",
            "due-after-ext-1",
        )
        .await,
    )
    .await;
    let (fee_id, due_id) = (
        fee["paymentId"].as_str().unwrap(),
        due["paymentId"].as_str().unwrap(),
    );
    assert_eq!(
        submit_utr(&app, &session, due_id, "500000000111")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        submit_utr(&app, &session, fee_id, "500000000112")
            .await
            .status(),
        StatusCode::OK
    );
    let held = data(confirm(&app, &finance, fee_id, fee["amount"].as_i64().unwrap()).await).await;
    assert_eq!(held["payment"]["status"], "held", "{held}");
    let paid = data(confirm(&app, &finance, due_id, due["amount"].as_i64().unwrap()).await).await;
    assert_eq!(paid["payment"]["status"], "confirmed", "{paid}");
    let after = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(after["extensionsGranted"], 0);
    app.stop().await;
}
