//! A bank statement as CSV, read with a bank's mapping: which column holds the date, the amount (one signed column,
//! or credit and debit apart), the reference (the UTR) and the narration; the date format; the number format (India
//! `1,00,000.50`, Indonesia `1.000.000,50`); the header rows to skip. Pure: no I/O. Every refusal names the line, the
//! column and why.

use kilat_domain::Market;
use time::{Date, Month};

/// The most bytes a statement may have.
pub const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// The most lines (after the header rows) a statement may have.
pub const MAX_LINES: usize = 5_000;
/// The most columns a mapping may name (a column number above it is refused).
pub const MAX_COLUMNS: usize = 50;
/// The most header rows a mapping may skip.
pub const MAX_SKIP_ROWS: usize = 50;
/// The longest reference kept.
pub const MAX_REFERENCE_CHARS: usize = 100;
/// The longest narration kept.
pub const MAX_NARRATION_CHARS: usize = 500;

/// The date formats a mapping may name.
pub const DATE_FORMATS: &[&str] = &[
    "dd/mm/yyyy",
    "dd-mm-yyyy",
    "dd.mm.yyyy",
    "yyyy-mm-dd",
    "mm/dd/yyyy",
    "dd/mm/yy",
    "dd-mmm-yyyy",
    "dd mmm yyyy",
    "dd-mmm-yy",
    "dd/mmm/yyyy",
];

/// Where the money of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AmountColumns {
    /// One column: a credit is positive (or ends in `CR`), a debit negative, in brackets, or ends in `DR`.
    Signed(usize),
    /// Credits in one column, debits (if any) in another; the empty one is the other direction.
    Split { credit: usize, debit: Option<usize> },
}

/// How a bank's statement reads. Columns are 1-based.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub market: Market,
    pub delimiter: char,
    pub skip_rows: usize,
    pub date_column: usize,
    pub date_format: String,
    pub amount: AmountColumns,
    pub reference_column: usize,
    pub narration_column: Option<usize>,
    pub decimal_separator: char,
    /// None: digits only.
    pub thousands_separator: Option<char>,
}

/// One line of the statement, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line of the file it starts on (1-based, header rows counted).
    pub line_no: usize,
    pub date: Date,
    /// Minor units, above zero.
    pub amount: i64,
    pub credit: bool,
    /// As printed, trimmed.
    pub reference: String,
    pub narration: String,
}

/// Why a line could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub line_no: usize,
    /// 1-based; none for a problem of the whole line (unbalanced quotes).
    pub column: Option<usize>,
    /// `date`, `amount`, `credit`, `debit`, `reference`, `narration`, or `line`.
    pub field: &'static str,
    /// A catalog key (`statement.…`).
    pub problem: &'static str,
    /// The cell as read (cut to 40 characters).
    pub value: String,
}

/// What a whole file read to.
#[derive(Debug, Default)]
pub struct Parsed {
    pub lines: Vec<Line>,
    pub errors: Vec<LineError>,
}

/// Refusals of the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileProblem {
    Empty,
    TooLarge,
    TooManyLines,
    NotText,
}

/// Reads `content` with `layout`: every data line (after `skip_rows`, blank lines left out) to a [`Line`] or a
/// [`LineError`]. `limit` stops after that many data lines (a preview).
pub fn parse(content: &str, layout: &Layout, limit: Option<usize>) -> Result<Parsed, FileProblem> {
    if content.len() > MAX_FILE_BYTES {
        return Err(FileProblem::TooLarge);
    }
    if content.contains('\0') {
        return Err(FileProblem::NotText);
    }
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let records = records(content, layout.delimiter);
    let mut out = Parsed::default();
    let mut data_lines = 0usize;
    for record in records.into_iter().skip(layout.skip_rows) {
        let (line_no, cells) = match record {
            Ok(r) => r,
            Err(line_no) => {
                out.errors.push(LineError {
                    line_no,
                    column: None,
                    field: "line",
                    problem: "statement.unbalanced_quotes",
                    value: String::new(),
                });
                data_lines += 1;
                continue;
            }
        };
        if cells.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        data_lines += 1;
        if limit.is_some_and(|l| data_lines > l) {
            break;
        }
        if data_lines > MAX_LINES {
            return Err(FileProblem::TooManyLines);
        }
        match read_line(line_no, &cells, layout) {
            Ok(line) => out.lines.push(line),
            Err(e) => out.errors.push(e),
        }
    }
    // Rupiah payments are whole. A few credits with sen are the bank's own lines (its interest, the tax on it): kept,
    // they match no payment. Every credit with sen is the layout reading the amounts wrong (the decimal mark taken for
    // the thousands separator): refused at the first, as before any line is stored.
    let mut credits = out.lines.iter().filter(|l| l.credit).peekable();
    if market_whole_units(layout.market)
        && credits.peek().is_some()
        && credits.clone().all(|l| l.amount % 100 != 0)
        && let Some(first) = credits.next()
    {
        let column = match layout.amount {
            AmountColumns::Signed(c) => c,
            AmountColumns::Split { credit, .. } => credit,
        };
        out.errors.push(LineError {
            line_no: first.line_no,
            column: Some(column),
            field: "amount",
            problem: "statement.whole_rupiah",
            value: String::new(),
        });
    }
    if data_lines == 0 {
        return Err(FileProblem::Empty);
    }
    Ok(out)
}

