//! Certification: reference data, each step's validation, order of the steps, masking, encryption at rest, the
//! advance log, and one borrower never seeing another's.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app, valid_steps};

async fn save(app: &TestApp, session: &str, step: &str, body: &Value) -> reqwest::Response {
    app.post_as(
        &format!("/api/v1/borrower/certification/{step}"),
        session,
        body,
    )
    .await
}

#[tokio::test]
async fn enumerations_and_cities_are_public_localised_and_per_market() {
    let app = spawn_app().await;
    let english = data(app.get_en("/api/v1/borrower/enums?market=IN", None).await).await;
    let indonesian = data(app.get("/api/v1/borrower/enums?market=ID").await).await;
    assert_eq!(english["incomePeriod"], "month");
    assert_eq!(english["minIncome"], 1_200_000);
    assert_eq!(english["idNumber"]["kind"], "pan");
    assert_eq!(english["ifscRequired"], true);
    assert_eq!(indonesian["incomePeriod"], "year");
    assert_eq!(indonesian["minIncome"], 500_000_000);
    assert_eq!(indonesian["idNumber"]["kind"], "nik");
    assert_eq!(indonesian["ifscRequired"], false);
    let label = |v: &Value, list: &str, code: &str| {
        v[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["code"] == code)
            .map(|c| c["label"].as_str().unwrap().to_owned())
    };
    assert_eq!(
        label(&english, "maritalStatus", "married").as_deref(),
        Some("Married")
    );
    assert_ne!(
        label(&indonesian, "maritalStatus", "married"),
        label(&english, "maritalStatus", "married")
    );
    let banks = english["banks"].as_array().unwrap();
    assert!(
        banks
            .iter()
            .any(|b| b["code"] == "HDFC" && b["ifscPrefix"] == "HDFC")
    );
    assert!(
        indonesian["banks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["code"] == "014")
    );

    let cities = data(app.get("/api/v1/borrower/cities?market=IN").await).await;
    let regions = cities["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 36);
    assert!(regions.iter().any(|r| {
        r["code"] == "MH"
            && r["cities"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["name"] == "Mumbai")
    }));
    let cities = data(app.get("/api/v1/borrower/cities?market=ID").await).await;
    assert_eq!(cities["regions"].as_array().unwrap().len(), 38);

    let bad = app.get("/api/v1/borrower/enums?market=XX").await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(bad).await["fields"]["market"].is_string());
    app.stop().await;
}

#[tokio::test]
async fn the_steps_are_saved_in_order_and_listed_with_their_status_and_log() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let list = data(app.get_as("/api/v1/borrower/certification", &session).await).await;
    assert_eq!(list["complete"], false);
    assert_eq!(list["next"], "base");
    assert!(
        list["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["certStatus"] == "todo")
    );

    let steps = valid_steps("IN");
    // A later step before the earlier ones is refused.
    let early = save(&app, &session, "job", &steps[2].1).await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    assert_eq!(error(early).await["code"], "certification_out_of_order");

    for (i, (step, body)) in steps.iter().enumerate() {
        let saved = save(&app, &session, step, body).await;
        assert_eq!(saved.status(), 200, "{step}");
        let saved = data(saved).await;
        assert_eq!(saved["certStatus"], "done");
        let expected_next = steps.get(i + 1).map_or(Value::Null, |(s, _)| json!(s));
        assert_eq!(saved["next"], expected_next);
        // Home reads the steps in its own statement (`store::standing`), each step's column by its name.
        let home = data(app.get_as("/api/v1/borrower/home", &session).await).await;
        assert_eq!(home["certification"]["done"], i + 1, "{step}");
        assert_eq!(home["certification"]["next"], expected_next, "{step}");
    }
    let list = data(app.get_as("/api/v1/borrower/certification", &session).await).await;
    assert_eq!(list["complete"], true);
    assert!(list["next"].is_null());
    assert!(
        list["steps"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["certStatus"] == "done" && s["completedAt"].is_i64())
    );

    // Saving again is an edit, logged as such.
    assert_eq!(save(&app, &session, "job", &steps[2].1).await.status(), 200);
    let log = data(
        app.get_as("/api/v1/borrower/certification/log", &session)
            .await,
    )
    .await;
    let log: Vec<(String, String)> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["step"].as_str().unwrap().to_owned(),
                e["event"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(log.len(), 6);
    assert_eq!(log[0], ("base".to_owned(), "completed".to_owned()));
    assert_eq!(log[5], ("job".to_owned(), "updated".to_owned()));
    app.stop().await;
}

#[tokio::test]
async fn id_and_account_numbers_are_masked_when_read_and_encrypted_at_rest() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let steps = valid_steps("IN");
    // The save answers masked too: whoever holds the session (a shared phone) never reads the number back.
    let saved = data(save(&app, &session, "base", &steps[0].1).await).await;
    assert_eq!(saved["data"]["idNumber"], "******234F");
    let read = data(
        app.get_as("/api/v1/borrower/certification/base", &session)
            .await,
    )
    .await;
    assert_eq!(read["data"]["idNumber"], "******234F");
    assert_eq!(read["data"]["fullName"], "Asha Verma");

    // Sending the masked value back keeps the number.
    let mut edit = steps[0].1.clone();
    edit["idNumber"] = json!("******234F");
    edit["fullName"] = json!("Asha K Verma");
    let saved = data(save(&app, &session, "base", &edit).await).await;
    assert_eq!(saved["data"]["idNumber"], "******234F");
    assert_eq!(saved["data"]["fullName"], "Asha K Verma");

    for (step, body) in &steps[1..] {
        let saved = data(save(&app, &session, step, body).await).await;
        assert!(!saved.to_string().contains("501001234567"), "{step}");
    }
    // The bank step sent back as read (its number masked): kept, and answered masked.
    let mut bank = steps[4].1.clone();
    for field in ["accountNumber", "accountNumberConfirm"] {
        if bank.get(field).is_some() {
            bank[field] = json!("**** **** 4567");
        }
    }
    let saved = save(&app, &session, "bank", &bank).await;
    assert_eq!(saved.status(), 200);
    assert_eq!(data(saved).await["data"]["accountNumber"], "**** **** 4567");
    let bank = data(
        app.get_as("/api/v1/borrower/certification/bank", &session)
            .await,
    )
    .await;
    assert_eq!(bank["data"]["accountNumber"], "**** **** 4567");

    // Nothing readable in the database.
    let rows: Vec<String> = sqlx::query_scalar("SELECT data_enc FROM certification_steps")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert_eq!(rows.len(), 5);
    for row in rows {
        for secret in [
            "ABCPE1234F",
            "501001234567",
            "Asha",
            "Bandra",
            "Infosys",
            "9811122233",
        ] {
            assert!(!row.contains(secret), "{secret} stored in clear");
        }
    }
    app.stop().await;
}

#[tokio::test]
async fn each_step_names_the_fields_at_fault_in_the_requests_language() {
    let app = spawn_app().await;
    let india = app.sign_in("IN", "9876543210").await;
    let cases: [(&str, Value, &[&str]); 3] = [
        (
            "base",
            json!({"fullName": "A", "dateOfBirth": "2015-01-01", "gender": "robot", "idNumber": "1234"}),
            &["dateOfBirth", "fullName", "gender", "idNumber"],
        ),
        (
            "base",
            json!({}),
            &["dateOfBirth", "fullName", "gender", "idNumber"],
        ),
        (
            "base",
            json!({"fullName": "Asha Verma", "dateOfBirth": "1992-02-30", "gender": "female", "idNumber": "ABCDE1234F"}),
            &["dateOfBirth", "idNumber"],
        ),
    ];
    for (step, body, fields) in cases {
        let response = app
            .client
            .post(app.url(&format!("/api/v1/borrower/certification/{step}")))
            .header("x-session-id", &india)
            .header("accept-language", "en")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let body = error(response).await;
        assert_eq!(body["code"], "validation_failed");
        let got: Vec<&str> = body["fields"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(got, fields);
    }
    // The Indonesian answer for an Indonesian NIK in the wrong shape.
    let indonesia = app.sign_in("ID", "081234567890").await;
    let body = json!({"fullName": "Budi Santoso", "dateOfBirth": "1990-07-01", "gender": "male", "idNumber": "12345"});
    let refused = error(save(&app, &indonesia, "base", &body).await).await;
    assert_eq!(
        refused["fields"]["idNumber"],
        "Masukkan NIK: 16 angka pada KTP Anda."
    );

    // Form-encoded bodies work too (the original's second client).
    let form = app
        .client
        .post(app.url("/api/v1/borrower/certification/base"))
        .header("x-session-id", &indonesia)
        .form(&[
            ("fullName", "Budi Santoso"),
            ("dateOfBirth", "1990-07-01"),
            ("gender", "male"),
            ("idNumber", "3171234567890001"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 200);

    // Step by step, the rest of the Indonesian rules.
    let steps = valid_steps("ID");
    let mut personal = steps[1].1.clone();
    personal["cityCode"] = json!("MH-MUM");
    personal["postalCode"] = json!("1219");
    let refused = error(save(&app, &indonesia, "personal", &personal).await).await;
    let fields: Vec<&str> = refused["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, ["cityCode", "postalCode"]);
    assert_eq!(
        save(&app, &indonesia, "personal", &steps[1].1)
            .await
            .status(),
        200
    );
    assert_eq!(
        save(&app, &indonesia, "job", &steps[2].1).await.status(),
        200
    );
    let mut extended = steps[3].1.clone();
    extended["contact2Phone"] = json!("081234567890");
    extended["consent"] = json!(false);
    let refused = error(save(&app, &indonesia, "extended", &extended).await).await;
    let fields: Vec<&str> = refused["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        fields,
        ["consent", "contact2Phone"],
        "own phone and no consent"
    );
    app.stop().await;
}

#[tokio::test]
async fn one_borrower_never_sees_anothers_certification() {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876543210").await;
    let ravi = app.sign_in("IN", "9811122200").await;
    app.certify("IN", &asha).await;
    let theirs = data(
        app.get_as("/api/v1/borrower/certification/base", &ravi)
            .await,
    )
    .await;
    assert_eq!(theirs["certStatus"], "todo");
    assert!(theirs["data"].is_null());
    let list = data(app.get_as("/api/v1/borrower/certification", &ravi).await).await;
    assert_eq!(list["next"], "base");
    assert!(
        data(
            app.get_as("/api/v1/borrower/certification/log", &ravi)
                .await
        )
        .await
        .as_array()
        .unwrap()
        .is_empty()
    );
    assert_eq!(
        app.get("/api/v1/borrower/certification").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.get_as("/api/v1/borrower/certification/salary", &asha)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn many_borrowers_saving_at_the_same_moment_all_succeed() {
    // On SQLite only one connection writes at a time; saves must wait their turn, never fail with "locked".
    let app = spawn_app().await;
    let mut sessions = Vec::new();
    for i in 0..12 {
        sessions.push(app.sign_in("IN", &format!("98765432{i:02}")).await);
    }
    let base = valid_steps("IN")[0].1.clone();
    let mut saves = tokio::task::JoinSet::new();
    for session in &sessions {
        // Twice each: a first save and an edit racing it.
        for _ in 0..2 {
            let (client, url, session, body) = (
                app.client.clone(),
                app.url("/api/v1/borrower/certification/base"),
                session.clone(),
                base.clone(),
            );
            saves.spawn(async move {
                client
                    .post(url)
                    .header("x-session-id", session)
                    .json(&body)
                    .send()
                    .await
                    .unwrap()
                    .status()
            });
        }
    }
    while let Some(status) = saves.join_next().await {
        assert_eq!(status.unwrap(), 200);
    }
    let logged: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM certification_log WHERE event = 'completed'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(
        logged, 12,
        "each borrower's first save is logged once as completed"
    );
    app.stop().await;
}

/// While an order is open, the name, date of birth and PAN/NIK, and the contacts' phones, stay as reviewed: a borrower
/// who replaced them would take their old fingerprints off the duplicate check. Other answers still change; once no
/// order is open, these do too.
#[tokio::test]
async fn who_the_borrower_is_and_their_contacts_phones_stay_as_reviewed_while_an_order_is_open() {
    let app = spawn_app().await;
    let crate::builders::Loan {
        session, order_id, ..
    } = app.borrower(crate::builders::IN).disbursed().await;
    let id = app.borrower_id(&session).await;
    let fingerprints = app.db.fingerprints_of(&id).await.unwrap();
    let steps = valid_steps("IN");
    let step = |name: &str| steps.iter().find(|(s, _)| *s == name).unwrap().1.clone();

    let mut base = step("base");
    base["idNumber"] = json!("ZZZPE9999Z");
    base["fullName"] = json!("Someone Else");
    let refused = error(save(&app, &session, "base", &base).await).await;
    assert_eq!(refused["code"], "validation_failed", "{refused}");
    let fields: Vec<&str> = refused["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(fields, ["fullName", "idNumber"]);
    let mut extended = step("extended");
    extended["contact1Phone"] = json!("9833344455");
    let refused = error(save(&app, &session, "extended", &extended).await).await;
    assert!(refused["fields"]["contact1Phone"].is_string(), "{refused}");
    assert_eq!(app.db.fingerprints_of(&id).await.unwrap(), fingerprints);

    // A contact's name or the gender is no identity: it changes.
    let mut renamed = step("extended");
    renamed["contact2Name"] = json!("Meena Iyer");
    assert_eq!(
        save(&app, &session, "extended", &renamed).await.status(),
        StatusCode::OK
    );
    // Once the loan is closed, a wrong PAN can be put right.
    app.execute(&format!(
        "UPDATE orders SET status = 'repaid', closed_at = 1 WHERE id = '{order_id}'"
    ))
    .await;
    assert_eq!(
        save(&app, &session, "base", &base).await.status(),
        StatusCode::OK
    );
    assert_ne!(app.db.fingerprints_of(&id).await.unwrap(), fingerprints);
    app.stop().await;
}

/// While an application waits for its review, every step stays as the borrower sent it (the reviewer decides on what
/// they read: an income lowered meanwhile would be approved unseen): a change is refused on each changed field, a save
/// of the same answers is fine, and withdrawing the application frees them.
#[tokio::test]
async fn the_answers_stay_as_sent_while_the_application_waits_for_review() {
    let app = spawn_app().await;
    let crate::builders::Application {
        session, order_no, ..
    } = app.borrower(crate::builders::IN).applied().await;
    let steps = valid_steps("IN");
    let step = |name: &str| steps.iter().find(|(s, _)| *s == name).unwrap().1.clone();

    let mut job = step("job");
    job["income"] = json!(800_000);
    job["employerName"] = json!("Someone Else Ltd");
    let refused = error(save(&app, &session, "job", &job).await).await;
    assert_eq!(refused["code"], "validation_failed", "{refused}");
    let mut fields: Vec<&str> = refused["fields"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort();
    assert_eq!(fields, ["employerName", "income"], "{refused}");
    assert!(
        refused["fields"]["income"]
            .as_str()
            .unwrap()
            .contains("batalkan pengajuan"),
        "{refused}"
    );
    // An identity field and another changed together: each named at once, the identity one with its own reason.
    let mut base = step("base");
    base["fullName"] = json!("Someone Else");
    base["gender"] = json!(if base["gender"] == "male" {
        "female"
    } else {
        "male"
    });
    let refused = error(save(&app, &session, "base", &base).await).await;
    let identity_text = refused["fields"]["fullName"].as_str().unwrap().to_owned();
    let gender_text = refused["fields"]["gender"].as_str().unwrap().to_owned();
    assert!(gender_text.contains("batalkan pengajuan"), "{refused}");
    assert_ne!(identity_text, gender_text, "{refused}");
    // The same answers again change nothing and are fine.
    assert_eq!(
        save(&app, &session, "job", &step("job")).await.status(),
        StatusCode::OK
    );
    // Withdrawn, the application no longer holds them.
    let cancelled = app
        .post_as(
            &format!("/api/v1/borrower/orders/{order_no}/cancel"),
            &session,
            &json!({}),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::OK);
    assert_eq!(
        save(&app, &session, "job", &job).await.status(),
        StatusCode::OK
    );
    app.stop().await;
}
