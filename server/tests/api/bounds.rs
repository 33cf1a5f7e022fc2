//! Bounds on costly work (issue 17, items 2 and 7; docs/ARCHITECTURE.md, "Security: bounds on costly work"): an image
//! whose header declares too many pixels is refused before it is decoded; a burst of uploads from one borrower keeps
//! three waiting and decodes only those; decodes and Argon2 hashes beyond their bound are answered `503 server_busy`
//! with `Retry-After`, and a busy sign-in uses up none of the account's five password checks. The memory these
//! bounds hold the server to is measured by `scripts/bench-bounds.sh` (docs/PERFORMANCE.md), not here.

use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::sync::Arc;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use image::{DynamicImage, ImageFormat, Rgb, RgbImage};
use kilat_server::auth::operators::{MAX_PASSWORD_CHECKS, Role};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::builders::{Application, IN};
use crate::complaints::{photo, upload, walk};
use crate::console::{PASSWORD, create, login};
use crate::helpers::{TestApp, error, spawn_app, spawn_app_with};

const DIMENSIONS_EN: &str = "The photo has too many pixels: at most 24 megapixels and 8192 pixels a side. Send a \
                             smaller copy or a screenshot.";
const LOGIN: &str = "/api/v1/console/login";

/// A complete, valid 8-bit grey PNG of 10,000 × 10,000 black pixels: ~100 KB that decode to 100 MB.
fn png_bomb() -> Vec<u8> {
    const SIDE: u32 = 10_000;
    let mut idat = ZlibEncoder::new(Vec::new(), Compression::default());
    let row = vec![0u8; 1 + SIDE as usize]; // the filter byte, then the row
    for _ in 0..SIDE {
        idat.write_all(&row).unwrap();
    }
    let idat = idat.finish().unwrap();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&SIDE.to_be_bytes());
    ihdr.extend_from_slice(&SIDE.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]); // 8 bits, grey, deflate, no filter method, not interlaced
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", &ihdr), (b"IDAT", &idat), (b"IEND", &Vec::new())] {
        png.extend_from_slice(&u32::try_from(data.len()).unwrap().to_be_bytes());
        png.extend_from_slice(kind);
        png.extend_from_slice(data);
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(data);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    png
}

fn small(format: ImageFormat) -> Vec<u8> {
    let img = RgbImage::from_fn(64, 48, |x, y| Rgb([(x * 4) as u8, (y * 5) as u8, 120]));
    let mut out = Cursor::new(Vec::new());
    DynamicImage::ImageRgb8(img)
        .write_to(&mut out, format)
        .unwrap();
    out.into_inner()
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the marker is there")
}

