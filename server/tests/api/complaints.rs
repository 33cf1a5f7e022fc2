//! Customer service and complaints (issue 9): the service screen's contacts, the FAQ, image uploads checked by
//! content with their limits, the complaint flow with a support reply and the borrower's score, the regulators'
//! deadlines with the business date moved, the contact messages' handled flag, the FAQ's editing, and that a
//! borrower sees only their own complaints and images.

use std::io::Cursor;

use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use kilat_server::auth::operators::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::builders::{Borrower, ID, IN};
use crate::helpers::{TestApp, data, error, spawn_app};
use crate::lifecycle::confirmed_order;
use crate::servicing::{Op, op_call, operator};

pub(crate) fn photo(format: ImageFormat) -> Vec<u8> {
    let img = RgbImage::from_fn(64, 48, |x, y| Rgb([(x * 4) as u8, (y * 5) as u8, 120]));
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(img)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

/// A JPEG carrying an EXIF segment with a recognisable text.
fn jpeg_with_exif() -> Vec<u8> {
    let plain = photo(ImageFormat::Jpeg);
    let payload = b"Exif\0\0MM\0*\0\0\0\x08\0\0GPS-28.6139N-77.2090E";
    let len = u16::try_from(payload.len() + 2).unwrap().to_be_bytes();
    let mut out = plain[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1, len[0], len[1]]);
    out.extend_from_slice(payload);
    out.extend_from_slice(&plain[2..]);
    out
}

/// A POST as the borrower asking for English messages.
async fn post_en(app: &TestApp, path: &str, session: &str, body: &Value) -> reqwest::Response {
    app.client
        .post(app.url(path))
        .header("x-session-id", session)
        .header("accept-language", "en-IN")
        .json(body)
        .send()
        .await
        .unwrap()
}

pub(crate) async fn upload(
    app: &TestApp,
    session: &str,
    content_type: &str,
    bytes: Vec<u8>,
) -> reqwest::Response {
    app.client
        .post(app.url("/api/v1/borrower/complaints/images"))
        .header("x-session-id", session)
        .header("accept-language", "en-IN")
        .header("content-type", content_type)
        .body(bytes)
        .send()
        .await
        .unwrap()
}

pub(crate) async fn upload_ok(app: &TestApp, session: &str) -> String {
    let response = upload(app, session, "image/jpeg", jpeg_with_exif()).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    data(response).await["imageId"].as_str().unwrap().to_owned()
}

async fn file_complaint(app: &TestApp, session: &str, body: &Value) -> Value {
    let response = app
        .post_as("/api/v1/borrower/complaints", session, body)
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    data(response).await
}

