//! Refuses unsafe API requests (POST, PUT, PATCH, DELETE) that a browser sends on behalf of another site: actions
//! riding on the session cookie (CSRF), a sign-in posted into the victim's browser (login CSRF), codes sent and
//! contact messages posted from elsewhere.
//!
//! The browser says who asked: `Origin` on every unsafe request, or, where an older browser leaves it out,
//! `Sec-Fetch-Site`. A request is same-origin when its `Origin` is `public_origin` (when set) or names the host the
//! request was sent to (`Host`) with the site's scheme: `public_origin`'s, else `https` in production (its cookies are
//! `Secure` and it sends HSTS) and `http` in development. Clients that send neither header are not browsers acting for
//! a page (curl, the tests, the native shell's HTTP client) and pass: no web page can make a browser leave both out.
//!
//! Borrower API requests authenticated by `X-Session-Id` pass too: the native shell's HTTP client sends it, often with
//! an `Origin` of its own (`capacitor://localhost`). They carry no ambient credential another site could borrow (a
//! page can only add a custom header to a cross-site request through a CORS preflight, which this server never
//! grants, and it would have to know the token). Only requests the header really authenticates: a borrower request
//! that also carries the session cookie is authenticated by the cookie (`borrower::auth`), and the console
//! authenticates by its cookie alone, so for both the header proves nothing and the check applies.

use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::borrower::auth::has_session_cookie;
use super::error::ApiError;
use crate::http::AppState;

/// The borrower API, the one area the native shell's `X-Session-Id` authenticates.
const BORROWER_API: &str = "/api/v1/borrower/";

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
    // Inside a nested router the URI has lost its prefix; the original one says which area this is.
    let path = req
        .extensions()
        .get::<OriginalUri>()
        .map_or_else(|| req.uri().path(), |uri| uri.0.path());
    let site = Site {
        public_origin: state.public_origin.as_deref(),
        https: state.secure_cookies,
    };
    if !is_cross_site(
        req.method(),
        req.headers(),
        site,
        path.starts_with(BORROWER_API),
    ) {
        return None;
    }
    tracing::warn!(
        origin = ?req.headers().get(header::ORIGIN),
        sec_fetch_site = ?req.headers().get("sec-fetch-site"),
        "cross-site request refused"
    );
    Some(ApiError::CrossSiteRequest.into_response())
}

/// What this server's own origin is.
#[derive(Debug, Clone, Copy)]
pub struct Site<'a> {
    /// `public_origin`, when set: the origin browsers use (`https://kilat.example`).
    pub public_origin: Option<&'a str>,
    /// Production: served over HTTPS (without `public_origin`, the scheme an `Origin` naming `Host` must have).
    pub https: bool,
}

impl Site<'_> {
    /// The scheme of our own pages.
    fn scheme(&self) -> &str {
        match self.public_origin.and_then(|o| o.split_once("://")) {
            Some((scheme, _)) => scheme,
            None if self.https => "https",
            None => "http",
        }
    }
}

/// True when a browser sent this unsafe request for a page of another origin. `borrower_api`: the request is to the
/// borrower API, where `X-Session-Id` authenticates when no session cookie is sent.
pub fn is_cross_site(method: &Method, headers: &HeaderMap, site: Site, borrower_api: bool) -> bool {
    if method.is_safe() {
        return false;
    }
    if borrower_api && authenticated_by_header(headers) {
        return false;
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        return !is_own_origin(origin, headers.get(header::HOST), site);
    }
    match headers.get("sec-fetch-site").map(HeaderValue::as_bytes) {
        // `none`: the person started it (typed, bookmarked), no page did.
        Some(site) => {
            !(site.eq_ignore_ascii_case(b"same-origin") || site.eq_ignore_ascii_case(b"none"))
        }
        None => false,
    }
}

/// A non-empty `X-Session-Id` and no session cookie: the header is what authenticates the request.
fn authenticated_by_header(headers: &HeaderMap) -> bool {
    let header = headers
        .get("x-session-id")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !v.trim().is_empty());
    header && !has_session_cookie(headers)
}