/// A small JPEG whose frame header (SOF0) declares `width` × `height`.
fn jpeg_declaring(width: u16, height: u16) -> Vec<u8> {
    let mut jpeg = small(ImageFormat::Jpeg);
    let sof = find(&jpeg, &[0xFF, 0xC0]);
    // marker (2), length (2), precision (1), height (2), width (2)
    jpeg[sof + 5..sof + 7].copy_from_slice(&height.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

/// A small lossless WebP whose VP8L header declares `width` × `height` (14 bits each, less one).
fn webp_declaring(width: u32, height: u32) -> Vec<u8> {
    let mut webp = small(ImageFormat::WebP);
    let chunk = find(&webp, b"VP8L");
    let at = chunk + 8;
    assert_eq!(webp[at], 0x2F, "the VP8L signature");
    let old = u32::from_le_bytes(webp[at + 1..at + 5].try_into().unwrap());
    let bits = (old & 0xF000_0000) | ((height - 1) << 14) | (width - 1);
    webp[at + 1..at + 5].copy_from_slice(&bits.to_le_bytes());
    webp
}

/// A complete lossless WebP of `width` × `height` black pixels in a few bytes: no transform, no colour cache, and
/// five prefix codes of one symbol each, so that a pixel costs no bits at all (scripts/bench-bounds.sh sends the same).
fn webp_of_one_colour(width: u32, height: u32) -> Vec<u8> {
    let mut bits: u64 = 0;
    let mut at = 0;
    let mut put = |value: u64, n: u32| {
        bits |= value << at;
        at += n;
    };
    put(0x2F, 8);
    put(u64::from(width - 1), 14);
    put(u64::from(height - 1), 14);
    put(0, 1 + 3 + 1 + 1 + 1); // no alpha, version 0, no transform, no colour cache, no meta prefix codes
    for _ in 0..5 {
        put(0b0001, 4); // a simple code of one symbol, written in 1 bit: symbol 0
    }
    let mut data = bits.to_le_bytes()[..(at as usize).div_ceil(8)].to_vec();
    if data.len() % 2 == 1 {
        data.push(0);
    }
    let mut chunk = b"VP8L".to_vec();
    chunk.extend_from_slice(&u32::try_from(data.len()).unwrap().to_le_bytes());
    chunk.extend_from_slice(&data);
    let mut webp = b"RIFF".to_vec();
    webp.extend_from_slice(&u32::try_from(4 + chunk.len()).unwrap().to_le_bytes());
    webp.extend_from_slice(b"WEBP");
    webp.extend_from_slice(&chunk);
    webp
}

async fn count(app: &TestApp, table: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT COUNT(*) FROM {table}"))
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn an_image_whose_header_declares_ten_thousand_pixels_a_side_is_refused_without_being_decoded()
 {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512001").await;
    let bombs = [
        ("image/png", png_bomb()),
        ("image/jpeg", jpeg_declaring(10_000, 10_000)),
        ("image/webp", webp_declaring(10_000, 10_000)),
        ("image/webp", webp_of_one_colour(10_000, 10_000)),
    ];
    for (content_type, bomb) in bombs {
        assert!(bomb.len() < 200_000, "{content_type}: {} bytes", bomb.len());
        let started = std::time::Instant::now();
        let response = upload(&app, &session, content_type, bomb).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{content_type}"
        );
        let body = error(response).await;
        assert_eq!(body["code"], "validation_failed");
        assert_eq!(body["fields"]["image"], DIMENSIONS_EN, "{content_type}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{content_type}: refused after {:?}",
            started.elapsed()
        );
    }
    // In Indonesian too.
    let response = app
        .client
        .post(app.url("/api/v1/borrower/complaints/images"))
        .header("x-session-id", &session)
        .header("content-type", "image/webp")
        .body(webp_declaring(10_000, 10_000))
        .send()
        .await
        .unwrap();
    assert_eq!(
        error(response).await["fields"]["image"],
        "Foto memiliki terlalu banyak piksel: paling banyak 24 megapiksel dan 8192 piksel per sisi. Kirim salinan \
         yang lebih kecil atau tangkapan layar."
    );
    assert_eq!(
        app.services.bounds.image_decodes.admitted(),
        0,
        "no bomb reached the decoder"
    );
    assert_eq!(count(&app, "complaint_images").await, 0);
    assert_eq!(count(&app, "complaint_upload_slots").await, 0);
    assert_eq!(walk(&app.files_dir), 0);
    // A real photo still goes through, and so does the one-colour WebP at a photo's size: the bomb above is a valid
    // image, refused for its pixels alone.
    let photo = upload(&app, &session, "image/png", photo(ImageFormat::Png)).await;
    assert_eq!(photo.status(), StatusCode::CREATED);
    let small = upload(&app, &session, "image/webp", webp_of_one_colour(640, 480)).await;
    assert_eq!(small.status(), StatusCode::CREATED);
    assert_eq!(crate::helpers::data(small).await["width"], 640);
    assert_eq!(app.services.bounds.image_decodes.admitted(), 2);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn eight_simultaneous_uploads_from_one_borrower_leave_three_waiting_and_only_those_three_are_decoded()
 {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876512002").await;
    let start = Arc::new(tokio::sync::Barrier::new(8));
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let request = app
                .client
                .post(app.url("/api/v1/borrower/complaints/images"))
                .header("x-session-id", &session)
                .header("accept-language", "en-IN")
                .header("content-type", "image/png")
                .body(photo(ImageFormat::Png));
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.unwrap();
                let status = response.status();
                let body: Value = response.json().await.unwrap();
                (status, body)
            })
        })
        .collect();
    let mut tally: BTreeMap<u16, usize> = BTreeMap::new();
    for task in tasks {
        let (status, body) = task.await.unwrap();
        if status == StatusCode::UNPROCESSABLE_ENTITY {
            assert_eq!(
                body["fields"]["image"], "At most 3 photos a complaint.",
                "{body}"
            );
        }
        *tally.entry(status.as_u16()).or_default() += 1;
    }
    assert_eq!(tally, BTreeMap::from([(201, 3), (422, 5)]));
    assert_eq!(
        app.services.bounds.image_decodes.admitted(),
        3,
        "the five refused were refused before their decode"
    );
    assert_eq!(count(&app, "complaint_images").await, 3);
    assert_eq!(
        count(&app, "complaint_upload_slots").await,
        0,
        "every slot was given back or became an image"
    );
    assert_eq!(walk(&app.files_dir), 3);
    app.stop().await;
}

