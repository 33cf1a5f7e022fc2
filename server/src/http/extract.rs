//! Extractors whose rejections come back in the API envelope.

use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use serde::Deserializer;
use serde::de::{self, DeserializeOwned, Unexpected, Visitor};

use super::error::{ApiError, LocalizedError};
use super::lang::Lang;
use crate::startup::AppState;

/// A body read as JSON or as `application/x-www-form-urlencoded`, whichever the request says it is (PRODUCT.md §4:
/// the original's second client sends forms).
pub struct JsonOrForm<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonOrForm<T> {
    type Rejection = LocalizedError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let lang = Lang::from_headers(req.headers());
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
            return Err(ApiError::UnsupportedMediaType.in_lang(lang));
        };
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge.in_lang(lang)
            } else {
                ApiError::BadRequest(rejection.body_text()).in_lang(lang)
            }
        })?;
        let parsed = match kind {
            Kind::Json => serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
            Kind::Form => serde_urlencoded::from_bytes(&bytes).map_err(|e| e.to_string()),
        };
        parsed
            .map(JsonOrForm)
            .map_err(|detail| ApiError::BadRequest(detail).in_lang(lang))
    }
}

/// A query string read like axum's `Query`, but refused in the API envelope: a malformed one (a repeated field, a
/// value of the wrong type) is a 400 `bad_request`, not a plain-text answer.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = LocalizedError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        serde_urlencoded::from_str(parts.uri.query().unwrap_or_default())
            .map(ApiQuery)
            .map_err(|e| {
                ApiError::BadRequest(format!("query string: {e}"))
                    .in_lang(Lang::from_headers(&parts.headers))
            })
    }
}

/// Reads an optional whole number the way JSON Schema's `integer` means it: `5000`, `5000.0` (a number with no
/// fraction, which JSON libraries may write) or, from a form, `"5000"`. Anything else is a 400 `bad_request`.
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

/// Where a request came from: the socket's peer, or the left-most `X-Forwarded-For` address when the settings say a
/// proxy we run sits in front.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = LocalizedError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if state.trust_forwarded_for {
            let forwarded = parts
                .headers
                .get("x-forwarded-for")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.split(',').next())
                .and_then(|v| v.trim().parse::<IpAddr>().ok());
            if let Some(ip) = forwarded {
                return Ok(Self(ip));
            }
        }
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| addr.ip())
            .ok_or_else(|| {
                ApiError::Internal(anyhow::anyhow!(
                    "the router was served without connect info"
                ))
                .in_lang(Lang::from_headers(&parts.headers))
            })?;
        Ok(Self(peer))
    }
}