/// `Origin` is the configured public origin, or the site's scheme + `://` + the request's `Host`. `null` (sandboxed
/// frames, some redirects) is never ours.
fn is_own_origin(origin: &HeaderValue, host: Option<&HeaderValue>, site: Site) -> bool {
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    if site
        .public_origin
        .is_some_and(|own| own.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case(site.scheme()) {
        return false;
    }
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

    const DEVELOPMENT: Site = Site {
        public_origin: None,
        https: false,
    };
    const PRODUCTION: Site = Site {
        public_origin: None,
        https: true,
    };

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn cross(method: Method, pairs: &[(&'static str, &'static str)]) -> bool {
        is_cross_site(&method, &headers(pairs), DEVELOPMENT, true)
    }

    #[test]
    fn an_origin_naming_the_requested_host_is_same_origin_and_another_is_not() {
        let host = ("host", "kilat.example");
        assert!(!cross(
            Method::POST,
            &[host, ("origin", "http://kilat.example")]
        ));
        assert!(!cross(
            Method::POST,
            &[host, ("origin", "http://Kilat.Example:80")]
        ));
        assert!(cross(
            Method::POST,
            &[host, ("origin", "http://evil.example")]
        ));
        assert!(cross(
            Method::POST,
            &[host, ("origin", "http://kilat.example.evil.example")]
        ));
        assert!(cross(Method::DELETE, &[host, ("origin", "null")]));
        assert!(
            cross(Method::PUT, &[("origin", "http://kilat.example")]),
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
    fn the_scheme_of_the_origin_must_be_the_sites() {
        let map = |origin| headers(&[("host", "kilat.example"), ("origin", origin)]);
        let post = |origin, site| is_cross_site(&Method::POST, &map(origin), site, false);
        // Production is served over HTTPS: a page of http://kilat.example is another origin.
        assert!(post("http://kilat.example", PRODUCTION));
        assert!(post("http://kilat.example:443", PRODUCTION));
        assert!(!post("https://kilat.example", PRODUCTION));
        assert!(!post("https://kilat.example:443", PRODUCTION));
        // Development on plain HTTP, the other way round.
        assert!(post("https://kilat.example", DEVELOPMENT));
        assert!(!post("http://kilat.example", DEVELOPMENT));
        // With a public origin, its scheme is the site's, for the Host fallback too.
        let behind_tls = Site {
            public_origin: Some("https://kilat.example"),
            https: false,
        };
        assert!(post("http://kilat.example", behind_tls));
        assert!(!post("https://kilat.example", behind_tls));
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
    fn safe_methods_and_borrower_requests_authenticated_by_x_session_id_alone_are_not_checked() {
        let evil = ("origin", "https://evil.example");
        let host = ("host", "kilat.example");
        assert!(!cross(Method::GET, &[host, evil]));
        assert!(!cross(Method::POST, &[host, evil, ("x-session-id", "t")]));
        // The web app used to send an empty X-Session-Id when it had none: that authenticates nothing.
        assert!(cross(Method::POST, &[host, evil, ("x-session-id", "")]));
        // With the session cookie, the cookie authenticates (borrower::auth), so the header proves nothing.
        assert!(cross(
            Method::POST,
            &[
                host,
                evil,
                ("x-session-id", "t"),
                ("cookie", "kilat_session=c")
            ]
        ));
        // Outside the borrower API (the console, the contact form) the header authenticates nothing either.
        let console = headers(&[host, evil, ("x-session-id", "t")]);
        assert!(is_cross_site(&Method::POST, &console, DEVELOPMENT, false));
    }

    #[test]
    fn behind_a_proxy_that_rewrites_host_the_public_origin_is_ours() {
        let map = headers(&[
            ("host", "127.0.0.1:8080"),
            ("origin", "https://kilat.example"),
        ]);
        let with = |public_origin| Site {
            public_origin,
            https: true,
        };
        assert!(is_cross_site(&Method::POST, &map, with(None), true));
        assert!(!is_cross_site(
            &Method::POST,
            &map,
            with(Some("https://kilat.example")),
            true
        ));
        assert!(is_cross_site(
            &Method::POST,
            &map,
            with(Some("https://other.example")),
            true
        ));
    }
}