/// The first `n` rows of a file (header rows included) as cells, each cut to 60 characters; a row whose quote
/// never closes ends the list.
pub fn first_rows(content: &str, delimiter: char, n: usize) -> Vec<Vec<String>> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    // Enough of the file for `n` rows, however long a quoted cell runs.
    let mut end = content.len().min(64 * 1024);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    records(&content[..end], delimiter)
        .into_iter()
        .map_while(Result::ok)
        .filter(|(_, cells)| cells.iter().any(|c| !c.trim().is_empty()))
        .take(n)
        .map(|(_, cells)| {
            cells
                .into_iter()
                .take(MAX_COLUMNS)
                .map(|c| c.trim().chars().take(60).collect())
                .collect()
        })
        .collect()
}

/// The file's records as (first line number, cells), RFC 4180 quoting; a record whose quote never closes is
/// `Err(line number)` and ends the file.
fn records(content: &str, delimiter: char) -> Vec<Result<(usize, Vec<String>), usize>> {
    let mut out = Vec::new();
    let mut chars = content.chars().peekable();
    let mut line = 1usize;
    while chars.peek().is_some() {
        let start = line;
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut quoted = false;
        let mut at_start = true;
        let mut closed = true;
        loop {
            let Some(c) = chars.next() else {
                if quoted {
                    closed = false;
                }
                cells.push(std::mem::take(&mut cell));
                break;
            };
            if quoted {
                if c == '\u{22}' {
                    if chars.peek() == Some(&'\u{22}') {
                        chars.next();
                        cell.push('\u{22}');
                    } else {
                        quoted = false;
                    }
                } else {
                    if c == '\n' {
                        line += 1;
                    }
                    cell.push(c);
                }
                continue;
            }
            if c == '\u{22}' && at_start {
                quoted = true;
                at_start = false;
            } else if c == delimiter {
                cells.push(std::mem::take(&mut cell));
                at_start = true;
            } else if c == '\r' && chars.peek() == Some(&'\n') {
                continue;
            } else if c == '\n' || c == '\r' {
                line += 1;
                cells.push(std::mem::take(&mut cell));
                break;
            } else {
                cell.push(c);
                at_start = at_start && c == ' ';
            }
        }
        if !closed {
            out.push(Err(start));
            break;
        }
        out.push(Ok((start, cells)));
    }
    out
}

