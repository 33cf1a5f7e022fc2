//! Where the borrower's money stands (issue 19, items 5 to 9): an overdue loan's arrears in their parts with
//! tomorrow's late charge as the overdue job posts it, the cooling-off exit in its parts with its last day, a UTR
//! waiting for finance with the day it is checked by and its correction (atomic against finance's decision, bounded,
//! unique), the virtual account's collecting company, and what an ended loan cost in all.

use std::sync::Arc;

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use kilat_server::jobs::overdue;
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::{Date, Duration};

use crate::builders::{ID, IN, Loan};
use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{check_ledger, confirm, create_payment, operator, submit_utr};

async fn correct_utr(
    app: &TestApp,
    session: &str,
    payment_id: &str,
    utr: &str,
) -> reqwest::Response {
    app.client
        .put(app.url(&format!("/api/v1/borrower/payments/{payment_id}/utr")))
        .header("x-session-id", session)
        .json(&json!({"utr": utr}))
        .send()
        .await
        .unwrap()
}

/// A UPI payment of the `due` choice with `utr` submitted: (payment id, amount).
async fn verifying(
    app: &TestApp,
    session: &str,
    order_no: &str,
    key: &str,
    utr: &str,
) -> (String, i64) {
    let payment = data(create_payment(app, session, order_no, "due", "upi", key).await).await;
    let id = payment["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(
        submit_utr(app, session, &id, utr).await.status(),
        StatusCode::OK
    );
    (id, payment["amount"].as_i64().unwrap())
}