#[tokio::test]
async fn customer_service_shows_the_market_s_company_and_a_whatsapp_text_naming_the_open_loan() {
    let app = spawn_app().await;
    let (session, order_no, _) = confirmed_order(&app, "9876511001").await;
    let cs = data(
        app.get_as("/api/v1/borrower/customer-service", &session)
            .await,
    )
    .await;
    assert_eq!(cs["market"], "IN");
    assert_eq!(cs["servicePhone"], "+91 80 0000 0100");
    assert_eq!(cs["grievanceOfficer"]["name"], "Priya Raman");
    assert_eq!(cs["openOrderNo"], order_no.as_str());
    assert_eq!(cs["escalation"]["url"], "https://cms.rbi.org.in");
    let url = cs["whatsappUrl"].as_str().unwrap();
    assert!(
        url.starts_with("https://wa.me/919000000100?text=Hello%2C%20"),
        "{url}"
    );
    assert!(url.contains(&order_no), "{url}");

    let id_session = app.sign_in("ID", "081234567811").await;
    let cs = data(
        app.get_as("/api/v1/borrower/customer-service", &id_session)
            .await,
    )
    .await;
    assert_eq!(cs["grievanceOfficer"]["name"], "Dewi Lestari");
    assert_eq!(cs["openOrderNo"], Value::Null);
    assert_eq!(cs["escalation"]["phone"], "157");
    assert!(cs["whatsappUrl"].as_str().unwrap().contains("Halo"), "{cs}");
    assert!(
        !cs.to_string().contains("Priya"),
        "Indonesia never sees India's company"
    );

    // The FAQ in the borrower's language.
    let faq = data(app.get_as("/api/v1/borrower/faq", &id_session).await).await;
    let faq = faq.as_array().unwrap();
    assert!(faq.len() >= 6);
    assert!(faq.iter().all(|e| e["lang"] == "id"));
    assert!(
        faq.iter()
            .any(|e| e["answer"].as_str().unwrap().contains("157"))
    );
    let faq = data(app.get_as("/api/v1/borrower/faq", &session).await).await;
    assert!(faq.as_array().unwrap().iter().all(|e| e["lang"] == "en"));
    assert_eq!(
        app.get("/api/v1/borrower/customer-service").await.status(),
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}

#[tokio::test]
async fn uploads_are_checked_by_content_limited_in_size_and_number_and_stripped_of_metadata() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511002").await;

    // Text that claims to be a PNG.
    let fake = upload(
        &app,
        &session,
        "image/png",
        b"<?php echo 'not a photo'; ?>".to_vec(),
    )
    .await;
    assert_eq!(fake.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = error(fake).await;
    assert_eq!(body["code"], "validation_failed");
    assert!(body["fields"]["image"].is_string(), "{body}");
    // PNG magic bytes and garbage after them.
    let mut broken = photo(ImageFormat::Png);
    broken.truncate(60);
    assert_eq!(
        upload(&app, &session, "image/png", broken).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    // Over 5 MB.
    let oversized = upload(
        &app,
        &session,
        "image/jpeg",
        vec![0xFF; 5 * 1024 * 1024 + 1],
    )
    .await;
    assert_eq!(oversized.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error(oversized).await["code"], "payload_too_large");
    // Not an image type at all.
    let text = upload(&app, &session, "text/plain", photo(ImageFormat::Png)).await;
    assert_eq!(text.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);

    // A JPEG with EXIF: accepted, re-encoded without it; PNG and WebP too, whatever the declared type.
    let jpeg = upload(&app, &session, "image/jpeg", jpeg_with_exif()).await;
    assert_eq!(jpeg.status(), StatusCode::CREATED);
    let jpeg = data(jpeg).await;
    assert_eq!(jpeg["contentType"], "image/jpeg");
    assert_eq!(
        (jpeg["width"].as_i64(), jpeg["height"].as_i64()),
        (Some(64), Some(48))
    );
    let id = jpeg["imageId"].as_str().unwrap();
    let stored = app
        .client
        .get(app.url(&format!("/api/v1/borrower/complaints/images/{id}")))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(stored.status(), StatusCode::OK);
    assert_eq!(stored.headers()["content-type"], "image/jpeg");
    let bytes = stored.bytes().await.unwrap();
    assert!(bytes.starts_with(&[0xFF, 0xD8]));
    assert!(!bytes.windows(4).any(|w| w == b"Exif"));
    assert!(!bytes.windows(4).any(|w| w == b"GPS-"));
    let png = data(
        upload(
            &app,
            &session,
            "application/octet-stream",
            photo(ImageFormat::Png),
        )
        .await,
    )
    .await;
    assert_eq!(png["contentType"], "image/png");
    let webp = data(upload(&app, &session, "image/jpeg", photo(ImageFormat::WebP)).await).await;
    assert_eq!(webp["contentType"], "image/webp");

    // A fourth upload waiting for the same complaint is refused.
    let fourth = upload(&app, &session, "image/png", photo(ImageFormat::Png)).await;
    assert_eq!(fourth.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = error(fourth).await;
    assert_eq!(
        body["fields"]["image"], "At most 3 photos a complaint.",
        "{body}"
    );
    // Removing one makes room again; a removed one is gone.
    let removed = app
        .client
        .delete(app.url(&format!(
            "/api/v1/borrower/complaints/images/{}",
            png["imageId"].as_str().unwrap()
        )))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status(), StatusCode::OK);
    assert_eq!(
        upload(&app, &session, "image/png", photo(ImageFormat::Png))
            .await
            .status(),
        StatusCode::CREATED
    );
    let on_disk = walk(&app.files_dir);
    assert_eq!(on_disk, 3, "the removed upload's file is gone too");
    app.stop().await;
}

pub(crate) fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| {
                    if e.path().is_dir() {
                        walk(&e.path())
                    } else {
                        1
                    }
                })
                .sum()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn six_simultaneous_uploads_leave_exactly_three_waiting() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876511003").await;
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let client = app.client.clone();
            let url = app.url("/api/v1/borrower/complaints/images");
            let session = session.clone();
            let bytes = photo(ImageFormat::Png);
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("x-session-id", session)
                    .header("content-type", "image/png")
                    .body(bytes)
                    .send()
                    .await
                    .unwrap()
                    .status()
            })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::CREATED => created += 1,
            StatusCode::UNPROCESSABLE_ENTITY => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(created, 3);
    let stored: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM complaint_images")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(stored, 3);
    assert_eq!(
        walk(&app.files_dir),
        3,
        "a refused upload's file is removed again"
    );
    app.stop().await;
}

