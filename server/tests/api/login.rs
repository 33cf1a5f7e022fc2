//! Sign-in by one-time code: the whole flow and each refusal, on both databases.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{data, error, spawn_app, spawn_app_with};

const SMS: &str = "/api/v1/borrower/login/sms-code";
const LOGIN: &str = "/api/v1/borrower/login";

#[tokio::test]
async fn a_new_borrower_signs_in_with_the_code_and_the_session_works_by_header_and_cookie() {
    let app = spawn_app().await;
    let init = data(app.get("/api/v1/borrower/login/init?market=IN").await).await;
    assert_eq!(
        (init["countryCode"].as_str(), init["codeLength"].as_i64()),
        (Some("+91"), Some(6))
    );
    assert_eq!(init["resendSeconds"], 60);

    let sent = data(
        app.post_json(SMS, &json!({"market": "IN", "phone": "98765 43210"}))
            .await,
    )
    .await;
    assert_eq!(sent["phoneMasked"], "+91 ******3210");
    let outbox = data(app.get("/api/v1/dev/outbox?phone=%2B919876543210").await).await;
    assert_eq!(outbox[0]["channel"], "sms");
    let code = outbox[0]["code"].as_str().unwrap();
    assert_eq!(code.len(), 6);

    let response = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "+91 98765 43210", "code": code}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.starts_with("kilat_session=")
            && cookie.contains("HttpOnly")
            && cookie.contains("SameSite=Lax")
    );
    let body = data(response).await;
    assert_eq!(body["borrower"]["isNew"], true);
    assert_eq!(body["borrower"]["market"], "IN");
    let session = body["sessionId"].as_str().unwrap();
    assert!(cookie.contains(session));

    let me = data(app.get_as("/api/v1/borrower/me", session).await).await;
    assert_eq!(me["id"], body["borrower"]["id"]);
    assert_eq!(me["phoneMasked"], "+91 ******3210");
    let by_cookie = app
        .client
        .get(app.url("/api/v1/borrower/me"))
        .header("cookie", format!("other=1; kilat_session={session}"))
        .send()
        .await
        .unwrap();
    assert_eq!(data(by_cookie).await["id"], body["borrower"]["id"]);

    // The code is used: it cannot sign in twice.
    let again = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": code}),
        )
        .await;
    assert_eq!(error(again).await["code"], "code_expired");
    app.stop().await;
}

#[tokio::test]
async fn signing_in_again_finds_the_same_borrower_and_secrets_are_stored_only_hashed_or_encrypted()
{
    let app = spawn_app().await;
    let first = app.sign_in("ID", "0812-3456-7890").await;
    app.age_codes(61000).await;
    let code = app.request_code("ID", "+62 812 3456 7890").await;
    let second = data(
        app.post_json(
            LOGIN,
            &json!({"market": "ID", "phone": "081234567890", "code": code}),
        )
        .await,
    )
    .await;
    assert_eq!(second["borrower"]["isNew"], false);
    let first_me = data(app.get_as("/api/v1/borrower/me", &first).await).await;
    assert_eq!(first_me["id"], second["borrower"]["id"]);

    let row: (String, String) = sqlx::query_as("SELECT phone_hash, phone_enc FROM borrowers")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert!(
        !row.0.contains("81234567890") && !row.1.contains("81234567890"),
        "the phone is not stored in clear"
    );
    let tokens: Vec<(String,)> = sqlx::query_as("SELECT token_hash FROM borrower_sessions")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert!(
        tokens
            .iter()
            .all(|(hash,)| hash != &first && hash.len() == 64),
        "session tokens are stored hashed"
    );
    let codes: Vec<(String,)> = sqlx::query_as("SELECT code_hash FROM login_codes")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert!(
        codes
            .iter()
            .all(|(hash,)| hash != &code && hash.len() == 64),
        "codes are stored hashed"
    );
    app.stop().await;
}

