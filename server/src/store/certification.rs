//! Certification steps (one encrypted blob per step) and the advance log.

use sqlx::Row;

use super::Db;

/// A saved step as stored: its data still encrypted.
#[derive(Debug, Clone)]
pub struct StoredStep {
    pub step: String,
    pub data_enc: String,
    pub completed_at: i64,
}

#[derive(Debug, Clone)]
pub struct LogEntry {
    pub step: String,
    pub event: String,
    pub at: i64,
}

impl Db {
    /// Every step the borrower has saved.
    pub async fn certification_steps(&self, borrower_id: &str) -> sqlx::Result<Vec<StoredStep>> {
        let rows = sqlx::query(
            "SELECT step, data_enc, completed_at FROM certification_steps WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(StoredStep {
                    step: row.try_get("step")?,
                    data_enc: row.try_get("data_enc")?,
                    completed_at: row.try_get("completed_at")?,
                })
            })
            .collect()
    }

    /// How many steps the borrower has done; cheaper than reading them.
    pub async fn certification_steps_done(&self, borrower_id: &str) -> sqlx::Result<i64> {
        sqlx::query("SELECT COUNT(*) AS n FROM certification_steps WHERE borrower_id = $1")
            .bind(borrower_id)
            .fetch_one(self.pool())
            .await?
            .try_get("n")
    }

    /// One step's encrypted data.
    pub async fn certification_step(
        &self,
        borrower_id: &str,
        step: &str,
    ) -> sqlx::Result<Option<StoredStep>> {
        let row = sqlx::query(
            "SELECT step, data_enc, completed_at FROM certification_steps WHERE borrower_id = $1 AND step = $2",
        )
        .bind(borrower_id)
        .bind(step)
        .fetch_optional(self.pool())
        .await?;
        row.map(|row| {
            Ok(StoredStep {
                step: row.try_get("step")?,
                data_enc: row.try_get("data_enc")?,
                completed_at: row.try_get("completed_at")?,
            })
        })
        .transpose()
    }

    /// Saves a step and logs it (`completed` the first time, `updated` after), all or nothing. Returns the step's
    /// completion time.
    ///
    /// The transaction writes before it reads: on SQLite a transaction that reads first cannot wait for the write
    /// lock (it fails at once with "database is locked"), while one that starts by writing waits its turn.
    pub async fn save_certification_step(
        &self,
        borrower_id: &str,
        step: &str,
        data_enc: &str,
        now: i64,
    ) -> sqlx::Result<i64> {
        let mut tx = self.pool().begin().await?;
        let inserted = sqlx::query(
            "INSERT INTO certification_steps (borrower_id, step, data_enc, completed_at, updated_at)
             VALUES ($1, $2, $3, $4, $4) ON CONFLICT (borrower_id, step) DO NOTHING",
        )
        .bind(borrower_id)
        .bind(step)
        .bind(data_enc)
        .bind(now)
        .execute(&mut *tx)
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
            .bind(step)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO certification_log (id, borrower_id, step, event, at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(uuid::Uuid::now_v7().to_string())
        .bind(borrower_id)
        .bind(step)
        .bind(if inserted { "completed" } else { "updated" })
        .bind(now)
        .execute(&mut *tx)
        .await?;
        let completed_at: i64 = sqlx::query(
            "SELECT completed_at FROM certification_steps WHERE borrower_id = $1 AND step = $2",
        )
        .bind(borrower_id)
        .bind(step)
        .fetch_one(&mut *tx)
        .await?
        .try_get("completed_at")?;
        tx.commit().await?;
        Ok(completed_at)
    }

    /// The advance log, oldest first.
    pub async fn certification_log(&self, borrower_id: &str) -> sqlx::Result<Vec<LogEntry>> {
        let rows = sqlx::query(
            "SELECT step, event, at FROM certification_log WHERE borrower_id = $1 ORDER BY at, id",
        )
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await?;
        rows.iter()
            .map(|row| {
                Ok(LogEntry {
                    step: row.try_get("step")?,
                    event: row.try_get("event")?,
                    at: row.try_get("at")?,
                })
            })
            .collect()
    }
}
