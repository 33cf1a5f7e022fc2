//! The audit trail: who did what, when, to which record, with its state before and after. Append-only.

use super::lists::Kind::{Int, Text};
use super::lists::{self, BindValues, Rows};
use super::{Db, Tx, new_id};
use sqlx::any::AnyArguments;
use sqlx::{Arguments, Row};

/// One entry to append.
#[derive(Debug, Clone)]
pub struct NewAuditEntry<'a> {
    /// `borrower`, `operator` or `system`.
    pub actor_kind: &'a str,
    pub actor_id: Option<&'a str>,
    /// E.g. `order.approve`: lower-case words joined by dots, at most three (the family index,
    /// [`FAMILY_OF_ACTION`], reads the first; a debug build checks each entry written).
    pub action: &'a str,
    /// E.g. `order`.
    pub entity: &'a str,
    pub entity_id: &'a str,
    pub before_json: Option<&'a str>,
    pub after_json: Option<&'a str>,
    pub at: i64,
}

/// An entry as stored.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AuditEntry {
    pub id: String,
    pub actor_kind: String,
    pub actor_id: Option<String>,
    pub action: String,
    pub entity: String,
    pub entity_id: String,
    pub before_json: Option<String>,
    pub after_json: Option<String>,
    pub at: i64,
}

/// The family an action belongs to, as SQL over `a.action`: its first part with its dot (`payment.` for `payment.utr`,
/// `site.` for `site.claims.update`), '' for an action without a dot. Word for word the expression of migration
/// 0051's `audit_log_family` index (with `a.` before each `action`), so that both databases read the index for it:
/// each `rtrim` takes the last part off (the characters an action's parts are made of), which both have; an action
/// of four parts would be keyed by its first two, so none is written (`NewAuditEntry::action`).
const FAMILY_OF_ACTION: &str = "CASE WHEN rtrim(rtrim(rtrim(a.action, 'abcdefghijklmnopqrstuvwxyz0123456789_'), '.'), \
     'abcdefghijklmnopqrstuvwxyz0123456789_') = '' THEN rtrim(a.action, 'abcdefghijklmnopqrstuvwxyz0123456789_') \
     ELSE rtrim(rtrim(rtrim(a.action, 'abcdefghijklmnopqrstuvwxyz0123456789_'), '.'), \
     'abcdefghijklmnopqrstuvwxyz0123456789_') END";

/// The family a family filter (`payment.`, `site.claims.`) reads in the index: its first part with its dot.
fn first_part(family: &str) -> &str {
    family.find('.').map_or(family, |dot| &family[..=dot])
}

/// Whether the family index keys `action` by its first part (at most three parts); each entry written is checked in a
/// debug build, the action in the message when not.
fn keyed_by_its_first_part(action: &str) -> bool {
    action.matches('.').count() <= 2
}

impl Tx {
    pub async fn insert_audit(&mut self, entry: &NewAuditEntry<'_>) -> sqlx::Result<()> {
        debug_assert!(keyed_by_its_first_part(entry.action), "{}", entry.action);
        sqlx::query(
            "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(new_id())
        .bind(entry.actor_kind)
        .bind(entry.actor_id)
        .bind(entry.action)
        .bind(entry.entity)
        .bind(entry.entity_id)
        .bind(entry.before_json)
        .bind(entry.after_json)
        .bind(entry.at)
        .execute(self.conn())
        .await?;
        Ok(())
    }
}

impl Tx {
    /// Appends several entries in multi-row inserts (the batched [`Tx::insert_audit`]).
    pub async fn insert_audits(&mut self, entries: &[NewAuditEntry<'_>]) -> sqlx::Result<()> {
        for chunk in entries.chunks(300) {
            let ids: Vec<String> = chunk.iter().map(|_| new_id()).collect();
            let mut rows = Rows::new(
                self.sqlite,
                &[Text, Text, Text, Text, Text, Text, Text, Text, Int],
            );
            for (entry, id) in chunk.iter().zip(&ids) {
                debug_assert!(keyed_by_its_first_part(entry.action), "{}", entry.action);
                rows.push([
                    lists::Value::Text(Some(id.as_str())),
                    lists::Value::Text(Some(entry.actor_kind)),
                    lists::Value::Text(entry.actor_id),
                    lists::Value::Text(Some(entry.action)),
                    lists::Value::Text(Some(entry.entity)),
                    lists::Value::Text(Some(entry.entity_id)),
                    lists::Value::Text(entry.before_json),
                    lists::Value::Text(entry.after_json),
                    lists::Value::Int(Some(entry.at)),
                ]);
            }
            let sql = format!(
                "INSERT INTO audit_log (id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at)
                 {}",
                rows.values(1)
            );
            sqlx::query(&sql)
                .bind_values(rows.into_values())
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }
}

impl Db {
    /// The entries about one record, oldest first.
    pub async fn audit_of(&self, entity: &str, entity_id: &str) -> sqlx::Result<Vec<AuditEntry>> {
        sqlx::query_as(
            "SELECT id, actor_kind, actor_id, action, entity, entity_id, before_json, after_json, at
             FROM audit_log WHERE entity = $1 AND entity_id = $2 ORDER BY at, id",
        )
        .bind(entity)
        .bind(entity_id)
        .fetch_all(self.pool())
        .await
    }
}

/// An entry as the console's search shows it: with the operator's username and the order's number and currency,
/// where the entry has them.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct AuditRow {
    #[row(flatten)]
    pub entry: AuditEntry,
    /// The acting operator's username (operators are never deleted, only disabled).
    pub actor_name: Option<String>,
    /// The order's number, for an entry about an order.
    pub order_no: Option<String>,
    /// The order's currency, for an entry about an order: what the amounts before and after are in.
    pub currency: Option<String>,
}

/// What the audit search filters on; each filter is optional.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter<'a> {
    /// Entries about this order (its id).
    pub order_id: Option<&'a str>,
    /// Entries made by this operator (their id).
    pub operator_id: Option<&'a str>,
    /// Epoch milliseconds, inclusive.
    pub from: Option<i64>,
    /// Epoch milliseconds, exclusive.
    pub to: Option<i64>,
    /// One action (`order.approve`), or a family of actions when it ends in a dot (`payment.`: every action starting
    /// with it). Lower-case letters, digits, `_` and `.` only (the caller checks it).
    pub action: Option<&'a str>,
    /// An operator of one market: only the entries on that market's orders and complaints, and the operator's own
    /// (`market` is its code, `own_id` the operator's id); `None` for an operator of every market.
    pub scope: Option<AuditScope<'a>>,
    /// Only the entries older than this one (its time and id): where the previous page of a search ended.
    pub before: Option<AuditCursor<'a>>,
}

/// An entry's place in the search's order (newest first): its time, then its id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditCursor<'a> {
    pub at: i64,
    pub id: &'a str,
}

