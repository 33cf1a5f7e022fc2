//! Bank statements (migration 0033): the mappings of each bank's layout, the imports (one per file, by its hash) and
//! their lines, each with the payment whose UTR it carries. A line is marked confirmed by a conditional update, once.

use super::loans::placeholders;
use super::payments::{COLUMNS as PAYMENT_COLUMNS, Duplicate, PaymentRow};
use super::{Db, Tx, new_id};

fn unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(d) if d.is_unique_violation())
}

/// A bank's statement layout as stored; columns are 1-based.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct MappingRow {
    pub id: String,
    pub name: String,
    pub market: String,
    pub delimiter: String,
    pub skip_rows: i64,
    pub date_column: i64,
    pub date_format: String,
    pub amount_column: Option<i64>,
    pub credit_column: Option<i64>,
    pub debit_column: Option<i64>,
    pub reference_column: i64,
    pub narration_column: Option<i64>,
    pub decimal_separator: String,
    /// Empty: none.
    pub thousands_separator: String,
    pub created_by: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// A layout to save (create or replace).
pub struct NewMapping<'a> {
    pub name: &'a str,
    pub market: &'a str,
    pub delimiter: &'a str,
    pub skip_rows: i64,
    pub date_column: i64,
    pub date_format: &'a str,
    pub amount_column: Option<i64>,
    pub credit_column: Option<i64>,
    pub debit_column: Option<i64>,
    pub reference_column: i64,
    pub narration_column: Option<i64>,
    pub decimal_separator: &'a str,
    pub thousands_separator: &'a str,
    pub by: &'a str,
    pub now: i64,
}

/// An import with its counts.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ImportRow {
    pub id: String,
    pub market: String,
    pub mapping_id: String,
    pub mapping_name: String,
    pub file_name: String,
    pub file_hash: String,
    pub imported_by: String,
    pub imported_by_name: Option<String>,
    pub imported_at: i64,
    pub line_count: i64,
    pub credit_count: i64,
    pub confirmed_count: i64,
}

const IMPORT_COLUMNS: &str = "i.id, i.market, i.mapping_id, m.name AS mapping_name, i.file_name, i.file_hash, \
     i.imported_by, op.username AS imported_by_name, i.imported_at, i.line_count, \
     (SELECT COUNT(*) FROM statement_lines l WHERE l.import_id = i.id AND l.credit = 1) AS credit_count, \
     (SELECT COUNT(*) FROM statement_lines l WHERE l.import_id = i.id AND l.confirmed_at IS NOT NULL) AS confirmed_count";

const IMPORT_FROM: &str = "statement_imports i JOIN statement_mappings m ON m.id = i.mapping_id \
     LEFT JOIN operators op ON op.id = i.imported_by";

/// An import to record.
pub struct NewImport<'a> {
    pub id: &'a str,
    pub market: &'a str,
    pub mapping_id: &'a str,
    pub file_name: &'a str,
    pub file_hash: &'a str,
    pub by: &'a str,
    pub at: i64,
    pub line_count: i64,
}

/// A line to record.
pub struct NewLine<'a> {
    pub line_no: i64,
    pub on_date: &'a str,
    pub amount: i64,
    pub credit: bool,
    pub reference: &'a str,
    pub narration_enc: &'a str,
    pub utr: Option<&'a str>,
    pub payment_id: Option<&'a str>,
}

/// A stored line with the payment it names, as that payment stands now.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LineRow {
    pub import_id: String,
    pub line_no: i64,
    pub on_date: String,
    pub amount: i64,
    pub credit: i64,
    pub reference: String,
    pub narration_enc: String,
    pub utr: Option<String>,
    pub payment_id: Option<String>,
    pub confirmed_by: Option<String>,
    pub confirmed_by_name: Option<String>,
    pub confirmed_at: Option<i64>,
    pub payment_status: Option<String>,
    /// The UTR the payment holds now: another than the line's once the borrower corrected it after the import.
    pub payment_utr: Option<String>,
    pub payment_amount: Option<i64>,
    pub payment_reference: Option<String>,
    pub order_no: Option<String>,
}

/// Lines per INSERT statement (7 values each).
const LINES_PER_INSERT: usize = 100;
/// UTRs per lookup statement.
const UTRS_PER_LOOKUP: usize = 500;

impl Db {
    /// Every saved layout, by name.
    pub async fn statement_mappings(&self) -> sqlx::Result<Vec<MappingRow>> {
        sqlx::query_as("SELECT * FROM statement_mappings ORDER BY name, id")
            .fetch_all(self.pool())
            .await
    }