fn read_line(line_no: usize, cells: &[String], layout: &Layout) -> Result<Line, LineError> {
    let error =
        |column: usize, field: &'static str, problem: &'static str, value: &str| LineError {
            line_no,
            column: Some(column),
            field,
            problem,
            value: value.chars().take(40).collect(),
        };
    let cell = |column: usize, field: &'static str| -> Result<&str, LineError> {
        cells
            .get(column - 1)
            .map(|c| c.trim())
            .ok_or_else(|| error(column, field, "statement.missing_column", ""))
    };
    let date_text = cell(layout.date_column, "date")?;
    let date = parse_date(date_text, &layout.date_format)
        .ok_or_else(|| error(layout.date_column, "date", "statement.bad_date", date_text))?;
    let (amount, credit) = match layout.amount {
        AmountColumns::Signed(column) => {
            let text = cell(column, "amount")?;
            let (minor, credit) = parse_signed(text, layout)
                .ok_or_else(|| error(column, "amount", "statement.bad_amount", text))?;
            (minor, credit)
        }
        AmountColumns::Split { credit, debit } => {
            let credit_text = cell(credit, "credit")?;
            let debit_text = match debit {
                Some(column) => cell(column, "debit")?,
                None => "",
            };
            let credit_amount = parse_optional(credit_text, layout)
                .ok_or_else(|| error(credit, "credit", "statement.bad_amount", credit_text))?;
            let debit_amount = match debit {
                Some(column) => parse_optional(debit_text, layout)
                    .ok_or_else(|| error(column, "debit", "statement.bad_amount", debit_text))?,
                None => None,
            };
            match (credit_amount, debit_amount) {
                (Some(c), None) => (c, true),
                (None, Some(d)) => (d, false),
                (None, None) => {
                    return Err(error(credit, "credit", "statement.no_amount", credit_text));
                }
                (Some(_), Some(_)) => {
                    return Err(error(
                        credit,
                        "credit",
                        "statement.both_amounts",
                        credit_text,
                    ));
                }
            }
        }
    };
    if amount == 0 {
        let column = match layout.amount {
            AmountColumns::Signed(c) => c,
            AmountColumns::Split { credit, .. } => credit,
        };
        return Err(error(column, "amount", "statement.zero_amount", "0"));
    }
    let reference = cell(layout.reference_column, "reference")?;
    if reference.chars().count() > MAX_REFERENCE_CHARS {
        return Err(error(
            layout.reference_column,
            "reference",
            "statement.too_long",
            reference,
        ));
    }
    let narration = match layout.narration_column {
        Some(column) => {
            let text = cell(column, "narration")?;
            if text.chars().count() > MAX_NARRATION_CHARS {
                return Err(error(column, "narration", "statement.too_long", text));
            }
            text
        }
        None => "",
    };
    Ok(Line {
        line_no,
        date,
        amount,
        credit,
        reference: reference.to_owned(),
        narration: narration.to_owned(),
    })
}

/// Indonesian payments are whole rupiah (docs/MONEY.md).
fn market_whole_units(market: Market) -> bool {
    market == Market::Indonesia
}

/// A cell of a credit or debit column: empty (or a lone `-`, or zero) is none.
fn parse_optional(text: &str, layout: &Layout) -> Option<Option<i64>> {
    let text = text.trim();
    if text.is_empty() || text == "-" {
        return Some(None);
    }
    let (minor, credit) = parse_signed(text, layout)?;
    if !credit {
        return None;
    }
    Some((minor != 0).then_some(minor))
}

/// A signed amount: (minor units, credit). Currency marks (`₹`, `Rs`, `Rp`, `INR`, `IDR`) are dropped; a leading
/// `-`, brackets, or a trailing `DR`/`DB`/`D` make it a debit; a trailing `CR`/`Cr`/`C` a credit.
pub fn parse_signed(text: &str, layout: &Layout) -> Option<(i64, bool)> {
    let mut t = text.trim().to_owned();
    let mut credit = true;
    let upper = t.to_ascii_uppercase();
    for (suffix, is_credit) in [
        ("DR", false),
        ("DB", false),
        ("CR", true),
        ("D", false),
        ("C", true),
    ] {
        if upper.ends_with(suffix)
            && upper[..upper.len() - suffix.len()]
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_digit() || c == ' ' || c == ')')
        {
            t.truncate(t.len() - suffix.len());
            credit = is_credit;
            break;
        }
    }
    let mut t = t.trim().to_owned();
    if t.starts_with('(') && t.ends_with(')') {
        t = t[1..t.len() - 1].trim().to_owned();
        credit = false;
    }
    if let Some(rest) = t.strip_prefix('-') {
        t = rest.trim().to_owned();
        credit = false;
    } else if let Some(rest) = t.strip_prefix('+') {
        t = rest.trim().to_owned();
    }
    for mark in ["₹", "RS.", "RS", "RP.", "RP", "INR", "IDR"] {
        if t.to_ascii_uppercase().starts_with(mark) {
            t = t[mark.len()..].trim().to_owned();
            break;
        }
    }
    if let Some(rest) = t.strip_prefix('-') {
        t = rest.trim().to_owned();
        credit = false;
    }
    parse_number(&t, layout.decimal_separator, layout.thousands_separator).map(|m| (m, credit))
}

