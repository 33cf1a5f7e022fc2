//! Home, recommendations, apply and confirm with each refusal, idempotency, orders, the agreement, and one borrower
//! never reading another's order.

use reqwest::StatusCode;
use serde_json::{Value, json};

use kilat_server::store::certification::IncomeVerdict;

use crate::helpers::{TestApp, data, error, spawn_app};

const PRODUCT: &str = "in-flexi-6m";

async fn apply(app: &TestApp, session: &str, amount: i64, term: &str) -> reqwest::Response {
    app.post_as(
        "/api/v1/borrower/apply",
        session,
        &json!({"productCode": PRODUCT, "amount": amount, "termCode": term}),
    )
    .await
}

fn confirm_body(kfs: &Value, key: &str) -> Value {
    json!({"productCode": kfs["productCode"], "amount": kfs["sanctionedAmount"], "termCode": kfs["termCode"],
        "kfsHash": kfs["contentHash"], "idempotencyKey": key})
}

/// Confirms as the borrower app does: with the hash of the agreement read just before (unless the body has one).
async fn confirm(app: &TestApp, session: &str, body: &Value) -> reqwest::Response {
    let mut body = body.clone();
    if body.get("agreementHash").is_none() && body.get("productCode").is_some() {
        let loan = json!({"productCode": body["productCode"], "amount": body["sanctionedAmount"].as_i64()
            .or(body["amount"].as_i64()), "termCode": body["termCode"]});
        let hash = app.agreement_hash(session, &loan).await;
        // No preview once the order exists: a retry carries the hash it was first sent with, which a replay does
        // not look at.
        body["agreementHash"] = if hash.is_null() {
            json!("0".repeat(64))
        } else {
            hash
        };
    }
    app.post_as("/api/v1/borrower/orders", session, &body).await
}

#[tokio::test]
async fn a_certified_borrower_applies_confirms_and_finds_the_order_pending_review() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;

    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["eligible"], false);
    assert_eq!(home["reasons"], json!(["certification_incomplete"]));
    assert_eq!(home["certification"]["done"], 0);
    assert!(!home["products"].as_array().unwrap().is_empty());
    let recommended = data(
        app.get_as("/api/v1/borrower/products/recommended", &session)
            .await,
    )
    .await;
    assert_eq!(recommended["eligible"], false);
    assert!(recommended["products"].as_array().unwrap().is_empty());

    let refused = apply(&app, &session, 2_000_000, "m12").await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "certification_incomplete");

    app.certify("IN", &session).await;
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["eligible"], true);
    assert_eq!(home["certification"]["complete"], true);
    let recommended = data(
        app.get_as("/api/v1/borrower/products/recommended", &session)
            .await,
    )
    .await;
    let aprs: Vec<i64> = recommended["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["sample"]["apr"].as_i64().unwrap())
        .collect();
    assert!(
        aprs.len() >= 2 && aprs.windows(2).all(|w| w[0] <= w[1]),
        "cheapest first: {aprs:?}"
    );

    let kfs = data(apply(&app, &session, 2_000_000, "m12").await).await;
    assert_eq!(kfs["installments"].as_array().unwrap().len(), 12);
    assert!(kfs["aprDisplay"].as_str().unwrap().ends_with('%'));
    let orders: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM orders")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(orders, 0, "applying stores nothing");

    let created = confirm(&app, &session, &confirm_body(&kfs, "key-0001-abcdef")).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let order = data(created).await;
    let order_no = order["orderNo"].as_str().unwrap().to_owned();
    assert!(order_no.starts_with("KL-"), "{order_no}");
    assert_eq!(order["status"], "pending_review");
    assert_eq!(
        order["kfs"], kfs,
        "the accepted KFS is stored as it was shown"
    );
    assert_eq!(order["timeline"][0]["status"], "pending_review");

    let list = data(app.get_as("/api/v1/borrower/orders", &session).await).await;
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["orderNo"], order_no.as_str());
    assert_eq!(list[0]["totalRepayable"], kfs["totalRepayable"]);
    let detail = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    assert_eq!(detail["kfs"]["contentHash"], kfs["contentHash"]);

    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["openOrder"]["orderNo"], order_no.as_str());
    assert_eq!(home["eligible"], false);
    assert_eq!(home["reasons"], json!(["open_order"]));

    let agreement = data(
        app.get_en(
            &format!("/api/v1/borrower/orders/{order_no}/agreement"),
            Some(&session),
        )
        .await,
    )
    .await;
    assert_eq!(agreement["borrower"]["fullName"], "Asha Verma");
    assert_eq!(agreement["borrower"]["idNumberMasked"], "******234F");
    assert_eq!(agreement["borrower"]["bankAccountMasked"], "**** **** 4567");
    assert_eq!(agreement["kfs"], kfs);
    let text: String = agreement["clauses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(text.contains("₹20,000 "), "{text}");
    assert!(text.contains(kfs["aprDisplay"].as_str().unwrap()));
    assert!(
        !text.contains("ABCPE1234F") && !text.contains("501001234567"),
        "numbers stay masked"
    );
    app.stop().await;
}

