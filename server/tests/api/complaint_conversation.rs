//! Complaints as a conversation until closed (issue 18 item 11, issue 19 items 13 and 14): the borrower's replies with
//! photos where they were sent, refused once closed, bounded and rate-limited; support's assignee, written atomically
//! and audited, and the queue's "mine" and "unassigned"; canned replies per language; the contact messages' market;
//! and the data export carrying every table with the borrower's personal data.

use futures_util::future::join_all;
use kilat_server::auth::operators::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::complaints::upload_ok;
use crate::helpers::{TestApp, data, error, spawn_app};
use crate::servicing::{Op, op_call, operator, operator_in};

async fn file(app: &TestApp, session: &str, text: &str, images: &[String]) -> String {
    let response = app
        .post_as(
            "/api/v1/borrower/complaints",
            session,
            &json!({"category": "app", "description": text, "imageIds": images}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    data(response).await["ticketNo"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn reply(app: &TestApp, session: &str, ticket: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/v1/borrower/complaints/{ticket}/replies")))
        .header("x-session-id", session)
        .header("accept-language", "en-IN")
        .json(body)
        .send()
        .await
        .unwrap()
}

async fn console(app: &TestApp, op: &Op, method: Method, path: &str, body: Option<Value>) -> Value {
    let response = op_call(app, op, method, path, body).await;
    let status = response.status();
    let answer: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{path}: {answer}");
    answer["data"].clone()
}

#[tokio::test]
async fn the_borrower_replies_with_photos_until_support_closes_the_complaint() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512001").await;
    let first_photo = upload_ok(&app, &session).await;
    let ticket = file(
        &app,
        &session,
        "The app shows the wrong due date.",
        std::slice::from_ref(&first_photo),
    )
    .await;
    let support = operator(&app, "sasha", &[Role::Support]).await;
    console(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "Which date do you see?"})),
    )
    .await;

    // Bounded like the complaint's text: required, at most 2000 characters, at most three photos.
    let empty = reply(&app, &session, &ticket, &json!({"body": "   "})).await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(empty).await["fields"]["body"],
        "This field is required."
    );
    let long = reply(&app, &session, &ticket, &json!({"body": "x".repeat(2001)})).await;
    assert_eq!(long.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(long).await["fields"]["body"],
        "At most 2000 characters."
    );
    let four: Vec<String> = (0..4).map(|n| format!("img-{n}")).collect();
    let many = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "ok", "imageIds": four}),
    )
    .await;
    assert_eq!(
        error(many).await["fields"]["imageIds"],
        "At most 3 photos a complaint."
    );

    // Another borrower's ticket is as good as missing, for a reply too.
    let stranger = app.sign_in("IN", "9876512002").await;
    let theirs = reply(&app, &stranger, &ticket, &json!({"body": "Hello"})).await;
    assert_eq!(theirs.status(), StatusCode::NOT_FOUND);
    // And the stranger's photo cannot ride on a reply.
    let strangers_photo = upload_ok(&app, &stranger).await;
    let own_ticket = file(&app, &stranger, "Something else went wrong.", &[]).await;
    let borrowed = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "See this", "imageIds": [strangers_photo]}),
    )
    .await;
    assert_eq!(borrowed.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        app.get_as(
            &format!("/api/v1/borrower/complaints/{own_ticket}"),
            &session
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );

    let second_photo = upload_ok(&app, &session).await;
    let answered = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "  It says 5 Dec; my plan says 4 Dec.  ", "imageIds": [second_photo]}),
    )
    .await;
    assert_eq!(answered.status(), StatusCode::CREATED);
    let detail = data(answered).await;
    // The reply puts the ticket back to "waiting for us".
    assert_eq!(detail["status"], "open");
    let messages = detail["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2]["author"], "borrower");
    assert_eq!(messages[2]["body"], "It says 5 Dec; my plan says 4 Dec.");
    // Each photo names the message it was sent with.
    let images = detail["images"].as_array().unwrap();
    let of = |id: &str| images.iter().find(|i| i["imageId"] == id).unwrap()["messageId"].clone();
    assert_eq!(of(&first_photo), messages[0]["id"]);
    assert_eq!(of(&second_photo), messages[2]["id"]);

    // Support's queue shows it waiting again.
    let queue = console(
        &app,
        &support,
        Method::GET,
        "/api/v1/console/complaints?market=IN",
        None,
    )
    .await;
    let queued = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["ticketNo"] == ticket.as_str())
        .unwrap();
    assert_eq!(queued["status"], "open");

    // Support cannot close it before answering that reply: a closed complaint takes none.
    let close = || async {
        op_call(
            &app,
            &support,
            Method::POST,
            &format!("/api/v1/console/complaints/{ticket}/close"),
            None,
        )
        .await
    };
    let unanswered = close().await;
    assert_eq!(unanswered.status(), StatusCode::CONFLICT);
    assert_eq!(error(unanswered).await["code"], "complaint_unanswered");
    console(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "The 4 Dec on your plan is right; we have corrected the text."})),
    )
    .await;
    assert_eq!(data(close().await).await["status"], "closed");
    let late_photo = upload_ok(&app, &session).await;
    let closed = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "One more thing", "imageIds": [late_photo.clone()]}),
    )
    .await;
    assert_eq!(closed.status(), StatusCode::CONFLICT);
    assert_eq!(error(closed).await["code"], "complaint_closed");
    let after = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{ticket}"), &session)
            .await,
    )
    .await;
    assert_eq!(after["status"], "closed");
    assert_eq!(after["messages"].as_array().unwrap().len(), 4);
    // The refused reply's photo still waits for the borrower (not attached to the closed ticket).
    let attached: Option<String> =
        sqlx::query_scalar("SELECT complaint_id FROM complaint_images WHERE id = $1")
            .bind(&late_photo)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(attached, None);
    app.stop().await;
}

