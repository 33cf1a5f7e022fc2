//! Reconciliation (docs/API-CONSOLE.md, "Reconciliation"): bank statement layouts saved per bank, a preview of a file
//! read with one, imports matched against the UTR payments waiting for finance, the import history, and confirming
//! the matched lines in one action (finance or admin).

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::Market;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::error::{Error, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::servicing::reconciliation::{
    self, ConfirmOutcome, ImportResult, ImportSummary, Mapping, MappingInput, Preview, parse_market,
};

/// The body limit of a statement upload: the 2 MiB file, written as a JSON string (escapes included).
pub const UPLOAD_BODY_LIMIT: usize = 3 * 1024 * 1024;

/// A bank's statement layout. Columns are numbered from 1.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MappingRequest {
    /// E.g. "HDFC current account". At most 100 characters; unique.
    /// Required to save a layout; may be left out (null) in a preview's layout as typed.
    #[schema(value_type = Option<String>, example = "HDFC current account")]
    pub name: Option<String>,
    /// `IN` or `ID`: the market whose payments the bank's lines are matched to.
    #[schema(value_type = Market, required = true, example = "IN")]
    pub market: Option<String>,
    /// `,` (default), `;`, `tab` or `|`.
    #[schema(value_type = Option<String>, example = ",")]
    pub delimiter: Option<String>,
    /// Header rows to skip, 0 to 50 (default 0).
    #[schema(value_type = Option<i64>, example = 1)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub skip_rows: Option<i64>,
    #[schema(value_type = i64, required = true, example = 1)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub date_column: Option<i64>,
    /// `dd/mm/yyyy`, `dd-mm-yyyy`, `dd.mm.yyyy`, `yyyy-mm-dd`, `mm/dd/yyyy`, `dd/mm/yy`, `dd-mmm-yyyy`,
    /// `dd mmm yyyy`, `dd-mmm-yy` or `dd/mmm/yyyy` (month names in English or Indonesian).
    #[schema(value_type = String, required = true, example = "dd/mm/yyyy")]
    pub date_format: Option<String>,
    /// One signed amount column (a debit is negative, bracketed or ends in DR) — or `creditColumn` (and
    /// `debitColumn`) instead.
    #[schema(value_type = Option<i64>, example = json!(null))]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub amount_column: Option<i64>,
    #[schema(value_type = Option<i64>, example = 5)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub credit_column: Option<i64>,
    #[schema(value_type = Option<i64>, example = 4)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub debit_column: Option<i64>,
    /// The column holding the UTR (UTR-shaped words of the narration are looked up too).
    #[schema(value_type = i64, required = true, example = 3)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub reference_column: Option<i64>,
    #[schema(value_type = Option<i64>, example = 2)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub narration_column: Option<i64>,
    /// `.` (India) or `,` (Indonesia).
    #[schema(value_type = String, required = true, example = ".")]
    pub decimal_separator: Option<String>,
    /// `,` (India), `.` (Indonesia), `space`, or empty for none.
    #[schema(value_type = Option<String>, example = ",")]
    pub thousands_separator: Option<String>,
}

impl MappingRequest {
    fn input(self) -> MappingInput {
        MappingInput {
            name: self.name,
            market: self.market,
            delimiter: self.delimiter,
            skip_rows: self.skip_rows,
            date_column: self.date_column,
            date_format: self.date_format,
            amount_column: self.amount_column,
            credit_column: self.credit_column,
            debit_column: self.debit_column,
            reference_column: self.reference_column,
            narration_column: self.narration_column,
            decimal_separator: self.decimal_separator,
            thousands_separator: self.thousands_separator,
        }
    }
}

/// The saved statement layouts, by name (finance or admin).
#[utoipa::path(get, path = "/api/v1/console/reconciliation/mappings", tag = "console",
    operation_id = "console_statement_mappings",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<Mapping>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance or admin", body = ErrorBody)))]
