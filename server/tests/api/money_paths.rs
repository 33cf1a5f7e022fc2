//! Money off the happy path (issue 16): early payment never costs interest for days not used; a waiting UTR freezes
//! every installment it pays; Indonesian amounts stay whole rupiah; a callback credits only a payment of its own
//! provider; money for a closed loan, or beyond what is owed, becomes a refund due that finance records; money for a
//! payment finance had rejected comes back to finance; a held amount is credited or refunded in one step; two
//! callbacks for one payment never fail each other. After each step the stored ledger replays to the API's balances.
//! Runs on SQLite, and on PostgreSQL with `TEST_DATABASE_URL`.

use std::sync::Arc;

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use kilat_server::providers::dragonpay::digest as dragonpay_digest;
use kilat_server::providers::razorpay::signature as razorpay_signature;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::{Date, Duration};

use crate::builders::{ID, IN, Loan};
use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{
    Op, check_ledger, confirm, count, create_payment, op_call, operator, status_of, submit_utr,
};
use crate::webhooks::{self, LEDGER, XENDIT_TOKEN, payment_status};

const RAZORPAY_SECRET: &str = "dev-razorpay-webhook-secret";
const DRAGONPAY_SECRET: &str = "dev-dragonpay-password";

/// Noon in India on `day`, in seconds since the epoch (as a provider stamps the money it reports).
fn noon_ist(day: Date) -> i64 {
    day.with_hms(6, 30, 0)
        .unwrap()
        .assume_utc()
        .unix_timestamp()
}

fn date_of(text: &Value) -> Date {
    kilat_server::store::loans::parse_date(text.as_str().unwrap()).unwrap()
}

async fn payment(app: &TestApp, session: &str, id: &str) -> Value {
    data(
        app.get_as(&format!("/api/v1/borrower/payments/{id}"), session)
            .await,
    )
    .await
}

fn amount_of(choices: &Value, choice: &str) -> i64 {
    choices["choices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["choice"] == choice)
        .unwrap_or_else(|| panic!("no {choice} in {choices}"))["amount"]
        .as_i64()
        .unwrap()
}

async fn queue(app: &TestApp, finance: &Op) -> Vec<Value> {
    data(op_call(app, finance, Method::GET, "/api/v1/console/payments", None).await)
        .await
        .as_array()
        .unwrap()
        .clone()
}

fn queued<'a>(queue: &'a [Value], payment_id: &str) -> Option<&'a Value> {
    queue
        .iter()
        .find(|p| p["payment"]["paymentId"] == json!(payment_id))
}

async fn resolve(app: &TestApp, finance: &Op, payment_id: &str, action: &str) -> reqwest::Response {
    op_call(
        app,
        finance,
        Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/resolve"),
        Some(json!({"action": action})),
    )
    .await
}

async fn record_refund(
    app: &TestApp,
    finance: &Op,
    payment_id: &str,
    reference: &str,
) -> reqwest::Response {
    op_call(
        app,
        finance,
        Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/refund"),
        Some(json!({"bankReference": reference})),
    )
    .await
}

/// A signed Xendit virtual-account callback (the webhook tests' own).
async fn xendit(app: &TestApp, body: &Value) -> reqwest::Response {
    webhooks::xendit(app, XENDIT_TOKEN, body).await
}

/// Xendit's paid callback for `payment`, `sen` received (whole rupiah on the wire).
fn xendit_paid(payment: &Value, event: &str, sen: i64) -> Value {
    webhooks::xendit_paid(payment, event, sen / 100)
}

async fn razorpay(
    app: &TestApp,
    event_id: &str,
    payment: &Value,
    amount: i64,
    currency: &str,
) -> reqwest::Response {
    razorpay_made(app, event_id, payment, amount, currency, None).await
}

/// Razorpay's capture of `payment`, the money sent at `created_at` (seconds since the epoch) when given.
async fn razorpay_made(
    app: &TestApp,
    event_id: &str,
    payment: &Value,
    amount: i64,
    currency: &str,
    created_at: Option<i64>,
) -> reqwest::Response {
    let mut entity = json!({
        "id": format!("pay_{event_id}"),
        "amount": amount,
        "currency": currency,
        "status": "captured",
        "notes": {"reference": payment["reference"]},
    });
    if let Some(at) = created_at {
        entity["created_at"] = at.into();
    }
    let body = json!({
        "entity": "event",
        "event": "payment.captured",
        "contains": ["payment"],
        "payload": {"payment": {"entity": entity}},
    });
    let raw = serde_json::to_vec(&body).unwrap();
    app.client
        .post(app.url("/api/v1/webhooks/razorpay"))
        .header("content-type", "application/json")
        .header(
            "x-razorpay-signature",
            razorpay_signature(RAZORPAY_SECRET, &raw),
        )
        .header("x-razorpay-event-id", event_id)
        .body(raw)
        .send()
        .await
        .unwrap()
}

/// A UPI payment of `choice` with its UTR submitted: the payment as the borrower sees it.
async fn upi_with_utr(
    app: &TestApp,
    session: &str,
    order_no: &str,
    choice: &str,
    key: &str,
    utr: &str,
) -> Value {
    let created = create_payment(app, session, order_no, choice, "upi", key).await;
    assert_eq!(created.status(), StatusCode::OK);
    let p = data(created).await;
    let id = p["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(app, session, id, utr).await.status(),
        StatusCode::OK
    );
    p
}

#[tokio::test]
async fn paying_the_only_installment_early_costs_the_payoff_of_that_day_and_no_interest_for_days_not_used()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let scheduled = plan["installments"][0]["due"]["total"].as_i64().unwrap();
    // Day 0: "pay this installment" costs what "repay everything today" costs, not the whole term's interest.
    let offered = app.repayment_of(&session, &order_no).await;
    let payoff = amount_of(&offered, "payoff");
    assert_eq!(amount_of(&offered, "due"), payoff);
    assert!(payoff < scheduled, "{payoff} < {scheduled}");
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "early-due-0001",
        "100000000001",
    )
    .await;
    assert_eq!(p["amount"], json!(payoff));
    let done = confirm(&app, &finance, p["paymentId"].as_str().unwrap(), payoff).await;
    assert_eq!(done.status(), StatusCode::OK);
    let done = data(done).await;
    assert_eq!(done["payment"]["status"], "confirmed");
    assert_eq!(done["orderStatus"], "repaid");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["outstanding"]["total"], 0);
    assert_eq!(plan["paid"]["interest"], 0, "no interest for days not used");
    // Five days in, the same: the interest of five days only.
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    app.set_date(date_of(&plan["payoutDate"]) + Duration::days(5))
        .await;
    // Console sessions follow the business clock: sign in again after moving it.
    let finance = operator(&app, "fin-later", &[Role::Finance]).await;
    let offered = app.repayment_of(&session, &order_no).await;
    assert_eq!(amount_of(&offered, "due"), amount_of(&offered, "payoff"));
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "early-due-0002",
        "100000000002",
    )
    .await;
    let amount = p["amount"].as_i64().unwrap();
    assert_eq!(
        data(confirm(&app, &finance, p["paymentId"].as_str().unwrap(), amount).await).await["orderStatus"],
        "repaid"
    );
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    // ₹10,000 at 0.1% a day for 5 days.
    assert_eq!(plan["paid"]["interest"], 5_000);
    app.stop().await;
}

#[tokio::test]
async fn a_waiting_utr_freezes_every_installment_it_pays_and_leaves_no_arrears_once_confirmed() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let first = date_of(&plan["installments"][0]["dueDate"]);
    let second = date_of(&plan["installments"][1]["dueDate"]);
    // Installment 1 is overdue (and charged); on installment 2's due date the borrower pays both and sends the UTR.
    for day in [first + Duration::days(1), second] {
        app.set_date(day).await;
        app.run_overdue(Market::India).await;
    }
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "two-due-0001",
        "100000000003",
    )
    .await;
    let amount = p["amount"].as_i64().unwrap();
    let (to,): (Option<i64>,) = sqlx::query_as("SELECT installment_to FROM payments WHERE id = $1")
        .bind(p["paymentId"].as_str().unwrap())
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(to, Some(2), "the payment covers installments 1 and 2");
    let charged = |app: &TestApp| {
        let id = id.clone();
        let pool = app.db.pool().clone();
        async move {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1 AND kind = 'late_charge'",
            )
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
            n
        }
    };
    let before = charged(&app).await;
    // Finance takes three days: neither installment accrues anything while the UTR waits.
    for day in 1..=3 {
        app.set_date(second + Duration::days(day)).await;
        let report = app.run_overdue(Market::India).await;
        assert_eq!(
            report.late_charges, 0,
            "day {day}: both installments are frozen"
        );
    }
    assert_eq!(charged(&app).await, before);
    let finance = operator(&app, "fin-later", &[Role::Finance]).await;
    let done = data(confirm(&app, &finance, p["paymentId"].as_str().unwrap(), amount).await).await;
    assert_eq!(done["payment"]["status"], "confirmed");
    assert_eq!(done["orderStatus"], "disbursed", "no arrears are left");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    for seq in 0..2 {
        assert_eq!(
            plan["installments"][seq]["outstanding"]["total"],
            0,
            "installment {}",
            seq + 1
        );
    }
    assert_eq!(status_of(&app, &id).await, "disbursed");
    app.stop().await;
}

