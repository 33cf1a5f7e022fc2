//! The request's language as an extractor, for answers that are written in it (the agreement, the privacy policy).

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::{header, request::Parts};

use crate::i18n::Lang;

impl<S: Send + Sync> FromRequestParts<S> for Lang {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Lang::from_accept_language(
            parts
                .headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        ))
    }
}
