//! The order lifecycle without HTTP, as the console, the payment callbacks and the jobs will drive it: every status
//! change goes through the state machine and writes status, timeline and audit together, or nothing; and the
//! development business date that lets such tests run at any date.

use kilat_domain::{OrderEvent, OrderState};
use kilat_server::error::{Error, Refusal};
use kilat_server::orders::{self, Actor};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};

/// A certified Indian borrower with a confirmed order: (session, order number, order id).
pub(crate) async fn confirmed_order(app: &TestApp, phone: &str) -> (String, String, String) {
    let session = app.sign_in("IN", phone).await;
    app.certify("IN", &session).await;
    let kfs = data(
        app.post_as(
            "/api/v1/borrower/apply",
            &session,
            &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"}),
        )
        .await,
    )
    .await;
    let order = data(
        app.post_as(
            "/api/v1/borrower/orders",
            &session,
            &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6",
                "kfsHash": kfs["contentHash"], "idempotencyKey": format!("key-{phone}"),
                "agreementHash": app.agreement_hash(&session,
                    &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"})).await}),
        )
        .await,
    )
    .await;
    let order_no = order["orderNo"].as_str().unwrap().to_owned();
    let (id,): (String,) = sqlx::query_as("SELECT id FROM orders WHERE order_no = $1")
        .bind(&order_no)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    (session, order_no, id)
}

#[tokio::test]
async fn an_approval_writes_status_timeline_and_audit_together() {
    let app = spawn_app().await;
    let (session, order_no, id) = confirmed_order(&app, "9876543210").await;
    assert_eq!(app.order_counts(&id).await, ("pending_review".into(), 1, 1));

    let reviewer = Actor::Operator("op-reviewer-1".into());
    let state = orders::apply(&app.services, &id, OrderEvent::Approve, &reviewer)
        .await
        .unwrap();
    assert_eq!(state, OrderState::Approved);
    assert_eq!(app.order_counts(&id).await, ("approved".into(), 2, 2));

    let audit = app.db.audit_of("order", &id).await.unwrap();
    assert_eq!(audit[0].action, "order.open");
    assert_eq!(audit[0].actor_kind, "borrower");
    let approve = &audit[1];
    assert_eq!(approve.action, "order.approve");
    assert_eq!(approve.actor_kind, "operator");
    assert_eq!(approve.actor_id.as_deref(), Some("op-reviewer-1"));
    let before: Value = serde_json::from_str(approve.before_json.as_deref().unwrap()).unwrap();
    let after: Value = serde_json::from_str(approve.after_json.as_deref().unwrap()).unwrap();
    assert_eq!(
        before,
        json!({"orderNo": order_no, "status": "pending_review"})
    );
    assert_eq!(after, json!({"orderNo": order_no, "status": "approved"}));

    // The borrower sees the new status and its timeline entry.
    let detail = data(
        app.get_as(&format!("/api/v1/borrower/orders/{order_no}"), &session)
            .await,
    )
    .await;
    assert_eq!(detail["status"], "approved");
    let timeline: Vec<&str> = detail["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(timeline, ["pending_review", "approved"]);
}

#[tokio::test]
async fn an_event_the_state_refuses_writes_nothing() {
    let app = spawn_app().await;
    let (_, _, id) = confirmed_order(&app, "9876543211").await;
    for event in [
        OrderEvent::Disburse,
        OrderEvent::RepayInFull,
        OrderEvent::FallOverdue,
        OrderEvent::ExitInCoolingOff,
    ] {
        let refused = orders::apply(&app.services, &id, event, &Actor::System("test")).await;
        assert!(
            matches!(refused, Err(Error::Refused(Refusal::InvalidTransition))),
            "{event:?}: {refused:?}"
        );
    }
    assert_eq!(app.order_counts(&id).await, ("pending_review".into(), 1, 1));
    let missing = orders::apply(
        &app.services,
        "no-such-order",
        OrderEvent::Approve,
        &Actor::System("test"),
    )
    .await;
    assert!(matches!(missing, Err(Error::NotFound)), "{missing:?}");
}

#[tokio::test]
async fn of_simultaneous_approvals_and_rejections_exactly_one_wins() {
    let app = spawn_app().await;
    let (_, _, id) = confirmed_order(&app, "9876543212").await;
    let attempts = (0..12).map(|n| {
        let services = app.services.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let event = if n % 2 == 0 {
                OrderEvent::Approve
            } else {
                OrderEvent::Reject
            };
            orders::apply(&services, &id, event, &Actor::Operator(format!("op-{n}"))).await
        })
    });
    let results = futures_join(attempts).await;
    let won: Vec<_> = results.iter().filter(|r| r.is_ok()).collect();
    assert_eq!(won.len(), 1, "{results:?}");
    assert!(
        results
            .iter()
            .filter(|r| r.is_err())
            .all(|r| matches!(r, Err(Error::Refused(Refusal::InvalidTransition)))),
        "{results:?}"
    );
    let (status, events, audits) = app.order_counts(&id).await;
    assert!(status == "approved" || status == "rejected", "{status}");
    assert_eq!((events, audits), (2, 2));
}