#[tokio::test]
async fn indonesian_amounts_stay_whole_rupiah_after_a_part_payment_and_late_charges_and_a_virtual_account_takes_them()
 {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(ID).disbursed().await;
    let due = date_of(&plan["installments"][0]["dueDate"]);
    // A part payment of an odd amount leaves an outstanding amount whose 0.1 % a day is not whole rupiah.
    app.set_date(due).await;
    let finance = operator(&app, "fin-later", &[Role::Finance]).await;
    let va = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "va-odd-0001",
        )
        .await,
    )
    .await;
    let odd = 12_345_700; // Rp 123,457
    assert_eq!(
        data(xendit(&app, &xendit_paid(&va, "odd-1", odd)).await).await["outcome"],
        "held"
    );
    let credited =
        data(resolve(&app, &finance, va["paymentId"].as_str().unwrap(), "credit").await).await;
    assert_eq!(credited["payment"]["status"], "confirmed");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    let left = plan["outstanding"]["total"].as_i64().unwrap();
    assert_ne!(
        left % 100_000,
        0,
        "0.1 % of Rp {} is not whole rupiah",
        left / 100
    );
    for day in 1..=40 {
        app.set_date(due + Duration::days(day)).await;
        app.run_overdue(Market::Indonesia).await;
        let offered = app.repayment_of(&session, &order_no).await;
        for choice in ["due", "payoff"] {
            let amount = amount_of(&offered, choice);
            assert_eq!(amount % 100, 0, "day {day}: {choice} asks {amount} sen");
        }
    }
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["outstanding"]["total"].as_i64().unwrap() % 100, 0);
    assert!(plan["outstanding"]["lateCharges"].as_i64().unwrap() > 0);
    // The virtual account for it is paid in whole rupiah and closes the loan.
    let va = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "va-odd-0002",
        )
        .await,
    )
    .await;
    let amount = va["amount"].as_i64().unwrap();
    assert_eq!(
        data(xendit(&app, &xendit_paid(&va, "odd-2", amount)).await).await["outcome"],
        "confirmed"
    );
    assert_eq!(status_of(&app, &id).await, "repaid");
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

/// Money a provider reported and held is credited at the amount it reported: finance's confirm with another figure
/// (a typo, or the amount asked) is a field error and posts nothing; the reported amount credits it. A UTR payment
/// finance held itself may still be confirmed with the amount finance then finds.
#[tokio::test]
async fn held_money_a_provider_reported_is_credited_only_at_the_amount_it_reported() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(ID).disbursed().await;
    let finance = operator(&app, "fin-reported", &[Role::Finance]).await;
    let va = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "va-reported-01",
        )
        .await,
    )
    .await;
    let pid = va["paymentId"].as_str().unwrap();
    let reported = 5_000_000; // Rp 50,000: not the amount asked
    assert_eq!(
        data(xendit(&app, &xendit_paid(&va, "reported-1", reported)).await).await["outcome"],
        "held"
    );
    for typed in [reported * 10, va["amount"].as_i64().unwrap()] {
        let refused = confirm(&app, &finance, pid, typed).await;
        assert_eq!(
            refused.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{typed}"
        );
        let body: Value = refused.json().await.unwrap();
        assert!(
            body["fields"]["amount"]
                .as_str()
                .unwrap()
                .contains("5000000"),
            "{body}"
        );
        assert_eq!(payment(&app, &session, pid).await["status"], "held");
    }
    let credited = data(confirm(&app, &finance, pid, reported).await).await;
    assert_eq!(credited["payment"]["status"], "confirmed", "{credited}");
    assert_eq!(credited["payment"]["receivedAmount"], reported);
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(
        plan["paidInAll"].as_i64().unwrap() - plan["feesKept"].as_i64().unwrap(),
        reported,
        "{plan}"
    );

    // Finance's own hold: a UTR confirmed short, then confirmed again with what the bank shows.
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).disbursed().await;
    let p =
        data(create_payment(&app, &session, &order_no, "due", "upi", "utr-own-hold-1").await).await;
    let pid = p["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, pid, "300000000077")
            .await
            .status(),
        StatusCode::OK
    );
    let amount = p["amount"].as_i64().unwrap();
    let held = data(confirm(&app, &finance, pid, amount - 1_000).await).await;
    assert_eq!(held["payment"]["status"], "held", "{held}");
    let again = data(confirm(&app, &finance, pid, amount - 500).await).await;
    assert_eq!(again["payment"]["status"], "confirmed", "{again}");
    assert_eq!(again["payment"]["receivedAmount"], amount - 500);
    app.stop().await;
}

