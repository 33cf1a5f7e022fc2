//! The borrower's account (issue 9): the "me" menu, deleting the account (refused with money owed; otherwise nothing
//! personal left in any table, the old session refused, the same phone starting an empty account), a deletion racing
//! a confirm, the data export, and the KFS and agreement PDFs.

use kilat_domain::{Code, Market};
use kilat_server::auth::operators::Role;
use kilat_server::infra::crypto::Binding;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::builders::{Application, IN};
use crate::helpers::{TestApp, data, error, spawn_app, squash, valid_steps};
use crate::servicing::{
    approved, confirm, create_payment, disburse, op_call, operator, submit_utr,
};

async fn post_as(app: &TestApp, path: &str, session: &str) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .header("x-session-id", session)
        .send()
        .await
        .unwrap()
}

async fn delete_account(app: &TestApp, session: &str) -> reqwest::Response {
    post_as(app, "/api/v1/borrower/account/deletion", session).await
}

/// A certified borrower of `market` with an application confirmed and then withdrawn: (session, order number).
pub(crate) async fn borrower_with_closed_order(
    app: &TestApp,
    market: &str,
    phone: &str,
) -> (String, String) {
    let market = Market::from_code(market).expect("IN or ID");
    let mut borrower = app.borrower(market).phone(phone);
    if market == IN {
        borrower = borrower.loan("in-flexi-6m", 2_000_000, "m6");
    }
    let Application {
        session, order_no, ..
    } = borrower.applied().await;
    let cancelled = post_as(
        app,
        &format!("/api/v1/borrower/orders/{order_no}/cancel"),
        &session,
    )
    .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    (session, order_no)
}

/// Every text column of every table, as (table, column): read from the database's own catalog, so a table added
/// later is scanned too.
pub(crate) async fn text_columns(app: &TestApp) -> Vec<(String, String)> {
    if app.db.is_sqlite() {
        let tables: Vec<(String,)> = sqlx::query_as(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
        )
        .fetch_all(app.db.pool())
        .await
        .unwrap();
        let mut out = Vec::new();
        for (table,) in tables {
            let columns: Vec<(String, String)> = sqlx::query_as(&format!(
                "SELECT name, type FROM pragma_table_info('{table}')"
            ))
            .fetch_all(app.db.pool())
            .await
            .unwrap();
            for (column, kind) in columns {
                let kind = kind.to_uppercase();
                // The application stores every value it writes, encrypted ones included, as TEXT.
                if kind.contains("TEXT") || kind.contains("CHAR") {
                    out.push((table.clone(), column));
                }
            }
        }
        out
    } else {
        sqlx::query_as(
            "SELECT table_name::text, column_name::text FROM information_schema.columns
             WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'character')",
        )
        .fetch_all(app.db.pool())
        .await
        .unwrap()
    }
}

/// Each (table, column, needle) where a stored value contains one of `needles`.
async fn personal_data_left(app: &TestApp, needles: &[String]) -> Vec<String> {
    let columns = text_columns(app).await;
    assert!(
        columns.len() > 20,
        "the scan found too few columns: {columns:?}"
    );
    let mut found = Vec::new();
    for (table, column) in columns {
        let values: Vec<(Option<String>,)> = sqlx::query_as(&format!(
            r#"SELECT CAST("{column}" AS TEXT) FROM "{table}""#
        ))
        .fetch_all(app.db.pool())
        .await
        .unwrap();
        for value in values.into_iter().filter_map(|(v,)| v) {
            for needle in needles {
                if value.contains(needle.as_str()) {
                    found.push(format!("{table}.{column} holds {needle}"));
                }
            }
        }
    }
    found
}