#[tokio::test]
async fn confirm_is_idempotent_on_the_clients_key() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    app.certify("IN", &session).await;
    let kfs = data(apply(&app, &session, 1_500_000, "m3").await).await;
    let body = confirm_body(&kfs, "double-tap-0001");
    let first = confirm(&app, &session, &body).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first = data(first).await;
    // The same request again (a retry, a double tap): the same order, not a second one.
    let again = confirm(&app, &session, &body).await;
    assert_eq!(again.status(), StatusCode::OK);
    assert_eq!(data(again).await["orderNo"], first["orderNo"]);
    // Concurrent duplicates too.
    let (a, b) = tokio::join!(
        confirm(&app, &session, &body),
        confirm(&app, &session, &body)
    );
    assert_eq!((a.status(), b.status()), (StatusCode::OK, StatusCode::OK));
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM orders")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(count, 1);
    // Two first confirms at the same moment (a double tap before any answer): one order, both told about it.
    let twin = app.sign_in("IN", "9811122200").await;
    app.certify("IN", &twin).await;
    let twin_kfs = data(apply(&app, &twin, 1_500_000, "m3").await).await;
    let twin_body = confirm_body(&twin_kfs, "twin-taps-0001");
    let (a, b) = tokio::join!(
        confirm(&app, &twin, &twin_body),
        confirm(&app, &twin, &twin_body)
    );
    let mut statuses = [a.status().as_u16(), b.status().as_u16()];
    statuses.sort_unstable();
    assert_eq!(statuses, [200, 201]);
    assert_eq!(data(a).await["orderNo"], data(b).await["orderNo"]);
    let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM orders")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(count, 2, "one order per borrower");
    // The key with another application is refused.
    let mut other = body.clone();
    other["amount"] = json!(1_600_000);
    let reused = confirm(&app, &session, &other).await;
    assert_eq!(reused.status(), StatusCode::CONFLICT);
    assert_eq!(error(reused).await["code"], "idempotency_key_reused");
    // The key in the header works as well; a new key while an order is open is refused.
    let mut headerless = body.clone();
    headerless.as_object_mut().unwrap().remove("idempotencyKey");
    headerless["agreementHash"] = json!("0".repeat(64));
    let response = app
        .client
        .post(app.url("/api/v1/borrower/orders"))
        .header("x-session-id", &session)
        .header("idempotency-key", "another-key-0002")
        .json(&headerless)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(error(response).await["code"], "open_order_exists");
    app.stop().await;
}