pub async fn mappings(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<Mapping>>>, ApiError> {
    let list = reconciliation::mappings(&state.services, &session.operator).await?;
    Ok(Envelope::ok(list))
}

/// Saves a bank's statement layout (finance or admin), to reuse for every statement of that bank. Audited.
#[utoipa::path(post, path = "/api/v1/console/reconciliation/mappings", tag = "console",
    operation_id = "console_create_statement_mapping",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((MappingRequest = "application/json"))),
    responses((status = 200, body = Envelope<Mapping>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `name` (required, too long, taken), `market`, `delimiter`, `skipRows`, `dateColumn`, `dateFormat`, `amountColumn` (neither or both ways), `creditColumn`, `debitColumn`, `referenceColumn`, `narrationColumn`, `decimalSeparator`, `thousandsSeparator`", body = ErrorBody)))]
pub async fn create_mapping(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<MappingRequest>,
) -> Result<Json<Envelope<Mapping>>, ApiError> {
    let saved =
        reconciliation::save_mapping(&state.services, &session.operator, None, &req.input())
            .await?;
    Ok(Envelope::ok(saved))
}

/// Replaces a saved layout (finance or admin). Audited with the layout before and after.
#[utoipa::path(put, path = "/api/v1/console/reconciliation/mappings/{mappingId}", tag = "console",
    operation_id = "console_update_statement_mapping",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("mappingId" = String, Path)),
    request_body(content((MappingRequest = "application/json"))),
    responses((status = 200, body = Envelope<Mapping>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "validation_failed: as on create", body = ErrorBody)))]
