//! The security findings of issue 7 §2: client addresses behind proxies, start-up refusals, cross-site requests, cache
//! and transport headers, encrypted values bound to their rows, the contact form at rest, session lifetimes.

use kilat_server::infra::crypto::Binding;
use kilat_server::settings::Settings;
use kilat_server::startup::Application;
use reqwest::StatusCode;
use reqwest::header::{CACHE_CONTROL, SET_COOKIE, STRICT_TRANSPORT_SECURITY};
use serde_json::{Value, json};
use sqlx::Row;

use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_with, valid_steps};

/// A key as `openssl rand -hex 32` gives: what production settings in tests use.
pub const PRODUCTION_KEY: &str = "3f9a1c0e5b7d2f4a6c8e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a";

const CONTACT: &str = "/api/v1/site/contact-messages";
const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn contact_body() -> Value {
    json!({"name": "Asha Rao", "telephone": "98450 01234", "message": "Call me about a loan.",
           "email": "asha@example.com"})
}

fn now_ms() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(now.as_millis()).unwrap()
}

/// Whether a sealed value (`v2.` + base64url) holds `clear`, in its text or in the bytes it encodes; panics when it is
/// not sealed. Not a search for a short piece such as "Rao": base64 of random bytes holds a given 3 letters about once
/// in 1,000 values.
fn sealed_holds(value: &str, clear: &str) -> bool {
    use base64::Engine;
    let payload = value
        .strip_prefix("v2.")
        .unwrap_or_else(|| panic!("not sealed: {value}"));
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap_or_else(|err| panic!("not base64url ({err}): {value}"));
    value.contains(clear) || bytes.windows(clear.len()).any(|w| w == clear.as_bytes())
}

// --- 1. X-Forwarded-For --------------------------------------------------------------------------------------------

