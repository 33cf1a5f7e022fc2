//! The marketing site's API: settings and the contact form, on both databases.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{data, error, spawn_app, spawn_app_with};

const CONTACT: &str = "/api/v1/site/contact-messages";

#[tokio::test]
async fn site_settings_carry_every_public_field_of_product_md() {
    let app = spawn_app_with(|s| s.site.company_name = "Kilat Test Co".into()).await;
    let settings = data(app.get("/api/v1/site/settings").await).await;
    assert_eq!(settings["companyName"], "Kilat Test Co");
    for key in [
        "email",
        "address",
        "copyright",
        "appNameEn",
        "appNameId",
        "themeBackgroundColor",
        "backgroundFontColor",
        "fontColor",
        "servicePhone",
        "whatsappNumber",
        "lenderName",
    ] {
        assert!(
            settings[key].as_str().is_some_and(|v| !v.is_empty()),
            "{key} missing in {settings}"
        );
    }
    // The site's WhatsApp link: the number's digits after wa.me.
    let digits: String = settings["whatsappNumber"]
        .as_str()
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    assert_eq!(settings["whatsappUrl"], format!("https://wa.me/{digits}"));
    for key in ["name", "email", "phone"] {
        assert!(
            settings["grievanceOfficer"][key].is_string(),
            "grievanceOfficer.{key} missing"
        );
    }
    app.stop().await;
}

