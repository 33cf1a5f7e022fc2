//! Issue 17 item 3 (security report N2): a link can never sign a browser into somebody else's account. A browser's
//! cookie session is never overridden by `X-Session-Id`, and the native shell hands its session to the web app by a
//! one-time code, exchanged once, within a minute, and never into a browser signed in as another borrower.

use reqwest::StatusCode;
use reqwest::header::SET_COOKIE;
use serde_json::{Value, json};

use crate::helpers::{TestApp, data, error, spawn_app, spawn_app_with, valid_steps};

const HANDOVER: &str = "/api/v1/borrower/session/handover";
const EXCHANGE: &str = "/api/v1/borrower/session/exchange";
const VICTIM: &str = "9876500222";
const ATTACKER: &str = "9876500111";

/// `GET /me` as the browser with this session cookie, and whatever else `extra` adds.
async fn me_with(app: &TestApp, cookie: &str, session_header: Option<&str>) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url("/api/v1/borrower/me"))
        .header("cookie", format!("kilat_session={cookie}"));
    if let Some(token) = session_header {
        request = request.header("x-session-id", token);
    }
    request.send().await.unwrap()
}

/// A hand-over code for the native session `token` (sent as `X-Session-Id`, as the shell's HTTP client does).
async fn handover_code(app: &TestApp, token: &str) -> String {
    let response = app.post_as(HANDOVER, token, &json!({})).await;
    assert_eq!(response.status(), StatusCode::OK);
    let body = data(response).await;
    assert_eq!(body["expiresInSeconds"], 60);
    body["code"].as_str().unwrap().to_owned()
}

/// The web app's exchange, from the site's own page, with the browser's cookie when it has one.
async fn exchange(app: &TestApp, code: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut request = app
        .client
        .post(app.url(EXCHANGE))
        .header("origin", format!("http://{}", app.addr))
        .header("accept-language", "en-IN")
        .json(&json!({"code": code}));
    if let Some(cookie) = cookie {
        request = request.header("cookie", format!("kilat_session={cookie}"));
    }
    request.send().await.unwrap()
}

/// The `kilat_session` value a response sets, if it sets one.
fn set_session_cookie(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("kilat_session="))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
}

async fn phone_of(response: reqwest::Response) -> String {
    assert_eq!(response.status(), StatusCode::OK);
    data(response).await["phoneMasked"]
        .as_str()
        .unwrap()
        .to_owned()
}

async fn sessions_of(app: &TestApp, token: &str) -> i64 {
    let me = data(app.get_as("/api/v1/borrower/me", token).await).await;
    sqlx::query_scalar::<_, i64>(
        "SELECT COUNT(*) FROM borrower_sessions WHERE borrower_id = $1 AND revoked_at IS NULL",
    )
    .bind(me["id"].as_str().unwrap())
    .fetch_one(app.db.pool())
    .await
    .unwrap()
}

#[tokio::test]
async fn an_attackers_x_session_id_never_overrides_the_victims_cookie() {
    let app = spawn_app().await;
    let victim = app.sign_in("IN", VICTIM).await;
    let attacker = app.sign_in("IN", ATTACKER).await;

    // What the web app did with `/app/?sessionId=<attacker>`: the victim's cookie and the attacker's header.
    let shown = phone_of(me_with(&app, &victim, Some(&attacker)).await).await;
    assert!(shown.ends_with("0222"), "signed in as {shown}");

    // The details the victim then types go to the victim's account, not the attacker's.
    let (step, body) = valid_steps("IN").remove(0);
    let saved = app
        .client
        .post(app.url(&format!("/api/v1/borrower/certification/{step}")))
        .header("cookie", format!("kilat_session={victim}"))
        .header("x-session-id", &attacker)
        .header("origin", format!("http://{}", app.addr))
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(saved.status(), StatusCode::OK);
    let attackers = data(
        app.get_as(&format!("/api/v1/borrower/certification/{step}"), &attacker)
            .await,
    )
    .await;
    assert!(
        !attackers.to_string().contains("Asha Verma"),
        "the attacker's account got the victim's details: {attackers}"
    );
    let victims = data(
        app.get_as(&format!("/api/v1/borrower/certification/{step}"), &victim)
            .await,
    )
    .await;
    assert!(victims.to_string().contains("Asha Verma"), "{victims}");

    // A native client, which sends no cookie, is still authenticated by its header.
    assert!(
        phone_of(app.get_as("/api/v1/borrower/me", &attacker).await)
            .await
            .ends_with("0111")
    );
    app.stop().await;
}

