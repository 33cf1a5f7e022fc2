//! A borrower's whole picture for reviewers (issue 18, items 5 and 6): duplicates of PAN/NIK, phone and bank account
//! across borrowers found by keyed hash (no plaintext kept, backfilled at start, erased with the account), income a
//! month and a year in both markets, labels and age, the borrower's other orders, the team's note never shown to the
//! borrower, the rejection's reason required, and claims on applications (one winner of a burst, decisions on
//! another's claim refused, admins release).

use kilat_server::auth::operators::{self, Role};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::console::{Console, PASSWORD, as_op, create, sign_in};
use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_on};

async fn get(app: &TestApp, op: &Console, path: &str) -> reqwest::Response {
    as_op(app, op, Method::GET, path).send().await.unwrap()
}

async fn post(app: &TestApp, op: &Console, path: &str, body: &Value) -> reqwest::Response {
    as_op(app, op, Method::POST, path)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// What makes a test borrower distinct: ID number, the two contacts' phones, the bank account.
struct Identity<'a> {
    id_number: &'a str,
    contact1: &'a str,
    contact2: &'a str,
    account: &'a str,
}

/// Certifies with the market's valid steps, but with `who`'s identifying values.
async fn certify_as(app: &TestApp, market: &str, session: &str, who: &Identity<'_>) {
    app.certify_with(market, session, |step, body| match step {
        "base" => body["idNumber"] = json!(who.id_number),
        "extended" => {
            body["contact1Phone"] = json!(who.contact1);
            body["contact2Phone"] = json!(who.contact2);
        }
        "bank" => {
            body["accountNumber"] = json!(who.account);
            body["accountNumberConfirm"] = json!(who.account);
        }
        _ => {}
    })
    .await;
}

/// A borrower of `market` certified as `who`, with an application in review: (session, order number).
async fn applicant(
    app: &TestApp,
    market: &str,
    phone: &str,
    who: &Identity<'_>,
) -> (String, String) {
    let session = app.sign_in(market, phone).await;
    certify_as(app, market, &session, who).await;
    let order_no = apply(app, market, &session, phone).await;
    (session, order_no)
}

async fn apply(app: &TestApp, market: &str, session: &str, key: &str) -> String {
    let loan = if market == "IN" {
        json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"})
    } else {
        json!({"productCode": "id-kilat-30", "amount": 100_000_000, "termCode": "14d"})
    };
    let kfs = data(app.post_as("/api/v1/borrower/apply", session, &loan).await).await;
    let mut body = loan.clone();
    body["kfsHash"] = kfs["contentHash"].clone();
    body["idempotencyKey"] = json!(format!("key-{key}-{}", uuid::Uuid::now_v7()));
    body["agreementHash"] = app.agreement_hash(session, &loan).await;
    let order = data(app.post_as("/api/v1/borrower/orders", session, &body).await).await;
    order["orderNo"].as_str().unwrap().to_owned()
}

async fn view(app: &TestApp, op: &Console, order_no: &str) -> Value {
    data(get(app, op, &format!("/api/v1/console/orders/{order_no}")).await).await
}