    pub async fn statement_mapping(&self, id: &str) -> sqlx::Result<Option<MappingRow>> {
        sqlx::query_as("SELECT * FROM statement_mappings WHERE id = $1")
            .bind(id)
            .fetch_optional(self.pool())
            .await
    }

    pub async fn statement_import(&self, id: &str) -> sqlx::Result<Option<ImportRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMPORT_COLUMNS} FROM {IMPORT_FROM} WHERE i.id = $1"
        ))
        .bind(id)
        .fetch_optional(self.pool())
        .await
    }

    pub async fn statement_import_by_hash(&self, hash: &str) -> sqlx::Result<Option<ImportRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMPORT_COLUMNS} FROM {IMPORT_FROM} WHERE i.file_hash = $1"
        ))
        .bind(hash)
        .fetch_optional(self.pool())
        .await
    }

    /// The latest imports, newest first (at most `limit`), optionally of one market.
    pub async fn statement_imports(
        &self,
        market: Option<&str>,
        limit: i64,
    ) -> sqlx::Result<Vec<ImportRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMPORT_COLUMNS} FROM {IMPORT_FROM} WHERE ($1 IS NULL OR i.market = $1)
             ORDER BY i.imported_at DESC, i.id DESC LIMIT $2"
        ))
        .bind(market)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// The payments whose UTR is one of `utrs`: (utr, payment id, the payment's currency code).
    pub async fn payments_by_utr(
        &self,
        utrs: &[String],
    ) -> sqlx::Result<Vec<(String, String, String, String)>> {
        let mut out = Vec::new();
        for chunk in utrs.chunks(UTRS_PER_LOOKUP) {
            let sql = format!(
                "SELECT u.utr, u.payment_id, p.currency, p.status FROM payment_utrs u JOIN payments p ON p.id = u.payment_id
                 WHERE u.utr IN ({})",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_as(&sql);
            for utr in chunk {
                query = query.bind(utr);
            }
            out.extend(query.fetch_all(self.pool()).await?);
        }
        Ok(out)
    }

    /// The credit lines of earlier imports that carry one of `utrs`, matched to its payment at their import or with
    /// it as their reference (imported before the borrower gave the UTR): (UTR matched, reference, date, amount) — the
    /// money seen arriving for a payment, that a later statement's debit naming the UTR took back.
    pub async fn credit_lines_of_utrs(
        &self,
        utrs: &[String],
    ) -> sqlx::Result<Vec<(Option<String>, String, String, i64)>> {
        let mut out = Vec::new();
        for chunk in utrs.chunks(UTRS_PER_LOOKUP) {
            let sql = format!(
                "SELECT utr, reference, on_date, amount FROM statement_lines
                 WHERE credit <> 0 AND (utr IN ({list}) OR reference IN ({list}))",
                list = placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_as(&sql);
            for utr in chunk {
                query = query.bind(utr);
            }
            out.extend(query.fetch_all(self.pool()).await?);
        }
        Ok(out)
    }

    /// Which of `utrs` a statement showed taken back (a `reversed` item of provider `statement`).
    pub async fn statement_reversed_utrs(&self, utrs: &[String]) -> sqlx::Result<Vec<String>> {
        let mut out = Vec::new();
        for chunk in utrs.chunks(UTRS_PER_LOOKUP) {
            let sql = format!(
                "SELECT DISTINCT reference FROM unmatched_receipts
                 WHERE provider = 'statement' AND kind = 'reversed' AND reference IN ({})",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query_scalar(&sql);
            for utr in chunk {
                query = query.bind(utr);
            }
            out.extend(query.fetch_all(self.pool()).await?);
        }
        Ok(out)
    }

    /// An import's lines in file order, each with its payment as it stands now.
    pub async fn statement_lines(&self, import_id: &str) -> sqlx::Result<Vec<LineRow>> {
        sqlx::query_as(
            "SELECT l.import_id, l.line_no, l.on_date, l.amount, l.credit, l.reference, l.narration_enc, l.utr,
                 l.payment_id, l.confirmed_by, op.username AS confirmed_by_name, l.confirmed_at,
                 p.status AS payment_status,
                 (SELECT MIN(u.utr) FROM payment_utrs u WHERE u.payment_id = l.payment_id) AS payment_utr,
                 p.amount AS payment_amount, p.reference AS payment_reference, o.order_no
             FROM statement_lines l
             LEFT JOIN payments p ON p.id = l.payment_id
             LEFT JOIN orders o ON o.id = p.order_id
             LEFT JOIN operators op ON op.id = l.confirmed_by
             WHERE l.import_id = $1 ORDER BY l.line_no",
        )
        .bind(import_id)
        .fetch_all(self.pool())
        .await
    }

    /// The UTR payments of a currency waiting for finance (`verifying`) that no line of the import names by the UTR
    /// they hold now, oldest first (at most `limit`).
    pub async fn waiting_payments_without_line(
        &self,
        import_id: &str,
        currency: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<PaymentRow>> {
        sqlx::query_as(&format!(
            "SELECT {PAYMENT_COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.currency = $1 AND p.status = 'verifying'
               AND NOT EXISTS (SELECT 1 FROM statement_lines l JOIN payment_utrs u ON u.utr = l.utr
                               WHERE l.import_id = $2 AND l.payment_id = p.id AND u.payment_id = p.id)
             ORDER BY p.updated_at, p.id LIMIT $3"
        ))
        .bind(currency)
        .bind(import_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Finance's queue: payments in any of `statuses`, of one currency when given, whose UTR, reference or order
    /// number is `search` when given; oldest change first (at most `limit`). The statuses are written into the
    /// statement (codes of a closed set, checked) so that PostgreSQL plans it on the partial index of waiting payments
    /// (`payments_waiting`, migration 0040): the page is the index's first rows, whatever the size of the book.
    pub async fn payments_queue(
        &self,
        statuses: &[&str],
        currency: Option<&str>,
        search: Option<&str>,
        limit: i64,
    ) -> sqlx::Result<Vec<PaymentRow>> {
        let sql = format!(
            "SELECT {PAYMENT_COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.status IN ({}) AND ($1 IS NULL OR p.currency = $1)
               AND ($2 IS NULL OR p.reference = $2 OR o.order_no = $2
                    OR p.id IN (SELECT u.payment_id FROM payment_utrs u WHERE u.utr = $2))
             ORDER BY p.updated_at, p.id LIMIT $3",
            status_list(statuses)?
        );
        sqlx::query_as(&sql)
            .bind(currency)
            .bind(search)
            .bind(limit)
            .fetch_all(self.pool())
            .await
    }

    /// Payments finance rejected that `search` names exactly (a payment reference, an order number, a UTR), oldest
    /// first: a rejected UTR whose money turns out to have arrived is found by it again. Three indexed lookups, so
    /// the rejected payments of every year are never read through.
    pub async fn rejected_payments_matching(
        &self,
        currency: Option<&str>,
        search: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<PaymentRow>> {
        let sql = format!(
            "SELECT {PAYMENT_COLUMNS} FROM payments p JOIN orders o ON o.id = p.order_id
             WHERE p.status = 'rejected' AND ($1 IS NULL OR p.currency = $1)
               AND p.id IN (SELECT x.id FROM payments x WHERE x.reference = $2
                            UNION SELECT x.id FROM payments x JOIN orders y ON y.id = x.order_id
                                  WHERE y.order_no = $2
                            UNION SELECT u.payment_id FROM payment_utrs u WHERE u.utr = $2)
             ORDER BY p.updated_at, p.id LIMIT $3"
        );
        sqlx::query_as(&sql)
            .bind(currency)
            .bind(search)
            .bind(limit)
            .fetch_all(self.pool())
            .await
    }

    /// How many payments wait in each of `statuses`, per currency: (currency, status, count), counted on the partial
    /// index of waiting payments.
    pub async fn payments_queue_counts(
        &self,
        statuses: &[&str],
    ) -> sqlx::Result<Vec<(String, String, i64)>> {
        let sql = format!(
            "SELECT currency, status, COUNT(*) FROM payments WHERE status IN ({}) GROUP BY currency, status",
            status_list(statuses)?
        );
        sqlx::query_as(&sql).fetch_all(self.pool()).await
    }
}

/// Payment status codes as an SQL list of literals; refused unless each is a code (lower-case letters and `_`).
fn status_list(statuses: &[&str]) -> sqlx::Result<String> {
    if statuses.is_empty()
        || statuses
            .iter()
            .any(|s| s.is_empty() || !s.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
    {
        return Err(sqlx::Error::Protocol(format!(
            "not payment status codes: {statuses:?}"
        )));
    }
    Ok(statuses
        .iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", "))
}

impl Tx {
    /// Saves a new layout; `Err(Duplicate)` when its name is taken.
    pub async fn insert_statement_mapping(
        &mut self,
        m: &NewMapping<'_>,
    ) -> sqlx::Result<Result<String, Duplicate>> {
        let id = new_id();
        let done = sqlx::query(
            "INSERT INTO statement_mappings (id, name, market, delimiter, skip_rows, date_column, date_format,
                 amount_column, credit_column, debit_column, reference_column, narration_column, decimal_separator,
                 thousands_separator, created_by, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)",
        )
        .bind(&id)
        .bind(m.name)
        .bind(m.market)
        .bind(m.delimiter)
        .bind(m.skip_rows)
        .bind(m.date_column)
        .bind(m.date_format)
        .bind(m.amount_column)
        .bind(m.credit_column)
        .bind(m.debit_column)
        .bind(m.reference_column)
        .bind(m.narration_column)
        .bind(m.decimal_separator)
        .bind(m.thousands_separator)
        .bind(m.by)
        .bind(m.now)
        .execute(self.conn())
        .await;
        match done {
            Ok(_) => Ok(Ok(id)),
            Err(e) if unique_violation(&e) => Ok(Err(Duplicate)),
            Err(e) => Err(e),
        }
    }

    /// Replaces a layout; `Ok(Ok(false))` when there is none with this id, `Err(Duplicate)` when the name is taken.
    pub async fn update_statement_mapping(
        &mut self,
        id: &str,
        m: &NewMapping<'_>,
    ) -> sqlx::Result<Result<bool, Duplicate>> {
        let done = sqlx::query(
            "UPDATE statement_mappings SET name = $2, market = $3, delimiter = $4, skip_rows = $5, date_column = $6,
                 date_format = $7, amount_column = $8, credit_column = $9, debit_column = $10, reference_column = $11,
                 narration_column = $12, decimal_separator = $13, thousands_separator = $14, updated_at = $15
             WHERE id = $1",
        )
        .bind(id)
        .bind(m.name)
        .bind(m.market)
        .bind(m.delimiter)
        .bind(m.skip_rows)
        .bind(m.date_column)
        .bind(m.date_format)
        .bind(m.amount_column)
        .bind(m.credit_column)
        .bind(m.debit_column)
        .bind(m.reference_column)
        .bind(m.narration_column)
        .bind(m.decimal_separator)
        .bind(m.thousands_separator)
        .bind(m.now)
        .execute(self.conn())
        .await;
        match done {
            Ok(r) => Ok(Ok(r.rows_affected() == 1)),
            Err(e) if unique_violation(&e) => Ok(Err(Duplicate)),
            Err(e) => Err(e),
        }
    }

    /// Records an import; `Err(Duplicate)` when a file with the same hash was imported (the transaction is then
    /// spoilt on PostgreSQL: drop it and look the hash up).
    pub async fn insert_statement_import(
        &mut self,
        i: &NewImport<'_>,
    ) -> sqlx::Result<Result<(), Duplicate>> {
        let done = sqlx::query(
            "INSERT INTO statement_imports (id, market, mapping_id, file_name, file_hash, imported_by, imported_at,
                 line_count)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(i.id)
        .bind(i.market)
        .bind(i.mapping_id)
        .bind(i.file_name)
        .bind(i.file_hash)
        .bind(i.by)
        .bind(i.at)
        .bind(i.line_count)
        .execute(self.conn())
        .await;
        match done {
            Ok(_) => Ok(Ok(())),
            Err(e) if unique_violation(&e) => Ok(Err(Duplicate)),
            Err(e) => Err(e),
        }
    }

    /// Records an import's lines, a hundred per statement.
    pub async fn insert_statement_lines(
        &mut self,
        import_id: &str,
        lines: &[NewLine<'_>],
    ) -> sqlx::Result<()> {
        for chunk in lines.chunks(LINES_PER_INSERT) {
            let values: Vec<String> = (0..chunk.len())
                .map(|i| format!("($1, {})", placeholders(2 + i * 8, 8)))
                .collect();
            let sql = format!(
                "INSERT INTO statement_lines (import_id, line_no, on_date, amount, credit, reference, narration_enc,
                     utr, payment_id) VALUES {}",
                values.join(", ")
            );
            let mut query = sqlx::query(&sql).bind(import_id);
            for l in chunk {
                query = query
                    .bind(l.line_no)
                    .bind(l.on_date)
                    .bind(l.amount)
                    .bind(i64::from(l.credit))
                    .bind(l.reference)
                    .bind(l.narration_enc)
                    .bind(l.utr)
                    .bind(l.payment_id);
            }
            query.execute(self.conn()).await?;
        }
        Ok(())
    }

    /// Marks a line confirmed by `by`, once: false when it was already.
    pub async fn confirm_statement_line(
        &mut self,
        import_id: &str,
        line_no: i64,
        by: &str,
        at: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE statement_lines SET confirmed_by = $3, confirmed_at = $4
             WHERE import_id = $1 AND line_no = $2 AND confirmed_at IS NULL",
        )
        .bind(import_id)
        .bind(line_no)
        .bind(by)
        .bind(at)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }
}
