//! The overdue job and reminders (issue 8): late charges posted exactly as the KFS states them as the business date
//! moves, once however many runners start at once (two tasks, two `kilat jobs run overdue` processes), nothing while
//! a UTR waits, Indonesia's caps after many days, reminders only within the sending hours and never twice; after
//! every run the stored ledger replays to the balances the API shows.

use std::collections::BTreeSet;

use kilat_domain::{
    Code, KeyFactStatement, LateCharge, Market, Money, Plan, late_charges_due, replay,
};
use kilat_server::auth::operators::Role;
use kilat_server::jobs::{overdue, reminders};
use reqwest::StatusCode;
use serde_json::{Value, json};
use time::{Date, Duration};

use crate::builders::{ID, IN, Loan};
use crate::helpers::{TestApp, data, due_date, spawn_app};
use crate::servicing::{
    check_ledger, create_payment, op_call, operator, pay, status_of, submit_utr,
};

async fn kfs_of(app: &TestApp, order_id: &str) -> KeyFactStatement {
    let (json,): (String,) = sqlx::query_as("SELECT kfs_json FROM orders WHERE id = $1")
        .bind(order_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    serde_json::from_str(&json).unwrap()
}

/// Late charges posted per installment, from the stored ledger.
async fn late_charges(app: &TestApp, order_id: &str) -> Vec<(u32, i64, Date)> {
    app.db
        .ledger(order_id)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.entry.kind.code() == "late_charge")
        .flat_map(|e| {
            let on = e.entry.on;
            e.entry
                .lines
                .into_iter()
                .map(move |l| (l.installment, l.due.late_charges.minor(), on))
        })
        .collect()
}

fn expected_total(late: &LateCharge, days: u32) -> i64 {
    late.for_days_overdue(days).unwrap().minor()
}

#[tokio::test]
async fn the_overdue_job_posts_late_charges_exactly_as_the_kfs_states_them_once_per_date() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let kfs = kfs_of(&app, &id).await;
    assert!(kfs.late_charge.flat.minor() > 0 && kfs.late_charge.per_day.minor() > 0);
    let due = due_date(&plan, 0);

    // On the due date nothing is late yet.
    app.set_date(due).await;
    let report = app.run_overdue(Market::India).await;
    assert!(report.ran);
    assert_eq!(report.late_charges, 0);
    assert_eq!(status_of(&app, &id).await, "disbursed");

    // The day after: overdue, and the first day's charge of the KFS.
    for day in 1..=12u32 {
        app.set_date(due + Duration::days(i64::from(day))).await;
        let report = app.run_overdue(Market::India).await;
        assert!(report.ran);
        assert_eq!(report.late_charges, 1, "day {day}");
        // A second run for the same date does nothing at all; a sweep without the claim posts nothing more.
        assert!(!app.run_overdue(Market::India).await.ran);
        let again = overdue::sweep(
            &app.services,
            Market::India,
            app.services.clock.today(Market::India),
        )
        .await
        .unwrap();
        assert_eq!(again.late_charges, 0);
        let charges = late_charges(&app, &id).await;
        assert_eq!(charges.len(), day as usize);
        assert!(charges.iter().all(|(n, _, _)| *n == 1));
        let total: i64 = charges.iter().map(|(_, c, _)| c).sum();
        assert_eq!(total, expected_total(&kfs.late_charge, day), "day {day}");
        assert_eq!(status_of(&app, &id).await, "overdue");
        let view = check_ledger(&app, &session, &order_no, &id).await;
        assert_eq!(
            view["installments"][0]["outstanding"]["lateCharges"],
            json!(total)
        );
    }
    // Never beyond the KFS's bound for one installment, however long it stays late.
    let bound = kfs.late_charge.max_per_installment().unwrap().minor();
    for day in 13..=(kfs.late_charge.max_days + 5) {
        app.set_date(due + Duration::days(i64::from(day))).await;
        app.run_overdue(Market::India).await;
    }
    let first: i64 = late_charges(&app, &id)
        .await
        .iter()
        .filter(|(n, _, _)| *n == 1)
        .map(|(_, c, _)| c)
        .sum();
    assert_eq!(first, bound);
    check_ledger(&app, &session, &order_no, &id).await;
}

/// Dates missed while no server ran are run when the timer comes back, oldest first, each charged as its own day of
/// the KFS: a loan late four days has four days' charges, not the two of the two dates a server happened to see.
#[tokio::test]
async fn the_dates_missed_while_no_server_ran_are_each_run_when_one_comes_back() {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).disbursed().await;
    let kfs = kfs_of(&app, &id).await;
    let due = due_date(&plan, 0);
    app.set_date(due + Duration::days(1)).await;
    let today = app.services.clock.today(Market::India);
    let first = overdue::run_through(&app.services, Market::India, today, "timer").await;
    assert_eq!(first.len(), 1, "the first run is today's alone");
    assert!(first[0].1.as_ref().unwrap().ran);
    // The servers were down for two days.
    app.set_date(due + Duration::days(4)).await;
    let today = app.services.clock.today(Market::India);
    let runs = overdue::run_through(&app.services, Market::India, today, "timer").await;
    let dates: Vec<Date> = runs.iter().map(|(d, _)| *d).collect();
    assert_eq!(
        dates,
        [2, 3, 4].map(|n| due + Duration::days(n)),
        "each date after the last finished, through today"
    );
    assert!(runs.iter().all(|(_, r)| r.as_ref().unwrap().ran));
    let charges = late_charges(&app, &id).await;
    assert_eq!(
        charges.iter().map(|(_, _, on)| *on).collect::<Vec<_>>(),
        [1, 2, 3, 4].map(|n| due + Duration::days(n))
    );
    let total: i64 = charges.iter().map(|(_, c, _)| c).sum();
    assert_eq!(total, expected_total(&kfs.late_charge, 4));
    // Run again the same day: nothing to catch up, today's run is done.
    let again = overdue::run_through(&app.services, Market::India, today, "timer").await;
    assert_eq!(again.len(), 1);
    assert!(!again[0].1.as_ref().unwrap().ran);
    // A past date another runner holds unfinished (stopped within its lease) is waited for: no later date runs first.
    app.set_date(due + Duration::days(6)).await;
    let today = app.services.clock.today(Market::India);
    let held = due + Duration::days(5);
    assert!(
        app.db
            .claim_job_run(
                overdue::JOB,
                "IN",
                &kilat_server::store::loans::date_code(held),
                "other",
                app.services.clock.now_ms(),
            )
            .await
            .unwrap()
    );
    let runs = overdue::run_through(&app.services, Market::India, today, "timer").await;
    assert_eq!(runs.len(), 1, "stopped at the held date");
    assert_eq!(runs[0].0, held);
    assert!(!runs[0].1.as_ref().unwrap().ran);
    assert_eq!(
        late_charges(&app, &id).await.len(),
        4,
        "no later date charged before it"
    );
    // Down for a quarter: no more than the catch-up's window is run.
    app.set_date(due + Duration::days(100)).await;
    let today = app.services.clock.today(Market::India);
    let runs = overdue::run_through(&app.services, Market::India, today, "timer").await;
    assert_eq!(runs.len() as i64, overdue::CATCH_UP_DAYS + 1);
    assert_eq!(runs[0].0, today - Duration::days(overdue::CATCH_UP_DAYS));
}

/// The dates caught up queue no reminders (each would be stale when it went: "due in 3 days" of a date long past);
/// today's run queues today's.
#[tokio::test]
async fn dates_caught_up_queue_no_stale_reminders() {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).disbursed().await;
    let due = due_date(&plan, 0);
    app.set_date(due - Duration::days(5)).await;
    let today = app.services.clock.today(Market::India);
    overdue::run_through(&app.services, Market::India, today, "timer").await;
    // Down from five days before the due date to the day after it.
    app.set_date(due + Duration::days(1)).await;
    let today = app.services.clock.today(Market::India);
    let runs = overdue::run_through(&app.services, Market::India, today, "timer").await;
    assert_eq!(runs.len(), 6);
    for (date, report) in &runs[..5] {
        assert_eq!(report.as_ref().unwrap().reminders, 0, "{date}");
    }
    let kinds: Vec<String> = app
        .db
        .notifications_of(&id)
        .await
        .unwrap()
        .into_iter()
        .map(|n| n.kind)
        .collect();
    assert_eq!(kinds, ["overdue"], "today's only");
}

