//! Reconciliation (issue 18, item 2): finance imports a bank statement (CSV) read with the bank's saved layout, and
//! Kilat matches each credit line to the UTR payment waiting for finance by UTR and exact amount in minor units.
//! Matched lines are confirmed in one action, each through finance's confirmation path
//! ([`payments::confirm_from_statement`]: the same ledger entry, lifecycle and allocation as a manual confirmation,
//! audited with the statement line); a line whose amount differs is shown with both amounts and never confirmed.
//! An import is kept by the file's SHA-256: the same file imported again is the first import, and its lines confirm
//! nothing twice (a payment decided already is `payment_not_open`, whichever way it was decided).

pub mod statement;

use std::collections::{HashMap, HashSet};

use kilat_domain::{Code, Market};
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::infra::crypto::Binding;
use crate::services::Services;
use crate::servicing::payments::{self, StatementSource};
use crate::store::audit::NewAuditEntry;
use crate::store::new_id;
use crate::store::reconciliation::{
    ImportRow, LineRow, MappingRow, NewImport, NewLine, NewMapping,
};
use crate::store::unmatched::NewUnmatched;
pub use statement::{AmountColumns, DATE_FORMATS, Layout, LineError};

/// A market by its code (`IN`, `ID`, any case).
pub fn parse_market(code: &str) -> Option<Market> {
    Market::from_code(&code.trim().to_ascii_uppercase())
}

/// Who imports statements and confirms from them.
pub const RECONCILE_ROLES: &[Role] = &[Role::Finance, Role::Admin];
/// The longest layout name and file name.
pub const MAX_NAME_CHARS: usize = 100;
/// The lines a preview reads.
pub const PREVIEW_LINES: usize = 20;
/// The raw rows a preview shows (header rows included).
const PREVIEW_ROWS: usize = 8;
/// The imports the history lists.
const HISTORY_LIMIT: i64 = 50;
/// The waiting payments without a line an import's result lists.
const WAITING_LIMIT: i64 = 500;
const DELIMITERS: &[(&str, char)] = &[(",", ','), (";", ';'), ("tab", '\t'), ("|", '|')];

/// A layout as an operator sends it (every value optional: each missing one is a field error).
#[derive(Debug, Default, Clone)]
pub struct MappingInput {
    pub name: Option<String>,
    pub market: Option<String>,
    /// `,`, `;`, `tab` or `|`; `,` when missing.
    pub delimiter: Option<String>,
    pub skip_rows: Option<i64>,
    pub date_column: Option<i64>,
    pub date_format: Option<String>,
    pub amount_column: Option<i64>,
    pub credit_column: Option<i64>,
    pub debit_column: Option<i64>,
    pub reference_column: Option<i64>,
    pub narration_column: Option<i64>,
    /// `.` or `,`.
    pub decimal_separator: Option<String>,
    /// `,`, `.`, `space`, or empty for none.
    pub thousands_separator: Option<String>,
}

/// A saved layout.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mapping {
    pub id: String,
    pub name: String,
    pub market: Market,
    /// `,`, `;`, `tab` or `|`.
    pub delimiter: String,
    pub skip_rows: i64,
    pub date_column: i64,
    /// One of `dd/mm/yyyy`, `dd-mm-yyyy`, `dd.mm.yyyy`, `yyyy-mm-dd`, `mm/dd/yyyy`, `dd/mm/yy`, `dd-mmm-yyyy`,
    /// `dd mmm yyyy`, `dd-mmm-yy`, `dd/mmm/yyyy`.
    pub date_format: String,
    /// A signed amount column (a debit is negative, bracketed or ends in DR); null when credit and debit are apart.
    #[schema(required = true)]
    pub amount_column: Option<i64>,
    #[schema(required = true)]
    pub credit_column: Option<i64>,
    #[schema(required = true)]
    pub debit_column: Option<i64>,
    pub reference_column: i64,
    #[schema(required = true)]
    pub narration_column: Option<i64>,
    /// `.` or `,`.
    pub decimal_separator: String,
    /// `,`, `.`, `space`, or empty for none.
    pub thousands_separator: String,
    /// Epoch milliseconds.
    pub updated_at: i64,
}

fn mapping_of(row: MappingRow) -> Result<Mapping, Error> {
    Ok(Mapping {
        market: parse_market(&row.market)
            .ok_or_else(|| anyhow::anyhow!("mapping {}: market {:?}", row.id, row.market))?,
        id: row.id,
        name: row.name,
        delimiter: row.delimiter,
        skip_rows: row.skip_rows,
        date_column: row.date_column,
        date_format: row.date_format,
        amount_column: row.amount_column,
        credit_column: row.credit_column,
        debit_column: row.debit_column,
        reference_column: row.reference_column,
        narration_column: row.narration_column,
        decimal_separator: row.decimal_separator,
        thousands_separator: row.thousands_separator,
        updated_at: row.updated_at,
    })
}

fn layout_of(m: &Mapping) -> Result<Layout, Error> {
    let input = MappingInput {
        name: Some(m.name.clone()),
        market: Some(m.market.code().to_owned()),
        delimiter: Some(m.delimiter.clone()),
        skip_rows: Some(m.skip_rows),
        date_column: Some(m.date_column),
        date_format: Some(m.date_format.clone()),
        amount_column: m.amount_column,
        credit_column: m.credit_column,
        debit_column: m.debit_column,
        reference_column: Some(m.reference_column),
        narration_column: m.narration_column,
        decimal_separator: Some(m.decimal_separator.clone()),
        thousands_separator: Some(m.thousands_separator.clone()),
    };
    check_mapping(&input)
        .map(|(_, layout)| layout)
        .map_err(|e| anyhow::anyhow!("stored mapping {} no longer valid: {e}", m.id).into())
}