pub async fn update_mapping(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(mapping_id): Path<String>,
    JsonOrForm(req): JsonOrForm<MappingRequest>,
) -> Result<Json<Envelope<Mapping>>, ApiError> {
    let saved = reconciliation::save_mapping(
        &state.services,
        &session.operator,
        Some(&mapping_id),
        &req.input(),
    )
    .await?;
    Ok(Envelope::ok(saved))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewRequest {
    /// The file's text (UTF-8), at most 2 MiB.
    #[schema(value_type = String, required = true, example = "Date,Narration,Ref,Debit,Credit\n27/11/2026,UPI/712345678901,712345678901,,\"6,891.00\"\n")]
    pub content: Option<String>,
    /// A saved layout to read the file with.
    #[schema(value_type = Option<String>)]
    pub mapping_id: Option<String>,
    /// A layout as typed, not saved yet (its name may be left out); ignored with `mappingId`.
    #[schema(value_type = Option<MappingRequest>)]
    pub mapping: Option<MappingRequest>,
}

/// Previews a statement (finance or admin): its first 8 rows split into cells, and, with a layout (saved or as
/// typed), its first 20 lines read and each problem among them (line, column, why). Stores nothing.
#[utoipa::path(post, path = "/api/v1/console/reconciliation/preview", tag = "console",
    operation_id = "console_statement_preview",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((PreviewRequest = "application/json"))),
    responses((status = 200, body = Envelope<Preview>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `content` (required, over 2 MiB, over 5,000 lines, no lines, not text), `mappingId`, or a typed layout's fields", body = ErrorBody)))]
pub async fn preview(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<PreviewRequest>,
) -> Result<Json<Envelope<Preview>>, ApiError> {
    let mapping = req.mapping.map(MappingRequest::input);
    let preview = reconciliation::preview(
        &state.services,
        &session.operator,
        req.content.as_deref(),
        req.mapping_id.as_deref(),
        mapping.as_ref(),
    )
    .await?;
    Ok(Envelope::ok(preview))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportRequest {
    #[schema(value_type = String, required = true)]
    pub mapping_id: Option<String>,
    /// The file's name as uploaded; at most 100 characters.
    #[schema(value_type = String, required = true, example = "hdfc-2026-11-27.csv")]
    pub file_name: Option<String>,
    /// The file's text (UTF-8), at most 2 MiB and 5,000 lines.
    #[schema(value_type = String, required = true)]
    pub content: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportedView {
    /// True when this file (by its SHA-256) was imported before: the answer is that import, nothing new is stored.
    pub duplicate: bool,
    pub result: ImportResult,
}

/// Imports a bank statement with a saved layout (finance or admin): every line is read (one that cannot be is a
/// 422 naming its line, column and why; nothing is stored), each credit's UTR is looked up among the payments of the
/// layout's market, and the import is kept with its lines. Audited. The same file again answers the first import.
#[utoipa::path(post, path = "/api/v1/console/reconciliation/imports", tag = "console",
    operation_id = "console_statement_import",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((ImportRequest = "application/json"))),
    responses((status = 200, body = Envelope<ImportedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `mappingId`, `fileName`, `content` (the first line that cannot be read: line, column, why), `lines` (how many cannot be read)", body = ErrorBody)))]
pub async fn import(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<ImportRequest>,
) -> Result<Json<Envelope<ImportedView>>, ApiError> {
    let (result, duplicate) = reconciliation::import(
        &state.services,
        &session.operator,
        req.mapping_id.as_deref(),
        req.file_name.as_deref(),
        req.content.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(ImportedView { duplicate, result }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ImportsQuery {
    /// `IN` or `ID`; all markets when missing.
    #[param(value_type = Option<Market>, example = "IN")]
    pub market: Option<String>,
}

/// The latest 50 statement imports, newest first, with their counts (finance or admin).
#[utoipa::path(get, path = "/api/v1/console/reconciliation/imports", tag = "console",
    operation_id = "console_statement_imports",
    security(("console_cookie" = [])), params(ImportsQuery),
    responses((status = 200, body = Envelope<Vec<ImportSummary>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`", body = ErrorBody)))]
pub async fn imports(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<ImportsQuery>,
) -> Result<Json<Envelope<Vec<ImportSummary>>>, ApiError> {
    session
        .operator
        .require_any(reconciliation::RECONCILE_ROLES)?;
    // Left out: every market. Given, even empty, it must name one.
    let market = match query.market.as_deref().map(str::trim) {
        None => None,
        Some(code) => Some(
            parse_market(code)
                .ok_or_else(|| Error::field("market", FieldProblem::unknown_market()))?,
        ),
    };
    let list = reconciliation::imports(&state.services, &session.operator, market).await?;
    Ok(Envelope::ok(list))
}

/// One import (finance or admin): each line with how it stands now against the payments (matched, mismatched with
/// both amounts, unmatched, confirmed here, already confirmed elsewhere, not waiting, duplicate, debit), and the
/// market's waiting UTR payments no line names.
#[utoipa::path(get, path = "/api/v1/console/reconciliation/imports/{importId}", tag = "console",
    operation_id = "console_statement_import_result",
    security(("console_cookie" = [])),
    params(("importId" = String, Path)),
    responses((status = 200, body = Envelope<ImportResult>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not finance or admin", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn import_result(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(import_id): Path<String>,
) -> Result<Json<Envelope<ImportResult>>, ApiError> {
    let result = reconciliation::result(&state.services, &session.operator, &import_id).await?;
    Ok(Envelope::ok(result))
}

/// Confirms every matched line of an import (finance or admin): each payment through finance's confirmation path
/// (the same ledger entry, lifecycle and allocation as a manual confirmation), audited with its statement line.
/// Repeating it, or two operators at once, credits each payment once: a payment decided meanwhile is skipped.
#[utoipa::path(post, path = "/api/v1/console/reconciliation/imports/{importId}/confirm", tag = "console",
    operation_id = "console_statement_confirm",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("importId" = String, Path)),
    responses((status = 200, body = Envelope<ConfirmOutcome>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not finance or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn confirm(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(import_id): Path<String>,
) -> Result<Json<Envelope<ConfirmOutcome>>, ApiError> {
    let outcome =
        reconciliation::confirm_matched(&state.services, &session.operator, &import_id).await?;
    Ok(Envelope::ok(outcome))
}