async fn deletion_leaves_nothing_personal(market: &str, phone: &str, e164: &str) {
    let app = spawn_app().await;
    // Another borrower, who must keep their account (signed in only: a certification would repeat the same test
    // values, which the scan below looks for).
    let other = app
        .sign_in(
            market,
            if market == "IN" {
                "9123400077"
            } else {
                "081234500077"
            },
        )
        .await;
    let (session, order_no) = borrower_with_closed_order(&app, market, phone).await;
    let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
    let old_id = me["id"].as_str().unwrap().to_owned();
    // The bank account changed (its audit entry names both accounts, masked).
    let bank = valid_steps(market)
        .into_iter()
        .find(|(step, _)| *step == "bank")
        .unwrap()
        .1;
    let new_account = "9999888877";
    let sent = app
        .post_as(
            "/api/v1/borrower/verification-code",
            &session,
            &json!({"purpose": "bank_account"}),
        )
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let mut changed_bank = bank.clone();
    changed_bank["accountNumber"] = json!(new_account);
    changed_bank["accountNumberConfirm"] = json!(new_account);
    changed_bank["verificationCode"] = json!(app.latest_code().await);
    let changed = app
        .post_as(
            "/api/v1/borrower/certification/bank",
            &session,
            &changed_bank,
        )
        .await;
    assert_eq!(changed.status(), StatusCode::OK);

    // What to look for afterwards: every personal value in clear, masked, and in the app's stored forms.
    let mut needles: Vec<String> = vec![phone.to_owned(), e164.to_owned()];
    for (_, body) in valid_steps(market) {
        for key in [
            "fullName",
            "idNumber",
            "address",
            "contact1Name",
            "contact1Phone",
            "contact2Name",
            "contact2Phone",
            "employerName",
        ] {
            if let Some(v) = body[key].as_str() {
                needles.push(v.to_owned());
            }
        }
        if let Some(account) = body["accountNumberConfirm"].as_str() {
            for account in [account, new_account] {
                needles.push(account.to_owned());
                needles.push(kilat_server::certification::mask_account(account));
            }
        }
        if let Some(id) = body["idNumber"].as_str() {
            needles.push(kilat_server::certification::mask_id(id));
        }
    }
    let (phone_hash, phone_enc): (String, String) =
        sqlx::query_as("SELECT phone_hash, phone_enc FROM borrowers WHERE id = $1")
            .bind(&old_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    needles.push(phone_hash);
    needles.push(phone_enc);
    let blobs: Vec<(String,)> =
        sqlx::query_as("SELECT data_enc FROM certification_steps WHERE borrower_id = $1")
            .bind(&old_id)
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert_eq!(blobs.len(), 5);
    needles.extend(blobs.into_iter().map(|(b,)| b));
    // Before: the scan finds them (so it can fail).
    assert!(!personal_data_left(&app, &needles).await.is_empty());

    let deleted = delete_account(&app, &session).await;
    assert_eq!(deleted.status(), StatusCode::OK);
    let deleted = data(deleted).await;
    assert_eq!(deleted["sessionsRevoked"], 1);

    let left = personal_data_left(&app, &needles).await;
    assert!(left.is_empty(), "personal data left: {left:?}");

    // The old session is refused; the loan record is kept under the pseudonymous id.
    let refused = app.get_as("/api/v1/borrower/me", &session).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    // ...saying why, for the app's login screen.
    assert_eq!(refused.headers()["x-signed-out"], "account_deleted");
    let (kept,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM orders WHERE borrower_id = $1 AND order_no = $2 AND kfs_json <> ''",
    )
    .bind(&old_id)
    .bind(&order_no)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(kept, 1);
    // A second deletion with the old session: not signed in.
    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::UNAUTHORIZED
    );

    // The same phone signs up again as a new, empty account.
    let again = app.sign_in(market, phone).await;
    let me = data(app.get_as("/api/v1/borrower/me", &again).await).await;
    assert_ne!(me["id"], old_id.as_str());
    let orders = data(app.get_as("/api/v1/borrower/orders", &again).await).await;
    assert_eq!(orders.as_array().map(Vec::len), Some(0), "{orders}");
    let progress = data(app.get_as("/api/v1/borrower/certification", &again).await).await;
    assert_eq!(progress["complete"], false, "{progress}");
    assert!(
        progress["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["certStatus"] == "todo"),
        "{progress}"
    );
    let old_order = app
        .get_as(&format!("/api/v1/borrower/orders/{order_no}"), &again)
        .await;
    assert_eq!(old_order.status(), StatusCode::NOT_FOUND);

    // The other borrower is untouched.
    assert_eq!(
        app.get_as("/api/v1/borrower/me", &other).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test]
async fn deleting_an_account_leaves_nothing_personal_and_the_same_phone_starts_empty_in_india() {
    deletion_leaves_nothing_personal("IN", "9876512345", "+919876512345").await;
}

#[tokio::test]
async fn deleting_an_account_leaves_nothing_personal_and_the_same_phone_starts_empty_in_indonesia()
{
    deletion_leaves_nothing_personal("ID", "081298712345", "+6281298712345").await;
}

#[tokio::test]
async fn deletion_is_refused_while_a_loan_owes_money_stating_the_amount() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let (session, order_no, _) = approved(&app, "9876500201", "in-flexi-6m", 2_000_000, "m6").await;

    // Approved, not paid out: an open application.
    let check = data(
        app.get_as("/api/v1/borrower/account/deletion", &session)
            .await,
    )
    .await;
    assert_eq!(check["allowed"], false);
    assert_eq!(check["blocker"], "open_application");
    let refused = delete_account(&app, &session).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "open_order_exists");

    assert_eq!(
        disburse(&app, &finance, &order_no).await.status(),
        StatusCode::OK
    );
    let plan = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/plan"),
            &session,
        )
        .await,
    )
    .await;
    let owed = plan["outstanding"]["total"]
        .as_i64()
        .expect("the plan's outstanding");
    assert!(owed > 2_000_000, "{plan}");
    let check = data(
        app.get_as("/api/v1/borrower/account/deletion", &session)
            .await,
    )
    .await;
    assert_eq!(check["allowed"], false);
    assert_eq!(check["blocker"], "money_outstanding");
    assert_eq!(check["orderNo"], order_no.as_str());
    assert_eq!(check["outstanding"], owed);
    assert_eq!(check["currency"], "INR");

    let refused = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", &session)
        .header("accept-language", "en-IN")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body = error(refused).await;
    assert_eq!(body["code"], "money_outstanding");
    let amount = kilat_server::i18n::format_money(
        kilat_domain::Money::from_minor(owed),
        kilat_domain::Currency::Inr,
    );
    assert!(
        body["msg"].as_str().unwrap().contains(&amount),
        "{body} should name {amount}"
    );
    // Nothing was erased: the session still works and the certification is whole.
    let progress = data(app.get_as("/api/v1/borrower/certification", &session).await).await;
    assert_eq!(progress["complete"], true);
    app.stop().await;
}

