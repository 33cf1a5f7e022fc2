//! Lists and rows a batch binds to one statement, in a text that does not depend on the batch's size on PostgreSQL.
//!
//! SQLite takes one placeholder per value: `IN ($1, $2, …)`, `VALUES ($1, $2), ($3, $4), …`. PostgreSQL takes one
//! array per column: `= ANY(…)` of one array ([`any_of`]), `UNNEST(CAST($1 AS TEXT[]), CAST($2 AS BIGINT[]))`. A
//! statement then has one text whatever the batch's size, so a connection parses it once and sqlx keeps it prepared.
//! With a text per batch size, each new size was parsed and planned again, and the texts outnumbered sqlx's 100 cached
//! statements (docs/PERFORMANCE.md, "Parsing and planning in a burst"). sqlx's `Any` driver binds no arrays, so each
//! array goes as the text of an array literal, which PostgreSQL's `CAST` reads.

use sqlx::Any;
use sqlx::any::AnyArguments;
use sqlx::query::{Query, QueryAs};

/// One value bound to a statement.
pub(crate) enum Value<'q> {
    /// A text, or a JSON document in a [`Kind::Json`] column.
    Text(Option<&'q str>),
    Int(Option<i64>),
    /// One column's values in one text (PostgreSQL): an array literal, or JSON documents joined.
    Column(String),
}

/// A column's type, which says how PostgreSQL reads its values from one text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Int,
    /// JSON documents kilat wrote (a loan's position: 2.4 KB each), joined by the record separator U+001E and split
    /// with `string_to_array`. JSON never holds that character raw (a string escapes it, and it is not whitespace), so
    /// the documents need no escaping. In an array literal every quote of a document was escaped and read back: a
    /// page of 300 positions' upsert took 17–28 ms, against 11–15 ms as a `VALUES` list and 11 ms joined.
    Json,
}

impl Kind {
    /// How the column's one parameter is read into an array on PostgreSQL.
    fn array(self, parameter: usize) -> String {
        match self {
            Self::Text => format!("CAST(${parameter} AS TEXT[])"),
            Self::Int => format!("CAST(${parameter} AS BIGINT[])"),
            Self::Json => format!("string_to_array(${parameter}, chr(30), '')"),
        }
    }
}

/// Binds [`Value`]s to a query, in order.
pub(crate) trait BindValues<'q>: Sized {
    fn bind_value(self, value: Value<'q>) -> Self;

    fn bind_values(self, values: impl IntoIterator<Item = Value<'q>>) -> Self {
        values.into_iter().fold(self, Self::bind_value)
    }
}

impl<'q> BindValues<'q> for Query<'q, Any, AnyArguments<'q>> {
    fn bind_value(self, value: Value<'q>) -> Self {
        match value {
            Value::Text(v) => self.bind(v),
            Value::Int(v) => self.bind(v),
            Value::Column(v) => self.bind(v),
        }
    }
}

impl<'q, O> BindValues<'q> for QueryAs<'q, Any, O, AnyArguments<'q>> {
    fn bind_value(self, value: Value<'q>) -> Self {
        match value {
            Value::Text(v) => self.bind(v),
            Value::Int(v) => self.bind(v),
            Value::Column(v) => self.bind(v),
        }
    }
}

/// `IN ($first, …)` for `n` values on SQLite; `= ANY(…)` of one array on PostgreSQL. Bind [`texts`].
///
/// On PostgreSQL the array is read from its literal in a sub-select, which runs once per statement (an `InitPlan`).
/// A bare `CAST($1 AS TEXT[])` is not folded into a constant (reading an array literal is only stable), so a scan
/// that filters on it reads the literal again for every row: a batch of callbacks' ledger reads took about 6 ms each
/// instead of 1 ms, and the batches about 40 % longer (docs/PERFORMANCE.md).
pub(crate) fn any_of(sqlite: bool, first: usize, n: usize) -> String {
    if sqlite {
        format!("IN ({})", super::loans::placeholders(first, n))
    } else {
        format!("= ANY(CAST((SELECT CAST(${first} AS TEXT[])) AS TEXT[]))")
    }
}

/// What [`any_of`] takes: each value on SQLite, one array on PostgreSQL.
pub(crate) fn texts<'q>(sqlite: bool, values: &[&'q str]) -> Vec<Value<'q>> {
    if sqlite {
        values.iter().map(|v| Value::Text(Some(*v))).collect()
    } else {
        let mut literal = Literal::default();
        for v in values {
            literal.push(&Value::Text(Some(*v)));
        }
        vec![Value::Column(literal.end())]
    }
}

