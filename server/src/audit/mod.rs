//! The audit trail as people read it (docs/API-CONSOLE.md, issue 18 item 9): searched by order, operator, dates and
//! action, each entry with the operator's username and the order's number and currency; and exported to CSV, the
//! export itself audited (who took which entries out, and when).

use serde::Serialize;

use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldProblem};
use crate::services::Services;
use crate::store::audit::{AuditCursor, AuditFilter, AuditRow, AuditScope, NewAuditEntry};
use kilat_domain::Code;

/// Who may read the audit trail.
pub const AUDIT_ROLES: &[Role] = &[Role::Admin, Role::Support];

/// The most entries a page of a search shows.
pub const SEARCH_LIMIT: i64 = 200;
/// The most entries one export holds: a bounded answer, whatever the range. A search with more is refused (narrow
/// it), never cut short without a word: an export is what an inspector is handed.
pub const EXPORT_LIMIT: i64 = 10_000;

/// What the audit search filters on, as the operator gives it.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditQuery<'a> {
    pub order_no: Option<&'a str>,
    /// An operator's username or id.
    pub operator: Option<&'a str>,
    pub from: Option<i64>,
    pub to: Option<i64>,
    /// One action (`order.approve`) or a family ending in a dot (`payment.`).
    pub action: Option<&'a str>,
    /// Where the previous page ended ([`AuditPage::next`]): only older entries.
    #[serde(skip)]
    pub before: Option<&'a str>,
}

/// A page of a search: its entries, newest first, and where the next (older) page starts, if there are more.
#[derive(Debug)]
pub struct AuditPage {
    pub entries: Vec<AuditRow>,
    /// The cursor to search on from (`before`), `None` on the last page.
    pub next: Option<String>,
}

/// An entry's place as a cursor: its time and id (`1700000000000.4f1c…`).
fn cursor_of(row: &AuditRow) -> String {
    format!("{}.{}", row.entry.at, row.entry.id)
}

/// A cursor as [`cursor_of`] writes it; anything else is a field error on `before`.
fn cursor(raw: Option<&str>) -> Result<Option<AuditCursor<'_>>, Error> {
    let Some(raw) = raw.map(str::trim) else {
        return Ok(None);
    };
    raw.split_once('.')
        .and_then(|(at, id)| {
            let at = at.parse::<i64>().ok().filter(|at| *at >= 0)?;
            let reads = !id.is_empty()
                && id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            reads.then_some(AuditCursor { at, id })
        })
        .map(Some)
        .ok_or_else(|| Error::field("before", FieldProblem::new("field.audit_cursor")))
}

/// Entries matching every filter given, newest first, a page of at most 200 at a time (from `before`, where the
/// previous page ended). An order number or operator that does not exist matches nothing. An operator of one market
/// reads only the entries on that market's orders and complaints, and their own; an order of another market matches
/// nothing, as an unknown one.
pub async fn search(
    s: &Services,
    op: &Operator,
    query: &AuditQuery<'_>,
) -> Result<AuditPage, Error> {
    op.require_any(AUDIT_ROLES)?;
    let mut entries = find(s, op, query, SEARCH_LIMIT + 1).await?;
    let more = entries.len() as i64 > SEARCH_LIMIT;
    entries.truncate(SEARCH_LIMIT as usize);
    let next = more.then(|| entries.last().map(cursor_of)).flatten();
    Ok(AuditPage { entries, next })
}

/// The entries of a search for a CSV export, newest first. A search of more than [`EXPORT_LIMIT`] entries is
/// refused (`audit.export_too_many`: narrow the dates). The export is itself an entry of the trail (`audit.export`,
/// with the filters and how many entries left), written before the entries are answered.
pub async fn export(
    s: &Services,
    op: &Operator,
    query: &AuditQuery<'_>,
) -> Result<Vec<AuditRow>, Error> {
    op.require_any(AUDIT_ROLES)?;
    let rows = find(s, op, query, EXPORT_LIMIT + 1).await?;
    if rows.len() as i64 > EXPORT_LIMIT {
        return Err(Error::field(
            "from",
            FieldProblem::new("field.audit_export_too_many"),
        ));
    }
    let after = serde_json::json!({ "filters": query, "entries": rows.len() }).to_string();
    let mut tx = s.db.begin().await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "audit.export",
        entity: "audit",
        entity_id: "export",
        before_json: None,
        after_json: Some(&after),
        at: s.clock.now_ms(),
    })
    .await?;
    tx.commit().await?;
    Ok(rows)
}

/// An action filter reads as an action or a family: lower-case letters, digits, `_` and `.`, at most 64.
fn action_filter(raw: Option<&str>) -> Result<Option<&str>, Error> {
    let Some(action) = raw.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let reads = action.len() <= 64
        && action
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '.');
    if !reads {
        return Err(Error::field(
            "action",
            FieldProblem::new("field.audit_action"),
        ));
    }
    Ok(Some(action))
}