#[tokio::test]
async fn a_complaint_is_validated_and_takes_only_the_borrower_s_own_loan_and_uploads() {
    let app = spawn_app().await;
    let (session, order_no, _) = confirmed_order(&app, "9876511004").await;
    let (other, other_order, _) = confirmed_order(&app, "9876511005").await;

    let init = data(
        app.get_as("/api/v1/borrower/complaints/init", &session)
            .await,
    )
    .await;
    assert_eq!(init["maxImages"], 3);
    assert_eq!(init["maxImageBytes"], 5 * 1024 * 1024);
    assert!(
        init["categories"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["code"] == "repayment" && c["label"] == "Repayment")
    );
    let loans = init["loans"].as_array().unwrap();
    assert_eq!(loans.len(), 1);
    assert_eq!(loans[0]["orderNo"], order_no.as_str());

    let empty = app
        .post_as("/api/v1/borrower/complaints", &session, &json!({}))
        .await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = error(empty).await;
    assert!(
        body["fields"]["category"].is_string() && body["fields"]["description"].is_string(),
        "{body}"
    );
    let bad = post_en(
        &app,
        "/api/v1/borrower/complaints",
        &session,
        &json!({"category": "weather", "description": "short", "orderNo": other_order}),
    )
    .await;
    let body = error(bad).await;
    assert_eq!(body["fields"]["category"], "Choose one of the options.");
    assert_eq!(body["fields"]["description"], "At least 10 characters.");
    assert_eq!(
        body["fields"]["orderNo"], "Choose one of the options.",
        "another borrower's loan"
    );
    let long = post_en(
        &app,
        "/api/v1/borrower/complaints",
        &session,
        &json!({"category": "app", "description": "x".repeat(2001)}),
    )
    .await;
    assert_eq!(
        error(long).await["fields"]["description"],
        "At most 2000 characters."
    );

    // Another borrower's upload cannot be attached, and nothing is written when it is tried.
    let theirs = upload_ok(&app, &other).await;
    let mine = upload_ok(&app, &session).await;
    let stolen = post_en(
            &app,
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "app", "description": "The app shows a blank page.", "imageIds": [mine, theirs]}),
        )
        .await;
    assert_eq!(stolen.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        error(stolen).await["fields"]["imageIds"],
        "Choose one of the options."
    );
    let complaints: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM complaints")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(complaints, 0, "no half-written complaint");
    // Four ids at once.
    let four = post_en(
            &app,
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "app", "description": "The app shows a blank page.", "imageIds": ["a", "b", "c", "d"]}),
        )
        .await;
    assert_eq!(
        error(four).await["fields"]["imageIds"],
        "At most 3 photos a complaint."
    );
    // Nor can the other borrower read this one's image.
    let peek = app
        .get_as(
            &format!("/api/v1/borrower/complaints/images/{mine}"),
            &other,
        )
        .await;
    assert_eq!(peek.status(), StatusCode::NOT_FOUND);
    app.stop().await;
}

#[tokio::test]
async fn support_answers_a_complaint_the_borrower_reads_it_and_rates_it_once() {
    let app = spawn_app().await;
    let (session, order_no, _) = confirmed_order(&app, "9876511006").await;
    let image = upload_ok(&app, &session).await;
    let filed = file_complaint(
        &app,
        &session,
        &json!({"category": "charges", "orderNo": order_no, "description": "I was charged a fee twice.", "imageIds": [image]}),
    )
    .await;
    let ticket = filed["ticketNo"].as_str().unwrap().to_owned();
    assert!(ticket.starts_with("CP-") && ticket.len() == 16, "{ticket}");
    assert_eq!(filed["status"], "open");
    assert_eq!(filed["orderNo"], order_no.as_str());
    assert_eq!(filed["categoryLabel"], "Fees and charges");
    assert_eq!(filed["overdue"], false);
    assert_eq!(filed["messages"][0]["author"], "borrower");
    assert_eq!(filed["messages"][0]["body"], "I was charged a fee twice.");
    assert_eq!(filed["images"][0]["imageId"], image.as_str());
    // The text is encrypted at rest.
    let stored: String = sqlx::query_scalar("SELECT body_enc FROM complaint_messages")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert!(!stored.contains("charged"), "{stored}");

    // Another borrower sees none of it.
    let stranger = app.sign_in("IN", "9876511007").await;
    assert_eq!(
        app.get_as(&format!("/api/v1/borrower/complaints/{ticket}"), &stranger)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get_as(
            &format!("/api/v1/borrower/complaints/images/{image}"),
            &stranger
        )
        .await
        .status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        data(app.get_as("/api/v1/borrower/complaints", &stranger).await).await,
        json!([])
    );

    // Nothing to rate before support answers.
    let early = app
        .post_as(
            &format!("/api/v1/borrower/complaints/{ticket}/score"),
            &session,
            &json!({"score": 4}),
        )
        .await;
    assert_eq!(early.status(), StatusCode::CONFLICT);
    assert_eq!(error(early).await["code"], "complaint_not_answered");

    let support = operator(&app, "sam", &[Role::Support]).await;
    let queue = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints?market=IN",
            None,
        )
        .await,
    )
    .await;
    let queue = &queue["items"];
    assert_eq!(queue[0]["ticketNo"], ticket.as_str());
    assert_eq!(queue[0]["status"], "open");
    assert!(queue[0]["ageSeconds"].as_i64().unwrap() >= 0);
    let seen = data(
        op_call(
            &app,
            &support,
            Method::GET,
            &format!("/api/v1/console/complaints/{ticket}"),
            None,
        )
        .await,
    )
    .await;
    assert_eq!(seen["phoneMasked"], "+91 ******1006");
    let picture = op_call(
        &app,
        &support,
        Method::GET,
        &format!("/api/v1/console/complaint-images/{image}"),
        None,
    )
    .await;
    assert_eq!(picture.status(), StatusCode::OK);
    let empty = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "  "})),
    )
    .await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let replied = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "We refunded the second fee today."})),
    )
    .await;
    assert_eq!(replied.status(), StatusCode::OK);
    assert_eq!(data(replied).await["status"], "answered");

    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{ticket}"), &session)
            .await,
    )
    .await;
    assert_eq!(read["status"], "answered");
    assert_eq!(read["messages"][1]["author"], "support");
    assert_eq!(
        read["messages"][1]["body"],
        "We refunded the second fee today."
    );
    assert_eq!(read["score"], Value::Null);

    let invalid = post_en(
        &app,
        &format!("/api/v1/borrower/complaints/{ticket}/score"),
        &session,
        &json!({"score": 6}),
    )
    .await;
    assert_eq!(
        error(invalid).await["fields"]["score"],
        "Give a score from 1 to 5."
    );
    let rated = app
        .post_as(
            &format!("/api/v1/borrower/complaints/{ticket}/score"),
            &session,
            &json!({"score": 5, "comment": "Quick and clear."}),
        )
        .await;
    assert_eq!(rated.status(), StatusCode::OK);
    let rated = data(rated).await;
    assert_eq!(
        (rated["score"].as_i64(), rated["scoreComment"].as_str()),
        (Some(5), Some("Quick and clear."))
    );
    let again = app
        .post_as(
            &format!("/api/v1/borrower/complaints/{ticket}/score"),
            &session,
            &json!({"score": 1}),
        )
        .await;
    assert_eq!(again.status(), StatusCode::CONFLICT);
    assert_eq!(error(again).await["code"], "already_rated");

    // Closing, once; no reply after.
    let closed = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/close"),
        None,
    )
    .await;
    assert_eq!(data(closed).await["status"], "closed");
    let twice = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/close"),
        None,
    )
    .await;
    assert_eq!(error(twice).await["code"], "complaint_closed");
    let late = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "More."})),
    )
    .await;
    assert_eq!(late.status(), StatusCode::CONFLICT);
    let open_queue = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(open_queue["items"], json!([]));
    assert_eq!(open_queue["total"], 0);
    let all = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints?status=all",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(all["items"].as_array().unwrap().len(), 1);
    // Reply and close are in the audit trail.
    let audited: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM audit_log WHERE entity = 'complaint'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert_eq!(audited, 2);
    app.stop().await;
}

