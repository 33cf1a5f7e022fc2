//! Moving an FAQ entry up or down in the console (`POST /api/v1/console/faq/{id}/move`): one transaction that trades
//! two positions (or numbers a category with repeated positions densely) with one audit entry, the ends and bad input
//! refused on `direction`, other categories and languages untouched, admins only, and simultaneous moves that leave
//! the positions a permutation.

use std::collections::BTreeSet;

use kilat_server::auth::operators::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{Op, op_call, operator};

fn move_path(id: &str) -> String {
    format!("/api/v1/console/faq/{id}/move")
}

/// A move as the console sends it, asking for English messages (the server's default is Indonesian).
async fn move_with(app: &TestApp, op: &Op, id: &str, body: Value) -> reqwest::Response {
    app.client
        .post(app.url(&move_path(id)))
        .header("cookie", format!("kilat_console={}", op.token))
        .header("x-csrf-token", &op.csrf)
        .header("accept-language", "en")
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn move_entry(app: &TestApp, op: &Op, id: &str, direction: &str) -> reqwest::Response {
    move_with(app, op, id, json!({ "direction": direction })).await
}

/// Every entry, as the console lists them (by language, category, position and id).
async fn listed(app: &TestApp, op: &Op) -> Vec<Value> {
    data(op_call(app, op, Method::GET, "/api/v1/console/faq", None).await)
        .await
        .as_array()
        .unwrap()
        .clone()
}

/// One language's category in the listed order, as (id, position).
fn category(all: &[Value], lang: &str, category: &str) -> Vec<(String, i64)> {
    all.iter()
        .filter(|e| e["lang"] == lang && e["category"] == category)
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["position"].as_i64().unwrap(),
            )
        })
        .collect()
}

/// Everything outside one language's category, whole (positions, texts, times).
fn outside(all: &[Value], lang: &str, category: &str) -> Vec<Value> {
    all.iter()
        .filter(|e| !(e["lang"] == lang && e["category"] == category))
        .cloned()
        .collect()
}

fn pairs(ids: &[(&str, i64)]) -> Vec<(String, i64)> {
    ids.iter().map(|(id, p)| ((*id).to_owned(), *p)).collect()
}