/// Checks a layout: every refusal is a field error by the field's API name. Answers the name and the layout.
pub fn check_mapping(input: &MappingInput) -> Result<(String, Layout), Error> {
    let mut errors = FieldErrors::default();
    let name = input.name.as_deref().map(str::trim).unwrap_or_default();
    if name.is_empty() {
        errors.add("name", FieldProblem::required());
    } else if name.chars().count() > MAX_NAME_CHARS {
        errors.add("name", FieldProblem::too_long(MAX_NAME_CHARS));
    }
    let market = match input
        .market
        .as_deref()
        .map(str::trim)
        .filter(|m| !m.is_empty())
    {
        None => {
            errors.add("market", FieldProblem::required());
            None
        }
        Some(code) => {
            let market = parse_market(code);
            if market.is_none() {
                errors.add("market", FieldProblem::unknown_market());
            }
            market
        }
    };
    let delimiter_code = input.delimiter.as_deref().unwrap_or(",");
    let delimiter = DELIMITERS
        .iter()
        .find(|(code, _)| *code == delimiter_code)
        .map(|(_, c)| *c);
    if delimiter.is_none() {
        errors.add("delimiter", FieldProblem::new("field.statement_delimiter"));
    }
    let skip_rows = input.skip_rows.unwrap_or(0);
    if !(0..=statement::MAX_SKIP_ROWS as i64).contains(&skip_rows) {
        errors.add(
            "skipRows",
            FieldProblem::new("field.statement_skip_rows").with("max", statement::MAX_SKIP_ROWS),
        );
    }
    let mut column = |field: &'static str, value: Option<i64>, required: bool| -> Option<usize> {
        match value {
            None if required => {
                errors.add(field, FieldProblem::required());
                None
            }
            None => None,
            Some(n) if (1..=statement::MAX_COLUMNS as i64).contains(&n) => Some(n as usize),
            Some(_) => {
                errors.add(
                    field,
                    FieldProblem::new("field.statement_column").with("max", statement::MAX_COLUMNS),
                );
                None
            }
        }
    };
    let date_column = column("dateColumn", input.date_column, true);
    let reference_column = column("referenceColumn", input.reference_column, true);
    let narration_column = column("narrationColumn", input.narration_column, false);
    let amount_column = column("amountColumn", input.amount_column, false);
    let credit_column = column("creditColumn", input.credit_column, false);
    let debit_column = column("debitColumn", input.debit_column, false);
    let amount = match (input.amount_column, input.credit_column, input.debit_column) {
        (Some(_), None, None) => amount_column.map(AmountColumns::Signed),
        (None, Some(_), _) => credit_column.map(|credit| AmountColumns::Split {
            credit,
            debit: debit_column,
        }),
        _ => {
            errors.add(
                "amountColumn",
                FieldProblem::new("field.statement_amount_columns"),
            );
            None
        }
    };
    let date_format = input
        .date_format
        .as_deref()
        .map(str::trim)
        .unwrap_or_default();
    if date_format.is_empty() {
        errors.add("dateFormat", FieldProblem::required());
    } else if !DATE_FORMATS.contains(&date_format) {
        errors.add(
            "dateFormat",
            FieldProblem::new("field.statement_date_format")
                .with("formats", DATE_FORMATS.join(", ")),
        );
    }
    let decimal = match input.decimal_separator.as_deref() {
        Some(".") => Some('.'),
        Some(",") => Some(','),
        None => {
            errors.add("decimalSeparator", FieldProblem::required());
            None
        }
        Some(_) => {
            errors.add(
                "decimalSeparator",
                FieldProblem::new("field.statement_decimal"),
            );
            None
        }
    };
    let thousands = match input.thousands_separator.as_deref().unwrap_or("") {
        "" => Some(None),
        "," => Some(Some(',')),
        "." => Some(Some('.')),
        "space" => Some(Some(' ')),
        _ => {
            errors.add(
                "thousandsSeparator",
                FieldProblem::new("field.statement_thousands"),
            );
            None
        }
    };
    if let (Some(d), Some(Some(t))) = (decimal, thousands)
        && d == t
    {
        errors.add(
            "thousandsSeparator",
            FieldProblem::new("field.statement_same_separators"),
        );
    }
    errors.clone().into_result()?;
    let (
        Some(market),
        Some(delimiter),
        Some(date_column),
        Some(reference_column),
        Some(amount),
        Some(decimal),
        Some(thousands),
    ) = (
        market,
        delimiter,
        date_column,
        reference_column,
        amount,
        decimal,
        thousands,
    )
    else {
        return Err(anyhow::anyhow!("a checked mapping lacks a value").into());
    };
    Ok((
        name.to_owned(),
        Layout {
            market,
            delimiter,
            skip_rows: skip_rows as usize,
            date_column,
            date_format: date_format.to_owned(),
            amount,
            reference_column,
            narration_column,
            decimal_separator: decimal,
            thousands_separator: thousands,
        },
    ))
}

/// The saved layouts, by name (finance or admin).
pub async fn mappings(s: &Services, op: &Operator) -> Result<Vec<Mapping>, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let all: Vec<Mapping> =
        s.db.statement_mappings()
            .await?
            .into_iter()
            .map(mapping_of)
            .collect::<Result<_, _>>()?;
    // The layouts of the operator's markets only.
    Ok(all.into_iter().filter(|m| op.may_see(m.market)).collect())
}

fn delimiter_code(c: char) -> &'static str {
    DELIMITERS
        .iter()
        .find(|(_, d)| *d == c)
        .map_or(",", |(code, _)| code)
}