/// Money a provider reports in another currency than the payment's is never the payment's money: held, it cannot be
/// credited or owed back as rupees (before, finance's Credit posted US cents as paise), and closing the loan leaves it
/// held; finance sends it back through the provider and rejects the payment, saying so.
#[tokio::test]
async fn money_in_another_currency_is_held_never_credited_or_refunded_as_the_payments_and_is_rejected_once_sent_back()
 {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).disbursed().await;
    let finance = operator(&app, "fin-usd", &[Role::Finance]).await;
    let p =
        data(create_payment(&app, &session, &order_no, "due", "upi", "usd-money-0001").await).await;
    let pid = p["paymentId"].as_str().unwrap();
    assert_eq!(
        data(razorpay(&app, "evt_usd_1", &p, 1_200, "USD").await).await["outcome"],
        "held"
    );
    let seen = payment(&app, &session, pid).await;
    assert_eq!(seen["status"], "held");
    assert_eq!(seen["receivedCurrency"], "USD");
    for refused in [
        confirm(&app, &finance, pid, 1_200).await,
        resolve(&app, &finance, pid, "credit").await,
        resolve(&app, &finance, pid, "refund").await,
    ] {
        assert_eq!(refused.status(), StatusCode::CONFLICT);
        assert_eq!(error(refused).await["code"], "other_currency");
    }
    // The loan is paid off by another payment: the dollars stay held, never owed back as rupees.
    let off =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "usd-money-0002").await)
            .await;
    let confirmed = razorpay(
        &app,
        "evt_usd_2",
        &off,
        off["amount"].as_i64().unwrap(),
        "INR",
    )
    .await;
    assert_eq!(data(confirmed).await["outcome"], "confirmed");
    assert_eq!(status_of(&app, &id).await, "repaid");
    assert_eq!(payment(&app, &session, pid).await["status"], "held");
    check_ledger(&app, &session, &order_no, &id).await;
    // Sent back through Razorpay: finance rejects it with the reason.
    let rejected = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/payments/{pid}/reject"),
        Some(json!({"reason": "USD 12.00 refunded through Razorpay."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    assert_eq!(payment(&app, &session, pid).await["status"], "rejected");
    app.stop().await;
}

#[tokio::test]
async fn a_callback_credits_only_a_payment_made_with_its_provider_in_its_market() {
    let app = spawn_app().await;
    // An Indonesian virtual-account payment, and an Indian UPI payment.
    let Loan {
        session: id_session,
        order_no: id_order,
        order_id: id_id,
        ..
    } = app.borrower(ID).disbursed().await;
    let va = data(
        create_payment(
            &app,
            &id_session,
            &id_order,
            "due",
            "virtual_account",
            "wrong-va-01",
        )
        .await,
    )
    .await;
    let Loan {
        session: in_session,
        order_no: in_order,
        order_id: in_id,
        ..
    } = app.borrower(IN).disbursed().await;
    let upi =
        data(create_payment(&app, &in_session, &in_order, "due", "upi", "wrong-upi-01").await)
            .await;
    // Razorpay (India) for the virtual account; Xendit and Dragonpay (off for India) for the UPI payment.
    let rzp = razorpay(
        &app,
        "evt_wrong_1",
        &va,
        va["amount"].as_i64().unwrap(),
        "IDR",
    )
    .await;
    assert_eq!(rzp.status(), StatusCode::OK);
    assert_eq!(data(rzp).await["outcome"], "wrong_provider");
    let xnd = xendit(
        &app,
        &xendit_paid(&upi, "wrong-2", upi["amount"].as_i64().unwrap()),
    )
    .await;
    assert_eq!(data(xnd).await["outcome"], "wrong_provider");
    let reference = upi["reference"].as_str().unwrap();
    let message = "Payment received";
    let postback = [
        ("txnid", reference.to_owned()),
        ("refno", "DPWRONG1".to_owned()),
        ("status", "S".to_owned()),
        ("message", message.to_owned()),
        (
            "digest",
            dragonpay_digest(reference, "DPWRONG1", "S", message, DRAGONPAY_SECRET),
        ),
    ];
    let dp = app
        .client
        .post(app.url("/api/v1/webhooks/dragonpay/postback"))
        .form(&postback)
        .send()
        .await
        .unwrap();
    assert_eq!(dp.status(), StatusCode::OK);
    for (p, order_id) in [(&va, &id_id), (&upi, &in_id)] {
        let pid = p["paymentId"].as_str().unwrap();
        assert_eq!(payment_status(&app, pid).await, "pending");
        assert_eq!(count(&app, LEDGER, pid).await, 0);
        assert_eq!(status_of(&app, order_id).await, "disbursed");
    }
    // Each is recorded and audited.
    let (recorded,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM payment_callbacks WHERE outcome = 'wrong_provider'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(recorded, 3);
    let (audited,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'payment.callback_wrong_provider'",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(audited, 3);
    // The money each provider received all the same is for finance, naming the payment whose reference it quoted,
    // the loan's market's (its borrower's lender's staff), whatever the money's currency; a replay adds nothing.
    assert_eq!(
        data(
            razorpay(
                &app,
                "evt_wrong_1",
                &va,
                va["amount"].as_i64().unwrap(),
                "IDR"
            )
            .await
        )
        .await["outcome"],
        "replayed"
    );
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let listed = op_call(
        &app,
        &finance,
        Method::GET,
        "/api/v1/console/unmatched-receipts",
        None,
    )
    .await;
    let listed = data(listed).await;
    let items = listed.as_array().unwrap();
    let mut seen: Vec<(String, String, String, String)> = items
        .iter()
        .map(|i| {
            (
                i["provider"].as_str().unwrap().to_owned(),
                i["kind"].as_str().unwrap().to_owned(),
                i["orderNo"].as_str().unwrap_or_default().to_owned(),
                i["market"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    seen.sort();
    let named = |provider: &str, order: &str, market: &str| {
        (
            provider.to_owned(),
            "unmatched".to_owned(),
            order.to_owned(),
            market.to_owned(),
        )
    };
    let mut expected = vec![
        named("dragonpay", &in_order, "IN"),
        named("razorpay", &id_order, "ID"),
        named("xendit", &in_order, "IN"),
    ];
    expected.sort();
    assert_eq!(seen, expected);
    let rzp_item = items.iter().find(|i| i["provider"] == "razorpay").unwrap();
    assert_eq!(rzp_item["amount"], va["amount"]);
    assert_eq!(rzp_item["currency"], "IDR");
    assert_eq!(rzp_item["reference"], va["reference"]);
    // Dragonpay then takes its money back (its reversal names the reference only): kept beside it, once.
    let reversal = |status: &str| {
        let message = "Refunded";
        [
            ("txnid", reference.to_owned()),
            ("refno", "DPWRONG1".to_owned()),
            ("status", status.to_owned()),
            ("message", message.to_owned()),
            (
                "digest",
                dragonpay_digest(reference, "DPWRONG1", status, message, DRAGONPAY_SECRET),
            ),
        ]
    };
    for _ in 0..2 {
        let back = app
            .client
            .post(app.url("/api/v1/webhooks/dragonpay/postback"))
            .form(&reversal("R"))
            .send()
            .await
            .unwrap();
        assert_eq!(back.status(), StatusCode::OK);
    }
    let listed = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let back: Vec<&Value> = listed
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "reversed")
        .collect();
    assert_eq!(back.len(), 1, "{listed}");
    assert_eq!(
        (
            back[0]["provider"].clone(),
            back[0]["orderNo"].clone(),
            back[0]["market"].clone()
        ),
        (json!("dragonpay"), json!(in_order), json!("IN"))
    );
    // The right provider still credits.
    let ok = xendit(
        &app,
        &xendit_paid(&va, "right-1", va["amount"].as_i64().unwrap()),
    )
    .await;
    assert_eq!(data(ok).await["outcome"], "confirmed");
    check_ledger(&app, &id_session, &id_order, &id_id).await;
    app.stop().await;
}

#[tokio::test]
async fn money_for_a_repaid_loan_becomes_a_refund_due_that_finance_records_and_the_borrower_sees() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).disbursed().await;
    // Two taps: two payments for the same installment, both with a UTR.
    let first = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "twice-0001",
        "100000000005",
    )
    .await;
    let second = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "twice-0002",
        "100000000006",
    )
    .await;
    let amount = first["amount"].as_i64().unwrap();
    let done =
        data(confirm(&app, &finance, first["paymentId"].as_str().unwrap(), amount).await).await;
    assert_eq!(done["orderStatus"], "repaid");
    // The second transfer arrived too: it is owed back, not stuck in `invalid_transition`.
    let second_id = second["paymentId"].as_str().unwrap();
    let answer = confirm(&app, &finance, second_id, amount).await;
    assert_eq!(answer.status(), StatusCode::OK);
    let answer = data(answer).await;
    assert_eq!(answer["payment"]["status"], "refund_due");
    assert_eq!(answer["payment"]["refundAmount"], json!(amount));
    assert_eq!(count(&app, LEDGER, second_id).await, 0);
    let q = queue(&app, &finance).await;
    assert_eq!(
        queued(&q, second_id).unwrap()["payment"]["status"],
        "refund_due"
    );
    // The borrower sees it.
    let seen = payment(&app, &session, second_id).await;
    assert_eq!(
        (seen["status"].clone(), seen["refundAmount"].clone()),
        (json!("refund_due"), json!(amount))
    );
    // A provider's capture for a third payment of the closed loan: answered 2xx, owed back too.
    let third = create_payment(&app, &session, &order_no, "payoff", "upi", "twice-0003").await;
    assert_ne!(
        third.status(),
        StatusCode::OK,
        "a closed loan offers no new payment"
    );
    let late = razorpay(&app, "evt_twice_2", &second, amount, "INR").await;
    assert_eq!(
        late.status(),
        StatusCode::OK,
        "a provider's retry is never refused"
    );
    // Finance sends it back and records the bank's reference, once.
    let bad = record_refund(&app, &finance, second_id, "x").await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let refunded = record_refund(&app, &finance, second_id, "HDFCR2611260001").await;
    assert_eq!(refunded.status(), StatusCode::OK);
    assert_eq!(data(refunded).await["status"], "refunded");
    assert_eq!(
        record_refund(&app, &finance, second_id, "HDFCR2611260002")
            .await
            .status(),
        StatusCode::CONFLICT
    );
    let seen = payment(&app, &session, second_id).await;
    assert_eq!(seen["status"], "refunded");
    assert_eq!(seen["refundReference"], "HDFCR2611260001");
    // The loan's payments list both, the refund with its reference; another borrower sees nothing of them.
    let listed = data(
        app.get_as(
            &format!("/api/v1/borrower/orders/{order_no}/payments"),
            &session,
        )
        .await,
    )
    .await;
    let statuses: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].clone())
        .collect();
    assert_eq!(statuses, vec![json!("confirmed"), json!("refunded")]);
    assert_eq!(listed[1]["refundReference"], "HDFCR2611260001");
    let stranger = app.sign_in("IN", "9876501699").await;
    let other = app
        .get_as(
            &format!("/api/v1/borrower/orders/{order_no}/payments"),
            &stranger,
        )
        .await;
    assert_eq!(other.status(), StatusCode::NOT_FOUND);
    assert!(queued(&queue(&app, &finance).await, second_id).is_none());
    let (audited,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action IN ('payment.refund_due', 'payment.refunded')",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(audited, 2);
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn a_capture_for_a_payment_finance_rejected_returns_to_finances_queue_with_the_amount_received()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).disbursed().await;
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "reject-0001",
        "100000000007",
    )
    .await;
    let pid = p["paymentId"].as_str().unwrap();
    let rejected = op_call(
        &app,
        &finance,
        Method::POST,
        &format!("/api/v1/console/payments/{pid}/reject"),
        Some(json!({"reason": "No credit with this UTR on the statement."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    assert!(queued(&queue(&app, &finance).await, pid).is_none());
    let amount = p["amount"].as_i64().unwrap();
    let capture = razorpay(&app, "evt_after_reject", &p, amount, "INR").await;
    assert_eq!(data(capture).await["outcome"], "held");
    let q = queue(&app, &finance).await;
    let back = queued(&q, pid).expect("back in finance's queue");
    assert_eq!(back["payment"]["status"], "held");
    assert_eq!(back["payment"]["receivedAmount"], json!(amount));
    // Finance credits it in one step: the loan is repaid.
    let credited = data(resolve(&app, &finance, pid, "credit").await).await;
    assert_eq!(credited["payment"]["status"], "confirmed");
    assert_eq!(credited["orderStatus"], "repaid");
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn a_held_amount_is_credited_as_a_part_payment_or_refunded_in_one_step_and_leaves_the_queue_when_the_loan_closes()
 {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(ID).disbursed().await;
    let due = date_of(&plan["installments"][0]["dueDate"]);
    app.set_date(due).await;
    let finance = operator(&app, "fin-later", &[Role::Finance]).await;
    // A transfer of less than asked: held; finance sees received against asked, and credits it.
    let a = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "held-0001",
        )
        .await,
    )
    .await;
    let asked = a["amount"].as_i64().unwrap();
    let part = asked - 50_000_000;
    assert_eq!(
        data(xendit(&app, &xendit_paid(&a, "held-1", part)).await).await["outcome"],
        "held"
    );
    let aid = a["paymentId"].as_str().unwrap();
    let q = queue(&app, &finance).await;
    let held = queued(&q, aid).unwrap();
    assert_eq!(
        (
            held["payment"]["amount"].clone(),
            held["payment"]["receivedAmount"].clone()
        ),
        (json!(asked), json!(part))
    );
    assert_eq!(
        resolve(&app, &finance, aid, "keep").await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let credited = data(resolve(&app, &finance, aid, "credit").await).await;
    assert_eq!(credited["payment"]["status"], "confirmed");
    assert_eq!(credited["orderStatus"], "disbursed");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(
        plan["paid"]["total"],
        json!(part),
        "the plan shows the part payment"
    );
    assert_eq!(plan["outstanding"]["total"], json!(asked - part));
    assert_eq!(
        resolve(&app, &finance, aid, "credit").await.status(),
        StatusCode::CONFLICT
    );
    // Another transfer for the wrong amount, refunded by finance's choice.
    let b = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "held-0002",
        )
        .await,
    )
    .await;
    let bid = b["paymentId"].as_str().unwrap();
    assert_eq!(
        data(xendit(&app, &xendit_paid(&b, "held-2", 1_000_000)).await).await["outcome"],
        "held"
    );
    let refund = data(resolve(&app, &finance, bid, "refund").await).await;
    assert_eq!(refund["payment"]["status"], "refund_due");
    assert_eq!(refund["payment"]["refundAmount"], 1_000_000);
    // A third held amount; then the loan is repaid: the held money can no longer be credited and is owed back.
    let c = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "due",
            "virtual_account",
            "held-0003",
        )
        .await,
    )
    .await;
    let cid = c["paymentId"].as_str().unwrap();
    assert_eq!(
        data(xendit(&app, &xendit_paid(&c, "held-3", 700_000)).await).await["outcome"],
        "held"
    );
    let d = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "payoff",
            "virtual_account",
            "held-0004",
        )
        .await,
    )
    .await;
    assert_eq!(
        data(
            xendit(
                &app,
                &xendit_paid(&d, "held-4", d["amount"].as_i64().unwrap())
            )
            .await
        )
        .await["outcome"],
        "confirmed"
    );
    assert_eq!(status_of(&app, &id).await, "repaid");
    assert_eq!(payment_status(&app, cid).await, "refund_due");
    let q = queue(&app, &finance).await;
    assert!(
        q.iter().all(|p| p["payment"]["status"] != "held"),
        "nothing stays held for a closed loan"
    );
    assert_eq!(payment(&app, &session, cid).await["refundAmount"], 700_000);
    // The trail says what is owed back as the loan closes.
    let after: String = sqlx::query_scalar(
        "SELECT after_json FROM audit_log WHERE action = 'payment.refund_due' AND after_json LIKE $1",
    )
    .bind(format!("%{cid}%"))
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    let after: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(
        (
            &after["status"],
            &after["refundAmount"],
            &after["receivedAmount"]
        ),
        (&json!("refund_due"), &json!(700_000), &json!(700_000)),
        "{after}"
    );
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