/// Money owed back to the borrower goes to the bank account of their certification: while a payment is unsettled
/// (a UTR waiting for finance, money held, or owed back and not yet sent) the account is not deleted, even with the
/// loan closed; once finance has sent the refund, it is.
#[tokio::test]
async fn deletion_waits_for_money_owed_back_to_be_sent() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin-owed", &[Role::Finance]).await;
    let crate::builders::Loan {
        session, order_no, ..
    } = app.borrower(IN).disbursed().await;
    let p =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "owed-back-0001").await)
            .await;
    let pid = p["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, pid, "300000000091")
            .await
            .status(),
        StatusCode::OK
    );
    let check = |session: String| {
        let app = &app;
        async move {
            data(
                app.get_as("/api/v1/borrower/account/deletion", &session)
                    .await,
            )
            .await
        }
    };
    // A UTR waiting for finance on an open loan: the loan is the blocker.
    assert_eq!(check(session.clone()).await["blocker"], "money_outstanding");
    // Finance finds ₹50 more than asked: the loan is repaid, the ₹50 owed back.
    let amount = p["amount"].as_i64().unwrap();
    let held = data(confirm(&app, &finance, pid, amount + 5_000).await).await;
    assert_eq!(held["payment"]["status"], "held", "{held}");
    let credited = data(confirm(&app, &finance, pid, amount + 5_000).await).await;
    assert_eq!(credited["orderStatus"], "repaid", "{credited}");
    assert_eq!(credited["payment"]["status"], "refund_due", "{credited}");
    let blocked = check(session.clone()).await;
    assert_eq!(blocked["allowed"], false, "{blocked}");
    assert_eq!(blocked["blocker"], "payment_unsettled");
    assert_eq!(blocked["orderNo"], order_no.as_str());
    let refused = delete_account(&app, &session).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payment_unsettled");
    // Nothing was erased: the bank account the refund goes to is still there.
    let progress = data(app.get_as("/api/v1/borrower/certification", &session).await).await;
    assert_eq!(progress["complete"], true);

    let sent = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/payments/{pid}/refund"),
        Some(json!({"bankReference": "HDFCN52026120700001"})),
    )
    .await;
    assert_eq!(sent.status(), StatusCode::OK);
    assert_eq!(check(session.clone()).await["allowed"], true);
    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

/// A virtual account issued for a loan that another payment then repaid still takes money until it expires; paid
/// after the loan closed, that money is owed back to the bank account a deletion would erase. The account stays until
/// the instructions expire.
#[tokio::test]
async fn deletion_waits_for_payment_instructions_a_provider_still_takes_money_for() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin-slip", &[Role::Finance]).await;
    let (session, order_no, _, slip) =
        crate::webhooks::indonesian_payment(&app, &finance, "081234567871", "payoff").await;
    let payoff = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "payoff",
            "virtual_account",
            "slip-payoff-2",
        )
        .await,
    )
    .await;
    let paid = crate::webhooks::xendit(
        &app,
        crate::webhooks::XENDIT_TOKEN,
        &crate::webhooks::xendit_paid(&payoff, "xnd-slip-0002", crate::webhooks::rupiah(&payoff)),
    )
    .await;
    assert_eq!(data(paid).await["outcome"], "confirmed");
    let check = data(
        app.get_as("/api/v1/borrower/account/deletion", &session)
            .await,
    )
    .await;
    assert_eq!(check["blocker"], "payment_unsettled", "{check}");
    assert_eq!(check["orderNo"], order_no.as_str());
    let refused = delete_account(&app, &session).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "payment_unsettled");
    assert!(slip["instructions"]["expiresAt"].is_i64(), "{slip}");

    // Two days on, the first virtual account has expired: nothing can arrive for it any more.
    let today = app.services.clock.today(Market::Indonesia);
    app.set_indonesia_date(today + time::Duration::days(2))
        .await;
    let session = app.sign_in("ID", "081234567871").await;
    let check = data(
        app.get_as("/api/v1/borrower/account/deletion", &session)
            .await,
    )
    .await;
    assert_eq!(check["allowed"], true, "{check}");
    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test]