fn thousands_code(c: Option<char>) -> &'static str {
    match c {
        None => "",
        Some(',') => ",",
        Some('.') => ".",
        Some(_) => "space",
    }
}

/// Saves a layout (finance or admin), or replaces the one with `id`: audited. A name taken is a field error.
pub async fn save_mapping(
    s: &Services,
    op: &Operator,
    id: Option<&str>,
    input: &MappingInput,
) -> Result<Mapping, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let (name, layout) = check_mapping(input)?;
    op.require_market(layout.market)?;
    let (amount_column, credit_column, debit_column) = match layout.amount {
        AmountColumns::Signed(c) => (Some(c as i64), None, None),
        AmountColumns::Split { credit, debit } => {
            (None, Some(credit as i64), debit.map(|d| d as i64))
        }
    };
    let decimal = layout.decimal_separator.to_string();
    let now = s.clock.now_ms();
    let row = NewMapping {
        name: &name,
        market: layout.market.code(),
        delimiter: delimiter_code(layout.delimiter),
        skip_rows: layout.skip_rows as i64,
        date_column: layout.date_column as i64,
        date_format: &layout.date_format,
        amount_column,
        credit_column,
        debit_column,
        reference_column: layout.reference_column as i64,
        narration_column: layout.narration_column.map(|c| c as i64),
        decimal_separator: &decimal,
        thousands_separator: thousands_code(layout.thousands_separator),
        by: &op.id,
        now,
    };
    let before = match id {
        Some(id) => {
            let row =
                s.db.statement_mapping(id.trim())
                    .await?
                    .ok_or(Error::NotFound)?;
            // Another market's layout is not found, as if it did not exist.
            op.see(mapping_of(row.clone())?.market)?;
            Some(row)
        }
        None => None,
    };
    let taken = || {
        Error::field(
            "name",
            FieldProblem::new("field.statement_mapping_name_taken"),
        )
    };
    let before_json = before
        .clone()
        .map(mapping_of)
        .transpose()?
        .map(|m| serde_json::to_string(&m))
        .transpose()
        .map_err(anyhow::Error::from)?;
    let mut tx = s.db.begin().await?;
    let id = match &before {
        Some(before) => {
            if !tx
                .update_statement_mapping(&before.id, &row)
                .await?
                .map_err(|_| taken())?
            {
                return Err(Error::NotFound);
            }
            before.id.clone()
        }
        None => tx
            .insert_statement_mapping(&row)
            .await?
            .map_err(|_| taken())?,
    };
    let after_json = serde_json::json!({
        "id": id,
        "name": name,
        "market": layout.market.code(),
        "delimiter": row.delimiter,
        "skipRows": row.skip_rows,
        "dateColumn": row.date_column,
        "dateFormat": row.date_format,
        "amountColumn": row.amount_column,
        "creditColumn": row.credit_column,
        "debitColumn": row.debit_column,
        "referenceColumn": row.reference_column,
        "narrationColumn": row.narration_column,
        "decimalSeparator": row.decimal_separator,
        "thousandsSeparator": row.thousands_separator,
    })
    .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: if before.is_some() {
            "statement_mapping.update"
        } else {
            "statement_mapping.create"
        },
        entity: "statement_mapping",
        entity_id: &id,
        before_json: before_json.as_deref(),
        after_json: Some(&after_json),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let saved = mapping_of(s.db.statement_mapping(&id).await?.ok_or(Error::NotFound)?)?;
    Ok(saved)
}

/// A line read by a preview (amounts in minor units).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewLine {
    pub line_no: i64,
    #[schema(format = Date)]
    pub date: String,
    pub amount: i64,
    pub credit: bool,
    pub reference: String,
    pub narration: String,
    /// The UTRs the line may carry (its reference, and UTR-shaped words of the reference and narration).
    pub utrs: Vec<String>,
}

/// Why one line of a file cannot be read.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LineProblem {
    pub line_no: i64,
    /// 1-based; null for the whole line.
    #[schema(required = true)]
    pub column: Option<i64>,
    /// `date`, `amount`, `credit`, `debit`, `reference`, `narration` or `line`.
    pub field: String,
    /// `bad_date`, `bad_amount`, `missing_column`, `no_amount`, `both_amounts`, `zero_amount`, `whole_rupiah`,
    /// `too_long` or `unbalanced_quotes`.
    pub problem: String,
    /// The cell as read, cut to 40 characters.
    pub value: String,
}

impl From<&LineError> for LineProblem {
    fn from(e: &LineError) -> Self {
        Self {
            line_no: e.line_no as i64,
            column: e.column.map(|c| c as i64),
            field: e.field.to_owned(),
            problem: e.problem.trim_start_matches("statement.").to_owned(),
            value: e.value.clone(),
        }
    }
}

/// What a file looks like: its first rows as cells, and, with a layout, its first lines read.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    /// The first rows of the file, header rows included, split into cells (column 1 first).
    pub rows: Vec<Vec<String>>,
    /// The first lines read with the layout (empty without one).
    pub lines: Vec<PreviewLine>,
    /// The problems among those first lines.
    pub problems: Vec<LineProblem>,
}

fn file_problem(p: statement::FileProblem, layout: &Layout) -> Error {
    use statement::FileProblem as P;
    let problem = match p {
        P::Empty => FieldProblem::new("field.statement_empty").with("skip", layout.skip_rows),
        P::TooLarge => FieldProblem::new("field.statement_too_large")
            .with("max", statement::MAX_FILE_BYTES / (1024 * 1024)),
        P::TooManyLines => {
            FieldProblem::new("field.statement_too_many_lines").with("max", statement::MAX_LINES)
        }
        P::NotText => FieldProblem::new("field.statement_not_text"),
    };
    Error::field("content", problem)
}

