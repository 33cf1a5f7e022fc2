//! The site's claims (issue 9): stored per market, seeded once from the settings, edited by admins with an audit
//! entry, validated, refused to other roles, and shown by the site settings and the served page at once on the
//! server that took the edit and within seconds on another.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use kilat_server::auth::operators::Role;
use kilat_server::claims::SiteClaims;
use kilat_server::startup::Application;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{data, error, spawn_app};
use crate::servicing::{op_call, operator};

const CLAIMS: &str = "/api/v1/console/site/claims";
const INDIA_PAYOUT: &str = "Money in your bank account within 2 hours.";
const INDIA_USERS: &str = "Trusted by 3 million users.";

async fn site_settings(app_url: &str, client: &reqwest::Client, market: &str) -> Value {
    let response = client
        .get(format!("{app_url}/api/v1/site/settings?market={market}"))
        .send()
        .await
        .unwrap();
    data(response).await
}

#[tokio::test]
async fn an_admins_edit_is_audited_and_the_site_and_its_page_show_it_on_the_next_load() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let admin_id: String = sqlx::query_scalar("SELECT id FROM operators WHERE username = 'ada'")
        .fetch_one(app.db.pool())
        .await
        .unwrap();

    // Seeded from the settings file: India's claims, none for Indonesia.
    let listed = data(op_call(&app, &admin, Method::GET, CLAIMS, None).await).await;
    assert_eq!(listed.as_array().unwrap().len(), 2, "{listed}");
    let india = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["market"] == "IN")
        .unwrap();
    assert_eq!(india["payoutClaim"], INDIA_PAYOUT);
    assert_eq!(india["usersClaim"], INDIA_USERS);
    assert_eq!(india["updatedBy"], Value::Null);
    let page = app.get("/?lang=1").await.text().await.unwrap();
    assert!(
        page.contains(INDIA_PAYOUT),
        "the seeded claim is on India's page"
    );

    let edited = data(
        op_call(
            &app,
            &admin,
            Method::PUT,
            &format!("{CLAIMS}/IN"),
            Some(
                json!({"payoutClaim": "  Money in your account the same day. ", "usersClaim": ""}),
            ),
        )
        .await,
    )
    .await;
    assert_eq!(edited["market"], "IN");
    assert_eq!(edited["payoutClaim"], "Money in your account the same day.");
    assert_eq!(edited["usersClaim"], "");
    assert_eq!(edited["updatedBy"], "ada");

    // The site settings and the page show the new claim, and the withdrawn one is gone.
    let settings = site_settings(&app.url(""), &app.client, "IN").await;
    assert_eq!(
        settings["payoutClaim"],
        "Money in your account the same day."
    );
    assert_eq!(settings["usersClaim"], "");
    let page = app.get("/?lang=1").await.text().await.unwrap();
    assert!(
        page.contains("Money in your account the same day."),
        "the new claim is on the page"
    );
    assert!(
        !page.contains(INDIA_PAYOUT),
        "the old claim is gone from the page"
    );
    assert!(
        !page.contains("3 million"),
        "the withdrawn claim is gone from the page"
    );
    // Indonesia's page and settings did not change.
    let indonesia = site_settings(&app.url(""), &app.client, "ID").await;
    assert_eq!(indonesia["payoutClaim"], "");
    assert!(
        !app.get("/")
            .await
            .text()
            .await
            .unwrap()
            .contains("same day")
    );

    // Audited: who, which market, before and after.
    let rows = app.audit_entries("site.claims.update", "site_claims").await;
    assert_eq!(rows.len(), 1);
    let (market, actor, before, after) = &rows[0];
    assert_eq!(market, "IN");
    assert_eq!(actor, &admin_id);
    let before: Value = serde_json::from_str(before).unwrap();
    let after: Value = serde_json::from_str(after).unwrap();
    assert_eq!(
        before,
        json!({"payoutClaim": INDIA_PAYOUT, "usersClaim": INDIA_USERS})
    );
    assert_eq!(
        after,
        json!({"payoutClaim": "Money in your account the same day.", "usersClaim": ""})
    );
    app.stop().await;
}