async fn a_deletion_racing_a_confirm_has_exactly_one_winner() {
    let app = spawn_app().await;
    let mut deleted_wins = 0;
    let mut confirm_wins = 0;
    for n in 0..6 {
        let phone = format!("98765003{n:02}");
        let session = app.sign_in("IN", &phone).await;
        app.certify("IN", &session).await;
        let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
        let id = me["id"].as_str().unwrap().to_owned();
        let loan = json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"});
        let kfs = data(app.post_as("/api/v1/borrower/apply", &session, &loan).await).await;
        let mut confirm = loan.clone();
        confirm["kfsHash"] = kfs["contentHash"].clone();
        confirm["agreementHash"] = app.agreement_hash(&session, &loan).await;
        confirm["idempotencyKey"] = json!(format!("race-{n}-key"));
        let (confirmed, deleted) = tokio::join!(
            app.post_as("/api/v1/borrower/orders", &session, &confirm),
            delete_account(&app, &session)
        );
        let (confirmed, deleted) = (confirmed.status(), deleted.status());
        let (orders,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM orders WHERE borrower_id = $1")
                .bind(&id)
                .fetch_one(app.db.pool())
                .await
                .unwrap();
        let (deleted_at,): (Option<i64>,) =
            sqlx::query_as("SELECT deleted_at FROM borrowers WHERE id = $1")
                .bind(&id)
                .fetch_one(app.db.pool())
                .await
                .unwrap();
        if deleted == StatusCode::OK {
            // Refused: the session is gone (401), or the certification was erased before the confirm read it (409).
            assert!(
                [StatusCode::UNAUTHORIZED, StatusCode::CONFLICT].contains(&confirmed),
                "round {n}: {confirmed}"
            );
            assert_eq!(orders, 0, "round {n}: an order for a deleted account");
            assert!(deleted_at.is_some());
            deleted_wins += 1;
        } else {
            assert_eq!(confirmed, StatusCode::CREATED, "round {n}");
            assert_eq!(deleted, StatusCode::CONFLICT, "round {n}");
            assert_eq!(orders, 1);
            assert!(deleted_at.is_none());
            confirm_wins += 1;
        }
    }
    assert_eq!(deleted_wins + confirm_wins, 6);
    app.stop().await;
}

/// Rows the borrower still has in the tables that hold encrypted or free-text personal data (a scan for clear text
/// cannot see inside an encrypted value): certification, its log, complaint messages and images, and telemetry.
async fn personal_rows_of(app: &TestApp, borrower_id: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (table, sql) in [
        (
            "certification_steps",
            "SELECT COUNT(*) FROM certification_steps WHERE borrower_id = $1",
        ),
        (
            "certification_log",
            "SELECT COUNT(*) FROM certification_log WHERE borrower_id = $1",
        ),
        (
            "complaint_images",
            "SELECT COUNT(*) FROM complaint_images WHERE borrower_id = $1",
        ),
        (
            "complaint_messages",
            "SELECT COUNT(*) FROM complaint_messages
             WHERE complaint_id IN (SELECT id FROM complaints WHERE borrower_id = $1)",
        ),
        (
            "client_events",
            "SELECT COUNT(*) FROM client_events WHERE borrower_id = $1",
        ),
    ] {
        let (n,): (i64,) = sqlx::query_as(sql)
            .bind(borrower_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        if n > 0 {
            found.push(format!("{table}: {n} rows"));
        }
    }
    found
}

/// Every file under `dir`, however deep.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The certification's personal values of `market` as the tests write them, in clear and masked.
fn certification_needles(market: &str) -> Vec<String> {
    let mut needles = Vec::new();
    for (_, body) in valid_steps(market) {
        for key in [
            "fullName",
            "idNumber",
            "address",
            "contact1Name",
            "contact1Phone",
            "contact2Name",
            "contact2Phone",
            "employerName",
            "accountNumberConfirm",
        ] {
            if let Some(v) = body[key].as_str() {
                needles.push(v.to_owned());
            }
        }
        if let Some(account) = body["accountNumberConfirm"].as_str() {
            needles.push(kilat_server::certification::mask_account(account));
        }
    }
    needles
}

#[tokio::test]
async fn a_certification_save_racing_a_deletion_leaves_nothing_personal() {
    let app = spawn_app().await;
    let steps = valid_steps("IN");
    let mut needles = certification_needles("IN");
    let mut saved_first = 0;
    for n in 0..12u64 {
        let phone = format!("98765007{n:02}");
        needles.push(phone.clone());
        let session = app.sign_in("IN", &phone).await;
        let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
        let id = me["id"].as_str().unwrap().to_owned();
        for (step, body) in &steps[..4] {
            let path = format!("/api/v1/borrower/certification/{step}");
            let saved = app.post_as(&path, &session, body).await;
            assert_eq!(saved.status(), StatusCode::OK);
        }
        let blobs: Vec<(String,)> =
            sqlx::query_as("SELECT data_enc FROM certification_steps WHERE borrower_id = $1")
                .bind(&id)
                .fetch_all(app.db.pool())
                .await
                .unwrap();
        needles.extend(blobs.into_iter().map(|(b,)| b));
        // The bank step (account number, holder's name) and the deletion at once, one of them a little later each
        // round (the save in even rounds, the deletion in odd ones), so that either can land inside the other.
        let (step, body) = &steps[4];
        let path = format!("/api/v1/borrower/certification/{step}");
        let (save_after, delete_after) = if n % 2 == 0 {
            (n * 150, 0)
        } else {
            (0, n * 150)
        };
        let (saved, deleted) = tokio::join!(
            async {
                tokio::time::sleep(std::time::Duration::from_micros(save_after)).await;
                app.post_as(&path, &session, body).await
            },
            async {
                tokio::time::sleep(std::time::Duration::from_micros(delete_after)).await;
                delete_account(&app, &session).await
            }
        );
        assert_eq!(deleted.status(), StatusCode::OK, "round {n}");
        match saved.status() {
            StatusCode::OK => saved_first += 1,
            StatusCode::UNAUTHORIZED => {
                assert_eq!(error(saved).await["code"], "unauthorized", "round {n}");
            }
            // The deletion erased the earlier steps before the save read its progress.
            StatusCode::CONFLICT => {
                assert_eq!(
                    error(saved).await["code"],
                    "certification_out_of_order",
                    "round {n}"
                );
            }
            other => panic!("round {n}: the save answered {other}"),
        }
        let rows = personal_rows_of(&app, &id).await;
        assert!(rows.is_empty(), "round {n}: {rows:?}");
    }
    let left = personal_data_left(&app, &needles).await;
    assert!(left.is_empty(), "personal data left: {left:?}");
    eprintln!("rounds where the save came first: {saved_first} of 12");
    app.stop().await;
}

fn png() -> Vec<u8> {
    let img = image::RgbImage::from_fn(32, 24, |x, y| {
        image::Rgb([(x * 8) as u8, (y * 9) as u8, 77])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

#[tokio::test]
async fn a_complaint_with_an_image_racing_a_deletion_leaves_no_text_no_row_and_no_file() {
    let app = spawn_app().await;
    let mut needles = Vec::new();
    for n in 0..8u64 {
        let phone = format!("0812345007{n:02}");
        needles.push(phone.clone());
        let session = app.sign_in("ID", &phone).await;
        let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
        let id = me["id"].as_str().unwrap().to_owned();
        let description = format!("Rekening saya 99887766{n:02} belum menerima dana pinjaman.");
        needles.push(description.clone());
        // The borrower uploads a photo and files the complaint while the deletion runs, a little later each round.
        let filing = async {
            let uploaded = app
                .client
                .post(app.url("/api/v1/borrower/complaints/images"))
                .header("x-session-id", &session)
                .header("content-type", "image/png")
                .body(png())
                .send()
                .await
                .unwrap();
            let upload_status = uploaded.status();
            if upload_status != StatusCode::CREATED {
                return (upload_status, None);
            }
            let image_id = data(uploaded).await["imageId"].as_str().unwrap().to_owned();
            let body =
                json!({"category": "other", "description": description, "imageIds": [image_id]});
            let filed = app
                .post_as("/api/v1/borrower/complaints", &session, &body)
                .await;
            (upload_status, Some(filed.status()))
        };
        let (filed, deleted) = tokio::join!(filing, async {
            tokio::time::sleep(std::time::Duration::from_millis(n * 3)).await;
            delete_account(&app, &session).await
        });
        assert_eq!(deleted.status(), StatusCode::OK, "round {n}");
        let allowed = [StatusCode::CREATED, StatusCode::UNAUTHORIZED];
        assert!(allowed.contains(&filed.0), "round {n}: upload {filed:?}");
        if let Some(status) = filed.1 {
            assert!(allowed.contains(&status), "round {n}: complaint {filed:?}");
        }
        let rows = personal_rows_of(&app, &id).await;
        assert!(rows.is_empty(), "round {n}: {rows:?}");
        // Every borrower of this test is deleted, so the files folder must hold nothing.
        let files = files_under(&app.files_dir);
        assert!(files.is_empty(), "round {n}: files left {files:?}");
    }
    let left = personal_data_left(&app, &needles).await;
    assert!(left.is_empty(), "personal data left: {left:?}");
    app.stop().await;
}

#[tokio::test]
async fn the_menu_lists_the_account_entries_with_their_routes_in_both_languages() {
    let app = spawn_app().await;
    assert_eq!(
        app.get("/api/v1/borrower/menu").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let session = app.sign_in("IN", "9876500401").await;
    let en = data(app.get_en("/api/v1/borrower/menu", Some(&session)).await).await;
    let keys: Vec<&str> = en
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "loans",
            "bank_card",
            "customer_service",
            "complaints",
            "about",
            "privacy",
            "permissions",
            "delete_account",
            "logout"
        ]
    );
    assert_eq!(en[0]["title"], "My loans");
    assert_eq!(en[0]["route"], "/orders");
    assert_eq!(en[2]["route"], "/customer-service");
    assert_eq!(en[3]["route"], "/complaints");
    assert_eq!(
        (en[6]["route"].clone(), en[6]["title"].clone()),
        (json!("/permissions"), json!("Your permissions"))
    );
    assert_eq!(en[7]["danger"], true);
    assert_eq!(en[8]["action"], "logout");
    let id = data(app.get_as("/api/v1/borrower/menu", &session).await).await;
    assert_eq!(id[6]["title"], "Izin dan privasi");
    assert_eq!(id[7]["title"], "Hapus akun");
    app.stop().await;
}

#[tokio::test]
async fn the_export_holds_the_borrowers_data_decrypted_only_for_them_and_is_rate_limited() {
    let app = spawn_app().await;
    let (session, order_no) = borrower_with_closed_order(&app, "IN", "9876500501").await;
    let (other, _) = borrower_with_closed_order(&app, "IN", "9876500502").await;
    let response = app.get_as("/api/v1/borrower/export", &session).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    let export = data(response).await;
    assert_eq!(export["format"], "kilat-export/1");
    let sections = &export["sections"];
    assert_eq!(sections["profile"]["phone"], "+919876500501");
    let certification = sections["certification"].as_array().unwrap();
    assert_eq!(certification.len(), 5);
    let base = certification.iter().find(|s| s["step"] == "base").unwrap();
    // Decrypted and unmasked for the owner.
    assert_eq!(base["data"]["idNumber"], "ABCPE1234F");
    let bank = certification.iter().find(|s| s["step"] == "bank").unwrap();
    assert_eq!(bank["data"]["accountNumber"], "501001234567");
    let orders = sections["orders"].as_array().unwrap();
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0]["orderNo"], order_no.as_str());
    assert_eq!(orders[0]["status"], "cancelled");
    assert!(orders[0]["acceptedKfs"]["apr"].is_number());
    assert!(orders[0]["agreement"]["borrower"]["fullName"].is_string());
    assert!(orders[0]["timeline"].as_array().unwrap().len() >= 2);
    assert!(!sections["sessions"].as_array().unwrap().is_empty());
    // Nothing of the other borrower.
    let text = export.to_string();
    assert!(!text.contains("9876500502"));
    let other_export = data(app.get_as("/api/v1/borrower/export", &other).await).await;
    assert!(!other_export.to_string().contains(&order_no));

    // Three an hour per borrower.
    for _ in 0..2 {
        assert_eq!(
            app.get_as("/api/v1/borrower/export", &session)
                .await
                .status(),
            StatusCode::OK
        );
    }
    let limited = app.get_as("/api/v1/borrower/export", &session).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(limited.headers().contains_key("retry-after"));
    assert_eq!(error(limited).await["code"], "rate_limited");
    assert_eq!(
        app.get("/api/v1/borrower/export").await.status(),
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}

#[tokio::test]
async fn ten_simultaneous_exports_through_two_servers_on_one_database_give_three_and_the_hour_after_more()
 {
    let app = spawn_app().await;
    let url = app.database_url.clone();
    let second = crate::helpers::spawn_app_with(move |s| s.database_url = url.into()).await;
    let session = app.sign_in("ID", "081234500601").await;
    let mut burst = tokio::task::JoinSet::new();
    for i in 0..10 {
        let server = if i % 2 == 0 { &app } else { &second };
        let (client, url, session) = (
            server.client.clone(),
            server.url("/api/v1/borrower/export"),
            session.clone(),
        );
        burst.spawn(async move {
            let response = client
                .get(url)
                .header("x-session-id", session)
                .send()
                .await
                .unwrap();
            let status = response.status();
            let retry_after = response
                .headers()
                .get("retry-after")
                .map(|v| v.to_str().unwrap().parse::<u64>().unwrap());
            let code = if status == StatusCode::OK {
                None
            } else {
                Some(error(response).await["code"].as_str().unwrap().to_owned())
            };
            (status, retry_after, code)
        });
    }
    let answers = burst.join_all().await;
    let ok = answers.iter().filter(|a| a.0 == StatusCode::OK).count();
    let limited: Vec<_> = answers
        .iter()
        .filter(|a| a.0 == StatusCode::TOO_MANY_REQUESTS)
        .collect();
    assert_eq!((ok, limited.len()), (3, 7), "{answers:?}");
    for (_, retry_after, code) in limited {
        assert_eq!(code.as_deref(), Some("rate_limited"));
        // The hour runs from the first export: nearly all of it is left.
        let secs = retry_after.expect("Retry-After");
        assert!((3500..=3600).contains(&secs), "{secs}");
    }
    // The next day (both servers' business clocks moved), the borrower may export again, three times.
    let tomorrow = app.services.clock.today(kilat_domain::Market::India) + time::Duration::days(1);
    app.set_date(tomorrow).await;
    second.set_date(tomorrow).await;
    let session = app.sign_in("ID", "081234500601").await;
    for server in [&second, &app, &second] {
        assert_eq!(
            server
                .get_as("/api/v1/borrower/export", &session)
                .await
                .status(),
            StatusCode::OK
        );
    }
    assert_eq!(
        app.get_as("/api/v1/borrower/export", &session)
            .await
            .status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    second.stop().await;
    app.stop().await;
}

async fn pdf_text(app: &TestApp, path: &str, session: &str, lang: &str) -> String {
    let response = app
        .client
        .get(app.url(path))
        .header("x-session-id", session)
        .header("accept-language", lang)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    assert_eq!(response.headers()["content-type"], "application/pdf");
    let bytes = response.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert!(bytes.len() < 400_000, "{path}: {} bytes", bytes.len());
    pdf_extract::extract_text_from_mem(&bytes).expect("the PDF's text extracts")
}

async fn documents_name_the_apr_and_the_masked_account(market: &str, phone: &str, lang: &str) {
    let app = spawn_app().await;
    let (session, order_no) = borrower_with_closed_order(&app, market, phone).await;
    let order = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    let apr = order["kfs"]["aprDisplay"].as_str().unwrap().to_owned();
    let account = valid_steps(market)
        .into_iter()
        .find(|(step, _)| *step == "bank")
        .map(|(_, body)| body["accountNumberConfirm"].as_str().unwrap().to_owned())
        .unwrap();
    let masked = kilat_server::certification::mask_account(&account);
    let symbol = if market == "IN" { "₹" } else { "Rp" };
    // Both documents write the APR with the language's decimal mark.
    for (doc, apr_text) in [
        (
            "kfs",
            if lang.starts_with("en") {
                apr.clone()
            } else {
                apr.replace('.', ",")
            },
        ),
        (
            "agreement",
            if lang.starts_with("en") {
                apr.clone()
            } else {
                apr.replace('.', ",")
            },
        ),
    ] {
        let text = pdf_text(
            &app,
            &format!("/api/v1/borrower/orders/{order_no}/documents/{doc}.pdf"),
            &session,
            lang,
        )
        .await;
        let flat = squash(&text);
        assert!(
            flat.contains(&squash(&apr_text)),
            "{doc}: no APR {apr} in {text}"
        );
        assert!(
            flat.contains(&squash(&masked)),
            "{doc}: no {masked} in {text}"
        );
        assert!(flat.contains(symbol), "{doc}: no {symbol} in {text}");
        assert!(flat.contains(&order_no), "{doc}: no order number");
        if market == "ID" {
            assert!(
                flat.contains("Angsuran") || flat.contains("Pinjaman") || flat.contains("pinjaman"),
                "{text}"
            );
        }
        // The extension the KFS offers (PRODUCT.md §7): Kilat 30's 7 days for 1% of Rp1.000.000, at most twice;
        // Flexi EMI offers none, and says so.
        if doc == "kfs" {
            let extension = if market == "ID" {
                "Perpanjangan jatuh tempo Tanggal jatuh tempo dapat digeser 7 hari, paling banyak 2 kali selama \
                 pinjaman, dengan biaya Rp 10.000 (1% dari jumlah pinjaman) setiap kali"
            } else {
                "Moving a due date (extension) This loan offers no extension: its due dates cannot be moved."
            };
            assert!(
                flat.contains(&squash(extension)),
                "{doc}: no extension in {text}"
            );
        }
    }
    // Only the owner.
    let stranger = app
        .sign_in(
            market,
            if market == "IN" {
                "9123400088"
            } else {
                "081234500088"
            },
        )
        .await;
    for doc in ["kfs", "agreement"] {
        let path = format!("/api/v1/borrower/orders/{order_no}/documents/{doc}.pdf");
        assert_eq!(
            app.get_as(&path, &stranger).await.status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(app.get(&path).await.status(), StatusCode::UNAUTHORIZED);
    }
    app.stop().await;
}

#[tokio::test]
async fn the_kfs_and_agreement_pdfs_name_the_apr_and_the_masked_account_in_india() {
    documents_name_the_apr_and_the_masked_account("IN", "9876500601", "en-IN").await;
}

#[tokio::test]
async fn the_kfs_and_agreement_pdfs_name_the_apr_and_the_masked_account_in_indonesia() {
    documents_name_the_apr_and_the_masked_account("ID", "081298700601", "id-ID").await;
}

#[tokio::test]
async fn a_deleted_accounts_orders_keep_the_loan_terms_without_the_borrower_in_the_agreement_and_the_console()
 {
    let app = spawn_app().await;
    let (session, order_no) = borrower_with_closed_order(&app, "IN", "9876500701").await;
    let (id,): (String,) = sqlx::query_as("SELECT id FROM orders WHERE order_no = $1")
        .bind(&order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::OK
    );
    let (agreement,): (String,) = sqlx::query_as("SELECT agreement_json FROM orders WHERE id = $1")
        .bind(&id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    // Sealed to its order still, like every agreement.
    let agreement = app
        .secrets
        .decrypt(&agreement, Binding::OrderAgreement { order_id: &id })
        .unwrap();
    let agreement: Value = serde_json::from_str(&agreement).unwrap();
    assert_eq!(agreement["borrower"]["fullName"], "[erased]");
    assert!(
        agreement.to_string().contains("in-flexi-6m") || agreement.to_string().contains("Flexi")
    );
    // The console still shows the order, without the borrower's particulars.
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let view = op_call(
        &app,
        &reviewer,
        Method::GET,
        &format!("/api/v1/console/orders/{order_no}"),
        None,
    )
    .await;
    assert_eq!(view.status(), StatusCode::OK);
    let view = data(view).await;
    assert_eq!(view["phoneMasked"], "[erased]");
    assert_eq!(view["certification"].as_array().map(Vec::len), Some(0));
    assert_eq!(view["order"]["status"], "cancelled");
    app.stop().await;
}

/// How often `needle` occurs in the SQLite database's main file and its write-ahead log, read as bytes.
fn occurrences_in_sqlite_files(app: &TestApp, needle: &str) -> usize {
    let path = app
        .database_url
        .strip_prefix("sqlite://")
        .expect("a SQLite database URL");
    [path.to_owned(), format!("{path}-wal")]
        .iter()
        .filter_map(|file| std::fs::read(file).ok())
        .map(|bytes| {
            bytes
                .windows(needle.len())
                .filter(|w| *w == needle.as_bytes())
                .count()
        })
        .sum()
}

#[tokio::test]
async fn after_an_accounts_deletion_neither_the_sqlite_file_nor_its_log_holds_the_name_or_address()
{
    let app = spawn_app().await;
    if !app.db.is_sqlite() {
        // PostgreSQL's files are the database server's; its dumps are scanned by the test above.
        app.stop().await;
        return;
    }
    let (name, address) = ("Asha Verma", "12 Hill Road, Bandra West");
    let (session, _order_no) = borrower_with_closed_order(&app, "IN", "9876500801").await;
    // Free text the borrower typed, stored in clear until the deletion erases it.
    let rated = app
        .post_as(
            "/api/v1/borrower/app-rating",
            &session,
            &json!({"score": 5, "comment": format!("{name} of {address} likes it")}),
        )
        .await;
    assert!(rated.status().is_success(), "{}", rated.status());
    for clear in [name, address] {
        assert!(
            occurrences_in_sqlite_files(&app, clear) > 0,
            "the scan sees what is in clear: {clear}"
        );
    }

    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::OK
    );

    for clear in [name, address] {
        assert_eq!(
            occurrences_in_sqlite_files(&app, clear),
            0,
            "{clear} left in the database file or its log"
        );
    }
    app.stop().await;
}

#[tokio::test]
async fn deleting_an_account_removes_its_complaints_words_and_images_and_its_telemetry() {
    let app = spawn_app().await;
    let (session, order_no) = borrower_with_closed_order(&app, "IN", "9876522001").await;
    let me = data(app.get_as("/api/v1/borrower/me", &session).await).await;
    let id = me["id"].as_str().unwrap().to_owned();

    // A complaint with a photo, and the app's telemetry.
    let img = image::RgbImage::from_fn(32, 24, |x, y| {
        image::Rgb([(x * 8) as u8, (y * 9) as u8, 60])
    });
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let uploaded = app
        .client
        .post(app.url("/api/v1/borrower/complaints/images"))
        .header("x-session-id", &session)
        .header("content-type", "image/png")
        .body(png.into_inner())
        .send()
        .await
        .unwrap();
    assert_eq!(uploaded.status(), StatusCode::CREATED);
    let image_id = data(uploaded).await["imageId"].as_str().unwrap().to_owned();
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "orderNo": order_no, "description": "My neighbour Ravi saw my loan.", "imageIds": [image_id]}),
        )
        .await;
    assert_eq!(filed.status(), StatusCode::CREATED);
    let ticket = data(filed).await["ticketNo"].as_str().unwrap().to_owned();
    for (path, body) in [
        (
            "/api/v1/borrower/telemetry/events",
            json!({"name": "apply.confirmed"}),
        ),
        (
            "/api/v1/borrower/device",
            json!({"consent": true, "model": "Pixel 7", "os": "Android 14", "appVersion": "1.4.0"}),
        ),
        (
            "/api/v1/borrower/device-token",
            json!({"token": "fcm:abc123", "platform": "android"}),
        ),
        (
            "/api/v1/borrower/location",
            json!({"consent": true, "latitude": 28.61, "longitude": 77.2}),
        ),
        (
            "/api/v1/borrower/app-rating",
            json!({"score": 4, "comment": "Ravi recommended it"}),
        ),
    ] {
        let response = app.post_as(path, &session, &body).await;
        assert!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
    }
    assert_eq!(app.db.telemetry_counts(&id).await.unwrap(), [1, 1, 1, 1, 1]);
    let files_before = count_files(&app.files_dir);
    assert_eq!(files_before, 1);

    assert_eq!(
        delete_account(&app, &session).await.status(),
        StatusCode::OK
    );

    assert_eq!(app.db.telemetry_counts(&id).await.unwrap(), [0, 0, 0, 0, 0]);
    let (messages, images, tickets): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM complaint_messages m JOIN complaints c ON c.id = m.complaint_id
                 WHERE c.borrower_id = $1),
                (SELECT COUNT(*) FROM complaint_images WHERE borrower_id = $1),
                (SELECT COUNT(*) FROM complaints WHERE borrower_id = $1 AND ticket_no = $2)",
    )
    .bind(&id)
    .bind(&ticket)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!((messages, images), (0, 0));
    // The grievance record itself stays, without the borrower's words.
    assert_eq!(tickets, 1);
    assert_eq!(
        count_files(&app.files_dir),
        0,
        "the photo's file is removed"
    );
    app.stop().await;
}

fn count_files(dir: &std::path::Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| {
            let path = e.path();
            if path.is_dir() { count_files(&path) } else { 1 }
        })
        .sum()
}
