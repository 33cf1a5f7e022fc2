//! CSV answers for the console's exports: RFC 4180 quoting, and every cell that a spreadsheet would read as a formula
//! (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) prefixed with `'` so that opening an export never runs
//! what a borrower or an operator typed (CSV injection, OWASP).

use axum::http::header;
use axum::response::{IntoResponse, Response};

/// A CSV document built row by row.
#[derive(Debug, Default)]
pub struct Csv {
    text: String,
}

impl Csv {
    pub fn with_header(columns: &[&str]) -> Csv {
        let mut csv = Csv::default();
        csv.row(columns.iter().copied());
        csv
    }

    /// Appends one row.
    pub fn row<'a>(&mut self, cells: impl IntoIterator<Item = &'a str>) {
        for (i, cell) in cells.into_iter().enumerate() {
            if i > 0 {
                self.text.push(',');
            }
            push_cell(&mut self.text, cell);
        }
        self.text.push_str("\r\n");
    }

    /// The document as a download named `filename` (ASCII letters, digits, `-`, `_` and `.`).
    pub fn download(self, filename: &str) -> Response {
        (
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{filename}\""),
                ),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
            self.text,
        )
            .into_response()
    }
}

fn push_cell(out: &mut String, cell: &str) {
    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let quoted = formula || cell.contains([',', '"', '\n', '\r']);
    if quoted {
        out.push('"');
    }
    if formula {
        out.push('\'');
    }
    for c in cell.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    if quoted {
        out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(cells: &[&str]) -> String {
        let mut csv = Csv::default();
        csv.row(cells.iter().copied());
        csv.text
    }

    #[test]
    fn cells_are_quoted_only_when_they_need_it() {
        assert_eq!(line(&["a", "b c", ""]), "a,b c,\r\n");
        assert_eq!(
            line(&["1,5", "say \"hi\"", "two\nlines"]),
            "\"1,5\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n"
        );
    }

    #[test]
    fn a_cell_a_spreadsheet_would_run_as_a_formula_is_text() {
        for cell in [
            "=1+1",
            "+91",
            "-5",
            "@SUM(A1)",
            "\tx",
            "=HYPERLINK(\"http://x\")",
        ] {
            let out = line(&[cell]);
            assert!(out.starts_with("\"'"), "{cell:?} → {out:?}");
        }
        assert_eq!(line(&["=A1"]), "\"'=A1\"\r\n");
    }
}
