//! The FAQ: questions and answers per language and category, in the order admins give them.

use super::{Db, Tx, new_id};

/// One question and its answer.
#[derive(Debug, Clone, kilat_row::FromRow, serde::Serialize)]
pub struct FaqEntry {
    pub id: String,
    /// `en` or `id`.
    pub lang: String,
    pub category: String,
    pub question: String,
    pub answer: String,
    pub position: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

/// The fields an admin writes.
pub struct FaqFields<'a> {
    pub lang: &'a str,
    pub category: &'a str,
    pub question: &'a str,
    pub answer: &'a str,
    pub position: i64,
}

const COLUMNS: &str = "id, lang, category, question, answer, position, created_at, updated_at";

impl Db {
    /// The entries of one language (all when `None`), by category and position.
    pub async fn faq(&self, lang: Option<&str>) -> sqlx::Result<Vec<FaqEntry>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM faq_entries WHERE ($1 IS NULL OR lang = $1)
             ORDER BY lang, category, position, id"
        ))
        .bind(lang)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    pub async fn faq_entry(&mut self, id: &str) -> sqlx::Result<Option<FaqEntry>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM faq_entries WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(self.conn())
            .await
    }

    /// An entry's language and category, read without a lock: what [`Tx::lock_faq_category`] then locks.
    pub async fn faq_entry_place(&mut self, id: &str) -> sqlx::Result<Option<(String, String)>> {
        sqlx::query_as("SELECT lang, category FROM faq_entries WHERE id = $1")
            .bind(id)
            .fetch_optional(self.conn())
            .await
    }

    /// Every entry of one language's category, locked, by position and id as [`Db::faq`] lists them. On PostgreSQL
    /// the rows are locked in id order first, so two moves in one category wait for each other rather than
    /// deadlock; the entries are then read in a statement of their own, in the list's order and as the transaction
    /// that held them left them.
    pub async fn lock_faq_category(
        &mut self,
        lang: &str,
        category: &str,
    ) -> sqlx::Result<Vec<FaqEntry>> {
        if !self.lock_clause().is_empty() {
            let sql = format!(
                "SELECT id FROM faq_entries WHERE lang = $1 AND category = $2 ORDER BY id{}",
                self.lock_clause()
            );
            sqlx::query_scalar::<_, String>(&sql)
                .bind(lang)
                .bind(category)
                .fetch_all(self.conn())
                .await?;
        }
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM faq_entries WHERE lang = $1 AND category = $2 ORDER BY position, id"
        ))
        .bind(lang)
        .bind(category)
        .fetch_all(self.conn())
        .await
    }

    /// Sets one entry's position (a move within its category).
    pub async fn set_faq_position(
        &mut self,
        id: &str,
        position: i64,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done =
            sqlx::query("UPDATE faq_entries SET position = $2, updated_at = $3 WHERE id = $1")
                .bind(id)
                .bind(position)
                .bind(now)
                .execute(self.conn())
                .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn insert_faq(&mut self, fields: &FaqFields<'_>, now: i64) -> sqlx::Result<FaqEntry> {
        let entry = FaqEntry {
            id: new_id(),
            lang: fields.lang.to_owned(),
            category: fields.category.to_owned(),
            question: fields.question.to_owned(),
            answer: fields.answer.to_owned(),
            position: fields.position,
            created_at: now,
            updated_at: now,
        };
        sqlx::query(&format!(
            "INSERT INTO faq_entries ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        ))
        .bind(&entry.id)
        .bind(&entry.lang)
        .bind(&entry.category)
        .bind(&entry.question)
        .bind(&entry.answer)
        .bind(entry.position)
        .bind(entry.created_at)
        .bind(entry.updated_at)
        .execute(self.conn())
        .await?;
        Ok(entry)
    }

    pub async fn update_faq(
        &mut self,
        id: &str,
        fields: &FaqFields<'_>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE faq_entries SET lang = $2, category = $3, question = $4, answer = $5, position = $6, updated_at = $7
             WHERE id = $1",
        )
        .bind(id)
        .bind(fields.lang)
        .bind(fields.category)
        .bind(fields.question)
        .bind(fields.answer)
        .bind(fields.position)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn delete_faq(&mut self, id: &str) -> sqlx::Result<bool> {
        let done = sqlx::query("DELETE FROM faq_entries WHERE id = $1")
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(done.rows_affected() == 1)
    }
}
