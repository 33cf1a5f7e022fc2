//! Complaints: the ticket, its conversation (each text encrypted, bound to its message) and its images' records (the
//! bytes are in the file store). A borrower's reads filter on the borrower; support's reads do not.

use kilat_domain::Market;

use super::{Db, Tx, new_id};
use crate::infra::crypto::{Binding, Secrets};

/// A complaint as stored, with its order's number when one is attached.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ComplaintRow {
    pub id: String,
    pub ticket_no: String,
    pub borrower_id: String,
    #[row(try_from = "String")]
    pub market: Market,
    pub category: String,
    pub order_no: Option<String>,
    pub status: String,
    pub received_on: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub answered_at: Option<i64>,
    pub closed_at: Option<i64>,
    pub score: Option<i64>,
    pub score_comment: Option<String>,
    /// Support's assignee (an operator's id) and their username, and when they were assigned.
    pub assignee_id: Option<String>,
    pub assignee_name: Option<String>,
    pub assigned_at: Option<i64>,
}

const COLUMNS: &str =
    "c.id, c.ticket_no, c.borrower_id, c.market, c.category, o.order_no, c.status, c.received_on,
    c.created_at, c.updated_at, c.answered_at, c.closed_at, c.score, c.score_comment, c.assignee_id,
    a.username AS assignee_name, c.assigned_at";
const FROM: &str = "complaints c LEFT JOIN orders o ON o.id = c.order_id LEFT JOIN operators a ON a.id = c.assignee_id";

/// Which complaints of the queue, by assignee.
#[derive(Debug, Clone, Copy)]
pub enum AssigneeFilter<'a> {
    Anyone,
    /// Assigned to this operator.
    Operator(&'a str),
    Unassigned,
}

/// A canned reply of support, in one language.
#[derive(Debug, Clone, kilat_row::FromRow, serde::Serialize)]
pub struct CannedReply {
    pub id: String,
    /// `en` or `id`.
    pub lang: String,
    pub title: String,
    pub body: String,
    pub created_at: i64,
    pub updated_at: i64,
}

const CANNED_COLUMNS: &str = "id, lang, title, body, created_at, updated_at";

/// One message of a conversation, decrypted.
#[derive(Debug, Clone)]
pub struct ComplaintMessage {
    pub id: String,
    /// `borrower` or `operator`.
    pub author_kind: String,
    pub author_id: Option<String>,
    pub body: String,
    pub created_at: i64,
}

#[derive(kilat_row::FromRow)]
struct StoredMessage {
    id: String,
    author_kind: String,
    author_id: Option<String>,
    body_enc: String,
    created_at: i64,
}

/// An image's record.
#[derive(Debug, Clone, kilat_row::FromRow)]
pub struct ImageRow {
    pub id: String,
    pub borrower_id: String,
    pub complaint_id: Option<String>,
    pub storage_key: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub width: i64,
    pub height: i64,
    pub created_at: i64,
    /// The message it was sent with, once attached.
    pub message_id: Option<String>,
}

const IMAGE_COLUMNS: &str = "id, borrower_id, complaint_id, storage_key, content_type, size_bytes, width, height, created_at, message_id";

/// A new complaint.
pub struct NewComplaint<'a> {
    pub id: &'a str,
    pub ticket_no: &'a str,
    pub borrower_id: &'a str,
    pub market: Market,
    pub category: &'a str,
    pub order_id: Option<&'a str>,
    pub received_on: &'a str,
    pub now: i64,
}