#[tokio::test]
async fn a_wrong_code_is_refused_and_after_five_wrong_tries_even_the_right_code_is() {
    let app = spawn_app().await;
    let code = app.request_code("IN", "9876543210").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for attempt in 1..=5 {
        let response = app
            .post_json(
                LOGIN,
                &json!({"market": "IN", "phone": "9876543210", "code": wrong}),
            )
            .await;
        let err = error(response).await;
        if attempt < 5 {
            assert_eq!(err["code"], "code_invalid", "attempt {attempt}");
            assert!(err["fields"]["code"].is_string());
        } else {
            assert_eq!(err["code"], "code_attempts_exceeded", "attempt {attempt}");
        }
    }
    let right = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": code}),
        )
        .await;
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(right).await["code"], "code_attempts_exceeded");
    app.stop().await;
}

#[tokio::test]
async fn an_expired_code_or_no_code_at_all_is_refused() {
    let app = spawn_app().await;
    let none = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": "123456"}),
        )
        .await;
    assert_eq!(error(none).await["code"], "code_expired");

    let code = app.request_code("IN", "9876543210").await;
    app.execute("UPDATE login_codes SET expires_at = created_at - 1")
        .await;
    let expired = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": code}),
        )
        .await;
    assert_eq!(expired.status(), StatusCode::BAD_REQUEST);
    assert_eq!(error(expired).await["code"], "code_expired");
    app.stop().await;
}

#[tokio::test]
async fn a_resend_within_a_minute_is_refused_with_the_wait_and_allowed_after() {
    let app = spawn_app().await;
    app.request_code("IN", "9876543210").await;
    let too_soon = app
        .post_json(
            "/api/v1/borrower/login/voice-code",
            &json!({"market": "IN", "phone": "9876543210"}),
        )
        .await;
    assert_eq!(too_soon.status(), StatusCode::TOO_MANY_REQUESTS);
    let wait: u64 = too_soon.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((55..=60).contains(&wait), "Retry-After {wait}");
    assert_eq!(error(too_soon).await["code"], "code_resend_too_soon");

    app.age_codes(61000).await;
    let voice = app
        .post_json(
            "/api/v1/borrower/login/voice-code",
            &json!({"market": "IN", "phone": "9876543210"}),
        )
        .await;
    assert_eq!(voice.status(), StatusCode::OK);
    let outbox = data(app.get("/api/v1/dev/outbox").await).await;
    assert_eq!(outbox[0]["channel"], "voice");
    app.stop().await;
}

#[tokio::test]
async fn a_phone_gets_at_most_ten_codes_a_day() {
    let app = spawn_app().await;
    for _ in 0..10 {
        app.request_code("ID", "081234567890").await;
        app.age_codes(61000).await;
    }
    let refused = app
        .post_json(SMS, &json!({"market": "ID", "phone": "081234567890"}))
        .await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(refused).await["code"], "daily_limit_reached");
    // Another phone from the same address is still served (its cap is 30).
    assert_eq!(
        app.post_json(SMS, &json!({"market": "ID", "phone": "081298765432"}))
            .await
            .status(),
        StatusCode::OK
    );
    app.stop().await;
}

#[tokio::test]
async fn phones_and_codes_are_validated_by_market_with_each_field_named() {
    let app = spawn_app().await;
    let cases = [
        (
            json!({"market": "IN", "phone": "5876543210"}),
            vec!["phone"],
        ),
        (
            json!({"market": "ID", "phone": "9876543210"}),
            vec!["phone"],
        ),
        (
            json!({"market": "XX", "phone": "9876543210"}),
            vec!["market"],
        ),
        (json!({}), vec!["market", "phone"]),
    ];
    for (body, fields) in cases {
        let err = error(app.post_json(SMS, &body).await).await;
        assert_eq!(err["code"], "validation_failed", "{body}");
        let named: Vec<&str> = err["fields"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(named, fields, "{body}");
    }
    let bad_code = error(
        app.post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": "12ab"}),
        )
        .await,
    )
    .await;
    assert_eq!(bad_code["fields"]["code"], "Kode terdiri dari 6 angka.");
    let no_market = app.get("/api/v1/borrower/login/init").await;
    assert_eq!(no_market.status(), StatusCode::UNPROCESSABLE_ENTITY);
    app.stop().await;
}