#[tokio::test]
async fn each_refusal_of_apply_and_confirm_has_its_code() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    app.certify("IN", &session).await;

    // Missing fields, each named.
    let response = app
        .post_as("/api/v1/borrower/orders", &session, &json!({}))
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let fields = error(response).await["fields"].clone();
    let names: Vec<&str> = fields
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "agreementHash",
            "amount",
            "idempotencyKey",
            "kfsHash",
            "productCode",
            "termCode"
        ]
    );

    // Outside the product's range or step, or a term it does not offer.
    for (amount, term, field) in [
        (100_000, "m6", "amount"),
        (9_000_000, "m6", "amount"),
        (1_050_050, "m6", "amount"),
        (2_000_000, "14dx3", "termCode"),
    ] {
        let response = apply(&app, &session, amount, term).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{amount} {term}"
        );
        let body = error(response).await;
        assert_eq!(body["code"], "validation_failed");
        assert!(body["fields"][field].is_string(), "{amount} {term}: {body}");
    }
    // The rule in the market's money, in the request's language.
    let range = app
        .client
        .post(app.url("/api/v1/borrower/apply"))
        .header("x-session-id", &session)
        .header("accept-language", "en-IN")
        .json(&json!({"productCode": PRODUCT, "amount": 100_000, "termCode": "m6"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        error(range).await["fields"]["amount"],
        "Choose an amount from ₹10,000 to ₹80,000."
    );
    let step = apply(&app, &session, 1_050_050, "m6").await;
    assert_eq!(
        error(step).await["fields"]["amount"],
        "Jumlah naik dengan kelipatan ₹1,000."
    );
    let unknown = app
        .post_as(
            "/api/v1/borrower/apply",
            &session,
            &json!({"productCode": "id-kilat-30", "amount": 100_000_000, "termCode": "30d"}),
        )
        .await;
    assert_eq!(
        error(unknown).await["fields"]["productCode"],
        "Produk ini tidak tersedia.",
        "another market's product"
    );

    // A KFS that is not the one the server computes now.
    let kfs = data(apply(&app, &session, 2_000_000, "m6").await).await;
    let mut stale = confirm_body(&kfs, "stale-kfs-0001");
    stale["kfsHash"] = json!("0".repeat(64));
    let response = confirm(&app, &session, &stale).await;
    assert_eq!(response.status(), StatusCode::CONFLICT);
    assert_eq!(error(response).await["code"], "kfs_changed");
    let bad_key = confirm(&app, &session, &confirm_body(&kfs, "short")).await;
    assert!(error(bad_key).await["fields"]["idempotencyKey"].is_string());

    // Income below the market's minimum (₹12,000 a month).
    app.post_as(
        "/api/v1/borrower/certification/job",
        &session,
        &json!({"employmentType": "salaried_private", "employerName": "Infosys", "income": 1_000_000, "payDay": 1}),
    )
    .await;
    let response = apply(&app, &session, 2_000_000, "m6").await;
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(response).await["code"], "not_eligible");
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["reasons"], json!(["income_below_minimum"]));
    app.stop().await;
}

