//! Certification steps (one encrypted blob per step) and the advance log.

use crate::certification::Step;

use super::{Db, Tx, new_id};
use kilat_domain::Code;

/// A saved step as stored: its data still encrypted.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StoredStep {
    #[row(try_from = "String")]
    pub step: Step,
    pub data_enc: String,
    pub completed_at: i64,
}

/// A step done, without its data: what progress lists need.
#[derive(Debug, Clone, Copy, kilat_row::FromRow)]
pub struct StepDone {
    #[row(try_from = "String")]
    pub step: Step,
    pub completed_at: i64,
}

/// The job step's income against its market's minimum, as saved with the step (migration 0050): the minimum it was
/// compared with (minor units of the market's period) and whether the income is under it. The income stays sealed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncomeVerdict {
    pub minimum: i64,
    pub below: bool,
}

impl IncomeVerdict {
    /// The verdict as its two columns store it; `None` unless both are there (a job step saved before migration 0050
    /// and not yet backfilled, or another step).
    pub fn of_columns(minimum: Option<i64>, below: Option<i64>) -> Option<Self> {
        Some(Self {
            minimum: minimum?,
            below: below? != 0,
        })
    }
}

/// A step done, with the job step's income verdict (none on the other steps).
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StepDoneWithIncome {
    #[row(try_from = "String")]
    pub step: Step,
    pub completed_at: i64,
    pub income_minimum: Option<i64>,
    pub income_below: Option<i64>,
}

impl StepDoneWithIncome {
    pub fn income(&self) -> Option<IncomeVerdict> {
        IncomeVerdict::of_columns(self.income_minimum, self.income_below)
    }
}

/// A job step whose income verdict is missing or out of date, for the backfill after migration 0050.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct JobStepToJudge {
    pub borrower_id: String,
    #[row(try_from = "String")]
    pub market: kilat_domain::Market,
    pub data_enc: String,
}

#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct LogEntry {
    #[row(try_from = "String")]
    pub step: Step,
    pub event: String,
    pub at: i64,
}