#[tokio::test]
async fn a_complaint_unresolved_after_30_days_in_india_or_20_working_days_in_indonesia_is_flagged()
{
    let app = spawn_app().await;
    // A date with no Indonesian holiday in the next 20 working days (holidays: the next test).
    app.set_date(time::macros::date!(2026 - 10 - 05)).await;
    let start = app.services.clock.today(kilat_domain::Market::India);
    let Borrower {
        phone: india_phone,
        session: india,
    } = app.borrower(IN).await;
    let Borrower {
        phone: indonesia_phone,
        session: indonesia,
    } = app.borrower(ID).await;
    let body = json!({"category": "other", "description": "Nobody has called me back."});
    let in_ticket = file_complaint(&app, &india, &body).await;
    let id_ticket = file_complaint(&app, &indonesia, &body).await;
    let in_deadline = start + time::Duration::days(30);
    assert_eq!(in_ticket["resolveBy"], in_deadline.to_string());
    let id_received = app.services.clock.today(kilat_domain::Market::Indonesia);
    let holidays = app.services.holidays.of(kilat_domain::Market::Indonesia);
    let id_deadline = kilat_domain::calendar::add_working_days(id_received, 20, holidays).unwrap();
    assert_eq!(
        id_deadline,
        kilat_domain::calendar::add_working_days(id_received, 20, &[]).unwrap()
    );
    assert_eq!(id_ticket["resolveBy"], id_deadline.to_string());
    let in_no = in_ticket["ticketNo"].as_str().unwrap().to_owned();
    let id_no = id_ticket["ticketNo"].as_str().unwrap().to_owned();

    // On the deadline: not flagged.
    app.set_date(in_deadline).await;
    let india = app.sign_in("IN", &india_phone).await;
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{in_no}"), &india)
            .await,
    )
    .await;
    assert_eq!(read["overdue"], false);
    // The day after: flagged, for the borrower (with RBI CMS) and in support's queue.
    app.set_date(in_deadline + time::Duration::days(1)).await;
    let india = app.sign_in("IN", &india_phone).await;
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{in_no}"), &india)
            .await,
    )
    .await;
    assert_eq!(read["overdue"], true);
    assert_eq!(read["escalation"]["url"], "https://cms.rbi.org.in");
    let support = operator(&app, "sam", &[Role::Support]).await;
    let queue = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints",
            None,
        )
        .await,
    )
    .await;
    let flagged: Vec<(&str, bool)> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["ticketNo"].as_str().unwrap(),
                c["overdue"].as_bool().unwrap(),
            )
        })
        .collect();
    let id_overdue_now = app.services.clock.today(kilat_domain::Market::Indonesia) > id_deadline;
    assert!(flagged.contains(&(in_no.as_str(), true)), "{flagged:?}");
    assert!(
        flagged.contains(&(id_no.as_str(), id_overdue_now)),
        "{flagged:?}"
    );
    // Indonesia: 20 working days is 28 calendar days here, so it was flagged well before India's.
    assert!(id_overdue_now);
    let indonesia = app.sign_in("ID", &indonesia_phone).await;
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{id_no}"), &indonesia)
            .await,
    )
    .await;
    assert_eq!(read["overdue"], true);
    assert_eq!(read["escalation"]["phone"], "157");
    // OJK asks for an answer within 20 working days: once support answers (late), it waits on the borrower, not the
    // lender, and is no longer flagged; the borrower's reply makes it wait on the lender again, past its deadline.
    let answered = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{id_no}/reply"),
        Some(json!({"body": "Maaf atas keterlambatan: biaya sudah kami kembalikan."})),
    )
    .await;
    assert_eq!(answered.status(), StatusCode::OK);
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{id_no}"), &indonesia)
            .await,
    )
    .await;
    assert_eq!(
        (&read["status"], &read["overdue"]),
        (&json!("answered"), &json!(false))
    );
    let again = app
        .post_as(
            &format!("/api/v1/borrower/complaints/{id_no}/replies"),
            &indonesia,
            &json!({"body": "Belum masuk ke rekening saya."}),
        )
        .await;
    assert_eq!(again.status(), StatusCode::CREATED);
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{id_no}"), &indonesia)
            .await,
    )
    .await;
    assert_eq!(
        (&read["status"], &read["overdue"]),
        (&json!("open"), &json!(true))
    );

    // A closed complaint is never flagged (answered late, then closed).
    for (path, body) in [
        (
            "reply",
            Some(json!({"body": "Sorry for the wait: it is sorted."})),
        ),
        ("close", None),
    ] {
        let done = op_call(
            &app,
            &support,
            Method::POST,
            &format!("/api/v1/console/complaints/{in_no}/{path}"),
            body,
        )
        .await;
        assert_eq!(done.status(), StatusCode::OK, "{path}");
    }
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{in_no}"), &india)
            .await,
    )
    .await;
    assert_eq!(read["overdue"], false);
    app.stop().await;
}