#[tokio::test]
async fn thirty_two_simultaneous_replies_store_exactly_thirty() {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234512003").await;
    let ticket = file(&app, &session, "Aplikasi tidak bisa dibuka.", &[]).await;
    let answers = join_all((0..32).map(|n| {
        let (app, session, ticket) = (&app, &session, &ticket);
        async move {
            reply(
                app,
                session,
                ticket,
                &json!({"body": format!("Balasan {n}")}),
            )
            .await
            .status()
        }
    }))
    .await;
    let created = answers
        .iter()
        .filter(|s| **s == StatusCode::CREATED)
        .count();
    let limited = answers
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!((created, limited), (30, 2), "{answers:?}");
    let detail = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{ticket}"), &session)
            .await,
    )
    .await;
    assert_eq!(detail["messages"].as_array().unwrap().len(), 31);
    app.stop().await;
}

#[tokio::test]
async fn support_assigns_complaints_atomically_and_the_queue_filters_mine_and_unassigned() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512004").await;
    let first = file(&app, &session, "My payment is not shown.", &[]).await;
    let second = file(&app, &session, "The app logs me out.", &[]).await;
    let asha = operator(&app, "asha", &[Role::Support]).await;
    let ben = operator(&app, "ben", &[Role::Support]).await;
    let rita = operator(&app, "rita", &[Role::Reviewer]).await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;

    let assignees = console(
        &app,
        &asha,
        Method::GET,
        "/api/v1/console/complaint-assignees",
        None,
    )
    .await;
    let names: Vec<&str> = assignees
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ada", "asha", "ben"]);
    let id_of = |name: &str| {
        assignees
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["username"] == name)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (asha_id, ben_id) = (id_of("asha"), id_of("ben"));
    assert_eq!(
        op_call(
            &app,
            &rita,
            Method::GET,
            "/api/v1/console/complaint-assignees",
            None
        )
        .await
        .status(),
        StatusCode::FORBIDDEN
    );

    // Assign to me.
    let mine = console(
        &app,
        &asha,
        Method::POST,
        &format!("/api/v1/console/complaints/{first}/assign"),
        Some(json!({"assigneeId": asha_id})),
    )
    .await;
    assert_eq!(mine["assigneeName"], "asha");
    assert_eq!(mine["lang"], "en");
    let queue = |op: &Op, filter: &str| {
        let path = format!("/api/v1/console/complaints?assignee={filter}");
        let op = op.clone();
        let app = &app;
        async move {
            console(app, &op, Method::GET, &path, None).await["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["ticketNo"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(queue(&asha, "mine").await, std::slice::from_ref(&first));
    assert_eq!(
        queue(&asha, "unassigned").await,
        std::slice::from_ref(&second)
    );
    assert_eq!(queue(&ben, "mine").await, Vec::<String>::new());
    assert_eq!(queue(&ben, "all").await.len(), 2);
    let bad = op_call(
        &app,
        &asha,
        Method::GET,
        "/api/v1/console/complaints?assignee=someone",
        None,
    )
    .await;
    // The console asks in no language: the messages are Indonesian, the server's default.
    assert_eq!(
        error(bad).await["fields"]["assignee"],
        "Pilih salah satu opsi."
    );

    // Not to a reviewer, nor to nobody known.
    for target in [
        id_of_reviewer(&app, "rita").await,
        "no-such-operator".to_owned(),
    ] {
        let refused = op_call(
            &app,
            &admin,
            Method::POST,
            &format!("/api/v1/console/complaints/{first}/assign"),
            Some(json!({"assigneeId": target})),
        )
        .await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
        assert!(error(refused).await["fields"]["assigneeId"].is_string());
    }

    // Reassign, then eight simultaneous takes from two operators: each one lands, and the audit chains them.
    console(
        &app,
        &admin,
        Method::POST,
        &format!("/api/v1/console/complaints/{first}/assign"),
        Some(json!({"assigneeId": ben_id})),
    )
    .await;
    let takes = join_all((0..8).map(|n| {
        let (op, id) = if n % 2 == 0 {
            (&asha, &asha_id)
        } else {
            (&ben, &ben_id)
        };
        let path = format!("/api/v1/console/complaints/{first}/assign");
        let app = &app;
        async move {
            op_call(
                app,
                op,
                Method::POST,
                &path,
                Some(json!({"assigneeId": id})),
            )
            .await
            .status()
        }
    }))
    .await;
    assert!(takes.iter().all(|s| *s == StatusCode::OK), "{takes:?}");
    let entries = app.audit_entries("complaint.assign", "complaint").await;
    assert_eq!(entries.len(), 1 + 1 + 8);
    // No change was lost between a read and a write: each entry's "before" is the state another entry left (entries of
    // one millisecond have no order by time, so the chain is checked as a path: from the reassignment to the final
    // assignee, every assignee is left as often as it is reached).
    let final_assignee: Option<String> =
        sqlx::query_scalar("SELECT assignee_id FROM complaints WHERE ticket_no = $1")
            .bind(&first)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    let mut balance: std::collections::HashMap<String, i64> = Default::default();
    for (_, _, before, after) in &entries[2..] {
        let before: Value = serde_json::from_str(before).unwrap();
        let after: Value = serde_json::from_str(after).unwrap();
        *balance.entry(before["assigneeId"].to_string()).or_default() += 1;
        *balance.entry(after["assigneeId"].to_string()).or_default() -= 1;
    }
    *balance.entry(json!(ben_id).to_string()).or_default() -= 1;
    *balance
        .entry(json!(final_assignee).to_string())
        .or_default() += 1;
    assert!(balance.values().all(|n| *n == 0), "{balance:?}");

    // Unassign; a closed complaint is not reassigned.
    let none = console(
        &app,
        &asha,
        Method::POST,
        &format!("/api/v1/console/complaints/{first}/assign"),
        Some(json!({"assigneeId": null})),
    )
    .await;
    assert_eq!(none["assigneeId"], Value::Null);
    console(
        &app,
        &asha,
        Method::POST,
        &format!("/api/v1/console/complaints/{second}/reply"),
        Some(json!({"body": "Sorted."})),
    )
    .await;
    console(
        &app,
        &asha,
        Method::POST,
        &format!("/api/v1/console/complaints/{second}/close"),
        None,
    )
    .await;
    let closed = op_call(
        &app,
        &asha,
        Method::POST,
        &format!("/api/v1/console/complaints/{second}/assign"),
        Some(json!({"assigneeId": asha_id})),
    )
    .await;
    assert_eq!(closed.status(), StatusCode::CONFLICT);
    assert_eq!(error(closed).await["code"], "complaint_closed");
    app.stop().await;
}

#[tokio::test]
async fn a_complaint_is_assigned_only_to_an_operator_of_its_market_and_the_assignees_are_that_markets()
 {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512005").await;
    let ticket = file(&app, &session, "My payment is not shown.", &[]).await;
    let ada = operator(&app, "ada", &[Role::Admin]).await;
    let india = operator_in(
        &app,
        "india",
        &[Role::Support],
        &[kilat_domain::Market::India],
    )
    .await;
    operator_in(
        &app,
        "indo",
        &[Role::Support],
        &[kilat_domain::Market::Indonesia],
    )
    .await;
    let names = |list: Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|a| a["username"].as_str().unwrap().to_owned())
            .collect()
    };
    let path = "/api/v1/console/complaint-assignees";
    for (op, query, expected) in [
        (&ada, "?market=IN", &["ada", "india"][..]),
        (&ada, "?market=ID", &["ada", "indo"][..]),
        (&ada, "", &["ada", "india", "indo"][..]),
        (&india, "", &["ada", "india"][..]),
        (&india, "?market=IN", &["ada", "india"][..]),
    ] {
        let list = console(&app, op, Method::GET, &format!("{path}{query}"), None).await;
        assert_eq!(names(list), expected, "{query}");
    }
    let other = op_call(
        &app,
        &india,
        Method::GET,
        &format!("{path}?market=ID"),
        None,
    )
    .await;
    assert_eq!(other.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(other).await["fields"]["market"],
        "Anda tidak bekerja di pasar ini."
    );

    // Indonesia's support cannot open an Indian complaint, so it is not theirs to answer: refused on the field, and
    // nothing is written.
    let indo_id = id_of_reviewer(&app, "indo").await;
    let refused = op_call(
        &app,
        &ada,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/assign"),
        Some(json!({"assigneeId": indo_id})),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(refused).await["fields"]["assigneeId"],
        "Operator ini tidak bekerja di pasar pengaduan ini."
    );
    let assignee: Option<String> =
        sqlx::query_scalar("SELECT assignee_id FROM complaints WHERE ticket_no = $1")
            .bind(&ticket)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(assignee, None);
    assert!(
        app.audit_entries("complaint.assign", "complaint")
            .await
            .is_empty()
    );

    // India's support takes it.
    let india_id = id_of_reviewer(&app, "india").await;
    let taken = console(
        &app,
        &ada,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/assign"),
        Some(json!({"assigneeId": india_id})),
    )
    .await;
    assert_eq!(taken["assigneeName"], "india");
    app.stop().await;
}