#[tokio::test]
async fn an_entry_trades_places_with_its_neighbour_in_one_audited_move_and_nothing_else_changes() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let admin_id: String = sqlx::query_scalar("SELECT id FROM operators WHERE username = 'ada'")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    let before = listed(&app, &admin).await;
    assert_eq!(
        category(&before, "en", "repay"),
        pairs(&[
            ("faq-en-repay-1", 1),
            ("faq-en-repay-2", 2),
            ("faq-en-repay-3", 3)
        ])
    );

    let moved = data(move_entry(&app, &admin, "faq-en-repay-2", "up").await).await;
    assert_eq!(moved["entry"]["id"], "faq-en-repay-2");
    assert_eq!(moved["entry"]["position"], 1);
    let answered: Vec<(String, i64)> = moved["category"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["position"].as_i64().unwrap(),
            )
        })
        .collect();
    let expected = pairs(&[
        ("faq-en-repay-2", 1),
        ("faq-en-repay-1", 2),
        ("faq-en-repay-3", 3),
    ]);
    assert_eq!(answered, expected);
    let after = listed(&app, &admin).await;
    assert_eq!(category(&after, "en", "repay"), expected);
    // The same category of the other language, and every other category, are as they were.
    assert_eq!(
        outside(&after, "en", "repay"),
        outside(&before, "en", "repay")
    );
    // The texts did not change.
    let text = |all: &[Value], id: &str| {
        all.iter()
            .find(|e| e["id"] == id)
            .map(|e| (e["question"].clone(), e["answer"].clone()))
            .unwrap()
    };
    assert_eq!(
        text(&after, "faq-en-repay-2"),
        text(&before, "faq-en-repay-2")
    );

    // Down again: back where it was.
    let back = data(move_entry(&app, &admin, "faq-en-repay-2", "down").await).await;
    assert_eq!(back["entry"]["position"], 2);
    let again = listed(&app, &admin).await;
    assert_eq!(
        category(&again, "en", "repay"),
        category(&before, "en", "repay")
    );
    // The last one moves up past the middle one.
    data(move_entry(&app, &admin, "faq-en-repay-3", "up").await).await;
    assert_eq!(
        category(&listed(&app, &admin).await, "en", "repay"),
        pairs(&[
            ("faq-en-repay-1", 1),
            ("faq-en-repay-3", 2),
            ("faq-en-repay-2", 3)
        ])
    );

    // One audit entry a move: who, which entry, the category's order before and after.
    let audits = app.audit_entries("faq.move", "faq").await;
    assert_eq!(audits.len(), 3, "{audits:?}");
    let (entity, actor, before_json, after_json) = &audits[0];
    assert_eq!(entity, "faq-en-repay-2");
    assert_eq!(actor, &admin_id);
    let before_json: Value = serde_json::from_str(before_json).unwrap();
    let after_json: Value = serde_json::from_str(after_json).unwrap();
    assert_eq!(before_json["lang"], "en");
    assert_eq!(before_json["category"], "repay");
    assert_eq!(
        before_json["order"],
        json!([
            {"id": "faq-en-repay-1", "position": 1},
            {"id": "faq-en-repay-2", "position": 2},
            {"id": "faq-en-repay-3", "position": 3}
        ])
    );
    assert_eq!(
        after_json["order"],
        json!([
            {"id": "faq-en-repay-2", "position": 1},
            {"id": "faq-en-repay-1", "position": 2},
            {"id": "faq-en-repay-3", "position": 3}
        ])
    );
    assert_eq!(after_json["direction"], "up");

    // The borrowers' FAQ shows the new order.
    let session = app.sign_in("IN", "9876511031").await;
    let borrower = data(app.get_as("/api/v1/borrower/faq", &session).await).await;
    let repay: Vec<&str> = borrower
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["category"] == "repay")
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        repay,
        ["faq-en-repay-1", "faq-en-repay-3", "faq-en-repay-2"]
    );
    app.stop().await;
}