#[tokio::test]
async fn a_second_capture_for_a_paid_payment_is_new_money_held_for_finance_never_dropped() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "twice-0001",
        "412345678901",
    )
    .await;
    let pid = p["paymentId"].as_str().unwrap();
    let asked = p["amount"].as_i64().unwrap();
    let first = razorpay(&app, "first", &p, asked, "INR").await;
    assert_eq!(data(first).await["outcome"], "confirmed");
    // The borrower paid twice: another capture (another provider payment id) for the same reference. Today it was
    // recorded `not_open` and the money vanished from view.
    let second = razorpay(&app, "second", &p, asked, "INR").await;
    assert_eq!(second.status(), StatusCode::OK);
    assert_eq!(data(second).await["outcome"], "held");
    assert_eq!(
        count(&app, LEDGER, pid).await,
        1,
        "the first payment credited once"
    );
    let q = queue(&app, &finance).await;
    let again = q
        .iter()
        .find(|e| {
            e["payment"]["orderNo"] == json!(order_no) && e["payment"]["paymentId"] != json!(pid)
        })
        .expect("the second receipt waits in finance's queue");
    assert_eq!(again["payment"]["status"], "held");
    assert_eq!(again["payment"]["receivedAmount"], json!(asked));
    let again_id = again["payment"]["paymentId"].as_str().unwrap().to_owned();
    // The same second capture again is a replay: nothing new.
    let replay = razorpay(&app, "second", &p, asked, "INR").await;
    assert_eq!(data(replay).await["outcome"], "replayed");
    let (payments,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM payments WHERE order_id = $1")
        .bind(&id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(payments, 2);
    // Finance credits it: the plan shows both payments, and the ledger replays.
    let credited = data(resolve(&app, &finance, &again_id, "credit").await).await;
    assert_eq!(credited["payment"]["status"], "confirmed");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["paid"]["total"], json!(2 * asked));
    app.stop().await;
}

/// Finance confirmed a payment from its UTR; the gateway's capture for it comes later. Of the amount finance received,
/// it is that same money; of another amount, or in another currency, it is money of its own, held, never dropped.
#[tokio::test]
async fn a_capture_after_finance_confirmed_the_utr_is_the_same_money_only_if_it_is_the_amount_received()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    for (round, (captured, currency, same)) in
        [(0, "INR", true), (25_000, "INR", false), (0, "USD", false)]
            .into_iter()
            .enumerate()
    {
        let Loan {
            session,
            order_no,
            order_id: id,
            ..
        } = app
            .borrower(IN)
            .loan("in-flexi-6m", 2_000_000, "m6")
            .disbursed()
            .await;
        let p = upi_with_utr(
            &app,
            &session,
            &order_no,
            "due",
            &format!("late-capture-{round}"),
            &format!("41234567890{round}"),
        )
        .await;
        let pid = p["paymentId"].as_str().unwrap();
        let asked = p["amount"].as_i64().unwrap();
        let done = data(confirm(&app, &finance, pid, asked).await).await;
        assert_eq!(done["payment"]["status"], "confirmed");
        let late = razorpay(
            &app,
            &format!("late_{round}"),
            &p,
            asked + captured,
            currency,
        )
        .await;
        assert_eq!(late.status(), StatusCode::OK);
        let outcome = data(late).await["outcome"].clone();
        assert_eq!(
            count(&app, LEDGER, pid).await,
            1,
            "round {round}: credited once"
        );
        let others: Vec<Value> = queue(&app, &finance)
            .await
            .into_iter()
            .filter(|e| {
                e["payment"]["orderNo"] == json!(order_no)
                    && e["payment"]["paymentId"] != json!(pid)
            })
            .collect();
        if same {
            assert_eq!(outcome, "not_open", "round {round}");
            assert!(others.is_empty(), "round {round}: {others:?}");
        } else {
            assert_eq!(outcome, "held", "round {round}");
            let [again] = &others[..] else {
                panic!("round {round}: the capture waits in finance's queue: {others:?}")
            };
            assert_eq!(again["payment"]["status"], "held");
            assert_eq!(again["payment"]["receivedAmount"], json!(asked + captured));
        }
        check_ledger(&app, &session, &order_no, &id).await;
    }
    app.stop().await;
}

#[tokio::test]
async fn two_callbacks_and_finance_for_one_payment_at_once_never_fail_and_credit_once() {
    let app = Arc::new(spawn_app().await);
    let finance = Arc::new(operator(&app, "fin", &[Role::Finance]).await);
    for round in 0..12 {
        let Loan {
            session,
            order_no,
            order_id: id,
            ..
        } = app.borrower(IN).disbursed().await;
        let p = upi_with_utr(
            &app,
            &session,
            &order_no,
            "due",
            &format!("race-key-{round:04}"),
            &format!("2000000000{round:02}"),
        )
        .await;
        let amount = p["amount"].as_i64().unwrap();
        let pid = p["paymentId"].as_str().unwrap().to_owned();
        let (a1, a2, a3) = (app.clone(), app.clone(), app.clone());
        let (p1, p2) = (p.clone(), p.clone());
        let f = finance.clone();
        let pid3 = pid.clone();
        let (r1, r2, r3) = tokio::join!(
            tokio::spawn(async move {
                razorpay(&a1, &format!("evt_race_a_{round}"), &p1, amount, "INR")
                    .await
                    .status()
            }),
            tokio::spawn(async move {
                razorpay(&a2, &format!("evt_race_b_{round}"), &p2, amount, "INR")
                    .await
                    .status()
            }),
            tokio::spawn(async move { confirm(&a3, &f, &pid3, amount).await.status() }),
        );
        for status in [r1.unwrap(), r2.unwrap(), r3.unwrap()] {
            assert!(!status.is_server_error(), "round {round}: {status}");
        }
        assert_eq!(
            count(&app, LEDGER, &pid).await,
            1,
            "round {round}: credited once"
        );
        assert_eq!(status_of(&app, &id).await, "repaid");
        check_ledger(&app, &session, &order_no, &id).await;
    }
    Arc::try_unwrap(app)
        .ok()
        .expect("no clone left")
        .stop()
        .await;
}

#[tokio::test]
async fn the_same_utr_sent_again_answers_the_payment_and_another_is_refused() {
    let app = Arc::new(spawn_app().await);
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).disbursed().await;
    let p =
        data(create_payment(&app, &session, &order_no, "due", "upi", "utr-again-01").await).await;
    let pid = p["paymentId"].as_str().unwrap().to_owned();
    // Ten taps at once with the same UTR: every one answers the payment, verifying, with that UTR.
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let (app, session, pid) = (app.clone(), session.clone(), pid.clone());
        tasks.push(tokio::spawn(async move {
            let answer = submit_utr(&app, &session, &pid, "300000000001").await;
            (answer.status(), answer.json::<Value>().await.unwrap())
        }));
    }
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["data"]["status"], "verifying");
        assert_eq!(body["data"]["utr"], "300000000001");
    }
    // Once more after the answer was lost: the same payment, nothing recorded twice.
    let again = submit_utr(&app, &session, &pid, "300000000001").await;
    assert_eq!(again.status(), StatusCode::OK);
    let (audited,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM audit_log WHERE action = 'payment.utr'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(audited, 1);
    // Another UTR for a payment already waiting for finance is refused.
    let other = submit_utr(&app, &session, &pid, "300000000002").await;
    assert_eq!(other.status(), StatusCode::CONFLICT);
    Arc::try_unwrap(app)
        .ok()
        .expect("no clone left")
        .stop()
        .await;
}

#[tokio::test]
async fn a_razorpay_capture_is_keyed_on_its_signed_body_not_on_an_unsigned_header() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).disbursed().await;
    let p =
        data(create_payment(&app, &session, &order_no, "due", "upi", "rzp-body-01").await).await;
    let amount = p["amount"].as_i64().unwrap();
    let raw = serde_json::to_vec(&json!({
        "entity": "event",
        "event": "payment.captured",
        "payload": {"payment": {"entity": {
            "id": "pay_SIGNED0001", "amount": amount, "currency": "INR", "status": "captured",
            "notes": {"reference": p["reference"]},
        }}},
    }))
    .unwrap();
    let send = |header: &'static str| {
        let raw = raw.clone();
        let app = &app;
        async move {
            let answer = app
                .client
                .post(app.url("/api/v1/webhooks/razorpay"))
                .header("content-type", "application/json")
                .header(
                    "x-razorpay-signature",
                    razorpay_signature(RAZORPAY_SECRET, &raw),
                )
                .header("x-razorpay-event-id", header)
                .body(raw)
                .send()
                .await
                .unwrap();
            data(answer).await["outcome"].clone()
        }
    };
    assert_eq!(send("evt_first").await, "confirmed");
    // The same signed capture with another (unsigned) event id is the same event.
    assert_eq!(send("evt_forged").await, "replayed");
    let (events,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM payment_callbacks WHERE provider = 'razorpay'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(events, 1);
    check_ledger(&app, &session, &order_no, &id).await;
    app.stop().await;
}