#[tokio::test]
async fn logout_revokes_the_session_and_an_idle_session_expires_after_30_days() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876543210").await;
    let other = {
        app.age_codes(61000).await;
        app.sign_in("IN", "9876543210").await
    };
    let logout = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(logout.status(), StatusCode::OK);
    assert!(
        logout.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let after = app.get_as("/api/v1/borrower/me", &session).await;
    assert_eq!(after.status(), StatusCode::UNAUTHORIZED);
    // The answer says why (the app repeats it on its login screen): this session was logged out.
    assert_eq!(after.headers()["x-signed-out"], "logged_out");
    let after = error(after).await;
    assert_eq!(after["code"], "unauthorized");
    assert_eq!(
        after["msg"],
        "Anda keluar: sesi ini sudah diakhiri di tab atau perangkat lain. Silakan masuk kembali."
    );
    assert_eq!(
        app.get_as("/api/v1/borrower/me", &other).await.status(),
        StatusCode::OK,
        "other sessions live on"
    );

    app.execute("UPDATE borrower_sessions SET last_seen_at = last_seen_at - 2592000001")
        .await;
    let expired = app
        .client
        .get(app.url("/api/v1/borrower/me"))
        .header("x-session-id", &other)
        .header("accept-language", "en-IN")
        .send()
        .await
        .unwrap();
    assert_eq!(expired.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(expired.headers()["x-signed-out"], "expired");
    assert_eq!(
        error(expired).await["msg"],
        "You were signed out because your session expired. Please log in again."
    );
    // No session, or a token never issued: nothing to explain, the plain "log in again".
    let none = app.get("/api/v1/borrower/me").await;
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert!(none.headers().get("x-signed-out").is_none());
    let made_up = app.get_as("/api/v1/borrower/me", "made-up-token").await;
    assert_eq!(made_up.status(), StatusCode::UNAUTHORIZED);
    assert!(made_up.headers().get("x-signed-out").is_none());
    assert_eq!(error(made_up).await["msg"], "Silakan masuk kembali.");
    app.stop().await;
}

#[tokio::test]
async fn each_borrower_sees_only_themselves() {
    let app = spawn_app().await;
    let asha = app.sign_in("IN", "9876543210").await;
    let budi = app.sign_in("ID", "081234567890").await;
    let asha_me = data(app.get_as("/api/v1/borrower/me", &asha).await).await;
    let budi_me = data(app.get_as("/api/v1/borrower/me", &budi).await).await;
    assert_ne!(asha_me["id"], budi_me["id"]);
    assert_eq!(
        (asha_me["market"].as_str(), budi_me["market"].as_str()),
        (Some("IN"), Some("ID"))
    );
    app.stop().await;
}

#[tokio::test]
async fn the_development_outbox_does_not_exist_in_production() {
    let provider = wiremock::MockServer::start().await;
    let app = spawn_app_with(|s| {
        crate::helpers::as_production(s);
        s.sms.http_url = format!("{}/send", provider.uri());
    })
    .await;
    assert_eq!(
        app.get("/api/v1/dev/outbox").await.status(),
        StatusCode::NOT_FOUND
    );
    app.stop().await;
}

#[tokio::test]
async fn the_http_sender_posts_to_the_provider_with_the_key_and_retries_a_server_error() {
    use wiremock::matchers::{body_partial_json, header, method, path};
    use wiremock::{Mock, ResponseTemplate};

    let provider = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/send"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .mount(&provider)
        .await;
    Mock::given(method("POST"))
        .and(path("/send"))
        .and(header("authorization", "Bearer provider-key"))
        .and(body_partial_json(
            json!({"to": "+919876543210", "channel": "sms"}),
        ))
        .respond_with(ResponseTemplate::new(200))
        .expect(1)
        .mount(&provider)
        .await;
    let app = spawn_app_with(|s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = format!("{}/send", provider.uri());
        s.sms.http_api_key = Some("provider-key".into());
    })
    .await;
    let sent = app
        .post_json(SMS, &json!({"market": "IN", "phone": "9876543210"}))
        .await;
    assert_eq!(sent.status(), StatusCode::OK);
    let requests = provider.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2, "one 503, then the retry");
    let body: serde_json::Value = requests[1].body_json().unwrap();
    assert!(
        body["text"]
            .as_str()
            .unwrap()
            .contains(body["code"].as_str().unwrap())
    );
    app.stop().await;
}