/// Support's open queue is in the order it is worked, not the order of filing: a complaint past its deadline first,
/// then those waiting on the lender by the nearest deadline (India's 30 days beside Indonesia's 20 working days), and
/// one answered in time, waiting on its borrower, last, though it was filed first.
#[tokio::test]
async fn support_s_queue_puts_the_complaint_past_its_deadline_first_and_the_one_waiting_on_its_borrower_last()
 {
    let app = spawn_app().await;
    // Monday 5 October 2026, with no Indonesian holiday in the 20 working days after it.
    app.set_date(time::macros::date!(2026 - 10 - 05)).await;
    let body = json!({"category": "other", "description": "Nobody has called me back."});
    let ticket = |filed: Value| filed["ticketNo"].as_str().unwrap().to_owned();
    let answered_id = ticket(file_complaint(&app, &app.borrower(ID).await.session, &body).await);
    let early_in = ticket(file_complaint(&app, &app.borrower(IN).await.session, &body).await);
    let support = operator(&app, "sam", &[Role::Support]).await;
    let reply = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{answered_id}/reply"),
        Some(json!({"body": "Kami sudah menghubungi Anda hari ini."})),
    )
    .await;
    assert_eq!(reply.status(), StatusCode::OK);
    app.set_date(time::macros::date!(2026 - 10 - 06)).await;
    let late_id = ticket(file_complaint(&app, &app.borrower(ID).await.session, &body).await);
    let later_in = ticket(file_complaint(&app, &app.borrower(IN).await.session, &body).await);

    // 4 November: Indonesia's complaint of 6 October is a day past its 20 working days (3 November); India's of the
    // 5th is on its 30th day, the 6th's a day before it.
    app.set_date(time::macros::date!(2026 - 11 - 04)).await;
    let support = operator(&app, "sal", &[Role::Support]).await;
    let queue = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints?status=open",
            None,
        )
        .await,
    )
    .await;
    let order: Vec<(&str, bool)> = queue["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["ticketNo"].as_str().unwrap(),
                c["overdue"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        order,
        [
            (late_id.as_str(), true),
            (early_in.as_str(), false),
            (later_in.as_str(), false),
            (answered_id.as_str(), false),
        ]
    );
    assert_eq!(queue["total"], 4);
    // A page of two is the first two of that order.
    let page = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/complaints?status=open&page=2&pageSize=2",
            None,
        )
        .await,
    )
    .await;
    let second: Vec<&str> = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ticketNo"].as_str().unwrap())
        .collect();
    assert_eq!(second, [later_in.as_str(), answered_id.as_str()]);
    assert_eq!(page["total"], 4);
    app.stop().await;
}