#[tokio::test]
async fn an_upload_that_finds_every_decode_busy_gets_503_with_retry_after_and_keeps_no_place() {
    let app = spawn_app_with(|s| {
        s.bounds.image_decodes = 1;
        s.bounds.wait_ms = 50;
    })
    .await;
    let session = app.sign_in("IN", "9876512003").await;
    let held = app.services.bounds.image_decodes.enter().await.unwrap();
    let busy = upload(&app, &session, "image/png", photo(ImageFormat::Png)).await;
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(busy.headers()["retry-after"], "2");
    let body = error(busy).await;
    assert_eq!(body["code"], "server_busy");
    assert_eq!(
        body["msg"],
        "We are busy right now: nothing was done. Please try again in a few seconds."
    );
    assert_eq!(count(&app, "complaint_upload_slots").await, 0);
    assert_eq!(count(&app, "complaint_images").await, 0);
    drop(held);
    // The busy answer took none of the three places.
    for _ in 0..3 {
        let response = upload(&app, &session, "image/png", photo(ImageFormat::Png)).await;
        assert_eq!(response.status(), StatusCode::CREATED);
    }
    app.stop().await;
}

#[tokio::test]
async fn images_decoding_at_once_share_the_memory_bound_by_the_pixels_they_declare() {
    let app = spawn_app_with(|s| {
        s.bounds.image_decodes = 4;
        s.bounds.image_memory_mb = 100;
        s.bounds.wait_ms = 50;
    })
    .await;
    let session = app.sign_in("IN", "9876512004").await;
    // A decode under way holds 80 of the 100 MiB.
    let held = app
        .services
        .bounds
        .image_memory
        .enter_many(80)
        .await
        .unwrap();
    // 2000 × 2000 declares 32 MB of working memory (31 MiB): no room, though a decode turn is free.
    let large = webp_of_one_colour(2000, 2000);
    let busy = upload(&app, &session, "image/webp", large.clone()).await;
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(busy.headers()["retry-after"], "2");
    assert_eq!(error(busy).await["code"], "server_busy");
    assert_eq!(count(&app, "complaint_upload_slots").await, 0);
    // A small photo fits beside it.
    let small_one = upload(&app, &session, "image/png", photo(ImageFormat::Png)).await;
    assert_eq!(small_one.status(), StatusCode::CREATED);
    drop(held);
    let taken = upload(&app, &session, "image/webp", large).await;
    assert_eq!(taken.status(), StatusCode::CREATED);
    assert_eq!(
        app.services.bounds.image_decodes.admitted(),
        2,
        "the refused one was never decoded"
    );
    app.stop().await;
}

/// Sends `n` console sign-ins at once, each from its own address, and answers (status, code, has Retry-After).
async fn burst(
    app: &TestApp,
    n: usize,
    credentials: impl Fn(usize) -> Value,
) -> Vec<(u16, String, bool)> {
    let start = Arc::new(tokio::sync::Barrier::new(n));
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let request = app
                .client
                .post(app.url(LOGIN))
                .header(
                    "x-forwarded-for",
                    format!("10.17.{}.{}", i / 200, i % 200 + 1),
                )
                .json(&credentials(i));
            let start = start.clone();
            tokio::spawn(async move {
                start.wait().await;
                let response = request.send().await.unwrap();
                let status = response.status().as_u16();
                let retry_after = response.headers().contains_key("retry-after");
                let body: Value = response.json().await.unwrap();
                (
                    status,
                    body["code"].as_str().unwrap().to_owned(),
                    retry_after,
                )
            })
        })
        .collect();
    let mut answers = Vec::new();
    for task in tasks {
        answers.push(task.await.unwrap());
    }
    answers
}