impl Db {
    /// Of `keys`, those a complaint image's record names (the orphan-files sweep keeps them): a deleted account's
    /// images are still named until their rows go, and then their own flow removes the files.
    pub async fn recorded_file_keys(&self, keys: &[&str]) -> sqlx::Result<Vec<String>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT DISTINCT storage_key FROM complaint_images WHERE storage_key IN ({})",
            super::loans::placeholders(1, keys.len())
        );
        let mut query = sqlx::query_scalar(&sql);
        for key in keys {
            query = query.bind(*key);
        }
        query.fetch_all(self.pool()).await
    }

    /// The borrower's complaints, newest first.
    pub async fn complaints_of(&self, borrower_id: &str) -> sqlx::Result<Vec<ComplaintRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE c.borrower_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT 200"
        ))
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// Every complaint of the borrower, newest first (the data export: the list above shows the newest 200).
    pub async fn all_complaints_of(&self, borrower_id: &str) -> sqlx::Result<Vec<ComplaintRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE c.borrower_id = $1 ORDER BY c.created_at DESC, c.id DESC"
        ))
        .bind(borrower_id)
        .fetch_all(self.pool())
        .await
    }

    /// One complaint by ticket number; with `borrower_id`, only when it is that borrower's.
    pub async fn complaint_by_ticket(
        &self,
        ticket_no: &str,
        borrower_id: Option<&str>,
    ) -> sqlx::Result<Option<ComplaintRow>> {
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE c.ticket_no = $1 AND ($2 IS NULL OR c.borrower_id = $2)"
        ))
        .bind(ticket_no)
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await
    }

    /// The complaints not closed, by assignee, oldest first, at most `limit`: support's queue, which sorts them by
    /// deadline (`support::queue`).
    pub async fn open_complaints(
        &self,
        market: Option<Market>,
        assignee: AssigneeFilter<'_>,
        limit: i64,
    ) -> sqlx::Result<Vec<ComplaintRow>> {
        let (unassigned, assignee_id) = match assignee {
            AssigneeFilter::Anyone => (0_i64, None),
            AssigneeFilter::Operator(id) => (0, Some(id)),
            AssigneeFilter::Unassigned => (1, None),
        };
        sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM}
             WHERE ($1 IS NULL OR c.market = $1) AND c.status <> 'closed'
               AND ($2 = 0 OR c.assignee_id IS NULL) AND ($3 IS NULL OR c.assignee_id = $3)
             ORDER BY c.created_at, c.id LIMIT $4"
        ))
        .bind(market.map(kilat_domain::Code::code))
        .bind(unassigned)
        .bind(assignee_id)
        .bind(limit)
        .fetch_all(self.pool())
        .await
    }

    /// A page of support's queue: complaints not closed, oldest first, or all when not `open_only`, newest first; by
    /// assignee; with how many match in all.
    pub async fn complaint_queue(
        &self,
        market: Option<Market>,
        open_only: bool,
        assignee: AssigneeFilter<'_>,
        limit: i64,
        offset: i64,
    ) -> sqlx::Result<(Vec<ComplaintRow>, i64)> {
        let (unassigned, assignee_id) = match assignee {
            AssigneeFilter::Anyone => (0_i64, None),
            AssigneeFilter::Operator(id) => (0, Some(id)),
            AssigneeFilter::Unassigned => (1, None),
        };
        let filter = "($1 IS NULL OR c.market = $1) AND ($2 = 0 OR c.status <> 'closed')
               AND ($3 = 0 OR c.assignee_id IS NULL) AND ($4 IS NULL OR c.assignee_id = $4)";
        let order = if open_only {
            "c.created_at, c.id"
        } else {
            "c.created_at DESC, c.id DESC"
        };
        let market = market.map(kilat_domain::Code::code);
        let rows = sqlx::query_as(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE {filter} ORDER BY {order} LIMIT $5 OFFSET $6"
        ))
        .bind(market)
        .bind(i64::from(open_only))
        .bind(unassigned)
        .bind(assignee_id)
        .bind(limit)
        .bind(offset)
        .fetch_all(self.pool())
        .await?;
        let total =
            sqlx::query_scalar(&format!("SELECT COUNT(*) FROM complaints c WHERE {filter}"))
                .bind(market)
                .bind(i64::from(open_only))
                .bind(unassigned)
                .bind(assignee_id)
                .fetch_one(self.pool())
                .await?;
        Ok((rows, total))
    }

    /// The conversation, oldest first, decrypted.
    pub async fn complaint_messages(
        &self,
        secrets: &Secrets,
        complaint_id: &str,
    ) -> anyhow::Result<Vec<ComplaintMessage>> {
        let rows: Vec<StoredMessage> = sqlx::query_as(
            "SELECT id, author_kind, author_id, body_enc, created_at FROM complaint_messages
             WHERE complaint_id = $1 ORDER BY created_at, id",
        )
        .bind(complaint_id)
        .fetch_all(self.pool())
        .await?;
        rows.into_iter()
            .map(|row| {
                let body =
                    secrets.decrypt(&row.body_enc, Binding::ComplaintMessage { id: &row.id })?;
                Ok(ComplaintMessage {
                    id: row.id,
                    author_kind: row.author_kind,
                    author_id: row.author_id,
                    body,
                    created_at: row.created_at,
                })
            })
            .collect()
    }

    /// The images attached to a complaint, in upload order.
    pub async fn complaint_images(&self, complaint_id: &str) -> sqlx::Result<Vec<ImageRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMAGE_COLUMNS} FROM complaint_images WHERE complaint_id = $1 ORDER BY created_at, id"
        ))
        .bind(complaint_id)
        .fetch_all(self.pool())
        .await
    }

    /// One image; with `borrower_id`, only when it is that borrower's.
    pub async fn complaint_image(
        &self,
        image_id: &str,
        borrower_id: Option<&str>,
    ) -> sqlx::Result<Option<ImageRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMAGE_COLUMNS} FROM complaint_images WHERE id = $1 AND ($2 IS NULL OR borrower_id = $2)"
        ))
        .bind(image_id)
        .bind(borrower_id)
        .fetch_optional(self.pool())
        .await
    }
}