/// A price holds for money sent within two days of it, so finance checking a UTR days later costs the borrower
/// nothing; a quote kept and paid ten days later is priced for the day its UTR came, so those ten days' interest is
/// still owed: the payoff is held for finance, whose credit is a part payment, and an installment's amount is
/// credited by the allocation rule. Before, either closed the loan with no interest at all.
#[tokio::test]
async fn a_quote_paid_days_later_is_priced_for_the_day_its_utr_came_and_never_forgives_the_days_used()
 {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let payout = date_of(&plan["payoutDate"]);
    let p =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "old-quote-0001").await)
            .await;
    let pid = p["paymentId"].as_str().unwrap();
    app.set_date(payout + Duration::days(2)).await;
    assert_eq!(
        submit_utr(&app, &session, pid, "300000000001")
            .await
            .status(),
        StatusCode::OK
    );
    app.set_date(payout + Duration::days(6)).await;
    let finance = operator(&app, "fin-holds", &[Role::Finance]).await;
    let done = data(confirm(&app, &finance, pid, p["amount"].as_i64().unwrap()).await).await;
    assert_eq!(done["orderStatus"], "repaid");
    let plan = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(plan["paid"]["interest"], 0, "priced on the payout day");

    for (n, choice) in ["payoff", "due"].into_iter().enumerate() {
        let Loan {
            session,
            order_no,
            order_id: id,
            plan,
            ..
        } = app.borrower(IN).disbursed().await;
        let payout = date_of(&plan["payoutDate"]);
        let key = format!("old-quote-01{n}");
        let p = data(create_payment(&app, &session, &order_no, choice, "upi", &key).await).await;
        let pid = p["paymentId"].as_str().unwrap();
        let amount = p["amount"].as_i64().unwrap();
        app.set_date(payout + Duration::days(10)).await;
        let finance = operator(&app, &format!("fin-old-{n}"), &[Role::Finance]).await;
        assert_eq!(
            submit_utr(&app, &session, pid, &format!("30000000001{n}"))
                .await
                .status(),
            StatusCode::OK
        );
        let done = data(confirm(&app, &finance, pid, amount).await).await;
        if choice == "payoff" {
            assert_eq!(done["payment"]["status"], "held", "{done}");
            let credited = resolve(&app, &finance, pid, "credit").await;
            assert_eq!(credited.status(), StatusCode::OK);
        } else {
            assert_eq!(done["payment"]["status"], "confirmed", "{done}");
        }
        assert_eq!(status_of(&app, &id).await, "disbursed", "{choice}");
        let plan = check_ledger(&app, &session, &order_no, &id).await;
        let received =
            |plan: &Value| plan["paidInAll"].as_i64().unwrap() - plan["feesKept"].as_i64().unwrap();
        assert_eq!(received(&plan), amount, "{choice}: {plan}");
        // ₹10,000 at 0.1% a day: the ten days' interest is what paying off today still asks.
        let offered = app.repayment_of(&session, &order_no).await;
        assert_eq!(amount_of(&offered, "payoff"), 10_000, "{choice}: {offered}");
    }
    app.stop().await;
}

/// A provider's callback can come days after the money: Razorpay retries for a day and more. The money is priced for
/// the day the provider says it was sent (`created_at`), not the day the callback came, so a payoff paid on its day
/// closes the loan with no interest for the days the callback took (before, it was priced for the day of arrival: no
/// longer the amount asked, so held). Money a callback held is priced for its own day too when finance credits it
/// days later: the payoff of that day covers it, the loan is repaid and the rest owed back (before, finance's day:
/// a part payment that left the loan open and charging).
#[tokio::test]
async fn a_callback_delivered_late_or_credited_by_finance_later_is_priced_for_the_day_its_money_went()
 {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let payout = date_of(&plan["payoutDate"]);
    let p = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "payoff",
            "upi",
            "late-callback-01",
        )
        .await,
    )
    .await;
    let amount = p["amount"].as_i64().unwrap();
    app.set_date(payout + Duration::days(5)).await;
    let late = razorpay_made(
        &app,
        "evt_late_1",
        &p,
        amount,
        "INR",
        Some(noon_ist(payout)),
    )
    .await;
    assert_eq!(data(late).await["outcome"], "confirmed");
    assert_eq!(status_of(&app, &id).await, "repaid");
    let ledger = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(
        ledger["paid"]["interest"], 0,
        "priced for the payout day: {ledger}"
    );

    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let payout = date_of(&plan["payoutDate"]);
    let p = data(
        create_payment(
            &app,
            &session,
            &order_no,
            "payoff",
            "upi",
            "late-callback-02",
        )
        .await,
    )
    .await;
    let pid = p["paymentId"].as_str().unwrap();
    let amount = p["amount"].as_i64().unwrap();
    let more = razorpay_made(
        &app,
        "evt_late_2",
        &p,
        amount + 100,
        "INR",
        Some(noon_ist(payout)),
    )
    .await;
    assert_eq!(data(more).await["outcome"], "held");
    app.set_date(payout + Duration::days(6)).await;
    let finance = operator(&app, "fin-late-cb", &[Role::Finance]).await;
    let credited = data(resolve(&app, &finance, pid, "credit").await).await;
    assert_eq!(credited["orderStatus"], "repaid", "{credited}");
    assert_eq!(credited["payment"]["status"], "refund_due", "{credited}");
    assert_eq!(credited["payment"]["refundAmount"], 100, "{credited}");
    let ledger = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(ledger["paid"]["interest"], 0, "{ledger}");
    app.stop().await;
}

/// The cooling-off exit is the borrower's while the money goes within the window: a UTR sent on its last day and
/// checked by finance after the due date has passed still closes the loan as an exit (before, the order could not
/// move from overdue and finance's confirm failed); a UTR sent the day after the window is held, and finance's
/// credit is a repayment that leaves the loan open.
#[tokio::test]
async fn a_cooling_off_exit_counts_when_its_money_went_within_the_window_and_is_held_when_it_went_after()
 {
    let app = spawn_app().await;
    for (n, utr_day) in [3_i64, 4].into_iter().enumerate() {
        let Loan {
            session,
            order_no,
            order_id: id,
            plan,
            ..
        } = app.borrower(IN).term("7d").disbursed().await;
        let payout = date_of(&plan["payoutDate"]);
        app.set_date(payout + Duration::days(2)).await;
        let p = data(
            create_payment(
                &app,
                &session,
                &order_no,
                "cooling_off",
                "upi",
                &format!("exit-late-0{n}"),
            )
            .await,
        )
        .await;
        let pid = p["paymentId"].as_str().unwrap();
        let amount = p["amount"].as_i64().unwrap();
        app.set_date(payout + Duration::days(utr_day)).await;
        assert_eq!(
            submit_utr(&app, &session, pid, &format!("70000000010{n}"))
                .await
                .status(),
            StatusCode::OK
        );
        let finance = operator(&app, &format!("fin-exit-{n}"), &[Role::Finance]).await;
        let done = if utr_day == 3 {
            // Checked after the due date, with the order moved to overdue meanwhile.
            app.set_date(payout + Duration::days(8)).await;
            app.run_overdue(Market::India).await;
            assert_eq!(status_of(&app, &id).await, "overdue");
            let finance = operator(&app, "fin-exit-after", &[Role::Finance]).await;
            let done = confirm(&app, &finance, pid, amount).await;
            assert_eq!(done.status(), StatusCode::OK);
            data(done).await
        } else {
            data(confirm(&app, &finance, pid, amount).await).await
        };
        if utr_day == 3 {
            assert_eq!(done["payment"]["status"], "confirmed", "{done}");
            assert_eq!(done["orderStatus"], "exited_in_cooling_off");
            let plan = check_ledger(&app, &session, &order_no, &id).await;
            assert_eq!(plan["paidInAll"], json!(amount));
            assert_eq!(plan["feesKept"], 0);
        } else {
            assert_eq!(done["payment"]["status"], "held", "{done}");
            assert_eq!(
                resolve(&app, &finance, pid, "credit").await.status(),
                StatusCode::OK
            );
            assert_eq!(status_of(&app, &id).await, "disbursed");
            let plan = check_ledger(&app, &session, &order_no, &id).await;
            // Paid in all: the fees kept at payout and the money received.
            assert_eq!(
                plan["paidInAll"].as_i64().unwrap() - plan["feesKept"].as_i64().unwrap(),
                amount,
                "{plan}"
            );
            assert!(plan["outstanding"]["total"].as_i64().unwrap() > 0, "{plan}");
            assert_eq!(
                count(&app, "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1 AND kind = 'cooling_off_exit'", &id).await,
                0
            );
        }
    }
    app.stop().await;
}