fn check_content(content: Option<&str>) -> Result<&str, Error> {
    let content = content.unwrap_or_default();
    if content.trim().is_empty() {
        return Err(Error::field("content", FieldProblem::required()));
    }
    if content.len() > statement::MAX_FILE_BYTES {
        return Err(Error::field(
            "content",
            FieldProblem::new("field.statement_too_large")
                .with("max", statement::MAX_FILE_BYTES / (1024 * 1024)),
        ));
    }
    Ok(content)
}

/// Previews a file (finance or admin): its first rows as cells, and, with a layout (saved, or as typed), its first
/// lines read and the problems among them. Nothing is stored.
pub async fn preview(
    s: &Services,
    op: &Operator,
    content: Option<&str>,
    mapping_id: Option<&str>,
    mapping: Option<&MappingInput>,
) -> Result<Preview, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let content = check_content(content)?;
    let layout = match (mapping_id.map(str::trim).filter(|m| !m.is_empty()), mapping) {
        (Some(id), _) => Some(saved_layout(s, op, id).await?.1),
        (None, Some(input)) => {
            let mut input = input.clone();
            // A preview needs no name yet.
            input.name.get_or_insert_with(|| "preview".to_owned());
            let layout = check_mapping(&input)?.1;
            op.require_market(layout.market)?;
            Some(layout)
        }
        (None, None) => None,
    };
    let delimiter = layout
        .as_ref()
        .map_or_else(|| sniff_delimiter(content), |l| l.delimiter);
    let rows = statement::first_rows(content, delimiter, PREVIEW_ROWS);
    let (lines, problems) = match &layout {
        None => (Vec::new(), Vec::new()),
        Some(layout) => {
            let parsed = statement::parse(content, layout, Some(PREVIEW_LINES))
                .map_err(|p| file_problem(p, layout))?;
            (
                parsed.lines.iter().map(preview_line).collect(),
                parsed.errors.iter().map(LineProblem::from).collect(),
            )
        }
    };
    Ok(Preview {
        rows,
        lines,
        problems,
    })
}

/// The delimiter of a file without a layout: the one of `;`, tab, `|` that its first line holds more of than commas.
fn sniff_delimiter(content: &str) -> char {
    let first = content.lines().next().unwrap_or_default();
    let count = |c: char| first.matches(c).count();
    [';', '\t', '|']
        .into_iter()
        .filter(|c| count(*c) > count(','))
        .max_by_key(|c| count(*c))
        .unwrap_or(',')
}

fn preview_line(l: &statement::Line) -> PreviewLine {
    PreviewLine {
        line_no: l.line_no as i64,
        date: l.date.to_string(),
        amount: l.amount,
        credit: l.credit,
        reference: l.reference.clone(),
        narration: l.narration.clone(),
        utrs: statement::utr_candidates(&l.reference, &l.narration),
    }
}

/// A saved layout by its id; an unknown one, or one of a market not the operator's, is the same field error.
async fn saved_layout(s: &Services, op: &Operator, id: &str) -> Result<(Mapping, Layout), Error> {
    let unknown = || {
        Error::field(
            "mappingId",
            FieldProblem::new("field.statement_unknown_mapping"),
        )
    };
    let mapping =
        s.db.statement_mapping(id.trim())
            .await?
            .ok_or_else(unknown)?;
    let mapping = mapping_of(mapping)?;
    if !op.may_see(mapping.market) {
        return Err(unknown());
    }
    let layout = layout_of(&mapping)?;
    Ok((mapping, layout))
}

/// The first refusal of a file's lines as the `content` field error, and how many lines cannot be read.
fn line_errors(errors: &[LineError], layout: &Layout) -> Error {
    let first = &errors[0];
    let key = match first.problem {
        "statement.bad_date" => "field.statement_bad_date",
        "statement.bad_amount" => "field.statement_bad_amount",
        "statement.missing_column" => "field.statement_missing_column",
        "statement.no_amount" => "field.statement_no_amount",
        "statement.both_amounts" => "field.statement_both_amounts",
        "statement.zero_amount" => "field.statement_zero_amount",
        "statement.whole_rupiah" => "field.statement_whole_rupiah",
        "statement.too_long" => "field.statement_too_long",
        _ => "field.statement_unbalanced_quotes",
    };
    let example = match (layout.decimal_separator, layout.thousands_separator) {
        ('.', Some(',')) => "1,00,000.50",
        ('.', _) => "100000.50",
        (',', Some('.')) => "1.000.000,50",
        (',', Some(' ')) => "1 000 000,50",
        _ => "1000000,50",
    };
    let max = if first.field == "narration" {
        statement::MAX_NARRATION_CHARS
    } else {
        statement::MAX_REFERENCE_CHARS
    };
    let problem = FieldProblem::new(key)
        .with("line", first.line_no)
        .with("column", first.column.unwrap_or(0))
        .with("field", first.field)
        .with("value", &first.value)
        .with("format", &layout.date_format)
        .with("example", example)
        .with("max", max);
    let mut fields = FieldErrors::one("content", problem);
    if errors.len() > 1 {
        fields.add(
            "lines",
            FieldProblem::new("field.statement_problems").with("count", errors.len()),
        );
    }
    Error::Validation(fields)
}

