//! The loan agreement: shown before confirming (`POST /apply/agreement`) from the KFS and the certification, frozen
//! with the order at confirm, so a later edit of the certification (a new bank account) changes nothing in it; sealed
//! to its order at rest, since it names the borrower.

use kilat_server::infra::crypto::Binding;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::builders::{ID, IN};
use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_with};

const LOAN: fn() -> Value =
    || json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"});

async fn post_en(app: &TestApp, path: &str, session: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .header("x-session-id", session)
        .header("accept-language", "en-IN")
        .json(body)
        .send()
        .await
        .unwrap()
}

fn clause_text(agreement: &Value) -> String {
    agreement["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}: {}\n",
                c["heading"].as_str().unwrap(),
                c["text"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn the_agreement_is_shown_before_confirming_and_frozen_with_the_order() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543240").await;

    // Before the certification is complete there is nothing to show: the same refusal as apply.
    let refused = post_en(&app, "/api/v1/borrower/apply/agreement", &session, &LOAN()).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "certification_incomplete");

    app.certify("IN", &session).await;
    let kfs = data(post_en(&app, "/api/v1/borrower/apply", &session, &LOAN()).await).await;
    let preview =
        data(post_en(&app, "/api/v1/borrower/apply/agreement", &session, &LOAN()).await).await;
    assert_eq!(preview["orderNo"], "");
    assert_eq!(
        preview["title"],
        "Loan agreement (to accept with the Key Fact Statement)"
    );
    assert_eq!(preview["kfs"], kfs, "the agreement of the very KFS shown");
    assert_eq!(preview["borrower"]["fullName"], "Asha Verma");
    assert_eq!(preview["borrower"]["bankAccountMasked"], "**** **** 4567");
    let text = clause_text(&preview);
    assert!(
        text.contains("account **** **** 4567 at HDFC Bank"),
        "{text}"
    );
    assert!(text.contains("7. Repaying early: "), "{text}");
    assert!(text.contains("without a prepayment charge"), "{text}");
    assert!(text.contains("10. Acceptance: "), "{text}");

    let confirmed = data(
        app.post_as(
            "/api/v1/borrower/orders",
            &session,
            &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6",
                "kfsHash": kfs["contentHash"], "idempotencyKey": "agreement-freeze-1",
                "agreementHash": preview["agreementHash"]}),
        )
        .await,
    )
    .await;
    let order_no = confirmed["orderNo"].as_str().unwrap().to_owned();
    let path = format!("/api/v1/borrower/orders/{order_no}/agreement");
    let english = data(app.get_en(&path, Some(&session)).await).await;
    let indonesian = data(app.get_as(&path, &session).await).await;
    assert_eq!(english["title"], format!("Loan agreement {order_no}"));
    assert_eq!(
        indonesian["title"],
        format!("Perjanjian pinjaman {order_no}")
    );
    assert_eq!(english["borrower"], preview["borrower"]);
    // The accepted agreement says what the preview said, but for its title and the date of acceptance.
    let body = |a: &Value| {
        clause_text(a)
            .lines()
            .take(9)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&english), body(&preview));

    // The borrower tries to move to another bank account while the loan is under review: refused.
    let account = json!({"bankCode": "ICIC", "accountNumber": "9999 8888 7777", "accountNumberConfirm": "999988887777",
        "ifsc": "ICIC0000999"});
    let edit = app
        .post_as("/api/v1/borrower/certification/bank", &session, &account)
        .await;
    assert_eq!(edit.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(edit).await["fields"]["accountNumber"].is_string());

    // Once the application is withdrawn the account may change, with the code sent to the borrower's phone.
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let sent = app
        .post_as(
            "/api/v1/borrower/verification-code",
            &session,
            &json!({"purpose": "bank_account"}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let mut with_code = account.clone();
    with_code["verificationCode"] = json!(app.latest_code().await);
    let edit = app
        .post_as("/api/v1/borrower/certification/bank", &session, &with_code)
        .await;
    assert_eq!(
        edit.status(),
        StatusCode::OK,
        "{}",
        edit.text().await.unwrap()
    );
    let saved = data(
        app.get_as("/api/v1/borrower/certification/bank", &session)
            .await,
    )
    .await;
    assert_eq!(saved["data"]["accountNumber"], "**** **** 7777");

    // The accepted agreement is unchanged, in both languages, clause for clause.
    let english_after = data(app.get_en(&path, Some(&session)).await).await;
    let indonesian_after = data(app.get_as(&path, &session).await).await;
    assert_eq!(english_after, english);
    assert_eq!(indonesian_after, indonesian);
    assert!(clause_text(&english_after).contains("**** **** 4567 at HDFC Bank"));
    assert!(!clause_text(&english_after).contains("7777"));
    assert_eq!(english_after["agreementHash"], preview["agreementHash"]);

    // A new application's agreement names the new account.
    let next =
        data(post_en(&app, "/api/v1/borrower/apply/agreement", &session, &LOAN()).await).await;
    assert_eq!(next["borrower"]["bankAccountMasked"], "**** **** 7777");
    app.stop().await;
}

#[tokio::test]
async fn an_indonesian_agreement_is_in_indonesian_with_the_prepayment_terms() {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234567890").await;
    app.certify("ID", &session).await;
    let products = data(app.get_as("/api/v1/borrower/products", &session).await).await;
    let product = &products.as_array().unwrap()[0];
    let loan = json!({"productCode": product["code"], "amount": product["amount"]["min"],
        "termCode": product["terms"][0]["code"]});
    let kfs = data(app.post_as("/api/v1/borrower/apply", &session, &loan).await).await;
    assert_eq!(kfs["version"], 4);
    assert!(
        kfs["dailyCost"]["rate"].as_str().unwrap().ends_with('%'),
        "{kfs}"
    );
    let preview = data(
        app.post_as("/api/v1/borrower/apply/agreement", &session, &loan)
            .await,
    )
    .await;
    let text = clause_text(&preview);
    // Indonesian numbers: the APR with a decimal comma.
    let apr = kfs["aprDisplay"].as_str().unwrap().replace('.', ",");
    assert!(text.contains(&format!("adalah {apr}.")), "{apr}: {text}");
    assert!(text.contains("Pelunasan dipercepat: "), "{text}");
    assert!(text.contains("tanpa biaya pelunasan dipercepat"), "{text}");
    assert!(
        preview["title"]
            .as_str()
            .unwrap()
            .starts_with("Perjanjian pinjaman")
    );
    app.stop().await;
}

/// PRODUCT.md §7: the extension is part of the KFS, with what it costs on this loan; a product without one says so
/// (null), and the statement is sealed over it.
#[tokio::test]
async fn the_kfs_states_the_extension_its_fee_on_this_loan_and_how_many_times() {
    let app = spawn_app().await;
    let india = app.borrower(IN).certified().await.session;
    // ₹2,000 of Salary Advance: 7 days for 3% (₹60) + 18% GST (₹10.80), at most twice.
    let loan = json!({"productCode": "in-salary-advance", "amount": 200_000, "termCode": "7d"});
    let kfs = data(app.post_as("/api/v1/borrower/apply", &india, &loan).await).await;
    assert_eq!(
        kfs["extension"],
        json!({"days": 7, "feePercent": "3%", "feeFixed": 0, "maxExtensions": 2})
    );
    assert_eq!(
        kfs["extensionFee"],
        json!({"name": "Extension fee", "amount": 6_000, "tax": 1_080, "total": 7_080})
    );
    // Flexi EMI offers none: both null, not missing.
    let none = json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"});
    let kfs = data(app.post_as("/api/v1/borrower/apply", &india, &none).await).await;
    assert!(
        kfs["extension"].is_null() && kfs["extensionFee"].is_null(),
        "{kfs}"
    );
    assert!(kfs.as_object().unwrap().contains_key("extensionFee"));

    let indonesia = app.borrower(ID).certified().await.session;
    // Rp1.000.000 of Kilat 30: 7 days for 1% (Rp10.000, no tax), at most twice.
    let loan = json!({"productCode": "id-kilat-30", "amount": 100_000_000, "termCode": "14d"});
    let kfs = data(
        app.post_as("/api/v1/borrower/apply", &indonesia, &loan)
            .await,
    )
    .await;
    assert_eq!(kfs["extension"]["days"], 7);
    assert_eq!(kfs["extension"]["maxExtensions"], 2);
    assert_eq!(kfs["extensionFee"]["total"], 1_000_000);
    assert_eq!(kfs["extensionFee"]["tax"], 0);
    // The fee is sealed: confirming with this statement's hash works, with a changed fee's hash it does not.
    let statement: kilat_domain::KeyFactStatement = serde_json::from_value(kfs.clone()).unwrap();
    assert!(statement.is_intact());
    let mut changed = statement.clone();
    changed.extension_fee.as_mut().unwrap().total = kilat_domain::Money::from_minor(1);
    assert!(!changed.is_intact());
    app.stop().await;
}

// --- At rest: the frozen agreement names the borrower, so it is sealed to its order (issue 17, item 4) --------------

/// The borrower `certify` writes in India, as the agreement names them.
const NAME: &str = "Asha Verma";
const ADDRESS: &str = "12 Hill Road, Bandra West";

async fn order_id(app: &TestApp, order_no: &str) -> String {
    sqlx::query_scalar("SELECT id FROM orders WHERE order_no = $1")
        .bind(order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

async fn stored_agreement(app: &TestApp, order_id: &str) -> String {
    sqlx::query_scalar("SELECT agreement_json FROM orders WHERE id = $1")
        .bind(order_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

async fn set_stored_agreement(app: &TestApp, order_id: &str, value: &str) {
    sqlx::query("UPDATE orders SET agreement_json = $1 WHERE id = $2")
        .bind(value)
        .bind(order_id)
        .execute(app.db.pool())
        .await
        .unwrap();
}

fn agreement_path(order_no: &str) -> String {
    format!("/api/v1/borrower/orders/{order_no}/agreement")
}

#[tokio::test]
async fn the_frozen_agreement_holds_neither_name_nor_address_in_clear_and_is_still_shown_to_the_borrower()
 {
    let app = spawn_app().await;
    let (session, order_no) =
        crate::account::borrower_with_closed_order(&app, "IN", "9876543250").await;
    let id = order_id(&app, &order_no).await;

    let stored = stored_agreement(&app, &id).await;
    assert!(stored.starts_with("v2."), "{stored}");
    for clear in [NAME, ADDRESS, "Hill Road", "400050"] {
        assert!(!stored.contains(clear), "{clear} in clear in {stored}");
    }
    let opened = app
        .secrets
        .decrypt(&stored, Binding::OrderAgreement { order_id: &id })
        .unwrap();
    assert!(
        opened.contains(NAME) && opened.contains(ADDRESS),
        "{opened}"
    );

    let shown = data(app.get_en(&agreement_path(&order_no), Some(&session)).await).await;
    assert_eq!(shown["borrower"]["fullName"], NAME);
    assert!(
        shown["borrower"]["address"]
            .as_str()
            .unwrap()
            .starts_with(ADDRESS),
        "{shown}"
    );
    assert!(clause_text(&shown).contains(NAME));
    app.stop().await;
}

#[tokio::test]
async fn an_agreement_copied_onto_another_order_does_not_open_there() {
    let app = spawn_app().await;
    let (session_a, order_a) =
        crate::account::borrower_with_closed_order(&app, "IN", "9876543251").await;
    let (session_b, order_b) =
        crate::account::borrower_with_closed_order(&app, "IN", "9876543252").await;
    let (id_a, id_b) = (
        order_id(&app, &order_a).await,
        order_id(&app, &order_b).await,
    );

    // B's order made to carry A's sealed agreement (someone with write access to the database).
    let sealed_a = stored_agreement(&app, &id_a).await;
    set_stored_agreement(&app, &id_b, &sealed_a).await;
    let refused = app.get_as(&agreement_path(&order_b), &session_b).await;
    assert_eq!(refused.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body = error(refused).await;
    assert_eq!(body["code"], "internal");
    assert!(!body.to_string().contains(NAME), "{body}");
    // A's own row still opens.
    let shown = data(app.get_as(&agreement_path(&order_a), &session_a).await).await;
    assert_eq!(shown["borrower"]["fullName"], NAME);
    app.stop().await;
}

#[tokio::test]
async fn agreements_written_in_clear_before_sealing_are_sealed_once_at_the_next_start_and_never_again()
 {
    let app = spawn_app().await;
    let (session, order_no) =
        crate::account::borrower_with_closed_order(&app, "IN", "9876543253").await;
    let id = order_id(&app, &order_no).await;
    let clear = app
        .secrets
        .decrypt(
            &stored_agreement(&app, &id).await,
            Binding::OrderAgreement { order_id: &id },
        )
        .unwrap();
    let shown_before = data(app.get_as(&agreement_path(&order_no), &session).await).await;

    // The database as the code before migration 0030 left it: the agreement in clear, and the migration's marker.
    set_stored_agreement(&app, &id, &clear).await;
    // Until then, the running server refuses the value in clear rather than trusting it.
    assert_eq!(
        app.get_as(&agreement_path(&order_no), &session)
            .await
            .status(),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    app.execute("INSERT INTO agreement_seal_pending (id) VALUES (1)")
        .await;

    let url = app.database_url.clone();
    let restarted = spawn_app_with(|s| s.database_url = url.into()).await;
    let stored = stored_agreement(&restarted, &id).await;
    assert!(stored.starts_with("v2."), "{stored}");
    assert!(!stored.contains(NAME) && !stored.contains(ADDRESS));
    let shown = data(restarted.get_as(&agreement_path(&order_no), &session).await).await;
    assert_eq!(shown, shown_before);
    let pending: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM agreement_seal_pending")
        .fetch_one(restarted.db.pool())
        .await
        .unwrap();
    assert_eq!(pending, 0);

    // An agreement in clear written after that is refused, and a further start does not seal it.
    set_stored_agreement(&app, &id, &clear).await;
    restarted.stop().await;
    let url = app.database_url.clone();
    let again = spawn_app_with(|s| s.database_url = url.into()).await;
    assert_eq!(
        again
            .get_as(&agreement_path(&order_no), &session)
            .await
            .status(),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    assert_eq!(stored_agreement(&again, &id).await, clear);
    again.stop().await;
    app.stop().await;
}