/// A payment priced and paid on its day, two days overdue, whose money the provider reports two days later (its
/// callback retried): the late charges posted meanwhile are waived (reversed) as it is credited, so it pays exactly
/// what it was asked for and the loan closes as paid that day, charged nothing more. Before, the money went to those
/// charges first: principal was left unpaid, and the loan stayed overdue and charged each day.
#[tokio::test]
async fn money_paid_on_its_day_and_reported_days_later_waives_the_late_charges_posted_meanwhile() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let due = date_of(&plan["installments"][0]["dueDate"]);
    let overdue_on = |days: i64| {
        let app = &app;
        async move {
            app.set_date(due + Duration::days(days)).await;
            app.run_overdue(Market::India).await
        }
    };
    overdue_on(1).await;
    overdue_on(2).await;
    let p =
        data(create_payment(&app, &session, &order_no, "due", "upi", "waive-key-01").await).await;
    let amount = p["amount"].as_i64().unwrap();
    assert_eq!(overdue_on(3).await.late_charges, 1);
    assert_eq!(overdue_on(4).await.late_charges, 1);
    let late = razorpay_made(
        &app,
        "evt_waive_1",
        &p,
        amount,
        "INR",
        Some(noon_ist(due + Duration::days(2))),
    )
    .await;
    assert_eq!(data(late).await["outcome"], "confirmed");
    assert_eq!(status_of(&app, &id).await, "repaid");
    let ledger = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(ledger["outstanding"]["total"], 0, "{ledger}");
    let reversals = count(
        &app,
        "SELECT COUNT(*) FROM ledger_entries WHERE order_id = $1 AND kind = 'reversal'",
        &id,
    )
    .await;
    assert_eq!(reversals, 2, "the third and fourth days' charges");
    assert_eq!(overdue_on(5).await.late_charges, 0);

    // Another loan: while the first payment's callback is retried, the borrower pays the loan off by UTR. The first
    // payment's money then finds a loan that owes nothing: all of it is owed back, nothing waived (before, the waiver
    // replayed charges paid already and every retry failed with a 500).
    let Loan {
        phone,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let due = date_of(&plan["installments"][0]["dueDate"]);
    app.set_date(due + Duration::days(2)).await;
    app.run_overdue(Market::India).await;
    let session = app.sign_in("IN", &phone).await;
    let first =
        data(create_payment(&app, &session, &order_no, "due", "upi", "waive-key-02").await).await;
    app.set_date(due + Duration::days(3)).await;
    app.run_overdue(Market::India).await;
    let finance = operator(&app, "fin-waive", &[Role::Finance]).await;
    let session = app.sign_in("IN", &phone).await;
    let off =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "waive-key-03").await)
            .await;
    let off_id = off["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, off_id, "423456789012")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        confirm(&app, &finance, off_id, off["amount"].as_i64().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(status_of(&app, &id).await, "repaid");
    let late = razorpay_made(
        &app,
        "evt_waive_2",
        &first,
        first["amount"].as_i64().unwrap(),
        "INR",
        Some(noon_ist(due + Duration::days(2))),
    )
    .await;
    assert_eq!(late.status(), StatusCode::OK);
    assert_eq!(data(late).await["outcome"], "refund_due");
    app.stop().await;
}

/// A loan repaid with ₹50 more than its payoff: (the payment owing the ₹50 back, the order number).
async fn refund_owed(app: &TestApp, finance: &Op, key: &str, utr: &str) -> (String, String) {
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).disbursed().await;
    let p = data(create_payment(app, &session, &order_no, "payoff", "upi", key).await).await;
    let id = p["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(
        submit_utr(app, &session, &id, utr).await.status(),
        StatusCode::OK
    );
    let amount = p["amount"].as_i64().unwrap() + 5_000;
    for _ in 0..2 {
        assert_eq!(
            confirm(app, finance, &id, amount).await.status(),
            StatusCode::OK
        );
    }
    assert_eq!(payment_status(app, &id).await, "refund_due");
    (id, order_no)
}

/// Each refund's transfer has its own bank reference: one another order's refund or any payout has is refused at the
/// field, naming that order, even for two operators at the same moment; the refund stays due.
#[tokio::test]
async fn a_refunds_bank_reference_is_that_transfers_alone() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin-ref", &[Role::Finance]).await;
    let other = operator(&app, "fin-ref2", &[Role::Finance]).await;
    let (a, a_no) = refund_owed(&app, &finance, "refund-a-961", "500000000961").await;
    let (b, _) = refund_owed(&app, &finance, "refund-b-962", "500000000962").await;
    assert_eq!(
        record_refund(&app, &finance, &a, "RFD-2026-0001")
            .await
            .status(),
        StatusCode::OK
    );
    for taken in [
        "rfd-2026-0001".to_owned(),
        crate::servicing::bank_reference_of(&a_no),
    ] {
        let refused = record_refund(&app, &finance, &b, &taken).await;
        assert_eq!(
            refused.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{taken}"
        );
        let body = error(refused).await;
        assert!(
            body["fields"]["bankReference"]
                .as_str()
                .unwrap()
                .contains(&a_no),
            "{body}"
        );
        assert_eq!(payment_status(&app, &b).await, "refund_due");
    }

    // Two refunds recorded at once with one reference: one is recorded, the other refused at the field.
    let (c, _) = refund_owed(&app, &finance, "refund-c-963", "500000000963").await;
    let (one, two) = tokio::join!(
        record_refund(&app, &finance, &b, "RFD-2026-0002"),
        record_refund(&app, &other, &c, "RFD-2026-0002"),
    );
    let mut statuses = [one.status(), two.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::UNPROCESSABLE_ENTITY]);
    let refunded = [
        payment_status(&app, &b).await,
        payment_status(&app, &c).await,
    ];
    assert!(
        refunded.contains(&"refunded".to_owned()) && refunded.contains(&"refund_due".to_owned()),
        "{refunded:?}"
    );
    app.stop().await;
}

async fn claim_refund(
    app: &TestApp,
    finance: &Op,
    payment_id: &str,
    take_over: bool,
) -> reqwest::Response {
    op_call(
        app,
        finance,
        Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/refund/claim"),
        Some(json!({"takeOver": take_over})),
    )
    .await
}