/// Moves the server so that Indonesia's business date is `date` (WIB runs 1½ hours ahead of IST, so late in India's
/// evening Indonesia is already on the next day).
#[tokio::test]
async fn an_indonesian_complaint_filed_before_lebaran_is_flagged_later_by_exactly_the_holidays() {
    use time::macros::date;
    let app = spawn_app().await;
    // Monday 9 March 2026. Without holidays its 20th working day is Monday 6 April; the settings' holidays on
    // weekdays in between are Nyepi's collective leave and Nyepi (18, 19 March), Idul Fitri's collective leave (20,
    // 23, 24 March; Idul Fitri itself, 21 and 22 March, is a weekend) and Good Friday (3 April): six days, so the
    // deadline moves six working days to Tuesday 14 April.
    app.set_indonesia_date(date!(2026 - 03 - 09)).await;
    let session = app.sign_in("ID", "081234567830").await;
    let ticket = file_complaint(
        &app,
        &session,
        &json!({"category": "other", "description": "Dana belum masuk ke rekening saya."}),
    )
    .await;
    assert_eq!(ticket["resolveBy"], "2026-04-14");
    let ticket_no = ticket["ticketNo"].as_str().unwrap().to_owned();
    let flagged = |expected: bool, on: time::Date| {
        let (app, ticket_no) = (&app, &ticket_no);
        async move {
            app.set_indonesia_date(on).await;
            // Signed in again on the day: moving the date ends older sessions.
            let session = app.sign_in("ID", "081234567830").await;
            let support = operator(app, &format!("sam{}", on.ordinal()), &[Role::Support]).await;
            let read = data(
                app.get_as(
                    &format!("/api/v1/borrower/complaints/{ticket_no}"),
                    &session,
                )
                .await,
            )
            .await;
            assert_eq!(read["overdue"], expected, "the borrower's view on {on}");
            assert_eq!(read["resolveBy"], "2026-04-14");
            let queue = data(
                op_call(
                    app,
                    &support,
                    Method::GET,
                    "/api/v1/console/complaints",
                    None,
                )
                .await,
            )
            .await;
            let row = queue["items"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["ticketNo"] == ticket_no.as_str())
                .cloned()
                .unwrap();
            assert_eq!(row["overdue"], expected, "support's queue on {on}");
        }
    };
    // The day after the deadline without holidays: not flagged, nor on the deadline; the next working day it is.
    flagged(false, date!(2026 - 04 - 07)).await;
    flagged(false, date!(2026 - 04 - 14)).await;
    flagged(true, date!(2026 - 04 - 15)).await;
    app.stop().await;
}

