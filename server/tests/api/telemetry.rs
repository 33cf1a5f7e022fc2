//! The app's telemetry (docs/API-BORROWER.md, "Telemetry"): validation and size limits of each call, the per-session
//! limit under a burst, the location asked once and kept coarse, beacons authenticated by the cookie and refused
//! from another site, the retention job, and no contacts/SMS/call-log/app-list/media field in the API or the bundle.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::helpers::{data, error, spawn_app, spawn_app_with};

const POINTS: &str = "/api/v1/borrower/telemetry/buried-points";
const EVENTS: &str = "/api/v1/borrower/telemetry/events";
const ERRORS: &str = "/api/v1/borrower/telemetry/errors";
const DEVICE: &str = "/api/v1/borrower/device";
const TOKEN: &str = "/api/v1/borrower/device-token";
const LOCATION: &str = "/api/v1/borrower/location";
const RATING: &str = "/api/v1/borrower/app-rating";

/// Posts and returns the refused fields of a 422.
async fn refused_fields(
    app: &crate::helpers::TestApp,
    path: &str,
    session: &str,
    body: Value,
) -> Vec<String> {
    let response = app.post_as(path, session, &body).await;
    assert_eq!(response.status(), 422, "{path} {body}");
    let body = error(response).await;
    assert_eq!(body["code"], "validation_failed");
    let mut fields: Vec<String> = body["fields"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    fields.sort();
    fields
}

#[tokio::test]
async fn each_call_stores_what_it_is_given_and_nothing_without_a_session() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let id = app.borrower_id(&session).await;

    let points = json!({"events": [
        {"name": "home.apply:tap", "route": "/app/home", "at": 1_763_820_000_000_i64, "props": {"amount": 500000}},
        {"name": "login.view"}
    ]});
    let stored = data(app.post_as(POINTS, &session, &points).await).await;
    assert_eq!(stored["stored"], 2);
    let event = json!({"name": "apply.confirmed", "props": {"product": "IN-FLEX"}});
    assert_eq!(
        data(app.post_as(EVENTS, &session, &event).await).await["stored"],
        1
    );
    let thrown = json!({"message": "TypeError: x is undefined", "stack": "at Home (home.tsx:12)", "route": "/app/home"});
    assert_eq!(
        data(app.post_as(ERRORS, &session, &thrown).await).await["stored"],
        1
    );
    let device =
        json!({"consent": true, "model": "Pixel 7", "os": "Android 14", "appVersion": "1.4.0"});
    assert_eq!(
        data(app.post_as(DEVICE, &session, &device).await).await["saved"],
        true
    );
    let token = json!({"token": "fcm:abc123", "platform": "android"});
    assert_eq!(
        data(app.post_as(TOKEN, &session, &token).await).await["saved"],
        true
    );
    let rating = json!({"score": 5, "comment": "Fast"});
    assert_eq!(
        data(app.post_as(RATING, &session, &rating).await).await["saved"],
        true
    );

    let events = app.db.client_events_of(&id).await.unwrap();
    let kinds: Vec<(&str, &str)> = events
        .iter()
        .map(|e| (e.kind.as_str(), e.name.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("ui", "home.apply:tap"),
            ("ui", "login.view"),
            ("business", "apply.confirmed"),
            ("error", "error")
        ]
    );
    assert_eq!(events[0].occurred_at, 1_763_820_000_000);
    assert_eq!(events[0].detail.as_deref(), Some(r#"{"amount":500000}"#));
    assert_eq!(events[0].route.as_deref(), Some("/app/home"));
    // Without a client time, the server's.
    assert_eq!(events[1].occurred_at, events[1].created_at);
    let error_detail: Value = serde_json::from_str(events[3].detail.as_deref().unwrap()).unwrap();
    assert_eq!(error_detail["message"], "TypeError: x is undefined");
    assert_eq!(error_detail["stack"], "at Home (home.tsx:12)");
    assert_eq!(app.db.telemetry_counts(&id).await.unwrap(), [4, 1, 1, 0, 1]);

    for path in [POINTS, EVENTS, ERRORS, DEVICE, TOKEN, LOCATION, RATING] {
        let response = app.post_json(path, &json!({})).await;
        assert_eq!(response.status(), 401, "{path}");
    }
    app.stop().await;
}

/// A phone passed on: the push token its first borrower registered becomes the next borrower's, so their payment
/// receipts no longer reach it; each borrower's other devices keep theirs.
#[tokio::test]
async fn a_push_token_registered_by_another_borrower_is_theirs_alone() {
    let app = spawn_app().await;
    let first = app.sign_in("IN", "9876543221").await;
    let second = app.sign_in("IN", "9876543222").await;
    let (first_id, second_id) = (
        app.borrower_id(&first).await,
        app.borrower_id(&second).await,
    );
    for (session, token) in [
        (&first, "fcm:shared-phone"),
        (&first, "fcm:first-tablet"),
        (&second, "fcm:shared-phone"),
    ] {
        let body = json!({"token": token, "platform": "android"});
        assert_eq!(
            data(app.post_as(TOKEN, session, &body).await).await["saved"],
            true
        );
    }
    let tokens = |id: String| {
        let app = &app;
        async move {
            app.db
                .push_tokens_of(&id, 10)
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.token)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(tokens(first_id).await, ["fcm:first-tablet"]);
    assert_eq!(tokens(second_id).await, ["fcm:shared-phone"]);
    app.stop().await;
}

#[tokio::test]
async fn each_call_names_the_fields_at_fault_and_stores_nothing() {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234567890").await;
    let id = app.borrower_id(&session).await;

    assert_eq!(
        refused_fields(&app, POINTS, &session, json!({})).await,
        ["events"]
    );
    assert_eq!(
        refused_fields(&app, POINTS, &session, json!({"events": []})).await,
        ["events"]
    );
    let too_many: Vec<Value> = (0..51).map(|_| json!({"name": "tap"})).collect();
    let response = app
        .post_as(POINTS, &session, &json!({"events": too_many}))
        .await;
    let body = error(response).await;
    assert_eq!(body["fields"]["events"], "Paling banyak 50 item.");
    // One bad event refuses the batch, naming it.
    let one_bad = json!({"events": [{"name": "ok"}, {"name": "Not A Code"}]});
    let response = app.post_as(POINTS, &session, &one_bad).await;
    let body = error(response).await;
    assert!(
        body["fields"]["events"]
            .as_str()
            .unwrap()
            .starts_with("Peristiwa 1 "),
        "{body}"
    );

    assert_eq!(
        refused_fields(
            &app,
            EVENTS,
            &session,
            json!({"name": "x", "props": {"nested": {"a": 1}}, "at": -5})
        )
        .await,
        ["at", "props"]
    );
    let many_props: serde_json::Map<String, Value> =
        (0..21).map(|i| (format!("k{i}"), json!(i))).collect();
    assert_eq!(
        refused_fields(
            &app,
            EVENTS,
            &session,
            json!({"name": "x", "props": many_props})
        )
        .await,
        ["props"]
    );
    assert_eq!(
        refused_fields(&app, EVENTS, &session, json!({"route": "r".repeat(201)})).await,
        ["name", "route"]
    );
    assert_eq!(
        refused_fields(&app, ERRORS, &session, json!({"stack": "s".repeat(8001)})).await,
        ["message", "stack"]
    );
    assert_eq!(
        refused_fields(&app, DEVICE, &session, json!({"model": "Pixel", "os": " "})).await,
        ["appVersion", "consent", "os"]
    );
    assert_eq!(
        refused_fields(
            &app,
            TOKEN,
            &session,
            json!({"token": "a b", "platform": "symbian"})
        )
        .await,
        ["platform", "token"]
    );
    assert_eq!(
        refused_fields(&app, LOCATION, &session, json!({"latitude": 1.0})).await,
        ["consent"]
    );
    assert_eq!(
        refused_fields(
            &app,
            LOCATION,
            &session,
            json!({"consent": true, "latitude": 91.0})
        )
        .await,
        ["latitude", "longitude"]
    );
    assert_eq!(
        refused_fields(
            &app,
            RATING,
            &session,
            json!({"score": 6, "comment": "c".repeat(501)})
        )
        .await,
        ["comment", "score"]
    );
    assert_eq!(app.db.telemetry_counts(&id).await.unwrap(), [0, 0, 0, 0, 0]);
    assert!(app.db.location_of(&id).await.unwrap().is_none());

    // Over the body limit: 413 before anything is read.
    let big = json!({"events": [{"name": "x", "props": {"blob": "b".repeat(200 * 1024)}}]});
    let response = app.post_as(POINTS, &session, &big).await;
    assert_eq!(response.status(), 413);
    assert_eq!(error(response).await["code"], "payload_too_large");
    app.stop().await;
}

#[tokio::test]
async fn the_location_is_asked_once_kept_coarse_and_a_refusal_is_remembered() {
    let app = spawn_app().await;
    let agrees = app.sign_in("ID", "081234567890").await;
    let refuses = app.sign_in("ID", "081234567891").await;

    let status = data(app.get_as(LOCATION, &agrees).await).await;
    assert_eq!(status, json!({"asked": false, "granted": false}));
    let here = json!({"consent": true, "latitude": -6.2088, "longitude": 106.8456});
    assert_eq!(
        data(app.post_as(LOCATION, &agrees, &here).await).await["recorded"],
        true
    );
    let row = app
        .db
        .location_of(&app.borrower_id(&agrees).await)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((row.latitude_e1, row.longitude_e1), (Some(-62), Some(1068)));
    // A second answer does not replace the first.
    let elsewhere = json!({"consent": true, "latitude": 1.0, "longitude": 2.0});
    assert_eq!(
        data(app.post_as(LOCATION, &agrees, &elsewhere).await).await["recorded"],
        false
    );
    assert_eq!(
        data(app.get_as(LOCATION, &agrees).await).await,
        json!({"asked": true, "granted": true})
    );

    // A refusal keeps no position, and stays: a later consent is not recorded.
    let no = json!({"consent": false, "latitude": 10.0, "longitude": 20.0});
    assert_eq!(
        data(app.post_as(LOCATION, &refuses, &no).await).await["recorded"],
        true
    );
    let refused_id = app.borrower_id(&refuses).await;
    let row = app.db.location_of(&refused_id).await.unwrap().unwrap();
    assert_eq!(
        (row.consent, row.latitude_e1, row.longitude_e1),
        (0, None, None)
    );
    assert_eq!(
        data(app.post_as(LOCATION, &refuses, &here).await).await["recorded"],
        false
    );
    assert_eq!(
        data(app.get_as(LOCATION, &refuses).await).await,
        json!({"asked": true, "granted": false})
    );
    app.stop().await;
}

/// PRODUCT.md §2: device details and the location only with consent, and consent can be withdrawn as easily as it was
/// given (India's DPDP Act): the device's details are kept only when the request says the borrower agreed, and either
/// can be withdrawn, deleting the data at once. A withdrawn location stays answered (the app does not ask again).
#[tokio::test]
async fn device_details_need_consent_and_device_or_location_consent_can_be_withdrawn() {
    let app = spawn_app().await;
    let session = app.sign_in("ID", "081234567890").await;
    let other = app.sign_in("ID", "081234567891").await;
    let id = app.borrower_id(&session).await;
    // Rows with the phone's details (a withdrawal keeps a row with none).
    let devices = async |id: &str| -> i64 {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM borrower_devices WHERE borrower_id = $1 AND model <> ''",
        )
        .bind(id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
        n
    };
    let phone = json!({"model": "Pixel 7", "os": "Android 14", "appVersion": "1.4.0"});
    for consent in [json!(false), Value::Null] {
        let mut body = phone.clone();
        if !consent.is_null() {
            body["consent"] = consent;
        }
        assert_eq!(
            refused_fields(&app, DEVICE, &session, body).await,
            ["consent"]
        );
    }
    assert_eq!(devices(&id).await, 0);
    let mut agreed = phone.clone();
    agreed["consent"] = json!(true);
    for who in [&session, &other] {
        assert_eq!(
            data(app.post_as(DEVICE, who, &agreed).await).await["saved"],
            true
        );
    }
    assert_eq!(devices(&id).await, 1);
    let forget = |who: &str| {
        app.client
            .delete(app.url(DEVICE))
            .header("x-session-id", who.to_owned())
            .send()
    };
    assert_eq!(
        data(forget(&session).await.unwrap()).await["forgotten"],
        true
    );
    assert_eq!(devices(&id).await, 0);
    assert_eq!(
        data(forget(&session).await.unwrap()).await["forgotten"],
        false
    );
    // The shell, which cannot know, sends them again with its old consent: not stored while the withdrawal stands.
    assert_eq!(
        data(app.post_as(DEVICE, &session, &agreed).await).await["saved"],
        false
    );
    assert_eq!(devices(&id).await, 0);
    let export = data(app.get_as("/api/v1/borrower/export", &session).await).await;
    assert!(
        export["sections"]["device"]["consentWithdrawnAt"].is_i64(),
        "{}",
        export["sections"]["device"]
    );
    // Only the borrower's own.
    assert_eq!(devices(&app.borrower_id(&other).await).await, 1);

    let here = json!({"consent": true, "latitude": -6.2088, "longitude": 106.8456});
    for who in [&session, &other] {
        assert_eq!(
            data(app.post_as(LOCATION, who, &here).await).await["recorded"],
            true
        );
    }
    let withdrawn = app
        .client
        .delete(app.url(LOCATION))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(
        data(withdrawn).await,
        json!({"asked": true, "granted": false})
    );
    let row = app.db.location_of(&id).await.unwrap().unwrap();
    assert_eq!(
        (row.consent, row.latitude_e1, row.longitude_e1),
        (0, None, None)
    );
    let theirs = app
        .db
        .location_of(&app.borrower_id(&other).await)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((theirs.consent, theirs.latitude_e1), (1, Some(-62)));
    // Asked once: a new answer is not recorded.
    assert_eq!(
        data(app.post_as(LOCATION, &session, &here).await).await["recorded"],
        false
    );
    // Without a session nothing is withdrawn.
    let anonymous = app.client.delete(app.url(LOCATION)).send().await.unwrap();
    assert_eq!(anonymous.status(), 401);
    app.stop().await;
}

#[tokio::test]
async fn a_burst_from_one_session_gets_exactly_the_limit_and_other_sessions_are_not_counted() {
    let app = spawn_app_with(|s| s.telemetry.per_minute = 10).await;
    let session = app.sign_in("IN", "9876543210").await;
    let other = app.sign_in("IN", "9876543211").await;
    let id = app.borrower_id(&session).await;
    // The limit counts a minute of the clock: keep the burst inside one.
    let into_minute = app.services.clock.now_ms().rem_euclid(60_000);
    if into_minute > 50_000 {
        tokio::time::sleep(std::time::Duration::from_millis(
            u64::try_from(61_000 - into_minute).unwrap(),
        ))
        .await;
    }

    let start = Arc::new(tokio::sync::Barrier::new(25));
    let tasks: Vec<_> = (0..25)
        .map(|i| {
            let request = app
                .client
                .post(app.url(EVENTS))
                .header("x-session-id", &session)
                .json(&json!({"name": format!("burst.{i}")}));
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                let retry = response.headers().get("retry-after").is_some();
                (status, retry)
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    let passed = answers.iter().filter(|(s, _)| *s == 200).count();
    let limited = answers.iter().filter(|(s, r)| *s == 429 && *r).count();
    assert_eq!((passed, limited), (10, 15), "{answers:?}");
    assert_eq!(app.db.client_events_of(&id).await.unwrap().len(), 10);

    // Another session of another borrower has its own allowance.
    let response = app.post_as(EVENTS, &other, &json!({"name": "other"})).await;
    assert_eq!(response.status(), 200);
    app.stop().await;
}

#[tokio::test]
async fn a_beacon_is_authenticated_by_the_cookie_and_refused_from_another_site() {
    let app = spawn_app().await;
    let token = app.sign_in("IN", "9876543210").await;
    let id = app.borrower_id(&token).await;
    let beacon = |origin: &str| {
        app.client
            .post(app.url(POINTS))
            .header("cookie", format!("kilat_session={token}"))
            .header("origin", origin)
            .header("content-type", "application/json")
            .body(r#"{"events":[{"name":"page.hidden"}]}"#)
    };
    let own = beacon(&format!("http://{}", app.addr))
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
    let foreign = beacon("https://evil.example").send().await.unwrap();
    assert_eq!(foreign.status(), 403);
    assert_eq!(error(foreign).await["code"], "cross_site_request");
    assert_eq!(app.db.client_events_of(&id).await.unwrap().len(), 1);
    app.stop().await;
}

#[tokio::test]
async fn the_retention_job_removes_telemetry_older_than_the_retention_period() {
    let app = spawn_app_with(|s| s.telemetry.retention_days = 30).await;
    let old = app.sign_in("IN", "9876543210").await;
    let fresh = app.sign_in("IN", "9876543211").await;
    for (n, session) in [&old, &fresh].into_iter().enumerate() {
        let calls = [
            (POINTS, json!({"events": [{"name": "a"}, {"name": "b"}]})),
            (ERRORS, json!({"message": "boom"})),
            (
                DEVICE,
                json!({"consent": true, "model": "M", "os": "O", "appVersion": "1"}),
            ),
            // Each borrower's own device (a token is one device's, and the latest borrower's).
            (TOKEN, json!({"token": format!("t{n}"), "platform": "web"})),
            (
                LOCATION,
                json!({"consent": true, "latitude": 12.97, "longitude": 77.59}),
            ),
            (RATING, json!({"score": 4})),
        ];
        for (path, body) in calls {
            assert_eq!(
                app.post_as(path, session, &body).await.status(),
                200,
                "{path}"
            );
        }
    }
    let old_id = app.borrower_id(&old).await;
    let fresh_id = app.borrower_id(&fresh).await;
    // The old borrower's rows were written 31 days ago; the fresh one's 29.
    let day = 86_400_000_i64;
    for (who, days) in [(&old_id, 31), (&fresh_id, 29)] {
        for (table, column) in [
            ("client_events", "created_at"),
            ("borrower_devices", "updated_at"),
            ("device_tokens", "updated_at"),
            ("borrower_locations", "created_at"),
            ("app_ratings", "created_at"),
        ] {
            app.execute(&format!(
                "UPDATE {table} SET {column} = {column} - {} WHERE borrower_id = '{who}'",
                days * day
            ))
            .await;
        }
    }

    // Two rows to a statement: the old borrower's three events take two.
    let removed = kilat_server::jobs::retention::run_in_batches(&app.services, 2)
        .await
        .unwrap();
    assert_eq!(
        (
            removed.events,
            removed.devices,
            removed.tokens,
            removed.locations,
            removed.ratings
        ),
        (3, 1, 1, 1, 1)
    );
    assert_eq!(
        app.db.telemetry_counts(&old_id).await.unwrap(),
        [0, 0, 0, 0, 0]
    );
    assert_eq!(
        app.db.telemetry_counts(&fresh_id).await.unwrap(),
        [3, 1, 1, 1, 1]
    );
    // The answer to the prompt stays (without the position): the app does not ask again.
    assert_eq!(
        data(app.get_as(LOCATION, &old).await).await,
        json!({"asked": true, "granted": true})
    );
    // A second run finds nothing more.
    let again = kilat_server::jobs::retention::run(&app.services)
        .await
        .unwrap();
    assert_eq!(again.total(), 0);
    app.stop().await;
}

/// Words that would mean the app reads what PRODUCT.md §2 forbids: contact lists, SMS, call logs, installed apps,
/// media. (Sign-in by SMS code and the typed emergency contacts are not reading the phone, and are not matched.)
const FORBIDDEN: &[&str] = &[
    "read_contacts",
    "read_sms",
    "receive_sms",
    "read_call_log",
    "calllog",
    "call_log",
    "query_all_packages",
    "get_installed",
    "installedapps",
    "installed_apps",
    "applist",
    "app_list",
    "contactlist",
    "contact_list",
    "contacts.select",
    "contactsmanager",
    "smslist",
    "sms_list",
    "smsinbox",
    "read_media",
    "read_external_storage",
    "mediadevices",
    "getusermedia",
    "mediastore",
];

fn forbidden_in(text: &str) -> Vec<&'static str> {
    let lower = text.to_ascii_lowercase();
    FORBIDDEN
        .iter()
        .copied()
        .filter(|word| lower.contains(word))
        .collect()
}

#[test]
fn the_forbidden_words_are_found_where_they_appear() {
    assert_eq!(
        forbidden_in("navigator.contacts.select(['tel'])"),
        ["contacts.select"]
    );
    assert_eq!(forbidden_in(r#"{"installedApps": []}"#), ["installedapps"]);
    assert!(forbidden_in("/borrower/login/sms-code emergencyContacts").is_empty());
}

#[tokio::test]
async fn the_api_document_has_no_contacts_sms_call_log_app_list_or_media_field() {
    let app = spawn_app().await;
    let document = app.get("/api/v1/openapi.json").await.text().await.unwrap();
    assert!(
        document.contains("/api/v1/borrower/device"),
        "the document is served"
    );
    assert_eq!(forbidden_in(&document), Vec::<&str>::new());
    app.stop().await;
}

#[test]
fn the_web_bundle_asks_for_no_contacts_sms_call_log_app_list_or_media() {
    let dist = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/dist");
    assert!(
        dist.join("index.html").is_file(),
        "web/dist is not built: run `make web` first (the bundle is what this test reads)"
    );
    let mut stack = vec![dist];
    let mut read = 0;
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| {
                ["js", "html", "json", "webmanifest"].contains(&e.to_str().unwrap_or(""))
            }) {
                let text = std::fs::read_to_string(&path).unwrap();
                read += 1;
                for word in forbidden_in(&text) {
                    found.push(format!("{}: {word}", path.display()));
                }
            }
        }
    }
    assert!(read > 3, "read only {read} files of the bundle");
    assert!(found.is_empty(), "{found:#?}");
}
