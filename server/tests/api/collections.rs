//! Collections (issue 18 item 4): the overdue queue's buckets at every edge as the business date moves, its amounts
//! equal to the borrower's own plan, contact attempts refused outside each market's contact hours (both edges),
//! promises to pay kept, broken and open, the roles, and the audit trail.

use kilat_domain::Market;
use kilat_server::auth::operators::Role;
use kilat_server::jobs::overdue;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::{Date, Duration, Time};

use crate::builders::{ID, IN, Loan};
use crate::helpers::{TestApp, data, due_date, error, spawn_app, valid_steps};
use crate::servicing::{
    Op, check_ledger, confirm, create_payment, op_call, op_sign_in, operator, submit_utr,
};

/// Sets `market`'s local time to `hh:mm` on `date` through the development endpoint (India) or the clock (Indonesia).
async fn set_local(app: &TestApp, market: Market, date: Date, hh: u8, mm: u8) {
    if market == Market::India {
        let response = app
            .client
            .put(app.url("/api/v1/dev/business-date"))
            .json(&json!({"date": date.to_string(), "time": format!("{hh:02}:{mm:02}")}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
    } else {
        app.services
            .clock
            .set_local_time(market, date, Time::from_hms(hh, mm, 0).unwrap())
            .unwrap();
    }
    let local = market.local_time(app.services.clock.now());
    assert_eq!((local.hour(), local.minute()), (hh, mm));
}

/// The audit rows of one action on orders: (order id, actor id, after).
async fn audits(app: &TestApp, action: &str) -> Vec<(String, Option<String>, Option<String>)> {
    sqlx::query_as(
        "SELECT entity_id, actor_id, after_json FROM audit_log WHERE action = $1 AND entity = 'order' ORDER BY at, id",
    )
    .bind(action)
    .fetch_all(app.db.pool())
    .await
    .unwrap()
}

async fn get(app: &TestApp, op: &Op, path: &str) -> reqwest::Response {
    op_call(app, op, Method::GET, path, None).await
}

async fn post(app: &TestApp, op: &Op, path: &str, body: Value) -> reqwest::Response {
    op_call(app, op, Method::POST, path, Some(body)).await
}

async fn queue(app: &TestApp, op: &Op, query: &str) -> Value {
    let response = get(app, op, &format!("/api/v1/console/collections?{query}")).await;
    assert_eq!(response.status(), StatusCode::OK, "{query}");
    data(response).await
}

/// What the borrower's plan shows as overdue: the outstanding of each installment whose status is `overdue`.
fn overdue_of(plan: &Value) -> i64 {
    plan["installments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["status"] == "overdue")
        .map(|i| i["outstanding"]["total"].as_i64().unwrap())
        .sum()
}

#[tokio::test]
async fn the_queue_buckets_each_loan_by_days_past_due_at_every_edge_with_the_borrowers_own_amounts()
{
    let app = spawn_app().await;
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let Loan { order_no, plan, .. } = app.borrower(IN).phone("9876500501").disbursed().await;
    // An Indonesian loan, far past due, never shows in India's queue.
    let Loan {
        order_no: id_order_no,
        plan: id_plan,
        ..
    } = app.borrower(ID).disbursed().await;
    let due = due_date(&plan, 0);
    assert!(due_date(&id_plan, 0) <= due + Duration::days(1));

    // On the due date nothing is past due.
    app.set_date(due).await;
    drop(agent);
    let agent = op_sign_in(&app, "agent").await;
    let q = queue(&app, &agent, "market=IN").await;
    assert_eq!(q["total"], 0);
    assert_eq!(q["items"], json!([]));
    assert_eq!(q["today"], json!(due.to_string()));

    let edges = [
        (1, "1-7"),
        (7, "1-7"),
        (8, "8-30"),
        (30, "8-30"),
        (31, "31-60"),
        (60, "31-60"),
        (61, "61-90"),
        (90, "61-90"),
        (91, "90+"),
    ];
    for (days, bucket) in edges {
        let today = due + Duration::days(days);
        app.set_date(today).await;
        let report = overdue::run(&app.services, Market::India, today, "test")
            .await
            .unwrap();
        assert!(report.ran);
        let agent = op_sign_in(&app, "agent").await;
        let q = queue(&app, &agent, "market=IN").await;
        assert_eq!(q["total"], 1, "{days} days");
        let item = &q["items"][0];
        assert_eq!(item["orderNo"], json!(order_no));
        assert_eq!(item["daysPastDue"], days, "{days} days");
        assert_eq!(item["bucket"], bucket, "{days} days");
        assert_eq!(item["oldestDueDate"], json!(due.to_string()));
        for b in ["1-7", "8-30", "31-60", "61-90", "90+"] {
            let want = i64::from(b == bucket);
            assert_eq!(q["counts"][b], want, "{days} days, bucket {b}");
            let filtered = queue(
                &app,
                &agent,
                &format!("market=IN&bucket={}", b.replace('+', "%2B")),
            )
            .await;
            assert_eq!(filtered["total"], want, "{days} days, filter {b}");
            assert_eq!(filtered["items"].as_array().unwrap().len() as i64, want);
        }
        // The amounts are the borrower's own (signed in again: a session ends after 30 days unused).
        let session = app.sign_in("IN", "9876500501").await;
        let shown = app.plan_of(&session, &order_no).await;
        assert_eq!(
            item["outstanding"], shown["outstanding"]["total"],
            "{days} days"
        );
        assert_eq!(
            item["amountOverdue"],
            json!(overdue_of(&shown)),
            "{days} days"
        );
        assert!(item["amountOverdue"].as_i64().unwrap() > 0);
        assert_eq!(item["currency"], "INR");
        assert_eq!(item["phoneMasked"], "+91 ******0501");
        // The last reminder, from the outbox, with its delivery status.
        assert_eq!(item["lastReminder"]["kind"], "overdue", "{days} days");
        assert!(item["lastReminder"]["status"].is_string());
        assert!(
            !q.to_string().contains(&id_order_no),
            "the other market's loan is not listed"
        );
    }
    // Indonesia's queue holds the Indonesian loan only, in rupiah.
    let q = queue(&app, &op_sign_in(&app, "agent").await, "market=ID").await;
    assert_eq!(q["total"], 1);
    assert_eq!(q["items"][0]["orderNo"], json!(id_order_no));
    assert_eq!(q["items"][0]["currency"], "IDR");
}

#[tokio::test]
async fn the_queue_pages_and_sorts_by_days_past_due_and_checks_its_query() {
    let app = spawn_app().await;
    let Loan {
        order_no: first,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let due = due_date(&plan, 0);
    // A second loan a week later: fewer days past due.
    app.set_date(due - Duration::days(8)).await;
    let Loan {
        order_no: second,
        plan: plan2,
        ..
    } = app.borrower(IN).disbursed().await;
    assert!(due_date(&plan2, 0) > due);
    app.set_date(due + Duration::days(20)).await;
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let q = queue(&app, &agent, "market=IN").await;
    assert_eq!(q["total"], 2);
    assert_eq!(
        q["items"][0]["orderNo"],
        json!(first),
        "most days past due first"
    );
    assert_eq!(q["items"][1]["orderNo"], json!(second));
    let q = queue(&app, &agent, "market=IN&sort=dpd_asc").await;
    assert_eq!(q["items"][0]["orderNo"], json!(second));
    let q = queue(&app, &agent, "market=IN&pageSize=1&page=2").await;
    assert_eq!(q["total"], 2);
    assert_eq!(q["items"].as_array().unwrap().len(), 1);
    assert_eq!(q["items"][0]["orderNo"], json!(second));
    for bad in [
        "",
        "market=XX",
        "market=IN&bucket=5-9",
        "market=IN&sort=name",
        "market=IN&page=0",
        "market=IN&pageSize=500",
        "market=IN&page=abc",
    ] {
        let response = get(&app, &agent, &format!("/api/v1/console/collections?{bad}")).await;
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(response).await["fields"].is_object(), "{bad}");
    }
}

/// Logs a contact; the response.
async fn contact(app: &TestApp, op: &Op, order_no: &str, channel: &str) -> reqwest::Response {
    post(
        app,
        op,
        &format!("/api/v1/console/collections/{order_no}/contacts"),
        json!({"channel": channel, "outcome": "no_answer", "note": "Rang twice."}),
    )
    .await
}

/// A call made at 18:58 and logged at 19:01 is logged at 18:58, within the hours; an attempt logged with a time outside
/// them, later than now, or not a time of today is refused on `attemptedAt`; and a promise, made in a contact, is
/// refused outside the hours too.
#[tokio::test]
async fn an_attempt_logged_after_it_was_made_is_checked_and_recorded_at_its_own_time() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let Loan { order_no, plan, .. } = app.borrower(IN).disbursed().await;
    let day = app.services.clock.today(Market::India) + Duration::days(2);
    set_local(&app, Market::India, day, 19, 1).await;
    let agent = op_sign_in(&app, "agent").await;
    let path = format!("/api/v1/console/collections/{order_no}/contacts");
    let attempt = |at: &str| json!({"channel": "call", "outcome": "no_answer", "note": "Rang at the end of the day.", "attemptedAt": at});
    let logged = post(&app, &agent, &path, attempt("18:58")).await;
    assert_eq!(logged.status(), StatusCode::OK);
    let logged = data(logged).await;
    assert_eq!(logged["localTime"], "18:58");
    let at = Market::India
        .local_time(app.services.clock.now())
        .replace_time(Time::from_hms(18, 58, 0).unwrap());
    assert_eq!(logged["at"], json!(at.unix_timestamp() * 1000));
    // The hours of the attempt's own time (the market's words, with it); a time that is not one of today up to now.
    for (time, says) in [
        ("19:00", "19:00"),
        ("19:05", "18:45"),
        ("25:00", "18:45"),
        ("7:5", "18:45"),
        ("yesterday", "18:45"),
    ] {
        let refused = post(&app, &agent, &path, attempt(time)).await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY, "{time}");
        let text = error(refused).await["fields"]["attemptedAt"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(text.contains(says), "{time}: {text}");
    }
    // A promise is made in a contact: not outside the hours.
    let refused = promise(&app, &agent, &order_no, due_date(&plan, 0), 100_000).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        error(refused).await["fields"]["date"]
            .as_str()
            .unwrap()
            .contains("08:00–19:00")
    );
    app.stop().await;
}

#[tokio::test]
async fn calls_are_refused_outside_each_markets_contact_hours_at_both_edges() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let Loan {
        order_no: india,
        order_id: india_id,
        ..
    } = app.borrower(IN).disbursed().await;
    let Loan {
        order_no: indonesia,
        ..
    } = app.borrower(ID).disbursed().await;
    let day = app.services.clock.today(Market::India) + Duration::days(2);

    // India: 08:00 to 19:00 IST.
    set_local(&app, Market::India, day, 7, 59).await;
    let agent = op_sign_in(&app, "agent").await;
    // Every channel, an e-mail too: it reaches the same phone.
    for channel in ["call", "sms", "whatsapp", "email"] {
        let refused = contact(&app, &agent, &india, channel).await;
        assert_eq!(
            refused.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{channel}"
        );
        let body = error(refused).await;
        let text = body["fields"]["channel"].as_str().unwrap();
        assert!(
            text.contains("08:00–19:00") && text.contains("India") && text.contains("07:59"),
            "{text}"
        );
    }
    // Nor is the full number shown to call with: refused on `phone`, naming the hours.
    let phone_path = format!("/api/v1/console/collections/{india}/phone");
    let refused = post(&app, &agent, &phone_path, json!({})).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let text = error(refused).await["fields"]["phone"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("08:00–19:00") && text.contains("07:59"),
        "{text}"
    );
    assert!(audits(&app, "view_unmasked").await.is_empty());
    let case = data(
        get(
            &app,
            &agent,
            &format!("/api/v1/console/collections/{india}"),
        )
        .await,
    )
    .await;
    assert_eq!(case["contactHours"]["open"], false);
    assert_eq!(case["contactHours"]["localTime"], "07:59");
    assert_eq!(case["contactHours"]["timezone"], "Asia/Kolkata");
    set_local(&app, Market::India, day, 8, 0).await;
    let made = contact(&app, &agent, &india, "call").await;
    assert_eq!(made.status(), StatusCode::OK);
    let made = data(made).await;
    assert_eq!(made["localTime"], "08:00");
    assert_eq!(made["note"], "Rang twice.");
    assert_eq!(made["by"], "agent");
    assert_eq!(
        post(&app, &agent, &phone_path, json!({})).await.status(),
        StatusCode::OK
    );
    set_local(&app, Market::India, day, 18, 59).await;
    assert_eq!(
        contact(&app, &agent, &india, "whatsapp").await.status(),
        StatusCode::OK
    );
    set_local(&app, Market::India, day, 19, 0).await;
    let refused = contact(&app, &agent, &india, "call").await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        error(refused).await["fields"]["channel"]
            .as_str()
            .unwrap()
            .contains("19:00")
    );

    // Indonesia: 08:00 to 20:00 WIB.
    set_local(&app, Market::Indonesia, day, 7, 59).await;
    let agent = op_sign_in(&app, "agent").await;
    let refused = contact(&app, &agent, &indonesia, "call").await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let text = error(refused).await["fields"]["channel"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("08:00–20:00") && text.contains("Indonesia") && text.contains("07:59"),
        "{text}"
    );
    set_local(&app, Market::Indonesia, day, 8, 0).await;
    assert_eq!(
        contact(&app, &agent, &indonesia, "call").await.status(),
        StatusCode::OK
    );
    set_local(&app, Market::Indonesia, day, 19, 59).await;
    let agent = op_sign_in(&app, "agent").await;
    assert_eq!(
        contact(&app, &agent, &indonesia, "sms").await.status(),
        StatusCode::OK
    );
    set_local(&app, Market::Indonesia, day, 20, 0).await;
    assert_eq!(
        contact(&app, &agent, &indonesia, "call").await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    // India at that moment (18:30 IST) is within its own hours: the borrower's market's clock decides.
    assert_eq!(
        contact(&app, &agent, &india, "call").await.status(),
        StatusCode::OK
    );

    // Bad fields, each named.
    let bad = post(
        &app,
        &agent,
        &format!("/api/v1/console/collections/{india}/contacts"),
        json!({"channel": "pigeon", "outcome": "shrug", "note": "x".repeat(1001)}),
    )
    .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let fields = error(bad).await["fields"].clone();
    assert!(
        fields["channel"].is_string()
            && fields["outcome"].is_string()
            && fields["note"].is_string()
    );

    // The log, newest first, and every contact logged audited (refusals are not).
    let case = data(
        get(
            &app,
            &agent,
            &format!("/api/v1/console/collections/{india}"),
        )
        .await,
    )
    .await;
    let channels: Vec<&str> = case["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    // By the clock: India's 18:59 came after Indonesia's 20:00 (18:30 in India), both after the morning's.
    assert_eq!(channels, ["whatsapp", "call", "call"]);

    let audits = audits(&app, "collections.contact").await;
    assert_eq!(audits.len(), 5);
    assert!(audits.iter().filter(|a| a.0 == india_id).count() == 3);
    // The note is stored encrypted.
    let (stored,): (String,) = sqlx::query_as("SELECT note_enc FROM collection_contacts LIMIT 1")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert!(!stored.contains("Rang twice"));
}

async fn promise(
    app: &TestApp,
    op: &Op,
    order_no: &str,
    date: Date,
    amount: i64,
) -> reqwest::Response {
    post(
        app,
        op,
        &format!("/api/v1/console/collections/{order_no}/promises"),
        json!({"date": date.to_string(), "amount": amount}),
    )
    .await
}

async fn latest_promise(app: &TestApp, op: &Op, order_no: &str) -> Value {
    let case = data(get(app, op, &format!("/api/v1/console/collections/{order_no}")).await).await;
    case["promises"][0].clone()
}

#[tokio::test]
async fn promises_to_pay_are_open_until_kept_by_payments_or_broken_by_their_date() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    // Six monthly installments: paying the first leaves the loan open.
    let Loan {
        phone: kept_phone,
        order_no: kept_no,
        order_id: kept_id,
        plan,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let Loan {
        order_no: broken_no,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let due = due_date(&plan, 0);
    let today = due + Duration::days(3);
    set_local(&app, Market::India, today, 10, 0).await;
    overdue::run(&app.services, Market::India, today, "test")
        .await
        .unwrap();
    let agent = op_sign_in(&app, "agent").await;
    let session = app.sign_in("IN", &kept_phone).await;
    let shown = app.plan_of(&session, &kept_no).await;
    let overdue_now = overdue_of(&shown);
    let outstanding = shown["outstanding"]["total"].as_i64().unwrap();

    // The window and the amount are checked.
    for (date, amount, field) in [
        (today - Duration::days(1), 1000, "date"),
        (today + Duration::days(31), 1000, "date"),
        (today + Duration::days(2), 0, "amount"),
        (today + Duration::days(2), -5, "amount"),
        (today + Duration::days(2), outstanding + 1, "amount"),
    ] {
        let r = promise(&app, &agent, &kept_no, date, amount).await;
        assert_eq!(
            r.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{date} {amount}"
        );
        assert!(
            error(r).await["fields"][field].is_string(),
            "{date} {amount}"
        );
    }
    let r = post(
        &app,
        &agent,
        &format!("/api/v1/console/collections/{kept_no}/promises"),
        json!({"date": "5 Dec"}),
    )
    .await;
    let fields = error(r).await["fields"].clone();
    assert!(fields["date"].is_string() && fields["amount"].is_string());

    // Both edges of the window are accepted.
    let r = promise(&app, &agent, &broken_no, today, 1000).await;
    assert_eq!(r.status(), StatusCode::OK);
    // A second promise while one is open is refused; on the other loan, the 30th day is fine once it is broken.
    let r = promise(&app, &agent, &broken_no, today + Duration::days(30), 1000).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        error(r).await["fields"]["date"]
            .as_str()
            .unwrap()
            .contains(&today.to_string())
    );

    let by = today + Duration::days(2);
    let made = data(promise(&app, &agent, &kept_no, by, overdue_now).await).await;
    assert_eq!(made["state"], "open");
    assert_eq!(made["amount"], overdue_now);
    assert_eq!(made["date"], json!(by.to_string()));
    assert_eq!(made["madeOn"], json!(today.to_string()));
    assert_eq!(made["received"], 0);

    // The borrower pays what is due the next day: the promise is kept.
    app.set_date(today + Duration::days(1)).await;
    drop(finance);
    let agent = op_sign_in(&app, "agent").await;
    let session = app.sign_in("IN", &kept_phone).await;
    let fin = op_sign_in(&app, "fin").await;
    let payment =
        data(create_payment(&app, &session, &kept_no, "due", "upi", "promise-pay-1").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    assert!(amount >= overdue_now);
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "123456789012")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        latest_promise(&app, &agent, &kept_no).await["state"],
        "open",
        "not before finance confirms"
    );
    assert_eq!(
        confirm(&app, &fin, &payment_id, amount).await.status(),
        StatusCode::OK
    );
    let kept = latest_promise(&app, &agent, &kept_no).await;
    assert_eq!(kept["state"], "kept");
    assert_eq!(kept["received"], amount);
    // Kept stays kept after its date.
    app.set_date(by + Duration::days(5)).await;
    let agent = op_sign_in(&app, "agent").await;
    assert_eq!(
        latest_promise(&app, &agent, &kept_no).await["state"],
        "kept"
    );

    // The other loan: open on its date, broken the day after; then a new promise may be made.
    app.set_date(today).await;
    let agent = op_sign_in(&app, "agent").await;
    assert_eq!(
        latest_promise(&app, &agent, &broken_no).await["state"],
        "open"
    );
    set_local(&app, Market::India, today + Duration::days(1), 10, 0).await;
    let agent = op_sign_in(&app, "agent").await;
    let broken = latest_promise(&app, &agent, &broken_no).await;
    assert_eq!(broken["state"], "broken");
    let q = queue(&app, &agent, "market=IN").await;
    let listed = q["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["orderNo"] == json!(broken_no))
        .unwrap()
        .clone();
    assert_eq!(listed["promise"]["state"], "broken");
    let again = promise(&app, &agent, &broken_no, today + Duration::days(3), 1000).await;
    assert_eq!(again.status(), StatusCode::OK);

    // Audited, with the amount and date.
    let audits = audits(&app, "collections.promise").await;
    assert_eq!(audits.len(), 3);
    let kept_audit = audits.iter().find(|a| a.0 == kept_id).unwrap();
    let after: Value = serde_json::from_str(kept_audit.2.as_deref().unwrap()).unwrap();
    assert_eq!(after["amount"], overdue_now);
    assert_eq!(after["date"], json!(by.to_string()));
}

/// PRODUCT.md §7: collections log every attempt and promise to pay. A contact whose outcome is "promised" records
/// the promise with it, in one step, checked as any promise is; without one it is refused (the queue would never
/// follow up a promise nobody recorded), and a promise goes with no other outcome.
#[tokio::test]
async fn a_contact_logged_as_promised_records_its_promise_with_it() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let Loan {
        order_no,
        order_id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(2);
    set_local(&app, Market::India, today, 10, 0).await;
    let agent = op_sign_in(&app, "agent").await;
    let path = format!("/api/v1/console/collections/{order_no}/contacts");
    let by = today + Duration::days(3);
    let counts = async || -> (i64, i64) {
        let (contacts,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM collection_contacts WHERE order_id = $1")
                .bind(&order_id)
                .fetch_one(app.db.pool())
                .await
                .unwrap();
        let (promises,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM promises_to_pay WHERE order_id = $1")
                .bind(&order_id)
                .fetch_one(app.db.pool())
                .await
                .unwrap();
        (contacts, promises)
    };
    // Promised without a promise, with half of one, with a date out of the window, or a promise with another
    // outcome: refused on the promise's fields, nothing written.
    for (body, fields) in [
        (
            json!({"channel": "call", "outcome": "promised"}),
            vec!["promiseAmount", "promiseDate"],
        ),
        (
            json!({"channel": "call", "outcome": "promised", "promiseDate": by.to_string()}),
            vec!["promiseAmount"],
        ),
        (
            json!({"channel": "call", "outcome": "promised", "promiseDate": (today + Duration::days(31)).to_string(),
                "promiseAmount": 5000}),
            vec!["promiseDate"],
        ),
        (
            json!({"channel": "call", "outcome": "no_answer", "promiseDate": by.to_string(), "promiseAmount": 5000}),
            vec!["promiseDate"],
        ),
    ] {
        let refused = post(&app, &agent, &path, body.clone()).await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let error = error(refused).await;
        let mut got: Vec<&str> = error["fields"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        got.sort_unstable();
        assert_eq!(got, fields, "{body}");
    }
    assert_eq!(counts().await, (0, 0));

    let logged = post(
        &app,
        &agent,
        &path,
        json!({"channel": "call", "outcome": "promised", "note": "Salary on Friday.",
            "promiseDate": by.to_string(), "promiseAmount": 5000}),
    )
    .await;
    assert_eq!(logged.status(), StatusCode::OK);
    let logged = data(logged).await;
    assert_eq!(logged["outcome"], "promised");
    assert_eq!(logged["promise"]["amount"], 5000);
    assert_eq!(logged["promise"]["date"], json!(by.to_string()));
    assert_eq!(logged["promise"]["state"], "open");
    assert_eq!(counts().await, (1, 1));
    let promise_id = logged["promise"]["id"].as_str().unwrap();
    let logged_audit = audits(&app, "collections.contact").await;
    let after: Value = serde_json::from_str(logged_audit[0].2.as_deref().unwrap()).unwrap();
    assert_eq!(after["promiseId"], promise_id);
    assert_eq!(audits(&app, "collections.promise").await.len(), 1);
    // Another promised call while that promise is open: refused, naming it, nothing written.
    let again = post(
        &app,
        &agent,
        &path,
        json!({"channel": "call", "outcome": "promised", "promiseDate": by.to_string(), "promiseAmount": 5000}),
    )
    .await;
    assert_eq!(again.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(again).await["fields"]["promiseDate"].is_string());
    assert_eq!(counts().await, (1, 1));
    // Any other outcome is logged with no promise.
    let other = data(contact(&app, &agent, &order_no, "call").await).await;
    assert_eq!(other["promise"], Value::Null);
    assert_eq!(counts().await, (2, 1));
}

/// What collections recorded about a loan is the borrower's data: their export carries each contact with its outcome
/// and note (in clear, for them only) and each promise, and its readable page says so in their language; never who
/// recorded it.
#[tokio::test]
async fn the_borrowers_export_carries_what_collections_recorded_about_their_loan() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let Loan {
        session,
        order_no,
        plan,
        ..
    } = app.borrower(ID).disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(2);
    set_local(&app, Market::Indonesia, today, 10, 0).await;
    let agent = op_sign_in(&app, "agent").await;
    let by = today + Duration::days(3);
    let path = format!("/api/v1/console/collections/{order_no}/contacts");
    for body in [
        json!({"channel": "whatsapp", "outcome": "no_answer", "note": "Dua kali, tidak dijawab."}),
        json!({"channel": "call", "outcome": "promised", "promiseDate": by.to_string(), "promiseAmount": 50_000_000}),
    ] {
        assert_eq!(
            post(&app, &agent, &path, body).await.status(),
            StatusCode::OK
        );
    }
    let export = data(app.get_as("/api/v1/borrower/export", &session).await).await;
    let order = &export["sections"]["orders"][0];
    assert_eq!(order["orderNo"], json!(order_no));
    let contacts = order["collections"]["contacts"].as_array().unwrap();
    let seen: Vec<(&str, &str, &str)> = contacts
        .iter()
        .map(|c| {
            (
                c["channel"].as_str().unwrap(),
                c["outcome"].as_str().unwrap(),
                c["note"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("whatsapp", "no_answer", "Dua kali, tidak dijawab."),
            ("call", "promised", "")
        ]
    );
    // Every time with its readable twin on the market's clock.
    assert!(
        contacts[0]["createdAtText"]
            .as_str()
            .unwrap()
            .ends_with("WIB"),
        "{}",
        contacts[0]
    );
    let promises = order["collections"]["promises"].as_array().unwrap();
    assert_eq!(promises.len(), 1);
    assert_eq!(promises[0]["amount"], 50_000_000);
    assert_eq!(promises[0]["promisedOn"], json!(by.to_string()));
    assert!(
        !export.to_string().contains("agent"),
        "who recorded it is left out"
    );
    let page = export["summaryHtml"].as_str().unwrap();
    assert!(page.contains("Panggilan dan pesan kami tentang pembayaran yang terlambat"));
    assert!(page.contains("WhatsApp · Tidak dijawab"), "{page}");
    assert!(page.contains("Dua kali, tidak dijawab."));
    // The amount as the app writes it (a no-break space after "Rp"), by the promised day.
    let promised = "Anda berjanji membayar Rp\u{a0}500.000 paling lambat";
    assert!(page.contains(promised), "{page}");
}

#[tokio::test]
async fn a_burst_of_promises_records_one() {
    let app = spawn_app().await;
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let Loan {
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(2);
    set_local(&app, Market::India, today, 10, 0).await;
    drop(agent);
    let agent = op_sign_in(&app, "agent").await;
    let calls = (0..8).map(|_| promise(&app, &agent, &order_no, today + Duration::days(1), 5000));
    let answers = futures_util::future::join_all(calls).await;
    let ok = answers
        .iter()
        .filter(|r| r.status() == StatusCode::OK)
        .count();
    assert_eq!(ok, 1);
    assert!(answers
        .iter()
        .all(|r| r.status() == StatusCode::OK || r.status() == StatusCode::UNPROCESSABLE_ENTITY));
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM promises_to_pay WHERE order_id = $1")
        .bind(&id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(n, 1);
}

#[tokio::test]
async fn only_collections_and_admin_work_the_queue_and_collections_never_sees_ids_accounts_or_emergency_contacts()
 {
    let app = spawn_app().await;
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let admin = operator(&app, "boss", &[Role::Admin]).await;
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let support = operator(&app, "sup", &[Role::Support]).await;
    let Loan {
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).phone("9876500551").disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(4);
    // Within India's contact hours (the agent logs a contact and reveals the number).
    set_local(&app, Market::India, today, 11, 0).await;
    drop((agent, admin, reviewer, support));
    let [agent, admin, reviewer, support] = [
        op_sign_in(&app, "agent").await,
        op_sign_in(&app, "boss").await,
        op_sign_in(&app, "rev").await,
        op_sign_in(&app, "sup").await,
    ];
    let base = format!("/api/v1/console/collections/{order_no}");
    for op in [&reviewer, &support] {
        assert_eq!(
            get(&app, op, "/api/v1/console/collections?market=IN")
                .await
                .status(),
            StatusCode::FORBIDDEN
        );
        assert_eq!(get(&app, op, &base).await.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            post(&app, op, &format!("{base}/phone"), json!({}))
                .await
                .status(),
            StatusCode::FORBIDDEN
        );
        let r = post(
            &app,
            op,
            &format!("{base}/contacts"),
            json!({"channel": "email", "outcome": "reached"}),
        )
        .await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        let r = post(
            &app,
            op,
            &format!("{base}/promises"),
            json!({"date": today.to_string(), "amount": 100}),
        )
        .await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
        // The order view's history is theirs to read.
        assert_eq!(
            get(&app, op, &format!("{base}/history")).await.status(),
            StatusCode::OK
        );
    }
    for op in [&agent, &admin] {
        assert_eq!(queue(&app, op, "market=IN").await["total"], 1);
        assert_eq!(get(&app, op, &base).await.status(), StatusCode::OK);
        let r = post(
            &app,
            op,
            &format!("{base}/contacts"),
            json!({"channel": "email", "outcome": "left_message"}),
        )
        .await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    // The queue shows the loan's newest contact only (the admin's, logged after the agent's).
    let q = queue(&app, &agent, "market=IN").await;
    assert_eq!(q["items"][0]["lastContact"]["by"], "boss", "{q}");
    // Collections has no order view (it carries the certification), and its own answers carry none of it.
    assert_eq!(
        get(&app, &agent, &format!("/api/v1/console/orders/{order_no}"))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    let mut seen = queue(&app, &agent, "market=IN").await.to_string();
    seen.push_str(&data(get(&app, &agent, &base).await).await.to_string());
    seen.push_str(
        &data(get(&app, &agent, &format!("{base}/history")).await)
            .await
            .to_string(),
    );
    for (_step, body) in valid_steps("IN") {
        for key in [
            "idNumber",
            "accountNumber",
            "ifsc",
            "contact1Phone",
            "contact2Phone",
            "contact1Name",
            "contact2Name",
            "fullName",
        ] {
            if let Some(value) = body[key].as_str() {
                assert!(
                    !seen.contains(value),
                    "{key} {value} is shown to collections"
                );
                assert!(
                    !seen.contains(&value.replace(' ', "")),
                    "{key} {value} is shown to collections"
                );
            }
        }
    }
    assert!(
        !seen.contains("contact1")
            && !seen.contains("emergency")
            && !seen.contains("certification")
    );
    assert!(seen.contains("+91 ******0551"));
    assert!(!seen.contains("9876500551"));

    // The full number on request, audited before it is shown.
    assert!(audits(&app, "view_unmasked").await.is_empty());
    let phone = data(post(&app, &agent, &format!("{base}/phone"), json!({})).await).await;
    assert_eq!(phone["phone"], "+919876500551");
    let audits = audits(&app, "view_unmasked").await;
    assert_eq!(audits.len(), 1);
    assert_eq!(audits[0].0, id);
    assert_eq!(audits[0].2.as_deref(), Some(r#"{"field":"phone"}"#));

    // A closed or unknown loan.
    assert_eq!(
        get(&app, &agent, "/api/v1/console/collections/KL-000000-XXXXXX")
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
}

/// Makes a loan's position as one written before migration 0044 left it: the arrears date only.
async fn forget_position(app: &TestApp, order_id: &str) {
    sqlx::query(
        "UPDATE loan_arrears SET balances_json = NULL, outstanding = NULL WHERE order_id = $1",
    )
    .bind(order_id)
    .execute(app.db.pool())
    .await
    .unwrap();
}

/// Each loan's position is kept beside its ledger (migration 0044) and the queues read it instead of replaying; a loan
/// without one (written before the migration) is replayed by the queues and given one by the overdue job's next
/// sweep; the bucket counts, kept between requests, follow a payment at once.
#[tokio::test]
async fn the_queues_read_each_loans_kept_position_replay_a_loan_without_one_and_count_a_payment_at_once()
 {
    let app = spawn_app().await;
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let fin = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        phone,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(3);
    app.set_date(today).await;
    let report = overdue::run(&app.services, Market::India, today, "test")
        .await
        .unwrap();
    assert_eq!(
        report.late_charges, 1,
        "the late charge is read from the position"
    );
    let session = app.sign_in("IN", &phone).await;
    check_ledger(&app, &session, &order_no, &id).await;
    drop((agent, fin));
    let agent = op_sign_in(&app, "agent").await;
    let kept = queue(&app, &agent, "market=IN").await;
    assert_eq!(kept["total"], 1);
    assert_eq!(kept["counts"]["1-7"], 1);
    let item = kept["items"][0].clone();
    assert_eq!(item["orderNo"], json!(order_no));
    assert!(item["amountOverdue"].as_i64().unwrap() > 0);

    // As a loan paid out before migration 0044: no position but its arrears date.
    forget_position(&app, &id).await;
    let replayed = queue(&app, &agent, "market=IN").await;
    assert_eq!(replayed["items"][0], item, "the same figures, replayed");
    let position = || app.position_json(&id);
    assert_eq!(position().await, None, "reading writes nothing");

    // The next day's sweep gives it its position back (check_ledger compares it with the replay).
    let tomorrow = today + Duration::days(1);
    app.set_date(tomorrow).await;
    let report = overdue::run(&app.services, Market::India, tomorrow, "test")
        .await
        .unwrap();
    assert!(report.ran);
    assert!(position().await.is_some());
    let session = app.sign_in("IN", &phone).await;
    check_ledger(&app, &session, &order_no, &id).await;

    // Finance's queue replays a loan without a position as well.
    forget_position(&app, &id).await;
    let agent = op_sign_in(&app, "agent").await;
    let fin = op_sign_in(&app, "fin").await;
    let counted = queue(&app, &agent, "market=IN").await;
    assert_eq!(counted["counts"]["1-7"], 1);
    let payment =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "position-pay-1").await)
            .await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    assert_eq!(
        amount, counted["items"][0]["outstanding"],
        "the payoff is all that is owed"
    );
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "223456789012")
            .await
            .status(),
        StatusCode::OK
    );
    let waiting = data(get(&app, &fin, "/api/v1/console/payments?market=IN").await).await;
    let row = waiting
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["payment"]["paymentId"] == json!(payment_id))
        .expect("the payment waits for finance")
        .clone();
    assert_eq!(row["outstanding"], amount, "replayed for finance");

    // Paid off: the queue and its counts show it at once, though the counts were kept a moment ago.
    assert_eq!(
        confirm(&app, &fin, &payment_id, amount).await.status(),
        StatusCode::OK
    );
    let after = queue(&app, &agent, "market=IN").await;
    assert_eq!(after["total"], 0);
    assert_eq!(
        after["counts"]["1-7"], 0,
        "the kept counts followed the payment"
    );
    assert_eq!(after["items"], json!([]));
    check_ledger(&app, &session, &order_no, &id).await;
}

/// A borrower who paid, or says so, is not chased: a payment waiting for finance (here a UTR sent for the overdue
/// installment) is on the collections panel with what it covers, the queue marks the loan, and a promise whose date
/// passes while it waits is `waiting`, not broken. Once finance confirms it, the promise is kept (the payment was made
/// by its date, though credited after it); once finance rejects it, broken.
#[tokio::test]
async fn a_payment_waiting_for_finance_is_shown_to_collections_and_does_not_break_a_promise() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    for (n, decision, state) in [(1, "confirm", "kept"), (2, "reject", "broken")] {
        let Loan {
            phone,
            order_no,
            plan,
            ..
        } = app
            .borrower(IN)
            .loan("in-flexi-6m", 2_000_000, "m6")
            .disbursed()
            .await;
        let due = due_date(&plan, 0);
        let today = due + Duration::days(3);
        set_local(&app, Market::India, today, 10, 0).await;
        app.run_overdue(Market::India).await;
        let session = app.sign_in("IN", &phone).await;
        let agent = op_sign_in(&app, "agent").await;
        assert_eq!(
            promise(&app, &agent, &order_no, today, 1000).await.status(),
            StatusCode::OK
        );
        let case_path = format!("/api/v1/console/collections/{order_no}");
        let case = data(get(&app, &agent, &case_path).await).await;
        assert_eq!(case["waitingPayments"], json!([]));

        // The borrower pays the installment by UPI and sends the UTR the same day; finance has yet to check it.
        let payment = data(
            create_payment(
                &app,
                &session,
                &order_no,
                "due",
                "upi",
                &format!("wait-key-000{n}"),
            )
            .await,
        )
        .await;
        let payment_id = payment["paymentId"].as_str().unwrap();
        assert_eq!(
            submit_utr(&app, &session, payment_id, &format!("32345678901{n}"))
                .await
                .status(),
            StatusCode::OK
        );
        app.set_date(today + Duration::days(1)).await;
        let agent = op_sign_in(&app, "agent").await;
        let case = data(get(&app, &agent, &case_path).await).await;
        let waiting = &case["waitingPayments"];
        assert_eq!(waiting.as_array().unwrap().len(), 1, "{case}");
        assert_eq!(waiting[0]["status"], "verifying");
        assert_eq!(waiting[0]["reference"], payment["reference"]);
        assert_eq!(waiting[0]["amount"], payment["amount"]);
        assert_eq!(waiting[0]["installment"], 1);
        assert_eq!(case["promises"][0]["state"], "waiting", "{case}");
        let listed = queue(&app, &agent, "market=IN").await;
        let item = listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["orderNo"] == order_no.as_str())
            .unwrap()
            .clone();
        assert_eq!(item["paymentWaiting"], true, "{item}");
        assert_eq!(item["promise"]["state"], "waiting");

        // Finance decides, the day after the promise's date.
        let finance = operator(&app, &format!("fin{n}"), &[Role::Finance]).await;
        let decided = if decision == "confirm" {
            confirm(
                &app,
                &finance,
                payment_id,
                payment["amount"].as_i64().unwrap(),
            )
            .await
        } else {
            op_call(
                &app,
                &finance,
                Method::POST,
                &format!("/api/v1/console/payments/{payment_id}/reject"),
                Some(json!({"reason": "No such credit on the statement."})),
            )
            .await
        };
        assert_eq!(decided.status(), StatusCode::OK, "{decision}");
        let case = data(get(&app, &agent, &case_path).await).await;
        assert_eq!(case["waitingPayments"], json!([]));
        assert_eq!(case["promises"][0]["state"], state, "{decision}: {case}");
    }
    app.stop().await;
}

/// A promise broken by its date stays broken when the borrower pays the loan off weeks later: the promise log is not
/// rewritten as kept because nothing is owed today.
#[tokio::test]
async fn a_broken_promise_stays_broken_when_the_loan_is_paid_off_later() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        phone,
        order_no,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let today = due_date(&plan, 0) + Duration::days(3);
    set_local(&app, Market::India, today, 10, 0).await;
    overdue::run(&app.services, Market::India, today, "test")
        .await
        .unwrap();
    let agent = op_sign_in(&app, "agent").await;
    let by = today + Duration::days(2);
    assert_eq!(
        promise(&app, &agent, &order_no, by, 1000).await.status(),
        StatusCode::OK
    );
    let later = by + Duration::days(10);
    app.set_date(later).await;
    let agent = op_sign_in(&app, "agent").await;
    assert_eq!(
        latest_promise(&app, &agent, &order_no).await["state"],
        "broken"
    );

    // Paid off ten days after the promise's date.
    let session = app.sign_in("IN", &phone).await;
    let fin = op_sign_in(&app, "fin").await;
    let payment =
        data(create_payment(&app, &session, &order_no, "payoff", "upi", "late-payoff-1").await)
            .await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, payment_id, "123456789013")
            .await
            .status(),
        StatusCode::OK
    );
    let amount = payment["amount"].as_i64().unwrap();
    let done = data(confirm(&app, &fin, payment_id, amount).await).await;
    assert_eq!(done["orderStatus"], "repaid");
    let agent = op_sign_in(&app, "agent").await;
    let shown = latest_promise(&app, &agent, &order_no).await;
    assert_eq!(shown["state"], "broken", "{shown}");
    assert_eq!(shown["received"], 0);
    // A repaid loan is not collections' to call: its borrower's number is not revealed (even within the hours).
    set_local(&app, Market::India, later, 11, 0).await;
    let agent = op_sign_in(&app, "agent").await;
    let refused = post(
        &app,
        &agent,
        &format!("/api/v1/console/collections/{order_no}/phone"),
        json!({}),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert!(audits(&app, "view_unmasked").await.is_empty());
}

/// Only money paid after a promise was recorded counts towards it: a payment made that morning, confirmed before the
/// call, or a UTR sent before the call and confirmed after it, does not keep a promise made later that day (it was
/// not the promise kept); a payment made after the promise does.
#[tokio::test]
async fn money_paid_before_a_promise_was_made_does_not_keep_it() {
    let app = spawn_app().await;
    operator(&app, "agent", &[Role::Collections]).await;
    let fin = operator(&app, "fin", &[Role::Finance]).await;
    let Loan {
        phone,
        order_no,
        plan,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let today = due_date(&plan, 0) + Duration::days(3);
    set_local(&app, Market::India, today, 9, 0).await;
    app.run_overdue(Market::India).await;
    let session = app.sign_in("IN", &phone).await;
    let agent = op_sign_in(&app, "agent").await;
    let fin = {
        drop(fin);
        op_sign_in(&app, "fin").await
    };

    // 09:00: the borrower pays the overdue installment by UPI and sends the UTR; finance has yet to check it.
    let morning =
        data(create_payment(&app, &session, &order_no, "due", "upi", "before-call-1").await).await;
    let morning_id = morning["paymentId"].as_str().unwrap().to_owned();
    assert_eq!(
        submit_utr(&app, &session, &morning_id, "423456789012")
            .await
            .status(),
        StatusCode::OK
    );
    // 15:00: the agent calls and records a promise for the next installment's money by the day after tomorrow.
    set_local(&app, Market::India, today, 15, 0).await;
    let by = today + Duration::days(2);
    let made = data(promise(&app, &agent, &order_no, by, 1000).await).await;
    assert_eq!(made["state"], "open", "{made}");
    // Finance confirms the morning's UTR after the call: still not the promise kept.
    assert_eq!(
        confirm(&app, &fin, &morning_id, morning["amount"].as_i64().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    let shown = latest_promise(&app, &agent, &order_no).await;
    assert_eq!(shown["state"], "open", "{shown}");
    assert_eq!(shown["received"], 0);
    // Past its date with nothing new paid it is broken, not waiting on the morning's payment.
    set_local(&app, Market::India, by + Duration::days(1), 10, 0).await;
    let agent = op_sign_in(&app, "agent").await;
    let shown = latest_promise(&app, &agent, &order_no).await;
    assert_eq!(shown["state"], "broken", "{shown}");

    // During the next call the borrower opens the pay screen; the agent records a new promise; the borrower pays
    // (sends the UTR) after it: the money was paid after the promise, so it keeps it.
    let later = by + Duration::days(1);
    let session = app.sign_in("IN", &phone).await;
    let paid =
        data(create_payment(&app, &session, &order_no, "due", "upi", "after-call-1").await).await;
    let paid_id = paid["paymentId"].as_str().unwrap().to_owned();
    set_local(&app, Market::India, later, 10, 5).await;
    let agent = op_sign_in(&app, "agent").await;
    let again = data(promise(&app, &agent, &order_no, later + Duration::days(2), 1000).await).await;
    assert_eq!(again["state"], "open", "{again}");
    set_local(&app, Market::India, later, 11, 0).await;
    let session = app.sign_in("IN", &phone).await;
    let fin = op_sign_in(&app, "fin").await;
    assert_eq!(
        submit_utr(&app, &session, &paid_id, "423456789013")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        confirm(&app, &fin, &paid_id, paid["amount"].as_i64().unwrap())
            .await
            .status(),
        StatusCode::OK
    );
    let agent = op_sign_in(&app, "agent").await;
    let shown = latest_promise(&app, &agent, &order_no).await;
    assert_eq!(shown["state"], "kept", "{shown}");
    assert_eq!(shown["received"], paid["amount"]);
    app.stop().await;
}