/// The job step's income verdict as stored: (the minimum it was compared with, 1 when below), per borrower's phone.
async fn income_verdicts(app: &TestApp) -> Vec<(String, Option<i64>, Option<i64>)> {
    sqlx::query_as(
        "SELECT b.phone_masked, c.income_minimum, c.income_below FROM certification_steps c
         JOIN borrowers b ON b.id = c.borrower_id WHERE c.step = 'job' ORDER BY b.phone_masked",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap()
}

async fn reasons(app: &TestApp, session: &str) -> Value {
    data(app.get_as("/api/v1/borrower/home", session).await).await["reasons"].clone()
}

#[tokio::test]
async fn the_income_is_judged_from_the_verdict_saved_with_the_job_step_or_from_the_sealed_step_when_it_is_missing_or_stale()
 {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876500401").await;
    app.certify("IN", &asha).await;
    let budi = app.sign_in("ID", "081234500402").await;
    app.certify("ID", &budi).await;
    // Saved with the step: the market's minimum (₹12,000 a month, Rp5,000,000 a year) and 0, not below it; nothing on
    // the other steps.
    assert_eq!(
        income_verdicts(&app).await,
        [
            ("+62 *******0402".into(), Some(500_000_000), Some(0)),
            ("+91 ******0401".into(), Some(1_200_000), Some(0)),
        ]
    );
    let others: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM certification_steps WHERE step <> 'job' AND (income_minimum IS NOT NULL OR income_below IS NOT NULL)",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(others, 0);
    assert_eq!(reasons(&app, &asha).await, json!([]));

    // Saved again under the minimum: the verdict follows the step.
    app.post_as(
        "/api/v1/borrower/certification/job",
        &asha,
        &json!({"employmentType": "salaried_private", "employerName": "Infosys", "income": 1_199_999, "payDay": 1}),
    )
    .await;
    assert_eq!(
        income_verdicts(&app).await[1],
        ("+91 ******0401".into(), Some(1_200_000), Some(1))
    );
    assert_eq!(reasons(&app, &asha).await, json!(["income_below_minimum"]));

    // Home and an application read the verdict, not the sealed step: a verdict against today's minimum decides.
    app.execute("UPDATE certification_steps SET income_below = 0 WHERE step = 'job'")
        .await;
    assert_eq!(reasons(&app, &asha).await, json!([]));
    assert_eq!(
        apply(&app, &asha, 2_000_000, "m6").await.status(),
        StatusCode::OK
    );

    // A step saved before migration 0050 (no verdict), or one compared with another minimum than today's, is judged
    // from its sealed income, by home and by an application alike.
    for stale in [
        "UPDATE certification_steps SET income_minimum = NULL, income_below = NULL WHERE step = 'job'",
        "UPDATE certification_steps SET income_minimum = 1000, income_below = 0 WHERE step = 'job'",
    ] {
        app.execute(stale).await;
        assert_eq!(
            reasons(&app, &asha).await,
            json!(["income_below_minimum"]),
            "{stale}"
        );
        let refused = apply(&app, &asha, 2_000_000, "m6").await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{stale}");
        assert_eq!(error(refused).await["code"], "not_eligible");
        assert_eq!(reasons(&app, &budi).await, json!([]), "{stale}");
    }

    // Home shows the phone masked as stored beside the sealed one, and from the sealed one should that be missing.
    let phone = |home: Value| home["phoneMasked"].clone();
    assert_eq!(
        phone(data(app.get_as("/api/v1/borrower/home", &asha).await).await),
        "+91 ******0401"
    );
    app.execute("UPDATE borrowers SET phone_masked = ''").await;
    assert_eq!(
        phone(data(app.get_as("/api/v1/borrower/home", &asha).await).await),
        "+91 ******0401"
    );
    assert_eq!(
        phone(data(app.get_as("/api/v1/borrower/home", &budi).await).await),
        "+62 *******0402"
    );
    app.stop().await;
}

#[tokio::test]
async fn job_steps_without_a_current_income_verdict_are_judged_again_at_the_next_start_once() {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876500411").await;
    app.certify_with("IN", &asha, |step, body| {
        if step == "job" {
            body["income"] = json!(1_000_000);
        }
    })
    .await;
    let budi = app.sign_in("ID", "081234500412").await;
    app.certify("ID", &budi).await;
    let saved = income_verdicts(&app).await;
    // As a database written before migration 0050 (no verdicts), with the marker in place; Asha's step as if compared
    // with another minimum since changed (what a migration inserting the marker again would have judged anew).
    app.execute("UPDATE certification_steps SET income_minimum = NULL, income_below = NULL")
        .await;
    app.execute(
        "UPDATE certification_steps SET income_minimum = 900000, income_below = 0 WHERE step = 'job'
           AND borrower_id IN (SELECT id FROM borrowers WHERE market = 'IN')",
    )
    .await;
    app.execute("INSERT INTO income_verdict_backfill_pending (id) VALUES (1)")
        .await;

    let restarted = crate::helpers::spawn_app_on(&app.database_url).await;
    assert_eq!(income_verdicts(&restarted).await, saved);
    assert_eq!(
        saved,
        [
            ("+62 *******0412".into(), Some(500_000_000), Some(0)),
            ("+91 ******0411".into(), Some(1_200_000), Some(1)),
        ]
    );
    let markers: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM income_verdict_backfill_pending")
        .fetch_one(restarted.db.pool())
        .await
        .unwrap();
    assert_eq!(markers, 0);
    assert_eq!(
        reasons(&restarted, &asha).await,
        json!(["income_below_minimum"])
    );
    assert_eq!(reasons(&restarted, &budi).await, json!([]));

    // Once: a verdict missing after the backfill is left to the sealed step, not written at the next start.
    restarted
        .execute("UPDATE certification_steps SET income_minimum = NULL, income_below = NULL WHERE step = 'job'")
        .await;
    let again = crate::helpers::spawn_app_on(&app.database_url).await;
    assert!(
        income_verdicts(&again)
            .await
            .iter()
            .all(|(_, minimum, below)| minimum.is_none() && below.is_none())
    );
    assert_eq!(
        reasons(&again, &asha).await,
        json!(["income_below_minimum"])
    );

    // A verdict judged from data the step no longer holds (another server saved it again meanwhile) is not written;
    // one judged from the data it holds is.
    let (asha_id, data_enc): (String, String) = sqlx::query_as(
        "SELECT c.borrower_id, c.data_enc FROM certification_steps c JOIN borrowers b ON b.id = c.borrower_id
         WHERE c.step = 'job' AND b.market = 'IN'",
    )
    .fetch_one(again.db.pool())
    .await
    .unwrap();
    let wrong = IncomeVerdict {
        minimum: 1_200_000,
        below: false,
    };
    let mut tx = again.db.begin().await.unwrap();
    let old_data = format!("{data_enc}-as-it-was");
    assert!(
        !tx.set_income_verdict(&asha_id, &old_data, wrong)
            .await
            .unwrap()
    );
    tx.commit().await.unwrap();
    assert_eq!(
        income_verdicts(&again).await[1],
        ("+91 ******0411".into(), None, None)
    );
    let right = IncomeVerdict {
        minimum: 1_200_000,
        below: true,
    };
    let mut tx = again.db.begin().await.unwrap();
    assert!(
        tx.set_income_verdict(&asha_id, &data_enc, right)
            .await
            .unwrap()
    );
    tx.commit().await.unwrap();
    assert_eq!(
        income_verdicts(&again).await[1],
        ("+91 ******0411".into(), Some(1_200_000), Some(1))
    );
    again.stop().await;
    restarted.stop().await;
    app.stop().await;
}

#[tokio::test]
async fn an_indonesian_borrower_applies_and_confirms_in_rupiah() {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234567890").await;
    app.certify("ID", &session).await;
    // No demo product can break the OJK cap (the catalog refuses such a file at start-up, and crates/domain tests
    // the cap refusal itself), so here the Indonesian flow end to end.
    let kfs = data(
        app.post_as(
            "/api/v1/borrower/apply",
            &session,
            &json!({"productCode": "id-kilat-30", "amount": 100_000_000, "termCode": "30d"}),
        )
        .await,
    )
    .await;
    assert_eq!(kfs["currency"], "IDR");
    let order = confirm(&app, &session, &confirm_body(&kfs, "id-order-0001")).await;
    assert_eq!(order.status(), StatusCode::CREATED);
    app.stop().await;
}

#[tokio::test]
async fn another_borrowers_order_is_not_found() {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876543210").await;
    let ravi = app.sign_in("IN", "9811122200").await;
    app.certify("IN", &asha).await;
    let kfs = data(apply(&app, &asha, 2_000_000, "m6").await).await;
    let order = data(confirm(&app, &asha, &confirm_body(&kfs, "asha-order-01")).await).await;
    let order_no = order["orderNo"].as_str().unwrap();
    for path in [
        format!("/api/v1/borrower/orders/{order_no}"),
        format!("/api/v1/borrower/orders/{order_no}/agreement"),
    ] {
        let response = app.get_as(&path, &ravi).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert_eq!(error(response).await["code"], "not_found");
        assert_eq!(app.get(&path).await.status(), StatusCode::UNAUTHORIZED);
    }
    assert!(
        data(app.get_as("/api/v1/borrower/orders", &ravi).await)
            .await
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Ravi reusing Asha's idempotency key makes nothing of hers visible: it is per borrower.
    app.certify("IN", &ravi).await;
    let ravi_kfs = data(apply(&app, &ravi, 2_000_000, "m6").await).await;
    let theirs = confirm(&app, &ravi, &confirm_body(&ravi_kfs, "asha-order-01")).await;
    assert_eq!(theirs.status(), StatusCode::CREATED);
    assert_ne!(data(theirs).await["orderNo"], order["orderNo"]);
    app.stop().await;
}

#[tokio::test]
async fn the_privacy_policy_is_public_and_in_the_requests_language() {
    let app = spawn_app().await;
    let english = data(app.get_en("/api/v1/borrower/privacy", None).await).await;
    let indonesian = data(app.get("/api/v1/borrower/privacy").await).await;
    assert_ne!(english["title"], indonesian["title"]);
    assert!(english["sections"].as_array().unwrap().len() >= 5);
    let text = english.to_string();
    assert!(!text.contains("{app}") && !text.contains("{lender}"));
    app.stop().await;
}

/// Many borrowers at once: on PostgreSQL an HTTP worker answers the session reads of the requests in flight with one
/// statement (`store::batch`); each must still get exactly its own session, orders and home, and a signed-out
/// session none, whatever it was batched with.
#[tokio::test]
async fn borrowers_asking_at_once_each_get_their_own_orders_and_home() {
    let app = spawn_app().await;
    let mut borrowers = Vec::new();
    for n in 0..6i64 {
        let session = app.sign_in("IN", &format!("98765432{n:02}")).await;
        // Half of them with an order of their own amount, the other half with none.
        let amount = if n % 2 == 0 {
            app.certify("IN", &session).await;
            let amount = 1_000_000 + n * 100_000;
            let kfs = data(apply(&app, &session, amount, "m6").await).await;
            let key = format!("crowd-order-{n:02}");
            let order = confirm(&app, &session, &confirm_body(&kfs, &key)).await;
            assert_eq!(order.status(), StatusCode::CREATED);
            Some(amount)
        } else {
            None
        };
        let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
        borrowers.push((session, amount, me));
    }
    let gone = app.sign_in("IN", "9811122299").await;
    let logout = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("x-session-id", &gone)
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::OK);

    for _round in 0..5 {
        let mut requests = tokio::task::JoinSet::new();
        for (session, amount, me) in borrowers.iter().cloned() {
            for path in [
                "/api/v1/borrower/orders",
                "/api/v1/borrower/home",
                "/api/v1/borrower/me",
            ] {
                let client = app.client.clone();
                let url = app.url(path);
                let (session, me) = (session.clone(), me.clone());
                requests.spawn(async move {
                    let response = client
                        .get(url)
                        .header("x-session-id", &session)
                        .send()
                        .await
                        .unwrap();
                    assert_eq!(response.status(), StatusCode::OK, "{path}");
                    let body = data(response).await;
                    match path {
                        "/api/v1/borrower/orders" => {
                            let amounts: Vec<i64> = body
                                .as_array()
                                .unwrap()
                                .iter()
                                .map(|o| o["amount"].as_i64().unwrap())
                                .collect();
                            assert_eq!(
                                amounts,
                                amount.into_iter().collect::<Vec<_>>(),
                                "{session}"
                            );
                        }
                        "/api/v1/borrower/home" => {
                            assert_eq!(body["phoneMasked"], me["phoneMasked"], "{session}");
                            let done = if amount.is_some() { 5 } else { 0 };
                            assert_eq!(body["certification"]["done"], done, "{session}");
                            assert_eq!(
                                body["openOrder"]["amount"].as_i64(),
                                amount,
                                "{session}: {}",
                                body["openOrder"]
                            );
                        }
                        _ => assert_eq!(body, me),
                    }
                });
            }
            let client = app.client.clone();
            let url = app.url("/api/v1/borrower/orders");
            let gone = gone.clone();
            requests.spawn(async move {
                let response = client
                    .get(url)
                    .header("x-session-id", &gone)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
            });
        }
        while let Some(done) = requests.join_next().await {
            done.unwrap();
        }
    }
    app.stop().await;
}

/// The loan screens of many borrowers at once: on PostgreSQL an HTTP worker reads the orders, plans and ledgers of
/// the requests in flight together (`store::loans::own_orders_in`, batched); each borrower must still get exactly their
/// own loan, another's order number must stay not found, and an order not paid out has payment types but no plan.
#[tokio::test]
async fn borrowers_asking_for_their_loans_at_once_each_get_their_own() {
    use crate::builders::{ID, IN};
    let app = spawn_app().await;
    let mut loans = Vec::new();
    for (market, amount) in [
        (IN, 1_000_000),
        (IN, 1_200_000),
        (ID, 100_000_000),
        (ID, 150_000_000),
    ] {
        loans.push((
            market,
            app.borrower(market).amount(amount).disbursed().await,
        ));
    }
    let waiting = app.borrower(IN).approved().await;
    let plan_of = |order_no: &str| format!("/api/v1/borrower/orders/{order_no}/plan");
    let methods_of = |order_no: &str| format!("/api/v1/borrower/payment-types?orderNo={order_no}");

    for round in 0..4 {
        // (session, path, status expected, the loan whose answer it is when 200 and the market's own first method
        // with the other market's, which must not appear)
        let mut asks = Vec::new();
        for (n, (market, loan)) in loans.iter().enumerate() {
            let methods = if *market == IN {
                ("upi", "virtual_account")
            } else {
                ("virtual_account", "upi")
            };
            let own = |path: String| (&loan.session, path, StatusCode::OK, Some((loan, methods)));
            asks.push(own(plan_of(&loan.order_no)));
            asks.push(own(format!(
                "/api/v1/borrower/orders/{}/repayment",
                loan.order_no
            )));
            asks.push(own(methods_of(&loan.order_no)));
            // From round 1, the next borrower's order number, which must stay hidden.
            if round > 0 {
                let other = &loans[(n + 1) % loans.len()].1.order_no;
                for path in [plan_of(other), methods_of(other)] {
                    asks.push((&loan.session, path, StatusCode::NOT_FOUND, None));
                }
            }
        }
        asks.push((
            &waiting.session,
            plan_of(&waiting.order_no),
            StatusCode::NOT_FOUND,
            None,
        ));
        asks.push((
            &waiting.session,
            methods_of(&waiting.order_no),
            StatusCode::OK,
            None,
        ));

        let answers = futures_util::future::join_all(
            asks.iter()
                .map(|(session, path, _, _)| app.get_as(path, session)),
        )
        .await;
        for ((_, path, status, own), response) in asks.iter().zip(answers) {
            assert_eq!(response.status(), *status, "{path}");
            let Some((loan, (first, foreign))) = own else {
                continue;
            };
            let body = data(response).await;
            if path.ends_with("/plan") {
                assert_eq!(body, loan.plan, "{path}");
            } else if path.ends_with("/repayment") {
                assert_eq!(body["orderNo"], loan.order_no.as_str());
                assert_eq!(
                    body["outstanding"], loan.plan["outstanding"]["total"],
                    "{path}"
                );
                assert_eq!(body["verifying"], false);
            } else {
                let got: Vec<&str> = body
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|m| m["method"].as_str().unwrap())
                    .collect();
                assert_eq!(got[0], *first, "{path}");
                assert!(!got.contains(foreign), "{path}: {got:?}");
            }
        }
    }
    app.stop().await;
}