/// One finance operator sends a refund: who said they are sending it is shown, nobody else records it or starts it
/// meanwhile (two at the same moment: one), and another takes it over only deliberately.
#[tokio::test]
async fn a_refund_is_sent_by_the_one_operator_who_said_so() {
    let app = spawn_app().await;
    let asha = operator(&app, "asha", &[Role::Finance]).await;
    let ravi = operator(&app, "ravi", &[Role::Finance]).await;
    let (a, _) = refund_owed(&app, &asha, "claim-a-971", "500000000971").await;
    let code = |response: reqwest::Response| async move {
        let status = response.status();
        (status, error(response).await["code"].clone())
    };
    assert_eq!(
        claim_refund(&app, &asha, &a, false).await.status(),
        StatusCode::OK
    );
    let sending = |queue: Vec<Value>| {
        let item = queued(&queue, &a).cloned().unwrap();
        (
            item["refundSendingBy"].clone(),
            item["refundSendingSince"].is_i64(),
        )
    };
    assert_eq!(sending(queue(&app, &ravi).await), (json!("asha"), true));
    let claimed = (StatusCode::CONFLICT, json!("refund_claimed"));
    assert_eq!(
        code(record_refund(&app, &ravi, &a, "RFD-CLAIM-01").await).await,
        claimed
    );
    assert_eq!(
        code(claim_refund(&app, &ravi, &a, false).await).await,
        claimed
    );
    // Asha claiming again keeps it hers.
    assert_eq!(
        claim_refund(&app, &asha, &a, false).await.status(),
        StatusCode::OK
    );
    // Ravi takes it over, deliberately: now only he records it.
    assert_eq!(
        claim_refund(&app, &ravi, &a, true).await.status(),
        StatusCode::OK
    );
    assert_eq!(sending(queue(&app, &asha).await), (json!("ravi"), true));
    assert_eq!(
        code(record_refund(&app, &asha, &a, "RFD-CLAIM-01").await).await,
        claimed
    );
    assert_eq!(
        record_refund(&app, &ravi, &a, "RFD-CLAIM-01")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(payment_status(&app, &a).await, "refunded");
    assert_eq!(
        code(claim_refund(&app, &asha, &a, false).await).await,
        (StatusCode::CONFLICT, json!("payment_not_open"))
    );
    let (claims,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'payment.refund_claim' AND after_json LIKE '%' || $1 || '%'",
    )
    .bind(&a)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(claims, 3);

    // Two operators starting the same refund at once: one is sending it.
    let (b, _) = refund_owed(&app, &asha, "claim-b-972", "500000000972").await;
    let (one, two) = tokio::join!(
        claim_refund(&app, &asha, &b, false),
        claim_refund(&app, &ravi, &b, false),
    );
    let mut statuses = [one.status(), two.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
    app.stop().await;
}

/// Money a provider reports, signed, for a reference no payment has (none at all, or one nobody issued) is answered
/// as taken and kept for finance — once per event, audited, each market's to its own finance — until finance says
/// what they did with it; never refused with an error the provider retries for days and then drops.
#[tokio::test]
async fn money_reported_for_a_reference_no_payment_has_is_kept_for_finance_until_they_say_what_they_did()
 {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let india =
        crate::servicing::operator_in(&app, "fin-in", &[Role::Finance], &[Market::India]).await;
    let outcome = |r: reqwest::Response| async move {
        assert_eq!(r.status(), StatusCode::OK);
        data(r).await["outcome"].as_str().unwrap().to_owned()
    };
    let ghost = json!({"reference": "KPNOSUCHREF1"});
    assert_eq!(
        outcome(razorpay(&app, "ghost_1", &ghost, 524_500, "INR").await).await,
        "unmatched"
    );
    assert_eq!(
        outcome(razorpay(&app, "ghost_1", &ghost, 524_500, "INR").await).await,
        "replayed"
    );
    let nameless = json!({"reference": null});
    assert_eq!(
        outcome(razorpay(&app, "nameless_1", &nameless, 10_000, "INR").await).await,
        "unmatched"
    );
    let va = json!({"reference": "KPNOSUCHREF2", "instructions": {"virtualAccount": "8808123"}});
    assert_eq!(
        outcome(xendit(&app, &xendit_paid(&va, "xnd-ghost-1", 15_000_000)).await).await,
        "unmatched"
    );
    let audited = |action: &'static str| {
        let app = &app;
        async move {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM audit_log WHERE action = $1 AND entity = 'unmatched_receipt'",
            )
            .bind(action)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
            n
        }
    };
    assert_eq!(audited("payment.callback_unmatched").await, 3);

    let list = |op: &Op, query: &'static str| {
        let (app, op) = (&app, op.clone());
        async move {
            let r = op_call(
                app,
                &op,
                Method::GET,
                &format!("/api/v1/console/unmatched-receipts{query}"),
                None,
            )
            .await;
            assert_eq!(r.status(), StatusCode::OK);
            data(r).await.as_array().unwrap().clone()
        }
    };
    let waiting = list(&finance, "").await;
    assert_eq!(waiting.len(), 3);
    let ghost_row = waiting
        .iter()
        .find(|r| r["reference"] == "KPNOSUCHREF1")
        .unwrap()
        .clone();
    assert_eq!(ghost_row["provider"], "razorpay");
    assert_eq!(ghost_row["market"], "IN");
    assert_eq!(ghost_row["amount"], 524_500);
    assert_eq!(ghost_row["currency"], "INR");
    assert_eq!(ghost_row["providerPaymentId"], "pay_ghost_1");
    assert_eq!(ghost_row["resolvedAt"], Value::Null);
    assert!(
        waiting
            .iter()
            .any(|r| r["reference"] == "" && r["amount"] == 10_000)
    );
    let va_row = waiting
        .iter()
        .find(|r| r["reference"] == "KPNOSUCHREF2")
        .unwrap()
        .clone();
    assert_eq!(
        (va_row["market"].clone(), va_row["amount"].clone()),
        (json!("ID"), json!(15_000_000))
    );
    // India's finance sees India's, and asks for Indonesia's in vain.
    let theirs = list(&india, "").await;
    assert_eq!(theirs.len(), 2);
    assert!(theirs.iter().all(|r| r["market"] == "IN"));
    let refused = op_call(
        &app,
        &india,
        Method::GET,
        "/api/v1/console/unmatched-receipts?market=ID",
        None,
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(refused).await["fields"]["market"].is_string());
    let resolve = |op: &Op, id: &Value, body: Value| {
        let (app, op, path) = (
            &app,
            op.clone(),
            format!(
                "/api/v1/console/unmatched-receipts/{}/resolve",
                id.as_str().unwrap()
            ),
        );
        async move { op_call(app, &op, Method::POST, &path, Some(body)).await }
    };
    let other_market = resolve(&india, &va_row["id"], json!({"resolution": "Returned."})).await;
    assert_eq!(other_market.status(), StatusCode::NOT_FOUND);

    // Said what was done: required, bounded; then once, and a burst of two lands once.
    let empty = resolve(&finance, &ghost_row["id"], json!({"resolution": "  "})).await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(empty).await["fields"]["resolution"].is_string());
    let long = resolve(
        &finance,
        &ghost_row["id"],
        json!({"resolution": "x".repeat(501)}),
    )
    .await;
    assert_eq!(long.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let (a, b) = tokio::join!(
        resolve(
            &finance,
            &ghost_row["id"],
            json!({"resolution": "Returned to the payer, HDFC N331260001."})
        ),
        resolve(
            &india,
            &ghost_row["id"],
            json!({"resolution": "Credited by hand."})
        ),
    );
    let mut statuses = [a.status(), b.status()];
    statuses.sort();
    assert_eq!(statuses, [StatusCode::OK, StatusCode::CONFLICT]);
    let loser = if a.status() == StatusCode::CONFLICT {
        a
    } else {
        b
    };
    assert_eq!(error(loser).await["code"], "receipt_resolved");
    assert_eq!(audited("payment.unmatched_resolve").await, 1);
    // The trail says which money was settled: provider, reference, amount and currency.
    let before: String = sqlx::query_scalar(
        "SELECT before_json FROM audit_log WHERE action = 'payment.unmatched_resolve' AND entity_id = $1",
    )
    .bind(ghost_row["id"].as_str().unwrap())
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    let before: Value = serde_json::from_str(&before).unwrap();
    assert_eq!(before["resolved"], false);
    assert_eq!(
        (&before["amount"], &before["currency"], &before["reference"]),
        (
            &ghost_row["amount"],
            &ghost_row["currency"],
            &ghost_row["reference"]
        ),
        "{before}"
    );
    assert_eq!(list(&finance, "").await.len(), 2);
    let all = list(&finance, "?status=all").await;
    let done = all.iter().find(|r| r["id"] == ghost_row["id"]).unwrap();
    assert!(done["resolvedAt"].is_i64());
    assert!(["fin", "fin-in"].contains(&done["resolvedByUsername"].as_str().unwrap()));
    assert!(done["resolution"].is_string());
    let bad_status = op_call(
        &app,
        &finance,
        Method::GET,
        "/api/v1/console/unmatched-receipts?status=open",
        None,
    )
    .await;
    assert_eq!(bad_status.status(), StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

/// Money a provider took back after it was credited (a chargeback of an installment's repayment) comes off the
/// loan's ledger when finance takes the credit back with its resolution: the entry is reversed, the loan owes it
/// again and is overdue again past its due date, the month's ledger export shows the reversal; once only. Money the
/// ledger cannot take back by itself (a receipt of no payment) is refused and nothing is written.
#[tokio::test]
async fn a_credit_whose_money_the_provider_took_back_comes_off_the_ledger_when_finance_takes_it_back()
 {
    let app = spawn_app().await;
    let Loan {
        phone,
        session,
        order_no,
        order_id: id,
        plan,
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let outcome = |r: reqwest::Response| async move {
        assert_eq!(r.status(), StatusCode::OK);
        data(r).await["outcome"].as_str().unwrap().to_owned()
    };
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "upi", "upi-back-0001").await).await;
    let amount = payment["amount"].as_i64().unwrap();
    assert_eq!(
        outcome(razorpay(&app, "back_1", &payment, amount, "INR").await).await,
        "confirmed"
    );
    let paid = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(paid["installments"][0]["status"], "paid");
    // The chargeback, after the installment's due date.
    let due: Date = kilat_server::store::loans::parse_date(
        plan["installments"][0]["dueDate"].as_str().unwrap(),
    )
    .unwrap();
    app.set_date(due + Duration::days(2)).await;
    let back = razorpay_reversal(
        &app,
        "payment.dispute.lost",
        "disp_1",
        &payment,
        "back_1",
        amount,
    )
    .await;
    assert_eq!(outcome(back).await, "reversed");
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let items = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "reversed")
        .unwrap()
        .clone();
    let resolve = |id: &str, take_back: bool| {
        let path = format!("/api/v1/console/unmatched-receipts/{id}/resolve");
        let (app, finance) = (&app, &finance);
        async move {
            op_call(
                app,
                finance,
                Method::POST,
                &path,
                Some(
                    json!({"resolution": "Chargeback lost: the installment is owed again.", "takeBack": take_back}),
                ),
            )
            .await
        }
    };
    // Money a wrong provider kept apart for this payment and then took back is not the money credited: refused,
    // nothing written, even of the same amount.
    sqlx::query(
        "INSERT INTO unmatched_receipts (id, provider, event_id, market, reference, provider_payment_id, amount,
             currency, received_at, kind, payment_id)
         SELECT 'kept-back', 'dragonpay', 'kept-back', 'IN', reference, 'DPKEPT1', $2, 'INR', 1, 'reversed', id
         FROM payments WHERE id = $1",
    )
    .bind(payment["paymentId"].as_str().unwrap())
    .bind(amount)
    .execute(app.db.pool())
    .await
    .unwrap();
    let kept = resolve("kept-back", true).await;
    assert_eq!(kept.status(), StatusCode::CONFLICT);
    assert_eq!(error(kept).await["code"], "credit_not_taken_back");
    let taken = resolve(item["id"].as_str().unwrap(), true).await;
    assert_eq!(taken.status(), StatusCode::OK);
    let session = app.sign_in("IN", &phone).await;
    let owed = check_ledger(&app, &session, &order_no, &id).await;
    assert_eq!(owed["installments"][0]["status"], "overdue", "{owed}");
    assert_eq!(
        owed["outstanding"]["total"].as_i64().unwrap(),
        paid["outstanding"]["total"].as_i64().unwrap() + amount
    );
    assert_eq!(status_of(&app, &id).await, "overdue");
    let kinds: Vec<String> = app
        .db
        .ledger(&id)
        .await
        .unwrap()
        .into_iter()
        .map(|e| kilat_domain::Code::code(e.entry.kind).to_owned())
        .collect();
    assert_eq!(
        kinds.iter().filter(|k| *k == "reversal").count(),
        1,
        "{kinds:?}"
    );
    // Once: the item is resolved, a second take-back is refused as resolved.
    let again = resolve(item["id"].as_str().unwrap(), true).await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "receipt_resolved");
    // Money of no payment cannot come off a ledger: refused, nothing resolved.
    let ghost = json!({"reference": "KPNOSUCHREF8"});
    assert_eq!(
        outcome(razorpay(&app, "ghost_8", &ghost, 10_000, "INR").await).await,
        "unmatched"
    );
    let items = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let ghost_item = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "unmatched")
        .unwrap()
        .clone();
    let refused = resolve(ghost_item["id"].as_str().unwrap(), true).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(error(refused).await["code"], "credit_not_taken_back");
    let still: Option<i64> =
        sqlx::query_scalar("SELECT resolved_at FROM unmatched_receipts WHERE id = $1")
            .bind(ghost_item["id"].as_str().unwrap())
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(still, None, "nothing written");
    app.stop().await;
}

