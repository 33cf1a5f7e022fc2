//! What the edge adds to every request and response, in one layer rather than five (issue 7: each `from_fn` layer
//! boxes a future per request): the security headers of every response, `Cache-Control: no-store` under `/api`, the
//! request id of the API and the probes, and error texts in the request's language.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll, ready};

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue, header};
use axum::response::Response;
use tower::{Layer, Service};

use super::error::in_lang;
use crate::i18n::Lang;

/// The request id header of the API and the probes: the one a trusted proxy sent (`trusted_proxy_hops` > 0), else
/// one of ours.
pub static X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

// `blob:` images: a complaint's photo is previewed from the borrower's own file before and after it is uploaded.
const CSP: HeaderValue = HeaderValue::from_static(
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
     font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; \
     base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
);
static PERMISSIONS_POLICY: HeaderName = HeaderName::from_static("permissions-policy");

/// The layer of [`Edge`]; `development` leaves out HSTS (served over plain HTTP); `trust_request_ids` keeps the
/// `X-Request-Id` a request arrives with (a proxy of ours in front set it), else every request gets one of ours, so a
/// client cannot write what it likes into the logs.
#[derive(Clone)]
pub struct EdgeLayer {
    development: bool,
    trust_request_ids: bool,
    ids: Arc<RequestIds>,
}

impl EdgeLayer {
    pub fn new(development: bool, trust_request_ids: bool) -> Self {
        Self {
            development,
            trust_request_ids,
            ids: Arc::new(RequestIds::default()),
        }
    }
}

/// A proxy's request id is kept when it is 1 to 128 letters, digits and `-_.:`; anything else is replaced.
fn acceptable_id(id: &HeaderValue) -> bool {
    let bytes = id.as_bytes();
    (1..=128).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(b))
}

impl<S> Layer<S> for EdgeLayer {
    type Service = Edge<S>;

    fn layer(&self, inner: S) -> Edge<S> {
        Edge {
            inner,
            development: self.development,
            trust_request_ids: self.trust_request_ids,
            ids: self.ids.clone(),
        }
    }
}

/// See the module's documentation.
#[derive(Clone)]
pub struct Edge<S> {
    inner: S,
    development: bool,
    trust_request_ids: bool,
    ids: Arc<RequestIds>,
}

impl<S> Service<Request> for Edge<S>
where
    S: Service<Request, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = EdgeFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request) -> Self::Future {
        let path = req.uri().path();
        let api = path == "/api" || path.starts_with("/api/");
        // The API and the probes: request ids (what is logged at INFO) and localized errors. Static files are the bulk
        // of the traffic and the hot path of the nginx comparison: neither.
        let dynamic = api || path == "/healthz" || path == "/readyz";
        let mut request_id = None;
        let mut accept_language = None;
        if dynamic {
            let id = match req.headers().get(&X_REQUEST_ID) {
                Some(id) if self.trust_request_ids && acceptable_id(id) => id.clone(),
                _ => {
                    let id = self.ids.next();
                    req.headers_mut().insert(X_REQUEST_ID.clone(), id.clone());
                    id
                }
            };
            request_id = Some(id);
            accept_language = Some(req.headers().get(header::ACCEPT_LANGUAGE).cloned());
        }
        EdgeFuture {
            inner: self.inner.call(req),
            api,
            development: self.development,
            request_id,
            accept_language,
        }
    }
}

pin_project_lite::pin_project! {
    /// The response future of [`Edge`].
    pub struct EdgeFuture<F> {
        #[pin]
        inner: F,
        api: bool,
        development: bool,
        request_id: Option<HeaderValue>,
        // `Some` on the API and the probes: the request's `Accept-Language`, if any.
        accept_language: Option<Option<HeaderValue>>,
    }
}

impl<F, E> Future for EdgeFuture<F>
where
    F: Future<Output = Result<Response, E>>,
{
    type Output = Result<Response, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut response = ready!(this.inner.poll(cx))?;
        if let Some(accept_language) = this.accept_language.take() {
            // Error texts in the request's language: the one place the language of an error is applied.
            let lang =
                Lang::from_accept_language(accept_language.as_ref().and_then(|v| v.to_str().ok()));
            response = in_lang(response, lang);
        }
        let h = response.headers_mut();
        if let Some(id) = this.request_id.take()
            && !h.contains_key(&X_REQUEST_ID)
        {
            h.insert(X_REQUEST_ID.clone(), id);
        }
        // `no-store` on every answer under `/api` (errors, 404s and 405s included): they are per borrower and per
        // moment (sessions, codes, orders), so no browser or proxy cache may keep them. Static files keep their own,
        // deliberate caching.
        if *this.api {
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
        // The headers every response carries. The CSP allows no inline script: settings reach pages as a JSON data
        // block.
        h.insert(header::CONTENT_SECURITY_POLICY, CSP);
        h.insert(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        );
        h.insert(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        );
        h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
        h.insert(
            PERMISSIONS_POLICY.clone(),
            HeaderValue::from_static("camera=(), microphone=(), geolocation=(self)"),
        );
        if !*this.development {
            // Production is served over HTTPS only (behind the proxy): browsers must never try plain HTTP again.
            h.insert(
                header::STRICT_TRANSPORT_SECURITY,
                HeaderValue::from_static("max-age=31536000; includeSubDomains"),
            );
        }
        Poll::Ready(Ok(response))
    }
}

/// Request ids: a random per-process prefix and a counter, unique without a random draw per request.
struct RequestIds {
    prefix: String,
    counter: AtomicU64,
}

impl Default for RequestIds {
    fn default() -> Self {
        Self {
            prefix: uuid::Uuid::new_v4().simple().to_string()[..8].to_owned(),
            counter: AtomicU64::new(1),
        }
    }
}

impl RequestIds {
    fn next(&self) -> HeaderValue {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix))
            .expect("hex digits and a dash are a valid header value")
    }
}