#[tokio::test]
async fn a_claim_must_be_one_bounded_sentence_and_only_admins_may_edit() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;

    let refused = op_call(
        &app,
        &admin,
        Method::PUT,
        &format!("{CLAIMS}/IN"),
        Some(json!({"payoutClaim": "No full stop", "usersClaim": format!("{}.", "a".repeat(120))})),
    )
    .await;
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body = error(refused).await;
    assert_eq!(body["code"], "validation_failed");
    assert!(body["fields"]["payoutClaim"].is_string(), "{body}");
    assert!(
        body["fields"]["usersClaim"]
            .as_str()
            .unwrap()
            .contains("120"),
        "{body}"
    );
    let two_lines = error(
        op_call(
            &app,
            &admin,
            Method::PUT,
            &format!("{CLAIMS}/ID"),
            Some(json!({"payoutClaim": "Cair\ndalam sehari.", "usersClaim": ""})),
        )
        .await,
    )
    .await;
    assert!(
        two_lines["fields"]["payoutClaim"].is_string(),
        "{two_lines}"
    );
    let unknown = op_call(
        &app,
        &admin,
        Method::PUT,
        &format!("{CLAIMS}/XX"),
        Some(json!({})),
    )
    .await;
    assert_eq!(unknown.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(error(unknown).await["fields"]["market"].is_string());
    // Nothing changed, nothing audited.
    assert_eq!(
        site_settings(&app.url(""), &app.client, "IN").await["payoutClaim"],
        INDIA_PAYOUT
    );
    assert!(
        app.audit_entries("site.claims.update", "site_claims")
            .await
            .is_empty()
    );

    for (name, role) in [
        ("rita", Role::Reviewer),
        ("sam", Role::Support),
        ("fin", Role::Finance),
    ] {
        let op = operator(&app, name, &[role]).await;
        let list = op_call(&app, &op, Method::GET, CLAIMS, None).await;
        assert_eq!(list.status(), StatusCode::FORBIDDEN, "{name} lists");
        let edit = op_call(
            &app,
            &op,
            Method::PUT,
            &format!("{CLAIMS}/IN"),
            Some(json!({"payoutClaim": "", "usersClaim": ""})),
        )
        .await;
        assert_eq!(edit.status(), StatusCode::FORBIDDEN, "{name} edits");
        assert_eq!(error(edit).await["code"], "forbidden");
    }
    assert_eq!(
        site_settings(&app.url(""), &app.client, "IN").await["payoutClaim"],
        INDIA_PAYOUT
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_edits_are_each_audited_against_the_claims_they_replaced() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let path = format!("{CLAIMS}/ID");
    let edits = (0..10).map(|n| {
        op_call(
            &app,
            &admin,
            Method::PUT,
            &path,
            Some(json!({"payoutClaim": format!("Cair dalam {n} jam."), "usersClaim": ""})),
        )
    });
    for response in futures_join_all(edits).await {
        assert_eq!(response.status(), StatusCode::OK);
    }
    // The edits form one chain from the seed to the stored claims: none was lost or audited against a stale value.
    let rows = app.audit_entries("site.claims.update", "site_claims").await;
    assert_eq!(rows.len(), 10);
    let claim = |json: &str| {
        serde_json::from_str::<Value>(json).unwrap()["payoutClaim"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let next: BTreeMap<String, String> = rows
        .iter()
        .map(|(_, _, b, a)| (claim(b), claim(a)))
        .collect();
    assert_eq!(
        next.len(),
        10,
        "two edits replaced the same claims: {rows:?}"
    );
    let mut at = String::new();
    let mut seen = BTreeSet::new();
    while let Some(after) = next.get(&at) {
        assert!(seen.insert(after.clone()));
        at = after.clone();
    }
    assert_eq!(seen.len(), 10, "the chain from the seed covers every edit");
    assert_eq!(
        site_settings(&app.url(""), &app.client, "ID").await["payoutClaim"],
        at
    );
    app.stop().await;
}

/// `join_all` without the futures crate: the futures run concurrently on this task.
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut out: Vec<Option<F::Output>> = (0..set.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (i, f) in set.iter_mut().enumerate() {
            if out[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => out[i] = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(Option::unwrap).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn seeding_at_once_from_several_servers_lands_once_and_never_overwrites_an_edit() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    let edited = op_call(
        &app,
        &admin,
        Method::PUT,
        &format!("{CLAIMS}/IN"),
        Some(json!({"payoutClaim": "Money the same day.", "usersClaim": ""})),
    )
    .await;
    assert_eq!(edited.status(), StatusCode::OK);
    app.execute("DELETE FROM site_claims WHERE market = 'ID'")
        .await;
    // A market without stored claims (only by hand: start-up seeds both) cannot be edited.
    let missing = op_call(
        &app,
        &admin,
        Method::PUT,
        &format!("{CLAIMS}/ID"),
        Some(json!({"payoutClaim": "", "usersClaim": ""})),
    )
    .await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    let site = app.services.site.clone();
    let now = app.services.clock.now_ms();
    let loads = (0..4).map(|_| {
        let (db, site) = (app.db.clone(), site.clone());
        tokio::spawn(async move { SiteClaims::load(&db, &site, now).await })
    });
    for load in loads.collect::<Vec<_>>() {
        let claims = load
            .await
            .unwrap()
            .expect("seeding succeeds on every server");
        assert_eq!(
            claims.get(kilat_domain::Market::India).payout_claim,
            "Money the same day."
        );
    }
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT market, payout_claim FROM site_claims ORDER BY market")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert_eq!(
        rows,
        [
            ("ID".to_owned(), String::new()),
            ("IN".to_owned(), "Money the same day.".to_owned())
        ]
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn another_servers_edit_reaches_this_servers_settings_and_page_within_seconds() {
    let app = spawn_app().await;
    let admin = operator(&app, "ada", &[Role::Admin]).await;
    // A second server on the same database.
    let mut settings = kilat_server::settings::Settings::load(None).unwrap();
    settings.listen = "127.0.0.1:0".parse().unwrap();
    settings.database_url = app.database_url.clone().into();
    settings.database_max_connections = 4;
    let other = Application::build(&settings).await.unwrap();
    let other_url = format!("http://{}", other.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(other.run_until(async move {
        let _ = stopped.await;
    }));

    let edited = op_call(
        &app,
        &admin,
        Method::PUT,
        &format!("{CLAIMS}/ID"),
        Some(json!({"payoutClaim": "Dana cair hari ini juga.", "usersClaim": ""})),
    )
    .await;
    assert_eq!(edited.status(), StatusCode::OK);
    let started = std::time::Instant::now();
    loop {
        let settings = site_settings(&other_url, &app.client, "ID").await;
        let page = app
            .client
            .get(format!("{other_url}/"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        if settings["payoutClaim"] == "Dana cair hari ini juga."
            && page.contains("Dana cair hari ini juga.")
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "the other server still shows the old claim"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = stop.send(());
    server.await.unwrap().unwrap();
    app.stop().await;
}