#[tokio::test]
async fn contact_messages_reach_support_with_their_reply_channel_and_are_handled_once_audited() {
    let app = spawn_app().await;
    for body in [
        json!({"name": "Ravi", "telephone": "+91 98765 43210", "message": "Call me about a loan."}),
        json!({"name": "Sari", "telephone": "0812", "message": "Email me.", "email": "sari@example.com"}),
    ] {
        assert_eq!(
            app.post_json("/api/v1/site/contact-messages", &body)
                .await
                .status(),
            StatusCode::CREATED
        );
    }
    let support = operator(&app, "sam", &[Role::Support]).await;
    let list = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/contact-messages",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(list["total"], 2);
    let list = list["items"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    // Their telephones and e-mails are shown in full: the page read is audited, naming the operator and the messages.
    let viewed: Vec<(Option<String>, Option<String>)> = sqlx::query_as(
        "SELECT a.after_json, o.username FROM audit_log a JOIN operators o ON o.id = a.actor_id
         WHERE a.action = 'view_unmasked' AND a.entity = 'contact_messages'",
    )
    .fetch_all(app.db.pool())
    .await
    .unwrap();
    assert_eq!(viewed.len(), 1, "{viewed:?}");
    assert_eq!(viewed[0].1.as_deref(), Some("sam"));
    let after: Value = serde_json::from_str(viewed[0].0.as_deref().unwrap()).unwrap();
    for message in list {
        assert!(
            after["ids"].as_array().unwrap().contains(&message["id"]),
            "{after}"
        );
    }
    let sari = list.iter().find(|m| m["name"] == "Sari").unwrap();
    assert_eq!(
        (sari["replyChannel"].as_str(), sari["replyTo"].as_str()),
        (Some("email"), Some("sari@example.com"))
    );
    let ravi = list.iter().find(|m| m["name"] == "Ravi").unwrap();
    assert_eq!(
        (ravi["replyChannel"].as_str(), ravi["replyTo"].as_str()),
        (Some("phone"), Some("+91 98765 43210"))
    );
    assert_eq!(ravi["handled"], false);
    let id = ravi["id"].as_str().unwrap().to_owned();

    // Two operators mark it at once: exactly one is first.
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let path = format!("/api/v1/console/contact-messages/{id}/handled");
    let (a, b) = tokio::join!(
        op_call(&app, &support, Method::POST, &path, None),
        op_call(&app, &admin, Method::POST, &path, None)
    );
    let (a, b) = (data(a).await, data(b).await);
    assert_ne!(a["markedNow"], b["markedNow"], "{a} {b}");
    // The mark is audited once, as the operator who was first, with nothing of the message.
    let first = if a["markedNow"] == true { "sam" } else { "ada" };
    let (handled_by,): (String,) = sqlx::query_as(
        "SELECT o.username FROM contact_messages m JOIN operators o ON o.id = m.handled_by WHERE m.id = $1",
    )
    .bind(&id)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(handled_by, first);
    let entries = app
        .audit_entries("contact_message.handled", "contact_message")
        .await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    let (entity_id, actor_id, before, after) = &entries[0];
    assert_eq!(entity_id, &id);
    let (actor,): (String,) = sqlx::query_as("SELECT username FROM operators WHERE id = $1")
        .bind(actor_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(actor, first);
    assert_eq!(
        serde_json::from_str::<Value>(before).unwrap(),
        json!({"handled": false})
    );
    let after: Value = serde_json::from_str(after).unwrap();
    assert_eq!(after["handled"], true);
    for words in ["Ravi", "98765", "Call me"] {
        assert!(!after.to_string().contains(words), "{after}");
    }
    let waiting = data(
        op_call(
            &app,
            &support,
            Method::GET,
            "/api/v1/console/contact-messages?status=waiting",
            None,
        )
        .await,
    )
    .await;
    assert_eq!(waiting["total"], 1);
    assert_eq!(waiting["items"].as_array().unwrap().len(), 1);
    assert_eq!(waiting["items"][0]["name"], "Sari");
    let missing = op_call(
        &app,
        &support,
        Method::POST,
        "/api/v1/console/contact-messages/nope/handled",
        None,
    )
    .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let bad = op_call(
        &app,
        &support,
        Method::GET,
        "/api/v1/console/contact-messages?status=maybe",
        None,
    )
    .await;
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

#[tokio::test]
async fn admins_edit_the_faq_each_change_audited_and_borrowers_read_the_result() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let session = app.sign_in("IN", "9876511009").await;
    let before = data(app.get_as("/api/v1/borrower/faq", &session).await)
        .await
        .as_array()
        .unwrap()
        .len();

    let invalid = op_call(
        &app,
        &admin,
        Method::POST,
        "/api/v1/console/faq",
        Some(json!({"lang": "fr", "category": "misc"})),
    )
    .await;
    let body = error(invalid).await;
    for field in ["lang", "category", "question", "answer"] {
        assert!(body["fields"][field].is_string(), "{field}: {body}");
    }
    let created = data(
        op_call(
            &app,
            &admin,
            Method::POST,
            "/api/v1/console/faq",
            Some(json!({"lang": "en", "category": "repay", "question": "Can I repay early?", "answer": "Yes, any day.", "position": 9})),
        )
        .await,
    )
    .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let faq = data(app.get_as("/api/v1/borrower/faq", &session).await).await;
    assert_eq!(faq.as_array().unwrap().len(), before + 1);
    assert!(
        faq.as_array()
            .unwrap()
            .iter()
            .any(|e| e["question"] == "Can I repay early?")
    );

    let updated = data(
        op_call(
            &app,
            &admin,
            Method::PUT,
            &format!("/api/v1/console/faq/{id}"),
            Some(json!({"lang": "en", "category": "repay", "question": "Can I repay early?", "answer": "Yes, with no charge.", "position": 9})),
        )
        .await,
    )
    .await;
    assert_eq!(updated["answer"], "Yes, with no charge.");
    let deleted = op_call(
        &app,
        &admin,
        Method::DELETE,
        &format!("/api/v1/console/faq/{id}"),
        None,
    )
    .await;
    assert_eq!(deleted.status(), StatusCode::OK);
    let gone = op_call(
        &app,
        &admin,
        Method::DELETE,
        &format!("/api/v1/console/faq/{id}"),
        None,
    )
    .await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    let actions: Vec<String> =
        sqlx::query_scalar("SELECT action FROM audit_log WHERE entity = 'faq' ORDER BY at, action")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert_eq!(actions.len(), 3);
    for action in ["faq.create", "faq.update", "faq.delete"] {
        assert!(actions.iter().any(|a| a == action), "{actions:?}");
    }
    let after: Option<String> =
        sqlx::query_scalar("SELECT before_json FROM audit_log WHERE action = 'faq.update'")
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    assert!(after.unwrap().contains("Yes, any day."));

    // Support may not edit it.
    let support: Op = operator(&app, "sam", &[Role::Support]).await;
    let refused = op_call(&app, &support, Method::GET, "/api/v1/console/faq", None).await;
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    app.stop().await;
}

/// A complaint stays when its borrower deletes the account (the phone erased): support still opens it (no phone to
/// mask), answers it once and closes it; each answer is the complaint, not a 500 after the change was written.
#[tokio::test]
async fn support_answers_and_closes_the_complaint_of_a_deleted_account() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512077").await;
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "description": "The fee on my statement is wrong."}),
        )
        .await;
    assert_eq!(filed.status(), StatusCode::CREATED);
    let ticket = data(filed).await["ticketNo"].as_str().unwrap().to_owned();
    let deleted = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);

    let support = operator(&app, "sam", &[Role::Support]).await;
    let path = format!("/api/v1/console/complaints/{ticket}");
    let seen = op_call(&app, &support, Method::GET, &path, None).await;
    assert_eq!(seen.status(), StatusCode::OK);
    let seen = data(seen).await;
    assert_eq!(seen["phoneMasked"], Value::Null);
    assert_eq!(seen["status"], "open");
    let replied = op_call(
        &app,
        &support,
        Method::POST,
        &format!("{path}/reply"),
        Some(json!({"body": "We refunded the second fee today."})),
    )
    .await;
    assert_eq!(replied.status(), StatusCode::OK);
    assert_eq!(data(replied).await["status"], "answered");
    let closed = op_call(&app, &support, Method::POST, &format!("{path}/close"), None).await;
    assert_eq!(closed.status(), StatusCode::OK);
    assert_eq!(data(closed).await["status"], "closed");
    let messages: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM complaint_messages m JOIN complaints c ON c.id = m.complaint_id
         WHERE c.ticket_no = $1 AND m.author_kind = 'operator'",
    )
    .bind(&ticket)
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(messages, 1);
    app.stop().await;
}

