//! The built web app (`web/dist`), embedded in the binary and served from memory.
//!
//! Every variant of every file (identity, gzip, brotli) is prepared with its headers, so a request costs a map lookup
//! and a reference-count increment. HTML pages carry `%%KILAT:…%%` placeholders that are filled from the public site
//! settings here (docs/ARCHITECTURE.md, "Runtime settings in HTML"); a page's compressed copies are made on the first
//! request that takes each, off the async threads, and kept.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use anyhow::{Context, bail};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use futures_util::future::{BoxFuture, FutureExt, Shared};
use kilat_domain::Market;
use rust_embed::RustEmbed;
use sha2::{Digest, Sha256};

use crate::claims::{self, SiteClaims};
use crate::services::Services;
use crate::settings::PublicSiteSettings;

#[derive(RustEmbed)]
#[folder = "$KILAT_WEB_DIST"]
struct Dist;

const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
const NO_CACHE: HeaderValue = HeaderValue::from_static("no-cache");
const VARY: HeaderValue = HeaderValue::from_static("accept-encoding");
const GZIP: HeaderValue = HeaderValue::from_static("gzip");
const BR: HeaderValue = HeaderValue::from_static("br");

/// One encoding of one file, with the headers that depend on the bytes.
struct Variant {
    body: Bytes,
    etag: HeaderValue,
}

impl Variant {
    /// An embedded file, with the SHA-256 rust-embed computed of it (at build time in a release build).
    fn embedded(file: rust_embed::EmbeddedFile, suffix: &str) -> Self {
        Self {
            etag: etag(&file.metadata.sha256_hash(), suffix),
            body: embedded(file.data),
        }
    }

    /// A rendered page as it is.
    fn page(body: Bytes) -> Self {
        Self {
            etag: etag(&Sha256::digest(&body), ""),
            body,
        }
    }
}

/// A compressed encoding of a file: embedded beside it (`NAME.br`, `NAME.gz`), or made from a rendered page.
enum Compressed {
    Ready(Variant),
    /// A page compressed on the first request that takes this encoding, off the async threads, then kept. Compressing
    /// every page ahead, at brotli's best quality, cost each start and each rendering of the pages about a third of a
    /// second of CPU (eight pages, 70 KB), mostly for pages and encodings nobody asked for before the next rendering.
    Deferred {
        /// The page's own tag with the encoding's suffix, so a conditional request is answered without compressing.
        etag: HeaderValue,
        page: Bytes,
        compress: fn(&[u8]) -> anyhow::Result<Bytes>,
        /// The one compression of the page, started by the first request that takes it. It runs to its end even when
        /// that request is cancelled, and every request takes its result: requests sent and dropped cannot start it
        /// again.
        done: OnceLock<Shared<BoxFuture<'static, Result<Bytes, String>>>>,
    },
}

impl Compressed {
    fn deferred(
        page: &Variant,
        compress: fn(&[u8]) -> anyhow::Result<Bytes>,
        suffix: &str,
    ) -> Self {
        let tag = page
            .etag
            .to_str()
            .expect("an ETag is ASCII")
            .trim_end_matches('"');
        Self::Deferred {
            etag: HeaderValue::from_str(&format!("{tag}{suffix}\""))
                .expect("hex is a valid header value"),
            page: page.body.clone(),
            compress,
            done: OnceLock::new(),
        }
    }

    fn etag(&self) -> &HeaderValue {
        match self {
            Self::Ready(variant) => &variant.etag,
            Self::Deferred { etag, .. } => etag,
        }
    }

    /// The bytes; `None` when a page could not be compressed (logged; it is then served as it is).
    async fn body(&self) -> Option<Bytes> {
        let (page, compress, done) = match self {
            Self::Ready(variant) => return Some(variant.body.clone()),
            Self::Deferred {
                page,
                compress,
                done,
                ..
            } => (page, *compress, done),
        };
        let made = done
            .get_or_init(|| {
                let page = page.clone();
                tokio::task::spawn_blocking(move || compress(&page).map_err(|e| format!("{e:#}")))
                    .map(|joined| joined.unwrap_or_else(|e| Err(e.to_string())))
                    .boxed()
                    .shared()
            })
            .clone()
            .await;
        match made {
            Ok(body) => Some(body),
            Err(e) => {
                tracing::error!("compressing a page: {e}");
                None
            }
        }
    }
}