#[tokio::test]
async fn a_provider_refusal_is_a_clear_error_and_does_not_block_a_new_try() {
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};

    let provider = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400))
        .expect(2)
        .mount(&provider)
        .await;
    let app = spawn_app_with(|s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = format!("{}/send", provider.uri());
        s.sms.http_retries = 3;
    })
    .await;
    for _ in 0..2 {
        let refused = app
            .post_json(SMS, &json!({"market": "IN", "phone": "9876543210"}))
            .await;
        assert_eq!(refused.status(), StatusCode::BAD_GATEWAY);
        assert_eq!(error(refused).await["code"], "code_delivery_failed");
    }
    app.stop().await;
}

#[tokio::test]
async fn a_code_the_provider_may_have_sent_stays_valid_and_its_wait_stays_counted() {
    use wiremock::matchers::method;
    use wiremock::{Mock, ResponseTemplate};

    // The provider takes the message, then answers too late: the text may well reach the phone.
    let provider = wiremock::MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_delay(std::time::Duration::from_secs(3)))
        .mount(&provider)
        .await;
    let app = spawn_app_with(|s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = format!("{}/send", provider.uri());
        s.sms.http_timeout_ms = 300;
        s.sms.http_retries = 1;
    })
    .await;
    let phone = json!({"market": "IN", "phone": "9876543210"});
    let sent = app.post_json(SMS, &phone).await;
    assert_eq!(sent.status(), StatusCode::OK);
    assert_eq!(data(sent).await["deliveryConfirmed"], false);
    // The text that arrives late signs the borrower in.
    let requests = provider.received_requests().await.unwrap();
    assert_eq!(
        requests.len(),
        2,
        "the first try and its retry, both timed out"
    );
    let code = requests[1].body_json::<serde_json::Value>().unwrap()["code"].clone();
    assert_eq!(
        requests[0].body_json::<serde_json::Value>().unwrap()["code"],
        code,
        "a retry sends the same code"
    );
    // A new code at once would make the late one look wrong: the minute's wait stands.
    let again = app.post_json(SMS, &phone).await;
    assert_eq!(again.status(), StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(error(again).await["code"], "code_resend_too_soon");
    let signed_in = app
        .post_json(
            LOGIN,
            &json!({"market": "IN", "phone": "9876543210", "code": code}),
        )
        .await;
    assert_eq!(signed_in.status(), StatusCode::OK);
    app.stop().await;
}

#[tokio::test]
async fn a_provider_that_cannot_be_reached_is_a_clear_error_and_does_not_block_a_new_try() {
    // Nothing listens on the provider's port: no message left this server.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/send", closed.local_addr().unwrap());
    drop(closed);
    let app = spawn_app_with(|s| {
        s.sms.sender = kilat_server::settings::SmsSender::Http;
        s.sms.http_url = url;
        s.sms.http_retries = 1;
    })
    .await;
    for _ in 0..2 {
        let refused = app
            .post_json(SMS, &json!({"market": "IN", "phone": "9876543210"}))
            .await;
        assert_eq!(refused.status(), StatusCode::BAD_GATEWAY);
        assert_eq!(error(refused).await["code"], "code_delivery_failed");
    }
    app.stop().await;
}