/// A borrower who left the form after picking photos finds them again: the uploads waiting for a complaint (the last
/// day's, which count against its three) are listed, oldest first, to send or remove; another borrower's never, nor
/// one sent or older than a day.
#[tokio::test]
async fn a_borrowers_waiting_uploads_are_listed_to_send_or_remove() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512081").await;
    let other = app.sign_in("IN", "9876512082").await;
    let path = "/api/v1/borrower/complaints/images";
    let listed = |session: String| {
        let app = &app;
        async move {
            let answer = app.get_as(path, &session).await;
            assert_eq!(answer.status(), StatusCode::OK);
            data(answer)
                .await
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["imageId"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    assert!(listed(session.clone()).await.is_empty());
    let first = upload_ok(&app, &session).await;
    let second = upload_ok(&app, &session).await;
    let old = upload_ok(&app, &session).await;
    upload_ok(&app, &other).await;
    app.execute(&format!(
        "UPDATE complaint_images SET created_at = created_at - 1000 WHERE id = '{first}'"
    ))
    .await;
    app.execute(&format!(
        "UPDATE complaint_images SET created_at = created_at - {} WHERE id = '{old}'",
        25 * 60 * 60 * 1000
    ))
    .await;
    assert_eq!(
        listed(session.clone()).await,
        [first.clone(), second.clone()]
    );
    assert_eq!(listed(other.clone()).await.len(), 1);
    // One sent with a complaint is no longer waiting; one removed is gone.
    file_complaint(
        &app,
        &session,
        &json!({"category": "charges", "description": "The fee on my statement is wrong.", "imageIds": [first]}),
    )
    .await;
    assert_eq!(listed(session.clone()).await, vec![second.clone()]);
    let removed = app
        .client
        .delete(app.url(&format!("{path}/{second}")))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status(), StatusCode::OK);
    assert!(listed(session.clone()).await.is_empty());
    assert_eq!(
        app.client.get(app.url(path)).send().await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}

/// OJK asks for an answer within 20 working days: an Indonesian complaint answered in time is never late, even when
/// its borrower writes again after the deadline (support answers the follow-up like any other message); the borrower
/// is not sent to OJK for a lender that answered in time.
#[tokio::test]
async fn an_indonesian_complaint_answered_in_time_is_not_late_when_the_borrower_writes_again_after_the_deadline()
 {
    let app = spawn_app().await;
    let Borrower { session, phone } = app.borrower(ID).await;
    let filed = file_complaint(
        &app,
        &session,
        &json!({"category": "other", "description": "Nobody has called me back."}),
    )
    .await;
    let ticket = filed["ticketNo"].as_str().unwrap().to_owned();
    let deadline: time::Date = time::Date::parse(
        filed["resolveBy"].as_str().unwrap(),
        time::macros::format_description!("[year]-[month]-[day]"),
    )
    .unwrap();
    let support = operator(&app, "sam", &[Role::Support]).await;
    let answered = op_call(
        &app,
        &support,
        Method::POST,
        &format!("/api/v1/console/complaints/{ticket}/reply"),
        Some(json!({"body": "Kami sudah menghubungi Anda hari ini."})),
    )
    .await;
    assert_eq!(answered.status(), StatusCode::OK);
    app.set_indonesia_date(deadline + time::Duration::days(3))
        .await;
    let session = app.sign_in("ID", &phone).await;
    let again = app
        .post_as(
            &format!("/api/v1/borrower/complaints/{ticket}/replies"),
            &session,
            &json!({"body": "Masih ada pertanyaan lain."}),
        )
        .await;
    assert_eq!(again.status(), StatusCode::CREATED);
    let read = data(
        app.get_as(&format!("/api/v1/borrower/complaints/{ticket}"), &session)
            .await,
    )
    .await;
    assert_eq!(
        (&read["status"], &read["overdue"]),
        (&json!("open"), &json!(false))
    );
    app.stop().await;
}

/// The contact form's hidden field, filled (a program filling every field; a person never sees it): the message is
/// answered like any other, counted against its address like any other (the sixth in a minute is refused, so the
/// program learns nothing from the limits), and kept nowhere; a person's message with it empty is kept.
#[tokio::test]
async fn a_contact_message_with_the_hidden_field_filled_is_answered_and_kept_nowhere() {
    let app = spawn_app().await;
    let person = app
        .post_json(
            "/api/v1/site/contact-messages",
            &json!({"name": "Ravi", "telephone": "+91 98765 43210", "message": "Call me.", "website": ""}),
        )
        .await;
    assert_eq!(person.status(), StatusCode::CREATED);
    let mut answers = Vec::new();
    for _ in 0..5 {
        let sent = app
            .post_json(
                "/api/v1/site/contact-messages",
                &json!({"name": "Bot", "telephone": "123", "message": "Cheap pills.", "website": "http://spam.example"}),
            )
            .await;
        answers.push(sent.status());
        if sent.status() == StatusCode::CREATED {
            assert!(data(sent).await["id"].is_string());
        }
    }
    // Five a minute from one address: the person's and four of the program's, then refused like anyone's.
    assert_eq!(
        answers,
        [
            StatusCode::CREATED,
            StatusCode::CREATED,
            StatusCode::CREATED,
            StatusCode::CREATED,
            StatusCode::TOO_MANY_REQUESTS
        ]
    );
    let kept: Vec<String> = sqlx::query_scalar("SELECT id FROM contact_messages")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert_eq!(kept.len(), 1, "only the person's");
    app.stop().await;
}