#[tokio::test]
async fn the_ends_an_unknown_entry_and_a_bad_direction_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let before = listed(&app, &admin).await;

    let first = move_entry(&app, &admin, "faq-id-apply-1", "up").await;
    assert_eq!(first.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = error(first).await;
    assert_eq!(body["code"], "validation_failed");
    assert_eq!(
        body["fields"]["direction"],
        "This question is already the first of its category: it cannot move up."
    );
    let last = move_entry(&app, &admin, "faq-id-apply-3", "down").await;
    assert_eq!(last.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(last).await["fields"]["direction"],
        "This question is already the last of its category: it cannot move down."
    );
    // The last of one category does not move into the next.
    let account_last = move_entry(&app, &admin, "faq-en-account-2", "down").await;
    assert_eq!(account_last.status(), StatusCode::UNPROCESSABLE_ENTITY);

    let unknown = move_entry(&app, &admin, "faq-nope", "up").await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    assert_eq!(error(unknown).await["code"], "not_found");

    for (body, text) in [
        (json!({"direction": "sideways"}), "Choose up or down."),
        (json!({"direction": " "}), "This field is required."),
        (json!({}), "This field is required."),
    ] {
        let response = move_with(&app, &admin, "faq-en-apply-2", body.clone()).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{body}"
        );
        let refused = error(response).await;
        assert_eq!(refused["fields"]["direction"], text, "{body}");
    }
    // A form-encoded body works as the JSON one does (as the FAQ's other writes).
    let form = app
        .client
        .post(app.url(&move_path("faq-en-apply-2")))
        .header("cookie", format!("kilat_console={}", admin.token))
        .header("x-csrf-token", &admin.csrf)
        .form(&[("direction", "sideways")])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), StatusCode::UNPROCESSABLE_ENTITY);

    assert_eq!(listed(&app, &admin).await, before);
    assert!(app.audit_entries("faq.move", "faq").await.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn repeated_positions_are_numbered_densely_in_the_new_order() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    // The PUT still sets any position: all three of India's repay questions on 7.
    for id in ["faq-en-repay-1", "faq-en-repay-2", "faq-en-repay-3"] {
        let all = listed(&app, &admin).await;
        let entry = all.iter().find(|e| e["id"] == id).unwrap();
        let put = op_call(
            &app,
            &admin,
            Method::PUT,
            &format!("/api/v1/console/faq/{id}"),
            Some(json!({
                "lang": "en", "category": "repay", "question": entry["question"],
                "answer": entry["answer"], "position": 7
            })),
        )
        .await;
        assert_eq!(put.status(), StatusCode::OK);
    }
    let before = listed(&app, &admin).await;
    assert_eq!(
        category(&before, "en", "repay"),
        pairs(&[
            ("faq-en-repay-1", 7),
            ("faq-en-repay-2", 7),
            ("faq-en-repay-3", 7)
        ])
    );

    // Trading two equal positions would move nothing: the category is numbered in its new order.
    let moved = data(move_entry(&app, &admin, "faq-en-repay-3", "up").await).await;
    assert_eq!(moved["entry"]["position"], 2);
    let after = listed(&app, &admin).await;
    assert_eq!(
        category(&after, "en", "repay"),
        pairs(&[
            ("faq-en-repay-1", 1),
            ("faq-en-repay-3", 2),
            ("faq-en-repay-2", 3)
        ])
    );
    assert_eq!(
        outside(&after, "en", "repay"),
        outside(&before, "en", "repay")
    );
    // Distinct now, so the next move trades two positions.
    data(move_entry(&app, &admin, "faq-en-repay-1", "down").await).await;
    assert_eq!(
        category(&listed(&app, &admin).await, "en", "repay"),
        pairs(&[
            ("faq-en-repay-3", 1),
            ("faq-en-repay-1", 2),
            ("faq-en-repay-2", 3)
        ])
    );
    app.stop().await;
}