impl Db {
    /// The borrower's uploads no complaint holds, uploaded since `since`, oldest first (at most a complaint's worth
    /// count, but the list is bounded anyway).
    pub async fn waiting_images_of(
        &self,
        borrower_id: &str,
        since: i64,
    ) -> sqlx::Result<Vec<ImageRow>> {
        sqlx::query_as(&format!(
            "SELECT {IMAGE_COLUMNS} FROM complaint_images
             WHERE borrower_id = $1 AND complaint_id IS NULL AND created_at >= $2
             ORDER BY created_at, id LIMIT 10"
        ))
        .bind(borrower_id)
        .bind(since)
        .fetch_all(self.pool())
        .await
    }

    /// Gives back an upload's slot (`complaint_upload_slots`) after the upload failed or was refused.
    pub async fn release_upload_slot(&self, slot_id: &str) -> sqlx::Result<()> {
        sqlx::query("DELETE FROM complaint_upload_slots WHERE id = $1")
            .bind(slot_id)
            .execute(self.pool())
            .await?;
        Ok(())
    }
}

impl Db {
    /// Deletes at most `batch` photos uploaded before `before` and never sent with a complaint (the leftovers sweep),
    /// each only while still unsent; the storage keys of those deleted, whose files go next.
    pub async fn delete_waiting_images_before(
        &self,
        before: i64,
        batch: i64,
    ) -> sqlx::Result<Vec<String>> {
        sqlx::query_scalar(
            "DELETE FROM complaint_images WHERE complaint_id IS NULL AND id IN (
                 SELECT id FROM complaint_images WHERE complaint_id IS NULL AND created_at < $1
                 ORDER BY created_at LIMIT $2)
             RETURNING storage_key",
        )
        .bind(before)
        .bind(batch)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    /// The borrower's uploads counted against their waiting places: images not yet attached to a complaint, uploaded
    /// at or after `images_since`, and uploads under way (slots taken at or after `slots_since`), after removing the
    /// borrower's slots older than that (a server stopped mid-upload).
    pub async fn uploads_in_place(
        &mut self,
        borrower_id: &str,
        images_since: i64,
        slots_since: i64,
    ) -> sqlx::Result<i64> {
        sqlx::query(
            "DELETE FROM complaint_upload_slots WHERE borrower_id = $1 AND created_at < $2",
        )
        .bind(borrower_id)
        .bind(slots_since)
        .execute(self.conn())
        .await?;
        let images = self.waiting_images(borrower_id, images_since).await?;
        let slots: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM complaint_upload_slots WHERE borrower_id = $1",
        )
        .bind(borrower_id)
        .fetch_one(self.conn())
        .await?;
        Ok(images + slots)
    }

    pub async fn insert_upload_slot(
        &mut self,
        slot_id: &str,
        borrower_id: &str,
        now: i64,
    ) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO complaint_upload_slots (id, borrower_id, created_at) VALUES ($1, $2, $3)",
        )
        .bind(slot_id)
        .bind(borrower_id)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Removes an upload's slot as its image is recorded; false when it is gone already (older than the slots'
    /// lifetime, and removed by another upload).
    pub async fn take_upload_slot(&mut self, slot_id: &str) -> sqlx::Result<bool> {
        let done = sqlx::query("DELETE FROM complaint_upload_slots WHERE id = $1")
            .bind(slot_id)
            .execute(self.conn())
            .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The borrower's uploads not yet attached to a complaint, uploaded at or after `since`.
    pub async fn waiting_images(&mut self, borrower_id: &str, since: i64) -> sqlx::Result<i64> {
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM complaint_images WHERE borrower_id = $1 AND complaint_id IS NULL AND created_at >= $2",
        )
        .bind(borrower_id)
        .bind(since)
        .fetch_one(self.conn())
        .await
    }

    pub async fn insert_complaint_image(&mut self, row: &ImageRow) -> sqlx::Result<()> {
        sqlx::query(&format!(
            "INSERT INTO complaint_images ({IMAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
        ))
        .bind(&row.id)
        .bind(&row.borrower_id)
        .bind(&row.complaint_id)
        .bind(&row.storage_key)
        .bind(&row.content_type)
        .bind(row.size_bytes)
        .bind(row.width)
        .bind(row.height)
        .bind(row.created_at)
        .bind(&row.message_id)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Deletes one of the borrower's uploads still waiting; false when there is none such.
    pub async fn delete_waiting_image(
        &mut self,
        borrower_id: &str,
        image_id: &str,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar(
            "DELETE FROM complaint_images WHERE id = $1 AND borrower_id = $2 AND complaint_id IS NULL
             RETURNING storage_key",
        )
        .bind(image_id)
        .bind(borrower_id)
        .fetch_optional(self.conn())
        .await
    }

    pub async fn insert_complaint(&mut self, new: &NewComplaint<'_>) -> sqlx::Result<()> {
        sqlx::query(
            "INSERT INTO complaints (id, ticket_no, borrower_id, market, category, order_id, status, received_on,
               created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $8)",
        )
        .bind(new.id)
        .bind(new.ticket_no)
        .bind(new.borrower_id)
        .bind(kilat_domain::Code::code(new.market))
        .bind(new.category)
        .bind(new.order_id)
        .bind(new.received_on)
        .bind(new.now)
        .execute(self.conn())
        .await?;
        Ok(())
    }

    /// Attaches one of the borrower's waiting uploads to the complaint's message; false when it is not such an upload
    /// (another borrower's, attached already, or missing).
    pub async fn attach_image(
        &mut self,
        borrower_id: &str,
        image_id: &str,
        complaint_id: &str,
        message_id: &str,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaint_images SET complaint_id = $1, message_id = $4
             WHERE id = $2 AND borrower_id = $3 AND complaint_id IS NULL",
        )
        .bind(complaint_id)
        .bind(image_id)
        .bind(borrower_id)
        .bind(message_id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn insert_complaint_message(
        &mut self,
        secrets: &Secrets,
        complaint_id: &str,
        author_kind: &str,
        author_id: Option<&str>,
        body: &str,
        now: i64,
    ) -> sqlx::Result<String> {
        let id = new_id();
        sqlx::query(
            "INSERT INTO complaint_messages (id, complaint_id, author_kind, author_id, body_enc, created_at)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(&id)
        .bind(complaint_id)
        .bind(author_kind)
        .bind(author_id)
        .bind(secrets.encrypt(body, Binding::ComplaintMessage { id: &id }))
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(id)
    }

    /// Support's reply moves a complaint not closed to `answered`, unless the borrower wrote after the message
    /// `seen` (the last one support read before replying; `None`: all of them): false then, and for a closed one.
    pub async fn mark_complaint_answered(
        &mut self,
        complaint_id: &str,
        seen: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaints SET status = 'answered', answered_at = COALESCE(answered_at, $2), updated_at = $2
             WHERE id = $1 AND status <> 'closed'
               AND NOT EXISTS (SELECT 1 FROM complaint_messages m JOIN complaint_messages seen ON seen.id = $3
                 WHERE m.complaint_id = $1 AND m.author_kind = 'borrower'
                   AND (m.created_at > seen.created_at OR (m.created_at = seen.created_at AND m.id > seen.id)))",
        )
        .bind(complaint_id)
        .bind(now)
        .bind(seen)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Whether `message_id` is a message of the complaint.
    pub async fn complaint_has_message(
        &mut self,
        complaint_id: &str,
        message_id: &str,
    ) -> sqlx::Result<bool> {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM complaint_messages WHERE complaint_id = $1 AND id = $2",
        )
        .bind(complaint_id)
        .bind(message_id)
        .fetch_one(self.conn())
        .await
        .map(|n| n > 0)
    }

    /// The borrower's reply puts a complaint not closed back to `open` (waiting for support); false when it is closed
    /// (or not the borrower's).
    pub async fn reopen_complaint(
        &mut self,
        complaint_id: &str,
        borrower_id: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaints SET status = 'open', updated_at = $3
             WHERE id = $1 AND borrower_id = $2 AND status <> 'closed'",
        )
        .bind(complaint_id)
        .bind(borrower_id)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Sets a complaint's assignee (`None`: unassigned) when it is still `expected` and the complaint is not closed:
    /// one conditional update, false when either changed meanwhile.
    /// A complaint's status and assignee, its row locked until the transaction ends (PostgreSQL; SQLite's writer
    /// lock does the same); `None` when there is no such complaint.
    pub async fn complaint_assignee_for_update(
        &mut self,
        complaint_id: &str,
    ) -> sqlx::Result<Option<(String, Option<String>)>> {
        let sql = format!(
            "SELECT status, assignee_id FROM complaints WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(complaint_id)
            .fetch_optional(self.conn())
            .await
    }

    pub async fn assign_complaint(
        &mut self,
        complaint_id: &str,
        expected: Option<&str>,
        assignee: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaints SET assignee_id = $3, assigned_at = $4, updated_at = $5
             WHERE id = $1 AND status <> 'closed' AND COALESCE(assignee_id, '') = COALESCE($2, '')",
        )
        .bind(complaint_id)
        .bind(expected)
        .bind(assignee)
        .bind(assignee.map(|_| now))
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Closes a complaint support has answered last (`answered`); false when it is not (closed already, or waiting
    /// for an answer).
    pub async fn close_complaint(
        &mut self,
        complaint_id: &str,
        operator_id: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaints SET status = 'closed', closed_at = $2, closed_by = $3, updated_at = $2
             WHERE id = $1 AND status = 'answered'",
        )
        .bind(complaint_id)
        .bind(now)
        .bind(operator_id)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// A complaint's status, read inside the transaction.
    pub async fn complaint_status_in_tx(
        &mut self,
        complaint_id: &str,
    ) -> sqlx::Result<Option<String>> {
        sqlx::query_scalar("SELECT status FROM complaints WHERE id = $1")
            .bind(complaint_id)
            .fetch_optional(self.conn())
            .await
    }
}

impl Tx {
    /// The borrower's score of an answered complaint, once: false when it was scored already or is not answered.
    pub async fn score_complaint(
        &mut self,
        complaint_id: &str,
        score: i64,
        comment: Option<&str>,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE complaints SET score = $2, score_comment = $3, scored_at = $4, updated_at = $4
             WHERE id = $1 AND score IS NULL AND answered_at IS NOT NULL",
        )
        .bind(complaint_id)
        .bind(score)
        .bind(comment)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }
}

impl Db {
    /// The canned replies of one language (all when `None`), by language and title.
    pub async fn canned_replies(&self, lang: Option<&str>) -> sqlx::Result<Vec<CannedReply>> {
        sqlx::query_as(&format!(
            "SELECT {CANNED_COLUMNS} FROM canned_replies WHERE ($1 IS NULL OR lang = $1) ORDER BY lang, title, id"
        ))
        .bind(lang)
        .fetch_all(self.pool())
        .await
    }
}

impl Tx {
    pub async fn canned_reply(&mut self, id: &str) -> sqlx::Result<Option<CannedReply>> {
        let sql = format!(
            "SELECT {CANNED_COLUMNS} FROM canned_replies WHERE id = $1{}",
            self.lock_clause()
        );
        sqlx::query_as(&sql)
            .bind(id)
            .fetch_optional(self.conn())
            .await
    }

    /// Holds the canned replies against other writers until commit, for a count and a write that must agree: on
    /// PostgreSQL a table lock that lets readers read; SQLite's transaction already holds the write lock.
    pub async fn lock_canned_replies(&mut self) -> sqlx::Result<()> {
        if !self.lock_clause().is_empty() {
            sqlx::query("LOCK TABLE canned_replies IN EXCLUSIVE MODE")
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// How many canned replies a language has (counted under [`Tx::lock_canned_replies`]).
    pub async fn count_canned_replies(&mut self, lang: &str) -> sqlx::Result<i64> {
        sqlx::query_scalar("SELECT COUNT(*) FROM canned_replies WHERE lang = $1")
            .bind(lang)
            .fetch_one(self.conn())
            .await
    }

    pub async fn insert_canned_reply(
        &mut self,
        lang: &str,
        title: &str,
        body: &str,
        now: i64,
    ) -> sqlx::Result<CannedReply> {
        let reply = CannedReply {
            id: new_id(),
            lang: lang.to_owned(),
            title: title.to_owned(),
            body: body.to_owned(),
            created_at: now,
            updated_at: now,
        };
        sqlx::query(&format!(
            "INSERT INTO canned_replies ({CANNED_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)"
        ))
        .bind(&reply.id)
        .bind(&reply.lang)
        .bind(&reply.title)
        .bind(&reply.body)
        .bind(now)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(reply)
    }

    pub async fn update_canned_reply(
        &mut self,
        id: &str,
        lang: &str,
        title: &str,
        body: &str,
        now: i64,
    ) -> sqlx::Result<bool> {
        let done = sqlx::query(
            "UPDATE canned_replies SET lang = $2, title = $3, body = $4, updated_at = $5 WHERE id = $1",
        )
        .bind(id)
        .bind(lang)
        .bind(title)
        .bind(body)
        .bind(now)
        .execute(self.conn())
        .await?;
        Ok(done.rows_affected() == 1)
    }

    pub async fn delete_canned_reply(&mut self, id: &str) -> sqlx::Result<bool> {
        let done = sqlx::query("DELETE FROM canned_replies WHERE id = $1")
            .bind(id)
            .execute(self.conn())
            .await?;
        Ok(done.rows_affected() == 1)
    }
}
