//! Support's work (docs/API-CONSOLE.md): the complaint queue with each complaint's age, status and deadline flag,
//! the conversation, replies and closing; the contact form's messages with their handled flag; the FAQ (admins).

use axum::Json;
use axum::extract::{Path, State};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::http::AppState;
use crate::http::borrower::auth::require_market;
use crate::http::borrower::support::{
    ComplaintDetailView, ComplaintSummary, FaqView, image_response,
};
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::store::contact_messages::ContactMessage;
use crate::support::{self, FaqDirection, FaqRequest};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ComplaintQueueQuery {
    /// `IN` or `ID`; both markets when left out.
    #[param(value_type = Option<kilat_domain::Market>)]
    pub market: Option<String>,
    /// `open` (not closed; the default) or `all`.
    #[param(value_type = Option<String>, example = "open")]
    pub status: Option<String>,
    /// `mine` (assigned to the asking operator), `unassigned`, or `all` (the default).
    #[param(value_type = Option<String>, example = "mine")]
    pub assignee: Option<String>,
    /// From 1 (the default).
    #[param(value_type = Option<i64>, example = 1)]
    pub page: Option<String>,
    /// 1 to 200 (default 50).
    #[param(value_type = Option<i64>, example = 50)]
    #[serde(rename = "pageSize")]
    pub page_size: Option<String>,
}

/// A page of support's queue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintQueueView {
    /// Complaints matching the filter, in all.
    pub total: i64,
    pub page: i64,
    pub page_size: i64,
    pub items: Vec<QueuedComplaint>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueuedComplaint {
    #[serde(flatten)]
    pub complaint: ComplaintSummary,
    /// Whole seconds since it was filed.
    pub age_seconds: i64,
    /// Support's assignee: the operator's id and username, none while unassigned.
    #[schema(required = true)]
    pub assignee_id: Option<String>,
    #[schema(required = true)]
    pub assignee_name: Option<String>,
}