/// The key of a confirmation whose order has since ended (withdrawn by the borrower the same day) is spent: applying
/// again for the same loan is refused as a reused key, never answered with the ended order, and a new key makes a new
/// application.
#[tokio::test]
async fn a_confirmation_key_whose_order_ended_is_spent_and_a_new_key_applies_anew() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9811122301").await;
    app.certify("IN", &session).await;
    let kfs = data(apply(&app, &session, 1_500_000, "m3").await).await;
    let body = confirm_body(&kfs, "same-day-key-0001");
    let first = data(confirm(&app, &session, &body).await).await;
    let order_no = first["orderNo"].as_str().unwrap();
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let kfs = data(apply(&app, &session, 1_500_000, "m3").await).await;
    assert_eq!(
        kfs["contentHash"], first["kfs"]["contentHash"],
        "the same statement the same day"
    );
    let reused = confirm(&app, &session, &confirm_body(&kfs, "same-day-key-0001")).await;
    assert_eq!(reused.status(), StatusCode::CONFLICT);
    assert_eq!(error(reused).await["code"], "idempotency_key_reused");
    let anew = confirm(&app, &session, &confirm_body(&kfs, "same-day-key-0002")).await;
    assert_eq!(anew.status(), StatusCode::CREATED);
    assert_ne!(data(anew).await["orderNo"], json!(order_no));
}