/// A date whose run was claimed and never finished/// A date whose run was claimed and never finished (its process stopped mid-sweep, or a page failed every try) is
/// taken over by the next runner once the claim is older than its lease, and gets its charges; a claim within its
/// lease, and a finished run however old, are left alone. Before, such a date was never run again: its late charges,
/// moves to overdue and reminders were lost for good.
#[tokio::test]
async fn a_run_claimed_and_never_finished_is_taken_over_after_its_lease() {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).disbursed().await;
    app.set_date(due_date(&plan, 0) + Duration::days(1)).await;
    let day = kilat_server::store::loans::date_code(app.services.clock.today(Market::India));
    let now = app.services.clock.now_ms();
    assert!(
        app.db
            .claim_job_run(overdue::JOB, "IN", &day, "stopped", now)
            .await
            .unwrap()
    );
    assert!(!app.run_overdue(Market::India).await.ran);
    assert!(late_charges(&app, &id).await.is_empty());
    let older = format!(
        "UPDATE job_runs SET started_at = started_at - {}",
        kilat_server::store::jobs::JOB_RUN_LEASE_MS
    );
    app.execute(&older).await;
    let report = app.run_overdue(Market::India).await;
    assert!(report.ran);
    assert_eq!(report.late_charges, 1);
    assert_eq!(status_of(&app, &id).await, "overdue");
    app.execute(&older).await;
    assert!(!app.run_overdue(Market::India).await.ran);
    assert_eq!(late_charges(&app, &id).await.len(), 1);
    app.stop().await;
}

/// The job continues each loan's kept position with the day's charges instead of replaying its ledger. A position
/// behind its ledger (no writer leaves one: every entry is written with its position) gives the charge a sequence
/// number already taken; the unique (order, seq) refuses the page, and nothing of it is written.
#[tokio::test]
async fn a_position_behind_its_ledger_fails_the_overdue_page_and_writes_nothing_of_it() {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).disbursed().await;
    let as_paid_out = app.position_json(&id).await;
    let due = due_date(&plan, 0);
    app.set_date(due + Duration::days(1)).await;
    assert_eq!(app.run_overdue(Market::India).await.late_charges, 1);

    // The position as the payout left it: one entry behind the ledger.
    sqlx::query("UPDATE loan_arrears SET balances_json = $1 WHERE order_id = $2")
        .bind(&as_paid_out)
        .bind(&id)
        .execute(app.db.pool())
        .await
        .unwrap();
    app.set_date(due + Duration::days(2)).await;
    let today = app.services.clock.today(Market::India);
    let failed = overdue::run(&app.services, Market::India, today, "test").await;
    assert!(failed.is_err(), "{failed:?}");
    assert_eq!(
        late_charges(&app, &id).await.len(),
        1,
        "nothing more posted"
    );
    assert_eq!(
        app.position_json(&id).await,
        as_paid_out,
        "no position written"
    );
}

/// The development clock moved ahead and back (one journey after another): a date reached again is run again, and
/// the loan still carries one charge per day late, not two.
#[tokio::test]
async fn a_date_reached_again_after_the_clock_moved_back_is_run_again_without_charging_twice() {
    let app = spawn_app().await;
    let Loan {
        order_id: first_id,
        plan: first_plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let due = due_date(&first_plan, 0);
    app.set_date(due + Duration::days(3)).await;
    assert!(app.run_overdue(Market::India).await.ran);
    assert!(app.run_overdue(Market::Indonesia).await.ran);
    assert_eq!(late_charges(&app, &first_id).await.len(), 1);

    // Back to the due date, then ahead day by day: day 3 (claimed before) is run again as days 1 and 2 are.
    app.set_date(due).await;
    for day in 1..=3 {
        app.set_date(due + Duration::days(day)).await;
        let report = app.run_overdue(Market::India).await;
        assert!(report.ran, "day {day} is run again");
        assert!(
            app.run_overdue(Market::Indonesia).await.ran,
            "day {day}, Indonesia"
        );
    }
    // Never charged twice: the day-3 charge stands, and no earlier day is posted under a later one.
    let kfs = kfs_of(&app, &first_id).await;
    let charges = late_charges(&app, &first_id).await;
    let total: i64 = charges.iter().map(|(_, c, _)| c).sum();
    assert_eq!(charges.len(), 1, "{charges:?}");
    assert!(total <= expected_total(&kfs.late_charge, 3));
}

#[tokio::test]
async fn no_late_charge_accrues_while_a_utr_waits_and_the_order_catches_up_once_paid() {
    let app = spawn_app().await;
    // Three fortnightly installments, ₹400 once per overdue installment.
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
    let due = due_date(&plan, 0);
    // On the due date the borrower pays the installment and submits the UTR.
    app.set_date(due).await;
    app.run_overdue(Market::India).await;
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "upi", "jobs-key-0001").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap().to_owned();
    let amount = payment["amount"].as_i64().unwrap();
    assert_eq!(
        submit_utr(&app, &session, &payment_id, "123456789012")
            .await
            .status(),
        StatusCode::OK
    );
    // Finance takes three days: the installment is overdue, but nothing accrues while the UTR waits.
    for day in 1..=3 {
        app.set_date(due + Duration::days(day)).await;
        let report = app.run_overdue(Market::India).await;
        assert!(report.ran);
        assert_eq!(report.late_charges, 0, "day {day}: a UTR waits");
        assert_eq!(status_of(&app, &id).await, "overdue");
    }
    assert!(late_charges(&app, &id).await.is_empty());
    // Finance confirms the amount received: the order is current again.
    let finance = operator(&app, "finance-u", &[Role::Finance]).await;
    let confirmed = op_call(
        &app,
        &finance,
        reqwest::Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/confirm"),
        Some(json!({"amount": amount})),
    )
    .await;
    assert_eq!(confirmed.status(), StatusCode::OK);
    assert_eq!(status_of(&app, &id).await, "disbursed");
    app.set_date(due + Duration::days(4)).await;
    let report = app.run_overdue(Market::India).await;
    assert_eq!((report.late_charges, report.fell_overdue), (0, 0));
    assert_eq!(status_of(&app, &id).await, "disbursed");
    check_ledger(&app, &session, &order_no, &id).await;
    // The second installment, unpaid past its due date, is charged the KFS's ₹400 once and the order falls overdue.
    let second = due_date(&plan, 1);
    app.set_date(second + Duration::days(1)).await;
    let report = app.run_overdue(Market::India).await;
    assert_eq!((report.late_charges, report.fell_overdue), (1, 1));
    let kfs = kfs_of(&app, &id).await;
    assert_eq!(
        late_charges(&app, &id).await,
        vec![(2, kfs.late_charge.flat.minor(), second + Duration::days(1))]
    );
    assert_eq!(status_of(&app, &id).await, "overdue");
    check_ledger(&app, &session, &order_no, &id).await;
}

#[tokio::test]
async fn runs_started_at_once_post_once() {
    let app = spawn_app().await;
    let mut loans = Vec::new();
    for _ in 0..3 {
        loans.push(app.borrower(IN).disbursed().await);
    }
    let due = due_date(&loans[0].plan, 0);
    for day in 1..=3 {
        app.set_date(due + Duration::days(day)).await;
        let date = app.services.clock.today(Market::India);
        // Two runners at once: one claims the date.
        let (a, b) = tokio::join!(
            overdue::run(&app.services, Market::India, date, "a"),
            overdue::run(&app.services, Market::India, date, "b"),
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(a.ran ^ b.ran, "exactly one runner");
        assert_eq!(
            a.late_charges + b.late_charges,
            3,
            "one per loan, day {day}"
        );
        // Two sweeps at once without the claim: each order's posting is idempotent on its own.
        let (c, d) = tokio::join!(
            overdue::sweep(&app.services, Market::India, date),
            overdue::sweep(&app.services, Market::India, date),
        );
        assert_eq!(c.unwrap().late_charges + d.unwrap().late_charges, 0);
    }
    for Loan {
        session,
        order_no,
        order_id: id,
        ..
    } in &loans
    {
        let kfs = kfs_of(&app, id).await;
        let charges = late_charges(&app, id).await;
        assert_eq!(charges.len(), 3);
        let total: i64 = charges.iter().map(|(_, c, _)| c).sum();
        assert_eq!(total, expected_total(&kfs.late_charge, 3));
        check_ledger(&app, session, order_no, id).await;
    }
}

#[tokio::test]
async fn two_kilat_jobs_run_processes_on_one_database_post_once() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let late = due_date(&plan, 0) + Duration::days(1);
    let spawn = || {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_kilat"))
            .args([
                "jobs",
                "run",
                "overdue",
                "--market",
                "IN",
                "--date",
                &late.to_string(),
            ])
            .env("KILAT_DATABASE_URL", &app.database_url)
            .env("KILAT_LOG__FORMAT", "json")
            .env_remove("KILAT_CONFIG")
            .output()
    };
    let (a, b) = tokio::join!(spawn(), spawn());
    let (a, b) = (a.unwrap(), b.unwrap());
    let out = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let (a, b) = (out(&a), out(&b));
    let ran = [&a, &b]
        .iter()
        .filter(|o| o.contains("1 late charges posted"))
        .count();
    let skipped = [&a, &b]
        .iter()
        .filter(|o| o.contains("already run"))
        .count();
    assert_eq!((ran, skipped), (1, 1), "{a}\n{b}");
    assert_eq!(late_charges(&app, &id).await.len(), 1);
    assert_eq!(status_of(&app, &id).await, "overdue");
    check_ledger(&app, &session, &order_no, &id).await;
}