/// Rows of values for a multi-row statement: a `VALUES` list on SQLite, `UNNEST` of one array per column on
/// PostgreSQL.
pub(crate) struct Rows<'q> {
    sqlite: bool,
    kinds: &'static [Kind],
    /// Row after row.
    cells: Vec<Value<'q>>,
}

impl<'q> Rows<'q> {
    pub(crate) fn new(sqlite: bool, kinds: &'static [Kind]) -> Self {
        Self {
            sqlite,
            kinds,
            cells: Vec::new(),
        }
    }

    /// Appends a row: one value per column, of the column's kind.
    pub(crate) fn push(&mut self, row: impl IntoIterator<Item = Value<'q>>) {
        let before = self.cells.len();
        self.cells.extend(row);
        debug_assert_eq!(self.cells.len() - before, self.kinds.len());
        debug_assert!(
            self.cells[before..]
                .iter()
                .zip(self.kinds)
                .all(|(v, k)| match v {
                    Value::Text(_) => matches!(k, Kind::Text | Kind::Json),
                    Value::Int(_) => *k == Kind::Int,
                    Value::Column(_) => false,
                })
        );
    }

    fn rows(&self) -> usize {
        self.cells.len() / self.kinds.len().max(1)
    }

    /// The rows as an `INSERT`'s source: `VALUES (…), …` on SQLite, `SELECT * FROM UNNEST(…)` on PostgreSQL.
    pub(crate) fn values(&self, first: usize) -> String {
        if self.sqlite {
            format!("VALUES {}", self.value_list(first))
        } else {
            format!("SELECT * FROM {}", self.unnest(first))
        }
    }

    /// The rows as a relation named `alias` with the columns `column1`, `column2`, …, the names both databases give a
    /// `VALUES` list's columns.
    pub(crate) fn relation(&self, first: usize, alias: &str) -> String {
        if self.sqlite {
            format!("(VALUES {}) AS {alias}", self.value_list(first))
        } else {
            let columns = (1..=self.kinds.len())
                .map(|i| format!("column{i}"))
                .collect::<Vec<_>>()
                .join(", ");
            format!("{} AS {alias} ({columns})", self.unnest(first))
        }
    }