fn one_hash_at_a_time(s: &mut kilat_server::settings::Settings) {
    s.trust_forwarded_for = true;
    s.bounds.password_hashes = 1;
    s.bounds.wait_ms = 0;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn console_sign_ins_beyond_the_bound_of_hashes_get_503_with_retry_after() {
    let app = spawn_app_with(one_hash_at_a_time).await;
    // Every hash taken: each sign-in is turned away at once, with the time to wait.
    let held = app.services.bounds.password_hashes.enter().await.unwrap();
    for answer in burst(
        &app,
        5,
        |i| json!({"username": format!("nobody{i}"), "password": PASSWORD}),
    )
    .await
    {
        assert_eq!(answer, (503, "server_busy".to_owned(), true));
    }
    drop(held);
    let unknown = login(&app, "nobody", PASSWORD).await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);

    // A burst over the bound of one: some are compared, the others turned away, none waits for long.
    let answers = burst(
        &app,
        16,
        |i| json!({"username": format!("guess{i}"), "password": PASSWORD}),
    )
    .await;
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (status, code, retry_after) in answers {
        match code.as_str() {
            "credentials_invalid" => assert_eq!((status, retry_after), (401, false)),
            "server_busy" => assert_eq!((status, retry_after), (503, true)),
            other => panic!("unexpected {other}"),
        }
        *tally.entry(code).or_default() += 1;
    }
    assert!(
        tally.get("server_busy").is_some_and(|n| *n >= 1),
        "{tally:?}"
    );
    assert!(
        tally.get("credentials_invalid").is_some_and(|n| *n >= 1),
        "{tally:?}"
    );
    app.stop().await;
}

/// The password checks counted for the operator (the limiter's rows, `crate::infra::limits`): over every client
/// address together, and on the account's count of checks from addresses it never signed in from.
async fn password_checks(app: &TestApp, username: &str) -> (i64, i64) {
    sqlx::query_as(
        "SELECT
             (SELECT CAST(COALESCE(SUM(r.hits), 0) AS BIGINT) FROM rate_limits r
               WHERE r.key LIKE 'password_addr:' || o.id || ':%'),
             (SELECT COALESCE(MAX(r.hits), 0) FROM rate_limits r
               WHERE r.key = 'password_account:' || o.id)
         FROM operators o WHERE o.username = $1",
    )
    .bind(username)
    .fetch_one(app.db.pool())
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_busy_sign_in_uses_up_none_of_the_accounts_five_password_checks() {
    let app = spawn_app_with(one_hash_at_a_time).await;
    create(&app, "asha", &[Role::Reviewer]).await;
    let held = app.services.bounds.password_hashes.enter().await.unwrap();
    for answer in burst(
        &app,
        10,
        |i| json!({"username": "asha", "password": format!("wrong {i}")}),
    )
    .await
    {
        assert_eq!(answer, (503, "server_busy".to_owned(), true));
    }
    drop(held);
    assert_eq!(password_checks(&app, "asha").await, (0, 0));
    // Still five checks: four wrong ones, and the right one on the fifth signs in.
    for n in 0..MAX_PASSWORD_CHECKS - 1 {
        let wrong = login(&app, "asha", &format!("again wrong {n}")).await;
        assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED, "try {n}");
    }
    assert_eq!(login(&app, "asha", PASSWORD).await.status(), StatusCode::OK);

    // A burst of wrong guesses over the bound: each compared guess is one of the account's checks, at most five.
    create(&app, "ravi", &[Role::Support]).await;
    let answers = burst(
        &app,
        20,
        |i| json!({"username": "ravi", "password": format!("guess {i}")}),
    )
    .await;
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    for (status, code, retry_after) in answers {
        match code.as_str() {
            "credentials_invalid" => assert_eq!((status, retry_after), (401, false)),
            "server_busy" => assert_eq!((status, retry_after), (503, true)),
            "operator_locked" => assert_eq!((status, retry_after), (429, true)),
            other => panic!("unexpected {other}"),
        }
        *tally.entry(code).or_default() += 1;
    }
    let compared = tally.get("credentials_invalid").copied().unwrap_or(0);
    // Each guess came from an address of its own: every one compared is counted once on its address, and once on
    // the account's count of strangers' checks, which locks the account at its bound.
    let (per_address, per_account) = password_checks(&app, "ravi").await;
    let compared = i64::try_from(compared).unwrap();
    assert_eq!(
        (per_address, per_account),
        (compared, compared),
        "every check reserved was a password compared: {tally:?}"
    );
    assert!(
        per_account <= i64::from(app.services.limits.password_checks_per_account.max),
        "{tally:?}"
    );
    app.stop().await;
}