/// A non-negative number with at most two decimals, to hundredths (minor units). Grouping separators must sit
/// between digits (Indian `1,00,000` and Western `100,000` both read).
pub fn parse_number(text: &str, decimal: char, thousands: Option<char>) -> Option<i64> {
    if text.is_empty() {
        return None;
    }
    let (whole, fraction) = match text.split_once(decimal) {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    let mut units: i64 = 0;
    let mut digits = 0;
    // Digits since the last grouping separator, and whether one was seen: a group after a separator has 2 digits
    // (Indian lakhs and crores) or 3, and the last one 3.
    let mut group = 0;
    let mut grouped = false;
    for c in whole.chars() {
        if c.is_ascii_digit() {
            units = units
                .checked_mul(10)?
                .checked_add(i64::from(c as u8 - b'0'))?;
            digits += 1;
            group += 1;
        } else if Some(c) == thousands {
            let fits = if grouped {
                matches!(group, 2 | 3)
            } else {
                (1..=3).contains(&group)
            };
            if !fits {
                return None;
            }
            grouped = true;
            group = 0;
        } else {
            return None;
        }
    }
    if grouped && group != 3 {
        return None;
    }
    if digits == 0 {
        return None;
    }
    let hundredths = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 2 && f.bytes().all(|b| b.is_ascii_digit()) => {
            let n: i64 = f.parse().ok()?;
            if f.len() == 1 { n * 10 } else { n }
        }
        Some(_) => return None,
    };
    units.checked_mul(100)?.checked_add(hundredths)
}

/// A date in `format` (one of [`DATE_FORMATS`]); a time after it (`27/11/2026 10:22`) is ignored. Month names in
/// English or Indonesian (`Mei`, `Agu`, `Okt`, `Des`).
pub fn parse_date(text: &str, format: &str) -> Option<Date> {
    let text = text.trim();
    let mut rest = text;
    let (mut day, mut month, mut year) = (None, None, None);
    let mut fmt = format;
    while !fmt.is_empty() {
        if let Some(f) = fmt.strip_prefix("yyyy") {
            let (n, r) = take_digits(rest, 4, 4)?;
            year = Some(n as i32);
            (rest, fmt) = (r, f);
        } else if let Some(f) = fmt.strip_prefix("yy") {
            let (n, r) = take_digits(rest, 2, 2)?;
            year = Some(2000 + n as i32);
            (rest, fmt) = (r, f);
        } else if let Some(f) = fmt.strip_prefix("mmm") {
            let letters: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
            month = Some(month_named(&letters)?);
            (rest, fmt) = (&rest[letters.len()..], f);
        } else if let Some(f) = fmt.strip_prefix("mm") {
            let (n, r) = take_digits(rest, 1, 2)?;
            month = Some(Month::try_from(u8::try_from(n).ok()?).ok()?);
            (rest, fmt) = (r, f);
        } else if let Some(f) = fmt.strip_prefix("dd") {
            let (n, r) = take_digits(rest, 1, 2)?;
            day = Some(u8::try_from(n).ok()?);
            (rest, fmt) = (r, f);
        } else {
            let sep = fmt.chars().next()?;
            rest = rest.strip_prefix(sep)?;
            fmt = &fmt[sep.len_utf8()..];
        }
    }
    if !(rest.is_empty() || rest.starts_with(' ') || rest.starts_with('T')) {
        return None;
    }
    Date::from_calendar_date(year?, month?, day?).ok()
}

fn take_digits(text: &str, min: usize, max: usize) -> Option<(u32, &str)> {
    let n = text
        .bytes()
        .take(max)
        .take_while(u8::is_ascii_digit)
        .count();
    if n < min {
        return None;
    }
    Some((text[..n].parse().ok()?, &text[n..]))
}

fn month_named(name: &str) -> Option<Month> {
    let lower = name.to_ascii_lowercase();
    let key = lower.get(..3)?;
    Some(match key {
        "jan" => Month::January,
        "feb" | "peb" => Month::February,
        "mar" => Month::March,
        "apr" => Month::April,
        "may" | "mei" => Month::May,
        "jun" => Month::June,
        "jul" => Month::July,
        "aug" | "agu" | "agt" => Month::August,
        "sep" => Month::September,
        "oct" | "okt" => Month::October,
        "nov" => Month::November,
        "dec" | "des" => Month::December,
        _ => return None,
    })
}

