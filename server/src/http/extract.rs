//! Extractors whose rejections come back in the API envelope.

use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::{StatusCode, header, request::Parts};
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::startup::AppState;

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

/// Where a request came from: the socket's peer, or the left-most `X-Forwarded-For` address when the settings say a
/// proxy we run sits in front.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = ApiError;

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
                ApiError::from(anyhow::anyhow!(
                    "the router was served without connect info"
                ))
            })?;
        Ok(Self(peer))
    }
}