#[tokio::test]
async fn indonesian_late_charges_stay_within_the_daily_and_total_caps_after_many_days() {
    let app = spawn_app().await;
    let Loan {
        phone,
        session,
        order_no,
        order_id: id,
        plan: plan_view,
        ..
    } = app.borrower(ID).disbursed().await;
    let due = due_date(&plan_view, 0);
    let stored = app.db.loan(&id).await.unwrap().unwrap();
    let plan: Plan = serde_json::from_str(&stored.plan_json).unwrap();
    let caps = (*app.services.caps).clone();
    let limit = caps.total_cost_limit(plan.quote.principal).unwrap();
    let mut previous_late = Money::ZERO;
    for day in 1..=120 {
        app.set_date(due + Duration::days(day)).await;
        let today = app.services.clock.today(Market::Indonesia);
        let before: Vec<_> = app
            .db
            .ledger(&id)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.entry)
            .collect();
        let balances_before = replay(&plan, &before).unwrap();
        app.run_overdue(Market::Indonesia).await;
        let after: Vec<_> = app
            .db
            .ledger(&id)
            .await
            .unwrap()
            .into_iter()
            .map(|e| e.entry)
            .collect();
        let balances = replay(&plan, &after).unwrap();
        // What the job posted is what the engine says for the day, and nothing more.
        let expected =
            late_charges_due(&plan, &balances_before, &BTreeSet::new(), today, &caps).unwrap();
        assert_eq!(&after[before.len()..], expected.as_slice(), "day {day}");
        if let Some(rate) = caps.late_charge_cap(today) {
            for (b, a) in balances_before
                .installments
                .iter()
                .zip(&balances.installments)
            {
                let charged = a.due.late_charges.minor() - b.due.late_charges.minor();
                let o = b.outstanding;
                let base = o.principal.minor() + o.interest.minor() + o.fees.minor();
                let daily = i128::from(base) * i128::from(rate.ppb()) / 1_000_000_000;
                assert!(
                    i128::from(charged) <= daily,
                    "day {day}: {charged} > {daily}"
                );
            }
        }
        assert!(
            balances.cost().unwrap() <= limit,
            "day {day}: total cost over the cap"
        );
        previous_late = balances.due.late_charges;
    }
    assert!(previous_late.minor() > 0, "late charges were posted");
    assert_eq!(status_of(&app, &id).await, "overdue");
    // Four months on, the borrower signs in again to see the plan.
    drop(session);
    let session = app.sign_in("ID", &phone).await;
    check_ledger(&app, &session, &order_no, &id).await;
}

#[tokio::test]
async fn reminders_go_to_the_borrower_within_the_sending_hours_once_per_installment_and_kind() {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).phone("9876500241").disbursed().await;
    let due = due_date(&plan, 0);
    let at = |hh: u8, mm: u8, date: Date| {
        // IST is UTC+05:30.
        date.with_hms(hh, mm, 0)
            .unwrap()
            .assume_offset(time::UtcOffset::from_hms(5, 30, 0).unwrap())
    };
    let mut expected = Vec::new();
    for (offset, kind) in [
        (-4, None),
        (-3, Some("due_in_3")),
        (-2, None),
        (-1, Some("due_in_1")),
        (0, Some("due_today")),
        (1, Some("overdue")),
        (2, None),
        (3, None),
    ] {
        let date = due + Duration::days(offset);
        app.set_date(date).await;
        app.run_overdue(Market::India).await;
        if let Some(kind) = kind {
            expected.push(kind);
        }
        let queued = app.db.notifications_of(&id).await.unwrap();
        let kinds: Vec<&str> = queued.iter().map(|n| n.kind.as_str()).collect();
        assert_eq!(kinds, expected, "day {offset}");
        // Before 08:00 and from 19:00 IST nothing is sent; it waits.
        assert_eq!(
            reminders::deliver(&app.services, at(7, 59, date))
                .await
                .unwrap(),
            0
        );
        assert_eq!(
            reminders::deliver(&app.services, at(19, 0, date))
                .await
                .unwrap(),
            0
        );
        let pending = app.db.notifications_of(&id).await.unwrap();
        assert!(pending.iter().filter(|n| n.status == "pending").count() <= 1);
        // At 08:00 the day's text goes out, once.
        let sent = reminders::deliver(&app.services, at(8, 0, date))
            .await
            .unwrap();
        assert_eq!(sent, u64::from(kind.is_some()), "day {offset}");
        assert_eq!(
            reminders::deliver(&app.services, at(9, 0, date))
                .await
                .unwrap(),
            0
        );
    }
    let all = app.db.notifications_of(&id).await.unwrap();
    assert!(
        all.iter()
            .all(|n| n.status == "sent" && n.sent_at.is_some())
    );
    assert!(all.iter().all(|n| n.installment == 1));
    // To the borrower's own phone, and nobody else's: the development outbox holds the borrower's number only.
    let texts = app.texts_sent().await;
    assert_eq!(texts.len(), 4);
    assert!(
        texts.iter().all(|phone| phone == "+919876500241"),
        "{texts:?}"
    );
    // The texts name the amount and the day as the app writes them: "₹3,468", "27 Nov 2026", never "3,468.00" or
    // "27/11/2026".
    let due_in_3 = &all[0];
    let months = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sept", "Oct", "Nov", "Dec",
    ];
    let human_due = format!(
        "{} {} {}",
        due.day(),
        months[usize::from(u8::from(due.month())) - 1],
        due.year()
    );
    assert!(
        due_in_3.text.contains('₹')
            && due_in_3.text.contains("in 3 days")
            && due_in_3
                .text
                .contains(&format!("is due on {human_due}, in 3 days"))
            && !due_in_3.text.contains(".00")
            && !due_in_3.text.contains('/'),
        "{}",
        due_in_3.text
    );
}

/// 08:00 IST on `date`: when the day's texts start to go out in India.
fn eight_ist(date: Date) -> time::OffsetDateTime {
    date.with_hms(8, 0, 0)
        .unwrap()
        .assume_offset(time::UtcOffset::from_hms(5, 30, 0).unwrap())
}

/// A reminder is written at the start of the business day and sent from 08:00, or later: by then the borrower may have
/// paid, or sent a UTR finance has yet to check. It goes only if the loan still calls for it that day, reading as it
/// does then; else it is dropped, never sent — and one left unsent into the next day is not sent a day late.
#[tokio::test]
async fn a_reminder_goes_only_if_the_loan_still_calls_for_it_when_its_hour_comes() {
    let app = spawn_app().await;
    // Three fortnightly installments.
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app
        .borrower(IN)
        .phone("9876500261")
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let outbox = || async {
        app.db
            .notifications_of(&id)
            .await
            .unwrap()
            .into_iter()
            .filter(|n| n.kind != "receipt")
            .map(|n| (n.installment, n.kind, n.status))
            .collect::<Vec<_>>()
    };
    let note = |installment: i64, kind: &str, status: &str| {
        (installment, kind.to_owned(), status.to_owned())
    };

    // The first installment's day: its text is written at the day's start, and the borrower pays before 08:00.
    let first = due_date(&plan, 0);
    app.set_date(first).await;
    app.run_overdue(Market::India).await;
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    pay(
        &app,
        &finance,
        &session,
        &order_no,
        "due",
        "remind-key-01",
        "123456789012",
    )
    .await;
    // Only the payment's receipt goes.
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(first))
            .await
            .unwrap(),
        1
    );
    assert_eq!(outbox().await, vec![note(1, "due_today", "dropped")]);

    // The day before the second: the borrower sends a UTR before 08:00; finance has yet to check it.
    let second = due_date(&plan, 1);
    app.set_date(second - Duration::days(1)).await;
    app.run_overdue(Market::India).await;
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "upi", "remind-key-02").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, payment_id, "223456789012")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(second - Duration::days(1)))
            .await
            .unwrap(),
        0
    );
    assert_eq!(outbox().await[1], note(2, "due_in_1", "dropped"));

    // Three days before the third, its text is not sent that day (the gateway was down): not sent a day late.
    let third = due_date(&plan, 2);
    app.set_date(third - Duration::days(3)).await;
    app.run_overdue(Market::India).await;
    app.set_date(third - Duration::days(2)).await;
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(third - Duration::days(2)))
            .await
            .unwrap(),
        0
    );
    assert_eq!(outbox().await[2], note(3, "due_in_3", "dropped"));
    // The day before, its text goes, reading as the loan does when it goes (not as it was written).
    app.set_date(third - Duration::days(1)).await;
    app.run_overdue(Market::India).await;
    app.execute(&format!(
        "UPDATE notification_outbox SET text = 'written earlier' WHERE order_id = '{id}' AND kind = 'due_in_1' \
         AND installment = 3"
    ))
    .await;
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(third - Duration::days(1)))
            .await
            .unwrap(),
        1
    );
    assert_eq!(outbox().await[3], note(3, "due_in_1", "sent"));
    let sent = app
        .db
        .notifications_of(&id)
        .await
        .unwrap()
        .into_iter()
        .find(|n| n.installment == 3 && n.kind == "due_in_1")
        .unwrap();
    assert!(
        sent.text
            .starts_with(&format!("Kilat: installment 3 of loan {order_no}, ₹"))
            && sent.text.contains("is due tomorrow"),
        "{}",
        sent.text
    );
    // The receipt and this reminder, to the borrower's phone.
    assert_eq!(app.texts_sent().await.len(), 2);
    app.stop().await;
}