#[tokio::test]
async fn a_handover_code_opens_a_browser_session_of_the_native_sessions_borrower_once() {
    let app = spawn_app().await;
    let native = app.sign_in("IN", VICTIM).await;
    let code = handover_code(&app, &native).await;
    assert!(code.len() >= 40, "a code with 256 bits: {code}");
    // Stored only as its hash.
    let stored: Vec<String> = sqlx::query_scalar("SELECT code_hash FROM session_handovers")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert_eq!(stored.len(), 1);
    assert_ne!(stored[0], code);

    let exchanged = exchange(&app, &code, None).await;
    assert_eq!(exchanged.status(), StatusCode::OK);
    let cookie = set_session_cookie(&exchanged).expect("the browser gets its session cookie");
    let set = exchanged.headers()[SET_COOKIE].to_str().unwrap().to_owned();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax"),
        "{set}"
    );
    assert!(
        set.contains(&format!("Max-Age={}", 30 * 24 * 60 * 60)),
        "{set}"
    );
    let body = data(exchanged).await;
    assert_eq!(body["opened"], true);
    assert!(
        body["borrower"]["phoneMasked"]
            .as_str()
            .unwrap()
            .ends_with("0222")
    );
    assert!(
        !body.to_string().contains(&cookie),
        "the new token is only in the HttpOnly cookie"
    );
    assert_ne!(cookie, native, "a session of the browser's own");
    assert!(
        phone_of(me_with(&app, &cookie, None).await)
            .await
            .ends_with("0222")
    );
    assert_eq!(sessions_of(&app, &native).await, 2);

    // Single use.
    let again = exchange(&app, &code, None).await;
    assert_eq!(again.status(), StatusCode::BAD_REQUEST);
    assert!(set_session_cookie(&again).is_none());
    let body = error(again).await;
    assert_eq!(body["code"], "handover_invalid");
    assert!(
        body["msg"].as_str().unwrap().contains("already used"),
        "{body}"
    );
    assert_eq!(sessions_of(&app, &native).await, 2);

    // Signing the web view out leaves the shell signed in.
    let second = exchange(&app, &handover_code(&app, &native).await, None).await;
    let web = set_session_cookie(&second).unwrap();
    let out = app
        .client
        .post(app.url("/api/v1/borrower/logout"))
        .header("origin", format!("http://{}", app.addr))
        .header("cookie", format!("kilat_session={web}"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), StatusCode::OK);
    assert_eq!(
        me_with(&app, &web, None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(sessions_of(&app, &native).await, 2);
    app.stop().await;
}

/// PRODUCT.md §2: signing the native shell out ends the web view's session it handed over, so on a shared phone the
/// next person who signs in to the shell is handed their own session, never left in the previous borrower's.
#[tokio::test]
async fn signing_the_shell_out_ends_the_web_views_session_and_the_next_borrower_gets_their_own() {
    let app = spawn_app().await;
    let first = app.sign_in("IN", VICTIM).await;
    let exchanged = exchange(&app, &handover_code(&app, &first).await, None).await;
    let web = set_session_cookie(&exchanged).unwrap();
    assert_eq!(me_with(&app, &web, None).await.status(), StatusCode::OK);
    // Another borrower's session, handed over too, is not touched.
    let other = app.sign_in("IN", "9876500333").await;
    let other_web =
        set_session_cookie(&exchange(&app, &handover_code(&app, &other).await, None).await)
            .unwrap();

    let out = app
        .post_as("/api/v1/borrower/logout", &first, &json!({}))
        .await;
    assert_eq!(out.status(), StatusCode::OK);
    assert_eq!(
        me_with(&app, &web, None).await.status(),
        StatusCode::UNAUTHORIZED,
        "the web view is signed out with the shell"
    );
    assert_eq!(
        me_with(&app, &other_web, None).await.status(),
        StatusCode::OK
    );
    // A web view handed over as the shell signed out, which the sign-out's statement did not see (PostgreSQL's
    // snapshot), is not live either: its shell's session is signed out.
    app.execute(
        "UPDATE borrower_sessions SET revoked_at = NULL
         WHERE parent_id IN (SELECT id FROM borrower_sessions WHERE revoked_at IS NOT NULL)",
    )
    .await;
    assert_eq!(
        me_with(&app, &web, None).await.status(),
        StatusCode::UNAUTHORIZED,
        "a web view whose shell signed out"
    );
    assert_eq!(
        me_with(&app, &other_web, None).await.status(),
        StatusCode::OK
    );

    // The next person signs in to the shell; the web view, still holding the old cookie, is handed their session.
    let next = app.sign_in("IN", ATTACKER).await;
    let handed = exchange(&app, &handover_code(&app, &next).await, Some(&web)).await;
    assert_eq!(handed.status(), StatusCode::OK);
    let theirs = set_session_cookie(&handed).expect("a session of the next borrower's own");
    assert!(
        phone_of(me_with(&app, &theirs, None).await)
            .await
            .ends_with("0111")
    );
    app.stop().await;
}

#[tokio::test]
async fn of_twenty_simultaneous_exchanges_of_one_code_exactly_one_signs_in() {
    let app = spawn_app().await;
    let native = app.sign_in("IN", VICTIM).await;
    let code = handover_code(&app, &native).await;
    let burst: Vec<_> = (0..20)
        .map(|_| {
            let client = app.client.clone();
            let url = app.url(EXCHANGE);
            let origin = format!("http://{}", app.addr);
            let code = code.clone();
            tokio::spawn(async move {
                client
                    .post(url)
                    .header("origin", origin)
                    .json(&json!({"code": code}))
                    .send()
                    .await
                    .unwrap()
            })
        })
        .collect();
    let mut signed_in = 0;
    let mut refused = 0;
    for task in burst {
        let response = task.await.unwrap();
        match response.status() {
            StatusCode::OK => {
                assert!(set_session_cookie(&response).is_some());
                signed_in += 1;
            }
            StatusCode::BAD_REQUEST => {
                assert!(set_session_cookie(&response).is_none());
                assert_eq!(error(response).await["code"], "handover_invalid");
                refused += 1;
            }
            other => panic!("unexpected {other}: {}", response.text().await.unwrap()),
        }
    }
    assert_eq!((signed_in, refused), (1, 19));
    assert_eq!(
        sessions_of(&app, &native).await,
        2,
        "the native session and one browser session"
    );
    app.stop().await;
}

#[tokio::test]
async fn an_expired_code_or_one_whose_session_ended_opens_nothing() {
    let app = spawn_app().await;
    let native = app.sign_in("IN", VICTIM).await;

    let stale = handover_code(&app, &native).await;
    // A minute has passed.
    app.execute("UPDATE session_handovers SET expires_at = created_at - 1")
        .await;
    let refused = exchange(&app, &stale, None).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(set_session_cookie(&refused).is_none());
    assert_eq!(error(refused).await["code"], "handover_invalid");

    let orphan = handover_code(&app, &native).await;
    let out = app
        .post_as("/api/v1/borrower/logout", &native, &json!({}))
        .await;
    assert_eq!(out.status(), StatusCode::OK);
    let refused = exchange(&app, &orphan, None).await;
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(set_session_cookie(&refused).is_none());

    let unknown = exchange(&app, "not-a-code-anybody-was-given", None).await;
    assert_eq!(unknown.status(), StatusCode::BAD_REQUEST);
    let empty = exchange(&app, " ", None).await;
    assert_eq!(empty.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error(empty).await["code"], "validation_failed");
    app.stop().await;
}

#[tokio::test]
async fn a_code_of_another_borrowers_session_never_replaces_the_browsers_own() {
    let app = spawn_app().await;
    let victim = app.sign_in("IN", VICTIM).await;
    let attacker = app.sign_in("IN", ATTACKER).await;
    let code = handover_code(&app, &attacker).await;

    let refused = exchange(&app, &code, Some(&victim)).await;
    assert_eq!(refused.status(), StatusCode::CONFLICT);
    assert!(
        set_session_cookie(&refused).is_none(),
        "the victim's cookie is left alone"
    );
    let body: Value = error(refused).await;
    assert_eq!(body["code"], "signed_in_as_another");
    assert!(
        body["msg"].as_str().unwrap().contains("log out first"),
        "{body}"
    );
    assert!(
        phone_of(me_with(&app, &victim, None).await)
            .await
            .ends_with("0222")
    );
    assert_eq!(
        sessions_of(&app, &attacker).await,
        1,
        "no session was opened"
    );
    // The code is used up by the refused attempt.
    assert_eq!(
        exchange(&app, &code, None).await.status(),
        StatusCode::BAD_REQUEST
    );

    // The browser already signed in as the same borrower keeps its session: nothing new is opened.
    let own = handover_code(&app, &victim).await;
    let kept = exchange(&app, &own, Some(&victim)).await;
    assert_eq!(kept.status(), StatusCode::OK);
    assert!(set_session_cookie(&kept).is_none());
    assert_eq!(data(kept).await["opened"], false);
    assert_eq!(sessions_of(&app, &victim).await, 1);
    app.stop().await;
}

#[tokio::test]
async fn only_a_native_session_can_ask_for_a_code_and_never_from_another_site() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", VICTIM).await;
    let by_cookie = app
        .client
        .post(app.url(HANDOVER))
        .header("cookie", format!("kilat_session={session}"))
        .header("origin", format!("http://{}", app.addr))
        .send()
        .await
        .unwrap();
    assert_eq!(by_cookie.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(by_cookie).await["code"], "handover_not_allowed");

    let anonymous = app.post_json(HANDOVER, &json!({})).await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    // An exchange posted from another site's page is refused before the code is looked at.
    let code = handover_code(&app, &session).await;
    let cross = app
        .client
        .post(app.url(EXCHANGE))
        .header("origin", "https://evil.example")
        .json(&json!({"code": code}))
        .send()
        .await
        .unwrap();
    assert_eq!(cross.status(), StatusCode::FORBIDDEN);
    assert_eq!(error(cross).await["code"], "cross_site_request");
    assert_eq!(exchange(&app, &code, None).await.status(), StatusCode::OK);
    app.stop().await;
}

