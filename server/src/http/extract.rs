//! Extractors whose rejections come back in the API envelope.

use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use serde::Deserializer;
use serde::de::{self, DeserializeOwned, Unexpected, Visitor};

use super::error::ApiError;
use crate::http::AppState;

/// A body read as JSON or as `application/x-www-form-urlencoded`, whichever the request says it is (PRODUCT.md §4:
/// the original's second client sends forms).
pub struct JsonOrForm<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonOrForm<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .to_ascii_lowercase()
            })
            .unwrap_or_default();
        enum Kind {
            Json,
            Form,
        }
        let kind = if content_type == "application/json" || content_type.ends_with("+json") {
            Kind::Json
        } else if content_type == "application/x-www-form-urlencoded" {
            Kind::Form
        } else {
            return Err(ApiError::UnsupportedMediaType);
        };
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::BadRequest(rejection.body_text())
            }
        })?;
        let parsed = match kind {
            Kind::Json => serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
            Kind::Form => serde_urlencoded::from_bytes(&bytes).map_err(|e| e.to_string()),
        };
        parsed.map(JsonOrForm).map_err(ApiError::BadRequest)
    }
}

/// A query string read like axum's `Query`, but refused in the API envelope: a malformed one (a repeated field, a
/// value of the wrong type) is a 400 `bad_request`, not a plain-text answer.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        serde_urlencoded::from_str(parts.uri.query().unwrap_or_default())
            .map(ApiQuery)
            .map_err(|e| ApiError::BadRequest(format!("query string: {e}")))
    }
}

/// Reads an optional whole number the way JSON Schema's `integer` means it: `5000`, `5000.0` (a number with no
/// fraction, which JSON libraries may write) or, from a form, `"5000"`. Anything else is a 400 `bad_request`.
/// The value of the cookie `name` in the request's `Cookie` headers; `None` when missing or empty.
pub fn cookie<'h>(headers: &'h axum::http::HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, value)| value.trim())
        .filter(|v| !v.is_empty())
}

pub fn whole_number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i64>, D::Error> {
    struct Whole;

    impl<'de> Visitor<'de> for Whole {
        type Value = Option<i64>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a whole number")
        }

        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(Whole)
        }

        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }

        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            i64::try_from(v)
                .map(Some)
                .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
        }

        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            // 2^63 is exact in f64; every whole f64 in [-2^63, 2^63) is an i64.
            const LIMIT: f64 = 9_223_372_036_854_775_808.0;
            if v.fract() == 0.0 && (-LIMIT..LIMIT).contains(&v) {
                Ok(Some(v as i64))
            } else {
                Err(E::invalid_value(Unexpected::Float(v), &self))
            }
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            v.trim()
                .parse()
                .map(Some)
                .map_err(|_| E::invalid_value(Unexpected::Str(v), &self))
        }
    }

    deserializer.deserialize_option(Whole)
}

/// Where a request came from: the socket's peer, or, behind `trusted_proxy_hops` proxies of ours, the address the
/// outermost of them saw (see `client_from_forwarded`).
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if state.trusted_proxy_hops > 0 {
            let forwarded = parts
                .headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok());
            if let Some(ip) = client_from_forwarded(forwarded, state.trusted_proxy_hops) {
                return Ok(Self(ip));
            }
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .ok_or_else(|| {
                ApiError::from(anyhow::anyhow!(
                    "the router was served without connect info"
                ))
            })?;
        Ok(Self(peer))
    }
}

/// The client's address in `X-Forwarded-For` behind `hops` proxies we run: the `hops`-th entry from the right.
///
/// Each proxy appends the address of whoever connected to it, so the right-most `hops` entries were written by our
/// proxies and the one furthest left of them is what the outermost proxy saw: the client. Anything to its left came
/// from the client and proves nothing (taking the left-most entry let any client choose its address, and with it
/// its rate-limit bucket). Several header lines count as one list, in order. `None` when there are fewer entries than
/// hops (the request did not come through all our proxies) or the entry is not an address: the caller uses the peer.
pub fn client_from_forwarded<'a>(
    values: impl IntoIterator<Item = &'a str>,
    hops: u32,
) -> Option<IpAddr> {
    let hops = usize::try_from(hops).ok().filter(|h| *h > 0)?;
    let entries: Vec<&str> = values
        .into_iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let entry = entries.len().checked_sub(hops).map(|i| entries[i])?;
    // Some proxies write a port: `203.0.113.7:51234`, `[2001:db8::1]:51234`.
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

#[cfg(test)]
mod tests {
    use super::client_from_forwarded;

    fn client(values: &[&str], hops: u32) -> Option<String> {
        client_from_forwarded(values.iter().copied(), hops).map(|ip| ip.to_string())
    }

    #[test]
    fn one_proxy_takes_the_right_most_entry_not_the_one_the_client_wrote() {
        // The client sent `X-Forwarded-For: 1.2.3.4`; our proxy appended the address it saw.
        assert_eq!(
            client(&["1.2.3.4, 203.0.113.7"], 1).as_deref(),
            Some("203.0.113.7")
        );
        assert_eq!(client(&["203.0.113.7"], 1).as_deref(), Some("203.0.113.7"));
    }

    #[test]
    fn n_proxies_take_the_nth_entry_from_the_right_across_header_lines() {
        let values = ["9.9.9.9, 203.0.113.7", "10.0.0.2"];
        assert_eq!(client(&values, 2).as_deref(), Some("203.0.113.7"));
        assert_eq!(client(&values, 3).as_deref(), Some("9.9.9.9"));
    }

    #[test]
    fn too_few_entries_no_hops_or_garbage_give_nothing_so_the_peer_is_used() {
        assert_eq!(client(&["203.0.113.7"], 2), None);
        assert_eq!(client(&[], 1), None);
        assert_eq!(client(&["203.0.113.7"], 0), None);
        assert_eq!(client(&["1.2.3.4, unknown"], 1), None);
    }

    #[test]
    fn an_entry_with_a_port_gives_its_address() {
        assert_eq!(
            client(&["[2001:db8::1]:51234"], 1).as_deref(),
            Some("2001:db8::1")
        );
        assert_eq!(
            client(&["203.0.113.7:51234"], 1).as_deref(),
            Some("203.0.113.7")
        );
    }
}