/// A reminder dropped because a UTR waited is written again once finance rejects the UTR (a made-up one, say): the
/// next day's overdue text goes. Before, the dropped row held the installment's one `overdue` text for good.
#[tokio::test]
async fn a_reminder_dropped_for_a_utr_finance_then_rejects_is_sent_the_next_day() {
    let app = spawn_app().await;
    let Loan {
        phone,
        order_no,
        order_id: id,
        plan,
        ..
    } = app
        .borrower(IN)
        .phone("9876500263")
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let overdue_status = || async {
        app.db
            .notifications_of(&id)
            .await
            .unwrap()
            .into_iter()
            .find(|n| n.kind == "overdue")
            .map(|n| n.status)
    };
    let first = due_date(&plan, 0);
    app.set_date(first + Duration::days(1)).await;
    app.run_overdue(Market::India).await;
    let session = app.sign_in("IN", &phone).await;
    let payment =
        data(create_payment(&app, &session, &order_no, "due", "upi", "remind-key-11").await).await;
    let payment_id = payment["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, payment_id, "523456789012")
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(first + Duration::days(1)))
            .await
            .unwrap(),
        0
    );
    assert_eq!(overdue_status().await.as_deref(), Some("dropped"));
    let finance = operator(&app, "fin", &[Role::Finance]).await;
    let rejected = op_call(
        &app,
        &finance,
        reqwest::Method::POST,
        &format!("/api/v1/console/payments/{payment_id}/reject"),
        Some(json!({"reason": "No such credit on the statement."})),
    )
    .await;
    assert_eq!(rejected.status(), StatusCode::OK);
    app.set_date(first + Duration::days(2)).await;
    app.run_overdue(Market::India).await;
    assert_eq!(overdue_status().await.as_deref(), Some("pending"));
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(first + Duration::days(2)))
            .await
            .unwrap(),
        1
    );
    assert_eq!(overdue_status().await.as_deref(), Some("sent"));
    app.stop().await;
}

/// A sender that stopped between claiming a text and recording what became of it (a crash, a restart mid-send) leaves
/// the text `sending`. A claim within its lease is left to its sender; past it, the next run takes the text back and
/// sends it, the lost try counted and its error recorded; when that try was the last, the text is given up (`failed`)
/// and not sent.
#[tokio::test]
async fn a_text_left_claimed_by_a_stopped_sender_is_sent_after_its_lease_or_given_up_after_its_last_try()
 {
    let app = spawn_app().await;
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).phone("9876500243").disbursed().await;
    let date = due_date(&plan, 0) - Duration::days(3);
    app.set_date(date).await;
    app.run_overdue(Market::India).await;
    let queued = app.db.notifications_of(&id).await.unwrap();
    assert_eq!(queued.len(), 1, "the due_in_3 text");
    let note = queued[0].id.clone();
    // 10:00 IST, within the sending hours.
    let ten = date
        .with_hms(10, 0, 0)
        .unwrap()
        .assume_offset(time::UtcOffset::from_hms(5, 30, 0).unwrap());
    let claimed = |age_ms: i64, attempts: i64| {
        format!(
            "UPDATE notification_outbox SET status = 'sending', attempts = {attempts}, sent_at = NULL, \
             last_error = NULL, updated_at = {} WHERE id = '{note}'",
            app.services.clock.now_ms() - age_ms
        )
    };
    let state = || async {
        sqlx::query_as::<_, (String, i64, Option<i64>, Option<String>)>(
            "SELECT status, attempts, sent_at, last_error FROM notification_outbox WHERE id = $1",
        )
        .bind(&note)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
    };

    // Claimed a minute short of the lease: its sender may still be sending it.
    app.execute(&claimed(reminders::SENDING_LEASE_MS - 60_000, 0))
        .await;
    assert_eq!(reminders::deliver(&app.services, ten).await.unwrap(), 0);
    assert_eq!(state().await, ("sending".to_owned(), 0, None, None));
    assert_eq!(app.texts_sent().await.len(), 0);

    // A minute past it: taken back and sent, once, the lost try counted.
    app.execute(&claimed(reminders::SENDING_LEASE_MS + 60_000, 0))
        .await;
    assert_eq!(reminders::deliver(&app.services, ten).await.unwrap(), 1);
    let (status, attempts, sent_at, error) = state().await;
    assert_eq!((status.as_str(), attempts), ("sent", 1));
    assert!(sent_at.is_some());
    assert_eq!(error.as_deref(), Some(reminders::OUTCOME_UNKNOWN));
    assert_eq!(app.texts_sent().await.len(), 1);
    assert_eq!(reminders::deliver(&app.services, ten).await.unwrap(), 0);

    // Past the lease after the last try but one: given up, not sent.
    app.execute(&claimed(
        reminders::SENDING_LEASE_MS + 60_000,
        reminders::MAX_ATTEMPTS - 1,
    ))
    .await;
    assert_eq!(reminders::deliver(&app.services, ten).await.unwrap(), 0);
    let (status, attempts, sent_at, error) = state().await;
    assert_eq!(
        (status.as_str(), attempts, sent_at),
        ("failed", reminders::MAX_ATTEMPTS, None)
    );
    assert_eq!(error.as_deref(), Some(reminders::OUTCOME_UNKNOWN));
    assert_eq!(app.texts_sent().await.len(), 1);
}

/// `count` texts of `kind` queued for the borrower of `order_id` (one per installment number from 1), all at one time,
/// as a page of the overdue job stamps its reminders. The tests of the sender use receipts: a reminder is checked
/// against its loan before it goes, and these installments are made up.
async fn queue_texts(app: &TestApp, order_id: &str, kind: &str, count: usize) {
    app.execute(&format!(
        "INSERT INTO notification_outbox (id, order_id, borrower_id, market, installment, kind, text, status, attempts,
             created_at, updated_at)
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {count})
         SELECT 'bulk-' || CAST(n.i AS TEXT), o.id, o.borrower_id, o.market, n.i, '{kind}', 'Your installment is due.',
             'pending', 0, {now}, {now}
         FROM n CROSS JOIN orders o WHERE o.id = '{order_id}'",
        now = app.services.clock.now_ms() - 1
    ))
    .await;
}

/// The order's texts in the outbox, counted by status (in the statuses' order).
async fn outbox_by_status(app: &TestApp, order_id: &str) -> Vec<(String, i64)> {
    sqlx::query_as(
        "SELECT status, COUNT(*) FROM notification_outbox WHERE order_id = $1 GROUP BY status ORDER BY status",
    )
    .bind(order_id)
    .fetch_all(app.db.pool())
    .await
    .unwrap()
}

/// 10:00 IST of the app's business date in India: within the sending hours.
fn ten_ist(app: &TestApp) -> time::OffsetDateTime {
    app.services
        .clock
        .today(Market::India)
        .with_hms(10, 0, 0)
        .unwrap()
        .assume_offset(time::UtcOffset::from_hms(5, 30, 0).unwrap())
}

/// More texts than a page, sent by two runs at once (two servers' timers): each text goes out once, every one of them
/// in these runs, several at a time.
#[tokio::test]
async fn two_runs_at_once_send_each_of_many_queued_texts_once() {
    let app = spawn_app().await;
    let Loan { order_id, .. } = app.borrower(IN).phone("9876500245").disbursed().await;
    queue_texts(&app, &order_id, "receipt", 450).await;
    let at = ten_ist(&app);
    let (a, b) = tokio::join!(
        reminders::deliver(&app.services, at),
        reminders::deliver(&app.services, at)
    );
    assert_eq!(a.unwrap() + b.unwrap(), 450);
    assert_eq!(app.texts_sent().await.len(), 450);
    assert_eq!(
        outbox_by_status(&app, &order_id).await,
        vec![("sent".to_owned(), 450)]
    );
    assert_eq!(reminders::deliver(&app.services, at).await.unwrap(), 0);
}

