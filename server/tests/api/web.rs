//! The embedded web app: pages rendered with the settings, caching, compression and the security headers.

use reqwest::StatusCode;
use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, ETAG, IF_NONE_MATCH};

use crate::helpers::spawn_app_with;

#[tokio::test]
async fn the_home_page_is_rendered_with_the_settings_and_never_cached_stale() {
    let app = spawn_app_with(|s| s.site.company_name = "Brand <&> Co".into()).await;
    let response = app.get("/").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()[CACHE_CONTROL], "no-cache");
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = response.text().await.unwrap();
    assert!(
        html.contains("<title>Brand &lt;&amp;&gt; Co"),
        "the title is the company name"
    );
    assert!(!html.contains("%%KILAT"), "a placeholder was left unfilled");
    assert!(
        html.contains(r#"lang="id"#),
        "no lang means the Indonesian page"
    );

    let india = app.get("/?lang=1").await.text().await.unwrap();
    assert!(
        india.contains(r#"lang="en"#),
        "lang=1 means the English (India) page"
    );
    app.stop().await;
}

#[tokio::test]
async fn every_response_carries_the_security_headers() {
    let app = spawn_app_with(|_| {}).await;
    for path in ["/", "/api/v1/site/settings", "/api/v1/nope", "/healthz"] {
        let response = app.get(path).await;
        let h = response.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        let script_src = csp
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src"))
            .expect("script-src");
        assert_eq!(script_src, "script-src 'self'", "{path}: no inline script");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(
            h["referrer-policy"], "strict-origin-when-cross-origin",
            "{path}"
        );
        if !path.starts_with("/api") && path != "/healthz" {
            continue;
        }
        assert!(
            h.contains_key("x-request-id"),
            "{path}: the API and probes carry a request id"
        );
    }
    app.stop().await;
}

#[tokio::test]
async fn assets_are_immutable_precompressed_and_revalidate_with_etags() {
    let app = spawn_app_with(|_| {}).await;
    let html = app.get("/").await.text().await.unwrap();
    let script = html
        .split('"')
        .find(|s| s.starts_with("/assets/") && s.ends_with(".js"))
        .expect("the home page loads a hashed script")
        .to_owned();

    let plain = app.get(&script).await;
    assert_eq!(
        plain.headers()[CACHE_CONTROL],
        "public, max-age=31536000, immutable"
    );
    assert!(
        plain.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    assert!(!plain.headers().contains_key(CONTENT_ENCODING));
    let plain_len = plain.bytes().await.unwrap().len();

    for (accept, expected) in [("gzip", "gzip"), ("gzip, deflate, br", "br")] {
        let response = app
            .client
            .get(app.url(&script))
            .header(ACCEPT_ENCODING, accept)
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()[CONTENT_ENCODING], expected);
        assert_eq!(response.headers()["vary"], "accept-encoding");
        let etag = response.headers()[ETAG].clone();
        assert!(
            response.bytes().await.unwrap().len() < plain_len,
            "{expected} is smaller than the original"
        );

        let again = app
            .client
            .get(app.url(&script))
            .header(ACCEPT_ENCODING, accept)
            .header(IF_NONE_MATCH, etag)
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    }
    app.stop().await;
}

#[tokio::test]
async fn unknown_paths_fall_back_to_the_page_but_missing_assets_do_not() {
    let app = spawn_app_with(|_| {}).await;
    let fallback = app.get("/some/unknown/page").await;
    assert_eq!(fallback.status(), StatusCode::OK);
    assert!(fallback.text().await.unwrap().contains("<html"));
    let about = app.get("/about?lang=1").await.text().await.unwrap();
    assert!(about.contains(r#"lang="en"#));
    assert_eq!(
        app.get("/assets/missing-0000.js").await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/../Cargo.toml").await.status(),
        StatusCode::OK,
        "dot segments never leave the bundle"
    );
    let post = app.client.post(app.url("/")).send().await.unwrap();
    assert_eq!(post.status(), StatusCode::METHOD_NOT_ALLOWED);
    app.stop().await;
}

#[tokio::test]
async fn console_paths_serve_the_console_page_under_the_same_policy() {
    let app = spawn_app_with(|_| {}).await;
    for path in [
        "/console",
        "/console/",
        "/console/applications?market=ID",
        "/console/orders/KL-261123-7F3K9Q",
    ] {
        let response = app.get(path).await;
        assert_eq!(response.status(), StatusCode::OK, "{path}");
        assert_eq!(response.headers()[CACHE_CONTROL], "no-cache", "{path}");
        let csp = response.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        assert!(csp.contains("script-src 'self';"), "{path}: {csp}");
        let html = response.text().await.unwrap();
        assert!(html.contains("<title>Kilat console</title>"), "{path}");
        assert!(
            html.contains(r#"<script type="module" crossorigin src="/assets/console-"#),
            "{path}: the console's own bundle"
        );
        assert!(
            !html.contains("/assets/app-") && !html.contains("/assets/site-"),
            "{path}: no other area's code"
        );
        assert!(
            !html.contains("<script>") && !html.contains("%%KILAT"),
            "{path}: no inline script, no placeholder left"
        );
    }
    let app_page = app.get("/app/login").await.text().await.unwrap();
    assert!(
        !app_page.contains("/assets/console-"),
        "the borrower app is not the console"
    );
    app.stop().await;
}

/// A rendered page's compressed copies are made on the first request that takes each: requests racing for it all get
/// the same bytes, which are the page itself once decompressed, and its tag answers a conditional request.
#[tokio::test]
async fn a_page_compressed_on_its_first_request_is_the_page_for_everyone_who_asked_at_once() {
    use std::io::Read;

    let app = spawn_app_with(|_| {}).await;
    let plain = app.get("/").await;
    assert!(!plain.headers().contains_key(CONTENT_ENCODING));
    let plain_tag = plain.headers()[ETAG].to_str().unwrap().to_owned();
    let page = plain.bytes().await.unwrap();

    for (accept, suffix) in [("gzip, deflate, br", "br"), ("gzip", "gz")] {
        let first = futures_util::future::join_all((0..8).map(|_| {
            app.client
                .get(app.url("/"))
                .header(ACCEPT_ENCODING, accept)
                .send()
        }))
        .await;
        let mut bodies = Vec::new();
        let mut tags = Vec::new();
        for response in first {
            let response = response.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            let encoding = response.headers()[CONTENT_ENCODING].to_str().unwrap();
            assert_eq!(encoding, if suffix == "br" { "br" } else { "gzip" });
            assert_eq!(response.headers()["vary"], "accept-encoding");
            tags.push(response.headers()[ETAG].to_str().unwrap().to_owned());
            bodies.push(response.bytes().await.unwrap());
        }
        assert!(
            bodies.iter().all(|b| *b == bodies[0]),
            "{suffix}: one copy for everyone"
        );
        assert!(tags.iter().all(|t| *t == tags[0]));
        let tag = &tags[0];
        assert_eq!(
            *tag,
            format!("{}-{suffix}\"", plain_tag.trim_end_matches('"')),
            "the page's tag with the encoding's suffix"
        );
        let mut decompressed = Vec::new();
        if suffix == "br" {
            brotli::BrotliDecompress(&mut &bodies[0][..], &mut decompressed).unwrap();
        } else {
            flate2::read::GzDecoder::new(&bodies[0][..])
                .read_to_end(&mut decompressed)
                .unwrap();
        }
        assert_eq!(decompressed, page, "{suffix} decompresses to the page");
        assert!(bodies[0].len() < page.len());

        let head = app
            .client
            .head(app.url("/"))
            .header(ACCEPT_ENCODING, accept)
            .send()
            .await
            .unwrap();
        assert_eq!(
            head.headers()["content-length"],
            bodies[0].len().to_string().as_str()
        );
        let again = app
            .client
            .get(app.url("/"))
            .header(ACCEPT_ENCODING, accept)
            .header(IF_NONE_MATCH, tag.as_str())
            .send()
            .await
            .unwrap();
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(again.headers()[ETAG], tag.as_str());
    }
    app.stop().await;
}