fn etag(digest: &[u8], suffix: &str) -> HeaderValue {
    let etag = format!("\"{}{suffix}\"", hex::encode(&digest[..12]));
    HeaderValue::from_str(&etag).expect("hex is a valid header value")
}

/// A file as served: its encodings and the headers common to them.
struct Asset {
    identity: Variant,
    gzip: Option<Compressed>,
    br: Option<Compressed>,
    content_type: HeaderValue,
    cache_control: HeaderValue,
}

/// The served files, rendered again when the site's claims change (`crate::claims`): a request takes the current
/// set (a read lock and a reference count), an edit or the server's timer swaps in a new one.
pub struct Pages {
    current: RwLock<Arc<Assets>>,
    /// The claims' generation the pages were rendered with.
    generation: AtomicU64,
    /// One rendering at a time: the timer and an edit may both find the claims moved.
    rendering: tokio::sync::Mutex<()>,
}

impl Pages {
    /// Renders the pages with the settings and the claims stored now.
    pub fn load(services: &Services, site_claims: &SiteClaims) -> anyhow::Result<Self> {
        let generation = site_claims.generation();
        let assets = Assets::load(
            &claims::public(services, site_claims, Market::India),
            &claims::public(services, site_claims, Market::Indonesia),
        )?;
        Ok(Self {
            current: RwLock::new(Arc::new(assets)),
            generation: AtomicU64::new(generation),
            rendering: tokio::sync::Mutex::new(()),
        })
    }

    /// The files to serve now.
    pub fn current(&self) -> Arc<Assets> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Renders the HTML pages again (off the async threads) when the claims moved since they were rendered; the other
    /// files are kept as they are.
    pub async fn refresh(
        &self,
        services: &Services,
        site_claims: &SiteClaims,
    ) -> anyhow::Result<()> {
        let _one = self.rendering.lock().await;
        let generation = site_claims.generation();
        if generation == self.generation.load(Ordering::Acquire) {
            return Ok(());
        }
        let india = claims::public(services, site_claims, Market::India);
        let indonesia = claims::public(services, site_claims, Market::Indonesia);
        let current = self.current();
        let next = tokio::task::spawn_blocking(move || current.rerender(&india, &indonesia))
            .await
            .context("rendering the pages")??;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(next);
        self.generation.store(generation, Ordering::Release);
        Ok(())
    }
}

/// Which encoding the client accepts, best first.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Encoding {
    Br,
    Gzip,
    Identity,
}

/// The served files, keyed by path without the leading slash (`index.html`, `assets/site-1a2b.js`).
pub struct Assets {
    files: HashMap<String, Arc<Asset>>,
    /// `index.html` and `index.en.html`, looked up once: `/` is most of the traffic.
    home: Option<Arc<Asset>>,
    home_en: Option<Arc<Asset>>,
}

impl Assets {
    /// Loads every embedded file and renders the HTML pages with each market's public settings: `NAME.en.html`
    /// with India's, every other page with Indonesia's, and a page with no `.en.html` sibling (the borrower app's) a
    /// second time with India's under that name. Fails on an unknown placeholder.
    pub fn load(
        india: &PublicSiteSettings,
        indonesia: &PublicSiteSettings,
    ) -> anyhow::Result<Self> {
        Self::build(india, indonesia, None)
    }

    /// The same files with the HTML pages rendered again with new settings; every other file is shared with `self`.
    pub fn rerender(
        &self,
        india: &PublicSiteSettings,
        indonesia: &PublicSiteSettings,
    ) -> anyhow::Result<Self> {
        Self::build(india, indonesia, Some(self))
    }