#[tokio::test]
async fn a_complete_message_is_stored_trimmed_with_time_and_client_address() {
    let app = spawn_app().await;
    let response = app
        .post_json(
            CONTACT,
            &json!({"name": " Asha Rao ", "telephone": "98450 01234", "message": "Call me about a loan.",
                    "email": "asha@example.com", "company": ""}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created = data(response).await;

    let stored = app.contact_messages().await;
    assert_eq!(stored.len(), 1);
    let m = &stored[0];
    assert_eq!(created["id"], m.id.as_str());
    assert_eq!(created["createdAt"], m.created_at);
    assert_eq!(
        (m.name.as_str(), m.telephone.as_str()),
        ("Asha Rao", "98450 01234")
    );
    assert_eq!(m.message, "Call me about a loan.");
    assert_eq!(m.email.as_deref(), Some("asha@example.com"));
    assert_eq!(
        m.company, None,
        "an empty optional field is stored as absent"
    );
    assert_eq!(m.client_addr, "127.0.0.1");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!(
        (now - m.created_at).abs() < 60_000,
        "created_at {} is not now ({now})",
        m.created_at
    );
    app.stop().await;
}

#[tokio::test]
async fn a_form_encoded_message_is_accepted_like_json() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url(CONTACT))
        .form(&[
            ("name", "Budi"),
            ("telephone", "0812 3456 7890"),
            ("message", "Halo & salam"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let stored = app.contact_messages().await;
    assert_eq!(stored[0].message, "Halo & salam");
    assert_eq!(stored[0].telephone, "0812 3456 7890");
    app.stop().await;
}

#[tokio::test]
async fn each_missing_or_blank_field_is_named_and_nothing_is_stored() {
    let app = spawn_app().await;
    let cases = [
        (json!({"telephone": "1", "message": "m"}), vec!["name"]),
        (json!({"name": "n", "message": "m"}), vec!["telephone"]),
        (json!({"name": "n", "telephone": "1"}), vec!["message"]),
        (
            json!({"name": "   ", "telephone": "\t", "message": "\n"}),
            vec!["message", "name", "telephone"],
        ),
        (json!({}), vec!["message", "name", "telephone"]),
    ];
    for (body, expected) in cases {
        let response = app.post_json(CONTACT, &body).await;
        assert_eq!(
            response.status(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "for {body}"
        );
        let err = error(response).await;
        assert_eq!(err["code"], "validation_failed");
        let fields: Vec<&str> = err["fields"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(fields, expected, "for {body}");
    }
    assert!(app.contact_messages().await.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn field_errors_speak_the_language_of_the_request() {
    let app = spawn_app().await;
    let english = app
        .client
        .post(app.url(CONTACT))
        .header("accept-language", "en-IN")
        .json(&json!({"name": "n", "telephone": "1"}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        error(english).await["fields"]["message"],
        "This field is required."
    );
    let indonesian = app
        .post_json(CONTACT, &json!({"name": "n", "telephone": "1"}))
        .await;
    assert_eq!(
        error(indonesian).await["fields"]["message"],
        "Kolom ini wajib diisi."
    );
    app.stop().await;
}

#[tokio::test]
async fn a_field_over_its_maximum_length_is_refused() {
    let app = spawn_app().await;
    let response = app
        .post_json(
            CONTACT,
            &json!({"name": "n".repeat(101), "telephone": "1", "message": "m"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let err = error(response).await;
    assert!(err["fields"]["name"].as_str().unwrap().contains("100"));
    assert!(app.contact_messages().await.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn a_body_over_16_kib_gets_413_in_the_envelope() {
    let app = spawn_app().await;
    let response = app
        .post_json(
            CONTACT,
            &json!({"name": "n", "telephone": "1", "message": "m".repeat(17 * 1024)}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error(response).await["code"], "payload_too_large");
    assert!(app.contact_messages().await.is_empty());
    app.stop().await;
}

#[tokio::test]
async fn malformed_json_and_unknown_media_types_are_clear_client_errors() {
    let app = spawn_app().await;
    let broken = app
        .client
        .post(app.url(CONTACT))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(broken.status(), StatusCode::BAD_REQUEST);
    let err = error(broken).await;
    assert_eq!(err["code"], "bad_request");
    assert!(err["fields"]["body"].is_string());

    let wrong_type = app
        .post_json(
            CONTACT,
            &json!({"name": 42, "telephone": "1", "message": "m"}),
        )
        .await;
    assert_eq!(wrong_type.status(), StatusCode::BAD_REQUEST);

    let text = app
        .client
        .post(app.url(CONTACT))
        .body("hello")
        .send()
        .await
        .unwrap();
    assert_eq!(text.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(error(text).await["code"], "unsupported_media_type");
    app.stop().await;
}

#[tokio::test]
async fn more_messages_a_minute_than_allowed_from_one_address_get_429() {
    let app = spawn_app_with(|s| s.contact.per_minute = 3).await;
    let body = json!({"name": "n", "telephone": "1", "message": "m"});
    for _ in 0..3 {
        assert_eq!(
            app.post_json(CONTACT, &body).await.status(),
            StatusCode::CREATED
        );
    }
    let refused = app.post_json(CONTACT, &body).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = refused.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "Retry-After {retry_after}");
    let err = error(refused).await;
    assert_eq!(err["code"], "rate_limited");
    assert!(err["msg"].as_str().unwrap().contains("Terlalu banyak"));
    assert_eq!(app.contact_messages().await.len(), 3);
    app.stop().await;
}

#[tokio::test]
async fn unknown_api_paths_and_methods_answer_in_the_json_envelope() {
    let app = spawn_app().await;
    for path in ["/api/v1/nope", "/api/v2/site/settings", "/api", "/api/"] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("application/json")
        );
        assert_eq!(error(response).await["code"], "not_found", "{path}");
    }
    let delete = app
        .client
        .delete(app.url("/api/v1/site/settings"))
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(error(delete).await["code"], "method_not_allowed");
    app.stop().await;
}

#[tokio::test]
async fn probes_report_the_process_and_the_database() {
    let app = spawn_app().await;
    let health = app.get("/healthz").await;
    assert_eq!(health.status(), StatusCode::OK);
    assert_eq!(health.text().await.unwrap(), "ok");
    assert_eq!(app.get("/readyz").await.status(), StatusCode::OK);
    app.db.close().await;
    assert_eq!(
        app.get("/readyz").await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
    app.stop().await;
}

#[tokio::test]
async fn the_sites_claims_come_from_each_markets_settings_and_can_be_withdrawn() {
    let app = spawn_app().await;
    let india = data(app.get("/api/v1/site/settings?market=IN").await).await;
    assert_eq!(
        india["payoutClaim"],
        "Money in your bank account within 2 hours."
    );
    assert_eq!(india["usersClaim"], "Trusted by 3 million users.");
    let indonesia = data(app.get("/api/v1/site/settings?market=ID").await).await;
    assert_eq!(
        (
            indonesia["payoutClaim"].as_str(),
            indonesia["usersClaim"].as_str()
        ),
        (Some(""), Some(""))
    );
    app.stop().await;

    let app = spawn_app_with(|s| {
        s.site.markets.india.users_claim = String::new();
        s.site.markets.india.payout_claim = "Money within a day.".into();
    })
    .await;
    let india = data(app.get("/api/v1/site/settings?market=IN").await).await;
    assert_eq!(
        (india["payoutClaim"].as_str(), india["usersClaim"].as_str()),
        (Some("Money within a day."), Some(""))
    );
    app.stop().await;
}

/// The e-mail a visitor leaves is one plain address: support replies with a `mailto:` link, which would read a
/// `?bcc=…&body=…` or a second address as its own.
#[tokio::test]
async fn a_contact_e_mail_is_one_plain_address() {
    let app = spawn_app().await;
    let body = |email: &str| json!({"name": "Asha Rao", "telephone": "98450 01234", "message": "Call me about a loan.", "email": email});
    for bad in [
        "lead@x.com?bcc=attacker@evil.example&body=hi",
        "lead@x.com,attacker@evil.example",
        "lead x@x.com",
        "lead@localhost",
        "%6C@x.com",
        "no-at-sign",
    ] {
        let refused = app.post_json(CONTACT, &body(bad)).await;
        assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY, "{bad}");
        assert!(error(refused).await["fields"]["email"].is_string(), "{bad}");
    }
    for good in ["asha.rao+loans@example.co.in", "budi_s@contoh.id"] {
        let sent = app.post_json(CONTACT, &body(good)).await;
        assert_eq!(sent.status(), StatusCode::CREATED, "{good}");
    }
    app.stop().await;
}

/// A message sent without the site's market keeps its telephone's market when the number is one market's (an Indian
/// mobile, an Indonesian one), so the operators' lists find it without reading every telephone; a number of neither
/// stays without one; the site's own market, when sent, stands.
#[tokio::test]
async fn a_contact_message_without_a_market_keeps_its_telephone_s() {
    let app = spawn_app().await;
    let send = |telephone: &str, market: Option<&str>| {
        let mut body =
            json!({"name": "Asha Rao", "telephone": telephone, "message": "Call me about a loan."});
        if let Some(market) = market {
            body["market"] = json!(market);
        }
        body
    };
    for (telephone, market, stored) in [
        ("+91 98450 01234", None, Some("IN")),
        ("+62 812 3456 7890", None, Some("ID")),
        ("+91 98450 01235", Some("ID"), Some("ID")),
        ("12", None, None),
    ] {
        let sent = app.post_json(CONTACT, &send(telephone, market)).await;
        assert_eq!(sent.status(), StatusCode::CREATED, "{telephone}");
        let (kept,): (Option<String>,) = sqlx::query_as(
            "SELECT market FROM contact_messages ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .fetch_one(app.db.pool())
        .await
        .unwrap();
        assert_eq!(kept.as_deref(), stored, "{telephone}");
    }
    app.stop().await;
}