/// The login-forgery a code could still carry: an attacker signs in with their own phone, and a redirect mints a fresh
/// code of their session on every click and sends a signed-out victim to `/app/?handover=<code>`; the victim would
/// have been signed into the attacker's account and typed their PAN and bank account into it. A code is bound to the
/// address the shell asked from, which its web view shares: from another address it is refused like a used one, no
/// cookie is set, and it is used up. From the shell's own address it opens the web app as before.
#[tokio::test]
async fn a_code_exchanged_from_another_address_than_it_was_asked_from_signs_nobody_in() {
    let app = spawn_app_with(|s| s.trusted_proxy_hops = 1).await;
    let attacker = app.sign_in("IN", ATTACKER).await;
    let from = |address: &'static str| {
        move |request: reqwest::RequestBuilder| request.header("x-forwarded-for", address)
    };
    let code_from = |address: &'static str| {
        let attacker = attacker.clone();
        let app = &app;
        async move {
            let response = from(address)(
                app.client
                    .post(app.url(HANDOVER))
                    .header("x-session-id", attacker.as_str())
                    .json(&json!({})),
            )
            .send()
            .await
            .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            data(response).await["code"].as_str().unwrap().to_owned()
        }
    };
    let exchange_from = |address: &'static str, code: String| {
        let app = &app;
        async move {
            from(address)(
                app.client
                    .post(app.url(EXCHANGE))
                    .header("origin", format!("http://{}", app.addr))
                    .json(&json!({"code": code})),
            )
            .send()
            .await
            .unwrap()
        }
    };
    let before = sessions_of(&app, &attacker).await;
    let code = code_from("203.0.113.7").await;
    let elsewhere = exchange_from("198.51.100.9", code.clone()).await;
    assert_eq!(elsewhere.status(), StatusCode::BAD_REQUEST);
    assert_eq!(set_session_cookie(&elsewhere), None);
    assert_eq!(error(elsewhere).await["code"], "handover_invalid");
    assert_eq!(sessions_of(&app, &attacker).await, before);
    // Used up: not even the right address can use it after.
    assert_eq!(
        exchange_from("203.0.113.7", code).await.status(),
        StatusCode::BAD_REQUEST
    );
    // The shell's own web view: the same address, or another of its IPv6 /64.
    let code = code_from("203.0.113.7").await;
    let opened = exchange_from("203.0.113.7", code).await;
    assert_eq!(opened.status(), StatusCode::OK);
    assert!(set_session_cookie(&opened).is_some());
    let code = code_from("2001:db8:1:2::10").await;
    let opened = exchange_from("2001:db8:1:2::99", code).await;
    assert_eq!(opened.status(), StatusCode::OK);
    app.stop().await;
}

/// A native session asks for at most ten hand-over codes a minute (each is a row, and each exchange a browser
/// session): the eleventh is `429 rate_limited` with a `Retry-After`, and another session is not held back by it.
#[tokio::test]
async fn a_session_asks_for_at_most_ten_handover_codes_a_minute() {
    let app = spawn_app().await;
    let token = app.sign_in("IN", ATTACKER).await;
    for _ in 0..kilat_server::infra::limits::HANDOVERS_PER_MINUTE {
        handover_code(&app, &token).await;
    }
    let refused = app.post_as(HANDOVER, &token, &json!({})).await;
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().get("retry-after").is_some());
    assert_eq!(error(refused).await["code"], "rate_limited");
    let other = app.sign_in("IN", VICTIM).await;
    handover_code(&app, &other).await;
    app.stop().await;
}