    fn build(
        india: &PublicSiteSettings,
        indonesia: &PublicSiteSettings,
        previous: Option<&Assets>,
    ) -> anyhow::Result<Self> {
        let india = serde_json::to_value(india).context("serializing the site settings")?;
        let indonesia = serde_json::to_value(indonesia).context("serializing the site settings")?;
        let mut files = HashMap::new();
        let names: Vec<String> = Dist::iter().map(|n| n.into_owned()).collect();
        for name in &names {
            if is_precompressed_sibling(name, &names) {
                continue;
            }
            if !name.ends_with(".html")
                && let Some(asset) = previous.and_then(|p| p.files.get(name))
            {
                files.insert(name.clone(), asset.clone());
                continue;
            }
            let file = Dist::get(name).with_context(|| format!("reading embedded {name}"))?;
            let content_type = content_type(name);
            let cache_control = if name.starts_with("assets/") {
                IMMUTABLE
            } else {
                NO_CACHE
            };
            let asset = if name.ends_with(".html") {
                let html = std::str::from_utf8(&file.data)
                    .with_context(|| format!("{name} is not UTF-8"))?;
                let india_name = india_variant(name);
                let settings = if india_name.is_none() {
                    &india
                } else {
                    &indonesia
                };
                if let Some(india_name) = india_name.filter(|n| !names.contains(n)) {
                    let asset =
                        html_asset(html, &india, content_type.clone(), cache_control.clone())
                            .with_context(|| format!("rendering {name} for India"))?;
                    files.insert(india_name, Arc::new(asset));
                }
                html_asset(html, settings, content_type, cache_control)
                    .with_context(|| format!("rendering {name}"))?
            } else {
                let sibling = |ext: &str, suffix: &str| {
                    Dist::get(&format!("{name}.{ext}"))
                        .map(|f| Compressed::Ready(Variant::embedded(f, suffix)))
                };
                Asset {
                    gzip: sibling("gz", "-gz"),
                    br: sibling("br", "-br"),
                    identity: Variant::embedded(file, ""),
                    content_type,
                    cache_control,
                }
            };
            files.insert(name.clone(), Arc::new(asset));
        }
        let home = files.get("index.html").cloned();
        let home_en = files.get("index.en.html").cloned().or_else(|| home.clone());
        Ok(Self {
            files,
            home,
            home_en,
        })
    }

    /// True when the build was embedded (`make build` builds the web app first).
    pub fn has_site(&self) -> bool {
        self.files.contains_key("index.html")
    }

