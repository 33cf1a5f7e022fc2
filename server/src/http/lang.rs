//! The language of a request's messages: English for India, Indonesian otherwise (PRODUCT.md §1).

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::{HeaderMap, header, request::Parts};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Id,
}

impl Lang {
    /// `Accept-Language` starting with `en` means English; anything else, or nothing, Indonesian (the default market).
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let english = headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("en"));
        if english { Self::En } else { Self::Id }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Lang {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self::from_headers(&parts.headers))
    }
}