/// How a statement line stands against Kilat's payments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// Its UTR is a payment's waiting for finance, for exactly the amount asked: confirmable.
    Matched,
    /// Its UTR is a payment's, but the amounts differ: never confirmed from here.
    Mismatched,
    /// No payment has its UTR.
    Unmatched,
    /// Confirmed through this import.
    Confirmed,
    /// Its payment was decided otherwise (confirmed by hand, by another import, or a provider).
    AlreadyConfirmed,
    /// Its payment is not waiting (held, rejected): finance decides it on the Repayments screen.
    NotWaiting,
    /// An earlier line of this import names the same payment.
    Duplicate,
    /// Money out.
    Debit,
    /// Its UTR is a payment's, but a debit of the same statement names that UTR too: the bank took the money back
    /// (a return, a chargeback). Never confirmed from here: finance checks it on the Repayments screen.
    Reversed,
}

/// One line of an import with what it matched.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultLine {
    pub line_no: i64,
    #[schema(format = Date)]
    pub date: String,
    /// Minor units.
    pub amount: i64,
    pub credit: bool,
    pub reference: String,
    pub narration: String,
    pub kind: LineKind,
    /// The UTR of the payment found; null when none.
    #[schema(required = true)]
    pub utr: Option<String>,
    #[schema(required = true)]
    pub payment_id: Option<String>,
    #[schema(required = true)]
    pub payment_reference: Option<String>,
    #[schema(required = true)]
    pub order_no: Option<String>,
    /// Minor units asked by the payment; null when none.
    #[schema(required = true)]
    pub payment_amount: Option<i64>,
    /// The payment's status now; null when none.
    #[schema(required = true)]
    pub payment_status: Option<String>,
    /// Who confirmed it through this import, and when (epoch milliseconds).
    #[schema(required = true)]
    pub confirmed_by: Option<String>,
    #[schema(required = true)]
    pub confirmed_at: Option<i64>,
}

/// An import in the history.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub import_id: String,
    pub market: Market,
    pub mapping_id: String,
    pub mapping_name: String,
    pub file_name: String,
    /// SHA-256 of the file, hex.
    pub file_hash: String,
    /// The operator's username.
    pub imported_by: String,
    /// Epoch milliseconds.
    pub imported_at: i64,
    pub line_count: i64,
    pub credit_count: i64,
    pub confirmed_count: i64,
}

fn summary_of(row: ImportRow) -> Result<ImportSummary, Error> {
    Ok(ImportSummary {
        market: parse_market(&row.market)
            .ok_or_else(|| anyhow::anyhow!("import {}: market {:?}", row.id, row.market))?,
        import_id: row.id,
        mapping_id: row.mapping_id,
        mapping_name: row.mapping_name,
        file_name: row.file_name,
        file_hash: row.file_hash,
        imported_by: row.imported_by_name.unwrap_or(row.imported_by),
        imported_at: row.imported_at,
        line_count: row.line_count,
        credit_count: row.credit_count,
        confirmed_count: row.confirmed_count,
    })
}

/// A waiting UTR payment no line of the import names.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaitingPayment {
    pub payment_id: String,
    pub order_no: String,
    pub reference: String,
    #[schema(required = true)]
    pub utr: Option<String>,
    /// Minor units asked.
    pub amount: i64,
    /// Epoch milliseconds: since when it waits for finance.
    pub waiting_since: i64,
}

/// An import with each line's standing now and the payments it left waiting.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportResult {
    pub import: ImportSummary,
    pub lines: Vec<ResultLine>,
    /// The UTR payments of the market waiting for finance that no line names, oldest first (at most 500).
    pub waiting: Vec<WaitingPayment>,
    /// Matched lines: how many, and their total in minor units.
    pub matched_count: i64,
    pub matched_total: i64,
}