/// A text that cannot be sent (here: the borrower's phone no longer unseals) goes back to wait for its next try, tried
/// once in a run, not again at once nor before its next try is due: more than a page of them, so that the run reads a
/// second page.
#[tokio::test]
async fn a_text_that_fails_waits_for_the_next_run() {
    let app = spawn_app().await;
    let Loan { order_id, .. } = app.borrower(IN).phone("9876500247").disbursed().await;
    queue_texts(&app, &order_id, "receipt", 250).await;
    app.execute(&format!(
        "UPDATE borrowers SET phone_enc = 'not-a-sealed-phone'
         WHERE id = (SELECT borrower_id FROM orders WHERE id = '{order_id}')"
    ))
    .await;
    let attempts = || async {
        sqlx::query_as::<_, (String, i64)>(
            "SELECT status, attempts FROM notification_outbox WHERE order_id = $1 ORDER BY installment",
        )
        .bind(&order_id)
        .fetch_all(app.db.pool())
        .await
        .unwrap()
    };
    assert_eq!(
        reminders::deliver(&app.services, ten_ist(&app))
            .await
            .unwrap(),
        0
    );
    assert_eq!(attempts().await, vec![("pending".to_owned(), 1); 250]);
    // A run before its next try is due leaves each as it is.
    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    assert_eq!(
        reminders::deliver(&app.services, ten_ist(&app))
            .await
            .unwrap(),
        0
    );
    assert_eq!(attempts().await, vec![("pending".to_owned(), 1); 250]);
    // Once it is (a minute after the first try), the next run tries each once more.
    app.execute("UPDATE notification_outbox SET next_try_at = next_try_at - 60000")
        .await;
    assert_eq!(
        reminders::deliver(&app.services, ten_ist(&app))
            .await
            .unwrap(),
        0
    );
    assert_eq!(attempts().await, vec![("pending".to_owned(), 2); 250]);
}

/// An app whose pushes go to a gateway answering each call after `delay_ms`, `at_once` sends at a time (the setting's
/// default when `None`), and the order of a paid-out borrower (phone `phone`) with one device: the pushes go through
/// the same claim, send and record as the texts, to a gateway a test can slow down (the texts' provider also carries
/// the sign-in codes the borrower needs). The gateway stops with its handle.
async fn pushing_app(
    phone: &str,
    delay_ms: u64,
    at_once: Option<usize>,
) -> (wiremock::MockServer, TestApp, String) {
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};

    let gateway = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(
            ResponseTemplate::new(200).set_delay(std::time::Duration::from_millis(delay_ms)),
        )
        .mount(&gateway)
        .await;
    let app = crate::helpers::spawn_app_with(|s| {
        s.push.sender = kilat_server::settings::PushSenderKind::Http;
        s.push.http_url = format!("{}/push", gateway.uri());
        s.push.http_timeout_ms = s.push.http_timeout_ms.min(1_000);
        if let Some(n) = at_once {
            s.sms.sends_at_once = n;
        }
    })
    .await;
    let Loan { order_id, .. } = app.borrower(IN).phone(phone).disbursed().await;
    app.execute(&format!(
        "INSERT INTO device_tokens (borrower_id, token, platform, updated_at)
         SELECT borrower_id, 'a-device', 'android', 0 FROM orders WHERE id = '{order_id}'"
    ))
    .await;
    (gateway, app, order_id)
}

/// A receipt push the gateway may have taken (its answer never came) is pushed once: not again by the call's retries,
/// nor by the outbox's next runs; it is kept as sent with the doubt.
#[tokio::test]
async fn a_receipt_push_the_gateway_may_have_taken_is_pushed_once() {
    let (gateway, app, order_id) = pushing_app("9876500252", 3_000, None).await;
    queue_texts(&app, &order_id, reminders::PUSH_RECEIPT, 1).await;
    let at = ten_ist(&app);
    for later in [0, 30, 180] {
        reminders::deliver(&app.services, at + Duration::minutes(later))
            .await
            .unwrap();
    }
    assert_eq!(gateway.received_requests().await.unwrap().len(), 1);
    assert_eq!(
        outbox_by_status(&app, &order_id).await,
        vec![("sent".to_owned(), 1)]
    );
    let error: Option<String> =
        sqlx::query_scalar("SELECT last_error FROM notification_outbox WHERE order_id = $1")
            .bind(&order_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert!(error.unwrap().starts_with("unconfirmed: "));
    app.stop().await;
}

/// A reminder whose loan cannot be read is a failed try like a provider's failure: tried again after the back-off,
/// not at every tick until its tries are spent within minutes.
#[tokio::test]
async fn a_reminder_whose_loan_cannot_be_read_waits_its_back_off() {
    let app = spawn_app().await;
    let Loan { order_id, .. } = app.borrower(IN).phone("9876500253").disbursed().await;
    queue_texts(&app, &order_id, "due_in_3", 1).await;
    app.execute(&format!(
        "UPDATE loan_arrears SET balances_json = 'not json' WHERE order_id = '{order_id}'"
    ))
    .await;
    let at = ten_ist(&app);
    for minutes in 0..5 {
        reminders::deliver(&app.services, at + Duration::minutes(minutes))
            .await
            .unwrap();
    }
    let (status, attempts, next_try_at): (String, i64, Option<i64>) = sqlx::query_as(
        "SELECT status, attempts, next_try_at FROM notification_outbox WHERE order_id = $1",
    )
    .bind(&order_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!((status.as_str(), attempts), ("pending", 1));
    assert!(next_try_at.unwrap() > app.services.clock.now_ms());
    app.stop().await;
}

/// A run starts no send once its time is up, within a page too: through a gateway that answers after 0.3 s, two at a
/// time, a run given a second sends a few of a page of 200 and leaves the rest pending, unclaimed and untried, for the
/// next run (one that finished its page would take 30 s and send all 200).
#[tokio::test]
async fn a_run_starts_no_send_once_its_time_is_up() {
    let (_gateway, app, order_id) = pushing_app("9876500251", 300, Some(2)).await;
    queue_texts(&app, &order_id, reminders::PUSH_RECEIPT, 250).await;
    let started = std::time::Instant::now();
    let sent = reminders::deliver_within(
        &app.services,
        ten_ist(&app),
        std::time::Duration::from_secs(1),
    )
    .await
    .unwrap() as i64;
    let took = started.elapsed();
    // About eight: two at a time, three or four times in the second, each finished once started.
    assert!((1..50).contains(&sent), "{sent} sent");
    assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    assert_eq!(
        outbox_by_status(&app, &order_id).await,
        vec![
            ("pending".to_owned(), 250 - sent),
            ("sent".to_owned(), sent)
        ]
    );
    let untried: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM notification_outbox WHERE order_id = $1 AND status = 'pending' AND attempts = 0",
    )
    .bind(&order_id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(untried, 250 - sent);
    app.stop().await;
}

/// The benchmark of the reminders' sender (ignored by `make test`): BENCH_REMINDERS_TEXTS receipts to push (default
/// 2,000) queued for one borrower with one device (`pushing_app`), sent by one run through a push gateway that answers
/// each call after BENCH_REMINDERS_DELAY_MS (default 100), BENCH_REMINDERS_AT_ONCE at once (default the setting's 8).
/// Prints the pushes sent in the run and their rate; every one is checked sent or left pending, none lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark: docs/PERFORMANCE.md, \"The reminders' sender\""]
async fn bench_reminders_sent_by_one_run() {
    use crate::helpers::knob;
    let texts: usize = knob("BENCH_REMINDERS_TEXTS").unwrap_or(2_000);
    let delay: u64 = knob("BENCH_REMINDERS_DELAY_MS").unwrap_or(100);
    let at_once: Option<usize> = knob("BENCH_REMINDERS_AT_ONCE");
    let (_gateway, app, order_id) = pushing_app("9876500249", delay, at_once).await;
    queue_texts(&app, &order_id, reminders::PUSH_RECEIPT, texts).await;
    let started = std::time::Instant::now();
    let sent = reminders::deliver(&app.services, ten_ist(&app))
        .await
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    let by_status = outbox_by_status(&app, &order_id).await;
    let left = texts as i64 - sent as i64;
    let mut expected = vec![("sent".to_owned(), sent as i64)];
    if left > 0 {
        expected.insert(0, ("pending".to_owned(), left));
    }
    assert_eq!(by_status, expected);
    println!(
        "BENCH_REMINDERS texts={texts} delay_ms={delay} at_once={} sent={sent} left={left} seconds={seconds:.2} \
         per_second={:.1} per_minute={:.0}",
        app.services.sends_at_once,
        sent as f64 / seconds,
        sent as f64 / seconds * 60.0
    );
    app.stop().await;
}

#[tokio::test]
async fn indonesian_reminders_are_in_indonesian_with_rupiah_and_wait_until_eight_wib() {
    let app = spawn_app().await;
    let Loan { order_id: id, .. } = app.borrower(ID).disbursed().await;
    let stored = app.db.loan(&id).await.unwrap().unwrap();
    let plan: Plan = serde_json::from_str(&stored.plan_json).unwrap();
    let due = plan.quote.installments[0].due_date;
    let wib = |hh: u8, date: Date| {
        date.with_hms(hh, 0, 0)
            .unwrap()
            .assume_offset(time::UtcOffset::from_hms(7, 0, 0).unwrap())
    };
    // Indonesia's business date (India's is a day behind from 22:30 to midnight IST).
    app.set_indonesia_date(due).await;
    let date = app.services.clock.today(Market::Indonesia);
    overdue::run(&app.services, Market::Indonesia, due, "test")
        .await
        .unwrap();
    let queued = app.db.notifications_of(&id).await.unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].kind, "due_today");
    assert!(
        queued[0].text.contains("jatuh tempo hari ini")
            && queued[0].text.contains("Rp ")
            && !queued[0].text.contains("Rp1")
            && !queued[0].text.contains('/'),
        "{}",
        queued[0].text
    );
    assert_eq!(
        reminders::deliver(&app.services, wib(7, date))
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        reminders::deliver(&app.services, wib(20, date))
            .await
            .unwrap(),
        0
    );
    // 19:00 WIB is still within Indonesia's hours (India's end at 19:00 IST).
    assert_eq!(
        reminders::deliver(&app.services, wib(19, date))
            .await
            .unwrap(),
        1
    );
}