async fn find(
    s: &Services,
    op: &Operator,
    query: &AuditQuery<'_>,
    limit: i64,
) -> Result<Vec<AuditRow>, Error> {
    let action = action_filter(query.action)?;
    let before = cursor(query.before)?;
    let order_id = match query.order_no.map(str::trim).filter(|n| !n.is_empty()) {
        Some(no) => match s.db.order_by_no(no).await? {
            Some(order) if op.may_see(order.market) => Some(order.id),
            _ => return Ok(Vec::new()),
        },
        None => None,
    };
    let operator_id = match query.operator.map(str::trim).filter(|n| !n.is_empty()) {
        Some(name) => match s
            .db
            .operator_by_username(&name.to_ascii_lowercase())
            .await?
        {
            Some(found) => Some(found.id),
            None => Some(name.to_owned()),
        },
        None => None,
    };
    Ok(s.db
        .search_audit(
            &AuditFilter {
                order_id: order_id.as_deref(),
                operator_id: operator_id.as_deref(),
                from: query.from,
                to: query.to,
                action,
                scope: op.market_filter(None)?.map(|market| AuditScope {
                    market: market.code(),
                    own_id: &op.id,
                }),
                before,
            },
            limit,
        )
        .await?)
}

/// One field that an entry changed: its path (`plan.0.amount` inside nested records) and its values before and after
/// (null when absent on that side).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub field: String,
    pub before: serde_json::Value,
    pub after: serde_json::Value,
}

/// The fields that differ between an entry's before and after, nested objects and arrays walked to their leaves: the
/// fields of before by name, then those only after has. An entry with only one side lists every field of that side.
pub fn changes(
    before: Option<&serde_json::Value>,
    after: Option<&serde_json::Value>,
) -> Vec<Change> {
    use serde_json::Value;
    fn walk(path: &str, before: &Value, after: &Value, out: &mut Vec<Change>) {
        let join = |key: &str| {
            if path.is_empty() {
                key.to_owned()
            } else {
                format!("{path}.{key}")
            }
        };
        match (before, after) {
            (Value::Object(b), Value::Object(a)) => {
                for (key, bv) in b {
                    walk(&join(key), bv, a.get(key).unwrap_or(&Value::Null), out);
                }
                for (key, av) in a.iter().filter(|(k, _)| !b.contains_key(*k)) {
                    walk(&join(key), &Value::Null, av, out);
                }
            }
            (Value::Array(b), Value::Array(a)) if b.len() == a.len() => {
                for (i, (bv, av)) in b.iter().zip(a).enumerate() {
                    walk(&join(&i.to_string()), bv, av, out);
                }
            }
            (Value::Object(b), Value::Null) => {
                for (key, bv) in b {
                    walk(&join(key), bv, &Value::Null, out);
                }
            }
            (Value::Null, Value::Object(a)) => {
                for (key, av) in a {
                    walk(&join(key), &Value::Null, av, out);
                }
            }
            (b, a) if b != a => out.push(Change {
                field: path.to_owned(),
                before: b.clone(),
                after: a.clone(),
            }),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(
        "",
        before.unwrap_or(&Value::Null),
        after.unwrap_or(&Value::Null),
        &mut out,
    );
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn only_the_fields_that_differ_are_listed_nested_ones_by_their_path() {
        let before = json!({"status": "pending_review", "amount": 500_000, "plan": [{"due": 1}, {"due": 2}], "same": true});
        let after = json!({"status": "approved", "amount": 500_000, "plan": [{"due": 1}, {"due": 3}], "same": true, "note": "ok"});
        assert_eq!(
            changes(Some(&before), Some(&after)),
            vec![
                Change {
                    field: "plan.1.due".into(),
                    before: json!(2),
                    after: json!(3)
                },
                Change {
                    field: "status".into(),
                    before: json!("pending_review"),
                    after: json!("approved")
                },
                Change {
                    field: "note".into(),
                    before: json!(null),
                    after: json!("ok")
                },
            ]
        );
    }

    #[test]
    fn one_side_lists_every_field_and_a_list_of_another_length_is_one_change() {
        let after = json!({"username": "asha", "roles": ["finance"]});
        assert_eq!(changes(None, Some(&after)).len(), 2);
        let roles = changes(
            Some(&json!({"roles": ["a"]})),
            Some(&json!({"roles": ["a", "b"]})),
        );
        assert_eq!(
            roles,
            vec![Change {
                field: "roles".into(),
                before: json!(["a"]),
                after: json!(["a", "b"])
            }]
        );
        assert!(changes(None, None).is_empty());
        assert!(changes(Some(&json!({"a": 1})), Some(&json!({"a": 1}))).is_empty());
    }

    #[test]
    fn an_action_filter_is_an_action_or_a_family_and_nothing_else() {
        assert_eq!(
            action_filter(Some(" order.approve ")).unwrap(),
            Some("order.approve")
        );
        assert_eq!(action_filter(Some("payment.")).unwrap(), Some("payment."));
        assert_eq!(action_filter(Some("")).unwrap(), None);
        for bad in ["payment.%", "Order", "a b", "x'--", &"a".repeat(65)] {
            assert!(action_filter(Some(bad)).is_err(), "{bad}");
        }
    }
}