/// Imports a statement (finance or admin) with a saved layout: every line is read (a line that cannot be is a field
/// error naming its line and column, and nothing is stored), each credit's UTR is looked up, and the import is kept
/// with its lines; audited. The same file again (by its SHA-256) answers the first import, `true` in the pair.
pub async fn import(
    s: &Services,
    op: &Operator,
    mapping_id: Option<&str>,
    file_name: Option<&str>,
    content: Option<&str>,
) -> Result<(ImportResult, bool), Error> {
    op.require_any(RECONCILE_ROLES)?;
    let mut errors = FieldErrors::default();
    let name = file_name.map(str::trim).unwrap_or_default();
    if name.is_empty() {
        errors.add("fileName", FieldProblem::required());
    } else if name.chars().count() > MAX_NAME_CHARS {
        errors.add("fileName", FieldProblem::too_long(MAX_NAME_CHARS));
    }
    let mapping_id = mapping_id.map(str::trim).unwrap_or_default();
    if mapping_id.is_empty() {
        errors.add("mappingId", FieldProblem::required());
    }
    if let Err(Error::Validation(e)) = check_content(content) {
        errors.merge(e);
    }
    errors.into_result()?;
    let content = content.unwrap_or_default();
    let (mapping, layout) = saved_layout(s, op, mapping_id).await?;
    let parsed = statement::parse(content, &layout, None).map_err(|p| file_problem(p, &layout))?;
    if !parsed.errors.is_empty() {
        return Err(line_errors(&parsed.errors, &layout));
    }
    // The same file read to the same lines is the same import, whatever in its layout changed that reads nothing
    // differently; read to other lines (credit and debit columns swapped, corrected since) it is read anew: what it
    // matches is per payment, so reading it again credits nothing twice.
    let mut read = Sha256::new()
        .chain_update(content.as_bytes())
        .chain_update(b"\0")
        .chain_update(layout.market.code().as_bytes());
    for l in &parsed.lines {
        read.update(
            format!(
                "\n{}|{}|{}|{}|{}|{}",
                l.line_no, l.date, l.amount, l.credit, l.reference, l.narration
            )
            .as_bytes(),
        );
    }
    let hash = hex::encode(read.finalize());
    // Imports before the lines were part of it were known by the file alone: one is this import if it read the file
    // to these lines.
    let legacy = hex::encode(Sha256::digest(content.as_bytes()));
    let found = match s.db.statement_import_by_hash(&hash).await? {
        Some(found) => Some(found),
        None => match s.db.statement_import_by_hash(&legacy).await? {
            Some(old) => {
                let stored: Vec<(i64, i64, bool)> =
                    s.db.statement_lines(&old.id)
                        .await?
                        .iter()
                        .map(|l| (l.line_no, l.amount, l.credit != 0))
                        .collect();
                let now: Vec<(i64, i64, bool)> = parsed
                    .lines
                    .iter()
                    .map(|l| {
                        (
                            i64::try_from(l.line_no).unwrap_or(i64::MAX),
                            l.amount,
                            l.credit,
                        )
                    })
                    .collect();
                (stored == now).then_some(old)
            }
            None => None,
        },
    };
    if let Some(found) = found {
        let found = summary_of(found)?;
        op.see(found.market)?;
        return Ok((result_of(s, found).await?, true));
    }
    let market = layout.market;
    let currency = market.currency().code();
    // The UTRs each line names: a credit's is money for the payment with it; a debit's, money taken back from it.
    let named: Vec<Vec<String>> = parsed
        .lines
        .iter()
        .map(|l| statement::utr_candidates(&l.reference, &l.narration))
        .collect();
    let all: Vec<String> = named
        .iter()
        .flatten()
        .cloned()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let payments = s.db.payments_by_utr(&all).await?;
    let found: HashMap<String, String> = payments
        .iter()
        .filter(|(_, _, c, _)| c == currency)
        .map(|(utr, payment, _, _)| (utr.clone(), payment.clone()))
        .collect();
    let candidates: Vec<Vec<String>> = parsed
        .lines
        .iter()
        .zip(&named)
        .map(|(l, named)| if l.credit { named.clone() } else { Vec::new() })
        .collect();
    let reversals = reversals(s, &parsed.lines, &named, &payments, currency).await?;
    let id = new_id();
    let now = s.clock.now_ms();
    let dates: Vec<String> = parsed.lines.iter().map(|l| l.date.to_string()).collect();
    let sealed: Vec<String> = parsed
        .lines
        .iter()
        .map(|l| {
            s.secrets.encrypt(
                &l.narration,
                Binding::StatementNarration {
                    import_id: &id,
                    line_no: l.line_no as i64,
                },
            )
        })
        .collect();
    let hits: Vec<Option<(&String, &String)>> = candidates
        .iter()
        .map(|c| c.iter().find_map(|utr| found.get_key_value(utr)))
        .collect();
    let lines: Vec<NewLine<'_>> = parsed
        .lines
        .iter()
        .enumerate()
        .map(|(i, l)| NewLine {
            line_no: l.line_no as i64,
            on_date: &dates[i],
            amount: l.amount,
            credit: l.credit,
            reference: &l.reference,
            narration_enc: &sealed[i],
            utr: hits[i].map(|(utr, _)| utr.as_str()),
            payment_id: hits[i].map(|(_, p)| p.as_str()),
        })
        .collect();
    let mut tx = s.db.begin().await?;
    let inserted = tx
        .insert_statement_import(&NewImport {
            id: &id,
            market: market.code(),
            mapping_id: &mapping.id,
            file_name: name,
            file_hash: &hash,
            by: &op.id,
            at: now,
            line_count: lines.len() as i64,
        })
        .await?;
    if inserted.is_err() {
        // The same file, imported at this moment by someone else: theirs is the import.
        drop(tx);
        let found =
            s.db.statement_import_by_hash(&hash)
                .await?
                .ok_or(Error::NotFound)?;
        return Ok((result_of(s, summary_of(found)?).await?, true));
    }
    tx.insert_statement_lines(&id, &lines).await?;
    // Money the bank took back is kept for finance with the money providers took back (Repayments), naming its
    // payment, so a confirmation by hand is not made blind: once per bank row, however many statements show it.
    for r in &reversals {
        tx.insert_statement_reversal(
            &NewUnmatched {
                kind: "reversed",
                payment_id: Some(&r.payment_id),
                provider: "statement",
                event_id: &format!("reversed:{}:{}:{}", r.utr, r.date, r.amount),
                market: Some(market.code()),
                reference: &r.utr,
                provider_payment_id: None,
                amount: Some(r.amount),
                currency: Some(currency),
                sent_at: None,
            },
            now,
        )
        .await?;
    }
    let after = serde_json::json!({
        "importId": id,
        "fileName": name,
        "fileHash": hash,
        "mappingId": mapping.id,
        "market": market.code(),
        "lineCount": lines.len(),
        "utrsFound": hits.iter().filter(|h| h.is_some()).count(),
    })
    .to_string();
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "statement.import",
        entity: "statement_import",
        entity_id: &id,
        before_json: None,
        after_json: Some(&after),
        at: now,
    })
    .await?;
    tx.commit().await?;
    let summary = summary_of(s.db.statement_import(&id).await?.ok_or(Error::NotFound)?)?;
    Ok((result_of(s, summary).await?, false))
}

/// A statement's debit that took back money a payment received.
struct Reversal {
    utr: String,
    payment_id: String,
    date: String,
    amount: i64,
}