async fn futures_join<T: Send + 'static>(
    handles: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        out.push(handle.await.unwrap());
    }
    out
}

#[tokio::test]
async fn a_rejected_order_is_closed_and_the_borrower_may_apply_again() {
    let app = spawn_app().await;
    let (session, _, id) = confirmed_order(&app, "9876543213").await;
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["reasons"], json!(["open_order"]));

    orders::apply(
        &app.services,
        &id,
        OrderEvent::Reject,
        &Actor::Operator("op".into()),
    )
    .await
    .unwrap();
    let (closed_at,): (Option<i64>,) = sqlx::query_as("SELECT closed_at FROM orders WHERE id = $1")
        .bind(&id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert!(closed_at.is_some(), "a final state closes the order");
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert_eq!(home["eligible"], true, "{home}");
    assert!(home["openOrder"].is_null());
}

async fn quote(app: &TestApp, session: &str) -> Value {
    data(
        app.post_as(
            "/api/v1/borrower/quote",
            session,
            &json!({"productCode": "in-flexi-6m", "amount": 2_000_000, "termCode": "m6"}),
        )
        .await,
    )
    .await
}

async fn set_business_date(app: &TestApp, body: Value) -> reqwest::Response {
    app.client
        .put(app.url("/api/v1/dev/business-date"))
        .json(&body)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn the_business_date_moves_the_kfs_dates_in_development() {
    let app = spawn_app().await;
    let set = set_business_date(&app, json!({"date": "2031-03-10"})).await;
    assert_eq!(set.status(), StatusCode::OK);
    assert_eq!(data(set).await["india"], "2031-03-10");
    // Signed in on that date: a session of today would have expired by 2031, as it should.
    let session = app.sign_in("IN", "9876543214").await;
    let kfs = quote(&app, &session).await;
    assert_eq!(kfs["installments"][0]["dueDate"], "2031-04-10", "{kfs}");

    // POST sets it too (the servicing contract's name for the call).
    let posted = app
        .client
        .post(app.url("/api/v1/dev/business-date"))
        .json(&json!({"date": "2031-03-11"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), StatusCode::OK);
    assert_eq!(data(posted).await["india"], "2031-03-11");
    set_business_date(&app, json!({"date": "2031-03-10"})).await;

    let bad = set_business_date(&app, json!({"date": "10/03/2031"})).await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(bad).await["fields"]["date"].is_string());

    let reset = set_business_date(&app, json!({})).await;
    let today = data(reset).await["india"].as_str().unwrap().to_owned();
    assert_ne!(today, "2031-03-10");
    let kfs = quote(&app, &session).await;
    assert!(kfs["installments"][0]["dueDate"].as_str().unwrap() < "2031-01-01");
}

#[tokio::test]
async fn production_has_no_business_date_to_set() {
    let app = crate::helpers::spawn_app_with(crate::helpers::as_production).await;
    let set = set_business_date(&app, json!({"date": "2031-03-10"})).await;
    assert_eq!(set.status(), StatusCode::NOT_FOUND);
    assert!(!app.services.clock.is_adjustable());
}