async fn post_contact_from(app: &TestApp, forwarded_for: &str) -> reqwest::Response {
    app.client
        .post(app.url(CONTACT))
        .header("x-forwarded-for", forwarded_for)
        .json(&contact_body())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn behind_one_proxy_the_client_is_the_right_most_forwarded_address_whatever_the_client_wrote_left_of_it()
 {
    let app = spawn_app_with(|s| {
        s.trusted_proxy_hops = 1;
        s.contact.per_minute = 1;
    })
    .await;
    let first = post_contact_from(&app, "198.51.100.1, 203.0.113.7").await;
    assert_eq!(first.status(), StatusCode::CREATED);
    assert_eq!(app.contact_messages().await[0].client_addr, "203.0.113.7");
    // Another made-up left-most address does not buy a fresh rate-limit bucket.
    let second = post_contact_from(&app, "198.51.100.2, 203.0.113.7").await;
    assert_eq!(second.status(), StatusCode::TOO_MANY_REQUESTS);
    // Another client behind the same proxy has a bucket of its own.
    let other = post_contact_from(&app, "198.51.100.2, 203.0.113.8").await;
    assert_eq!(other.status(), StatusCode::CREATED);
    app.stop().await;
}

#[tokio::test]
async fn two_hops_take_the_second_address_from_the_right_and_the_old_boolean_means_one_hop() {
    let app = spawn_app_with(|s| s.trusted_proxy_hops = 2).await;
    let sent = post_contact_from(&app, "198.51.100.1, 203.0.113.7, 10.0.0.2").await;
    assert_eq!(sent.status(), StatusCode::CREATED);
    assert_eq!(app.contact_messages().await[0].client_addr, "203.0.113.7");
    app.stop().await;

    let app = spawn_app_with(|s| s.trust_forwarded_for = true).await;
    post_contact_from(&app, "198.51.100.1, 203.0.113.9").await;
    assert_eq!(app.contact_messages().await[0].client_addr, "203.0.113.9");
    app.stop().await;
}

#[tokio::test]
async fn by_default_the_forwarded_header_is_ignored_and_the_peer_is_the_client() {
    let app = spawn_app().await;
    post_contact_from(&app, "203.0.113.7").await;
    assert_eq!(app.contact_messages().await[0].client_addr, "127.0.0.1");
    app.stop().await;
}

// --- 2. Start-up refusals ------------------------------------------------------------------------------------------

fn production() -> Settings {
    let mut s = Settings::load(None).unwrap();
    s.listen = "127.0.0.1:0".parse().unwrap();
    crate::helpers::as_production(&mut s);
    s
}

/// The error of `Application::build`, which checks the settings before it opens the database.
async fn refusal(settings: Settings) -> String {
    let from_validate = settings.validate().unwrap_err().to_string();
    let from_build = match Application::build(&settings).await {
        Ok(_) => panic!("the application built with {from_validate:?} refused by validate"),
        Err(err) => err.to_string(),
    };
    assert_eq!(from_validate, from_build);
    from_build
}

#[tokio::test]
async fn production_refuses_to_start_with_a_guessable_secret_key_and_says_how_to_make_one() {
    let development_key = hex::encode(b"kilat-development-key-NOT-SECRET");
    for (key, says) in [
        ("00".repeat(32), "one byte repeated"),
        ("ab".repeat(32), "one byte repeated"),
        (development_key, "public development key"),
        // The report's (issue 17, item 9): a pattern of a few bytes, repeated.
        ("deadbeef".repeat(8), "a pattern of 4 bytes repeated"),
        (
            "0123456789abcdef".repeat(4),
            "a pattern of 8 bytes repeated",
        ),
    ] {
        let mut settings = production();
        settings.secret_key = Some(key.into());
        let err = refusal(settings).await;
        assert!(err.starts_with("KILAT_SECRET_KEY is "), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains("openssl rand -hex 32"), "{err}");
    }
}

#[tokio::test]
async fn production_refuses_to_start_with_a_weak_provider_secret_and_names_the_setting() {
    let weak = [
        "x",
        "changeme",
        "secret",
        "password",
        "test",
        "DEV-razorpay-webhook-secret",
        "dev-xendit-callback-token",
        "dev-dragonpay-password",
        "razorpay-production-secret",
        "abcdabcdabcdabcdabcdabcdabcd",
    ];
    let variables = [
        "KILAT_PAYMENTS__RAZORPAY__SECRET",
        "KILAT_PAYMENTS__XENDIT__SECRET",
        "KILAT_PAYMENTS__DRAGONPAY__SECRET",
        "KILAT_PAYMENTS__ID__XENDIT_API_KEY",
    ];
    for value in weak {
        for (n, variable) in variables.iter().enumerate() {
            let mut settings = production();
            let secret = Some(value.into());
            match n {
                0 => settings.payments.razorpay.secret = secret,
                1 => settings.payments.xendit.secret = secret,
                2 => settings.payments.dragonpay.secret = secret,
                _ => settings.payments.indonesia.xendit_api_key = secret,
            }
            let err = refusal(settings).await;
            assert!(
                err.starts_with(&format!("{variable} is ")),
                "{value}: {err}"
            );
        }
    }
    // Development keeps its known test values (`dev-…`) and starts with them, as every other test does.
    let development = Settings::load(None).unwrap();
    assert!(development.payments.razorpay.active().is_some());
    development.validate().expect("development's defaults");
}

#[tokio::test]
async fn production_refuses_a_plain_http_sms_provider_but_not_one_on_this_machine() {
    let mut settings = production();
    settings.sms.http_url = "http://sms.example/send".into();
    let err = refusal(settings).await;
    assert!(
        err.contains("KILAT_SMS__HTTP_URL must start with https://"),
        "{err}"
    );
    for local in [
        "http://127.0.0.1:9/send",
        "http://localhost:9/send",
        "http://[::1]:9/send",
    ] {
        let mut settings = production();
        settings.sms.http_url = local.into();
        assert!(settings.validate().is_ok(), "{local}");
    }
}

#[tokio::test]
async fn production_pushes_through_an_https_gateway_or_not_at_all_never_to_the_log() {
    use kilat_server::settings::PushSenderKind;
    let mut settings = production();
    settings.push.sender = PushSenderKind::Log;
    let err = refusal(settings).await;
    assert!(err.contains("KILAT_PUSH__SENDER=log"), "{err}");
    let mut settings = production();
    settings.push.sender = PushSenderKind::Http;
    let err = refusal(settings).await;
    assert!(err.contains("KILAT_PUSH__HTTP_URL is required"), "{err}");
    let mut settings = production();
    settings.push.sender = PushSenderKind::Http;
    settings.push.http_url = "http://push.example/send".into();
    let err = refusal(settings.clone()).await;
    assert!(
        err.contains("KILAT_PUSH__HTTP_URL must start with https://"),
        "{err}"
    );
    settings.push.http_url = "https://push.example/send".into();
    assert!(settings.validate().is_ok());
    let mut settings = production();
    settings.push.sender = PushSenderKind::Off;
    assert!(settings.validate().is_ok());
}

#[tokio::test]
async fn development_refuses_a_public_listen_address_unless_explicitly_allowed() {
    let mut settings = Settings::load(None).unwrap();
    settings.listen = "0.0.0.0:0".parse().unwrap();
    let err = refusal(settings).await;
    assert!(err.contains("GET /api/v1/dev/outbox"), "{err}");
    assert!(
        err.contains("KILAT_ALLOW_PUBLIC_LISTEN_IN_DEVELOPMENT=true"),
        "{err}"
    );

    let app = spawn_app_with(|s| {
        s.listen = "0.0.0.0:0".parse().unwrap();
        s.allow_public_listen_in_development = true;
    })
    .await;
    assert!(app.addr.ip().is_unspecified());
    app.stop().await;
}

#[tokio::test]
async fn production_starts_with_a_real_key_and_an_https_provider() {
    let app = spawn_app_with(crate::helpers::as_production).await;
    assert_eq!(app.get("/healthz").await.status(), StatusCode::OK);
    app.stop().await;
}

// --- 3. Cross-site requests ----------------------------------------------------------------------------------------

/// Signs in and returns the session token, which is also the cookie's value.
async fn cookie_session(app: &TestApp, phone: &str) -> String {
    app.sign_in("IN", phone).await
}

#[tokio::test]
async fn a_cookie_authenticated_post_from_another_site_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    let cookie = format!("kilat_session={token}");
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .header("accept-language", "id-ID")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let body = error(refused).await;
    assert_eq!(body["code"], "cross_site_request");
    assert!(
        body["msg"].as_str().unwrap().contains("situs web lain"),
        "{body}"
    );
    let me = app
        .client
        .get(app.url("/api/v1/borrower/me"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(
        me.status(),
        StatusCode::OK,
        "the session was not logged out"
    );

    // From the site's own origin, or by a client that is not a browser page, it goes through.
    let same = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("cookie", &cookie)
        .header("origin", format!("http://{}", app.addr))
        .send()
        .await
        .unwrap();
    assert_eq!(same.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn without_origin_a_cross_site_fetch_metadata_header_is_refused() {
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("cookie", format!("kilat_session={token}"))
        .header("sec-fetch-site", "cross-site")
        .header("accept-language", "en-IN")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    let body = error(refused).await;
    assert_eq!(body["code"], "cross_site_request");
    assert!(
        body["msg"].as_str().unwrap().contains("another website"),
        "{body}"
    );
    app.stop().await;
}

#[tokio::test]
async fn sign_in_cannot_be_posted_from_another_site_even_without_a_cookie() {
    let app = spawn_app().await;
    let code = app.request_code("IN", "9876543210").await;
    let body = json!({"market": "IN", "phone": "9876543210", "code": code});
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/login"))
        .header("origin", "https://evil.example")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(
        refused.headers().get(SET_COOKIE).is_none(),
        "no session cookie planted"
    );
    assert_eq!(error(refused).await["code"], "cross_site_request");
    // The refused attempt neither used the code nor counted as a wrong try.
    let signed_in = app.post_json("/api/v1/borrower/login", &body).await;
    assert_eq!(signed_in.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn the_contact_form_and_code_sending_cannot_be_posted_from_another_site() {
    let app = spawn_app().await;
    for (path, body) in [
        (CONTACT, contact_body()),
        (
            "/api/v1/borrower/login/sms-code",
            json!({"market": "IN", "phone": "9876543210"}),
        ),
    ] {
        let refused = app
            .client
            .post(app.url(path))
            .header("origin", "https://evil.example")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{path}");
    }
    assert!(app.contact_messages().await.is_empty());
    let outbox = data(app.get("/api/v1/dev/outbox").await).await;
    assert_eq!(outbox, json!([]), "no code was sent");
    // The site's own page posts with its own Origin.
    let own = app
        .client
        .post(app.url(CONTACT))
        .header("origin", format!("http://{}", app.addr))
        .header("sec-fetch-site", "same-origin")
        .json(&contact_body())
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), StatusCode::CREATED);
    app.stop().await;
}

#[tokio::test]
async fn a_request_authenticated_by_x_session_id_is_not_refused_for_its_origin() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let (step, body) = valid_steps("IN").remove(0);
    let saved = app
        .client
        .post(app.url(&format!("/api/v1/borrower/certification/{step}")))
        .header("x-session-id", &session)
        .header("origin", "capacitor://localhost")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(saved.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn behind_a_proxy_that_rewrites_host_the_configured_public_origin_is_same_origin() {
    let app = spawn_app_with(|s| s.public_origin = Some("https://kilat.example".into())).await;
    let post = |origin: &'static str| {
        app.client
            .post(app.url(CONTACT))
            .header("origin", origin)
            .json(&contact_body())
            .send()
    };
    assert_eq!(
        post("https://kilat.example").await.unwrap().status(),
        StatusCode::CREATED
    );
    assert_eq!(
        post("https://evil.example").await.unwrap().status(),
        StatusCode::FORBIDDEN
    );
    app.stop().await;
}

#[tokio::test]
async fn the_console_is_checked_for_its_origin_whatever_x_session_id_it_carries() {
    let app = spawn_app().await;
    let refused = app
        .client
        .post(app.url("/api/v1/console/login"))
        .header("origin", "https://evil.example")
        .header("x-session-id", "anything")
        .json(&json!({"username": "admin", "password": "whatever-it-is"}))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(refused).await["code"], "cross_site_request");
    app.stop().await;
}

#[tokio::test]
async fn a_borrower_request_with_the_session_cookie_is_checked_for_its_origin_even_with_x_session_id()
 {
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("cookie", format!("kilat_session={token}"))
        .header("x-session-id", &token)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(refused).await["code"], "cross_site_request");
    assert_eq!(
        app.get_as("/api/v1/borrower/me", &token).await.status(),
        StatusCode::OK,
        "the session was not logged out"
    );
    app.stop().await;
}

#[tokio::test]
async fn an_http_origin_is_another_site_for_a_site_served_over_https() {
    // Behind a TLS proxy: the public origin says https.
    let app = spawn_app_with(|s| s.public_origin = Some("https://kilat.example".into())).await;
    let post = |origin: &'static str| {
        app.client
            .post(app.url(CONTACT))
            .header("host", "kilat.example")
            .header("origin", origin)
            .json(&contact_body())
            .send()
    };
    let plain = post("http://kilat.example").await.unwrap();
    assert_eq!(plain.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(plain).await["code"], "cross_site_request");
    assert_eq!(
        post("https://kilat.example").await.unwrap().status(),
        StatusCode::CREATED
    );
    app.stop().await;

    // Production without a public origin is served over HTTPS (Secure cookies, HSTS): the Host with https only.
    let app = spawn_app_with(crate::helpers::as_production).await;
    let post = |origin: String| {
        app.client
            .post(app.url(CONTACT))
            .header("origin", origin)
            .json(&contact_body())
            .send()
    };
    let plain = post(format!("http://{}", app.addr)).await.unwrap();
    assert_eq!(plain.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        post(format!("https://{}", app.addr))
            .await
            .unwrap()
            .status(),
        StatusCode::CREATED
    );
    app.stop().await;
}

// --- 4. Headers ----------------------------------------------------------------------------------------------------

#[tokio::test]
async fn every_api_answer_says_no_store_and_the_static_files_keep_their_own_caching() {
    let app = spawn_app().await;
    for (path, status) in [
        ("/api/v1/site/settings", StatusCode::OK),
        ("/api/v1/borrower/me", StatusCode::UNAUTHORIZED),
        ("/api/v1/no-such-thing", StatusCode::NOT_FOUND),
        ("/api/elsewhere", StatusCode::NOT_FOUND),
        ("/api/v1/openapi.json", StatusCode::OK),
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), status, "{path}");
        assert_eq!(
            response
                .headers()
                .get(CACHE_CONTROL)
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{path}"
        );
    }
    let refused = app
        .client
        .post(app.url(CONTACT))
        .header("origin", "https://evil.example")
        .json(&contact_body())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.headers().get(CACHE_CONTROL).unwrap(), "no-store");
    for path in ["/", "/app/login", "/robots.txt"] {
        let response = app.get(path).await;
        assert_ne!(
            response
                .headers()
                .get(CACHE_CONTROL)
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{path}"
        );
    }
    assert!(
        app.get("/")
            .await
            .headers()
            .get(STRICT_TRANSPORT_SECURITY)
            .is_none(),
        "not in development"
    );
    app.stop().await;
}

