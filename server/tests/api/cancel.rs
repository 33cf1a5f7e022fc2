//! The borrower withdraws an application (`POST /orders/{orderNo}/cancel`): from pending review or approved, never
//! after the payout; once, however many cancels and approvals race; never another borrower's.

use kilat_domain::{Code, OrderEvent, OrderState};
use kilat_server::error::{Error, Refusal};
use kilat_server::orders::{self, Actor};
use reqwest::StatusCode;
use serde_json::json;

use crate::builders::{Application, IN};
use crate::helpers::{TestApp, data, error, spawn_app};

fn cancel_path(order_no: &str) -> String {
    format!("/api/v1/borrower/orders/{order_no}/cancel")
}

async fn cancel(app: &TestApp, session: &str, order_no: &str) -> reqwest::Response {
    app.post_as(&cancel_path(order_no), session, &json!({}))
        .await
}

#[tokio::test]
async fn a_borrower_cancels_an_application_in_review_and_may_apply_again() {
    let app = spawn_app().await;
    let Application {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).applied().await;

    let response = cancel(&app, &session, &order_no).await;
    assert_eq!(response.status(), StatusCode::OK);
    let order = data(response).await;
    assert_eq!(order["orderNo"], order_no.as_str());
    assert_eq!(order["status"], "cancelled");
    let timeline: Vec<&str> = order["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(timeline, ["pending_review", "cancelled"]);
    assert_eq!(app.order_counts(&id).await, ("cancelled".into(), 2, 2));
    let audit = app.db.audit_of("order", &id).await.unwrap();
    assert_eq!(audit[1].action, "order.cancel");
    assert_eq!(audit[1].actor_kind, "borrower");

    // Cancelled is final: the order is closed, and the borrower may apply again.
    let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
    assert!(home["openOrder"].is_null(), "{home}");
    assert_eq!(home["eligible"], true, "{home}");

    // A second cancel changes nothing.
    let again = cancel(&app, &session, &order_no).await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "invalid_transition");
    assert_eq!(app.order_counts(&id).await, ("cancelled".into(), 2, 2));
    app.stop().await;
}

#[tokio::test]
async fn an_approved_application_can_be_cancelled_but_not_one_paid_out_or_declined() {
    let app = spawn_app().await;
    let Application {
        session, order_no, ..
    } = app.borrower(IN).approved().await;
    let response = cancel(&app, &session, &order_no).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(data(response).await["status"], "cancelled");

    let Application {
        session: paid_session,
        order_no: paid_no,
        order_id: paid_id,
        ..
    } = app.borrower(IN).approved().await;
    orders::apply(
        &app.services,
        &paid_id,
        OrderEvent::Disburse,
        &Actor::Operator("op-finance".into()),
    )
    .await
    .unwrap();
    let refused = cancel(&app, &paid_session, &paid_no).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    let body = error(refused).await;
    assert_eq!(body["code"], "invalid_transition");
    assert!(!body["msg"].as_str().unwrap().is_empty());
    assert_eq!(app.order_counts(&paid_id).await, ("disbursed".into(), 3, 3));

    let Application {
        session: declined_session,
        order_no: declined_no,
        order_id: declined_id,
        ..
    } = app.borrower(IN).applied().await;
    orders::apply(
        &app.services,
        &declined_id,
        OrderEvent::Reject,
        &Actor::Operator("op-reviewer".into()),
    )
    .await
    .unwrap();
    let refused = cancel(&app, &declined_session, &declined_no).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert_eq!(
        app.order_counts(&declined_id).await,
        ("rejected".into(), 2, 2)
    );
    app.stop().await;
}

#[tokio::test]
async fn another_borrowers_order_cannot_be_cancelled_nor_anyones_without_a_session() {
    let app = spawn_app().await;
    let Application {
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).applied().await;
    let other = app.borrower(IN).await.session;
    let response = cancel(&app, &other, &order_no).await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    assert_eq!(error(response).await["code"], "not_found");
    let anonymous = app.post_json(&cancel_path(&order_no), &json!({})).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    let missing = cancel(&app, &other, "KL-000000-NOSUCH").await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    assert_eq!(app.order_counts(&id).await, ("pending_review".into(), 1, 1));
    app.stop().await;
}

#[tokio::test]
async fn of_a_burst_of_simultaneous_cancels_exactly_one_cancels() {
    let app = spawn_app().await;
    let Application {
        session,
        order_no,
        order_id: id,
        ..
    } = app.borrower(IN).applied().await;
    let attempts: Vec<_> = (0..16)
        .map(|_| {
            let client = app.client.clone();
            let url = app.url(&cancel_path(&order_no));
            let session = session.clone();
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("x-session-id", session)
                    .json(&json!({}))
                    .send()
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for attempt in attempts {
        let response = attempt.await.unwrap();
        let status = response.status();
        if status == StatusCode::CONFLICT {
            assert_eq!(error(response).await["code"], "invalid_transition");
        }
        statuses.push(status);
    }
    let ok = statuses.iter().filter(|s| **s == StatusCode::OK).count();
    let conflicts = statuses
        .iter()
        .filter(|s| **s == StatusCode::CONFLICT)
        .count();
    assert_eq!((ok, conflicts), (1, 15), "{statuses:?}");
    assert_eq!(app.order_counts(&id).await, ("cancelled".into(), 2, 2));
    app.stop().await;
}

/// The timeline of an order, oldest first.
async fn timeline(app: &TestApp, order_id: &str) -> Vec<String> {
    app.db
        .order_events(order_id)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.status.code().to_owned())
        .collect()
}

#[tokio::test]
async fn of_an_approval_or_a_rejection_racing_a_cancel_exactly_one_moves_the_application_in_review()
{
    let app = spawn_app().await;
    for n in 0..8 {
        let Application {
            session,
            order_no,
            order_id: id,
            ..
        } = app.borrower(IN).applied().await;
        let decision = if n % 2 == 0 {
            OrderEvent::Approve
        } else {
            OrderEvent::Reject
        };
        let cancelling = {
            let client = app.client.clone();
            let url = app.url(&cancel_path(&order_no));
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("x-session-id", session)
                    .json(&json!({}))
                    .send()
                    .await
                    .unwrap()
                    .status()
            })
        };
        let deciding = {
            let services = app.services.clone();
            let id = id.clone();
            tokio::spawn(async move {
                orders::apply(
                    &services,
                    &id,
                    decision,
                    &Actor::Operator("op-reviewer".into()),
                )
                .await
            })
        };
        let cancelled = cancelling.await.unwrap();
        let decided = deciding.await.unwrap();
        let (status, events, audits) = app.order_counts(&id).await;
        assert_eq!(events, audits, "every change is audited");
        let history = timeline(&app, &id).await;
        match (cancelled, &decided) {
            // The cancel won: the decision found a final state and wrote nothing.
            (StatusCode::OK, Err(Error::Refused(Refusal::InvalidTransition))) => {
                assert_eq!(history, ["pending_review", "cancelled"]);
            }
            // The approval won; the cancel then withdrew the approved application, a change of its own (an
            // approved application may still be cancelled before the payout).
            (StatusCode::OK, Ok(OrderState::Approved)) => {
                assert_eq!(history, ["pending_review", "approved", "cancelled"]);
            }
            // The decision won and the cancel was refused (a rejection is final).
            (StatusCode::CONFLICT, Ok(state)) => {
                assert_eq!(status, state.code());
                assert_eq!(history, ["pending_review", state.code()]);
            }
            other => panic!("not exactly one winner: {other:?}, {history:?}"),
        }
    }
    app.stop().await;
}
