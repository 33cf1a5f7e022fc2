//! CSV written for spreadsheets and bank portals, and read from banks' files (RFC 4180: comma-separated, a field with a
//! comma, quote or line break quoted, quotes doubled; CRLF line ends).
//!
//! Written text is safe to open in a spreadsheet: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
//! return (what Excel, LibreOffice and Sheets read as a formula) is prefixed with `'` (OWASP, "CSV Injection"). Numbers
//! and dates the server formats itself are written as they are ([`CsvWriter::raw`]).

/// Builds a CSV document row by row.
#[derive(Debug, Default)]
pub struct CsvWriter {
    out: String,
    fields_in_row: usize,
}

impl CsvWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// A text cell: neutralised against formulas, then quoted when needed.
    pub fn text(&mut self, value: &str) -> &mut Self {
        let safe = if value.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            format!("'{value}")
        } else {
            value.to_owned()
        };
        self.field(&safe)
    }

    /// A cell the server formatted itself (a number, a date, a code): quoted when needed, never prefixed, so that a
    /// negative amount stays a number.
    pub fn raw(&mut self, value: &str) -> &mut Self {
        self.field(value)
    }

    /// An optional text cell: empty when `None`.
    pub fn opt(&mut self, value: Option<&str>) -> &mut Self {
        self.text(value.unwrap_or_default())
    }

    fn field(&mut self, value: &str) -> &mut Self {
        if self.fields_in_row > 0 {
            self.out.push(',');
        }
        if value.contains([',', '"', '\n', '\r']) {
            self.out.push('"');
            self.out.push_str(&value.replace('"', "\"\""));
            self.out.push('"');
        } else {
            self.out.push_str(value);
        }
        self.fields_in_row += 1;
        self
    }

    /// Ends the row.
    pub fn end_row(&mut self) -> &mut Self {
        self.out.push_str("\r\n");
        self.fields_in_row = 0;
        self
    }

    /// A whole row of text cells.
    pub fn header(&mut self, names: &[&str]) -> &mut Self {
        for name in names {
            self.text(name);
        }
        self.end_row()
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// Why a CSV document could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CsvError {
    /// A quoted field not closed before the end.
    UnclosedQuote { line: usize },
    /// A quote inside an unquoted field, or text after a closing quote.
    StrayQuote { line: usize },
}

/// The records of a CSV document, each with the line it starts on (from 1). Accepts CRLF or LF line ends and a
/// leading UTF-8 byte-order mark; a blank line is skipped.
pub fn parse(text: &str) -> Result<Vec<(usize, Vec<String>)>, CsvError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut records = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    let mut after_quote = false;
    let mut line = 1;
    let mut record_line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    in_quotes = false;
                    after_quote = true;
                }
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            ',' => {
                record.push(std::mem::take(&mut field));
                after_quote = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' => {
                record.push(std::mem::take(&mut field));
                if !(record.len() == 1 && record[0].trim().is_empty()) {
                    records.push((record_line, std::mem::take(&mut record)));
                }
                record.clear();
                after_quote = false;
                line += 1;
                record_line = line;
            }
            '"' if field.is_empty() && !after_quote => in_quotes = true,
            '"' => return Err(CsvError::StrayQuote { line }),
            _ if after_quote && !c.is_whitespace() => return Err(CsvError::StrayQuote { line }),
            _ if after_quote => {}
            _ => field.push(c),
        }
    }
    if in_quotes {
        return Err(CsvError::UnclosedQuote { line: record_line });
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        if !(record.len() == 1 && record[0].trim().is_empty()) {
            records.push((record_line, record));
        }
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_special_characters_quoted() {
        let mut w = CsvWriter::new();
        w.text("=HYPERLINK(\"x\")")
            .text("+1")
            .text("-2")
            .text("@SUM(A1)")
            .text("a,b")
            .text("say \"hi\"")
            .raw("-12.50")
            .end_row();
        assert_eq!(
            w.finish(),
            "\"'=HYPERLINK(\"\"x\"\")\",'+1,'-2,'@SUM(A1),\"a,b\",\"say \"\"hi\"\"\",-12.50\r\n"
        );
    }

    #[test]
    fn what_is_written_reads_back() {
        let mut w = CsvWriter::new();
        w.header(&["name", "note"]);
        w.text("Asha, \"A\" Verma").text("two\nlines").end_row();
        let records = parse(&w.finish()).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].0, 2);
        assert_eq!(records[1].1, vec!["Asha, \"A\" Verma", "two\nlines"]);
    }

    #[test]
    fn lf_bom_blank_lines_and_a_missing_last_line_end_are_read() {
        let records = parse("\u{feff}a,b\n\n1,2\n3,").unwrap();
        assert_eq!(
            records,
            vec![
                (1, vec!["a".to_owned(), "b".to_owned()]),
                (3, vec!["1".to_owned(), "2".to_owned()]),
                (4, vec!["3".to_owned(), String::new()]),
            ]
        );
    }

    #[test]
    fn broken_quotes_are_refused_with_their_line() {
        assert_eq!(
            parse("a,b\n\"open,1\n"),
            Err(CsvError::UnclosedQuote { line: 2 })
        );
        assert_eq!(
            parse("a,b\nx\"y,1\n"),
            Err(CsvError::StrayQuote { line: 2 })
        );
    }
}