/// The duplicates of an order view as (field, other field, other order number).
fn flags(view: &Value) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = view["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["field"].as_str().unwrap().to_owned(),
                d["otherField"].as_str().unwrap().to_owned(),
                d["otherOrderNo"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

async fn borrower_id(app: &TestApp, order_no: &str) -> String {
    sqlx::query_scalar("SELECT borrower_id FROM orders WHERE order_no = $1")
        .bind(order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

const ASHA: Identity<'static> = Identity {
    id_number: "ABCPE1234F",
    contact1: "9811122233",
    contact2: "9822233344",
    account: "501001234567",
};

#[tokio::test]
async fn the_same_pan_phone_or_account_on_another_borrower_is_flagged_never_for_the_same_borrower()
{
    let app = spawn_app().await;
    let (_, asha) = applicant(&app, "IN", "9876511001", &ASHA).await;
    // Bina: Asha's PAN typed in lower case, Asha's own phone as a contact, Asha's account with spaces.
    let (_, bina) = applicant(
        &app,
        "IN",
        "9876511002",
        &Identity {
            id_number: "abcpe1234f",
            contact1: "+91 98765 11001",
            contact2: "9833344455",
            account: "5010 0123 4567",
        },
    )
    .await;
    // Chetan shares nothing with either.
    let (_, chetan) = applicant(
        &app,
        "IN",
        "9876511003",
        &Identity {
            id_number: "BCDPF2345G",
            contact1: "9844455566",
            contact2: "9855566677",
            account: "600200345678",
        },
    )
    .await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;

    let seen_by_bina = view(&app, &op, &bina).await;
    assert_eq!(
        flags(&seen_by_bina),
        [
            ("bankAccount".into(), "bankAccount".into(), asha.clone()),
            ("contact1Phone".into(), "phone".into(), asha.clone()),
            ("idNumber".into(), "idNumber".into(), asha.clone()),
        ]
    );
    let asha_id = borrower_id(&app, &asha).await;
    for d in seen_by_bina["duplicates"].as_array().unwrap() {
        assert_eq!(d["otherBorrowerId"], asha_id.as_str());
        assert_eq!(d["otherMarket"], "IN");
    }
    let kinds: Vec<&str> = seen_by_bina["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["bank", "phone", "id"]);
    // The other way round, and nothing of a borrower flagged against themself (Asha saves her ID step again).
    assert_eq!(
        flags(&view(&app, &op, &asha).await),
        [
            ("bankAccount".into(), "bankAccount".into(), bina.clone()),
            ("idNumber".into(), "idNumber".into(), bina.clone()),
            ("phone".into(), "contact1Phone".into(), bina.clone()),
        ]
    );
    assert_eq!(flags(&view(&app, &op, &chetan).await), []);
    app.stop().await;
}

#[tokio::test]
async fn the_same_nik_is_flagged_in_indonesia_and_saving_a_step_again_flags_nothing_new() {
    let app = spawn_app().await;
    let budi = Identity {
        id_number: "3171234567890001",
        contact1: "081298765432",
        contact2: "081311122233",
        account: "1234567890",
    };
    let (_, first) = applicant(&app, "ID", "081234560001", &budi).await;
    let other = Identity {
        id_number: "3171234567890001",
        contact1: "081255500011",
        contact2: "081255500022",
        account: "9876543210",
    };
    let second_session = app.sign_in("ID", "081234560002").await;
    certify_as(&app, "ID", &second_session, &other).await;
    // The same step saved twice replaces its fingerprint: still one row for the field.
    certify_as(&app, "ID", &second_session, &other).await;
    let second = apply(&app, "ID", &second_session, "second").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    assert_eq!(
        flags(&view(&app, &op, &second).await),
        [("idNumber".into(), "idNumber".into(), first.clone())]
    );
    assert_eq!(
        flags(&view(&app, &op, &first).await),
        [("idNumber".into(), "idNumber".into(), second.clone())]
    );
    let rows: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM borrower_fingerprints WHERE borrower_id = $1")
            .bind(borrower_id(&app, &second).await)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(rows, 5, "phone, ID, two contacts, account: once each");
    app.stop().await;
}

#[tokio::test]
async fn the_fingerprints_hold_no_plaintext_and_go_with_the_account() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511011").await;
    certify_as(&app, "IN", &session, &ASHA).await;
    let rows: Vec<(String, String, String, String)> =
        sqlx::query_as("SELECT borrower_id, field, kind, hash FROM borrower_fingerprints")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    let fields: Vec<(&str, &str)> = {
        let mut f: Vec<(&str, &str)> = rows
            .iter()
            .map(|(_, field, kind, _)| (field.as_str(), kind.as_str()))
            .collect();
        f.sort();
        f
    };
    assert_eq!(
        fields,
        [
            ("bankAccount", "bank"),
            ("contact1Phone", "phone"),
            ("contact2Phone", "phone"),
            ("idNumber", "id"),
            ("phone", "phone")
        ]
    );
    for (_, _, _, hash) in &rows {
        assert_eq!(hash.len(), 64);
        assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");
        for clear in [
            "ABCPE1234F",
            "abcpe1234f",
            "501001234567",
            "9876511011",
            "9811122233",
            "9822233344",
            "HDFC",
        ] {
            assert!(
                !hash
                    .to_ascii_uppercase()
                    .contains(&clear.to_ascii_uppercase())
            );
        }
    }
    // A keyed hash: the plain SHA-256 of a value is not what is stored.
    use sha2::Digest;
    let plain = hex::encode(sha2::Sha256::digest(b"ABCPE1234F"));
    assert!(rows.iter().all(|(_, _, _, h)| *h != plain));
    let masked: String = sqlx::query_scalar("SELECT phone_masked FROM borrowers")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(masked, "+91 ******1011");

    let deleted = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    let left: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM borrower_fingerprints")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(left, 0, "erasure removes the hashes");
    let masked: String = sqlx::query_scalar("SELECT phone_masked FROM borrowers")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(masked, "");
    app.stop().await;
}

#[tokio::test]
async fn borrowers_from_before_the_migration_get_their_fingerprints_at_the_next_start() {
    let app = spawn_app().await;
    let (_, asha) = applicant(&app, "IN", "9876511021", &ASHA).await;
    let (_, bina) = applicant(
        &app,
        "IN",
        "9876511022",
        &Identity {
            contact1: "9811100000",
            contact2: "9822200000",
            account: "777700001111",
            ..ASHA
        },
    )
    .await;
    // As a database written before migration 0035: no fingerprints, no masked phones, the marker in place.
    app.execute("DELETE FROM borrower_fingerprints").await;
    app.execute("UPDATE borrowers SET phone_masked = ''").await;
    app.execute("INSERT INTO fingerprint_backfill_pending (id) VALUES (1)")
        .await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    assert_eq!(flags(&view(&app, &op, &bina).await), []);

    // The next start backfills, once.
    let restarted = spawn_app_on(&app.database_url).await;
    let op = sign_in(&restarted, "rita").await;
    assert_eq!(
        flags(&view(&restarted, &op, &bina).await),
        [("idNumber".into(), "idNumber".into(), asha.clone())]
    );
    let queue = data(get(&restarted, &op, "/api/v1/console/applications?market=IN").await).await;
    let phones: Vec<&str> = queue
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["phoneMasked"].as_str().unwrap())
        .collect();
    assert_eq!(phones, ["+91 ******1021", "+91 ******1022"]);
    let markers: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM fingerprint_backfill_pending")
        .fetch_one(restarted.db.pool())
        .await
        .unwrap();
    assert_eq!(markers, 0);
    restarted.stop().await;
    app.stop().await;
}

#[tokio::test]
async fn income_is_shown_a_month_and_a_year_in_both_markets_with_labels_and_age() {
    let app = spawn_app().await;
    let india_session = app.sign_in("IN", "9876511031").await;
    app.certify("IN", &india_session).await;
    let india = apply(&app, "IN", &india_session, "in").await;
    let indonesia_session = app.sign_in("ID", "081234560031").await;
    app.certify("ID", &indonesia_session).await;
    let indonesia = apply(&app, "ID", &indonesia_session, "id").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;

    let seen = view(&app, &op, &india).await;
    let picture = &seen["picture"];
    // India stores a month's income: ₹45,000 a month, ₹5,40,000 a year.
    assert_eq!(
        picture["income"],
        json!({"currency": "INR", "monthly": 4_500_000, "yearly": 54_000_000,
            "minimumMonthly": 1_200_000, "minimumYearly": 14_400_000})
    );
    let labels = &picture["labels"];
    assert_eq!(labels["employmentType"], "Salaried (private company)");
    assert_eq!(labels["city"], "Mumbai");
    assert_eq!(labels["region"], "Maharashtra");
    assert_eq!(labels["bank"], "HDFC Bank");
    assert_eq!(labels["gender"], "Female");
    assert_eq!(labels["contact1Relation"], "Parent");
    // Born 14 Mar 1992: the age on India's today.
    let today = app.services.clock.today(kilat_domain::Market::India);
    let mut age = today.year() - 1992;
    if (u8::from(today.month()), today.day()) < (3, 14) {
        age -= 1;
    }
    assert_eq!(picture["age"], age);

    let seen = view(&app, &op, &indonesia).await;
    // Indonesia stores a year's: Rp 90,000,000 a year is Rp 7,500,000 a month.
    assert_eq!(
        seen["picture"]["income"],
        json!({"currency": "IDR", "monthly": 750_000_000, "yearly": 9_000_000_000i64,
            "minimumMonthly": 41_666_666, "minimumYearly": 500_000_000})
    );
    let labels = &seen["picture"]["labels"];
    assert_eq!(labels["bank"], "BCA (Bank Central Asia)");
    assert!(
        labels["city"]
            .as_str()
            .is_some_and(|c| c.contains("Jakarta"))
    );
    app.stop().await;
}

#[tokio::test]
async fn the_order_view_lists_the_borrowers_other_orders_with_their_outcomes() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511041").await;
    app.certify("IN", &session).await;
    let first = apply(&app, "IN", &session, "first").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    let rejected = post(
        &app,
        &op,
        &format!("/api/v1/console/orders/{first}/reject"),
        &json!({"reason": "Income could not be verified."}),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    let second = apply(&app, "IN", &session, "second").await;
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{second}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    let third = apply(&app, "IN", &session, "third").await;

    let seen = view(&app, &op, &third).await;
    let history: Vec<(&str, &str, i64, i64)> = seen["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["orderNo"].as_str().unwrap(),
                h["status"].as_str().unwrap(),
                h["amount"].as_i64().unwrap(),
                h["daysLate"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            (second.as_str(), "cancelled", 2_000_000, 0),
            (first.as_str(), "rejected", 2_000_000, 0)
        ]
    );
    assert!(seen["history"][0]["createdAt"].as_i64().is_some());
    assert!(seen["history"][0]["closedAt"].as_i64().is_some());
    assert_eq!(seen["history"][0]["currency"], "INR");
    app.stop().await;
}

#[tokio::test]
async fn the_team_note_never_reaches_the_borrower_and_a_rejection_needs_its_reason() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511051").await;
    app.certify("IN", &session).await;
    let approved_no = apply(&app, "IN", &session, "a").await;
    create(&app, "rita", &[Role::Reviewer]).await;
    let op = sign_in(&app, "rita").await;
    let secret = "Team only: salary slip matches, employer called";
    let approved = post(
        &app,
        &op,
        &format!("/api/v1/console/orders/{approved_no}/approve"),
        &json!({"note": secret}),
    )
    .await;
    assert_eq!(approved.status(), StatusCode::OK);
    let seen = view(&app, &op, &approved_no).await;
    assert_eq!(seen["reviewNote"], secret);
    assert_eq!(seen["reviewReason"], Value::Null);
    // No borrower answer carries it: the order, the list, the export.
    for path in [
        format!("/api/v1/borrower/orders/{approved_no}"),
        "/api/v1/borrower/orders".to_owned(),
        "/api/v1/borrower/export".to_owned(),
    ] {
        let response = app.get_as(&path, &session).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        let text = response.text().await.unwrap();
        assert!(!text.contains("salary slip"), "{path} shows the note");
    }
    // Withdrawn, then a new one rejected: the reason is required, the note stays the team's.
    let cancel = app
        .post_as(
            &format!("/api/v1/borrower/orders/{approved_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancel.status(), StatusCode::OK);
    let rejected_no = apply(&app, "IN", &session, "r").await;
    let reject = format!("/api/v1/console/orders/{rejected_no}/reject");
    for body in [
        json!({}),
        json!({"reason": "  "}),
        json!({"note": "Only a note"}),
    ] {
        let response = post(&app, &op, &reject, &body).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
        assert!(error(response).await["fields"]["reason"].is_string());
    }
    let too_long = post(
        &app,
        &op,
        &reject,
        &json!({"reason": "ok", "note": "x".repeat(501)}),
    )
    .await;
    assert_eq!(too_long.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(too_long).await["fields"]["note"].is_string());
    let done = post(
        &app,
        &op,
        &reject,
        &json!({"reason": "Your income is below what the lender needs.", "note": "Team only: payslip forged?"}),
    )
    .await;
    assert_eq!(done.status(), StatusCode::OK);
    let detail = app
        .get_as(&format!("/api/v1/borrower/orders/{rejected_no}"), &session)
        .await
        .text()
        .await
        .unwrap();
    assert!(detail.contains("Your income is below what the lender needs."));
    assert!(!detail.contains("payslip forged"));
    app.stop().await;
}

async fn audited(app: &TestApp, action: &str) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM audit_log WHERE action = $1 AND entity = 'order'")
        .bind(action)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

/// Signs `n` reviewers in without HTTP, each from an address of its own (the console's sign-in limit is per address).
async fn reviewers(app: &TestApp, n: usize) -> Vec<Console> {
    let mut out = Vec::new();
    for i in 0..n {
        let name = format!("reviewer{i}");
        create(app, &name, &[Role::Reviewer]).await;
        let signed = operators::sign_in(&app.services, &name, PASSWORD, &format!("10.0.{i}.1"))
            .await
            .unwrap();
        out.push(Console {
            token: signed.token,
            csrf: signed.csrf_token,
            id: signed.operator.id,
        });
    }
    out
}

/// A claim of a reviewer who can no longer decide (disabled, or their reviewer role taken away) is released with the
/// change, audited as the admin's: another reviewer decides at once, not after the claim's 30 minutes.
#[tokio::test]
async fn disabling_a_reviewer_or_taking_their_role_away_releases_their_claims() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511062").await;
    app.certify("IN", &session).await;
    let first = apply(&app, "IN", &session, "claim-disabled").await;
    let ops = reviewers(&app, 3).await;
    create(&app, "boss", &[Role::Admin]).await;
    let admin = sign_in(&app, "boss").await;
    let claim = |order_no: &str, op: &Console| {
        let path = format!("/api/v1/console/orders/{order_no}/claim");
        let request = as_op(&app, op, Method::POST, &path);
        async move { request.send().await.unwrap().status() }
    };
    let claimed_by = |order_no: String| {
        let app = &app;
        async move {
            sqlx::query_scalar::<_, Option<String>>(
                "SELECT claimed_by FROM orders WHERE order_no = $1",
            )
            .bind(order_no)
            .fetch_one(app.db.pool())
            .await
            .unwrap()
        }
    };
    assert_eq!(claim(&first, &ops[0]).await, StatusCode::OK);
    // Changing roles that keep the reviewer's leaves the claim.
    let roles = format!("/api/v1/console/operators/{}/roles", ops[0].id);
    let kept = as_op(&app, &admin, Method::PUT, &roles)
        .json(&json!({"roles": ["reviewer", "finance"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(kept.status(), StatusCode::OK);
    assert_eq!(
        claimed_by(first.clone()).await.as_deref(),
        Some(ops[0].id.as_str())
    );
    let disabled = as_op(
        &app,
        &admin,
        Method::POST,
        &format!("/api/v1/console/operators/{}/disable", ops[0].id),
    )
    .send()
    .await
    .unwrap();
    assert_eq!(disabled.status(), StatusCode::OK);
    assert_eq!(claimed_by(first.clone()).await, None);
    assert_eq!(audited(&app, "order.release").await, 1);
    let approved = post(
        &app,
        &ops[1],
        &format!("/api/v1/console/orders/{first}/approve"),
        &json!({"note": "Checked."}),
    )
    .await;
    assert_eq!(approved.status(), StatusCode::OK, "decided at once");

    // A reviewer made support only: the same.
    let other = app.sign_in("IN", "9876511063").await;
    app.certify("IN", &other).await;
    let second = apply(&app, "IN", &other, "claim-role").await;
    assert_eq!(claim(&second, &ops[1]).await, StatusCode::OK);
    let support_only = as_op(
        &app,
        &admin,
        Method::PUT,
        &format!("/api/v1/console/operators/{}/roles", ops[1].id),
    )
    .json(&json!({"roles": ["support"]}))
    .send()
    .await
    .unwrap();
    assert_eq!(support_only.status(), StatusCode::OK);
    assert_eq!(claimed_by(second.clone()).await, None);
    assert_eq!(audited(&app, "order.release").await, 2);
    assert_eq!(claim(&second, &ops[2]).await, StatusCode::OK);

    // A market taken away releases the claims on its orders, and keeps the others'.
    let indonesian = app.sign_in("ID", "081234560091").await;
    app.certify("ID", &indonesian).await;
    let third = apply(&app, "ID", &indonesian, "claim-market").await;
    assert_eq!(claim(&third, &ops[2]).await, StatusCode::OK);
    let india_only = as_op(
        &app,
        &admin,
        Method::PUT,
        &format!("/api/v1/console/operators/{}/markets", ops[2].id),
    )
    .json(&json!({"markets": ["IN"]}))
    .send()
    .await
    .unwrap();
    assert_eq!(india_only.status(), StatusCode::OK);
    assert_eq!(claimed_by(third.clone()).await, None);
    assert_eq!(
        claimed_by(second.clone()).await.as_deref(),
        Some(ops[2].id.as_str())
    );
    assert_eq!(audited(&app, "order.release").await, 3);
    app.stop().await;
}

#[tokio::test]
async fn of_twenty_simultaneous_claims_exactly_one_wins_and_a_decision_on_anothers_claim_is_refused()
 {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511061").await;
    app.certify("IN", &session).await;
    let order_no = apply(&app, "IN", &session, "claim").await;
    let ops = reviewers(&app, 20).await;
    let path = format!("/api/v1/console/orders/{order_no}/claim");
    let burst = ops.iter().map(|op| {
        let request = as_op(&app, op, Method::POST, &path);
        async move { request.send().await.unwrap() }
    });
    let answers = futures_util::future::join_all(burst).await;
    let mut winners = Vec::new();
    for (i, answer) in answers.into_iter().enumerate() {
        match answer.status() {
            StatusCode::OK => winners.push(i),
            StatusCode::CONFLICT => assert_eq!(error(answer).await["code"], "application_claimed"),
            other => panic!("claim {i}: {other}"),
        }
    }
    assert_eq!(winners.len(), 1, "exactly one claim wins");
    let holder = &ops[winners[0]];
    let other = &ops[(winners[0] + 1) % ops.len()];
    let claimed: (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT claimed_by, claimed_until FROM orders WHERE order_no = $1")
            .bind(&order_no)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(claimed.0.as_deref(), Some(holder.id.as_str()));
    assert_eq!(audited(&app, "order.claim").await, 1);

    // The queue and the order view say who holds it; the counts count it.
    let queue = data(get(&app, other, "/api/v1/console/applications?market=IN").await).await;
    assert_eq!(
        queue[0]["claim"]["username"],
        format!("reviewer{}", winners[0])
    );
    assert_eq!(queue[0]["claim"]["operatorId"], holder.id.as_str());
    let seen = view(&app, other, &order_no).await;
    assert_eq!(seen["claim"]["operatorId"], holder.id.as_str());
    let counts = data(get(&app, other, "/api/v1/console/applications/counts").await).await;
    assert_eq!(
        counts,
        json!([{"market": "IN", "waiting": 1, "claimed": 1}, {"market": "ID", "waiting": 0, "claimed": 0}])
    );

    // Another reviewer can neither decide nor release it.
    for action in ["approve", "reject"] {
        let response = post(
            &app,
            other,
            &format!("/api/v1/console/orders/{order_no}/{action}"),
            &json!({"reason": "Mine now", "note": "x"}),
        )
        .await;
        assert_eq!(response.status(), StatusCode::CONFLICT, "{action}");
        assert_eq!(error(response).await["code"], "application_claimed");
    }
    let release = format!("/api/v1/console/orders/{order_no}/release");
    let refused = post(&app, other, &release, &json!({})).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let status: String = sqlx::query_scalar("SELECT status FROM orders WHERE order_no = $1")
        .bind(&order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(
        status, "pending_review",
        "a refused decision writes nothing"
    );

    // An admin releases it; then the other reviewer claims it, and the first one's decision is refused.
    create(&app, "boss", &[Role::Admin]).await;
    let admin = sign_in(&app, "boss").await;
    assert_eq!(
        post(&app, &admin, &release, &json!({})).await.status(),
        StatusCode::OK
    );
    assert_eq!(audited(&app, "order.release").await, 1);
    assert_eq!(
        post(&app, other, &path, &json!({})).await.status(),
        StatusCode::OK
    );
    let refused = post(
        &app,
        holder,
        &format!("/api/v1/console/orders/{order_no}/approve"),
        &json!({}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    // A claim lapses: 30 minutes on, the first reviewer may decide.
    app.execute(&format!(
        "UPDATE orders SET claimed_until = claimed_until - {} WHERE order_no = '{order_no}'",
        31 * 60 * 1000
    ))
    .await;
    let approved = post(
        &app,
        holder,
        &format!("/api/v1/console/orders/{order_no}/approve"),
        &json!({"note": "Checked."}),
    )
    .await;
    assert_eq!(approved.status(), StatusCode::OK);
    let after: (Option<String>, Option<i64>) =
        sqlx::query_as("SELECT claimed_by, claimed_until FROM orders WHERE order_no = $1")
            .bind(&order_no)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(after, (None, None), "a decision ends the claim");
    // Claiming a decided order is a conflict of its state.
    let late = post(&app, other, &path, &json!({})).await;
    assert_eq!(late.status(), StatusCode::CONFLICT);
    assert_eq!(error(late).await["code"], "invalid_transition");
    app.stop().await;
}

#[tokio::test]
async fn claims_counts_and_pages_answer_each_role_exactly() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511071").await;
    app.certify("IN", &session).await;
    let order_no = apply(&app, "IN", &session, "roles").await;
    let mut ops = Vec::new();
    for (name, role) in [
        ("admin", Role::Admin),
        ("reviewer", Role::Reviewer),
        ("finance", Role::Finance),
        ("support", Role::Support),
    ] {
        create(&app, name, &[role]).await;
        ops.push((name, sign_in(&app, name).await));
    }
    let claim = format!("/api/v1/console/orders/{order_no}/claim");
    let release = format!("/api/v1/console/orders/{order_no}/release");
    for (name, op) in &ops {
        let expect = |allowed: &[&str]| {
            if allowed.contains(name) {
                StatusCode::OK
            } else {
                StatusCode::FORBIDDEN
            }
        };
        let counts = get(&app, op, "/api/v1/console/applications/counts").await;
        assert_eq!(
            counts.status(),
            expect(&["reviewer", "support"]),
            "{name} counts"
        );
        let page = get(
            &app,
            op,
            "/api/v1/console/applications?market=IN&page=1&pageSize=10",
        )
        .await;
        assert_eq!(
            page.status(),
            expect(&["reviewer", "support"]),
            "{name} queue"
        );
        let claimed = post(&app, op, &claim, &json!({})).await;
        assert_eq!(claimed.status(), expect(&["reviewer"]), "{name} claim");
    }
    // Release: the reviewer their own; admin anybody's; finance and support never.
    for (name, op) in &ops {
        if matches!(*name, "finance" | "support") {
            let response = post(&app, op, &release, &json!({})).await;
            assert_eq!(response.status(), StatusCode::FORBIDDEN, "{name} release");
        }
    }
    let reviewer = &ops[1].1;
    assert_eq!(
        post(&app, reviewer, &release, &json!({})).await.status(),
        StatusCode::OK
    );
    // Nothing left to release.
    assert_eq!(
        post(&app, reviewer, &release, &json!({})).await.status(),
        StatusCode::NOT_FOUND
    );
    // Nobody signed in.
    let anonymous = app.get("/api/v1/console/applications/counts").await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    // Pages: out-of-range numbers are field errors; a page past the end is empty.
    for bad in ["page=0", "pageSize=0", "pageSize=101", "page=x"] {
        let response = get(
            &app,
            reviewer,
            &format!("/api/v1/console/applications?market=IN&{bad}"),
        )
        .await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        let field = bad.split('=').next().unwrap();
        assert!(error(response).await["fields"][field].is_string(), "{bad}");
    }
    let past = data(
        get(
            &app,
            reviewer,
            "/api/v1/console/applications?market=IN&page=2&pageSize=1",
        )
        .await,
    )
    .await;
    assert_eq!(past, json!([]));
    let first = data(
        get(
            &app,
            reviewer,
            "/api/v1/console/applications?market=IN&page=1&pageSize=1",
        )
        .await,
    )
    .await;
    assert_eq!(first[0]["orderNo"], order_no.as_str());
    app.stop().await;
}

/// The review queue's counts are kept between requests (store/kept_counts.rs), never past a change made through this
/// server: a new application, a claim, its release and a decision each show in the next count asked for.
#[tokio::test]
async fn the_kept_review_counts_show_every_change_made_through_the_server_at_once() {
    let app = spawn_app().await;
    let ops = reviewers(&app, 1).await;
    let op = &ops[0];
    let india = |waiting: i64, claimed: i64| json!([{"market": "IN", "waiting": waiting, "claimed": claimed}, {"market": "ID", "waiting": 0, "claimed": 0}]);
    assert_eq!(
        data(get(&app, op, "/api/v1/console/applications/counts").await).await,
        india(0, 0)
    );

    let session = app.sign_in("IN", "9876511071").await;
    app.certify("IN", &session).await;
    let order_no = apply(&app, "IN", &session, "kept-counts").await;
    assert_eq!(
        data(get(&app, op, "/api/v1/console/applications/counts").await).await,
        india(1, 0),
        "a new application"
    );

    let order = |action: &str| format!("/api/v1/console/orders/{order_no}/{action}");
    assert_eq!(
        post(&app, op, &order("claim"), &json!({})).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        data(get(&app, op, "/api/v1/console/applications/counts").await).await,
        india(1, 1),
        "a claim"
    );
    assert_eq!(
        post(&app, op, &order("release"), &json!({})).await.status(),
        StatusCode::OK
    );
    assert_eq!(
        data(get(&app, op, "/api/v1/console/applications/counts").await).await,
        india(1, 0),
        "a release"
    );
    let approved = post(&app, op, &order("approve"), &json!({"note": "Checked."})).await;
    assert_eq!(approved.status(), StatusCode::OK);
    assert_eq!(
        data(get(&app, op, "/api/v1/console/applications/counts").await).await,
        india(0, 0),
        "a decision"
    );
}