async fn utr_of(app: &TestApp, payment_id: &str) -> Vec<String> {
    sqlx::query_scalar("SELECT utr FROM payment_utrs WHERE payment_id = $1 ORDER BY utr")
        .bind(payment_id)
        .fetch_all(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn an_overdue_loan_states_its_parts_its_days_late_and_tomorrows_charge_as_the_job_posts_it() {
    let app = spawn_app().await;
    let Loan {
        phone,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let payout = app.services.clock.today(Market::India);
    // Due on day 7; the job runs every day from the due date to day 10: ₹300 on day 8, then ₹20 on days 9 and 10.
    for day in 7..=10 {
        app.set_date(payout + Duration::days(day)).await;
        overdue::run(
            &app.services,
            Market::India,
            app.services.clock.today(Market::India),
            "test",
        )
        .await
        .unwrap();
    }
    let session = app.sign_in("IN", &phone).await;
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let r = app.repayment_of(&session, &order_no).await;
    let a = &r["arrears"];
    assert_eq!(a["installment"], 1);
    assert_eq!(a["installmentTo"], 1);
    assert_eq!(a["daysLate"], 3);
    assert_eq!(a["dueDate"], plan["installments"][0]["dueDate"]);
    let out = &plan["installments"][0]["outstanding"];
    assert_eq!(a["lateCharges"], 34_000);
    assert_eq!(a["lateCharges"], out["lateCharges"]);
    assert_eq!(
        a["owed"].as_i64().unwrap(),
        out["total"].as_i64().unwrap() - 34_000
    );
    assert_eq!(a["total"], out["total"]);
    assert_eq!(
        a["total"], r["choices"][0]["amount"],
        "the due choice pays exactly the arrears"
    );
    // Tomorrow: ₹20 more, as the job posts it; at most ₹300 + 30 × ₹20 = ₹900 in all, ₹340 posted.
    assert_eq!(a["lateChargeTomorrow"], 2_000);
    assert_eq!(a["lateChargeMoreAtMost"], 90_000 - 34_000);
    app.set_date(payout + Duration::days(11)).await;
    overdue::run(
        &app.services,
        Market::India,
        app.services.clock.today(Market::India),
        "test",
    )
    .await
    .unwrap();
    let session = app.sign_in("IN", &phone).await;
    let after = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(
        after["installments"][0]["outstanding"]["lateCharges"]
            .as_i64()
            .unwrap(),
        34_000 + 2_000
    );
    // A UTR waiting for finance freezes the installment: nothing tomorrow.
    let (_, _) = verifying(&app, &session, &order_no, "late-key-001", "700000000001").await;
    let r = app.repayment_of(&session, &order_no).await;
    assert_eq!(r["arrears"]["lateChargeTomorrow"], 0);
    assert_eq!(r["arrears"]["daysLate"], 4);
    app.stop().await;
}

#[tokio::test]
async fn the_cooling_off_exit_is_stated_in_its_parts_with_its_last_day_and_an_ended_loan_says_what_it_cost()
 {
    let app = spawn_app().await;
    let Loan {
        phone,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let payout = app.services.clock.today(Market::India);
    app.set_date(payout + Duration::days(2)).await;
    let session = app.sign_in("IN", &phone).await;
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let r = app.repayment_of(&session, &order_no).await;
    let c = &r["coolingOff"];
    let exit = r["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == "cooling_off")
        .unwrap();
    assert_eq!(c["amount"], exit["amount"]);
    assert_eq!(c["daysUsed"], 2);
    assert_eq!(c["principal"], 1_000_000);
    // ₹10,000 at 0.1% a day for 2 days; the ₹236 of fees kept at payout come back.
    assert_eq!(c["interest"], 2_000);
    assert_eq!(
        c["feesRefunded"].as_i64().unwrap(),
        plan["principal"].as_i64().unwrap() - plan["paidOut"].as_i64().unwrap()
    );
    assert_eq!(
        c["amount"].as_i64().unwrap(),
        1_000_000 + 2_000 - c["feesRefunded"].as_i64().unwrap()
    );
    assert_eq!(c["openUntil"], (payout + Duration::days(3)).to_string());
    assert_eq!(r["arrears"], Value::Null);

    // Left: what the loan cost in all is the exit's amount (the operators' sessions ended with the move).
    let finance = operator(&app, "fin2", &[Role::Finance]).await;
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "cooling_off",
            "upi",
            "exit-key-901",
        )
        .await,
    )
    .await;
    let pid = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, pid, "700000000002")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        confirm(&app, &finance, pid, payment["amount"].as_i64().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["paidInAll"], c["amount"]);
    assert_eq!(plan["feesKept"], 0);
    assert_eq!(plan["feesRefunded"], c["feesRefunded"]);

    // The day after the window: no exit is offered, nor stated.
    let Loan {
        phone, order_no, ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let today = app.services.clock.today(Market::India);
    app.set_date(today + Duration::days(4)).await;
    let session = app.sign_in("IN", &phone).await;
    let r = app.repayment_of(&session, &order_no).await;
    assert_eq!(r["coolingOff"], Value::Null);
    app.stop().await;
}

#[tokio::test]
async fn a_mistyped_utr_is_corrected_while_finance_has_not_acted_and_refused_after() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let (pid, amount) = verifying(&app, &session, &order_no, "utr-key-0001", "700000000011").await;
    let r = app.repayment_of(&session, &order_no).await;
    let v = &r["verifyingPayment"];
    assert_eq!(v["paymentId"], pid.as_str());
    assert_eq!(v["utr"], "700000000011");
    assert_eq!(v["amount"], amount);
    assert_eq!(v["method"], "upi");
    assert_eq!(v["correctionsLeft"], 3);
    let today = app.services.clock.today(Market::India);
    let check_by: Date = Date::parse(
        v["checkBy"].as_str().unwrap(),
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap();
    // One working day: the next weekday.
    assert!(
        check_by > today && check_by <= today + Duration::days(3),
        "{check_by}"
    );
    assert!(!matches!(
        check_by.weekday(),
        time::Weekday::Saturday | time::Weekday::Sunday
    ));

    // Wrong format, another borrower, a UTR used on another payment: refused, nothing changes.
    let bad = correct_utr(&app, &session, &pid, "12345").await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let other = app.borrower(IN).await.session;
    assert_eq!(
        correct_utr(&app, &other, &pid, "700000000012")
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let Loan {
        session: other_session,
        order_no: other_order,
        ..
    } = app.borrower(IN).term("7d").disbursed().await;
    verifying(
        &app,
        &other_session,
        &other_order,
        "utr-key-0002",
        "700000000099",
    )
    .await;
    let used = correct_utr(&app, &session, &pid, "700000000099").await;
    assert_eq!(used.status(), StatusCode::CONFLICT);
    assert_eq!(error(used).await["code"], "utr_already_used");
    assert_eq!(utr_of(&app, &pid).await, ["700000000011"]);

    // Corrected: the old UTR is freed (another payment may use it) and kept in the corrections.
    let ok = correct_utr(&app, &session, &pid, "700000000012").await;
    assert_eq!(ok.status(), StatusCode::OK);
    assert_eq!(data(ok).await["utr"], "700000000012");
    assert_eq!(utr_of(&app, &pid).await, ["700000000012"]);
    let (old,): (String,) =
        sqlx::query_as("SELECT old_utr FROM payment_utr_corrections WHERE payment_id = $1")
            .bind(&pid)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(old, "700000000011");
    // The same UTR again answers the payment as it stands.
    assert_eq!(
        correct_utr(&app, &session, &pid, "700000000012")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        app.repayment_of(&session, &order_no).await["verifyingPayment"]["correctionsLeft"],
        2
    );

    // Finance confirms: the correction is refused with its reason, the UTR stays the one confirmed.
    assert_eq!(
        confirm(&app, &finance, &pid, amount).await.status(),
        StatusCode::OK
    );
    let late = correct_utr(&app, &session, &pid, "700000000013").await;
    assert_eq!(late.status(), StatusCode::CONFLICT);
    let body = error(late).await;
    assert_eq!(body["code"], "utr_locked");
    // The reason in words (Indonesian by default, without a language asked).
    assert!(body["msg"].as_str().unwrap().contains("UTR"), "{body:?}");
    assert_eq!(utr_of(&app, &pid).await, ["700000000012"]);
    assert_eq!(
        app.repayment_of(&session, &order_no).await["verifyingPayment"],
        Value::Null
    );
    app.stop().await;
}

#[tokio::test]
async fn simultaneous_corrections_stop_at_the_limit_and_a_correction_racing_a_confirmation_has_one_outcome()
 {
    let app = Arc::new(spawn_app().await);
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let (pid, _) = verifying(&app, &session, &order_no, "utr-key-0003", "710000000000").await;
    let handles: Vec<_> = (1..=8)
        .map(|k| {
            let (app, session, pid) = (app.clone(), session.clone(), pid.clone());
            tokio::spawn(async move {
                let r = correct_utr(&app, &session, &pid, &format!("71000000000{k}")).await;
                let status = r.status();
                let code = if status == StatusCode::OK {
                    String::new()
                } else {
                    error(r).await["code"].as_str().unwrap().to_owned()
                };
                (status, code)
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for h in handles {
        outcomes.push(h.await.unwrap());
    }
    assert_eq!(
        outcomes
            .iter()
            .filter(|(s, _)| *s == StatusCode::OK)
            .count(),
        3,
        "{outcomes:?}"
    );
    assert!(
        outcomes
            .iter()
            .all(|(s, c)| *s == StatusCode::OK || c == "utr_corrections_exhausted"),
        "{outcomes:?}"
    );
    assert_eq!(utr_of(&app, &pid).await.len(), 1);
    let corrections: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM payment_utr_corrections WHERE payment_id = $1")
            .bind(&pid)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(corrections, 3);

    // A correction and a confirmation at once, on four loans: the confirmation always happens; the correction either
    // went first (the confirmed payment has the new UTR) or is refused (the old one stays).
    for k in 0..4 {
        let Loan {
            session, order_no, ..
        } = app.borrower(IN).term("7d").disbursed().await;
        let old = format!("72000000000{k}");
        let new = format!("73000000000{k}");
        let (pid, amount) =
            verifying(&app, &session, &order_no, &format!("race-key-000{k}"), &old).await;
        let (a1, s1, p1, n1) = (app.clone(), session.clone(), pid.clone(), new.clone());
        let fix = tokio::spawn(async move {
            let r = correct_utr(&a1, &s1, &p1, &n1).await;
            let status = r.status();
            let code = if status == StatusCode::OK {
                String::new()
            } else {
                error(r).await["code"].as_str().unwrap().to_owned()
            };
            (status, code)
        });
        let (a2, f2, p2) = (app.clone(), finance.clone(), pid.clone());
        let decide = tokio::spawn(async move { confirm(&a2, &f2, &p2, amount).await.status() });
        let (fixed, code) = fix.await.unwrap();
        assert_eq!(decide.await.unwrap(), StatusCode::OK);
        let (status,): (String,) = sqlx::query_as("SELECT status FROM payments WHERE id = $1")
            .bind(&pid)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
        assert_eq!(status, "confirmed");
        if fixed == StatusCode::OK {
            assert_eq!(utr_of(&app, &pid).await, std::slice::from_ref(&new));
        } else {
            assert_eq!((fixed, code.as_str()), (StatusCode::CONFLICT, "utr_locked"));
            assert_eq!(utr_of(&app, &pid).await, std::slice::from_ref(&old));
        }
    }
    Arc::try_unwrap(app)
        .ok()
        .expect("no clone left")
        .stop()
        .await;
}

#[tokio::test]
async fn a_virtual_account_names_the_collecting_company_and_the_lender_it_collects_for() {
    let app = spawn_app().await;
    let Loan {
        session, order_no, ..
    } = app.borrower(ID).disbursed().await;
    let payment = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "va-key-0901",
        )
        .await,
    )
    .await;
    let how = &payment["instructions"];
    assert_eq!(how["payeeName"], "PT Kilat Finansial Indonesia");
    assert_eq!(how["collectsFor"], "PT Kilat Dana Indonesia");
    assert_eq!(how["virtualAccount"].as_str().unwrap().len(), 16);
    assert!(how["expiresAt"].as_i64().unwrap() > app.services.clock.now_ms());
    // Dragonpay lists only outlets Indonesia has.
    let types = data(
        app.get_as(
            &format!("/api/v1/borrower/payment-types?orderNo={order_no}"),
            &session,
        )
        .await,
    )
    .await;
    let channels: Vec<&str> = types[1]["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert_eq!(channels, ["Alfamart", "Indomaret", "Kantor Pos"]);

    // India: the payee is the lender; nothing to explain.
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).term("7d").disbursed().await;
    let types = data(
        app.get_as(
            &format!("/api/v1/borrower/payment-types?orderNo={order_no}"),
            &session,
        )
        .await,
    )
    .await;
    assert_eq!(types[0]["collectsFor"], Value::Null);
    app.stop().await;
}