/// Money a provider reported for no payment, kept for finance, and then took back (a refund, a chargeback; for
/// Dragonpay a reversal of the reference) is kept beside it as money taken back, once per event and audited: finance
/// must not return or credit money the provider has taken back already.
#[tokio::test]
async fn money_taken_back_after_it_matched_no_payment_is_shown_to_finance_beside_it() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let outcome = |r: reqwest::Response| async move {
        assert_eq!(r.status(), StatusCode::OK);
        data(r).await["outcome"].as_str().unwrap().to_owned()
    };
    let ghost = json!({"reference": "KPNOSUCHREF9"});
    assert_eq!(
        outcome(razorpay(&app, "ghost_9", &ghost, 524_500, "INR").await).await,
        "unmatched"
    );
    let refund = || {
        razorpay_reversal(
            &app,
            "refund.processed",
            "rfnd_9",
            &ghost,
            "ghost_9",
            524_500,
        )
    };
    assert_eq!(outcome(refund().await).await, "reversed");
    assert_eq!(outcome(refund().await).await, "replayed");
    // Dragonpay's postbacks for a reference nobody issued, paid twice (two transactions), then its refunds of that
    // reference: each refund is kept beside its own money, never twice beside the same.
    let postback = |refno: &str, status: &str| {
        let message = "Dragonpay";
        [
            ("txnid", "KPNOSUCHDP01".to_owned()),
            ("refno", refno.to_owned()),
            ("status", status.to_owned()),
            ("message", message.to_owned()),
            (
                "digest",
                dragonpay_digest("KPNOSUCHDP01", refno, status, message, DRAGONPAY_SECRET),
            ),
        ]
    };
    for (refno, status, expected) in [
        ("DPGHOST9", "S", "unmatched"),
        ("DPGHOST8", "S", "unmatched"),
        ("DPGHOST9", "R", "reversed"),
        ("DPGHOST8", "R", "reversed"),
    ] {
        let r = app
            .client
            .post(app.url("/api/v1/webhooks/dragonpay/postback"))
            .form(&postback(refno, status))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{refno} {status}");
        let (outcome,): (String,) = sqlx::query_as(
            "SELECT kind FROM unmatched_receipts WHERE provider = 'dragonpay' AND event_id = $1",
        )
        .bind(format!("{refno}:{status}"))
        .fetch_one(app.db.pool())
        .await
        .unwrap();
        assert_eq!(outcome, expected, "{refno} {status}");
    }
    let (beside,): (i64,) = sqlx::query_as(
        "SELECT COUNT(DISTINCT provider_payment_id) FROM unmatched_receipts
         WHERE provider = 'dragonpay' AND kind = 'reversed'",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(beside, 2, "each refund beside its own money");
    let listed = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let items = listed.as_array().unwrap();
    assert_eq!(items.len(), 6);
    let kept = items
        .iter()
        .find(|i| i["kind"] == "unmatched" && i["providerPaymentId"] == "pay_ghost_9")
        .unwrap();
    let back = items
        .iter()
        .find(|i| i["kind"] == "reversed" && i["provider"] == "razorpay")
        .unwrap();
    assert_eq!(back["providerPaymentId"], "pay_ghost_9");
    assert_eq!(back["reference"], "KPNOSUCHREF9");
    assert_eq!(
        (back["amount"].clone(), back["market"].clone()),
        (json!(524_500), json!("IN"))
    );
    let dp_back = items
        .iter()
        .find(|i| i["kind"] == "reversed" && i["provider"] == "dragonpay")
        .unwrap();
    assert_eq!(dp_back["reference"], "KPNOSUCHDP01");
    let (audited,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'payment.callback_reversed' AND entity_id = $1",
    )
    .bind(kept["id"].as_str().unwrap())
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(audited, 1);
    app.stop().await;
}

/// A signed Razorpay event of `kind` (`refund.processed` with a refund, `payment.dispute.lost` with a dispute) taking
/// `amount` back from the capture `pay_{capture}` of `payment`.
async fn razorpay_reversal(
    app: &TestApp,
    kind: &str,
    id: &str,
    payment: &Value,
    capture: &str,
    amount: i64,
) -> reqwest::Response {
    let key = if kind == "refund.processed" {
        "refund"
    } else {
        "dispute"
    };
    let body = json!({
        "entity": "event",
        "event": kind,
        "contains": [key, "payment"],
        "payload": {
            key: {"entity": {"id": id, "amount": amount, "currency": "INR", "payment_id": format!("pay_{capture}")}},
            "payment": {"entity": {"id": format!("pay_{capture}"), "amount": amount, "currency": "INR",
                "status": "refunded", "notes": {"reference": payment["reference"]}}},
        },
    });
    let raw = serde_json::to_vec(&body).unwrap();
    app.client
        .post(app.url("/api/v1/webhooks/razorpay"))
        .header("content-type", "application/json")
        .header(
            "x-razorpay-signature",
            razorpay_signature(RAZORPAY_SECRET, &raw),
        )
        .body(raw)
        .send()
        .await
        .unwrap()
}

/// Money the provider takes back after it was credited (a refund it made, a chargeback the payer won) is kept for
/// finance, naming the payment and its order — once per event — and changes nothing in the loan until finance acts;
/// one taken back from a payment never paid took nothing and is ignored.
#[tokio::test]
async fn money_a_provider_takes_back_after_crediting_it_is_kept_for_finance_naming_the_loan() {
    let app = spawn_app().await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        session,
        order_no,
        order_id: id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let p = upi_with_utr(
        &app,
        &session,
        &order_no,
        "due",
        "reversal-1",
        "412345678911",
    )
    .await;
    let pid = p["paymentId"].as_str().unwrap();
    let asked = p["amount"].as_i64().unwrap();
    assert_eq!(
        data(razorpay(&app, "capt_1", &p, asked, "INR").await).await["outcome"],
        "confirmed"
    );
    let outcome = |r: reqwest::Response| async move {
        assert_eq!(r.status(), StatusCode::OK);
        data(r).await["outcome"].as_str().unwrap().to_owned()
    };
    assert_eq!(
        outcome(
            razorpay_reversal(&app, "payment.dispute.lost", "disp_1", &p, "capt_1", asked).await
        )
        .await,
        "reversed"
    );
    assert_eq!(
        outcome(
            razorpay_reversal(&app, "payment.dispute.lost", "disp_1", &p, "capt_1", asked).await
        )
        .await,
        "replayed"
    );
    // The loan's credit stands: finance decides.
    assert_eq!(count(&app, LEDGER, pid).await, 1);
    assert_eq!(payment_status(&app, pid).await, "confirmed");
    check_ledger(&app, &session, &order_no, &id).await;
    let listed = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let [item] = &listed.as_array().unwrap()[..] else {
        panic!("one item for finance: {listed}")
    };
    assert_eq!(item["kind"], "reversed");
    assert_eq!(item["orderNo"], json!(order_no));
    assert_eq!(item["reference"], p["reference"]);
    assert_eq!(item["amount"], asked);
    assert_eq!(item["market"], "IN");
    let (audited,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_log WHERE action = 'payment.callback_reversed' AND entity_id = $1",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(audited, 1);

    // A refund of a payment never paid took nothing back.
    let unpaid =
        data(create_payment(&app, &session, &order_no, "due", "upi", "reversal-2").await).await;
    assert_eq!(
        outcome(
            razorpay_reversal(&app, "refund.processed", "rfnd_1", &unpaid, "auth_2", 500).await
        )
        .await,
        "ignored"
    );
    let listed = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(listed.as_array().unwrap().len(), 1);

    // The borrower paid twice through the gateway: the second capture is a payment of its own, held. Its refund,
    // whose notes still carry the first payment's reference, is the second payment's money, never the first's.
    assert_eq!(
        data(razorpay(&app, "capt_3", &p, asked, "INR").await).await["outcome"],
        "held"
    );
    assert_eq!(
        outcome(razorpay_reversal(&app, "refund.processed", "rfnd_3", &p, "capt_3", asked).await)
            .await,
        "reversed"
    );
    let listed = data(
        op_call(
            &app,
            &finance,
            Method::GET,
            "/api/v1/console/unmatched-receipts",
            None,
        )
        .await,
    )
    .await;
    let newest = &listed[0];
    assert_eq!(newest["orderNo"], json!(order_no));
    assert_ne!(
        newest["reference"], p["reference"],
        "the second payment's own reference"
    );
    app.stop().await;
}

/// Two transactions stamp the same provider payment id on payments of two different orders at once (each holds its
/// own order's lock): the one that commits second finds it taken and leaves its payment without it, never failing on
/// the unique column (on PostgreSQL both checks passed in their own snapshots and the second write hit the constraint,
/// a 500 the provider retried).
#[tokio::test]
async fn two_transactions_stamping_one_provider_id_on_two_payments_give_it_to_one() {
    let app = spawn_app().await;
    let mut ids = Vec::new();
    for key in ["stamp-race-1", "stamp-race-2"] {
        let Loan {
            session, order_no, ..
        } = app.borrower(IN).disbursed().await;
        let created =
            data(create_payment(&app, &session, &order_no, "due", "upi", key).await).await;
        ids.push(created["paymentId"].as_str().unwrap().to_owned());
    }
    let mut first = app.db.begin().await.unwrap();
    assert!(
        first
            .set_payment_provider_id(&ids[0], "pay_RACE1")
            .await
            .unwrap()
    );
    let second = {
        let (db, id) = (app.db.clone(), ids[1].clone());
        tokio::spawn(async move {
            let mut tx = db.begin().await.unwrap();
            let stamped = tx.set_payment_provider_id(&id, "pay_RACE1").await;
            tx.commit().await.unwrap();
            stamped
        })
    };
    // Long enough for the second to have checked and to wait on the first.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    first.commit().await.unwrap();
    assert!(
        !second.await.unwrap().unwrap(),
        "the id is the first payment's"
    );
    let (holders,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM payments WHERE provider_id = 'pay_RACE1'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(holders, 1);
    app.stop().await;
}