#[tokio::test]
async fn production_sends_hsts_on_every_response() {
    let app = spawn_app_with(crate::helpers::as_production).await;
    for path in ["/", "/api/v1/site/settings", "/api/v1/nope", "/healthz"] {
        let response = app.get(path).await;
        assert_eq!(
            response.headers().get(STRICT_TRANSPORT_SECURITY).unwrap(),
            "max-age=31536000; includeSubDomains",
            "{path}"
        );
    }
    app.stop().await;
}

// --- 5. Encrypted values bound to their rows ------------------------------------------------------------------------

#[tokio::test]
async fn another_borrowers_certification_blob_copied_onto_a_row_does_not_decrypt_and_leaks_nothing()
{
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876543210").await;
    let ravi = app.sign_in("IN", "9812345678").await;
    let (step, asha_base) = valid_steps("IN").remove(0);
    app.post_as(
        &format!("/api/v1/borrower/certification/{step}"),
        &asha,
        &asha_base,
    )
    .await;
    let mut ravi_base = asha_base.clone();
    ravi_base["fullName"] = json!("Ravi Kumar Secretname");
    let saved = app
        .post_as(
            &format!("/api/v1/borrower/certification/{step}"),
            &ravi,
            &ravi_base,
        )
        .await;
    assert_eq!(saved.status(), StatusCode::OK);
    let (asha_id, ravi_id) = (app.borrower_id(&asha).await, app.borrower_id(&ravi).await);
    let stored: String =
        sqlx::query("SELECT data_enc FROM certification_steps WHERE borrower_id = $1")
            .bind(&ravi_id)
            .fetch_one(app.db.pool())
            .await
            .unwrap()
            .get("data_enc");
    assert!(stored.starts_with("v2."), "{stored}");

    sqlx::query(
        "UPDATE certification_steps SET data_enc =
           (SELECT data_enc FROM certification_steps WHERE borrower_id = $1 AND step = 'base')
         WHERE borrower_id = $2 AND step = 'base'",
    )
    .bind(&ravi_id)
    .bind(&asha_id)
    .execute(app.db.pool())
    .await
    .unwrap();

    // An integrity failure, not the borrower's mistake: a generic 500 in the envelope (and a log line naming the
    // column), never Ravi's data served as Asha's.
    let read = app
        .get_as("/api/v1/borrower/certification/base", &asha)
        .await;
    assert_eq!(read.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let text = read.text().await.unwrap();
    assert!(!text.contains("Secretname"), "{text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["code"], "internal");
    // Ravi's own row still reads.
    let own = data(
        app.get_as("/api/v1/borrower/certification/base", &ravi)
            .await,
    )
    .await;
    assert_eq!(own["data"]["fullName"], "Ravi Kumar Secretname");
    app.stop().await;
}

#[tokio::test]
async fn another_borrowers_phone_copied_onto_a_row_does_not_sign_anybody_in_as_that_phone() {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876543210").await;
    let ravi = app.sign_in("IN", "9812345678").await;
    let (asha_id, ravi_id) = (app.borrower_id(&asha).await, app.borrower_id(&ravi).await);
    // The phone is bound to the id actually stored, also when the sign-in found an existing borrower.
    app.age_codes(120000).await;
    let again = app.sign_in("IN", "9876543210").await;
    assert_eq!(
        data(app.get_as("/api/v1/borrower/me", &again).await).await["phoneMasked"],
        "+91 ******3210"
    );
    sqlx::query(
        "UPDATE borrowers SET phone_enc = (SELECT phone_enc FROM borrowers WHERE id = $1) WHERE id = $2",
    )
    .bind(&ravi_id)
    .bind(&asha_id)
    .execute(app.db.pool())
    .await
    .unwrap();
    let me = app.get_as("/api/v1/borrower/me", &asha).await;
    assert_eq!(me.status(), StatusCode::INTERNAL_SERVER_ERROR);
    assert!(!me.text().await.unwrap().contains("5678"));
    app.stop().await;
}

// --- 5b. Values written before bindings ----------------------------------------------------------------------------

/// What `Secrets::encrypt` wrote before bindings, with the development key: no prefix, no associated data.
fn unbound_development_blob(plaintext: &str) -> String {
    use base64::Engine;
    use chacha20poly1305::aead::Aead;
    use chacha20poly1305::{KeyInit, XChaCha20Poly1305, XNonce};
    use hmac::{Hmac, Mac};
    let mut mac =
        <Hmac<sha2::Sha256> as hmac::KeyInit>::new_from_slice(b"kilat-development-key-NOT-SECRET")
            .unwrap();
    mac.update(b"kilat/encrypt/v1");
    let key: [u8; 32] = mac.finalize().into_bytes().into();
    let cipher = XChaCha20Poly1305::new_from_slice(&key).unwrap();
    let mut nonce = [0u8; 24];
    getrandom::fill(&mut nonce).unwrap();
    let mut out = nonce.to_vec();
    out.extend(
        cipher
            .encrypt(&XNonce::from(nonce), plaintext.as_bytes())
            .unwrap(),
    );
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(out)
}

async fn one_string(app: &TestApp, sql: &str, id: &str) -> String {
    sqlx::query(sql)
        .bind(id)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn values_written_before_bindings_are_resealed_once_at_the_next_start_and_never_again() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    app.certify("IN", &session).await;
    let id = app.borrower_id(&session).await;
    let base = valid_steps("IN").remove(0).1;
    let base_json = app
        .secrets
        .decrypt(
            &one_string(
                &app,
                "SELECT data_enc FROM certification_steps WHERE borrower_id = $1 AND step = 'base'",
                &id,
            )
            .await,
            Binding::CertificationStep {
                borrower_id: &id,
                step: "base",
            },
        )
        .unwrap();
    // The database as the code before migration 0005 left it: unbound blobs, a contact message in clear, and the
    // migration's marker.
    sqlx::query("UPDATE borrowers SET phone_enc = $1 WHERE id = $2")
        .bind(unbound_development_blob("+919876543210"))
        .bind(&id)
        .execute(app.db.pool())
        .await
        .unwrap();
    sqlx::query(
        "UPDATE certification_steps SET data_enc = $1 WHERE borrower_id = $2 AND step = 'base'",
    )
    .bind(unbound_development_blob(&base_json))
    .bind(&id)
    .execute(app.db.pool())
    .await
    .unwrap();
    app.execute(
        "INSERT INTO contact_messages (id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at)
         VALUES ('m-old', 'Old Lead', '98450 01234', 'Hello', 'old@example.com', NULL, '127.0.0.1', 1)",
    )
    .await;
    // Until the reseal, the running server refuses the unbound value rather than trusting it.
    assert_eq!(
        app.get_as("/api/v1/borrower/me", &session).await.status(),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    app.execute("INSERT INTO pii_reseal_pending (id) VALUES (1)")
        .await;

    let url = app.database_url.clone();
    let restarted = spawn_app_with(|s| s.database_url = url.into()).await;
    let me = data(restarted.get_as("/api/v1/borrower/me", &session).await).await;
    assert_eq!(me["phoneMasked"], "+91 ******3210");
    let step = data(
        restarted
            .get_as("/api/v1/borrower/certification/base", &session)
            .await,
    )
    .await;
    assert_eq!(step["data"]["fullName"], base["fullName"]);
    let old = restarted.contact_messages().await;
    let old = old.iter().find(|m| m.id == "m-old").unwrap();
    assert_eq!(
        (old.name.as_str(), old.email.as_deref()),
        ("Old Lead", Some("old@example.com"))
    );
    let phone = one_string(
        &restarted,
        "SELECT phone_enc FROM borrowers WHERE id = $1",
        &id,
    )
    .await;
    assert!(phone.starts_with("v2."));
    let name = one_string(
        &restarted,
        "SELECT name_enc FROM contact_messages WHERE id = $1",
        "m-old",
    )
    .await;
    assert!(!sealed_holds(&name, "Old Lead"), "{name}");
    let pending: i64 = sqlx::query("SELECT COUNT(*) FROM pii_reseal_pending")
        .fetch_one(restarted.db.pool())
        .await
        .unwrap()
        .get(0);
    assert_eq!(pending, 0);

    // An unbound value written after the reseal is refused, and a further start does not adopt it.
    sqlx::query("UPDATE borrowers SET phone_enc = $1 WHERE id = $2")
        .bind(unbound_development_blob("+919876543210"))
        .bind(&id)
        .execute(app.db.pool())
        .await
        .unwrap();
    restarted.stop().await;
    let url = app.database_url.clone();
    let again = spawn_app_with(|s| s.database_url = url.into()).await;
    assert_eq!(
        again.get_as("/api/v1/borrower/me", &session).await.status(),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    again.stop().await;
    app.stop().await;
}

// --- 6. The contact form at rest ------------------------------------------------------------------------------------

#[tokio::test]
async fn a_contact_message_keeps_name_phone_and_email_only_encrypted_at_rest() {
    let app = spawn_app().await;
    let mut body = contact_body();
    body["message"] = json!("My PAN is ABCPE1234F, please call.");
    body["company"] = json!("Rao Textiles");
    let sent = app.post_json(CONTACT, &body).await;
    assert_eq!(sent.status(), StatusCode::CREATED);
    let row = sqlx::query("SELECT * FROM contact_messages")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    let raw: Vec<String> = [
        "name_enc",
        "telephone_enc",
        "email_enc",
        "message",
        "company",
    ]
    .iter()
    .map(|c| row.get::<String, _>(*c))
    .collect();
    for value in &raw {
        for clear in [
            "Asha Rao",
            "98450 01234",
            "9845001234",
            "asha@example.com",
            "ABCPE1234F",
            "Rao Textiles",
        ] {
            assert!(!sealed_holds(value, clear), "{value} holds {clear}");
        }
    }
    let read = app.contact_messages().await;
    assert_eq!(
        (
            read[0].name.as_str(),
            read[0].telephone.as_str(),
            read[0].email.as_deref()
        ),
        ("Asha Rao", "98450 01234", Some("asha@example.com"))
    );
    assert_eq!(
        (read[0].message.as_str(), read[0].company.as_deref()),
        ("My PAN is ABCPE1234F, please call.", Some("Rao Textiles"))
    );

    // A message kept in clear before its text was sealed is sealed at the next start, once, and reads as it was.
    app.execute(
        "INSERT INTO contact_messages (id, name_enc, telephone_enc, message, email_enc, company, client_addr, created_at)
         VALUES ('m-clear', 'x', 'x', 'v2.Call me, loan KL-261120-ABCDEF', NULL, 'Old Co', '127.0.0.1', 1)",
    )
    .await;
    app.execute("INSERT INTO contact_text_seal_pending (id) VALUES (1)")
        .await;
    let url = app.database_url.clone();
    let restarted = spawn_app_with(|s| s.database_url = url.into()).await;
    let message = one_string(
        &restarted,
        "SELECT message FROM contact_messages WHERE id = $1",
        "m-clear",
    )
    .await;
    assert_ne!(
        message, "v2.Call me, loan KL-261120-ABCDEF",
        "sealed, though it began like a sealed value"
    );
    let binding = |column| kilat_server::infra::crypto::Binding::ContactMessage {
        id: "m-clear",
        column,
    };
    assert_eq!(
        restarted
            .services
            .secrets
            .decrypt(&message, binding("message"))
            .unwrap(),
        "v2.Call me, loan KL-261120-ABCDEF"
    );
    let pending: i64 = sqlx::query("SELECT COUNT(*) FROM contact_text_seal_pending")
        .fetch_one(restarted.db.pool())
        .await
        .unwrap()
        .get(0);
    assert_eq!(pending, 0);
    restarted.stop().await;
    app.stop().await;
}

// --- 7. Session lifetime ------------------------------------------------------------------------------------------

fn session_cookie_of(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .filter(|v| v.starts_with("kilat_session="))
        .collect()
}

fn max_age(cookie: &str) -> i64 {
    cookie
        .split(';')
        .find_map(|part| part.trim().strip_prefix("Max-Age="))
        .unwrap()
        .parse()
        .unwrap()
}

async fn me_with_cookie(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/v1/borrower/me"))
        .header("cookie", format!("kilat_session={token}"))
        .send()
        .await
        .unwrap()
}

async fn age_session(app: &TestApp, created_ago_ms: i64, last_seen_ago_ms: i64) {
    let now = now_ms();
    sqlx::query("UPDATE borrower_sessions SET created_at = $1, last_seen_at = $2")
        .bind(now - created_ago_ms)
        .bind(now - last_seen_ago_ms)
        .execute(app.db.pool())
        .await
        .unwrap();
}

#[tokio::test]
async fn when_the_server_extends_a_cookie_session_it_reissues_the_cookie_with_a_fresh_lifetime() {
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    // Used a minute ago or less: nothing moves, no cookie.
    let fresh = me_with_cookie(&app, &token).await;
    assert_eq!(fresh.status(), StatusCode::OK);
    assert!(session_cookie_of(&fresh).is_empty());
    // Last used 10 days ago: this use extends it to 30 days from now, and the cookie says so.
    age_session(&app, 10 * DAY_MS, 10 * DAY_MS).await;
    let extended = me_with_cookie(&app, &token).await;
    let cookies = session_cookie_of(&extended);
    assert_eq!(cookies.len(), 1, "{cookies:?}");
    assert!(cookies[0].starts_with(&format!("kilat_session={token};")));
    assert!(cookies[0].contains("HttpOnly") && cookies[0].contains("SameSite=Lax"));
    assert_eq!(max_age(&cookies[0]), 30 * 24 * 60 * 60);
    // The next request within the minute extends nothing.
    assert!(session_cookie_of(&me_with_cookie(&app, &token).await).is_empty());
    app.stop().await;
}

#[tokio::test]
async fn a_reissued_cookie_never_outlives_the_sessions_absolute_age_and_the_header_gets_no_cookie()
{
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    // Opened 85 days ago, last used 2 minutes ago: 5 days remain of the 90.
    age_session(&app, 85 * DAY_MS, 2 * 60_000).await;
    let cookies = session_cookie_of(&me_with_cookie(&app, &token).await);
    let remaining = max_age(&cookies[0]);
    assert!(
        (5 * 24 * 3600 - 60..=5 * 24 * 3600).contains(&remaining),
        "{remaining}"
    );
    // The native shell keeps its token itself: no cookie for X-Session-Id.
    age_session(&app, DAY_MS, 2 * 60_000).await;
    let by_header = app.get_as("/api/v1/borrower/me", &token).await;
    assert_eq!(by_header.status(), StatusCode::OK);
    assert!(session_cookie_of(&by_header).is_empty());
    // Logging out clears the cookie, once, even when the same request extended the session.
    age_session(&app, DAY_MS, 2 * 60_000).await;
    let out = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("cookie", format!("kilat_session={token}"))
        .send()
        .await
        .unwrap();
    let cookies = session_cookie_of(&out);
    assert_eq!(cookies.len(), 1, "{cookies:?}");
    assert_eq!(max_age(&cookies[0]), 0);
    app.stop().await;
}

#[tokio::test]
async fn a_session_used_every_day_is_refused_90_days_after_sign_in() {
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    age_session(&app, 89 * DAY_MS, 60_000).await;
    assert_eq!(me_with_cookie(&app, &token).await.status(), StatusCode::OK);
    age_session(&app, 90 * DAY_MS + 60_000, 0).await;
    let refused = me_with_cookie(&app, &token).await;
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(error(refused).await["code"], "unauthorized");
    assert_eq!(
        app.get_as("/api/v1/borrower/me", &token).await.status(),
        StatusCode::UNAUTHORIZED
    );
    app.stop().await;
}

/// The order list and home read the session in the same statement as their own data (issue 7): the same limits as
/// every other endpoint, the same cookie re-issue, and a live session without orders is an empty list, not a 401.
#[tokio::test]
async fn the_order_list_and_home_hold_sessions_to_the_same_limits_as_every_endpoint() {
    const ENDPOINTS: [&str; 2] = ["/api/v1/borrower/orders", "/api/v1/borrower/home"];
    let app = spawn_app().await;
    let token = cookie_session(&app, "9876543210").await;
    let with_cookie = |path: &'static str| {
        app.client
            .get(app.url(path))
            .header("cookie", format!("kilat_session={token}"))
            .send()
    };
    for path in ENDPOINTS {
        assert_eq!(
            app.get(path).await.status(),
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
        let made_up = app.get_as(path, "made-up-token").await;
        assert_eq!(made_up.status(), StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(error(made_up).await["code"], "unauthorized");
        // Fresh: nothing moves, no cookie.
        let fresh = with_cookie(path).await.unwrap();
        assert_eq!(fresh.status(), StatusCode::OK, "{path}");
        assert!(session_cookie_of(&fresh).is_empty(), "{path}");
        // Last used 10 days ago: this use extends it, the cookie says so, and the next use within the minute does not.
        age_session(&app, 10 * DAY_MS, 10 * DAY_MS).await;
        let extended = with_cookie(path).await.unwrap();
        let cookies = session_cookie_of(&extended);
        assert_eq!(cookies.len(), 1, "{path}: {cookies:?}");
        assert_eq!(max_age(&cookies[0]), 30 * 24 * 60 * 60, "{path}");
        assert!(
            session_cookie_of(&with_cookie(path).await.unwrap()).is_empty(),
            "{path}"
        );
        // The header gets no cookie.
        age_session(&app, DAY_MS, 2 * 60_000).await;
        let by_header = app.get_as(path, &token).await;
        assert_eq!(by_header.status(), StatusCode::OK, "{path}");
        assert!(session_cookie_of(&by_header).is_empty(), "{path}");
        // Idle over 30 days, or opened over 90 days ago: refused.
        age_session(&app, 31 * DAY_MS, 30 * DAY_MS + 60_000).await;
        assert_eq!(
            app.get_as(path, &token).await.status(),
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
        age_session(&app, 90 * DAY_MS + 60_000, 0).await;
        assert_eq!(
            app.get_as(path, &token).await.status(),
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
        age_session(&app, 0, 0).await;
    }
    // A live session without orders lists none.
    let list = data(app.get_as(ENDPOINTS[0], &token).await).await;
    assert_eq!(list, json!([]));
    // Signed out: refused at once by both.
    let out = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("x-session-id", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::OK);
    for path in ENDPOINTS {
        assert_eq!(
            app.get_as(path, &token).await.status(),
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
    }
    app.stop().await;
}