/// The entries an operator of one market reads (`AuditFilter::scope`).
#[derive(Debug, Clone, Copy)]
pub struct AuditScope<'a> {
    pub market: &'a str,
    pub own_id: &'a str,
}

impl Db {
    /// Entries matching every filter given, newest first (at most `limit`), with the names and numbers they refer to.
    /// The statement holds only the filters given ([`search_statement`]), so that each combination is planned for
    /// itself.
    pub async fn search_audit(
        &self,
        filter: &AuditFilter<'_>,
        limit: i64,
    ) -> sqlx::Result<Vec<AuditRow>> {
        let (sql, values) = search_statement(filter, limit);
        sqlx::query_as_with(&sql, arguments(values)?)
            .fetch_all(self.pool())
            .await
    }

    /// How the database would read [`Db::search_audit`]'s statement for these filters, a line a step (`EXPLAIN` on
    /// PostgreSQL, `EXPLAIN QUERY PLAN` on SQLite): what the tests check the indexes are read by.
    pub async fn audit_search_plan(
        &self,
        filter: &AuditFilter<'_>,
        limit: i64,
    ) -> sqlx::Result<Vec<String>> {
        let (sql, values) = search_statement(filter, limit);
        let (explain, column) = self.explain();
        let sql = format!("{explain}{sql}");
        let rows = sqlx::query_with(&sql, arguments(values)?)
            .fetch_all(self.pool())
            .await?;
        rows.iter()
            .map(|row| row.try_get::<String, _>(column))
            .collect()
    }
}

/// A value [`search_statement`] binds.
enum Value<'v> {
    Text(&'v str),
    Number(i64),
}

