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

/// A step done, with its blob only when it is the job step.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct StepDoneWithJob {
    #[row(try_from = "String")]
    pub step: Step,
    pub completed_at: i64,
    pub data_enc: Option<String>,
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

    /// Which steps the borrower has done and when, and the job step's blob (the income): the one read that
    /// eligibility needs, without the other four blobs.
    pub async fn certification_done_with_job(
        &self,
        borrower_id: &str,
    ) -> sqlx::Result<Vec<StepDoneWithJob>> {
        sqlx::query_as(
            "SELECT step, completed_at, CASE WHEN step = 'job' THEN data_enc END AS data_enc
             FROM certification_steps WHERE borrower_id = $1",
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
    /// Saves a step and logs it (`completed` the first time, `updated` after). Returns the step's completion time.
    pub async fn save_certification_step(
        &mut self,
        borrower_id: &str,
        step: Step,
        data_enc: &str,
        now: i64,
    ) -> sqlx::Result<i64> {
        let inserted = sqlx::query(
            "INSERT INTO certification_steps (borrower_id, step, data_enc, completed_at, updated_at)
             VALUES ($1, $2, $3, $4, $4) ON CONFLICT (borrower_id, step) DO NOTHING",
        )
        .bind(borrower_id)
        .bind(step.code())
        .bind(data_enc)
        .bind(now)
        .execute(self.conn())
        .await?
        .rows_affected()
            == 1;
        if !inserted {
            sqlx::query(
                "UPDATE certification_steps SET data_enc = $1, updated_at = $2 WHERE borrower_id = $3 AND step = $4",
            )
            .bind(data_enc)
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
