//! The dashboard's book kept as the loans change (migration 0052): what every open loan (`disbursed` or `overdue`)
//! adds to its market's book, under its product, status and arrears date: one loan, its outstanding principal and its
//! total outstanding, read from its position (`loan_arrears`; a loan without one adds the loan alone).
//!
//! Every statement of this store that changes what a loan adds (its position written, its status changed while open or
//! into or out of the open ones, its rows purged) appends the change to `book_moves` in the same transaction: what the
//! loans added before it, negated, and what they add after it, each grouped by key. Those statements run under the
//! caller's lock of the orders (as every position write and status change already does), so nothing changes a loan
//! between the two. The worker folds the moves into `book_kept` ([`Db::fold_book`]); the dashboard reads both.

use kilat_domain::{Code, OrderState};

use super::collections::ArrearsRow;
use super::lists::{BindValues, any_of, texts};
use super::loans::placeholders;
use super::{Db, Tx};

/// The loans of a statement's change, a few hundred to a statement.
const IDS_PER_STATEMENT: usize = 300;

/// The open statuses, as [`kilat_domain::OrderState::is_active_loan`] names them.
const OPEN: &str = "o.status IN ('disbursed', 'overdue')";

/// Which of the named loans a move counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counted {
    /// Those open now (development's seeded loans, added before they have a position).
    Open,
    /// All of them (just moved into or out of the open statuses).
    All,
}

/// The columns of a move or a kept row, in the order the statements below write them.
const COLUMNS: &str = "market, product_code, product_name, status, due, loans, principal, owed";

/// The key a loan is kept under, over `orders o LEFT JOIN loan_arrears a`, with the status `status` (an expression).
fn key(status: &str) -> String {
    format!("o.market, o.product_code, o.product_name, {status}, COALESCE(a.oldest_unpaid_due, '')")
}