#[tokio::test]
async fn the_benchmarks_seeded_loans_are_charged_and_replay_like_paid_out_ones() {
    let app = spawn_app().await;
    let payout = time::macros::date!(2026 - 01 - 01);
    let installments = kilat_server::jobs::seed::open_loans(
        &app.services,
        &app.catalog.get(Market::India, "in-flexi-6m").unwrap(),
        2_000_000,
        "m6",
        payout,
        2_050,
    )
    .await
    .unwrap();
    assert_eq!(installments, 12_300);
    let late = time::macros::date!(2026 - 02 - 05);
    let report = overdue::run(&app.services, Market::India, late, "test")
        .await
        .unwrap();
    // Three pages (on PostgreSQL two at once, the third started when one ends); every loan charged its first
    // installment's flat charge once, moved to overdue and given its position.
    assert_eq!(
        (report.orders, report.late_charges, report.fell_overdue),
        (2_050, 2_050, 2_050)
    );
    let (charges, overdue_orders, positions): (i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM ledger_entries WHERE kind = 'late_charge'),
                (SELECT COUNT(*) FROM orders WHERE status = 'overdue'),
                (SELECT COUNT(*) FROM loan_arrears WHERE balances_json IS NOT NULL AND outstanding IS NOT NULL)",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!((charges, overdue_orders, positions), (2_050, 2_050, 2_050));
    let (id,): (String,) = sqlx::query_as("SELECT id FROM orders ORDER BY id DESC LIMIT 1")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    let stored = app.db.loan(&id).await.unwrap().unwrap();
    let plan: Plan = serde_json::from_str(&stored.plan_json).unwrap();
    let entries: Vec<_> = app
        .db
        .ledger(&id)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.entry)
        .collect();
    let balances = replay(&plan, &entries).unwrap();
    assert_eq!(balances.due.late_charges, plan.quote.late_charge.flat);
    assert_eq!(status_of(&app, &id).await, "overdue");
    let again = overdue::sweep(&app.services, Market::India, late)
        .await
        .unwrap();
    assert_eq!(again.late_charges, 0);
}

/// A timeline row: status, event, actor, actor id, time.
type TimelineRow = (String, Option<String>, String, Option<String>, i64);

