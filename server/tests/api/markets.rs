//! Operators scoped to markets (issue 18 item 7; docs/API-CONSOLE.md, "Markets of an operator"): an operator of India
//! only never sees an Indonesian record in any list, count or export, is answered 404 on an Indonesian order, payment
//! or ticket (its existence not revealed), and 422 on `market=ID`; the admin chooses the markets; and a password an
//! admin set must be changed at the first sign-in (403 `password_change_required` everywhere but `me`, `logout` and
//! `password`).

use kilat_domain::{Code, Market};
use kilat_server::auth::operators::{self, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{Op, approved, create_payment, disburse, operator};

const PASSWORD: &str = "correct horse battery";

/// Signs an existing operator in with `password`.
async fn sign_in_with(app: &TestApp, username: &str, password: &str) -> (Op, Value) {
    let response = app
        .post_json(
            "/api/v1/console/login",
            &json!({"username": username, "password": password}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK, "{username} signs in");
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
    (
        Op {
            token,
            csrf: body["csrfToken"].as_str().unwrap().to_owned(),
        },
        body["operator"].clone(),
    )
}

/// An operator of `markets` with `roles`, created without HTTP (as the command line does) and signed in.
async fn scoped(app: &TestApp, username: &str, roles: &[Role], markets: &[Market]) -> Op {
    operators::create_in(&app.services, username, PASSWORD, roles, markets)
        .await
        .expect("the operator is created");
    sign_in_with(app, username, PASSWORD).await.0
}

/// A console call in English.
async fn call(
    app: &TestApp,
    op: &Op,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let mut request = app
        .client
        .request(method.clone(), app.url(path))
        .header("cookie", format!("kilat_console={}", op.token))
        .header("accept-language", "en");
    if method != Method::GET {
        request = request.header("x-csrf-token", &op.csrf);
    }
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

async fn get_ok(app: &TestApp, op: &Op, path: &str) -> Value {
    let response = call(app, op, Method::GET, path, None).await;
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    data(response).await
}

async fn text_ok(app: &TestApp, op: &Op, path: &str) -> String {
    let response = call(app, op, Method::GET, path, None).await;
    assert_eq!(response.status(), StatusCode::OK, "GET {path}");
    response.text().await.unwrap()
}

/// The field error of a refused call on `market`.
async fn market_refused(app: &TestApp, op: &Op, method: Method, path: &str, body: Option<Value>) {
    let response = call(app, op, method.clone(), path, body).await;
    assert_eq!(
        response.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "{method} {path}"
    );
    let err = error(response).await;
    assert_eq!(
        err["fields"]["market"], "You do not work in this market.",
        "{method} {path}: {err}"
    );
}

/// A confirmed (in review) order of a borrower of `market`: its number.
async fn in_review(app: &TestApp, market: &str, phone: &str) -> String {
    let (product, amount, term) = if market == "IN" {
        ("in-flexi-6m", 2_000_000, "m6")
    } else {
        ("id-kilat-30", 100_000_000, "14d")
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
    order["orderNo"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_operator_of_india_never_sees_an_indonesian_record_in_any_list_count_export_or_action() {
    let app = spawn_app().await;
    let both = operator(
        &app,
        "both",
        &[
            Role::Admin,
            Role::Reviewer,
            Role::Finance,
            Role::Support,
            Role::Collections,
        ],
    )
    .await;
    let india = scoped(
        &app,
        "india",
        &[
            Role::Reviewer,
            Role::Finance,
            Role::Support,
            Role::Collections,
        ],
        &[Market::India],
    )
    .await;
    let india_admin = scoped(&app, "india-admin", &[Role::Admin], &[Market::India]).await;

    // India: one order in review. Indonesia: one in review, one approved (awaiting payout), one paid out with a
    // payment waiting, a complaint and a contact message.
    let in_order = in_review(&app, "IN", "9876500901").await;
    let id_review = in_review(&app, "ID", "081234567901").await;
    let (_s, id_approved, _i) =
        approved(&app, "081234567902", "id-kilat-30", 100_000_000, "14d").await;
    let (id_session, id_loan, _i) =
        approved(&app, "081234567903", "id-kilat-30", 100_000_000, "14d").await;
    assert_eq!(
        disburse(&app, &both, &id_loan).await.status(),
        StatusCode::OK
    );
    let payment = data(
        create_payment(
            &app,
            &id_session,
            &id_loan,
            "due",
            "virtual_account",
            "scope-key-01",
        )
        .await,
    )
    .await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let complaint = app
        .post_as(
            "/api/v1/borrower/complaints",
            &id_session,
            &json!({"category": "charges", "orderNo": id_loan, "description": "Biaya ditagih dua kali."}),
        )
        .await;
    assert_eq!(complaint.status(), StatusCode::CREATED);
    let ticket = data(complaint).await["ticketNo"]
        .as_str()
        .unwrap()
        .to_owned();
    for (name, telephone) in [("Budi", "+62 812 3456 7890"), ("Asha", "+91 98450 01234")] {
        let response = app
            .post_json(
                "/api/v1/site/contact-messages",
                &json!({"name": name, "telephone": telephone, "message": "Tolong hubungi saya."}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    let id_mapping = call(
        &app,
        &both,
        Method::POST,
        "/api/v1/console/reconciliation/mappings",
        Some(json!({"name": "BCA giro", "market": "ID", "delimiter": ";", "skipRows": 1, "dateColumn": 1,
            "dateFormat": "dd/mm/yyyy", "referenceColumn": 2, "amountColumn": 3, "decimalSeparator": ",",
            "thousandsSeparator": "."})),
    )
    .await;
    assert_eq!(id_mapping.status(), StatusCode::OK);
    let id_mapping = data(id_mapping).await["id"].as_str().unwrap().to_owned();
    let id_numbers = [
        id_review.as_str(),
        id_approved.as_str(),
        id_loan.as_str(),
        ticket.as_str(),
        payment_id.as_str(),
    ];
    let shows_none = |what: &str, text: &str| {
        for no in id_numbers {
            assert!(!text.contains(no), "{what} shows {no}: {text}");
        }
    };

    // The operator of both markets sees Indonesia (the fixtures are real).
    let counts = get_ok(&app, &both, "/api/v1/console/applications/counts").await;
    assert_eq!(counts.as_array().unwrap().len(), 2);
    assert_eq!(
        call(
            &app,
            &both,
            Method::GET,
            &format!("/api/v1/console/orders/{id_loan}"),
            None
        )
        .await
        .status(),
        StatusCode::OK
    );
    let complaints = get_ok(&app, &both, "/api/v1/console/complaints?status=all").await;
    assert!(complaints.to_string().contains(&ticket), "{complaints}");
    let messages = get_ok(&app, &both, "/api/v1/console/contact-messages").await;
    assert_eq!(messages["items"].as_array().unwrap().len(), 2);
    assert_eq!(messages["total"], 2);

    // India's operator: every list, count and export without Indonesia.
    let me = get_ok(&app, &india, "/api/v1/console/me").await;
    assert_eq!(me["markets"], json!(["IN"]));
    let counts = get_ok(&app, &india, "/api/v1/console/applications/counts").await;
    assert_eq!(counts.as_array().unwrap().len(), 1, "{counts}");
    assert_eq!(counts[0]["market"], "IN");
    assert_eq!(counts[0]["waiting"], 1);
    let queue = get_ok(&app, &india, "/api/v1/console/applications?market=IN").await;
    assert!(queue.to_string().contains(&in_order));
    for path in [
        "/api/v1/console/applications?market=IN",
        "/api/v1/console/payouts?market=IN",
        "/api/v1/console/payments",
        "/api/v1/console/payments/counts",
        "/api/v1/console/reconciliation/mappings",
        "/api/v1/console/reconciliation/imports",
        "/api/v1/console/collections?market=IN",
        "/api/v1/console/complaints",
        "/api/v1/console/complaints?status=all",
        "/api/v1/console/audit",
        "/api/v1/console/audit?action=order.",
    ] {
        let answer = get_ok(&app, &india, path).await;
        shows_none(path, &answer.to_string());
        assert!(!answer.to_string().contains("\"ID\""), "{path}: {answer}");
        assert!(!answer.to_string().contains("IDR"), "{path}: {answer}");
    }
    let counts = get_ok(&app, &india, "/api/v1/console/payments/counts").await;
    assert!(
        counts
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["market"] == "IN")
    );
    let mappings = get_ok(&app, &india, "/api/v1/console/reconciliation/mappings").await;
    assert_eq!(mappings, json!([]));
    let messages = get_ok(&app, &india, "/api/v1/console/contact-messages").await;
    assert_eq!(messages["items"].as_array().unwrap().len(), 1, "{messages}");
    assert_eq!(messages["total"], 1, "{messages}");
    assert!(messages.to_string().contains("Asha"));
    let audit = get_ok(
        &app,
        &india,
        &format!("/api/v1/console/audit?orderNo={id_loan}"),
    )
    .await;
    assert_eq!(audit, json!({"entries": [], "next": null}));
    for path in [
        "/api/v1/console/payments/export".to_owned(),
        "/api/v1/console/audit/export".to_owned(),
        format!("/api/v1/console/audit/export?orderNo={id_loan}"),
    ] {
        let csv = text_ok(&app, &india, &path).await;
        shows_none(&path, &csv);
    }

    // A market not theirs, asked for by name: a field error, never the records.
    for path in [
        "/api/v1/console/applications?market=ID",
        "/api/v1/console/payouts?market=ID",
        "/api/v1/console/payments?market=ID",
        "/api/v1/console/payments/export?market=ID",
        "/api/v1/console/unmatched-receipts?market=ID",
        "/api/v1/console/reconciliation/imports?market=ID",
        "/api/v1/console/collections?market=ID",
        "/api/v1/console/complaints?market=ID",
        "/api/v1/console/exports?market=ID&kind=payouts&from=2026-11-01&to=2026-11-27",
    ] {
        market_refused(&app, &india, Method::GET, path, None).await;
    }
    market_refused(
        &app,
        &india,
        Method::POST,
        "/api/v1/console/payouts/bank-file?market=ID",
        None,
    )
    .await;
    market_refused(
        &app,
        &india,
        Method::POST,
        "/api/v1/console/payouts/bank-result",
        Some(json!({"market": "ID", "content": "reference,bank_reference,status,amount\n"})),
    )
    .await;
    market_refused(
        &app,
        &india,
        Method::POST,
        "/api/v1/console/reconciliation/mappings",
        Some(json!({"name": "BCA 2", "market": "ID", "delimiter": ";", "skipRows": 1, "dateColumn": 1,
            "dateFormat": "dd/mm/yyyy", "referenceColumn": 2, "amountColumn": 3, "decimalSeparator": ",",
            "thousandsSeparator": "."})),
    )
    .await;
    market_refused(
        &app,
        &india_admin,
        Method::GET,
        "/api/v1/console/dashboard?market=ID",
        None,
    )
    .await;
    get_ok(&app, &india_admin, "/api/v1/console/dashboard?market=IN").await;

    // Every Indonesian record by its number or id: not found, exactly as an unknown one.
    let unknown = call(
        &app,
        &india,
        Method::GET,
        "/api/v1/console/orders/KL-NOPE-0000",
        None,
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let not_found = error(unknown).await;
    let routes: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::GET,
            format!("/api/v1/console/orders/{id_review}"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/console/orders/{id_loan}"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_review}/claim"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_review}/release"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_review}/approve"),
            Some(json!({"note": "ok"})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_review}/reject"),
            Some(json!({"reason": "Tidak."})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_approved}/disburse"),
            Some(json!({"bankReference": "BCA0000000001"})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_approved}/payout/approve"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_approved}/payout/reject"),
            Some(json!({"reason": "Wrong account."})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/orders/{id_approved}/withdraw"),
            Some(json!({"reason": "The account is closed."})),
        ),
        (
            Method::GET,
            format!("/api/v1/console/collections/{id_loan}"),
            None,
        ),
        (
            Method::GET,
            format!("/api/v1/console/collections/{id_loan}/history"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/collections/{id_loan}/contacts"),
            Some(json!({"channel": "email", "outcome": "left_message", "note": "Sent."})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/collections/{id_loan}/promises"),
            Some(json!({"date": "2026-12-10", "amount": 100})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/collections/{id_loan}/phone"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{payment_id}/confirm"),
            Some(json!({"amount": 100})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{payment_id}/reject"),
            Some(json!({"reason": "No money came."})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{payment_id}/resolve"),
            Some(json!({"action": "credit"})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{payment_id}/refund"),
            Some(json!({"bankReference": "BCA0000000002"})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/payments/{payment_id}/refund/claim"),
            Some(json!({"takeOver": true})),
        ),
        (
            Method::GET,
            format!("/api/v1/console/complaints/{ticket}"),
            None,
        ),
        (
            Method::POST,
            format!("/api/v1/console/complaints/{ticket}/reply"),
            Some(json!({"body": "Kami periksa."})),
        ),
        (
            Method::POST,
            format!("/api/v1/console/complaints/{ticket}/close"),
            None,
        ),
        (
            Method::PUT,
            format!("/api/v1/console/reconciliation/mappings/{id_mapping}"),
            Some(
                json!({"name": "BCA giro", "market": "IN", "delimiter": ";", "skipRows": 1, "dateColumn": 1,
            "dateFormat": "dd/mm/yyyy", "referenceColumn": 2, "amountColumn": 3, "decimalSeparator": ",",
            "thousandsSeparator": "."}),
            ),
        ),
    ];
    for (method, path, body) in &routes {
        let response = call(&app, &india, method.clone(), path, body.clone()).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{method} {path}");
        assert_eq!(error(response).await, not_found, "{method} {path}");
    }
    // Nothing was written by those calls: the Indonesian orders are as they were.
    for (no, status) in [(&id_review, "pending_review"), (&id_approved, "approved")] {
        let (found,): (String,) = sqlx::query_as("SELECT status FROM orders WHERE order_no = $1")
            .bind(no)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        assert_eq!(found, status, "{no}");
    }
    let written: (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log a JOIN operators o ON o.id = a.actor_id
         WHERE o.username = 'india' AND a.entity IN ('order', 'complaint', 'operator', 'statement_mapping')",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(
        written.0, 0,
        "India's operator wrote nothing about a record"
    );
    // The same routes exist and reach the records for the operator of both markets (none of them is a 404 for a
    // route that is not there): each answers as its record's state has it.
    let audit = get_ok(&app, &both, "/api/v1/console/audit").await;
    assert!(audit.to_string().contains(&id_loan), "{audit}");
    for (method, path, body) in routes {
        let response = call(&app, &both, method.clone(), &path, body).await;
        assert_ne!(
            response.status(),
            StatusCode::NOT_FOUND,
            "{method} {path} as both"
        );
    }
    app.stop().await;
}

#[tokio::test]
async fn the_admin_chooses_an_operators_markets_at_least_one_and_existing_operators_keep_both() {
    let app = spawn_app().await;
    let admin = operator(&app, "root", &[Role::Admin]).await;
    let me = get_ok(&app, &admin, "/api/v1/console/me").await;
    assert_eq!(me["markets"], json!(["IN", "ID"]));
    assert_eq!(me["passwordChangeRequired"], false);

    // Created with none, or an unknown one: the field says so.
    for (markets, message) in [
        (json!([]), "Choose at least one market."),
        (json!(["XX"]), "Choose IN (India) or ID (Indonesia)."),
    ] {
        let response = call(
            &app,
            &admin,
            Method::POST,
            "/api/v1/console/operators",
            Some(json!({"username": "asha", "password": "a long initial pw", "roles": ["reviewer"], "markets": markets})),
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(error(response).await["fields"]["markets"], message);
    }
    let created = call(
        &app,
        &admin,
        Method::POST,
        "/api/v1/console/operators",
        Some(json!({"username": "asha", "password": "a long initial pw", "roles": ["reviewer"], "markets": ["id", "IN", "IN"]})),
    )
    .await;
    assert_eq!(created.status(), StatusCode::OK);
    let created = data(created).await;
    assert_eq!(created["markets"], json!(["IN", "ID"]));
    assert_eq!(created["passwordChangeRequired"], true);
    let id = created["id"].as_str().unwrap().to_owned();

    // Changed to Indonesia only: listed so, audited with before and after.
    let path = format!("/api/v1/console/operators/{id}/markets");
    let none = call(
        &app,
        &admin,
        Method::PUT,
        &path,
        Some(json!({"markets": []})),
    )
    .await;
    assert_eq!(none.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(none).await["fields"]["markets"],
        "Choose at least one market."
    );
    let changed = call(
        &app,
        &admin,
        Method::PUT,
        &path,
        Some(json!({"markets": ["ID"]})),
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(data(changed).await["markets"], json!(["ID"]));
    let list = get_ok(&app, &admin, "/api/v1/console/operators").await;
    let asha = list
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["username"] == "asha")
        .unwrap();
    assert_eq!(asha["markets"], json!(["ID"]));
    let (before, after): (String, String) = sqlx::query_as(
        "SELECT before_json, after_json FROM audit_log WHERE action = 'operator.markets' AND entity_id = $1",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert!(before.contains("\"markets\":\"IN,ID\""), "{before}");
    assert!(after.contains("\"markets\":\"ID\""), "{after}");
    // Only an admin changes them.
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let refused = call(
        &app,
        &reviewer,
        Method::PUT,
        &path,
        Some(json!({"markets": ["IN"]})),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let unknown = call(
        &app,
        &admin,
        Method::PUT,
        "/api/v1/console/operators/nobody/markets",
        Some(json!({"markets": ["IN"]})),
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

/// The id of an operator, by username.
async fn operator_id(app: &TestApp, username: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM operators WHERE username = $1")
        .bind(username)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    id
}

#[tokio::test]
async fn an_admin_of_one_market_manages_only_that_markets_operators_and_never_their_own_markets() {
    let app = spawn_app().await;
    let root = operator(&app, "root", &[Role::Admin]).await;
    let india_admin = scoped(&app, "india-admin", &[Role::Admin], &[Market::India]).await;
    scoped(&app, "india-staff", &[Role::Support], &[Market::India]).await;
    scoped(&app, "indo-admin", &[Role::Admin], &[Market::Indonesia]).await;
    scoped(&app, "indo-staff", &[Role::Support], &[Market::Indonesia]).await;
    scoped(&app, "both-staff", &[Role::Reviewer], Market::ALL).await;
    let own = operator_id(&app, "india-admin").await;
    let india_staff = operator_id(&app, "india-staff").await;

    // The list holds the operators whose markets are all India's: not the other market's, nor those of both.
    let usernames = |list: Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|o| o["username"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        usernames(get_ok(&app, &india_admin, "/api/v1/console/operators").await),
        ["india-admin", "india-staff"]
    );
    assert_eq!(
        usernames(get_ok(&app, &root, "/api/v1/console/operators").await),
        [
            "both-staff",
            "india-admin",
            "india-staff",
            "indo-admin",
            "indo-staff",
            "root"
        ]
    );

    // Their own markets: not theirs to change. Wider, Indonesia is not theirs to give; the same, still their own.
    let own_path = format!("/api/v1/console/operators/{own}/markets");
    let wider = call(
        &app,
        &india_admin,
        Method::PUT,
        &own_path,
        Some(json!({"markets": ["IN", "ID"]})),
    )
    .await;
    assert_eq!(wider.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(wider).await["fields"]["markets"],
        "You do not work in this market."
    );
    let same = call(
        &app,
        &india_admin,
        Method::PUT,
        &own_path,
        Some(json!({"markets": ["IN"]})),
    )
    .await;
    assert_eq!(same.status(), StatusCode::CONFLICT);
    assert_eq!(
        error(same).await["msg"],
        "You cannot disable your own account, remove your own admin role, change your own markets or reset your own password \
         (ask another admin to reset it)."
    );
    // Another market given to their own staff, or to a new operator: the field says so.
    for markets in [json!(["IN", "ID"]), json!(["ID"])] {
        let response = call(
            &app,
            &india_admin,
            Method::PUT,
            &format!("/api/v1/console/operators/{india_staff}/markets"),
            Some(json!({ "markets": markets })),
        )
        .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{markets}"
        );
        assert_eq!(
            error(response).await["fields"]["markets"],
            "You do not work in this market."
        );
        let response = call(
            &app,
            &india_admin,
            Method::POST,
            "/api/v1/console/operators",
            Some(json!({"username": "newbie", "password": "a long initial pw", "roles": ["support"], "markets": markets})),
        )
        .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{markets}"
        );
        assert_eq!(
            error(response).await["fields"]["markets"],
            "You do not work in this market."
        );
    }
    // An operator of the other market, or of both, is not found, whatever the action.
    let unknown = call(
        &app,
        &india_admin,
        Method::POST,
        "/api/v1/console/operators/nobody/disable",
        None,
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let not_found = error(unknown).await;
    for username in ["indo-admin", "indo-staff", "both-staff", "root"] {
        let id = operator_id(&app, username).await;
        let actions: [(Method, String, Option<Value>); 5] = [
            (
                Method::PUT,
                format!("/api/v1/console/operators/{id}/markets"),
                Some(json!({"markets": ["IN"]})),
            ),
            (
                Method::PUT,
                format!("/api/v1/console/operators/{id}/roles"),
                Some(json!({"roles": ["reviewer"]})),
            ),
            (
                Method::POST,
                format!("/api/v1/console/operators/{id}/password"),
                Some(json!({"password": "taken over at last"})),
            ),
            (
                Method::POST,
                format!("/api/v1/console/operators/{id}/disable"),
                None,
            ),
            (
                Method::POST,
                format!("/api/v1/console/operators/{id}/enable"),
                None,
            ),
        ];
        for (method, path, body) in actions {
            let response = call(&app, &india_admin, method.clone(), &path, body).await;
            assert_eq!(
                response.status(),
                StatusCode::NOT_FOUND,
                "{method} {path} ({username})"
            );
            assert_eq!(error(response).await, not_found, "{method} {path}");
        }
    }
    // Nothing of theirs changed: markets, roles, password (they still sign in with it), enabled.
    let stored: Vec<(String, String, String, Option<i64>)> = sqlx::query_as(
        "SELECT username, roles, markets, disabled_at FROM operators ORDER BY username",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    let expected = [
        ("both-staff", "reviewer", "IN,ID"),
        ("india-admin", "admin", "IN"),
        ("india-staff", "support", "IN"),
        ("indo-admin", "admin", "ID"),
        ("indo-staff", "support", "ID"),
        ("root", "admin", "IN,ID"),
    ];
    assert_eq!(stored.len(), expected.len());
    for ((username, roles, markets, disabled), (u, r, m)) in stored.iter().zip(expected) {
        assert_eq!(
            (username.as_str(), roles.as_str(), markets.as_str()),
            (u, r, m)
        );
        assert_eq!(*disabled, None, "{username}");
    }
    sign_in_with(&app, "indo-admin", PASSWORD).await;
    // No refusal wrote an audit entry.
    let written: (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE actor_id = $1 AND entity = 'operator'",
    )
    .bind(&own)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(written.0, 0, "the refusals wrote nothing");

    // India's own staff they manage as before; created without markets, an operator is India's.
    let created = call(
        &app,
        &india_admin,
        Method::POST,
        "/api/v1/console/operators",
        Some(json!({"username": "newbie", "password": "a long initial pw", "roles": ["support"]})),
    )
    .await;
    assert_eq!(created.status(), StatusCode::OK);
    assert_eq!(data(created).await["markets"], json!(["IN"]));
    let roles = call(
        &app,
        &india_admin,
        Method::PUT,
        &format!("/api/v1/console/operators/{india_staff}/roles"),
        Some(json!({"roles": ["support", "finance"]})),
    )
    .await;
    assert_eq!(roles.status(), StatusCode::OK);
    let disabled = call(
        &app,
        &india_admin,
        Method::POST,
        &format!("/api/v1/console/operators/{india_staff}/disable"),
        None,
    )
    .await;
    assert_eq!(disabled.status(), StatusCode::OK);
    // An admin of both markets manages everyone, and creates operators of both by default.
    let widened = call(
        &app,
        &root,
        Method::PUT,
        &format!("/api/v1/console/operators/{own}/markets"),
        Some(json!({"markets": ["IN", "ID"]})),
    )
    .await;
    assert_eq!(widened.status(), StatusCode::OK);
    let created = call(
        &app,
        &root,
        Method::POST,
        "/api/v1/console/operators",
        Some(json!({"username": "group", "password": "a long initial pw", "roles": ["support"]})),
    )
    .await;
    assert_eq!(data(created).await["markets"], json!(["IN", "ID"]));
    app.stop().await;
}

#[tokio::test]
async fn a_password_an_admin_set_must_be_changed_before_anything_else_and_again_after_a_reset() {
    let app = spawn_app().await;
    let admin = operator(&app, "root", &[Role::Admin]).await;
    let created = call(
        &app,
        &admin,
        Method::POST,
        "/api/v1/console/operators",
        Some(json!({"username": "budi", "password": "set by the admin", "roles": ["reviewer", "support"], "markets": ["ID"]})),
    )
    .await;
    assert_eq!(created.status(), StatusCode::OK);
    let id = data(created).await["id"].as_str().unwrap().to_owned();

    let (budi, operator_view) = sign_in_with(&app, "budi", "set by the admin").await;
    assert_eq!(operator_view["passwordChangeRequired"], true);
    assert_eq!(operator_view["markets"], json!(["ID"]));
    // `me` answers; every other endpoint refuses with the one code, reads and writes alike.
    let me = get_ok(&app, &budi, "/api/v1/console/me").await;
    assert_eq!(me["passwordChangeRequired"], true);
    for (method, path) in [
        (Method::GET, "/api/v1/console/applications?market=ID"),
        (Method::GET, "/api/v1/console/applications/counts"),
        (Method::GET, "/api/v1/console/audit"),
        (Method::GET, "/api/v1/console/complaints"),
        (Method::GET, "/api/v1/console/orders/KL-NOPE-0000"),
        (Method::POST, "/api/v1/console/orders/KL-NOPE-0000/claim"),
    ] {
        let response = call(&app, &budi, method.clone(), path, None).await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{method} {path}");
        let err = error(response).await;
        assert_eq!(err["code"], "password_change_required", "{method} {path}");
    }
    // Without the CSRF token the change is refused like any unsafe request.
    let no_csrf = app
        .client
        .post(app.url("/api/v1/console/password"))
        .header("cookie", format!("kilat_console={}", budi.token))
        .json(&json!({"currentPassword": "set by the admin", "password": "my very own words"}))
        .send()
        .await
        .unwrap();
    assert_eq!(no_csrf.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(no_csrf).await["code"], "csrf_token_invalid");

    // Wrong current password, the same one again, too short, or nothing: field errors, nothing changed.
    for (body, field) in [
        (
            json!({"currentPassword": "not the one at all", "password": "my very own words"}),
            "currentPassword",
        ),
        (
            json!({"currentPassword": "set by the admin", "password": "set by the admin"}),
            "password",
        ),
        (
            json!({"currentPassword": "set by the admin", "password": "short"}),
            "password",
        ),
        (json!({"password": "my very own words"}), "currentPassword"),
    ] {
        let response = call(
            &app,
            &budi,
            Method::POST,
            "/api/v1/console/password",
            Some(body.clone()),
        )
        .await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
        let err = error(response).await;
        assert!(err["fields"][field].is_string(), "{body}: {err}");
    }
    // A second session of budi's ends when the password changes; this one goes on.
    let (other, _) = sign_in_with(&app, "budi", "set by the admin").await;
    let changed = call(
        &app,
        &budi,
        Method::POST,
        "/api/v1/console/password",
        Some(json!({"currentPassword": "set by the admin", "password": "my very own words"})),
    )
    .await;
    assert_eq!(changed.status(), StatusCode::OK);
    assert_eq!(data(changed).await["passwordChangeRequired"], false);
    get_ok(&app, &budi, "/api/v1/console/applications?market=ID").await;
    let ended = call(&app, &other, Method::GET, "/api/v1/console/me", None).await;
    assert_eq!(ended.status(), StatusCode::UNAUTHORIZED);
    let old = app
        .post_json(
            "/api/v1/console/login",
            &json!({"username": "budi", "password": "set by the admin"}),
        )
        .await;
    assert_eq!(old.status(), StatusCode::UNAUTHORIZED);
    let (again, view) = sign_in_with(&app, "budi", "my very own words").await;
    assert_eq!(view["passwordChangeRequired"], false);
    get_ok(&app, &again, "/api/v1/console/complaints").await;
    let audited: (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'operator.password_change' AND entity_id = $1 AND actor_id = $1",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(audited.0, 1);

    // An admin's reset: required again at the next sign-in.
    let reset = call(
        &app,
        &admin,
        Method::POST,
        &format!("/api/v1/console/operators/{id}/password"),
        Some(json!({"password": "the admin's new one"})),
    )
    .await;
    assert_eq!(reset.status(), StatusCode::OK);
    assert_eq!(data(reset).await["passwordChangeRequired"], true);
    let (after_reset, view) = sign_in_with(&app, "budi", "the admin's new one").await;
    assert_eq!(view["passwordChangeRequired"], true);
    let refused = call(
        &app,
        &after_reset,
        Method::GET,
        "/api/v1/console/complaints",
        None,
    )
    .await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    // Signing out still works.
    let out = call(
        &app,
        &after_reset,
        Method::POST,
        "/api/v1/console/logout",
        Some(json!({})),
    )
    .await;
    assert_eq!(out.status(), StatusCode::OK);

    // Operators made on the command line (their password typed by whoever runs it) are not asked.
    let (_cli, view) = {
        operators::create(&app.services, "cli-made", PASSWORD, &[Role::Support])
            .await
            .unwrap();
        sign_in_with(&app, "cli-made", PASSWORD).await
    };
    assert_eq!(view["passwordChangeRequired"], false);
    app.stop().await;
}

/// A market's operator reads that market's contact messages however many the other market has: with 200 newer
/// Indonesian messages (a page) waiting, India's operator still finds India's and can mark it handled (before, the
/// page was read first and filtered after, and came back empty).
#[tokio::test]
async fn a_markets_contact_messages_are_not_crowded_out_by_the_other_markets() {
    let app = spawn_app().await;
    let india = scoped(&app, "india-support", &[Role::Support], &[Market::India]).await;
    let message = |name: &str, telephone: &str, market: &str| {
        kilat_server::store::contact_messages::NewContactMessage {
            name: name.to_owned(),
            telephone: telephone.to_owned(),
            message: "Please call me back.".to_owned(),
            email: None,
            company: None,
            client_addr: "203.0.113.20".to_owned(),
            market: Some(market.to_owned()),
        }
    };
    let asha = app
        .db
        .insert_contact_message(&app.secrets, message("Asha", "+919876543210", "IN"))
        .await
        .unwrap();
    for n in 0..200 {
        app.db
            .insert_contact_message(
                &app.secrets,
                message(&format!("Budi {n}"), "+6281234567890", "ID"),
            )
            .await
            .unwrap();
    }
    for path in [
        "/api/v1/console/contact-messages",
        "/api/v1/console/contact-messages?status=waiting",
    ] {
        let messages = get_ok(&app, &india, path).await;
        assert_eq!(messages["total"], 1, "{path}");
        let names: Vec<&str> = messages["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Asha"], "{path}");
    }
    let handled = call(
        &app,
        &india,
        Method::POST,
        &format!("/api/v1/console/contact-messages/{}/handled", asha.id),
        None,
    )
    .await;
    assert_eq!(handled.status(), StatusCode::OK);
    app.stop().await;
}

/// A stored contact message of `market` (none: the form did not say) from `telephone`, sent `created_at`.
async fn contact(
    app: &TestApp,
    name: &str,
    telephone: &str,
    market: Option<&str>,
    created_at: i64,
) -> String {
    let stored = app
        .db
        .insert_contact_message(
            &app.secrets,
            kilat_server::store::contact_messages::NewContactMessage {
                name: name.to_owned(),
                telephone: telephone.to_owned(),
                message: "Please call me back.".to_owned(),
                email: None,
                company: None,
                client_addr: "203.0.113.20".to_owned(),
                market: market.map(str::to_owned),
            },
        )
        .await
        .unwrap();
    sqlx::query("UPDATE contact_messages SET created_at = $1 WHERE id = $2")
        .bind(created_at)
        .bind(&stored.id)
        .execute(app.db.pool())
        .await
        .unwrap();
    stored.id
}

/// A page of the contact messages: its total and the names on it, in order.
async fn contact_page(app: &TestApp, op: &Op, query: &str) -> (i64, Vec<String>) {
    let answer = get_ok(
        app,
        op,
        &format!("/api/v1/console/contact-messages?{query}"),
    )
    .await;
    let names = answer["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{query}: {answer}"))
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_owned())
        .collect();
    (answer["total"].as_i64().expect("a total"), names)
}

/// More than a page of waiting contact messages: support pages through every one exactly once, the longest waiting
/// first, with the total of all that wait (before, the list stopped at the newest 200 and the oldest were never
/// shown); all of them come newest first; a bad page or page size is a field error.
#[tokio::test]
async fn support_pages_through_every_waiting_contact_message_oldest_first() {
    let app = spawn_app().await;
    let support = operator(&app, "sam", &[Role::Support]).await;
    let base = 1_700_000_000_000_i64;
    for n in 0..205 {
        contact(
            &app,
            &format!("Waiting {n:03}"),
            "+919876543210",
            Some("IN"),
            base + n * 1000,
        )
        .await;
    }
    // Three answered ones, older and newer than the waiting.
    for (n, at) in [(0, base - 5000), (1, base + 100_500), (2, base + 999_000)] {
        let id = contact(
            &app,
            &format!("Handled {n}"),
            "+919876543210",
            Some("IN"),
            at,
        )
        .await;
        sqlx::query("UPDATE contact_messages SET handled_at = $1 WHERE id = $2")
            .bind(at + 10)
            .bind(&id)
            .execute(app.db.pool())
            .await
            .unwrap();
    }
    let waiting: Vec<String> = (0..205).map(|n| format!("Waiting {n:03}")).collect();

    let (total, first) = contact_page(&app, &support, "status=waiting&pageSize=200").await;
    assert_eq!(total, 205);
    assert_eq!(first, waiting[..200], "the longest waiting first");
    let (total, second) = contact_page(&app, &support, "status=waiting&pageSize=200&page=2").await;
    assert_eq!(total, 205);
    assert_eq!(second, waiting[200..]);
    let mut seen: Vec<String> = first.into_iter().chain(second).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, waiting, "every waiting message exactly once");
    assert_eq!(
        contact_page(&app, &support, "status=waiting&pageSize=200&page=3").await,
        (205, vec![])
    );

    // The defaults: page 1 of 50.
    let answer = get_ok(
        &app,
        &support,
        "/api/v1/console/contact-messages?status=waiting",
    )
    .await;
    assert_eq!(
        (answer["page"].as_i64(), answer["pageSize"].as_i64()),
        (Some(1), Some(50))
    );
    assert_eq!(answer["items"].as_array().unwrap().len(), 50);
    assert_eq!(answer["items"][0]["name"], "Waiting 000");

    // All of them: newest first, handled ones included.
    let (total, all) = contact_page(&app, &support, "status=all&pageSize=3").await;
    assert_eq!(total, 208);
    assert_eq!(all, ["Handled 2", "Waiting 204", "Waiting 203"]);
    let (_, last) = contact_page(&app, &support, "pageSize=4&page=52").await;
    assert_eq!(
        last,
        ["Waiting 002", "Waiting 001", "Waiting 000", "Handled 0"]
    );

    for (query, field) in [
        ("pageSize=0", "pageSize"),
        ("pageSize=201", "pageSize"),
        ("pageSize=", "pageSize"),
        ("page=0", "page"),
        ("page=two", "page"),
        ("status=waiting&page=-1", "page"),
    ] {
        let refused = call(
            &app,
            &support,
            Method::GET,
            &format!("/api/v1/console/contact-messages?{query}"),
            None,
        )
        .await;
        assert_eq!(
            refused.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{query}"
        );
        let err = error(refused).await;
        assert!(err["fields"][field].is_string(), "{query}: {err}");
    }
    app.stop().await;
}

/// An operator of one market pages through and counts only the contact messages they see: their market's, and of
/// those whose stored market names none (none recorded, or an unknown code) the ones whose telephone is only their
/// market's; never the other market's, nor a number of both markets or neither. The total and the pages agree.
#[tokio::test]
async fn a_one_market_operator_s_contact_total_counts_only_what_they_see() {
    let app = spawn_app().await;
    let india = scoped(&app, "india-support", &[Role::Support], &[Market::India]).await;
    let indonesia = scoped(&app, "id-support", &[Role::Support], &[Market::Indonesia]).await;
    let both = operator(&app, "sam", &[Role::Support]).await;
    let base = 1_700_000_000_000_i64;
    let mut at = base;
    let mut add = async |name: &str, telephone: &str, market: Option<&str>| {
        at += 1000;
        contact(&app, name, telephone, market, at).await
    };
    let asha = add("Asha", "+919876543210", Some("IN")).await;
    add("Budi", "+6281234567890", Some("ID")).await;
    add("Old India", "+91 98450 01234", None).await;
    add("Old Indonesia", "+62 812 3456 7890", None).await;
    add("Nowhere", "12", None).await;
    add("Odd code", "+919845001235", Some("XX")).await;
    add("Ravi", "+919845001236", Some("IN")).await;
    add("Sari", "+6281234567891", Some("ID")).await;
    // An Indian number sent from the Indonesian site is Indonesia's: the site's market decides first.
    add("Visitor", "+919845001237", Some("ID")).await;
    for n in 0..3 {
        add(&format!("Busy {n}"), "+6281234567800", Some("ID")).await;
    }

    let india_sees = ["Ravi", "Odd code", "Old India", "Asha"];
    let (total, page1) = contact_page(&app, &india, "pageSize=3").await;
    let (total2, page2) = contact_page(&app, &india, "pageSize=3&page=2").await;
    assert_eq!((total, total2), (4, 4));
    assert_eq!(page1, india_sees[..3], "full pages");
    assert_eq!(page2, india_sees[3..]);
    let (total, waiting) = contact_page(&app, &india, "status=waiting&pageSize=2").await;
    assert_eq!(total, 4);
    assert_eq!(waiting, ["Asha", "Old India"], "the longest waiting first");

    let (total, names) = contact_page(&app, &indonesia, "pageSize=200").await;
    assert_eq!(total, 7, "{names:?}");
    assert_eq!(
        names,
        [
            "Busy 2",
            "Busy 1",
            "Busy 0",
            "Visitor",
            "Sari",
            "Old Indonesia",
            "Budi"
        ]
    );
    let (total, _) = contact_page(&app, &both, "pageSize=1").await;
    assert_eq!(total, 12, "every market's operator sees every message");

    // Handled, Asha leaves India's waiting count and page.
    let handled = call(
        &app,
        &india,
        Method::POST,
        &format!("/api/v1/console/contact-messages/{asha}/handled"),
        None,
    )
    .await;
    assert_eq!(handled.status(), StatusCode::OK);
    assert_eq!(
        contact_page(&app, &india, "status=waiting").await,
        (
            3,
            vec![
                "Old India".to_owned(),
                "Odd code".to_owned(),
                "Ravi".to_owned()
            ]
        )
    );
    assert_eq!(contact_page(&app, &india, "").await.0, 4);
    app.stop().await;
}

/// Each market's products and site claims are its lender's: an admin of India creates, edits, disables or enables no
/// Indonesian product and changes no Indonesian claim (`422` on `market`, nothing written), and keeps doing all of it
/// for India.
#[tokio::test]
async fn an_admin_of_one_market_prices_and_advertises_that_market_only() {
    let app = spawn_app().await;
    let india = crate::servicing::operator_in(&app, "ina", &[Role::Admin], &[Market::India]).await;
    let mut product = crate::admin::demo_product("id-kilat-30");
    product["code"] = json!("id-from-india");
    let edited = {
        let mut p = crate::admin::demo_product("id-kilat-30");
        p["name"] = json!("Renamed from India");
        p
    };
    let claims = json!({"payoutClaim": "Cair dalam 5 menit.", "usersClaim": ""});
    for (method, path, body) in [
        (
            Method::POST,
            "/api/v1/console/products".to_owned(),
            Some(product),
        ),
        (
            Method::PUT,
            "/api/v1/console/products/id-kilat-30?baseVersion=1".to_owned(),
            Some(edited),
        ),
        (
            Method::POST,
            "/api/v1/console/products/id-kilat-30/disable".to_owned(),
            None,
        ),
        (
            Method::PUT,
            "/api/v1/console/site/claims/ID".to_owned(),
            Some(claims.clone()),
        ),
    ] {
        let response = call(&app, &india, method.clone(), &path, body).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{method} {path}"
        );
        assert!(
            error(response).await["fields"]["market"].is_string(),
            "{method} {path}"
        );
    }
    assert_eq!(app.db.count_products().await.unwrap(), 5);
    let listed =
        data(call(&app, &india, Method::GET, "/api/v1/console/products", None).await).await;
    let kilat = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["code"] == "id-kilat-30")
        .unwrap()
        .clone();
    assert_eq!(
        (kilat["enabled"].clone(), kilat["version"].clone()),
        (json!(true), json!(1)),
        "{kilat}"
    );
    // India's own: as before.
    let disabled = call(
        &app,
        &india,
        Method::POST,
        "/api/v1/console/products/in-flexi-14d/disable",
        None,
    )
    .await;
    assert_eq!(disabled.status(), StatusCode::OK);
    let india_claims = call(
        &app,
        &india,
        Method::PUT,
        "/api/v1/console/site/claims/IN",
        Some(json!({"payoutClaim": "Money the same day.", "usersClaim": ""})),
    )
    .await;
    assert_eq!(india_claims.status(), StatusCode::OK);
    app.stop().await;
}