impl Tx {
    /// Appends to the book's moves what the loans `order_ids` add to it now, times `sign`: −1 just before a change,
    /// +1 just after it. `as_status` is the status they are counted under when it is not the one they have now (a
    /// status change takes the loans away under the status they had).
    pub(crate) async fn book_move(
        &mut self,
        order_ids: &[&str],
        sign: i64,
        counted: Counted,
        as_status: Option<OrderState>,
    ) -> sqlx::Result<()> {
        let open = match counted {
            Counted::Open => format!(" AND {OPEN}"),
            Counted::All => String::new(),
        };
        // A status named is bound as the second value, the loans' ids after it.
        let (key, first_id) = match as_status {
            Some(_) => (key("CAST($2 AS TEXT)"), 3),
            None => (key("o.status"), 2),
        };
        for chunk in order_ids.chunks(IDS_PER_STATEMENT) {
            let sql = format!(
                "INSERT INTO book_moves ({COLUMNS})
                 SELECT {key}, $1 * COUNT(*), $1 * COALESCE(SUM(a.outstanding_principal), 0),
                        $1 * COALESCE(SUM(a.outstanding), 0)
                 FROM orders o LEFT JOIN loan_arrears a ON a.order_id = o.id
                 WHERE o.id {}{open}
                 GROUP BY {key}",
                any_of(self.sqlite, first_id, chunk.len())
            );
            let mut query = sqlx::query(&sql).bind(sign);
            if let Some(status) = as_status {
                query = query.bind(status.code());
            }
            query
                .bind_values(texts(self.sqlite, chunk))
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// Just before these positions are written: appends what writing them moves in the book, in one statement, from
    /// the values about to be written: what the open loans among them add now, negated, and what they will add.
    ///
    /// SQLite reads the values from a `VALUES` list. PostgreSQL reads them from one JSON array, so that the
    /// statement's text is the same whatever the batch's size: prepared once per connection and then run on its
    /// generic plan. The same statement with a `VALUES` list of the batch's size was planned anew for nearly every
    /// batch (docs/PERFORMANCE.md, "Dashboard of the book").
    pub(crate) async fn book_reposition(&mut self, rows: &[ArrearsRow<'_>]) -> sqlx::Result<()> {
        #[derive(serde::Serialize)]
        struct Row<'a> {
            order_id: &'a str,
            due: Option<&'a str>,
            principal: i64,
            owed: i64,
        }
        if !self.sqlite {
            let sql = format!(
                "WITH n AS (
                     SELECT * FROM json_to_recordset(CAST($1 AS JSON))
                         AS n (order_id TEXT, due TEXT, principal BIGINT, owed BIGINT)
                 )
                 INSERT INTO book_moves ({COLUMNS})
                 {}",
                moves_of_positions("n")
            );
            for chunk in rows.chunks(IDS_PER_STATEMENT) {
                let json = serde_json::to_string(
                    &chunk
                        .iter()
                        .map(|row| Row {
                            order_id: row.order_id,
                            due: row.oldest_unpaid_due.as_deref(),
                            principal: row.outstanding_principal,
                            owed: row.outstanding,
                        })
                        .collect::<Vec<_>>(),
                )
                .expect("plain fields serialise");
                sqlx::query(&sql).bind(json).execute(self.conn()).await?;
            }
            return Ok(());
        }
        for chunk in rows.chunks(IDS_PER_STATEMENT) {
            let values = (0..chunk.len())
                .map(|r| format!("({})", placeholders(r * 4 + 1, 4)))
                .collect::<Vec<_>>()
                .join(", ");
            let sql = format!(
                "WITH n (order_id, due, principal, owed) AS (VALUES {values})
                 INSERT INTO book_moves ({COLUMNS})
                 {}",
                moves_of_positions("n")
            );
            let mut query = sqlx::query(&sql);
            for row in chunk {
                query = query
                    .bind(row.order_id)
                    .bind(row.oldest_unpaid_due.as_deref())
                    .bind(row.outstanding_principal)
                    .bind(row.outstanding);
            }
            query.execute(self.conn()).await?;
        }
        Ok(())
    }

    /// The open loans of these borrowers taken out of the book, before their rows are purged.
    pub(crate) async fn book_leave_of_borrowers(
        &mut self,
        borrower_ids: &[&str],
    ) -> sqlx::Result<()> {
        let key = key("o.status");
        for chunk in borrower_ids.chunks(IDS_PER_STATEMENT) {
            let sql = format!(
                "INSERT INTO book_moves ({COLUMNS})
                 SELECT {key}, -COUNT(*), -COALESCE(SUM(a.outstanding_principal), 0), -COALESCE(SUM(a.outstanding), 0)
                 FROM orders o LEFT JOIN loan_arrears a ON a.order_id = o.id
                 WHERE o.borrower_id IN ({}) AND {OPEN}
                 GROUP BY {key}",
                placeholders(1, chunk.len())
            );
            let mut query = sqlx::query(&sql);
            for id in chunk {
                query = query.bind(*id);
            }
            query.execute(self.conn()).await?;
        }
        Ok(())
    }

    /// `count` copies of the loan `template` (development's seeding) added to the book, each what the template adds.
    pub(crate) async fn book_copies(&mut self, template: &str, count: i64) -> sqlx::Result<()> {
        sqlx::query(&format!(
            "INSERT INTO book_moves ({COLUMNS})
             SELECT {}, $2, $2 * COALESCE(a.outstanding_principal, 0), $2 * COALESCE(a.outstanding, 0)
             FROM orders o LEFT JOIN loan_arrears a ON a.order_id = o.id
             WHERE o.id = $1 AND {OPEN}",
            key("o.status")
        ))
        .bind(template)
        .bind(count)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Counts the whole book again from the open loans' positions, in place of what was kept and moved: at the first
    /// start after migration 0052, and after development's bulk seeding (which writes orders and positions without
    /// moves). On PostgreSQL the moves' table is locked first: a writer between its change and its move waits for the
    /// count's commit, so the count holds either its change and not its move, or neither (its move comes after).
    pub async fn count_book(&mut self) -> sqlx::Result<u64> {
        if !self.sqlite {
            sqlx::query("LOCK TABLE book_moves IN EXCLUSIVE MODE")
                .execute(self.conn())
                .await?;
        }
        sqlx::query("DELETE FROM book_moves")
            .execute(self.conn())
            .await?;
        sqlx::query("DELETE FROM book_kept")
            .execute(self.conn())
            .await?;
        let key = key("o.status");
        let sql = format!(
            "INSERT INTO book_kept ({COLUMNS})
             SELECT {key}, COUNT(*), COALESCE(SUM(a.outstanding_principal), 0), COALESCE(SUM(a.outstanding), 0)
             FROM orders o LEFT JOIN loan_arrears a ON a.order_id = o.id
             WHERE {OPEN}
             GROUP BY {key}"
        );
        Ok(sqlx::query(&sql)
            .execute(self.conn())
            .await?
            .rows_affected())
    }
}

/// The `SELECT` of the moves of writing the positions `n` (a table of `order_id`, `due`, `principal` and `owed`):
/// what the open loans among them add now, negated, and what they add with the new positions, grouped by key; a key
/// that nets to nothing is left out.
fn moves_of_positions(n: &str) -> String {
    format!(
        "SELECT market, product_code, product_name, status, due, SUM(loans), SUM(principal), SUM(owed)
         FROM (SELECT o.market, o.product_code, o.product_name, o.status,
                      COALESCE(a.oldest_unpaid_due, '') AS due, -1 AS loans,
                      -COALESCE(a.outstanding_principal, 0) AS principal, -COALESCE(a.outstanding, 0) AS owed
               FROM {n} JOIN orders o ON o.id = {n}.order_id LEFT JOIN loan_arrears a ON a.order_id = o.id
               WHERE {OPEN}
               UNION ALL
               SELECT o.market, o.product_code, o.product_name, o.status, COALESCE({n}.due, ''), 1, {n}.principal,
                      {n}.owed
               FROM {n} JOIN orders o ON o.id = {n}.order_id
               WHERE {OPEN}) m
         GROUP BY market, product_code, product_name, status, due
         HAVING SUM(loans) <> 0 OR SUM(principal) <> 0 OR SUM(owed) <> 0"
    )
}

/// The moves' sums added to the kept rows (`book_kept` named in full: `excluded` is the row proposed), in key order so
/// that two folds at once take the rows' locks in the same order.
const ADD_TO_KEPT: &str = "GROUP BY market, product_code, product_name, status, due
     ORDER BY market, product_code, product_name, status, due
     ON CONFLICT (market, product_code, product_name, status, due) DO UPDATE
     SET loans = book_kept.loans + excluded.loans, principal = book_kept.principal + excluded.principal,
         owed = book_kept.owed + excluded.owed";

/// An open loan whose position is missing or lacks its amounts (written before migrations 0044 and 0046, and not
/// posted to or swept since), with what replaying its ledger takes.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct UnpositionedLoan {
    pub order_id: String,
    pub order_no: String,
    pub market: String,
    pub plan_json: String,
}

impl Db {
    /// Up to `limit` open loans without a whole position after order id `after`, by order id (keyset paging).
    pub async fn unpositioned_open_loans(
        &self,
        after: &str,
        limit: i64,
    ) -> sqlx::Result<Vec<UnpositionedLoan>> {
        sqlx::query_as(&format!(
            "SELECT o.id AS order_id, o.order_no, o.market, l.plan_json
             FROM orders o JOIN loans l ON l.order_id = o.id LEFT JOIN loan_arrears a ON a.order_id = o.id
             WHERE {OPEN} AND o.id > $1
               AND (a.order_id IS NULL OR a.balances_json IS NULL OR a.outstanding IS NULL
                    OR a.outstanding_principal IS NULL)
             ORDER BY o.id LIMIT $2"
        ))
        .bind(after)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// Folds the moves appended so far into the kept book, in one transaction, and drops the kept rows left at zero.
    /// Returns how many kept rows the moves touched. A reader sees each move either among the moves or in the kept
    /// rows, never both: PostgreSQL deletes the moves and adds exactly the rows it deleted in one statement (a move
    /// committed meanwhile stays for the next fold); SQLite's transaction holds the only write lock.
    pub async fn fold_book(&self) -> sqlx::Result<u64> {
        let mut tx = self.begin().await?;
        let touched = if self.is_sqlite() {
            let touched = sqlx::query(&format!(
                "INSERT INTO book_kept ({COLUMNS})
                 SELECT market, product_code, product_name, status, due, SUM(loans), SUM(principal), SUM(owed)
                 FROM book_moves WHERE true {ADD_TO_KEPT}"
            ))
            .execute(tx.conn())
            .await?
            .rows_affected();
            sqlx::query("DELETE FROM book_moves")
                .execute(tx.conn())
                .await?;
            touched
        } else {
            sqlx::query(&format!(
                "WITH gone AS (DELETE FROM book_moves RETURNING {COLUMNS})
                 INSERT INTO book_kept ({COLUMNS})
                 SELECT market, product_code, product_name, status, due, SUM(loans), SUM(principal), SUM(owed)
                 FROM gone WHERE true {ADD_TO_KEPT}"
            ))
            .execute(tx.conn())
            .await?
            .rows_affected()
        };
        if touched > 0 {
            sqlx::query("DELETE FROM book_kept WHERE loans = 0 AND principal = 0 AND owed = 0")
                .execute(tx.conn())
                .await?;
        }
        tx.commit().await?;
        Ok(touched)
    }

    /// How many moves wait to be folded (the tests check that a fold leaves none).
    pub async fn book_moves_waiting(&self) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM book_moves")
            .fetch_one(self.pool())
            .await
    }
}

#[cfg(test)]
mod tests {
    use kilat_domain::{Code, OrderState};

    use super::OPEN;

    #[test]
    fn the_open_statuses_are_the_lifecycles_active_loans() {
        for &state in <OrderState as Code>::ALL {
            assert_eq!(
                OPEN.contains(&format!("'{}'", state.code())),
                state.is_active_loan(),
                "{state:?}"
            );
        }
    }
}
