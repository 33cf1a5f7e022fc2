//! The audit trail search and its CSV export (admin, support).

use axum::Json;
use axum::extract::State;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::audit::{self, AuditQuery, Change};
use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::ApiQuery;
use crate::infra::csv::CsvWriter;
use crate::store::audit::AuditRow;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub struct AuditSearch {
    /// Entries about this order.
    pub order_no: Option<String>,
    /// Entries made by this operator (username or id).
    pub operator: Option<String>,
    /// Epoch milliseconds, inclusive.
    #[param(value_type = Option<i64>)]
    pub from: Option<String>,
    /// Epoch milliseconds, exclusive.
    #[param(value_type = Option<i64>)]
    pub to: Option<String>,
    /// One action (`order.approve`) or a family of actions ending in a dot (`payment.`).
    pub action: Option<String>,
    /// Where the previous page ended: its `next`. Only the search reads it, not the export.
    pub before: Option<String>,
}

impl AuditSearch {
    /// The filters as the capability takes them; a time that is not epoch milliseconds is a field error.
    fn query(&self) -> Result<AuditQuery<'_>, ApiError> {
        let mut errors = FieldErrors::default();
        let mut time = |field: &'static str, raw: Option<&str>| {
            // Left out: no bound. Given, even empty, it must be a time.
            let raw = raw.map(str::trim)?;
            raw.parse::<i64>().ok().filter(|ms| *ms >= 0).or_else(|| {
                errors.add(field, FieldProblem::new("field.epoch_ms"));
                None
            })
        };
        let from = time("from", self.from.as_deref());
        let to = time("to", self.to.as_deref());
        errors.into_result()?;
        Ok(AuditQuery {
            order_no: self.order_no.as_deref(),
            operator: self.operator.as_deref(),
            from,
            to,
            action: self.action.as_deref(),
            before: self.before.as_deref(),
        })
    }
}

/// One field an entry changed.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditChangeView {
    /// The field's path, nested fields joined by dots (`plan.1.dueDate`).
    pub field: String,
    /// Any JSON value (text, number, boolean, list, object); null when the field was absent before.
    #[schema(required = true)]
    pub before: serde_json::Value,
    /// Any JSON value; null when the field is absent after.
    #[schema(required = true)]
    pub after: serde_json::Value,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntryView {
    pub id: String,
    /// `borrower`, `operator` or `system`.
    pub actor_kind: String,
    #[schema(required = true)]
    pub actor_id: Option<String>,
    /// The acting operator's username; null for a borrower or the system.
    #[schema(required = true)]
    pub actor_name: Option<String>,
    /// E.g. `order.approve`, `view_unmasked`.
    pub action: String,
    pub entity: String,
    pub entity_id: String,
    /// The order's number, for an entry about an order.
    #[schema(required = true)]
    pub order_no: Option<String>,
    /// The order's currency (`INR`, `IDR`), for an entry about an order: amounts in `changes` are its minor units.
    #[schema(required = true)]
    pub currency: Option<String>,
    /// The record's state before and after, as JSON; null when not recorded.
    #[schema(value_type = Option<Object>, required = true)]
    pub before: Option<serde_json::Value>,
    #[schema(value_type = Option<Object>, required = true)]
    pub after: Option<serde_json::Value>,
    /// The fields that differ between before and after, field by field.
    pub changes: Vec<AuditChangeView>,
    /// Epoch milliseconds.
    pub at: i64,
}

impl From<AuditRow> for AuditEntryView {
    fn from(row: AuditRow) -> Self {
        let e = row.entry;
        let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
        let before = json(e.before_json);
        let after = json(e.after_json);
        let changes = audit::changes(before.as_ref(), after.as_ref())
            .into_iter()
            .map(
                |Change {
                     field,
                     before,
                     after,
                 }| AuditChangeView {
                    field,
                    before,
                    after,
                },
            )
            .collect();
        Self {
            id: e.id,
            actor_kind: e.actor_kind,
            actor_id: e.actor_id,
            actor_name: row.actor_name,
            action: e.action,
            entity: e.entity,
            entity_id: e.entity_id,
            order_no: row.order_no,
            currency: row.currency,
            before,
            after,
            changes,
            at: e.at,
        }
    }
}

/// A page of the audit search.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditPageView {
    /// Newest first, at most 200.
    pub entries: Vec<AuditEntryView>,
    /// Where the next, older page starts (send it as `before`); null on the last page.
    #[schema(required = true)]
    pub next: Option<String>,
}

/// Searches the audit trail, newest first, a page of at most 200 entries at a time (admin, support).
#[utoipa::path(get, path = "/api/v1/console/audit", tag = "console", operation_id = "console_audit",
    security(("console_cookie" = [])), params(AuditSearch),
    responses((status = 200, body = Envelope<AuditPageView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither admin nor support", body = ErrorBody),
        (status = 422, description = "validation_failed: `from`, `to`, `action` or `before`", body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(search): ApiQuery<AuditSearch>,
) -> Result<Json<Envelope<AuditPageView>>, ApiError> {
    let page = audit::search(&state.services, &session.operator, &search.query()?).await?;
    Ok(Envelope::ok(AuditPageView {
        entries: page.entries.into_iter().map(AuditEntryView::from).collect(),
        next: page.next,
    }))
}

/// The entries of a search as CSV, newest first (admin, support); a search of more than 10,000 entries is refused
/// (narrow the dates). The export is itself audited (`audit.export`). Columns: time (UTC, RFC 3339), actor, action,
/// record, changes, before, after.
#[utoipa::path(get, path = "/api/v1/console/audit/export", tag = "console", operation_id = "console_audit_export",
    security(("console_cookie" = [])), params(AuditSearch),
    responses((status = 200, description = "text/csv", content_type = "text/csv", body = String),
        (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: neither admin nor support", body = ErrorBody),
        (status = 422, description = "validation_failed: `from`, `to` or `action`; `from` when more than 10,000 entries match",
            body = ErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(search): ApiQuery<AuditSearch>,
) -> Result<Response, ApiError> {
    let query = AuditQuery {
        before: None,
        ..search.query()?
    };
    let rows = audit::export(&state.services, &session.operator, &query).await?;
    let mut csv = CsvWriter::new();
    csv.header(&[
        "time_utc", "actor", "action", "record", "changes", "before", "after",
    ]);
    for row in rows {
        let view = AuditEntryView::from(row);
        let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(view.at) * 1_000_000)
            .ok()
            .and_then(|t| t.format(&Rfc3339).ok())
            .unwrap_or_default();
        let actor = match (&view.actor_name, &view.actor_id) {
            (Some(name), _) => name.clone(),
            (None, Some(id)) => format!("{} {id}", view.actor_kind),
            (None, None) => view.actor_kind.clone(),
        };
        let record = match &view.order_no {
            Some(no) => format!("order {no}"),
            None => format!("{} {}", view.entity, view.entity_id),
        };
        let changes = view
            .changes
            .iter()
            .map(|c| format!("{}: {} → {}", c.field, c.before, c.after))
            .collect::<Vec<_>>()
            .join("; ");
        let side =
            |v: &Option<serde_json::Value>| v.as_ref().map(ToString::to_string).unwrap_or_default();
        csv.raw(&at)
            .text(&actor)
            .text(&view.action)
            .text(&record)
            .text(&changes)
            .text(&side(&view.before))
            .text(&side(&view.after))
            .end_row();
    }
    Ok(crate::http::csv::download("kilat-audit.csv", csv.finish()))
}
