//! A CSV document as a download (the console's exports): `text/csv`, an attachment, never cached. The document
//! itself is written with [`crate::infra::csv::CsvWriter`], which keeps cells a spreadsheet would run as formulas
//! inert.

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// `csv` as a download named `filename` (ASCII letters, digits, `-`, `_` and `.`).
pub fn download(filename: &str, csv: String) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/csv; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        csv,
    )
        .into_response()
}
