//! The dashboard of the book (issue 18 item 10): known loans in known states (current, past due, closed by a payoff,
//! exited in cooling-off, extended, one application rejected) give exact figures: the outstanding principal now and day
//! by day, the loans and amounts of each days-past-due bucket (the collections' buckets, the borrower's own amounts),
//! the book by product, the collection and approval rates' parts, and the apply-to-payout times against India's
//! promise of 2 hours. Finance reads it too; other roles do not.

use kilat_domain::{Market, OrderEvent};
use kilat_server::auth::operators::Role;
use kilat_server::jobs::overdue;
use kilat_server::orders::{self, Actor};
use kilat_server::store::dashboard::Window;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use time::Duration;

use crate::builders::{Application, IN, Loan};
use crate::helpers::{TestApp, data, spawn_app};
use crate::servicing::{
    Op, check_ledger, confirm, create_payment, op_call, operator, status_of, submit_utr,
};

/// Pays a payment by UPI with a UTR that finance confirms; the amount confirmed.
async fn pay(app: &TestApp, finance: &Op, session: &str, payment: &Value, utr: &str) -> i64 {
    let id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(app, session, id, utr).await.status(),
        StatusCode::OK
    );
    let amount = payment["amount"].as_i64().unwrap();
    assert_eq!(
        confirm(app, finance, id, amount).await.status(),
        StatusCode::OK
    );
    amount
}

async fn payment(app: &TestApp, session: &str, order_no: &str, choice: &str, key: &str) -> Value {
    let response = create_payment(app, session, order_no, choice, "upi", key).await;
    assert_eq!(response.status(), StatusCode::OK, "{choice}");
    data(response).await
}

/// Sets the application time of an order to `minutes` before its payout.
async fn applied_before_payout(app: &TestApp, id: &str, minutes: i64) {
    app.execute(&format!(
        "UPDATE orders SET created_at = (SELECT p.created_at FROM payouts p WHERE p.order_id = orders.id) - {}
         WHERE id = '{id}'",
        minutes * 60_000
    ))
    .await;
}

/// The dashboard as `op` reads it; read again once the worker's job has kept the ended days (migration 0045), which
/// must give the same board.
async fn board(app: &TestApp, op: &Op, market: &str) -> Value {
    let read = || async {
        let response = op_call(
            app,
            op,
            Method::GET,
            &format!("/api/v1/console/dashboard?market={market}"),
            None,
        )
        .await;
        assert_eq!(response.status(), StatusCode::OK);
        data(response).await
    };
    let computed = read().await;
    let which = if market == "IN" {
        Market::India
    } else {
        Market::Indonesia
    };
    kilat_server::jobs::dashboard_days::run(&app.services, which)
        .await
        .unwrap();
    assert_eq!(read().await, computed, "the board read from the kept days");
    // The book kept as the loans changed (migration 0052) is the book counted from the positions: with its moves
    // folded by the worker, and counted again from nothing.
    app.db.fold_book().await.unwrap();
    assert_eq!(app.db.book_moves_waiting().await.unwrap(), 0);
    assert_eq!(
        read().await,
        computed,
        "the board with the book's moves folded"
    );
    app.count_book().await;
    assert_eq!(
        read().await,
        computed,
        "the board with the book counted again"
    );
    computed
}

/// The timeline's changes look each entry's status before up once (`WITH … AS MATERIALIZED`): with `moves` inlined,
/// both databases ran the lookup once for each of the two sums that use it (docs/PERFORMANCE.md, "Dashboard of the
/// book").
#[tokio::test]
async fn the_timeline_changes_look_each_status_before_up_once() {
    let app = spawn_app().await;
    let plan = app
        .db
        .dashboard_status_changes_plan(Window {
            market: "IN",
            offset_ms: 19_800_000,
            first_day: 20_400,
            last_day: 20_429,
        })
        .await
        .unwrap();
    let lookups = plan
        .iter()
        .filter(|step| step.contains("SubPlan") || step.contains("CORRELATED SCALAR SUBQUERY"))
        .count();
    assert_eq!(lookups, 1, "{}", plan.join("\n"));
    app.stop().await;
}