async fn id_of_reviewer(app: &TestApp, username: &str) -> String {
    sqlx::query_scalar("SELECT id FROM operators WHERE username = $1")
        .bind(username)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn support_keeps_canned_replies_per_language_audited_and_bounded() {
    let app = spawn_app().await;
    let support = operator(&app, "sam", &[Role::Support]).await;
    let reviewer = operator(&app, "rev", &[Role::Reviewer]).await;
    let path = "/api/v1/console/canned-replies";
    let en = console(
        &app,
        &support,
        Method::POST,
        path,
        Some(json!({"lang": "en", "title": "Refund sent", "body": "We have refunded the fee. It reaches your account in 3 working days."})),
    )
    .await;
    console(
        &app,
        &support,
        Method::POST,
        path,
        Some(json!({"lang": "id", "title": "Dana dikembalikan", "body": "Biaya sudah kami kembalikan."})),
    )
    .await;
    let only_id = console(
        &app,
        &support,
        Method::GET,
        &format!("{path}?lang=id"),
        None,
    )
    .await;
    assert_eq!(only_id.as_array().unwrap().len(), 1);
    assert_eq!(only_id[0]["title"], "Dana dikembalikan");
    assert_eq!(
        console(&app, &support, Method::GET, path, None)
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let invalid = op_call(
        &app,
        &support,
        Method::POST,
        path,
        Some(json!({"lang": "fr", "title": "", "body": "x".repeat(2001)})),
    )
    .await;
    let fields = error(invalid).await["fields"].clone();
    for field in ["lang", "title", "body"] {
        assert!(fields[field].is_string(), "{fields}");
    }
    assert_eq!(
        op_call(&app, &reviewer, Method::GET, path, None)
            .await
            .status(),
        StatusCode::FORBIDDEN
    );

    let id = en["id"].as_str().unwrap();
    let changed = console(
        &app,
        &support,
        Method::PUT,
        &format!("{path}/{id}"),
        Some(json!({"lang": "en", "title": "Refund on its way", "body": "We have refunded the fee."})),
    )
    .await;
    assert_eq!(changed["title"], "Refund on its way");
    console(
        &app,
        &support,
        Method::DELETE,
        &format!("{path}/{id}"),
        None,
    )
    .await;
    assert_eq!(
        op_call(
            &app,
            &support,
            Method::DELETE,
            &format!("{path}/{id}"),
            None
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    let actions: Vec<String> = sqlx::query_scalar(
        "SELECT action FROM audit_log WHERE entity = 'canned_reply' ORDER BY at, id",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    assert_eq!(
        actions,
        [
            "canned_reply.create",
            "canned_reply.create",
            "canned_reply.update",
            "canned_reply.delete"
        ]
    );

    // At most 50 a language, however many arrive at once.
    let made = join_all((0..55).map(|n| {
        let (app, support) = (&app, &support);
        async move {
            op_call(
                app,
                support,
                Method::POST,
                path,
                Some(json!({"lang": "en", "title": format!("Reply {n:02}"), "body": "Thank you."})),
            )
            .await
            .status()
        }
    }))
    .await;
    assert_eq!(
        made.iter().filter(|s| **s == StatusCode::OK).count(),
        50,
        "{made:?}"
    );
    assert_eq!(
        made.iter()
            .filter(|s| **s == StatusCode::UNPROCESSABLE_ENTITY)
            .count(),
        5
    );
    assert_eq!(
        console(
            &app,
            &support,
            Method::GET,
            &format!("{path}?lang=en"),
            None
        )
        .await
        .as_array()
        .unwrap()
        .len(),
        50
    );
    app.stop().await;
}

#[tokio::test]
async fn a_contact_message_keeps_the_market_of_its_site() {
    let app = spawn_app().await;
    let path = "/api/v1/site/contact-messages";
    let sent = app
        .post_json(path, &json!({"name": "Asha", "telephone": "98450 01234", "message": "Call me", "market": "IN"}))
        .await;
    assert_eq!(sent.status(), StatusCode::CREATED);
    let unknown = app
        .post_json(path, &json!({"name": "Asha", "telephone": "98450 01234", "message": "Call me", "market": "XX"}))
        .await;
    assert_eq!(unknown.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(unknown).await["fields"]["market"].is_string());
    let plain = app
        .post_json(
            path,
            &json!({"name": "Budi", "telephone": "0812 3456 7890", "message": "Halo"}),
        )
        .await;
    assert_eq!(plain.status(), StatusCode::CREATED);
    let support = operator(&app, "sam", &[Role::Support]).await;
    let list = console(
        &app,
        &support,
        Method::GET,
        "/api/v1/console/contact-messages",
        None,
    )
    .await;
    let market_of = |name: &str| {
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .unwrap()["market"]
            .clone()
    };
    assert_eq!(market_of("Asha"), "IN");
    // Sent without the site's market: its telephone's (an Indonesian mobile).
    assert_eq!(market_of("Budi"), "ID");
    app.stop().await;
}

/// The tables of the schema with a `borrower_id` column, by name.
async fn tables_with_borrower_id(app: &TestApp) -> Vec<String> {
    let mut tables: Vec<String> = if app.db.is_sqlite() {
        sqlx::query_scalar(
            "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
             WHERE m.type = 'table' AND c.name = 'borrower_id'",
        )
        .fetch_all(app.db.pool())
        .await
        .unwrap()
    } else {
        sqlx::query_scalar(
            "SELECT table_name::TEXT FROM information_schema.columns
             WHERE table_schema = current_schema() AND column_name = 'borrower_id'",
        )
        .fetch_all(app.db.pool())
        .await
        .unwrap()
    };
    tables.sort();
    tables
}

#[tokio::test]
async fn every_table_with_a_borrower_id_is_in_the_export_or_named_with_its_reason() {
    use kilat_server::account::export::{EXPORTED_TABLES, NOT_EXPORTED};
    let app = spawn_app().await;
    let tables = tables_with_borrower_id(&app).await;
    assert!(tables.len() >= 15, "{tables:?}");
    let mut known: Vec<String> = EXPORTED_TABLES
        .iter()
        .chain(NOT_EXPORTED)
        .map(|(table, _)| (*table).to_owned())
        .collect();
    known.sort();
    assert_eq!(
        tables, known,
        "a table with a borrower_id column must be exported (account/export.rs EXPORTED_TABLES) or named in NOT_EXPORTED with its reason"
    );
    app.stop().await;
}

#[tokio::test]
async fn the_export_carries_complaints_with_photos_ratings_location_and_telemetry_with_readable_dates()
 {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234512010").await;
    let photo = upload_ok(&app, &session).await;
    let ticket = file(
        &app,
        &session,
        "Aplikasi menampilkan tanggal yang salah.",
        &[photo],
    )
    .await;
    let support = operator(&app, "sari", &[Role::Support]).await;
    console(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "Tanggal berapa yang Anda lihat?"})),
    )
    .await;
    let replied = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "Tanggal 5 Desember."}),
    )
    .await;
    assert_eq!(replied.status(), StatusCode::CREATED);
    for (path, body) in [
        (
            "/api/v1/borrower/app-rating",
            json!({"score": 4, "comment": "Cepat"}),
        ),
        (
            "/api/v1/borrower/location",
            json!({"consent": true, "latitude": -6.2088, "longitude": 106.8456}),
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
            "/api/v1/borrower/telemetry/events",
            json!({"name": "apply.confirmed", "props": {"product": "ID-FLEX"}}),
        ),
    ] {
        assert_eq!(
            app.post_as(path, &session, &body).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }

    let export = data(app.get_as("/api/v1/borrower/export", &session).await).await;
    let sections = &export["sections"];
    let complaint = &sections["complaints"][0];
    assert_eq!(complaint["ticketNo"], ticket.as_str());
    let messages = complaint["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(
        messages[0]["text"],
        "Aplikasi menampilkan tanggal yang salah."
    );
    assert_eq!(messages[1]["author"], "support");
    assert_eq!(messages[2]["text"], "Tanggal 5 Desember.");
    // The photo travels with the message it was sent with, as base64 of the stored (cleaned) file.
    let photo = &messages[0]["photos"][0];
    assert_eq!(photo["contentType"], "image/jpeg");
    let bytes = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        photo["base64"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(&bytes[..2], &[0xFF, 0xD8]);
    assert!(!String::from_utf8_lossy(&bytes).contains("GPS"));
    // Readable dates beside the epoch milliseconds, on Jakarta's clock.
    assert!(
        messages[0]["sentAtText"]
            .as_str()
            .unwrap()
            .ends_with(" WIB"),
        "{}",
        messages[0]
    );
    assert!(sections["profile"]["createdAtText"].is_string());
    assert_eq!(sections["appRatings"][0]["score"], 4);
    assert_eq!(sections["appRatings"][0]["comment"], "Cepat");
    assert_eq!(sections["location"]["shared"], true);
    assert_eq!(sections["location"]["latitude"], "-6.2");
    assert_eq!(sections["location"]["longitude"], "106.8");
    assert_eq!(sections["device"]["model"], "Pixel 7");
    assert_eq!(sections["pushTokens"][0]["token"], "fcm:abc123");
    assert!(
        sections["appEvents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "apply.confirmed"),
        "{}",
        sections["appEvents"]
    );

    // The readable summary: Indonesian only, with the conversation and the photo.
    let html = export["summaryHtml"].as_str().unwrap();
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("lang=\"id\""));
    assert!(html.contains("Data Anda di Kilat"));
    assert!(html.contains("Tanggal 5 Desember."));
    assert!(html.contains("Layanan pelanggan"));
    assert!(html.contains("data:image/jpeg;base64,"));
    for english in [
        "Your data",
        "Complaints",
        "Customer service",
        "Loans",
        "Nothing.",
    ] {
        assert!(
            !html.contains(english),
            "English in the Indonesian summary: {english}"
        );
    }
    app.stop().await;
}

/// Support replies to what it read; the borrower wrote again meanwhile. The reply is sent, but the complaint stays
/// open — its newest message is unanswered — so it cannot be closed until support answers that too; the audit says
/// which status the reply found and left.
#[tokio::test]
async fn a_reply_written_before_the_borrower_s_newest_message_leaves_the_complaint_open() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512031").await;
    let ticket = file(&app, &session, "The app shows the wrong due date.", &[]).await;
    let support = operator(&app, "sasha", &[Role::Support]).await;
    let path = format!("/api/v1/console/complaints/{ticket}");
    let read = console(&app, &support, Method::GET, &path, None).await;
    let seen = read["messages"].as_array().unwrap().last().unwrap()["id"].clone();
    // While support writes, the borrower adds a message.
    let more = reply(
        &app,
        &session,
        &ticket,
        &json!({"body": "And the amount is wrong too."}),
    )
    .await;
    assert_eq!(more.status(), StatusCode::CREATED);
    let answered = console(
        &app,
        &support,
        Method::POST,
        &format!("{path}/reply"),
        Some(json!({"body": "We are checking the date.", "seenMessageId": seen})),
    )
    .await;
    assert_eq!(answered["status"], "open");
    assert_eq!(answered["messages"].as_array().unwrap().len(), 3);
    let close = op_call(&app, &support, Method::POST, &format!("{path}/close"), None).await;
    assert_eq!(close.status(), StatusCode::CONFLICT);
    assert_eq!(error(close).await["code"], "complaint_unanswered");
    let entries = app.audit_entries("complaint.reply", "complaint").await;
    let [(_, _, before, after)] = &entries[..] else {
        panic!("one reply audited: {entries:?}")
    };
    assert!(before.contains(r#""status":"open""#), "{before}");
    assert!(after.contains(r#""status":"open""#), "{after}");

    // A message id of another complaint is no message support read here.
    let other = file(&app, &session, "Another thing went wrong.", &[]).await;
    let theirs = console(
        &app,
        &support,
        Method::GET,
        &format!("/api/v1/console/complaints/{other}"),
        None,
    )
    .await;
    let wrong = op_call(
        &app,
        &support,
        Method::POST,
        &format!("{path}/reply"),
        Some(json!({"body": "Hello", "seenMessageId": theirs["messages"][0]["id"]})),
    )
    .await;
    assert_eq!(wrong.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(wrong).await["fields"]["seenMessageId"].is_string());

    // Having read the newest message, support's answer answers the complaint, and it closes.
    let seen = answered["messages"].as_array().unwrap().last().unwrap()["id"].clone();
    let answered = console(
        &app,
        &support,
        Method::POST,
        &format!("{path}/reply"),
        Some(json!({"body": "And the amount.", "seenMessageId": seen})),
    )
    .await;
    assert_eq!(answered["status"], "answered");
    console(&app, &support, Method::POST, &format!("{path}/close"), None).await;
    app.stop().await;
}

/// Support's queue comes a page at a time with its total, so no complaint is cut off: open ones oldest first (the
/// nearest deadline first), all of them newest first.
#[tokio::test]
async fn support_s_queue_pages_through_every_complaint_with_its_total() {
    let app = spawn_app().await;
    let mut tickets = Vec::new();
    for n in 0..3 {
        let session = app.sign_in("IN", &format!("98765120{}1", n + 4)).await;
        tickets.push(file(&app, &session, &format!("Complaint number {n} here."), &[]).await);
    }
    let support = operator(&app, "sasha", &[Role::Support]).await;
    let page = |query: &'static str| {
        let (app, op) = (&app, support.clone());
        async move {
            let answer = console(
                app,
                &op,
                Method::GET,
                &format!("/api/v1/console/complaints?{query}"),
                None,
            )
            .await;
            let tickets: Vec<String> = answer["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["ticketNo"].as_str().unwrap().to_owned())
                .collect();
            (answer["total"].as_i64().unwrap(), tickets)
        }
    };
    assert_eq!(
        page("pageSize=2").await,
        (3, vec![tickets[0].clone(), tickets[1].clone()])
    );
    assert_eq!(
        page("pageSize=2&page=2").await,
        (3, vec![tickets[2].clone()])
    );
    assert_eq!(page("pageSize=2&page=3").await, (3, vec![]));
    assert_eq!(
        page("status=all&pageSize=2").await,
        (3, vec![tickets[2].clone(), tickets[1].clone()])
    );
    for query in ["pageSize=0", "pageSize=201", "page=0", "page=two"] {
        let refused = op_call(
            &app,
            &support,
            Method::GET,
            &format!("/api/v1/console/complaints?{query}"),
            None,
        )
        .await;
        assert_eq!(
            refused.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{query}"
        );
    }
    app.stop().await;
}

/// Each market's company answers its own borrowers: an operator of India only reads and writes the English canned
/// replies (India's), never Indonesia's, which are not found for them; an operator of both sees both.
#[tokio::test]
async fn canned_replies_are_their_markets_staffs_only() {
    use kilat_domain::Market;
    let app = spawn_app().await;
    let both = operator(&app, "both", &[Role::Support]).await;
    let india = operator_in(&app, "india", &[Role::Support], &[Market::India]).await;
    let path = "/api/v1/console/canned-replies";
    let id_reply = console(
        &app,
        &both,
        Method::POST,
        path,
        Some(json!({"lang": "id", "title": "Dana dikembalikan", "body": "Biaya sudah kami kembalikan."})),
    )
    .await;
    let id_id = id_reply["id"].as_str().unwrap().to_owned();
    console(
        &app,
        &india,
        Method::POST,
        path,
        Some(json!({"lang": "en", "title": "Refund sent", "body": "We have refunded the fee."})),
    )
    .await;
    let seen = console(&app, &india, Method::GET, path, None).await;
    let titles: Vec<&str> = seen
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Refund sent"]);
    assert_eq!(
        console(&app, &both, Method::GET, path, None)
            .await
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let refused = op_call(&app, &india, Method::GET, &format!("{path}?lang=id"), None).await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(refused).await["fields"]["lang"].is_string());
    let refused = op_call(
        &app,
        &india,
        Method::POST,
        path,
        Some(json!({"lang": "id", "title": "Hubungi kami", "body": "Hubungi +91 ..."})),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(refused).await["fields"]["lang"].is_string());
    let reply_path = format!("{path}/{id_id}");
    let refused = op_call(
        &app,
        &india,
        Method::PUT,
        &reply_path,
        Some(json!({"lang": "en", "title": "Mine now", "body": "Call our Indian line."})),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        op_call(&app, &india, Method::DELETE, &reply_path, None)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // Indonesia's reply is as it was.
    let kept = console(&app, &both, Method::GET, &format!("{path}?lang=id"), None).await;
    assert_eq!(kept[0]["title"], "Dana dikembalikan");
    assert_eq!(kept[0]["body"], "Biaya sudah kami kembalikan.");
    app.stop().await;
}

/// An export carries at most `EXPORT_PHOTO_BYTES` of photos inline, newest complaints first, checked on each photo's
/// recorded size before its bytes are read: one past it is listed with its details and a note to open it in the app
/// (its file is not even read: here it is gone from the store, and the export still answers).
#[tokio::test]
async fn an_export_carries_photos_inline_up_to_its_budget_and_lists_the_rest() {
    use kilat_server::account::export::EXPORT_PHOTO_BYTES;
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512090").await;
    let mut tickets = Vec::new();
    let mut photos = Vec::new();
    for text in ["The first fee is wrong.", "The second fee is wrong too."] {
        let photo = upload_ok(&app, &session).await;
        let filed = app
            .post_as(
                "/api/v1/borrower/complaints",
                &session,
                &json!({"category": "charges", "description": text, "imageIds": [photo]}),
            )
            .await;
        assert_eq!(filed.status(), StatusCode::CREATED);
        tickets.push(data(filed).await["ticketNo"].as_str().unwrap().to_owned());
        photos.push(photo);
    }
    // The older complaint's photo is recorded as large as the whole budget, and its file is gone.
    let key: String = sqlx::query_scalar("SELECT storage_key FROM complaint_images WHERE id = $1")
        .bind(&photos[0])
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    app.execute(&format!(
        "UPDATE complaint_images SET size_bytes = {EXPORT_PHOTO_BYTES} WHERE id = '{}'",
        photos[0]
    ))
    .await;
    app.services.files.delete(&key).await.unwrap();

    let export = app.get_as("/api/v1/borrower/export", &session).await;
    assert_eq!(export.status(), StatusCode::OK);
    let export = data(export).await;
    let complaints = export["sections"]["complaints"].as_array().unwrap();
    let photo_of = |ticket: &str| {
        complaints.iter().find(|c| c["ticketNo"] == ticket).unwrap()["messages"][0]["photos"][0]
            .clone()
    };
    let newest = photo_of(&tickets[1]);
    assert!(newest["base64"].is_string(), "{newest}");
    assert!(newest.get("leftOut").is_none(), "{newest}");
    let oldest = photo_of(&tickets[0]);
    assert_eq!(oldest["base64"], Value::Null, "{oldest}");
    assert_eq!(oldest["size"], EXPORT_PHOTO_BYTES);
    assert!(
        oldest["leftOut"]
            .as_str()
            .unwrap()
            .contains("open it in the app"),
        "{oldest}"
    );
    let html = export["summaryHtml"].as_str().unwrap();
    assert_eq!(html.matches("data:image/jpeg;base64,").count(), 1);
    assert!(html.contains("open it in the app"));
    app.stop().await;
}