/// A sign-in whose password check ran while the password was changed (here: while it waited for its hash) opens no
/// session: the password checked must still be the account's when the session is written, with the account's row
/// locked, so a password changed because it leaked shuts the old one out however the two meet.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sign_in_checked_against_a_password_changed_meanwhile_opens_no_session() {
    let app = spawn_app_with(|s| {
        s.trust_forwarded_for = true;
        s.bounds.password_hashes = 1;
        s.bounds.wait_ms = 30_000;
    })
    .await;
    create(&app, "asha", &[Role::Reviewer]).await;
    create(&app, "other", &[Role::Reviewer]).await;
    let held = app.services.bounds.password_hashes.enter().await.unwrap();
    // The sign-in reads the account, then waits for a hash while the password changes (to another operator's, whose
    // hash is as good as a new one).
    let signing_in = {
        let client = app.client.clone();
        let url = app.url("/api/v1/console/login");
        tokio::spawn(async move {
            client
                .post(url)
                .json(&json!({"username": "asha", "password": PASSWORD}))
                .send()
                .await
                .unwrap()
                .status()
        })
    };
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    app.execute(
        "UPDATE operators SET password_hash = (SELECT password_hash FROM operators WHERE username = 'other')
         WHERE username = 'asha'",
    )
    .await;
    drop(held);
    assert_eq!(signing_in.await.unwrap(), StatusCode::UNAUTHORIZED);
    let sessions: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM operator_sessions s JOIN operators o ON o.id = s.operator_id WHERE o.username = 'asha'",
    )
    .fetch_one(app.db.pool())
    .await
    .unwrap();
    assert_eq!(sessions, 0);
    app.stop().await;
}

/// Data exports are built a bounded number at a time: beyond it a borrower is told the server is busy (503 with
/// Retry-After) before the export is counted against their three an hour.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exports_beyond_their_bound_are_busy_and_use_up_none_of_the_hours_three() {
    let app = spawn_app_with(|s| {
        s.bounds.exports = 1;
        s.bounds.wait_ms = 0;
    })
    .await;
    let session = app.sign_in("IN", "9876512091").await;
    let held = app.services.bounds.exports.enter().await.unwrap();
    let busy = app.get_as("/api/v1/borrower/export", &session).await;
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(busy.headers().contains_key("retry-after"));
    assert_eq!(error(busy).await["code"], "server_busy");
    drop(held);
    for _ in 0..3 {
        assert_eq!(
            app.get_as("/api/v1/borrower/export", &session)
                .await
                .status(),
            StatusCode::OK
        );
    }
    assert_eq!(
        app.get_as("/api/v1/borrower/export", &session)
            .await
            .status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    app.stop().await;
}

/// Loan documents (PDFs) render a bounded number at a time: beyond it the borrower is told the server is busy (503
/// with Retry-After) before anything is counted or rendered; and a borrower downloads at most 60 an hour, whichever
/// document, then 429 with the seconds to wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn documents_beyond_their_bound_are_busy_and_at_most_sixty_an_hour_are_rendered() {
    let app = spawn_app_with(|s| {
        s.bounds.documents = 1;
        s.bounds.wait_ms = 0;
    })
    .await;
    let Application {
        session, order_no, ..
    } = app.borrower(IN).applied().await;
    let kfs = format!("/api/v1/borrower/orders/{order_no}/documents/kfs.pdf");
    let agreement = format!("/api/v1/borrower/orders/{order_no}/documents/agreement.pdf");
    let held = app.services.bounds.documents.enter().await.unwrap();
    let busy = app.get_as(&kfs, &session).await;
    assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(busy.headers().contains_key("retry-after"));
    assert_eq!(error(busy).await["code"], "server_busy");
    drop(held);
    for i in 0..kilat_server::infra::limits::DOCUMENTS_PER_HOUR {
        let path = if i % 2 == 0 { &kfs } else { &agreement };
        assert_eq!(
            app.get_as(path, &session).await.status(),
            StatusCode::OK,
            "{i}"
        );
    }
    let refused = app.get_as(&agreement, &session).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(refused).await["code"], "rate_limited");
    app.stop().await;
}