    /// Answers a GET or HEAD for a non-API path: the file itself, else the page of the area the path belongs to.
    pub async fn serve(&self, method: &Method, uri: &Uri, headers: &HeaderMap) -> Response {
        if method != Method::GET && method != Method::HEAD {
            let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed");
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
        let Some(asset) = self.lookup(uri) else {
            return plain(StatusCode::NOT_FOUND, "Not found");
        };
        let (variant, encoding) = match negotiate(headers) {
            Encoding::Br if asset.br.is_some() => (asset.br.as_ref(), Some(BR)),
            Encoding::Br | Encoding::Gzip if asset.gzip.is_some() => {
                (asset.gzip.as_ref(), Some(GZIP))
            }
            _ => (None, None),
        };
        let etag = variant.map_or(&asset.identity.etag, Compressed::etag);
        let not_modified = headers.get(header::IF_NONE_MATCH).is_some_and(|tags| {
            tags.as_bytes()
                .split(|b| *b == b',')
                .any(|t| t.trim_ascii() == etag.as_bytes())
        });
        let (etag, encoding, body) = match variant {
            _ if not_modified => (etag, encoding, Bytes::new()),
            Some(compressed) => match compressed.body().await {
                Some(body) => (etag, encoding, body),
                None => (&asset.identity.etag, None, asset.identity.body.clone()),
            },
            None => (etag, None, asset.identity.body.clone()),
        };
        let mut response = if not_modified {
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else if method == Method::HEAD {
            let mut r = Response::new(Body::empty());
            r.headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
            r
        } else {
            Response::new(Body::from(body))
        };
        let h = response.headers_mut();
        // Room for these and the security headers, so the map never grows while the response passes the middleware.
        h.reserve(16);
        h.insert(header::CONTENT_TYPE, asset.content_type.clone());
        h.insert(header::CACHE_CONTROL, asset.cache_control.clone());
        h.insert(header::ETAG, etag.clone());
        if asset.gzip.is_some() || asset.br.is_some() {
            h.insert(header::VARY, VARY);
        }
        if let Some(encoding) = encoding {
            h.insert(header::CONTENT_ENCODING, encoding);
        }
        response
    }

    fn lookup(&self, uri: &Uri) -> Option<&Arc<Asset>> {
        let path = uri.path();
        let india = asks_for_india(uri.query());
        let page = |base: &str| {
            if india {
                self.files
                    .get(&format!("{base}.en.html"))
                    .or_else(|| self.files.get(&format!("{base}.html")))
            } else {
                self.files.get(&format!("{base}.html"))
            }
        };
        if path == "/" {
            return if india {
                self.home_en.as_ref()
            } else {
                self.home.as_ref()
            };
        }
        let decoded = percent_encoding::percent_decode_str(path)
            .decode_utf8()
            .ok()?;
        let key = decoded.trim_start_matches('/').trim_end_matches('/');
        if key
            .split('/')
            .any(|segment| segment == ".." || segment == ".")
        {
            return None;
        }
        // A page asked for by its file name is still the market's page: `lang` decides, never the name (an Indian
        // visitor on `/index.html?lang=1` got the Indonesian lender's page, and one on `/about.en.html` without it the
        // Indian page in Indonesia).
        if let Some(base) = key
            .strip_suffix(".en.html")
            .or_else(|| key.strip_suffix(".html"))
            .filter(|base| !base.ends_with(".en"))
        {
            if base == "index" {
                return if india {
                    self.home_en.as_ref()
                } else {
                    self.home.as_ref()
                };
            }
            if let Some(asset) = page(base) {
                return Some(asset);
            }
        }
        if let Some(asset) = self.files.get(key) {
            return Some(asset);
        }
        // A missing hashed asset is a 404, never a page: a script tag must not receive HTML.
        if key.starts_with("assets/") {
            return None;
        }
        for area in ["app", "console"] {
            if key == area || key.starts_with(&format!("{area}/")) {
                return page(&format!("{area}/index"));
            }
        }
        page(key).or_else(|| page("index"))
    }
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A page rendered with one market's settings, in every encoding.
fn html_asset(
    html: &str,
    settings: &serde_json::Value,
    content_type: HeaderValue,
    cache_control: HeaderValue,
) -> anyhow::Result<Asset> {
    let identity = Variant::page(Bytes::from(
        render_placeholders(html, settings)?.into_bytes(),
    ));
    Ok(Asset {
        gzip: Some(Compressed::deferred(&identity, gzip, "-gz")),
        br: Some(Compressed::deferred(&identity, brotli, "-br")),
        identity,
        content_type,
        cache_control,
    })
}

/// `app/index.html` → `Some("app/index.en.html")`, the name India's copy of a page has; `None` for a page that is
/// already India's.
fn india_variant(name: &str) -> Option<String> {
    if name.ends_with(".en.html") {
        return None;
    }
    name.strip_suffix(".html")
        .map(|base| format!("{base}.en.html"))
}

/// The client's rule (`new URLSearchParams(search).get('lang') === '1'`): the first `lang` value, decoded, is `1`.
/// The server must choose exactly as the client does, or a page would carry the other market's company.
fn asks_for_india(query: Option<&str>) -> bool {
    // Only a part with `%` or `+` needs decoding, so the usual query costs no allocation.
    let is = |part: &str, wanted: &str| {
        part == wanted
            || (part.contains(['%', '+'])
                && percent_encoding::percent_decode_str(&part.replace('+', " "))
                    .decode_utf8()
                    .is_ok_and(|decoded| decoded == wanted))
    };
    query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .find(|(key, _)| is(key, "lang"))
        .is_some_and(|(_, value)| is(value, "1"))
}

/// `Accept-Encoding` → the best encoding offered: br, then gzip, then none. A `q=0` refuses a coding.
fn negotiate(headers: &HeaderMap) -> Encoding {
    let Some(accept) = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return Encoding::Identity;
    };
    let mut best = Encoding::Identity;
    for item in accept.split(',') {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or_default().trim();
        let refused = parts.any(|p| {
            let p = p.trim();
            p.strip_prefix("q=")
                .is_some_and(|q| q.chars().all(|c| c == '0' || c == '.'))
        });
        if refused {
            continue;
        }
        if coding.eq_ignore_ascii_case("br") {
            return Encoding::Br;
        }
        if coding.eq_ignore_ascii_case("gzip") {
            best = Encoding::Gzip;
        }
    }
    best
}

fn is_precompressed_sibling(name: &str, names: &[String]) -> bool {
    [".br", ".gz"].iter().any(|ext| {
        name.strip_suffix(ext)
            .is_some_and(|base| names.iter().any(|n| n == base))
    })
}

fn content_type(name: &str) -> HeaderValue {
    let mime = if name.ends_with(".webmanifest") {
        "application/manifest+json".to_owned()
    } else {
        let guess = mime_guess::from_path(name).first_or_octet_stream();
        let text = guess.type_() == mime_guess::mime::TEXT
            || matches!(
                guess.subtype().as_str(),
                "javascript" | "json" | "xml" | "svg"
            );
        if text {
            format!("{guess}; charset=utf-8")
        } else {
            guess.to_string()
        }
    };
    HeaderValue::from_str(&mime).unwrap_or(HeaderValue::from_static("application/octet-stream"))
}

/// Replaces `%%KILAT:path%%` with the HTML-escaped string at `path`, and `%%KILAT_SETTINGS_JSON%%` with the settings
/// as JSON safe inside a `<script type="application/json">` block.
fn render_placeholders(html: &str, settings: &serde_json::Value) -> anyhow::Result<String> {
    let json = serde_json::to_string(settings)?
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    let html = html.replace("%%KILAT_SETTINGS_JSON%%", &json);
    let mut out = String::with_capacity(html.len());
    let mut rest = html.as_str();
    while let Some(start) = rest.find("%%KILAT:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "%%KILAT:".len()..];
        let Some(end) = after.find("%%") else {
            bail!("an unterminated %%KILAT: placeholder")
        };
        let path = &after[..end];
        let value = path
            .split('.')
            .try_fold(settings, |node, key| node.get(key))
            .and_then(|v| v.as_str())
            .with_context(|| format!("the placeholder %%KILAT:{path}%% names no site setting"))?;
        out.push_str(&escape_html(value));
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An embedded file's bytes without a copy: in a release build they are in the binary already (`Cow::Borrowed`),
/// and copying the 3 MB of the build (every file in three encodings) onto the heap only doubled them in memory. A debug
/// build reads them from `web/dist` (`Cow::Owned`), which is kept as it is.
fn embedded(data: std::borrow::Cow<'static, [u8]>) -> Bytes {
    match data {
        std::borrow::Cow::Borrowed(bytes) => Bytes::from_static(bytes),
        std::borrow::Cow::Owned(bytes) => Bytes::from(bytes),
    }
}

fn gzip(data: &[u8]) -> anyhow::Result<Bytes> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(data)?;
    Ok(Bytes::from(encoder.finish()?))
}

fn brotli(data: &[u8]) -> anyhow::Result<Bytes> {
    let mut out = Vec::new();
    // A window no larger than the page: brotli's default 4 MiB window at quality 11 costs ~100 MB of memory at
    // start-up to compress a few kilobytes, and gains nothing.
    let bits = usize::BITS - data.len().max(1).leading_zeros();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        lgwin: i32::try_from(bits).unwrap_or(24).clamp(10, 24),
        size_hint: data.len(),
        ..Default::default()
    };
    brotli::BrotliCompress(&mut &data[..], &mut out, &params)?;
    Ok(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    static COMPRESSIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// A compressor that takes its time and counts its runs.
    fn slow_reverse(data: &[u8]) -> anyhow::Result<Bytes> {
        COMPRESSIONS.fetch_add(1, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(200));
        Ok(Bytes::from(data.iter().rev().copied().collect::<Vec<u8>>()))
    }

    #[tokio::test]
    async fn a_page_is_compressed_once_however_many_requests_ask_at_once_or_go_away() {
        let page = Variant::page(Bytes::from_static(b"<html>page</html>"));
        let compressed = Arc::new(Compressed::deferred(&page, slow_reverse, "-x"));
        let tag = page.etag.to_str().unwrap().trim_end_matches('"').to_owned();
        assert_eq!(compressed.etag(), &format!("{tag}-x\""));
        // Requests that start the compression and are cancelled while it runs.
        for _ in 0..5 {
            let c = compressed.clone();
            let request = tokio::spawn(async move { c.body().await });
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            request.abort();
            assert!(request.await.unwrap_err().is_cancelled());
        }
        // Then eight at once.
        let bodies = futures_util::future::join_all((0..8).map(|_| {
            let c = compressed.clone();
            tokio::spawn(async move { c.body().await })
        }))
        .await;
        for body in bodies {
            assert_eq!(body.unwrap().unwrap(), &b">lmth/<egap>lmth<"[..]);
        }
        assert_eq!(COMPRESSIONS.load(Ordering::SeqCst), 1, "compressed once");
        assert_eq!(compressed.body().await.unwrap(), &b">lmth/<egap>lmth<"[..]);
        assert_eq!(COMPRESSIONS.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn placeholders_are_filled_escaped_and_unknown_ones_refused() {
        let settings = serde_json::json!({"companyName": "A & B <Loans>", "officer": {"email": "g@x.example"}});
        let html =
            r#"<title>%%KILAT:companyName%%</title><a href="mailto:%%KILAT:officer.email%%">"#;
        assert_eq!(
            render_placeholders(html, &settings).unwrap(),
            r#"<title>A &amp; B &lt;Loans&gt;</title><a href="mailto:g@x.example">"#
        );
        assert!(render_placeholders("%%KILAT:nope%%", &settings).is_err());
    }

    #[test]
    fn the_settings_json_cannot_close_its_script_block() {
        let settings = serde_json::json!({"companyName": "</script><script>alert(1)</script>"});
        let out = render_placeholders("%%KILAT_SETTINGS_JSON%%", &settings).unwrap();
        assert!(!out.contains('<') && !out.contains('>'));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&out).unwrap(),
            settings
        );
    }

    #[test]
    fn india_is_chosen_exactly_as_the_client_chooses_it() {
        for (query, india) in [
            (None, false),
            (Some("lang=1"), true),
            (Some("sessionId=abc&lang=1"), true),
            (Some("lang=0"), false),
            (Some("lang=1&lang=2"), true),
            (Some("lang=2&lang=1"), false),
            (Some("lang=%31"), true),
            (Some("l%61ng=1"), true),
            (Some("lang=1%20"), false),
            (Some("lang"), false),
            (Some("xlang=1"), false),
        ] {
            assert_eq!(asks_for_india(query), india, "{query:?}");
        }
    }

    #[test]
    fn a_page_without_an_india_copy_gets_one_under_the_en_name() {
        assert_eq!(
            india_variant("app/index.html").as_deref(),
            Some("app/index.en.html")
        );
        assert_eq!(india_variant("index.en.html"), None);
        assert_eq!(india_variant("sw.js"), None);
    }

    #[test]
    fn encoding_prefers_brotli_then_gzip_and_honours_q_zero() {
        let with = |v: &'static str| {
            let mut h = HeaderMap::new();
            h.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(v));
            negotiate(&h)
        };
        assert_eq!(with("gzip, deflate, br"), Encoding::Br);
        assert_eq!(with("gzip"), Encoding::Gzip);
        assert_eq!(with("br;q=0, gzip"), Encoding::Gzip);
        assert_eq!(with("gzip;q=0.0"), Encoding::Identity);
        assert_eq!(negotiate(&HeaderMap::new()), Encoding::Identity);
    }
}