/// An order's timeline and audit entries as `apply_in` and `apply_many_in` write them, the order number in the audit
/// texts replaced so that two orders' rows compare.
async fn written_for(app: &TestApp, order_id: &str) -> (String, Vec<String>, Vec<String>) {
    let (status, order_no, updated_at, closed_at): (String, String, i64, Option<i64>) =
        sqlx::query_as("SELECT status, order_no, updated_at, closed_at FROM orders WHERE id = $1")
            .bind(order_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    let timeline: Vec<TimelineRow> = sqlx::query_as(
        "SELECT status, event, actor, actor_id, at FROM order_events WHERE order_id = $1 ORDER BY at",
    )
    .bind(order_id)
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    let audit = app.db.audit_of("order", order_id).await.unwrap();
    let audit = audit
        .into_iter()
        .map(|a| {
            let text = format!(
                "{} {:?} {} {} {:?} {:?} {}",
                a.actor_kind, a.actor_id, a.action, a.entity, a.before_json, a.after_json, a.at
            );
            text.replace(&order_no, "ORDER")
        })
        .collect();
    (
        format!("{status} {updated_at} {closed_at:?}"),
        timeline.into_iter().map(|t| format!("{t:?}")).collect(),
        audit,
    )
}

/// `loans` disbursed six-month Flexi EMI loans paid out on 2026-01-01, seeded as the overdue benchmark seeds them; their
/// order ids in id order.
async fn open_flexi_loans(app: &TestApp, loans: usize) -> Vec<String> {
    kilat_server::jobs::seed::open_loans(
        &app.services,
        &app.catalog.get(Market::India, "in-flexi-6m").unwrap(),
        2_000_000,
        "m6",
        time::macros::date!(2026 - 01 - 01),
        loans,
    )
    .await
    .unwrap();
    sqlx::query_scalar("SELECT id FROM orders ORDER BY id")
        .fetch_all(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_batch_of_status_changes_writes_exactly_what_one_change_at_a_time_writes() {
    use kilat_domain::OrderEvent::{CatchUp, Extend, FallOverdue, RepayInFull};
    use kilat_server::error::{Error, Refusal};
    use kilat_server::orders::{self, Actor};

    let app = spawn_app().await;
    let ids = open_flexi_loans(&app, 8).await;
    let (single, batch) = ids.split_at(4);
    let actor = Actor::System("overdue_job");
    // Two rounds of moves, each a mix the job and the repayments make; the second refused for one order.
    let rounds: [(i64, [kilat_domain::OrderEvent; 4]); 2] = [
        (1_000, [FallOverdue, FallOverdue, FallOverdue, FallOverdue]),
        (2_000, [CatchUp, RepayInFull, FallOverdue, Extend]),
    ];
    for (now, events) in rounds {
        // One at a time: the events the state refuses are skipped (each would fail its own transaction).
        let mut tx = app.db.begin().await.unwrap();
        let mut expected = Vec::new();
        for (id, event) in single.iter().zip(events) {
            match orders::apply_in(&mut tx, id, event, &actor, now).await {
                Ok(next) => expected.push(Some(next)),
                Err(Error::Refused(Refusal::InvalidTransition)) => expected.push(None),
                Err(e) => panic!("{e}"),
            }
        }
        tx.commit().await.unwrap();
        // The same events in one batch: the ones refused one at a time make the whole batch fail, writing nothing.
        let changes: Vec<(&str, kilat_domain::OrderEvent)> =
            batch.iter().map(String::as_str).zip(events).collect();
        let mut tx = app.db.begin().await.unwrap();
        let all = orders::apply_many_in(&mut tx, &changes, &actor, now).await;
        if expected.iter().any(Option::is_none) {
            assert!(
                matches!(all, Err(Error::Refused(Refusal::InvalidTransition))),
                "{all:?}"
            );
            drop(tx);
            let accepted: Vec<_> = changes
                .iter()
                .zip(&expected)
                .filter(|(_, e)| e.is_some())
                .map(|(c, _)| *c)
                .collect();
            let mut tx = app.db.begin().await.unwrap();
            let moved = orders::apply_many_in(&mut tx, &accepted, &actor, now)
                .await
                .unwrap();
            tx.commit().await.unwrap();
            assert_eq!(
                moved,
                expected.iter().flatten().copied().collect::<Vec<_>>()
            );
        } else {
            tx.commit().await.unwrap();
            assert_eq!(
                all.unwrap(),
                expected.iter().flatten().copied().collect::<Vec<_>>()
            );
        }
    }
    for (one, many) in single.iter().zip(batch) {
        let (a, b) = (written_for(&app, one).await, written_for(&app, many).await);
        assert_eq!(a, b);
        assert!(!a.1.is_empty() && a.1.len() == a.2.len(), "{a:?}");
    }
    // The statuses the rounds lead to: caught up; repaid (and closed); still overdue (the refused event); extended.
    let statuses: Vec<String> = statuses_of(&app, batch).await;
    assert_eq!(statuses, ["disbursed", "repaid", "overdue", "disbursed"]);
    // An order twice in one batch, or one that does not exist, is refused as a whole.
    let mut tx = app.db.begin().await.unwrap();
    let twice = [
        (batch[0].as_str(), FallOverdue),
        (batch[0].as_str(), CatchUp),
    ];
    assert!(
        orders::apply_many_in(&mut tx, &twice, &actor, 3_000)
            .await
            .is_err()
    );
    drop(tx);
    let mut tx = app.db.begin().await.unwrap();
    let missing = [
        (batch[0].as_str(), FallOverdue),
        ("no-such-order", FallOverdue),
    ];
    assert!(matches!(
        orders::apply_many_in(&mut tx, &missing, &actor, 3_000).await,
        Err(Error::NotFound)
    ));
}

/// The lifecycle's batch for orders the caller has already read under its lock (the overdue job's page, a batch of
/// callbacks) does not read them again, so the row it is given is all it knows: a row read before another transaction
/// moved the order is refused by the conditional update (the order stays as that transaction left it, with no timeline
/// or audit entry), and a current one moves as `apply_many_in` moves it.
#[tokio::test]
async fn a_batch_of_orders_already_read_refuses_one_that_moved_since_and_writes_nothing() {
    use kilat_domain::OrderEvent::FallOverdue;
    use kilat_server::error::{Error, Refusal};
    use kilat_server::orders::{self, Actor};

    let app = spawn_app().await;
    let ids = open_flexi_loans(&app, 2).await;
    let actor = Actor::System("overdue_job");
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    // Read (as the job's page reads them), then one of them moved by another transaction.
    let mut tx = app.db.begin().await.unwrap();
    let read = tx.orders_for_update(&id_refs).await.unwrap();
    drop(tx);
    let mut tx = app.db.begin().await.unwrap();
    orders::apply_in(&mut tx, &ids[0], FallOverdue, &actor, 1_000)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let written_before = written_for(&app, &ids[1]).await;

    let changes: Vec<_> = read.iter().map(|row| (row, FallOverdue)).collect();
    let mut tx = app.db.begin().await.unwrap();
    assert!(matches!(
        orders::apply_many_held_in(&mut tx, &changes, &actor, 2_000).await,
        Err(Error::Refused(Refusal::InvalidTransition))
    ));
    drop(tx);
    assert_eq!(statuses_of(&app, &ids).await, ["overdue", "disbursed"]);
    assert_eq!(written_for(&app, &ids[1]).await, written_before);

    // Read again: the current rows move.
    let mut tx = app.db.begin().await.unwrap();
    let read = tx.orders_for_update(&id_refs[1..]).await.unwrap();
    let changes: Vec<_> = read.iter().map(|row| (row, FallOverdue)).collect();
    let moved = orders::apply_many_held_in(&mut tx, &changes, &actor, 2_000)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(moved, [kilat_domain::OrderState::Overdue]);
    assert_eq!(statuses_of(&app, &ids).await, ["overdue", "overdue"]);
}

async fn statuses_of(app: &TestApp, ids: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for id in ids {
        out.push(status_of(app, id).await);
    }
    out
}

/// A borrower's loan screens (the plan, the repayment choices) read the loan's kept position instead of its ledger:
/// the same answer, since the position is the ledger's replay. A loan without one (paid out before migration 0044 and
/// not posted to since) has its ledger replayed and shows the same; a read writes no position.
#[tokio::test]
async fn the_loan_screens_read_the_kept_position_and_replay_the_ledger_of_a_loan_without_one() {
    let app = spawn_app().await;
    let Loan {
        session,
        order_no,
        order_id: id,
        plan,
        ..
    } = app.borrower(IN).disbursed().await;
    let as_paid_out = app.position_json(&id).await;
    assert!(as_paid_out.is_some());
    // A late charge after the payout, so that the ledger holds more than its opening entries.
    app.set_date(due_date(&plan, 0) + Duration::days(1)).await;
    assert_eq!(app.run_overdue(Market::India).await.late_charges, 1);
    let screens = || async {
        (
            app.plan_of(&session, &order_no).await,
            app.repayment_of(&session, &order_no).await,
        )
    };
    // What the choice of the installment due asks for.
    let due_amount = |repayment: &Value| {
        repayment["choices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["choice"] == "due")
            .expect("the installment due is offered")["amount"]
            .clone()
    };
    let kept = screens().await;
    assert_eq!(kept.0, check_ledger(&app, &session, &order_no, &id).await);
    assert_ne!(kept.0["outstanding"]["lateCharges"], json!(0));

    let set_position = |json: Option<String>| {
        sqlx::query("UPDATE loan_arrears SET balances_json = $1 WHERE order_id = $2")
            .bind(json)
            .bind(&id)
            .execute(app.db.pool())
    };
    set_position(None).await.unwrap();
    assert_eq!(screens().await, kept, "the ledger replayed gives the same");
    assert_eq!(
        app.position_json(&id).await,
        None,
        "a read writes no position"
    );

    // The screens answer from the position, not from the ledger: one left as the payout wrote it (no writer leaves
    // one behind its ledger; this one is set by hand) shows no late charge.
    set_position(as_paid_out).await.unwrap();
    let (plan_then, repayment_then) = screens().await;
    assert_eq!(plan_then["outstanding"]["lateCharges"], json!(0));
    assert_ne!(due_amount(&repayment_then), due_amount(&kept.1));
}

/// An installment extended on its due day, after its three reminders went out, gets them again for its new date: the
/// outbox keeps one text of each kind per installment and due date (before, the texts already sent for the old date
/// kept the new date's from being queued, and the borrower missed it without a word).
#[tokio::test]
async fn an_extended_installment_is_reminded_again_for_its_new_due_date() {
    let app = spawn_app().await;
    let phone = "9876500245";
    let Loan {
        order_id: id,
        order_no,
        plan,
        ..
    } = app
        .borrower(IN)
        .phone(phone)
        .loan("in-flexi-14d", 1_000_000, "14dx3")
        .disbursed()
        .await;
    let due = due_date(&plan, 0);
    let sent_on = |date: Date| {
        let app = &app;
        async move {
            app.set_date(date).await;
            app.run_overdue(Market::India).await;
            reminders::deliver(&app.services, eight_ist(date))
                .await
                .unwrap()
        }
    };
    for offset in [-3, -1, 0] {
        assert_eq!(
            sent_on(due + Duration::days(offset)).await,
            1,
            "day {offset}"
        );
    }
    // On the due day, after 08:00, the borrower buys an extension and finance confirms its fee.
    let session = app.sign_in("IN", phone).await;
    let finance = operator(&app, "fin-ext", &[Role::Finance]).await;
    let accepted = app
        .client
        .post(app.url(&format!("/api/v1/borrower/orders/{order_no}/extension")))
        .header("x-session-id", &session)
        .header("idempotency-key", "remind-ext-245")
        .json(&json!({"method": "upi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), StatusCode::OK);
    let fee = data(accepted).await;
    let fee_id = fee["paymentId"].as_str().unwrap();
    assert_eq!(
        submit_utr(&app, &session, fee_id, "500000000245")
            .await
            .status(),
        StatusCode::OK
    );
    let confirmed = op_call(
        &app,
        &finance,
        reqwest::Method::POST,
        &format!("/api/v1/console/payments/{fee_id}/confirm"),
        Some(json!({"amount": fee["amount"]})),
    )
    .await;
    assert_eq!(confirmed.status(), StatusCode::OK);
    // The fee's receipt goes out.
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(due) + Duration::hours(2))
            .await
            .unwrap(),
        1
    );
    let extended = check_ledger(&app, &session, &order_no, &id).await;
    let new_due = due_date(&extended, 0);
    assert!(new_due > due, "{extended}");
    // The new date's three reminders, and the overdue one the day after it.
    for offset in [-3, -1, 0, 1] {
        assert_eq!(
            sent_on(new_due + Duration::days(offset)).await,
            1,
            "new day {offset}"
        );
    }
    let kinds: Vec<String> = app
        .db
        .notifications_of(&id)
        .await
        .unwrap()
        .into_iter()
        .filter(|n| n.installment == 1 && n.status == "sent")
        .map(|n| n.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            "due_in_3",
            "due_in_1",
            "due_today",
            "due_in_3",
            "due_in_1",
            "due_today",
            "overdue"
        ]
    );
}

/// A loan whose stored position or plan the money engine cannot read is left as it was and logged; every other loan
/// of the market is still charged, moved overdue and reminded (before, the one bad row failed its page, and every
/// page after it, every day).
#[tokio::test]
async fn a_loan_the_engine_cannot_read_is_skipped_and_the_rest_of_the_market_is_worked() {
    let app = spawn_app().await;
    let mut loans = Vec::new();
    for _ in 0..3 {
        let Loan { order_id, plan, .. } = app.borrower(IN).disbursed().await;
        loans.push((order_id, due_date(&plan, 0)));
    }
    loans.sort();
    let (bad_position, bad_plan, good) = (&loans[0].0, &loans[1].0, &loans[2].0);
    app.execute(&format!(
        "UPDATE loan_arrears SET balances_json = '{{}}' WHERE order_id = '{bad_position}'"
    ))
    .await;
    app.execute(&format!(
        "UPDATE loans SET plan_json = 'not a plan' WHERE order_id = '{bad_plan}'"
    ))
    .await;
    let due = loans.iter().map(|l| l.1).max().unwrap();
    app.set_date(due + Duration::days(1)).await;
    let report = app.run_overdue(Market::India).await;
    assert!(report.ran);
    assert_eq!((report.skipped, report.orders), (2, 1), "{report:?}");
    assert_eq!(late_charges(&app, good).await.len(), 1);
    assert_eq!(status_of(&app, good).await, "overdue");
    for bad in [bad_position, bad_plan] {
        assert_eq!(late_charges(&app, bad).await.len(), 0);
        assert_eq!(status_of(&app, bad).await, "disbursed");
    }
}

/// A loan whose first installment fell due yesterday, after today's overdue run: (order id, due date).
async fn overdue_since_yesterday(app: &TestApp) -> (String, Date) {
    let Loan {
        order_id: id, plan, ..
    } = app.borrower(IN).disbursed().await;
    let due = due_date(&plan, 0);
    app.set_date(due + Duration::days(1)).await;
    app.run_overdue(Market::India).await;
    (id, due)
}

/// The job run by hand for a day before today (to catch up after an outage) never moves a loan back to current
/// because it was not overdue on that day: today's run decides the status.
#[tokio::test]
async fn a_run_for_a_past_date_moves_no_order_back_to_current() {
    let app = spawn_app().await;
    let (id, due) = overdue_since_yesterday(&app).await;
    assert_eq!(status_of(&app, &id).await, "overdue");
    let report = overdue::run(
        &app.services,
        Market::India,
        due - Duration::days(1),
        "by-hand",
    )
    .await
    .unwrap();
    assert!(report.ran);
    assert_eq!(report.caught_up, 0, "{report:?}");
    assert_eq!(status_of(&app, &id).await, "overdue");
}

/// Reminders queued before migration 0066 carry no due date: the overdue job, queuing an overdue loan's text again
/// every day, finds the one sent before the upgrade and queues no second one (an upgrade must not text the whole
/// overdue book again).
#[tokio::test]
async fn a_reminder_sent_before_the_upgrade_is_not_sent_again() {
    let app = spawn_app().await;
    let (id, due) = overdue_since_yesterday(&app).await;
    // As the upgrade leaves it: sent, without a due date.
    app.execute(&format!(
        "UPDATE notification_outbox SET due_on = '', status = 'sent' WHERE order_id = '{id}'"
    ))
    .await;
    app.set_date(due + Duration::days(2)).await;
    assert_eq!(app.run_overdue(Market::India).await.reminders, 0);
    let overdue: Vec<_> = app
        .db
        .notifications_of(&id)
        .await
        .unwrap()
        .into_iter()
        .filter(|n| n.kind == "overdue")
        .collect();
    assert_eq!(overdue.len(), 1);
}

/// A reminder the SMS provider may have taken (its answer never came) is not texted again, by the call's own retries
/// either; one it said it could not send is tried again.
#[tokio::test]
async fn a_reminder_the_provider_may_have_sent_is_not_sent_again_and_one_it_failed_is() {
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};

    let database = crate::helpers::shared_database().await;
    let setup = crate::helpers::spawn_app_on(&database.url).await;
    let Loan {
        order_id: id, plan, ..
    } = setup.borrower(IN).phone("9876500247").disbursed().await;
    let due = due_date(&plan, 0);
    setup.set_date(due - Duration::days(3)).await;
    setup.run_overdue(Market::India).await;
    setup.stop().await;

    let provider = wiremock::MockServer::start().await;
    let app = crate::helpers::spawn_app_on_with(&database.url, |s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = format!("{}/send", provider.uri());
        s.sms.http_timeout_ms = 300;
        s.sms.http_retries = 2;
    })
    .await;
    // Taken, and answered too late.
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(3)))
        .up_to_n_times(1)
        .mount(&provider)
        .await;
    let day = due - Duration::days(3);
    app.set_date(day).await;
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(day))
            .await
            .unwrap(),
        1
    );
    let [note] = &app.db.notifications_of(&id).await.unwrap()[..] else {
        panic!("one reminder")
    };
    assert_eq!(
        (note.kind.as_str(), note.status.as_str()),
        ("due_in_3", "sent")
    );
    assert!(note.sent_at.is_some());
    let later = eight_ist(day) + Duration::hours(1);
    assert_eq!(reminders::deliver(&app.services, later).await.unwrap(), 0);
    assert_eq!(provider.received_requests().await.unwrap().len(), 1);

    // Two days on, the provider says it failed: the text waits for another try.
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&provider)
        .await;
    let day = due - Duration::days(1);
    app.set_date(day).await;
    app.run_overdue(Market::India).await;
    assert_eq!(
        reminders::deliver(&app.services, eight_ist(day))
            .await
            .unwrap(),
        0
    );
    let notes = app.db.notifications_of(&id).await.unwrap();
    let due_in_1 = notes.iter().find(|n| n.kind == "due_in_1").unwrap();
    assert_eq!(
        (due_in_1.status.as_str(), due_in_1.attempts),
        ("pending", 1)
    );
    app.stop().await;
    database.remove().await;
}