/// Support's queue, a page at a time: complaints not closed — past the regulator's deadline first, then those waiting
/// on the lender, then the nearest deadline — or all, newest first; each with its age, status and whether it is past
/// the deadline (support, admin).
#[utoipa::path(get, path = "/api/v1/console/complaints", tag = "console", operation_id = "console_complaints",
    security(("console_cookie" = [])),
    params(ComplaintQueueQuery),
    responses((status = 200, body = Envelope<ComplaintQueueView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `status`, `assignee`, `page` or `pageSize`", body = ErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<ComplaintQueueQuery>,
) -> Result<Json<Envelope<ComplaintQueueView>>, ApiError> {
    // Left out: both markets; given, it must name one (an empty `market=` is refused, as the document says).
    let market = match query.market.as_deref().map(str::trim) {
        Some(code) => Some(require_market(Some(code)).map_err(crate::error::Error::Validation)?),
        None => None,
    };
    let open_only = match query.status.as_deref().map(str::trim) {
        None | Some("" | "open") => true,
        Some("all") => false,
        Some(_) => {
            return Err(crate::error::Error::field(
                "status",
                crate::error::FieldProblem::new("field.unknown_choice"),
            )
            .into());
        }
    };
    let assignee = match query.assignee.as_deref().map(str::trim) {
        None | Some("" | "all") => support::QueueAssignee::Anyone,
        Some("mine") => support::QueueAssignee::Mine,
        Some("unassigned") => support::QueueAssignee::Unassigned,
        Some(_) => {
            return Err(crate::error::Error::field(
                "assignee",
                crate::error::FieldProblem::new("field.unknown_choice"),
            )
            .into());
        }
    };
    let mut errors = crate::error::FieldErrors::default();
    let page = super::whole_number("page", query.page.as_deref(), 1, 100_000, &mut errors);
    let page_size = super::whole_number(
        "pageSize",
        query.page_size.as_deref(),
        support::QUEUE_PAGE_SIZE,
        support::MAX_QUEUE_PAGE_SIZE,
        &mut errors,
    );
    errors.into_result()?;
    let now = state.services.clock.now_ms();
    let (list, total) = support::queue(
        &state.services,
        &session.operator,
        market,
        open_only,
        assignee,
        page,
        page_size,
    )
    .await?;
    Ok(Envelope::ok(ComplaintQueueView {
        total,
        page,
        page_size,
        items: list
            .into_iter()
            .map(|c| QueuedComplaint {
                age_seconds: (now - c.row.created_at).max(0) / 1000,
                assignee_id: c.row.assignee_id.clone(),
                assignee_name: c.row.assignee_name.clone(),
                complaint: c.into(),
            })
            .collect(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SupportComplaintView {
    #[serde(flatten)]
    pub detail: ComplaintDetailView,
    /// The borrower's phone, masked.
    #[schema(required = true)]
    pub phone_masked: Option<String>,
    /// The ticket's language (`en` India, `id` Indonesia): the canned replies offered are this language's.
    pub lang: String,
    /// Support's assignee: the operator's id and username, none while unassigned.
    #[schema(required = true)]
    pub assignee_id: Option<String>,
    #[schema(required = true)]
    pub assignee_name: Option<String>,
}

fn support_view(detail: support::ComplaintDetail) -> SupportComplaintView {
    let lang = crate::i18n::Lang::of_market(detail.complaint.row.market)
        .code()
        .to_owned();
    let assignee_id = detail.complaint.row.assignee_id.clone();
    let assignee_name = detail.complaint.row.assignee_name.clone();
    let (detail, phone_masked) = ComplaintDetailView::of(detail);
    SupportComplaintView {
        detail,
        phone_masked,
        lang,
        assignee_id,
        assignee_name,
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssigneeView {
    pub id: String,
    pub username: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AssigneesQuery {
    /// `IN` or `ID`: the complaint's market, one of the asking operator's; left out, the operator's one market, or
    /// both for an operator of both.
    #[param(value_type = Option<kilat_domain::Market>)]
    pub market: Option<String>,
}

/// The operators a complaint of the market may be assigned to: enabled, with the support or admin role, working in
/// that market, by username.
#[utoipa::path(get, path = "/api/v1/console/complaint-assignees", tag = "console",
    operation_id = "console_complaint_assignees",
    security(("console_cookie" = [])),
    params(AssigneesQuery),
    responses((status = 200, body = Envelope<Vec<AssigneeView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market` (unknown, or not the operator's)", body = ErrorBody)))]
pub async fn assignees(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<AssigneesQuery>,
) -> Result<Json<Envelope<Vec<AssigneeView>>>, ApiError> {
    let market = match query.market.as_deref().map(str::trim) {
        Some(code) => Some(require_market(Some(code)).map_err(crate::error::Error::Validation)?),
        None => None,
    };
    let list = support::assignees(&state.services, &session.operator, market).await?;
    Ok(Envelope::ok(
        list.into_iter()
            .map(|a| AssigneeView {
                id: a.id,
                username: a.username,
            })
            .collect(),
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssignRequest {
    /// An operator of `GET /complaint-assignees?market=` of the complaint's market (the asking operator's own id:
    /// "assign to me"); `null` or left out unassigns.
    #[schema(required = true)]
    pub assignee_id: Option<String>,
}

/// Assigns a complaint not closed to an operator with the support or admin role, or unassigns it (`assigneeId`
/// null); audited `complaint.assign` with the assignee before and after.
#[utoipa::path(post, path = "/api/v1/console/complaints/{ticketNo}/assign", tag = "console",
    operation_id = "console_complaint_assign",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("ticketNo" = String, Path)),
    request_body(content((AssignRequest = "application/json"))),
    responses((status = 200, body = Envelope<SupportComplaintView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "complaint_closed", body = ErrorBody),
        (status = 422, description = "validation_failed: `assigneeId` is no enabled support or admin operator, or one who does not work in the complaint's market", body = ErrorBody)))]
pub async fn assign(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(ticket_no): Path<String>,
    JsonOrForm(req): JsonOrForm<AssignRequest>,
) -> Result<Json<Envelope<SupportComplaintView>>, ApiError> {
    let detail = support::assign(
        &state.services,
        &session.operator,
        &ticket_no,
        req.assignee_id.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(support_view(detail)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CannedRepliesQuery {
    /// `en` or `id`; both when left out.
    #[param(value_type = Option<String>, example = "en")]
    pub lang: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CannedReplyView {
    pub id: String,
    /// `en` (India) or `id` (Indonesia).
    pub lang: String,
    pub title: String,
    pub body: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl From<crate::store::complaints::CannedReply> for CannedReplyView {
    fn from(r: crate::store::complaints::CannedReply) -> Self {
        Self {
            id: r.id,
            lang: r.lang,
            title: r.title,
            body: r.body,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// Support's canned replies, by language and title (support, admin).
#[utoipa::path(get, path = "/api/v1/console/canned-replies", tag = "console",
    operation_id = "console_canned_replies",
    security(("console_cookie" = [])),
    params(CannedRepliesQuery),
    responses((status = 200, body = Envelope<Vec<CannedReplyView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `lang`", body = ErrorBody)))]
pub async fn canned_replies(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<CannedRepliesQuery>,
) -> Result<Json<Envelope<Vec<CannedReplyView>>>, ApiError> {
    let list =
        support::canned_replies(&state.services, &session.operator, query.lang.as_deref()).await?;
    Ok(Envelope::ok(list.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CannedReplyWriteRequest {
    /// `en` (India) or `id` (Indonesia).
    #[schema(value_type = String, required = true, example = "en")]
    pub lang: Option<String>,
    /// At most 80 characters: what the reply box's menu shows.
    #[schema(value_type = String, required = true)]
    pub title: Option<String>,
    /// At most 2000 characters, as a reply.
    #[schema(value_type = String, required = true)]
    pub body: Option<String>,
}

impl CannedReplyWriteRequest {
    fn fields(&self) -> support::CannedRequest<'_> {
        support::CannedRequest {
            lang: self.lang.as_deref(),
            title: self.title.as_deref(),
            body: self.body.as_deref(),
        }
    }
}

/// Adds a canned reply (support, admin), at most 50 a language; audited `canned_reply.create`.
#[utoipa::path(post, path = "/api/v1/console/canned-replies", tag = "console",
    operation_id = "console_canned_reply_create",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((CannedReplyWriteRequest = "application/json"), (CannedReplyWriteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CannedReplyView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `lang` (also when it has 50 already), `title` or `body`", body = ErrorBody)))]
pub async fn canned_create(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<CannedReplyWriteRequest>,
) -> Result<Json<Envelope<CannedReplyView>>, ApiError> {
    let reply = support::canned_create(&state.services, &session.operator, &req.fields()).await?;
    Ok(Envelope::ok(reply.into()))
}

/// Changes a canned reply (support, admin); audited `canned_reply.update` with before and after.
#[utoipa::path(put, path = "/api/v1/console/canned-replies/{id}", tag = "console",
    operation_id = "console_canned_reply_update",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    request_body(content((CannedReplyWriteRequest = "application/json"), (CannedReplyWriteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CannedReplyView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "validation_failed: `lang`, `title` or `body`", body = ErrorBody)))]
pub async fn canned_update(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<CannedReplyWriteRequest>,
) -> Result<Json<Envelope<CannedReplyView>>, ApiError> {
    let reply =
        support::canned_update(&state.services, &session.operator, &id, &req.fields()).await?;
    Ok(Envelope::ok(reply.into()))
}

/// Removes a canned reply (support, admin); audited `canned_reply.delete` with what it said.
#[utoipa::path(delete, path = "/api/v1/console/canned-replies/{id}", tag = "console",
    operation_id = "console_canned_reply_delete",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    responses((status = 200, body = Envelope<FaqDeleted>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn canned_delete(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
) -> Result<Json<Envelope<FaqDeleted>>, ApiError> {
    support::canned_delete(&state.services, &session.operator, &id).await?;
    Ok(Envelope::ok(FaqDeleted { id, deleted: true }))
}

/// A complaint with its conversation and images (support, admin).
#[utoipa::path(get, path = "/api/v1/console/complaints/{ticketNo}", tag = "console",
    operation_id = "console_complaint",
    security(("console_cookie" = [])),
    params(("ticketNo" = String, Path, description = "E.g. CP-261125-7F3K9Q")),
    responses((status = 200, body = Envelope<SupportComplaintView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(ticket_no): Path<String>,
) -> Result<Json<Envelope<SupportComplaintView>>, ApiError> {
    let detail = support::support_detail(&state.services, &session.operator, &ticket_no).await?;
    Ok(Envelope::ok(support_view(detail)))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReplyRequest {
    /// 1 to 2000 characters; the borrower reads it in the app.
    #[schema(value_type = String, required = true)]
    pub body: Option<String>,
    /// The id of the conversation's last message read before writing. When the borrower wrote after it, the reply
    /// is sent but the complaint stays `open`: that message is not answered yet. Absent: every message was read.
    #[serde(rename = "seenMessageId")]
    #[schema(value_type = Option<String>)]
    pub seen_message_id: Option<String>,
}

/// Answers a complaint (support, admin): the reply joins the conversation and the complaint is `answered` — or stays
/// `open` when the borrower wrote after `seenMessageId`; audited.
#[utoipa::path(post, path = "/api/v1/console/complaints/{ticketNo}/reply", tag = "console",
    operation_id = "console_complaint_reply",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("ticketNo" = String, Path)),
    request_body(content((ReplyRequest = "application/json"), (ReplyRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<SupportComplaintView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "complaint_closed", body = ErrorBody),
        (status = 422, description = "validation_failed: `body`, `seenMessageId` (not a message of this complaint)", body = ErrorBody)))]
pub async fn reply(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(ticket_no): Path<String>,
    JsonOrForm(req): JsonOrForm<ReplyRequest>,
) -> Result<Json<Envelope<SupportComplaintView>>, ApiError> {
    let detail = support::reply(
        &state.services,
        &session.operator,
        &ticket_no,
        req.body.as_deref(),
        req.seen_message_id.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(support_view(detail)))
}

/// Closes a complaint support answered last (support, admin); audited.
#[utoipa::path(post, path = "/api/v1/console/complaints/{ticketNo}/close", tag = "console",
    operation_id = "console_complaint_close",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("ticketNo" = String, Path)),
    responses((status = 200, body = Envelope<SupportComplaintView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "complaint_closed, complaint_unanswered", body = ErrorBody)))]
pub async fn close(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(ticket_no): Path<String>,
) -> Result<Json<Envelope<SupportComplaintView>>, ApiError> {
    let detail = support::close(&state.services, &session.operator, &ticket_no).await?;
    Ok(Envelope::ok(support_view(detail)))
}

/// An image of a filed complaint (support, admin).
#[utoipa::path(get, path = "/api/v1/console/complaint-images/{imageId}", tag = "console",
    operation_id = "console_complaint_image",
    security(("console_cookie" = [])),
    params(("imageId" = String, Path)),
    responses((status = 200, description = "The image", content(("image/jpeg"), ("image/png"), ("image/webp"))),
        (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn image(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(image_id): Path<String>,
) -> Result<Response, ApiError> {
    let file = support::support_image(&state.services, &session.operator, &image_id).await?;
    Ok(image_response(file))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ContactMessagesQuery {
    /// `waiting` (not handled yet, oldest first) or `all` (the default, newest first).
    #[param(value_type = Option<String>, example = "waiting")]
    pub status: Option<String>,
    /// From 1 (the default).
    #[param(value_type = Option<i64>, example = 1)]
    pub page: Option<String>,
    /// 1 to 200 (default 50).
    #[param(value_type = Option<i64>, example = 50)]
    #[serde(rename = "pageSize")]
    pub page_size: Option<String>,
}

/// A page of the contact messages.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactMessagesView {
    /// Messages matching the filter that the operator sees, in all.
    pub total: i64,
    pub page: i64,
    pub page_size: i64,
    pub items: Vec<ContactMessageView>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactMessageView {
    pub id: String,
    pub name: String,
    pub telephone: String,
    pub message: String,
    #[schema(required = true)]
    pub email: Option<String>,
    #[schema(required = true)]
    pub company: Option<String>,
    /// Epoch milliseconds.
    pub created_at: i64,
    /// How to answer: `email` when the visitor gave one, else `phone`.
    pub reply_channel: String,
    /// The address or number to answer at.
    pub reply_to: String,
    pub handled: bool,
    /// Epoch milliseconds.
    #[schema(required = true)]
    pub handled_at: Option<i64>,
    /// The operator's id.
    #[schema(required = true)]
    pub handled_by: Option<String>,
    /// The market of the site it was sent from (`IN`, `ID`); none for messages kept before it was.
    #[schema(value_type = Option<kilat_domain::Market>, required = true)]
    pub market: Option<String>,
}

impl From<ContactMessage> for ContactMessageView {
    fn from(m: ContactMessage) -> Self {
        let (channel, to) = support::reply_channel(&m);
        let (reply_channel, reply_to) = (channel.to_owned(), to.to_owned());
        Self {
            id: m.id,
            name: m.name,
            telephone: m.telephone,
            message: m.message,
            email: m.email,
            company: m.company,
            created_at: m.created_at,
            reply_channel,
            reply_to,
            handled: m.handled_at.is_some(),
            handled_at: m.handled_at,
            handled_by: m.handled_by,
            market: m.market,
        }
    }
}

/// The marketing site's contact messages, a page at a time: those waiting (not handled), oldest first (the most
/// overdue first), or all, newest first; only those of the operator's markets (support, admin).
#[utoipa::path(get, path = "/api/v1/console/contact-messages", tag = "console",
    operation_id = "console_contact_messages",
    security(("console_cookie" = [])),
    params(ContactMessagesQuery),
    responses((status = 200, body = Envelope<ContactMessagesView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not support or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `status`, `page` or `pageSize`", body = ErrorBody)))]
pub async fn contact_messages(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<ContactMessagesQuery>,
) -> Result<Json<Envelope<ContactMessagesView>>, ApiError> {
    let mut errors = crate::error::FieldErrors::default();
    let waiting_only = match query.status.as_deref().map(str::trim) {
        None | Some("" | "all") => false,
        Some("waiting") => true,
        Some(_) => {
            errors.add(
                "status",
                crate::error::FieldProblem::new("field.unknown_choice"),
            );
            false
        }
    };
    let page = super::whole_number("page", query.page.as_deref(), 1, 100_000, &mut errors);
    let page_size = super::whole_number(
        "pageSize",
        query.page_size.as_deref(),
        support::QUEUE_PAGE_SIZE,
        support::MAX_QUEUE_PAGE_SIZE,
        &mut errors,
    );
    errors.into_result()?;
    let (list, total) = support::contact_messages(
        &state.services,
        &session.operator,
        waiting_only,
        page,
        page_size,
    )
    .await?;
    Ok(Envelope::ok(ContactMessagesView {
        total,
        page,
        page_size,
        items: list.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HandledView {
    pub id: String,
    /// True when this request marked it; false when another operator had already.
    pub marked_now: bool,
}

/// Marks a contact message handled (support, admin), once: the first mark stands.
#[utoipa::path(post, path = "/api/v1/console/contact-messages/{id}/handled", tag = "console",
    operation_id = "console_contact_message_handled",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    responses((status = 200, body = Envelope<HandledView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not support or admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn mark_handled(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
) -> Result<Json<Envelope<HandledView>>, ApiError> {
    let marked_now = support::mark_handled(&state.services, &session.operator, &id).await?;
    Ok(Envelope::ok(HandledView {
        id: id.trim().to_owned(),
        marked_now,
    }))
}

/// Every FAQ entry of both languages (admin).
#[utoipa::path(get, path = "/api/v1/console/faq", tag = "console", operation_id = "console_faq",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<FaqView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not admin", body = ErrorBody)))]
pub async fn faq(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<FaqView>>>, ApiError> {
    let list = support::faq_all(&state.services, &session.operator).await?;
    Ok(Envelope::ok(list.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct FaqWriteRequest {
    /// `en` (India) or `id` (Indonesia).
    #[schema(value_type = String, required = true, example = "en")]
    pub lang: Option<String>,
    /// `apply`, `repay` or `account`.
    #[schema(value_type = String, required = true, example = "repay")]
    pub category: Option<String>,
    /// At most 300 characters.
    #[schema(value_type = String, required = true)]
    pub question: Option<String>,
    /// At most 3000 characters.
    #[schema(value_type = String, required = true)]
    pub answer: Option<String>,
    /// Order within the category, 0 to 10000 (default 1).
    #[schema(value_type = i64, nullable = false)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub position: Option<i64>,
}

impl FaqWriteRequest {
    fn fields(&self) -> FaqRequest<'_> {
        FaqRequest {
            lang: self.lang.as_deref(),
            category: self.category.as_deref(),
            question: self.question.as_deref(),
            answer: self.answer.as_deref(),
            position: self.position,
        }
    }
}

/// Adds an FAQ entry (admin); audited.
#[utoipa::path(post, path = "/api/v1/console/faq", tag = "console", operation_id = "console_faq_create",
    security(("console_cookie" = [], "csrf_header" = [])),
    request_body(content((FaqWriteRequest = "application/json"), (FaqWriteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<FaqView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `lang`, `category`, `question`, `answer` or `position`", body = ErrorBody)))]
pub async fn faq_create(
    State(state): State<AppState>,
    session: OperatorSession,
    JsonOrForm(req): JsonOrForm<FaqWriteRequest>,
) -> Result<Json<Envelope<FaqView>>, ApiError> {
    let entry = support::faq_create(&state.services, &session.operator, &req.fields()).await?;
    Ok(Envelope::ok(entry.into()))
}

/// Changes an FAQ entry (admin); audited with before and after.
#[utoipa::path(put, path = "/api/v1/console/faq/{id}", tag = "console", operation_id = "console_faq_update",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    request_body(content((FaqWriteRequest = "application/json"), (FaqWriteRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<FaqView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "validation_failed: `lang`, `category`, `question`, `answer` or `position`", body = ErrorBody)))]
pub async fn faq_update(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<FaqWriteRequest>,
) -> Result<Json<Envelope<FaqView>>, ApiError> {
    let entry = support::faq_update(&state.services, &session.operator, &id, &req.fields()).await?;
    Ok(Envelope::ok(entry.into()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct FaqMoveRequest {
    /// `up`: before the entry ahead of it in its language and category (by position, then id); `down`: after the
    /// one behind it.
    #[schema(value_type = FaqDirection, required = true)]
    pub direction: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaqMovedView {
    /// The moved entry, with its new position.
    pub entry: FaqView,
    /// Its language's category in the new order.
    pub category: Vec<FaqView>,
}

/// Moves an FAQ entry one place up or down in its language and category (admin), atomically: it trades positions
/// with its neighbour (or the category is numbered 1, 2, 3… in the new order when positions repeat), audited once.
#[utoipa::path(post, path = "/api/v1/console/faq/{id}/move", tag = "console", operation_id = "console_faq_move",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    request_body(content((FaqMoveRequest = "application/json"), (FaqMoveRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<FaqMovedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 422, description = "validation_failed: `direction` missing or not `up` or `down`, or the entry is already the first (up) or the last (down) of its category", body = ErrorBody)))]
pub async fn faq_move(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
    JsonOrForm(req): JsonOrForm<FaqMoveRequest>,
) -> Result<Json<Envelope<FaqMovedView>>, ApiError> {
    let moved = support::faq_move(
        &state.services,
        &session.operator,
        &id,
        req.direction.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(FaqMovedView {
        entry: moved.entry.into(),
        category: moved.category.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaqDeleted {
    pub id: String,
    pub deleted: bool,
}

/// Removes an FAQ entry (admin); audited with what it said.
#[utoipa::path(delete, path = "/api/v1/console/faq/{id}", tag = "console", operation_id = "console_faq_delete",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("id" = String, Path)),
    responses((status = 200, body = Envelope<FaqDeleted>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
pub async fn faq_delete(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(id): Path<String>,
) -> Result<Json<Envelope<FaqDeleted>>, ApiError> {
    support::faq_delete(&state.services, &session.operator, &id).await?;
    Ok(Envelope::ok(FaqDeleted { id, deleted: true }))
}