/// An application races a save of the job step that lowers the income under the minimum (the save holds the
/// borrower's row, as every save does, when the application reads its standing): the application waits for the
/// borrower's row and is decided on the certification as saved, refused, never an order for a borrower now under the
/// minimum.
#[tokio::test]
async fn an_application_racing_a_save_that_lowers_the_income_is_decided_on_the_saved_income() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    app.certify("IN", &session).await;
    let borrower = app.borrower_id(&session).await;
    let kfs = data(apply(&app, &session, 1_500_000, "m3").await).await;
    let body = confirm_body(&kfs, "race-income-1");
    let mut body_with_hash = body.clone();
    let loan = json!({"productCode": body["productCode"], "amount": body["amount"], "termCode": body["termCode"]});
    body_with_hash["agreementHash"] = app.agreement_hash(&session, &loan).await;

    // A save of the job step under way: the borrower's row held, the lower income written, not yet committed.
    let mut save = app.db.pool().acquire().await.unwrap();
    let sqlite = app.db.is_sqlite();
    let begin = if sqlite { "BEGIN IMMEDIATE" } else { "BEGIN" };
    sqlx::query(begin).execute(&mut *save).await.unwrap();
    if !sqlite {
        sqlx::query("SELECT id FROM borrowers WHERE id = $1 FOR UPDATE")
            .bind(&borrower)
            .execute(&mut *save)
            .await
            .unwrap();
    }
    sqlx::query(
        "UPDATE certification_steps SET income_below = 1 WHERE borrower_id = $1 AND step = 'job'",
    )
    .bind(&borrower)
    .execute(&mut *save)
    .await
    .unwrap();
    let application = {
        let (app, session, body) = (&app, session.clone(), body_with_hash.clone());
        async move {
            app.post_as("/api/v1/borrower/orders", &session, &body)
                .await
        }
    };
    let commit = async {
        // Long enough for the application to have read its standing (the income as it was) and to wait for the row.
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        sqlx::query("COMMIT").execute(&mut *save).await.unwrap();
    };
    let (answer, ()) = tokio::join!(application, commit);
    assert_eq!(answer.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(answer).await["code"], "not_eligible");
    let (orders,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM orders WHERE borrower_id = $1")
        .bind(&borrower)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(orders, 0);
    app.stop().await;
}