#[tokio::test]
async fn the_book_is_counted_exactly_from_known_loans_in_known_buckets() {
    let app = spawn_app().await;
    // A: paid out first, then 10 days past due (bucket 8-30).
    let Loan {
        phone: a_phone,
        order_no: a_no,
        order_id: a_id,
        plan: a_plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let payout_day = app.services.clock.today(Market::India);
    let due = kilat_server::store::loans::parse_date(
        a_plan["installments"][0]["dueDate"].as_str().unwrap(),
    )
    .unwrap();
    let today = due + Duration::days(10);
    app.set_date(today).await;
    assert!(
        overdue::run(&app.services, Market::India, today, "test")
            .await
            .unwrap()
            .ran
    );
    let finance = operator(&app, "fin1", &[Role::Finance]).await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;

    // B: current. C: closed by a payoff. D: exited in cooling-off. E: extended once, current.
    let Loan {
        session: b_session,
        order_no: b_no,
        order_id: b_id,
        ..
    } = app.borrower(IN).amount(1_500_000).disbursed().await;
    let Loan {
        session: c_session,
        order_no: c_no,
        order_id: c_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    // C sends ₹50 more than the payoff: finance holds it, then credits it; the ₹50 is owed back, never repaid.
    let c_payoff = payment(&app, &c_session, &c_no, "payoff", "dash-payoff").await;
    let c_payment = c_payoff["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &c_session, c_payment, "500000000801")
            .await
            .status(),
        StatusCode::OK
    );
    let c_paid = c_payoff["amount"].as_i64().unwrap();
    for _ in 0..2 {
        assert_eq!(
            confirm(&app, &finance, c_payment, c_paid + 5_000)
                .await
                .status(),
            StatusCode::OK
        );
    }
    assert_eq!(status_of(&app, &c_id).await, "repaid");
    let Loan {
        session: d_session,
        order_no: d_no,
        order_id: d_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-6m", 2_000_000, "m6")
        .disbursed()
        .await;
    let d_paid = pay(
        &app,
        &finance,
        &d_session,
        &payment(&app, &d_session, &d_no, "cooling_off", "dash-exit").await,
        "500000000802",
    )
    .await;
    assert_eq!(status_of(&app, &d_id).await, "exited_in_cooling_off");
    let Loan {
        session: e_session,
        order_no: e_no,
        order_id: e_id,
        ..
    } = app
        .borrower(IN)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let accepted = app
        .client
        .post(app.url(&format!("/api/v1/borrower/orders/{e_no}/extension")))
        .header("x-session-id", &e_session)
        .header("idempotency-key", "dash-ext")
        .json(&json!({"method": "upi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::OK);
    let e_fee = pay(
        &app,
        &finance,
        &e_session,
        &data(accepted).await,
        "500000000803",
    )
    .await;
    let e_plan = check_ledger(&app, &e_session, &e_no, &e_id).await;
    assert_eq!(e_plan["extensionsGranted"], 1);
    // F: an application rejected today.
    let Application { order_id: f_id, .. } = app.borrower(IN).applied().await;
    orders::apply(
        &app.services,
        &f_id,
        OrderEvent::Reject,
        &Actor::Operator("reviewer-1".into()),
    )
    .await
    .unwrap();
    // Application to payout: A 30 minutes, D exactly 2 hours, C 2 h 5 min, E 2 h 30 min, B 3 hours.
    for (id, minutes) in [
        (&a_id, 30),
        (&d_id, 120),
        (&c_id, 125),
        (&e_id, 150),
        (&b_id, 180),
    ] {
        applied_before_payout(&app, id, minutes).await;
    }

    // The borrowers' own figures.
    let a_plan = check_ledger(&app, &app.sign_in("IN", &a_phone).await, &a_no, &a_id).await;
    let b_plan = check_ledger(&app, &b_session, &b_no, &b_id).await;
    let principal = |plan: &Value| plan["outstanding"]["principal"].as_i64().unwrap();
    assert_eq!(principal(&a_plan), 1_000_000);
    assert_eq!(principal(&b_plan), 1_500_000);
    assert_eq!(principal(&e_plan), 1_000_000);
    let a_owed = a_plan["outstanding"]["total"].as_i64().unwrap();
    assert!(a_owed > 1_000_000, "interest and late charges on top");

    let got = board(&app, &admin, "IN").await;
    assert_eq!(got["today"], json!(today.to_string()));
    assert_eq!(got["book"]["openLoans"], 3);
    assert_eq!(got["book"]["outstandingPrincipal"], 3_500_000);
    assert_eq!(
        got["book"]["buckets"],
        json!([
            {"bucket": "current", "loans": 2, "outstandingPrincipal": 2_500_000,
             "owed": b_plan["outstanding"]["total"].as_i64().unwrap() + e_plan["outstanding"]["total"].as_i64().unwrap()},
            {"bucket": "1-7", "loans": 0, "outstandingPrincipal": 0, "owed": 0},
            {"bucket": "8-30", "loans": 1, "outstandingPrincipal": 1_000_000, "owed": a_owed},
            {"bucket": "31-60", "loans": 0, "outstandingPrincipal": 0, "owed": 0},
            {"bucket": "61-90", "loans": 0, "outstandingPrincipal": 0, "owed": 0},
            {"bucket": "90+", "loans": 0, "outstandingPrincipal": 0, "owed": 0},
        ])
    );
    // The collections queue counts the same loan in the same bucket.
    let agent = operator(&app, "agent", &[Role::Collections]).await;
    let queue = data(
        op_call(
            &app,
            &agent,
            Method::GET,
            "/api/v1/console/collections?market=IN",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(queue["counts"]["8-30"], 1);
    assert_eq!(queue["items"][0]["orderNo"], json!(a_no));
    assert_eq!(queue["items"][0]["outstanding"], json!(a_owed));

    let products = got["book"]["products"].as_array().unwrap();
    let codes: Vec<&str> = products
        .iter()
        .map(|p| p["productCode"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        ["in-flexi-14d", "in-salary-advance"],
        "closed loans' products are not in the book"
    );
    let pick = |code: &str| {
        let p = products.iter().find(|p| p["productCode"] == code).unwrap();
        (
            p["loans"].as_i64().unwrap(),
            p["outstandingPrincipal"].as_i64().unwrap(),
            p["overdueLoans"].as_i64().unwrap(),
            p["overduePrincipal"].as_i64().unwrap(),
        )
    };
    assert_eq!(pick("in-salary-advance"), (2, 2_500_000, 1, 1_000_000));
    assert_eq!(pick("in-flexi-14d"), (1, 1_000_000, 0, 0));
    assert!(products.iter().all(|p| p["productName"].is_string()));

    // The outstanding principal day by day: nothing before A's payout, A's principal from then, the three open loans
    // today (C and D were paid out and ended today).
    let days = got["days"].as_array().unwrap();
    let a_index = 29 - usize::try_from((today - payout_day).whole_days()).unwrap();
    assert_eq!(days[a_index]["date"], json!(payout_day.to_string()));
    let trend: Vec<i64> = days
        .iter()
        .map(|d| d["outstandingPrincipal"].as_i64().unwrap())
        .collect();
    for (i, value) in trend.iter().enumerate() {
        let want = if i < a_index {
            0
        } else if i < 29 {
            1_000_000
        } else {
            3_500_000
        };
        assert_eq!(*value, want, "day {i}");
    }

    // Collected: the payoff, the exit and the extension fee, as the days' repaid; past due: what A owes.
    let repaid: i64 = days.iter().map(|d| d["repaid"].as_i64().unwrap()).sum();
    assert_eq!(
        got["rates"],
        json!({"collected": repaid, "pastDueOwed": a_owed, "approved": 5, "rejected": 1})
    );
    assert_eq!(repaid, c_paid + d_paid + e_fee);

    // A reversal of D's exit, today: its cash, the negation, comes off the day's repaid (and off nothing else).
    app.execute(&format!(
        "INSERT INTO ledger_entries (id, order_id, seq, kind, on_date, cash, excess, refunded, reverses, payment_id,
                                     created_at)
         SELECT 'dash-reversal', order_id, seq + 1, 'reversal', on_date, -cash, 0, 0, seq, NULL, created_at
         FROM ledger_entries WHERE order_id = '{d_id}' AND kind = 'cooling_off_exit'"
    ))
    .await;
    let reversed = board(&app, &finance, "IN").await;
    let sum_of = |board: &Value, key: &str| -> i64 {
        board["days"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d[key].as_i64().unwrap())
            .sum()
    };
    assert_eq!(sum_of(&reversed, "repaid"), c_paid + e_fee);
    assert_eq!(sum_of(&reversed, "paidOut"), sum_of(&got, "paidOut"));
    app.execute("DELETE FROM ledger_entries WHERE id = 'dash-reversal'")
        .await;

    // Five payouts: 30, 120, 125, 150, 180 minutes; the median 125 is over the promise, two were within 2 hours.
    assert_eq!(
        got["payoutTimes"],
        json!({"payouts": 5, "withinTwoHours": 2, "medianMinutes": 125, "promiseMinutes": 120,
               "promiseMet": false})
    );
    // With B and E within the promise too, the median is met.
    applied_before_payout(&app, &b_id, 10).await;
    applied_before_payout(&app, &e_id, 100).await;
    let got = board(&app, &finance, "IN").await;
    assert_eq!(
        got["payoutTimes"],
        json!({"payouts": 5, "withinTwoHours": 4, "medianMinutes": 100, "promiseMinutes": 120,
               "promiseMet": true})
    );

    // Positions without their amounts, or none at all (written before migrations 0044 and 0046, or 0034): the first
    // start after migration 0052 writes them from the ledgers before it counts the book. The same book.
    app.execute("UPDATE loan_arrears SET outstanding = NULL, outstanding_principal = NULL")
        .await;
    app.execute(&format!(
        "DELETE FROM loan_arrears WHERE order_id = '{b_id}'"
    ))
    .await;
    app.execute("INSERT INTO book_count_pending (id) VALUES (1)")
        .await;
    let now = app.services.clock.now_ms();
    let counted = kilat_server::dashboard::book::count_once(&app.db, now)
        .await
        .unwrap();
    assert!(counted.is_some_and(|rows| rows > 0), "{counted:?}");
    assert_eq!(
        kilat_server::dashboard::book::count_once(&app.db, now)
            .await
            .unwrap(),
        None,
        "counted once"
    );
    let (unpositioned,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM orders o LEFT JOIN loan_arrears a ON a.order_id = o.id
         WHERE o.status IN ('disbursed', 'overdue') AND (a.outstanding IS NULL OR a.outstanding_principal IS NULL)",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(unpositioned, 0);
    assert_eq!(board(&app, &finance, "IN").await["book"], got["book"]);

    // Indonesia: none of India's loans, and no promise of a time.
    let id = board(&app, &admin, "ID").await;
    assert_eq!(id["currency"], "IDR");
    assert_eq!(id["book"]["openLoans"], 0);
    assert_eq!(id["book"]["outstandingPrincipal"], 0);
    assert_eq!(id["book"]["buckets"].as_array().unwrap().len(), 6);
    assert_eq!(id["book"]["products"], json!([]));
    assert_eq!(
        id["payoutTimes"],
        json!({"payouts": 0, "withinTwoHours": 0, "medianMinutes": null, "promiseMinutes": null,
               "promiseMet": null})
    );
    assert_eq!(
        id["rates"],
        json!({"collected": 0, "pastDueOwed": 0, "approved": 0, "rejected": 0})
    );
    assert!(
        id["days"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["outstandingPrincipal"] == 0)
    );

    // The development clock moved back to A's payout day: the days kept from then on are forgotten (they will be lived
    // again), the days before it stay.
    let kept_from = |day: time::Date| {
        let app = &app;
        async move {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM dashboard_days WHERE market = 'IN' AND day >= $1",
            )
            .bind(kilat_server::store::dashboard::day_of(day))
            .fetch_one(app.db.pool())
            .await
            .unwrap();
            n
        }
    };
    let window_start = today - Duration::days(29);
    assert!(kept_from(payout_day).await > 0);
    let before_payout = kept_from(window_start).await - kept_from(payout_day).await;
    assert!(before_payout > 0);
    app.set_date(payout_day).await;
    assert_eq!(kept_from(payout_day).await, 0);
    assert_eq!(kept_from(window_start).await, before_payout);
    app.set_date(today).await;

    // Only admins and finance read it.
    for roles in [
        &[Role::Reviewer][..],
        &[Role::Support],
        &[Role::Collections],
    ] {
        let name = format!("{:?}", roles[0]).to_lowercase();
        let op = operator(&app, &format!("x{name}"), roles).await;
        let response = op_call(
            &app,
            &op,
            Method::GET,
            "/api/v1/console/dashboard?market=IN",
            None,
        )
        .await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{name}");
    }
    app.stop().await;
}

/// A payoff priced on one day and confirmed the next is dated on its first day: the dashboard's kept figures of that
/// day, kept overnight, are forgotten by the credit and counted again with it (before, the day stayed short of the
/// payoff for the thirty days the dashboard shows it).
#[tokio::test]
async fn money_confirmed_the_next_day_for_a_payment_priced_the_day_before_is_counted_on_its_day() {
    let app = spawn_app().await;
    let Loan {
        session, order_no, ..
    } = app.borrower(IN).disbursed().await;
    let priced_day = app.services.clock.today(Market::India);
    let payoff = payment(&app, &session, &order_no, "payoff", "dash-next-day").await;
    let id = payoff["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, id, "500000000851")
            .await
            .status(),
        StatusCode::OK
    );
    // Noon the next day: the priced day ended long enough ago to be kept.
    app.services
        .clock
        .set_local_time(
            Market::India,
            priced_day + Duration::days(1),
            time::macros::time!(12:00),
        )
        .unwrap();
    let kept = kilat_server::jobs::dashboard_days::run(&app.services, Market::India)
        .await
        .unwrap();
    assert!(
        kept >= 1,
        "the priced day was kept before the credit: {kept}"
    );
    let finance = operator(&app, "fin-next", &[Role::Finance]).await;
    let amount = payoff["amount"].as_i64().unwrap();
    assert_eq!(
        confirm(&app, &finance, id, amount).await.status(),
        StatusCode::OK
    );
    let admin = operator(&app, "ada-next", &[Role::Admin]).await;
    let got = board(&app, &admin, "IN").await;
    let day = got["days"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["date"] == json!(priced_day.to_string()))
        .unwrap()
        .clone();
    assert_eq!(day["repaid"], amount, "{day}");
    app.stop().await;
}

/// The dashboard-days job never keeps a day's figures read before an entry dated on it (money confirmed late) whose
/// transaction commits after the read: while such a transaction is open (it forgot the day's kept figures and has not
/// committed) the job keeps nothing of the day; once it committed, the day is kept with its row (at the latest by the
/// next run). Figures read before the entry were otherwise kept after its forget, and the day stayed short of its
/// money for good.
#[tokio::test]
async fn the_job_never_keeps_a_day_while_an_entry_dated_on_it_is_being_written() {
    let app = spawn_app().await;
    app.borrower(IN).disbursed().await;
    let ended = app.services.clock.today(Market::India);
    app.services
        .clock
        .set_local_time(
            Market::India,
            ended + Duration::days(1),
            time::macros::time!(12:00),
        )
        .unwrap();
    let day = kilat_server::store::dashboard::day_of(ended);
    let (borrower,): (String,) = sqlx::query_as("SELECT id FROM borrowers LIMIT 1")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    // A transaction writing a row the day counts (a complaint of its noon, as money confirmed late posts an entry
    // dated on it), between forgetting the day and committing.
    let noon = day * 86_400_000 - 19_800_000 + 12 * 3_600_000;
    let mut writing = app.db.begin().await.unwrap();
    writing
        .insert_complaint(&kilat_server::store::complaints::NewComplaint {
            id: "late-1",
            ticket_no: "T-LATE-1",
            borrower_id: &borrower,
            market: Market::India,
            category: "charges",
            order_id: None,
            received_on: &ended.to_string(),
            now: noon,
        })
        .await
        .unwrap();
    writing.forget_dashboard_day("IN", day).await.unwrap();
    let services = app.services.clone();
    let mut job = tokio::spawn(async move {
        kilat_server::jobs::dashboard_days::run(&services, Market::India).await
    });
    assert!(
        tokio::time::timeout(std::time::Duration::from_millis(500), &mut job)
            .await
            .is_err(),
        "the job kept the day while an entry dated on it was being written"
    );
    writing.commit().await.unwrap();
    job.await.unwrap().unwrap();
    let kept = |app: &TestApp| {
        let pool = app.db.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>(
                "SELECT complaints FROM dashboard_days WHERE market = 'IN' AND day = $1",
            )
            .bind(day)
            .fetch_optional(&pool)
            .await
            .unwrap()
        }
    };
    // Not kept from figures read before the row (the next run keeps it), or kept with it: never without it.
    assert_ne!(
        kept(&app).await,
        Some(0),
        "kept without the row written meanwhile"
    );
    kilat_server::jobs::dashboard_days::run(&app.services, Market::India)
        .await
        .unwrap();
    assert_eq!(kept(&app).await, Some(1));
    app.stop().await;
}