#[tokio::test]
async fn only_admins_move_entries() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let before = listed(&app, &admin).await;
    for (name, role) in [
        ("sam", Role::Support),
        ("rita", Role::Reviewer),
        ("fay", Role::Finance),
    ] {
        let op = operator(&app, name, &[role]).await;
        let refused = move_entry(&app, &op, "faq-en-apply-2", "up").await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{name}");
        assert_eq!(error(refused).await["code"], "forbidden");
    }
    let nobody = app
        .client
        .post(app.url(&move_path("faq-en-apply-2")))
        .json(&json!({"direction": "up"}))
        .send()
        .await
        .unwrap();
    assert_eq!(nobody.status(), StatusCode::UNAUTHORIZED);
    // A borrower's session is not an operator's.
    let session = app.sign_in("IN", "9876511032").await;
    let borrower = app
        .post_as(
            &move_path("faq-en-apply-2"),
            &session,
            &json!({"direction": "up"}),
        )
        .await;
    assert_eq!(borrower.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(listed(&app, &admin).await, before);
    assert!(app.audit_entries("faq.move", "faq").await.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn simultaneous_moves_in_one_category_leave_its_positions_a_permutation() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    // Eight questions in India's account category: the two seeded (1, 2) and six more (3 to 8).
    for n in 3..=8 {
        let created = op_call(
            &app,
            &admin,
            Method::POST,
            "/api/v1/console/faq",
            Some(json!({
                "lang": "en", "category": "account", "question": format!("Question {n}?"),
                "answer": "An answer.", "position": n
            })),
        )
        .await;
        assert_eq!(created.status(), StatusCode::OK);
    }
    let before = listed(&app, &admin).await;
    let start = category(&before, "en", "account");
    assert_eq!(start.len(), 8);
    let ids: Vec<String> = start.iter().map(|(id, _)| id.clone()).collect();

    // Ten moves at once, neighbours of each other, in both directions: every one of them takes the same rows.
    let moves: Vec<(String, &str)> = (0..10)
        .map(|i| {
            let direction = if i % 2 == 0 { "down" } else { "up" };
            (ids[(i * 3) % 8].clone(), direction)
        })
        .collect();
    let mut burst = tokio::task::JoinSet::new();
    for (id, direction) in moves.clone() {
        let (client, url, op) = (app.client.clone(), app.url(&move_path(&id)), admin.clone());
        burst.spawn(async move {
            let response = client
                .post(url)
                .header("cookie", format!("kilat_console={}", op.token))
                .header("x-csrf-token", &op.csrf)
                .json(&json!({ "direction": direction }))
                .send()
                .await
                .unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap();
            (id, direction, status, body)
        });
    }
    let mut moved = 0;
    for (id, direction, status, body) in burst.join_all().await {
        match status {
            StatusCode::OK => moved += 1,
            // An entry moved to an end by an earlier move is refused there.
            StatusCode::UNPROCESSABLE_ENTITY => {
                assert!(body["fields"]["direction"].is_string(), "{body}")
            }
            other => panic!("{id} {direction}: {other} {body}"),
        }
    }
    assert!(moved > 0, "none of the ten moved");

    let after = listed(&app, &admin).await;
    let end = category(&after, "en", "account");
    // The same entries on the same positions, in some order: nothing lost, nothing on one position twice.
    let ids_after: BTreeSet<&String> = end.iter().map(|(id, _)| id).collect();
    assert_eq!(ids_after, ids.iter().collect::<BTreeSet<_>>());
    let mut positions: Vec<i64> = end.iter().map(|(_, p)| *p).collect();
    positions.sort_unstable();
    assert_eq!(positions, (1..=8).collect::<Vec<_>>(), "{end:?}");
    assert_eq!(
        outside(&after, "en", "account"),
        outside(&before, "en", "account")
    );
    // One audit entry for each move that was made, and they chain: each move began from the order the one before
    // it left, from the first order to the last (the moves were one after another, none from a stale read).
    let steps: Vec<(Value, Value)> = app
        .audit_entries("faq.move", "faq")
        .await
        .iter()
        .map(|(_, _, before, after)| {
            let before: Value = serde_json::from_str(before).unwrap();
            let after: Value = serde_json::from_str(after).unwrap();
            (before["order"].clone(), after["order"].clone())
        })
        .collect();
    assert_eq!(steps.len(), moved);
    let as_order = |pairs: &[(String, i64)]| {
        Value::Array(
            pairs
                .iter()
                .map(|(id, p)| json!({"id": id, "position": p}))
                .collect(),
        )
    };
    assert!(
        chains(
            &as_order(&start),
            &as_order(&end),
            &steps,
            &mut vec![false; steps.len()]
        ),
        "the moves do not chain from {start:?} to {end:?}: {steps:?}"
    );
    app.stop().await;
}

/// Whether every step can be taken once, each from the order the last one left, going from `from` to `to`.
fn chains(from: &Value, to: &Value, steps: &[(Value, Value)], used: &mut [bool]) -> bool {
    if used.iter().all(|u| *u) {
        return from == to;
    }
    for (i, (before, after)) in steps.iter().enumerate() {
        if !used[i] && before == from {
            used[i] = true;
            if chains(after, to, steps, used) {
                return true;
            }
            used[i] = false;
        }
    }
    false
}

#[tokio::test]
async fn the_seeded_entries_are_dated_the_day_their_copy_was_written() {
    let app = spawn_app().await;
    let dates: Vec<(String, i64, i64)> =
        sqlx::query_as("SELECT id, created_at, updated_at FROM faq_entries ORDER BY id")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert!(!dates.is_empty());
    // 2026-11-25 00:00 UTC (0026), not the 2026-11-30 that 0018 gave them, a day still to come when they were written.
    for (id, created, updated) in dates {
        assert_eq!(
            (created, updated),
            (1_795_564_800_000, 1_795_564_800_000),
            "{id}"
        );
    }
    app.stop().await;
}