/// The values to bind, in order.
fn arguments(values: Vec<Value<'_>>) -> sqlx::Result<AnyArguments<'_>> {
    let mut arguments = AnyArguments::default();
    for value in values {
        match value {
            Value::Text(text) => arguments.add(text),
            Value::Number(number) => arguments.add(number),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(arguments)
}

/// The audit search's statement with only the filters given, and the values it binds in order: an index read for
/// an order, an operator, an action or a family, and the time order for the rest (docs/PERFORMANCE.md, "The audit
/// search at scale"). The SQL is built from this function's own text only.
fn search_statement<'v>(filter: &AuditFilter<'v>, limit: i64) -> (String, Vec<Value<'v>>) {
    /// Adds a value to bind: its placeholder.
    fn next<'v>(value: Value<'v>, values: &mut Vec<Value<'v>>) -> String {
        values.push(value);
        format!("${}", values.len())
    }
    let mut values = Vec::new();
    let mut sql = String::from(
        "SELECT a.id, a.actor_kind, a.actor_id, a.action, a.entity, a.entity_id, a.before_json, a.after_json,
                a.at, op.username AS actor_name, o.order_no, o.currency
         FROM audit_log a
         LEFT JOIN operators op ON a.actor_kind = 'operator' AND op.id = a.actor_id
         LEFT JOIN orders o ON a.entity = 'order' AND o.id = a.entity_id
         LEFT JOIN complaints c ON a.entity = 'complaint' AND c.id = a.entity_id
         WHERE 1 = 1",
    );
    if let Some(order_id) = filter.order_id {
        let id = next(Value::Text(order_id), &mut values);
        sql += &format!(" AND a.entity = 'order' AND a.entity_id = {id}");
    }
    if let Some(scope) = filter.scope {
        let market = next(Value::Text(scope.market), &mut values);
        let own = next(Value::Text(scope.own_id), &mut values);
        sql += &format!(
            " AND (o.market = {market} OR c.market = {market} OR (a.actor_kind = 'operator' AND a.actor_id = {own}))"
        );
    }
    if let Some(operator_id) = filter.operator_id {
        let id = next(Value::Text(operator_id), &mut values);
        sql += &format!(" AND a.actor_kind = 'operator' AND a.actor_id = {id}");
    }
    if let Some(from) = filter.from {
        sql += &format!(" AND a.at >= {}", next(Value::Number(from), &mut values));
    }
    if let Some(to) = filter.to {
        sql += &format!(" AND a.at < {}", next(Value::Number(to), &mut values));
    }
    match filter.action {
        // A family: its first part through the index; a family of more parts (`site.claims.`) then by its start.
        Some(family) if family.ends_with('.') => {
            let first = first_part(family);
            sql += &format!(
                " AND {FAMILY_OF_ACTION} = {}",
                next(Value::Text(first), &mut values)
            );
            if first != family {
                let whole = next(Value::Text(family), &mut values);
                sql += &format!(" AND substr(a.action, 1, length({whole})) = {whole}");
            }
        }
        Some(action) => {
            sql += &format!(" AND a.action = {}", next(Value::Text(action), &mut values));
        }
        None => {}
    }
    if let Some(before) = filter.before {
        // The bound on the time alone first, so that the time indexes read from it.
        let at = next(Value::Number(before.at), &mut values);
        let id = next(Value::Text(before.id), &mut values);
        sql += &format!(" AND a.at <= {at} AND (a.at < {at} OR a.id < {id})");
    }
    let limit = next(Value::Number(limit), &mut values);
    sql += &format!(" ORDER BY a.at DESC, a.id DESC LIMIT {limit}");
    (sql, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_read_in_the_index_by_its_first_part() {
        assert_eq!(first_part("payment."), "payment.");
        assert_eq!(first_part("site.claims."), "site.");
        assert_eq!(first_part("."), ".");
        assert!(keyed_by_its_first_part("site.claims.update"));
        assert!(keyed_by_its_first_part("view_unmasked"));
        assert!(!keyed_by_its_first_part("a.b.c.d"));
    }

    #[test]
    fn the_family_expression_is_the_index_s_word_for_word() {
        let words = |sql: &str| sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let migration = include_str!("../../migrations/0051_audit_by_family.sql");
        let ours = words(&FAMILY_OF_ACTION.replace("a.action", "action"));
        assert!(
            words(migration).contains(&format!("ON audit_log (({ours}), at)")),
            "{ours}"
        );
    }

    #[test]
    fn the_statement_holds_only_the_filters_given_each_value_bound() {
        let (sql, values) = search_statement(&AuditFilter::default(), 200);
        assert!(
            sql.ends_with("WHERE 1 = 1 ORDER BY a.at DESC, a.id DESC LIMIT $1"),
            "{sql}"
        );
        assert_eq!(values.len(), 1);

        let filter = AuditFilter {
            operator_id: Some("op"),
            from: Some(10),
            action: Some("site.claims."),
            ..AuditFilter::default()
        };
        let (sql, values) = search_statement(&filter, 50);
        assert!(
            sql.contains("a.actor_id = $1 AND a.at >= $2 AND CASE WHEN"),
            "{sql}"
        );
        assert!(
            sql.contains(" = $3 AND substr(a.action, 1, length($4)) = $4 ORDER BY"),
            "{sql}"
        );
        assert!(
            !sql.contains("op'") && !sql.contains("site."),
            "no value is written into the SQL: {sql}"
        );
        let texts: Vec<&str> = values
            .iter()
            .filter_map(|v| match v {
                Value::Text(t) => Some(*t),
                Value::Number(_) => None,
            })
            .collect();
        assert_eq!(texts, ["op", "site.", "site.claims."]);

        // A one-part family is the index's key alone; one action is compared whole.
        let (sql, _) = search_statement(
            &AuditFilter {
                action: Some("payment."),
                ..AuditFilter::default()
            },
            1,
        );
        assert!(!sql.contains("substr"), "{sql}");
        let (sql, _) = search_statement(
            &AuditFilter {
                action: Some("payment.utr"),
                ..AuditFilter::default()
            },
            1,
        );
        assert!(
            sql.contains("a.action = $1") && !sql.contains("CASE"),
            "{sql}"
        );
    }
}