/// An overdue reminder warns of late charges only when the loan's accepted KFS has any: a borrower whose loan charges
/// none is not told that charges apply.
#[tokio::test]
async fn an_overdue_reminder_mentions_late_charges_only_when_the_kfs_has_them() {
    let app = spawn_app().await;
    let Loan {
        order_id: charged,
        plan,
        ..
    } = app.borrower(IN).phone("9876500251").disbursed().await;
    let Loan { order_id: free, .. } = app.borrower(IN).phone("9876500252").disbursed().await;
    // The second loan's accepted terms charge nothing late.
    let (json,): (String,) = sqlx::query_as("SELECT plan_json FROM loans WHERE order_id = $1")
        .bind(&free)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    let mut stored: Value = serde_json::from_str(&json).unwrap();
    stored["quote"]["lateCharge"] = json!({"flat": 0, "perDay": 0, "maxDays": 0});
    sqlx::query("UPDATE loans SET plan_json = $1 WHERE order_id = $2")
        .bind(stored.to_string())
        .bind(&free)
        .execute(app.db.pool())
        .await
        .unwrap();
    app.set_date(due_date(&plan, 0) + Duration::days(1)).await;
    app.run_overdue(Market::India).await;
    let overdue_text = |id: String| {
        let app = &app;
        async move {
            let notes = app.db.notifications_of(&id).await.unwrap();
            notes
                .into_iter()
                .find(|n| n.kind == "overdue")
                .unwrap()
                .text
        }
    };
    let text = overdue_text(charged).await;
    assert!(
        text.contains("Late charges apply as your KFS states."),
        "{text}"
    );
    let text = overdue_text(free).await;
    assert!(
        text.contains("is outstanding. Repay in the Kilat app."),
        "{text}"
    );
    assert!(!text.contains("Late charges"), "{text}");
}

/// An SMS provider down for a while (its first five answers errors) is waited out: each failed try puts the next one
/// further off (1, 2, 5, 10, 20 minutes), so the reminder is sent once the provider is back, on the sixth try, instead
/// of every try being spent within five minutes and the reminder given up.
#[tokio::test]
async fn a_reminder_waits_out_an_sms_provider_down_for_a_while_and_is_sent_once_it_is_back() {
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};

    let database = crate::helpers::shared_database().await;
    let setup = crate::helpers::spawn_app_on(&database.url).await;
    let Loan {
        order_id: id, plan, ..
    } = setup.borrower(IN).phone("9876500248").disbursed().await;
    let day = due_date(&plan, 0) - Duration::days(3);
    setup.set_date(day).await;
    setup.run_overdue(Market::India).await;
    setup.stop().await;

    let provider = wiremock::MockServer::start().await;
    let app = crate::helpers::spawn_app_on_with(&database.url, |s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = format!("{}/send", provider.uri());
        s.sms.http_timeout_ms = 2_000;
        s.sms.http_retries = 0;
    })
    .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(5)
        .mount(&provider)
        .await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200))
        .mount(&provider)
        .await;
    // Queued before eight (the day's first moment).
    app.execute("UPDATE notification_outbox SET created_at = 0, updated_at = 0")
        .await;
    // A run each minute from 08:00 IST for 45 minutes.
    let mut sent_at_minute = None;
    for minute in 0..45 {
        let at = time::Time::from_hms(8, minute, 0).unwrap();
        app.services
            .clock
            .set_local_time(Market::India, day, at)
            .unwrap();
        let sent = reminders::deliver(&app.services, app.services.clock.now())
            .await
            .unwrap();
        if sent == 1 {
            sent_at_minute = Some(minute);
            break;
        }
    }
    let tries = provider.received_requests().await.unwrap().len();
    let [note] = &app.db.notifications_of(&id).await.unwrap()[..] else {
        panic!("one reminder")
    };
    assert_eq!(
        (note.status.as_str(), note.attempts),
        ("sent", 5),
        "{note:?}"
    );
    assert_eq!(tries, 6);
    // Tried at 0, 1, 3, 8, 18 and 38 minutes past eight (a run a minute late when the clock's milliseconds fall so).
    assert!(
        sent_at_minute.is_some_and(|m| (38..45).contains(&m)),
        "{sent_at_minute:?}"
    );
    app.stop().await;
    database.remove().await;
}