    fn value_list(&self, first: usize) -> String {
        let width = self.kinds.len();
        (0..self.rows())
            .map(|r| format!("({})", super::loans::placeholders(first + r * width, width)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn unnest(&self, first: usize) -> String {
        let arrays = self
            .kinds
            .iter()
            .enumerate()
            .map(|(i, k)| k.array(first + i))
            .collect::<Vec<_>>()
            .join(", ");
        format!("UNNEST({arrays})")
    }

    /// The values to bind, in the order [`Rows::values`] and [`Rows::relation`] number them.
    pub(crate) fn into_values(self) -> Vec<Value<'q>> {
        if self.sqlite {
            return self.cells;
        }
        let width = self.kinds.len();
        let mut literals: Vec<Literal> = (0..width).map(|_| Literal::default()).collect();
        let mut joined: Vec<Joined> = (0..width).map(|_| Joined::default()).collect();
        for (i, cell) in self.cells.iter().enumerate() {
            match self.kinds[i % width] {
                Kind::Json => joined[i % width].push(cell),
                Kind::Text | Kind::Int => literals[i % width].push(cell),
            }
        }
        self.kinds
            .iter()
            .zip(literals.into_iter().zip(joined))
            .map(|(kind, (literal, joined))| {
                Value::Column(match kind {
                    Kind::Json => joined.text,
                    Kind::Text | Kind::Int => literal.end(),
                })
            })
            .collect()
    }
}

/// JSON documents joined by U+001E for `string_to_array(…, chr(30), '')`: a missing one is the empty text, which that
/// reads as NULL (no JSON document is empty; a lone missing one reads as no element, which `UNNEST` pads with NULL
/// beside the other columns' one). A raw U+001E, which valid JSON never holds, goes as its escape.
#[derive(Default)]
struct Joined {
    text: String,
    elements: usize,
}

impl Joined {
    fn push(&mut self, value: &Value<'_>) {
        if self.elements > 0 {
            self.text.push('\u{1e}');
        }
        self.elements += 1;
        if let Value::Text(Some(json)) = value {
            debug_assert!(!json.is_empty(), "an empty JSON document");
            if json.contains('\u{1e}') {
                self.text.push_str(&json.replace('\u{1e}', "\\u001e"));
            } else {
                self.text.push_str(json);
            }
        }
    }
}

/// A PostgreSQL array literal built element by element: `{"a","b\"c",NULL,12}`. Each text is double-quoted with `\`
/// and `"` escaped, so commas, braces, spaces and the word NULL inside a text stay text.
#[derive(Default)]
struct Literal {
    text: String,
    elements: usize,
}

impl Literal {
    fn push(&mut self, value: &Value<'_>) {
        self.text.push(if self.elements == 0 { '{' } else { ',' });
        self.elements += 1;
        match value {
            Value::Text(Some(s)) => {
                self.text.push('"');
                for c in s.chars() {
                    if c == '"' || c == '\\' {
                        self.text.push('\\');
                    }
                    self.text.push(c);
                }
                self.text.push('"');
            }
            Value::Int(Some(n)) => self.text.push_str(&n.to_string()),
            Value::Text(None) | Value::Int(None) => self.text.push_str("NULL"),
            Value::Column(_) => unreachable!("columns are not nested"),
        }
    }

    fn end(mut self) -> String {
        if self.elements == 0 {
            self.text.push('{');
        }
        self.text.push('}');
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literal(values: &[Value<'_>]) -> String {
        let mut l = Literal::default();
        for v in values {
            l.push(v);
        }
        l.end()
    }

    /// The texts PostgreSQL's rows bind, one per column.
    fn columns(rows: Rows<'_>) -> Vec<String> {
        rows.into_values()
            .into_iter()
            .map(|v| match v {
                Value::Column(text) => text,
                _ => panic!("a text per column"),
            })
            .collect()
    }

    #[test]
    fn an_array_literal_quotes_every_text_and_escapes_quotes_and_backslashes() {
        assert_eq!(literal(&[]), "{}");
        assert_eq!(
            literal(&[
                Value::Text(Some("a")),
                Value::Text(Some(r#"b"c"#)),
                Value::Text(Some(r"d\e")),
                Value::Text(Some("{f, g}")),
                Value::Text(Some("NULL")),
                Value::Text(None),
                Value::Text(Some("")),
            ]),
            r#"{"a","b\"c","d\\e","{f, g}","NULL",NULL,""}"#
        );
        assert_eq!(
            literal(&[
                Value::Int(Some(-5)),
                Value::Int(None),
                Value::Int(Some(i64::MAX))
            ]),
            "{-5,NULL,9223372036854775807}"
        );
    }

    #[test]
    fn rows_are_a_values_list_on_sqlite_and_one_array_per_column_on_postgres() {
        const KINDS: &[Kind] = &[Kind::Text, Kind::Int];
        for sqlite in [true, false] {
            let mut rows = Rows::new(sqlite, KINDS);
            rows.push([Value::Text(Some("x")), Value::Int(Some(1))]);
            rows.push([Value::Text(None), Value::Int(Some(2))]);
            if sqlite {
                assert_eq!(rows.values(2), "VALUES ($2, $3), ($4, $5)");
                assert_eq!(rows.relation(1, "v"), "(VALUES ($1, $2), ($3, $4)) AS v");
                assert_eq!(rows.into_values().len(), 4);
            } else {
                assert_eq!(
                    rows.values(2),
                    "SELECT * FROM UNNEST(CAST($2 AS TEXT[]), CAST($3 AS BIGINT[]))"
                );
                assert_eq!(
                    rows.relation(1, "v"),
                    "UNNEST(CAST($1 AS TEXT[]), CAST($2 AS BIGINT[])) AS v (column1, column2)"
                );
                let values = columns(rows);
                assert_eq!(values, [r#"{"x",NULL}"#, "{1,2}"]);
            }
        }
        const JSON: &[Kind] = &[Kind::Text, Kind::Json];
        let mut rows = Rows::new(false, JSON);
        rows.push([
            Value::Text(Some("a")),
            Value::Text(Some(r#"{"k":"v \"q\""}"#)),
        ]);
        rows.push([Value::Text(Some("b")), Value::Text(None)]);
        rows.push([Value::Text(Some("c")), Value::Text(Some("[\u{1e}]"))]);
        assert_eq!(
            rows.values(1),
            "SELECT * FROM UNNEST(CAST($1 AS TEXT[]), string_to_array($2, chr(30), ''))"
        );
        let values = columns(rows);
        assert_eq!(
            values,
            [
                r#"{"a","b","c"}"#.to_owned(),
                format!("{}\u{1e}\u{1e}{}", r#"{"k":"v \"q\""}"#, r"[\u001e]")
            ]
        );
        assert_eq!(any_of(true, 3, 2), "IN ($3, $4)");
        assert_eq!(
            any_of(false, 3, 2),
            "= ANY(CAST((SELECT CAST($3 AS TEXT[])) AS TEXT[]))"
        );
        assert_eq!(texts(true, &["a", "b"]).len(), 2);
        assert!(
            matches!(&texts(false, &["a", "b"])[..], [Value::Column(a)] if a == r#"{"a","b"}"#)
        );
    }
}