impl Db {
    /// Every step the borrower has saved, with its data.
    pub async fn certification_steps(&self, borrower_id: &str) -> sqlx::Result<Vec<StoredStep>> {
        sqlx::query_as(
            "SELECT step, data_enc, completed_at FROM certification_steps WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// The stored `steps` of several live borrowers at once (finance's payout list): (borrower id, step, sealed data).
    /// An erased account's steps are gone with its phone, so it has none here.
    pub async fn certification_steps_of(
        &self,
        borrower_ids: &[&str],
        steps: &[Step],
    ) -> sqlx::Result<Vec<(String, String, String)>> {
        if borrower_ids.is_empty() || steps.is_empty() {
            return Ok(Vec::new());
        }
        let n = borrower_ids.len();
        let sql = format!(
            "SELECT c.borrower_id, c.step, c.data_enc FROM certification_steps c JOIN borrowers b ON b.id = c.borrower_id
             WHERE c.borrower_id IN ({}) AND c.step IN ({}) AND b.phone_enc <> ''",
            super::loans::placeholders(1, n),
            super::loans::placeholders(n + 1, steps.len())
        );
        let mut query = sqlx::query_as(&sql);
        for id in borrower_ids {
            query = query.bind(*id);
        }
        for step in steps {
            query = query.bind(step.as_str());
        }
        query.fetch_all(self.pool()).await
    }

    /// Which steps the borrower has done and when: no blob is read.
    pub async fn certification_done(&self, borrower_id: &str) -> sqlx::Result<Vec<StepDone>> {
        sqlx::query_as("SELECT step, completed_at FROM certification_steps WHERE borrower_id = $1")
            .bind(borrower_id)
            .fetch_all(self.pool())
            .await
    }

    /// Which steps the borrower has done and when, and the job step's income verdict: the one read that eligibility
    /// needs, without a blob.
    pub async fn certification_done_with_income(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<StepDoneWithIncome>> {
        sqlx::query_as(
            "SELECT step, completed_at, income_minimum, income_below FROM certification_steps WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// One step's encrypted data.
    pub async fn certification_step(
        &self,
        borrower_id: &str,
        step: Step,
    ) -> sqlx::Result<Option<StoredStep>> {
        sqlx::query_as(
            "SELECT step, data_enc, completed_at FROM certification_steps WHERE borrower_id = $1 AND step = $2",
        )
        .bind(borrower_id)
        .bind(step.code())
        .fetch_optional(self.pool())
        .await
    }

    /// The advance log, oldest first.
    pub async fn certification_log(&self, borrower_id: &str) -> sqlx::Result<Vec<LogEntry>> {
        sqlx::query_as(
            "SELECT step, event, at FROM certification_log WHERE borrower_id = $1 ORDER BY at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// [`Db::certification_done_with_income`] read inside the transaction (with the borrower locked: what an
    /// application is decided on).
    pub async fn certification_done_with_income_in_tx(
        &mut self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<StepDoneWithIncome>> {
        sqlx::query_as(
            "SELECT step, completed_at, income_minimum, income_below FROM certification_steps WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_all(self.conn())
        .await
    }

    /// A step's stored (encrypted) value, read inside the transaction: what a save compares with the one it read.
    pub async fn certification_step_data_in_tx(
        &mut self,
        borrower_id: &str,
        step: Step,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "SELECT data_enc FROM certification_steps WHERE borrower_id = $1 AND step = $2",
        )
        .bind(borrower_id)
        .bind(step.code())
        .fetch_optional(self.conn())
        .await
    }
}

impl Tx {
    /// Saves a step, with its income verdict when it is the job step, and logs it (`completed` the first time,
    /// `updated` after). Returns the step's completion time.
    pub async fn save_certification_step(
        &mut self,
        borrower_id: &str,
        step: Step,
        data_enc: &str,
        income: Option<IncomeVerdict>,
        now: i64,
    ) -> sqlx::Result<i64> {
        let minimum = income.map(|v| v.minimum);
        let below = income.map(|v| i64::from(v.below));
        let inserted = sqlx::query(
            "INSERT INTO certification_steps (borrower_id, step, data_enc, income_minimum, income_below, completed_at,
               updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (borrower_id, step) DO NOTHING",
        )
        .bind(borrower_id)
        .bind(step.code())
        .bind(data_enc)
        .bind(minimum)
        .bind(below)
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1;
        if !inserted {
            sqlx::query(
                "UPDATE certification_steps SET data_enc = $1, income_minimum = $2, income_below = $3, updated_at = $4
                 WHERE borrower_id = $5 AND step = $6",
            )
            .bind(data_enc)
            .bind(minimum)
            .bind(below)
            .bind(now)
            .bind(borrower_id)
            .bind(step.code())
            .execute(self.conn())
            .await?;
        }
        sqlx::query(
            "INSERT INTO certification_log (id, borrower_id, step, event, at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(new_id())
        .bind(borrower_id)
        .bind(step.code())
        .bind(if inserted { "completed" } else { "updated" })
        .bind(now)
        .execute(self.conn())
        .await?;
        let (completed_at,): (i64,) = sqlx::query_as(
            "SELECT completed_at FROM certification_steps WHERE borrower_id = $1 AND step = $2",
        )
        .bind(borrower_id)
        .bind(step.code())
        .fetch_one(self.conn())
        .await?;
        Ok(completed_at)
    }
}

impl Tx {
    /// Job steps without an income verdict, or with one against another minimum than their market's in `minimums`
    /// (a market not listed: always), with their borrower's market, by borrower after `after`.
    pub async fn job_steps_to_judge_after(
        &mut self,
        after: &str,
        limit: i64,
        minimums: &[(kilat_domain::Market, i64)],
    ) -> sqlx::Result<Vec<JobStepToJudge>> {
        // No minimum is negative: a market without one compares with -1, and its steps are judged again.
        let cases: String = (0..minimums.len())
            .map(|i| format!(" WHEN ${} THEN CAST(${} AS BIGINT)", 3 + 2 * i, 4 + 2 * i))
            .collect();
        let sql = format!(
            "SELECT c.borrower_id, b.market, c.data_enc
             FROM certification_steps c JOIN borrowers b ON b.id = c.borrower_id
             WHERE c.step = 'job' AND c.borrower_id > $1
               AND (c.income_minimum IS NULL OR c.income_minimum <> CASE b.market{cases} ELSE -1 END)
             ORDER BY c.borrower_id LIMIT $2"
        );
        let mut query = sqlx::query_as(&sql).bind(after).bind(limit);
        for (market, minimum) in minimums {
            query = query.bind(market.code()).bind(*minimum);
        }
        query.fetch_all(self.conn()).await
    }

    /// Writes a job step's income verdict, leaving its data and times as they are, if its sealed data is still
    /// `data_enc` (what the verdict was judged from): false when the step was saved again since, with its own verdict.
    pub async fn set_income_verdict(
        &mut self,
        borrower_id: &str,
        data_enc: &str,
        verdict: IncomeVerdict,
    ) -> sqlx::Result<bool> {
        Ok(sqlx::query(
            "UPDATE certification_steps SET income_minimum = $1, income_below = $2
             WHERE borrower_id = $3 AND step = 'job' AND data_enc = $4",
        )
        .bind(verdict.minimum)
        .bind(i64::from(verdict.below))
        .bind(borrower_id)
        .bind(data_enc)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1)
    }

    /// Every step the borrower has saved, read in the transaction.
    pub async fn certification_steps_in(
        &mut self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<StoredStep>> {
        sqlx::query_as(
            "SELECT step, data_enc, completed_at FROM certification_steps WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_all(self.conn())
        .await
    }

    /// The borrower's open order's status (under review, approved, paid out, overdue), if any, read in the
    /// transaction.
    pub async fn open_order_status(&mut self, borrower_id: &str) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT status FROM orders WHERE borrower_id = $1 AND closed_at IS NULL")
            .bind(borrower_id)
            .fetch_optional(self.conn())
            .await
    }
}
