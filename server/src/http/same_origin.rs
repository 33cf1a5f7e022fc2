//! Refuses unsafe API requests (POST, PUT, PATCH, DELETE) that a browser sends on behalf of another site: actions
//! riding on the session cookie (CSRF), a sign-in posted into the victim's browser (login CSRF), codes sent and
//! contact messages posted from elsewhere.
//!
//! The browser says who asked: `Origin` on every unsafe request, or, where an older browser leaves it out,
//! `Sec-Fetch-Site`. A request is same-origin when its `Origin` is `public_origin` (when set) or names the host the
//! request was sent to (`Host`). Clients that send neither header are not browsers acting for a page (curl, the tests,
//! the native shell's HTTP client) and pass: no web page can make a browser leave both out.
//!
//! Requests that carry `X-Session-Id` pass too. They are authenticated by that header, not by the cookie, so they
//! carry no ambient credential another site could borrow: a page can only add a custom header to a cross-site request
//! through a CORS preflight, which this server never grants, and it would have to know the token.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use crate::startup::AppState;

/// Middleware for the API: answers 403 `cross_site_request` to an unsafe request from another site.
pub async fn refuse_cross_site(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    match refusal(&state, &req) {
        Some(refused) => refused,
        None => next.run(req).await,
    }
}

/// The 403 `cross_site_request` answer when `req` is an unsafe request from another site (logged); `None` when it
/// may pass. For a middleware that does more than this check (the API's guard in `http`).
pub fn refusal(state: &AppState, req: &Request) -> Option<Response> {
    if !is_cross_site(req.method(), req.headers(), state.public_origin.as_deref()) {
        return None;
    }
    tracing::warn!(
        origin = ?req.headers().get(header::ORIGIN),
        sec_fetch_site = ?req.headers().get("sec-fetch-site"),
        "cross-site request refused"
    );
    Some(ApiError::CrossSiteRequest.into_response())
}

/// True when a browser sent this unsafe request for a page of another origin.
pub fn is_cross_site(method: &Method, headers: &HeaderMap, public_origin: Option<&str>) -> bool {
    if method.is_safe() {
        return false;
    }
    let session_header = headers
        .get("x-session-id")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !v.trim().is_empty());
    if session_header {
        return false;
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        return !is_own_origin(origin, headers.get(header::HOST), public_origin);
    }
    match headers.get("sec-fetch-site").map(HeaderValue::as_bytes) {
        // `none`: the person started it (typed, bookmarked), no page did.
        Some(site) => {
            !(site.eq_ignore_ascii_case(b"same-origin") || site.eq_ignore_ascii_case(b"none"))
        }
        None => false,
    }
}

/// `Origin` is the configured public origin, or `scheme://` + the request's `Host`. `null` (sandboxed frames, some
/// redirects) is never ours.
fn is_own_origin(
    origin: &HeaderValue,
    host: Option<&HeaderValue>,
    public_origin: Option<&str>,
) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if public_origin.is_some_and(|own| own.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    let Some(host) = host.and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "https" => ":443",
        "http" => ":80",
        _ => return false,
    };
    let strip = |authority: &str| -> String {
        let lower = authority.trim().to_ascii_lowercase();
        lower
            .strip_suffix(default_port)
            .map(str::to_owned)
            .unwrap_or(lower)
    };
    strip(authority) == strip(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn cross(method: Method, pairs: &[(&'static str, &'static str)]) -> bool {
        is_cross_site(&method, &headers(pairs), None)
    }

    #[test]
    fn an_origin_naming_the_requested_host_is_same_origin_and_another_is_not() {
        let host = ("host", "kilat.example");
        assert!(!cross(
            Method::POST,
            &[host, ("origin", "https://kilat.example")]
        ));
        assert!(!cross(
            Method::POST,
            &[host, ("origin", "http://Kilat.Example:80")]
        ));
        assert!(cross(
            Method::POST,
            &[host, ("origin", "https://evil.example")]
        ));
        assert!(cross(
            Method::POST,
            &[host, ("origin", "https://kilat.example.evil.example")]
        ));
        assert!(cross(Method::DELETE, &[host, ("origin", "null")]));
        assert!(
            cross(Method::PUT, &[("origin", "https://kilat.example")]),
            "no Host to match"
        );
        let port = ("host", "127.0.0.1:8080");
        assert!(!cross(
            Method::POST,
            &[port, ("origin", "http://127.0.0.1:8080")]
        ));
        assert!(cross(
            Method::POST,
            &[port, ("origin", "http://127.0.0.1:9999")]
        ));
    }

    #[test]
    fn without_origin_sec_fetch_site_decides_and_without_both_the_client_is_not_a_browser_page() {
        assert!(cross(Method::POST, &[("sec-fetch-site", "cross-site")]));
        assert!(cross(Method::POST, &[("sec-fetch-site", "same-site")]));
        assert!(!cross(Method::POST, &[("sec-fetch-site", "same-origin")]));
        assert!(!cross(Method::POST, &[("sec-fetch-site", "none")]));
        assert!(!cross(Method::POST, &[("host", "kilat.example")]));
    }

    #[test]
    fn safe_methods_and_requests_authenticated_by_x_session_id_are_not_checked() {
        let evil = ("origin", "https://evil.example");
        assert!(!cross(Method::GET, &[("host", "kilat.example"), evil]));
        assert!(!cross(
            Method::POST,
            &[("host", "kilat.example"), evil, ("x-session-id", "t")]
        ));
        // The web app sends an empty X-Session-Id when it has none: that authenticates nothing.
        assert!(cross(
            Method::POST,
            &[("host", "kilat.example"), evil, ("x-session-id", "")]
        ));
    }

    #[test]
    fn behind_a_proxy_that_rewrites_host_the_public_origin_is_ours() {
        let map = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://kilat.example"),
        ]);
        assert!(is_cross_site(&Method::POST, &map, None));
        assert!(!is_cross_site(
            &Method::POST,
            &map,
            Some("https://kilat.example")
        ));
        assert!(is_cross_site(
            &Method::POST,
            &map,
            Some("https://other.example")
        ));
    }
}