/// The UTRs a line may carry: its reference as printed (spaces dropped, in capitals), then each word of the
/// reference and the narration shaped like a UTR (12 digits; 16 or 22 letters and digits), without repeats.
pub fn utr_candidates(reference: &str, narration: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let whole: String = reference
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_uppercase();
    if !whole.is_empty() {
        out.push(whole);
    }
    for text in [reference, narration] {
        for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            let word = word.to_ascii_uppercase();
            let shaped = (word.len() == 12 && word.bytes().all(|b| b.is_ascii_digit()))
                || (matches!(word.len(), 16 | 22)
                    && word.bytes().any(|b| b.is_ascii_digit())
                    && word.bytes().all(|b| b.is_ascii_alphanumeric()));
            if shaped && !out.contains(&word) {
                out.push(word);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn indian() -> Layout {
        Layout {
            market: Market::India,
            delimiter: ',',
            skip_rows: 1,
            date_column: 1,
            date_format: "dd/mm/yyyy".into(),
            amount: AmountColumns::Split {
                credit: 5,
                debit: Some(4),
            },
            reference_column: 3,
            narration_column: Some(2),
            decimal_separator: '.',
            thousands_separator: Some(','),
        }
    }

    #[test]
    fn indian_numbers_read_in_lakhs_and_thousands() {
        assert_eq!(
            parse_number("1,00,000.50", '.', Some(',')),
            Some(10_000_050)
        );
        assert_eq!(parse_number("100,000.5", '.', Some(',')), Some(10_000_050));
        assert_eq!(parse_number("6891", '.', Some(',')), Some(689_100));
        assert_eq!(parse_number("6,891.123", '.', Some(',')), None);
        assert_eq!(parse_number(",6891", '.', Some(',')), None);
        assert_eq!(parse_number("6,,891", '.', Some(',')), None);
        assert_eq!(parse_number("12a", '.', Some(',')), None);
        assert_eq!(parse_number("6,89", '.', Some(',')), None);
        assert_eq!(parse_number("1234,567", '.', Some(',')), None);
        assert_eq!(parse_number("99999999999999999999", '.', None), None);
    }

    #[test]
    fn indonesian_numbers_use_dots_for_thousands_and_a_comma_for_decimals() {
        assert_eq!(
            parse_number("3.180.000,00", ',', Some('.')),
            Some(318_000_000)
        );
        assert_eq!(parse_number("3.180.000", ',', Some('.')), Some(318_000_000));
        assert_eq!(parse_number("3,180,000", ',', Some('.')), None);
        assert_eq!(parse_number("15.000.00", ',', Some('.')), None);
    }

    #[test]
    fn signs_brackets_and_cr_dr_marks() {
        let l = indian();
        assert_eq!(parse_signed("₹6,891.00 CR", &l), Some((689_100, true)));
        assert_eq!(parse_signed("6,891.00 Dr", &l), Some((689_100, false)));
        assert_eq!(parse_signed("-500", &l), Some((50_000, false)));
        assert_eq!(parse_signed("(500.25)", &l), Some((50_025, false)));
        assert_eq!(parse_signed("INR 500", &l), Some((50_000, true)));
        assert_eq!(parse_signed("500.00 DB", &l), Some((50_000, false)));
    }

    #[test]
    fn dates_in_each_format() {
        let d = Date::from_calendar_date(2026, Month::November, 27).unwrap();
        assert_eq!(parse_date("27/11/2026", "dd/mm/yyyy"), Some(d));
        assert_eq!(parse_date("27/11/2026 10:22:01", "dd/mm/yyyy"), Some(d));
        assert_eq!(parse_date("2026-11-27", "yyyy-mm-dd"), Some(d));
        assert_eq!(parse_date("27-Nov-2026", "dd-mmm-yyyy"), Some(d));
        assert_eq!(parse_date("27 Nov 2026", "dd mmm yyyy"), Some(d));
        assert_eq!(parse_date("27-Nov-26", "dd-mmm-yy"), Some(d));
        assert_eq!(parse_date("11/27/2026", "mm/dd/yyyy"), Some(d));
        let des = Date::from_calendar_date(2026, Month::December, 5).unwrap();
        assert_eq!(parse_date("05 Des 2026", "dd mmm yyyy"), Some(des));
        assert_eq!(parse_date("31/02/2026", "dd/mm/yyyy"), None);
        assert_eq!(parse_date("27/11/2026x", "dd/mm/yyyy"), None);
        assert_eq!(parse_date("2026/11/27", "dd/mm/yyyy"), None);
    }

    #[test]
    fn a_file_reads_with_quotes_blank_lines_and_names_each_bad_cell() {
        let csv = "Date,Narration,Ref,Debit,Credit\r\n\
                   27/11/2026,\"UPI/712345678901/RAVI, KUMAR\",712345678901,,\"6,891.00\"\r\n\
                   \r\n\
                   28/11/2026,NEFT charges,CHG1,11.80,\r\n\
                   2026-11-28,x,REF,,1.00\r\n\
                   28/11/2026,x,REF,,1.0x0\r\n";
        let parsed = parse(csv, &indian(), None).unwrap();
        assert_eq!(parsed.lines.len(), 2);
        assert_eq!(parsed.lines[0].line_no, 2);
        assert_eq!(parsed.lines[0].amount, 689_100);
        assert!(parsed.lines[0].credit);
        assert_eq!(parsed.lines[0].narration, "UPI/712345678901/RAVI, KUMAR");
        assert!(!parsed.lines[1].credit);
        assert_eq!(parsed.lines[1].amount, 1_180);
        assert_eq!(
            parsed.errors,
            vec![
                LineError {
                    line_no: 5,
                    column: Some(1),
                    field: "date",
                    problem: "statement.bad_date",
                    value: "2026-11-28".into()
                },
                LineError {
                    line_no: 6,
                    column: Some(5),
                    field: "credit",
                    problem: "statement.bad_amount",
                    value: "1.0x0".into()
                },
            ]
        );
    }

    #[test]
    fn an_indonesian_statement_keeps_the_bank_s_lines_with_sen_and_refuses_a_layout_that_reads_every_credit_so()
     {
        let layout = Layout {
            market: Market::Indonesia,
            decimal_separator: ',',
            thousands_separator: Some('.'),
            ..indian()
        };
        // The bank's interest and the tax on it carry sen; the transfer is whole rupiah.
        let csv = "Tanggal,Keterangan,Ref,Debit,Kredit\n\
                   27/11/2026,TRSF 712345678901,712345678901,,\"1.000.000,00\"\n\
                   30/11/2026,BUNGA,INT,,\"12.345,67\"\n\
                   30/11/2026,PAJAK BUNGA,TAX,\"2.469,13\",\n";
        let parsed = parse(csv, &layout, None).unwrap();
        assert_eq!(parsed.errors, vec![]);
        assert_eq!(
            parsed.lines.iter().map(|l| l.amount).collect::<Vec<_>>(),
            [100_000_000, 1_234_567, 246_913]
        );
        // Every credit with sen: the decimal mark was taken for the thousands separator.
        let wrong = Layout {
            decimal_separator: '.',
            thousands_separator: Some(','),
            ..layout
        };
        let csv = "h\n27/11/2026,TRSF,R1,,15.50\n28/11/2026,TRSF,R2,,20.25\n";
        let parsed = parse(csv, &wrong, None).unwrap();
        assert_eq!(
            parsed.errors,
            vec![LineError {
                line_no: 2,
                column: Some(5),
                field: "amount",
                problem: "statement.whole_rupiah",
                value: String::new(),
            }]
        );
    }

    #[test]
    fn a_quote_that_never_closes_and_a_missing_column_are_named() {
        let csv = "h\n27/11/2026,x,R\n27/11/2026,\"x,R,,1\n";
        let parsed = parse(csv, &indian(), None).unwrap();
        assert_eq!(parsed.errors[0].line_no, 2);
        assert_eq!(parsed.errors[0].problem, "statement.missing_column");
        assert_eq!(parsed.errors[0].column, Some(5));
        assert_eq!(parsed.errors[1].line_no, 3);
        assert_eq!(parsed.errors[1].problem, "statement.unbalanced_quotes");
    }

    #[test]
    fn bounds_of_the_file() {
        assert_eq!(
            parse("h\n", &indian(), None).unwrap_err(),
            FileProblem::Empty
        );
        let big = "x".repeat(MAX_FILE_BYTES + 1);
        assert_eq!(
            parse(&big, &indian(), None).unwrap_err(),
            FileProblem::TooLarge
        );
        let many = format!("h\n{}", "27/11/2026,n,R,,1\n".repeat(MAX_LINES + 1));
        assert_eq!(
            parse(&many, &indian(), None).unwrap_err(),
            FileProblem::TooManyLines
        );
        let preview = parse(&many, &indian(), Some(5)).unwrap();
        assert_eq!(preview.lines.len(), 5);
    }

    #[test]
    fn utrs_are_found_in_the_reference_and_the_narration() {
        assert_eq!(
            utr_candidates("UPI/712345678901/x", "NEFT HDFCN52026112712 from RAVI"),
            vec!["UPI/712345678901/X", "712345678901", "HDFCN52026112712"]
        );
        assert_eq!(utr_candidates(" 7123 4567 8901 ", ""), vec!["712345678901"]);
    }
}