/// The debits of a statement that take back money a payment received: a debit naming the UTR of a payment waiting
/// for finance, confirmed or held (not one owed back or refunded — the lender's own refund names it too — nor one
/// never credited), whose money a credit line showed arriving, in this statement or an earlier one (matched to the
/// payment, or carrying the UTR as its reference). A debit that is an earlier import's credit line read again (the
/// same day, amount and reference, in a statement that does not credit the UTR itself: a file read with its credit and
/// debit columns swapped) takes nothing back.
async fn reversals(
    s: &Services,
    lines: &[statement::Line],
    named: &[Vec<String>],
    payments: &[(String, String, String, String)],
    currency: &str,
) -> Result<Vec<Reversal>, Error> {
    let received: HashMap<&str, &str> = payments
        .iter()
        .filter(|(_, _, c, status)| {
            c == currency && matches!(status.as_str(), "verifying" | "confirmed" | "held")
        })
        .map(|(utr, payment, _, _)| (utr.as_str(), payment.as_str()))
        .collect();
    let debited: Vec<String> = lines
        .iter()
        .zip(named)
        .filter(|(l, _)| !l.credit)
        .flat_map(|(_, named)| named.iter().filter(|u| received.contains_key(u.as_str())))
        .cloned()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    if debited.is_empty() {
        return Ok(Vec::new());
    }
    let earlier = s.db.credit_lines_of_utrs(&debited).await?;
    let credited_here: HashSet<&str> = lines
        .iter()
        .zip(named)
        .filter(|(l, _)| l.credit)
        .flat_map(|(_, named)| named.iter().map(String::as_str))
        .collect();
    let mut out = Vec::new();
    for (l, named) in lines.iter().zip(named).filter(|(l, _)| !l.credit) {
        let date = l.date.to_string();
        let Some((utr, payment_id)) = named
            .iter()
            .find_map(|u| received.get_key_value(u.as_str()))
        else {
            continue;
        };
        // An earlier credit line of this UTR: matched to it at its import, or carrying it as its reference (imported
        // before the borrower gave the UTR, so matched to nothing then).
        let mine = earlier
            .iter()
            .filter(|(u, r, ..)| u.as_deref() == Some(*utr) || r.trim() == *utr);
        let read_again = mine
            .clone()
            .any(|(_, r, d, a)| *d == date && *a == l.amount && r.trim() == l.reference.trim());
        // A statement that credits the UTR too is no file read with its columns swapped (its credits would be debits):
        // its debit is a return, whatever an earlier import of part of the day read.
        if read_again && !credited_here.contains(utr) {
            continue;
        }
        if credited_here.contains(utr) || mine.count() > 0 {
            out.push(Reversal {
                utr: (*utr).to_owned(),
                payment_id: (*payment_id).to_owned(),
                date,
                amount: l.amount,
            });
        }
    }
    Ok(out)
}

/// The import history, newest first (finance or admin), of one market when given.
pub async fn imports(
    s: &Services,
    op: &Operator,
    market: Option<Market>,
) -> Result<Vec<ImportSummary>, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let market = op.market_filter(market)?;
    s.db.statement_imports(market.map(Code::code), HISTORY_LIMIT)
        .await?
        .into_iter()
        .map(summary_of)
        .collect()
}

/// One import with each line's standing now (finance or admin).
pub async fn result(s: &Services, op: &Operator, import_id: &str) -> Result<ImportResult, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let row =
        s.db.statement_import(import_id.trim())
            .await?
            .ok_or(Error::NotFound)?;
    let summary = summary_of(row)?;
    op.see(summary.market)?;
    let import_id = summary.import_id.clone();
    let result = result_of(s, summary).await?;
    // The lines name payers (their names and UPI ids, sealed at rest): each reading of an import is audited, as the
    // import itself is, once it has been read and before it is answered.
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "view_unmasked",
        entity: "statement_import",
        entity_id: &import_id,
        before_json: None,
        after_json: Some(r#"{"scope":"statement_lines"}"#),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(result)
}

fn kind_of(line: &LineRow, seen: &mut HashSet<String>) -> LineKind {
    if line.credit == 0 {
        return LineKind::Debit;
    }
    let Some(payment) = &line.payment_id else {
        return LineKind::Unmatched;
    };
    if line.confirmed_at.is_some() {
        seen.insert(payment.clone());
        return LineKind::Confirmed;
    }
    if line.payment_utr != line.utr {
        // The borrower corrected the payment's UTR since the import: the line is no longer its money.
        return LineKind::Unmatched;
    }
    if !seen.insert(payment.clone()) {
        return LineKind::Duplicate;
    }
    if line.payment_amount != Some(line.amount) {
        return LineKind::Mismatched;
    }
    match line.payment_status.as_deref() {
        Some("verifying") => LineKind::Matched,
        Some("confirmed" | "refund_due" | "refunded") => LineKind::AlreadyConfirmed,
        _ => LineKind::NotWaiting,
    }
}

async fn result_of(s: &Services, import: ImportSummary) -> Result<ImportResult, Error> {
    let rows = s.db.statement_lines(&import.import_id).await?;
    // A line confirmed earlier in the file wins over a later one naming the same payment.
    let mut seen = HashSet::new();
    let mut lines = Vec::with_capacity(rows.len());
    let narrations = rows
        .iter()
        .map(|row| {
            s.secrets.decrypt(
                &row.narration_enc,
                Binding::StatementNarration {
                    import_id: &row.import_id,
                    line_no: row.line_no,
                },
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The UTRs the statement's debits name, and those a later statement showed taken back: money the bank took
    // back, whose credit is no payment's to confirm.
    let mut taken_back: HashSet<String> = rows
        .iter()
        .zip(&narrations)
        .filter(|(row, _)| row.credit == 0)
        .flat_map(|(row, narration)| statement::utr_candidates(&row.reference, narration))
        .collect();
    let utrs: Vec<String> = rows
        .iter()
        .filter_map(|row| row.utr.clone())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    taken_back.extend(s.db.statement_reversed_utrs(&utrs).await?);
    for (row, narration) in rows.into_iter().zip(narrations) {
        let kind = match kind_of(&row, &mut seen) {
            LineKind::Matched | LineKind::Mismatched
                if row.utr.as_ref().is_some_and(|utr| taken_back.contains(utr)) =>
            {
                LineKind::Reversed
            }
            kind => kind,
        };
        // A line that no longer names its payment (its UTR corrected away) shows no payment.
        let row = if kind == LineKind::Unmatched {
            LineRow {
                payment_id: None,
                payment_reference: None,
                order_no: None,
                payment_amount: None,
                payment_status: None,
                ..row
            }
        } else {
            row
        };
        lines.push(ResultLine {
            line_no: row.line_no,
            date: row.on_date,
            amount: row.amount,
            credit: row.credit != 0,
            reference: row.reference,
            narration,
            kind,
            utr: row.utr,
            payment_id: row.payment_id,
            payment_reference: row.payment_reference,
            order_no: row.order_no,
            payment_amount: row.payment_amount,
            payment_status: row.payment_status,
            confirmed_by: row.confirmed_by_name.or(row.confirmed_by),
            confirmed_at: row.confirmed_at,
        });
    }
    let currency = import.market.currency().code();
    let waiting =
        s.db.waiting_payments_without_line(&import.import_id, currency, WAITING_LIMIT)
            .await?
            .into_iter()
            .map(|p| WaitingPayment {
                payment_id: p.id,
                order_no: p.order_no,
                reference: p.reference,
                utr: p.utr,
                amount: p.amount,
                waiting_since: p.updated_at,
            })
            .collect();
    let matched = lines.iter().filter(|l| l.kind == LineKind::Matched);
    let matched_count = matched.clone().count() as i64;
    let matched_total = matched.map(|l| l.amount).sum();
    Ok(ImportResult {
        import,
        lines,
        waiting,
        matched_count,
        matched_total,
    })
}

/// What "confirm matched" did.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmOutcome {
    /// Payments confirmed now, and what of their money was credited to their loans, in minor units.
    pub confirmed_count: i64,
    pub confirmed_total: i64,
    /// Of those, the payments whose loan owed less than the line's amount by then (repaid or paid down meanwhile):
    /// what it did not owe is owed back to the borrower (`refund_due`, on the Repayments screen), in minor units.
    pub owed_back_count: i64,
    pub owed_back_total: i64,
    /// Of those, the payments held instead, nothing credited (their price no longer held: money sent days after the
    /// payment was priced), and their amount, in minor units: finance decides them on the Repayments screen.
    pub held_count: i64,
    pub held_total: i64,
    /// Matched lines whose payment someone decided meanwhile (another operator, a manual confirmation): nothing
    /// was credited for them here.
    pub skipped_count: i64,
    /// Matched lines that could not be confirmed (an error of the server or of the loan; logged), by line number:
    /// nothing was credited for them, they stay matched, and confirming again tries them again. The lines after one
    /// are confirmed all the same.
    pub failed_lines: Vec<i64>,
    pub result: ImportResult,
}

/// Confirms every matched line of an import (finance or admin): each payment through finance's confirmation path,
/// in its own transaction with its order locked, audited with the statement line. Safe to repeat and to run by two
/// operators at once: a payment decided already is skipped, and each payment is credited once. A line that fails is
/// reported (`failed_lines`) and the others go on: one bad loan never stops a statement's worth of payments.
pub async fn confirm_matched(
    s: &Services,
    op: &Operator,
    import_id: &str,
) -> Result<ConfirmOutcome, Error> {
    op.require_any(RECONCILE_ROLES)?;
    let before = result(s, op, import_id).await?;
    let (mut confirmed_count, mut confirmed_total, mut skipped_count) = (0, 0, 0);
    let (mut owed_back_count, mut owed_back_total) = (0, 0);
    let (mut held_count, mut held_total) = (0, 0);
    let mut failed_lines = Vec::new();
    for line in before.lines.iter().filter(|l| l.kind == LineKind::Matched) {
        let Some(payment_id) = &line.payment_id else {
            continue;
        };
        let source = StatementSource {
            import_id: &before.import.import_id,
            line_no: line.line_no,
            on_date: &line.date,
            amount: line.amount,
            utr: line.utr.as_deref(),
            reference: &line.reference,
        };
        match payments::confirm_from_statement(s, op, payment_id, &source).await {
            Ok(confirmed) => {
                confirmed_count += 1;
                if confirmed.payment.status == payments::PaymentStatus::Held {
                    held_count += 1;
                    held_total += line.amount;
                    continue;
                }
                let owed_back = confirmed.payment.row.refund_amount.unwrap_or(0);
                confirmed_total += line.amount - owed_back;
                if owed_back > 0 {
                    owed_back_count += 1;
                    owed_back_total += owed_back;
                }
            }
            Err(Error::Refused(Refusal::PaymentNotOpen)) => skipped_count += 1,
            Err(e) => {
                tracing::error!(import = %before.import.import_id, line = line.line_no, payment = %payment_id,
                    error = %e, "a matched statement line could not be confirmed; the others go on");
                failed_lines.push(line.line_no);
            }
        }
    }
    let result = result(s, op, import_id).await?;
    Ok(ConfirmOutcome {
        confirmed_count,
        confirmed_total,
        owed_back_count,
        owed_back_total,
        held_count,
        held_total,
        skipped_count,
        failed_lines,
        result,
    })
}
