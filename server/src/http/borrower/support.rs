//! Customer service and complaints (docs/API-BORROWER.md, "Customer service and complaints"): the service contacts,
//! the FAQ, complaint init, image upload (raw bytes, checked by content), save, list, detail and the score.

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use kilat_domain::{Currency, Market, OrderState};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::Session;
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::settings::GrievanceOfficer;
use crate::store::complaints::ImageRow;
use crate::store::faq::FaqEntry;
use crate::support::{self, Complaint, ComplaintDetail, ComplaintRequest, Escalation, ImageFile};

/// The regulator's channel a borrower may take an unresolved complaint to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EscalationView {
    /// RBI's Complaint Management System (India) or Kontak OJK 157 (Indonesia).
    pub name: String,
    pub url: String,
    pub phone: String,
}

impl From<Escalation> for EscalationView {
    fn from(e: Escalation) -> Self {
        Self {
            name: e.name.to_owned(),
            url: e.url.to_owned(),
            phone: e.phone.to_owned(),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerServiceView {
    pub market: Market,
    pub lender_name: String,
    /// Dial as shown (`tel:` link).
    pub service_phone: String,
    /// In the market's language.
    pub service_hours: String,
    pub whatsapp_number: String,
    /// `https://wa.me/<digits>?text=…`, the text naming the borrower's open loan when there is one.
    pub whatsapp_url: String,
    pub email: String,
    pub grievance_officer: GrievanceOfficer,
    /// Where to escalate a complaint not resolved in time.
    pub escalation: EscalationView,
    /// The borrower's open loan, if any.
    #[schema(required = true)]
    pub open_order_no: Option<String>,
}

/// The customer-service screen: service phone and hours, WhatsApp with a prefilled message naming the open loan, the
/// grievance officer of the borrower's market, and the regulator's channel.
#[utoipa::path(get, path = "/api/v1/borrower/customer-service", tag = "borrower",
    operation_id = "borrower_customer_service",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<CustomerServiceView>), (status = 401, body = ErrorBody)))]
pub async fn customer_service(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<CustomerServiceView>>, ApiError> {
    let cs = support::customer_service(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(CustomerServiceView {
        market: cs.market,
        lender_name: cs.lender_name,
        service_phone: cs.service_phone,
        service_hours: cs.service_hours,
        whatsapp_number: cs.whatsapp_number,
        whatsapp_url: cs.whatsapp_url,
        email: cs.email,
        grievance_officer: cs.grievance_officer,
        escalation: cs.escalation.into(),
        open_order_no: cs.open_order_no,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaqView {
    pub id: String,
    /// `en` or `id`.
    pub lang: String,
    /// `apply`, `repay` or `account`.
    pub category: String,
    pub question: String,
    pub answer: String,
    pub position: i64,
    /// Epoch milliseconds.
    pub updated_at: i64,
}

impl From<FaqEntry> for FaqView {
    fn from(e: FaqEntry) -> Self {
        Self {
            id: e.id,
            lang: e.lang,
            category: e.category,
            question: e.question,
            answer: e.answer,
            position: e.position,
            updated_at: e.updated_at,
        }
    }
}

/// The FAQ index in the borrower's language (English for India, Indonesian for Indonesia), by category and position.
#[utoipa::path(get, path = "/api/v1/borrower/faq", tag = "borrower", operation_id = "borrower_faq",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<FaqView>>), (status = 401, body = ErrorBody)))]
pub async fn faq(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<Vec<FaqView>>>, ApiError> {
    let entries = support::faq(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(entries.into_iter().map(Into::into).collect()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CategoryView {
    pub code: String,
    /// In the borrower's language.
    pub label: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoanChoiceView {
    pub order_no: String,
    pub product_name: String,
    pub status: OrderState,
    pub currency: Currency,
    /// Minor units.
    pub amount: i64,
    pub created_at: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintInitView {
    pub categories: Vec<CategoryView>,
    /// The borrower's loans, newest first, to attach one.
    pub loans: Vec<LoanChoiceView>,
    /// Images a complaint takes (3).
    pub max_images: i64,
    /// Bytes an image may have (5 MB).
    pub max_image_bytes: i64,
}

/// What the complaint form offers: the categories and the borrower's loans.
#[utoipa::path(get, path = "/api/v1/borrower/complaints/init", tag = "borrower",
    operation_id = "borrower_complaint_init",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<ComplaintInitView>), (status = 401, body = ErrorBody)))]
pub async fn init(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<ComplaintInitView>>, ApiError> {
    let init = support::complaint_init(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(ComplaintInitView {
        categories: init
            .categories
            .into_iter()
            .map(|(code, label)| CategoryView {
                code: code.to_owned(),
                label: label.to_owned(),
            })
            .collect(),
        loans: init
            .loans
            .into_iter()
            .map(|l| LoanChoiceView {
                order_no: l.order_no,
                product_name: l.product_name,
                status: l.status,
                currency: l.currency,
                amount: l.amount,
                created_at: l.created_at,
            })
            .collect(),
        max_images: init.max_images as i64,
        max_image_bytes: init.max_image_bytes as i64,
    }))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageView {
    pub image_id: String,
    /// `image/jpeg`, `image/png` or `image/webp`: the format found in the content.
    pub content_type: String,
    /// Bytes after re-encoding.
    pub size: i64,
    pub width: i64,
    pub height: i64,
    /// The message of the conversation it was sent with (`messages[].id`); none while the upload waits.
    #[schema(required = true)]
    pub message_id: Option<String>,
}

impl From<ImageRow> for ImageView {
    fn from(r: ImageRow) -> Self {
        Self {
            image_id: r.id,
            content_type: r.content_type,
            size: r.size_bytes,
            width: r.width,
            height: r.height,
            message_id: r.message_id,
        }
    }
}

/// The request body of an image upload: the file's bytes.
#[derive(ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct ImageBytes(#[allow(dead_code)] Vec<u8>);

/// Uploads a photo for the complaint being written: the body is the file itself (`Content-Type` `image/jpeg`,
/// `image/png`, `image/webp` or `application/octet-stream`; the content decides, never the type or a name). At most
/// 5 MB, 24 megapixels and 8192 pixels a side (read from the header, before decoding); it must decode; it is
/// re-encoded without metadata. At most 3 uploads wait for their complaint at once, uploads under way included.
#[utoipa::path(post, path = "/api/v1/borrower/complaints/images", tag = "borrower",
    operation_id = "borrower_complaint_image_upload",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((ImageBytes = "image/jpeg"), (ImageBytes = "image/png"), (ImageBytes = "image/webp"), (ImageBytes = "application/octet-stream"))),
    responses((status = 201, body = Envelope<ImageView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `image` (not a JPEG, PNG or WebP, too large, too many pixels, or a fourth upload)", body = ErrorBody),
        (status = 503, description = "server_busy: as many images are being decoded as the server allows at once; nothing was kept (`Retry-After`)", body = ErrorBody)))]
pub async fn upload_image(
    State(state): State<AppState>,
    session: Session,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Envelope<ImageView>>), ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    if !matches!(
        content_type.as_str(),
        "image/jpeg" | "image/png" | "image/webp" | "application/octet-stream"
    ) {
        return Err(ApiError::UnsupportedMediaType);
    }
    let bytes = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::PayloadTooLarge
        } else {
            ApiError::BadRequest(rejection.body_text())
        }
    })?;
    let row = support::upload_image(&state.services, &session.borrower, bytes.to_vec()).await?;
    Ok((StatusCode::CREATED, Envelope::ok(row.into())))
}

/// The borrower's photos uploaded in the last day and not yet sent with a complaint, oldest first: they count against
/// the three a complaint or reply takes, so a form opened again (after a reload, or the back button) shows them to
/// send or remove (`DELETE /complaints/images/{imageId}`).
#[utoipa::path(get, path = "/api/v1/borrower/complaints/images", tag = "borrower",
    operation_id = "borrower_complaint_images_waiting",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<ImageView>>), (status = 401, body = ErrorBody)))]
pub async fn waiting_images(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<Vec<ImageView>>>, ApiError> {
    let rows = support::waiting_images(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(
        rows.into_iter().map(ImageView::from).collect(),
    ))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Deleted {
    pub deleted: bool,
}

/// Removes an upload no complaint holds yet (the borrower changed their mind before sending).
#[utoipa::path(delete, path = "/api/v1/borrower/complaints/images/{imageId}", tag = "borrower",
    operation_id = "borrower_complaint_image_delete",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("imageId" = String, Path)),
    responses((status = 200, body = Envelope<Deleted>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such upload of this borrower still waiting", body = ErrorBody)))]
pub async fn delete_image(
    State(state): State<AppState>,
    session: Session,
    Path(image_id): Path<String>,
) -> Result<Json<Envelope<Deleted>>, ApiError> {
    support::delete_image(&state.services, &session.borrower, &image_id).await?;
    Ok(Envelope::ok(Deleted { deleted: true }))
}

/// The bytes of an image, with its type.
pub(crate) fn image_response(file: ImageFile) -> Response {
    (
        [
            (header::CONTENT_TYPE, file.content_type),
            (header::CONTENT_DISPOSITION, "inline".to_owned()),
        ],
        file.bytes,
    )
        .into_response()
}

/// One of the borrower's own images (uploaded, or of their complaints).
#[utoipa::path(get, path = "/api/v1/borrower/complaints/images/{imageId}", tag = "borrower",
    operation_id = "borrower_complaint_image",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("imageId" = String, Path)),
    responses((status = 200, description = "The image", content(("image/jpeg"), ("image/png"), ("image/webp"))),
        (status = 401, body = ErrorBody),
        (status = 404, description = "no such image of this borrower", body = ErrorBody)))]
pub async fn image(
    State(state): State<AppState>,
    session: Session,
    Path(image_id): Path<String>,
) -> Result<Response, ApiError> {
    let file = support::own_image(&state.services, &session.borrower, &image_id).await?;
    Ok(image_response(file))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintSaveRequest {
    /// One of init's category codes.
    #[schema(value_type = String, required = true, example = "repayment")]
    pub category: Option<String>,
    /// One of the borrower's orders, or none.
    #[schema(nullable = false)]
    pub order_no: Option<String>,
    /// 10 to 2000 characters.
    #[schema(value_type = String, required = true)]
    pub description: Option<String>,
    /// Up to 3 ids of the borrower's uploads (`POST /complaints/images`).
    #[serde(default)]
    #[schema(nullable = false)]
    pub image_ids: Option<Vec<String>>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintSummary {
    /// E.g. `CP-261125-7F3K9Q`, shown to the borrower at once.
    pub ticket_no: String,
    pub market: Market,
    pub category: String,
    /// In the borrower's language.
    pub category_label: String,
    #[schema(required = true)]
    pub order_no: Option<String>,
    /// `open` (waiting for support), `answered` or `closed`.
    pub status: ComplaintStatus,
    /// Epoch milliseconds.
    pub created_at: i64,
    pub updated_at: i64,
    /// The market's business date it was received.
    #[schema(format = Date)]
    pub received_on: String,
    /// The last day to resolve it: 30 days (India) or 20 working days (Indonesia) after it was received.
    #[schema(format = Date)]
    pub resolve_by: String,
    /// Still waiting on the lender after `resolveBy` (India: not closed; Indonesia: not answered, or the borrower's
    /// reply unanswered): the borrower may escalate to the regulator's channel.
    pub overdue: bool,
    /// The borrower's score of the answer, 1 to 5, once given.
    #[schema(required = true)]
    pub score: Option<i64>,
}

/// A complaint's state.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ComplaintStatus {
    Open,
    Answered,
    Closed,
}

impl ComplaintStatus {
    fn of(code: &str) -> Self {
        match code {
            "answered" => Self::Answered,
            "closed" => Self::Closed,
            _ => Self::Open,
        }
    }
}

impl From<Complaint> for ComplaintSummary {
    fn from(c: Complaint) -> Self {
        Self {
            ticket_no: c.row.ticket_no,
            market: c.row.market,
            category: c.row.category,
            category_label: c.category_label.to_owned(),
            order_no: c.row.order_no,
            status: ComplaintStatus::of(&c.row.status),
            created_at: c.row.created_at,
            updated_at: c.row.updated_at,
            received_on: c.row.received_on,
            resolve_by: c.deadline.to_string(),
            overdue: c.overdue,
            score: c.row.score,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintMessageView {
    /// The photos sent with it name it (`images[].messageId`).
    pub id: String,
    /// `borrower` or `support`.
    pub author: MessageAuthor,
    pub body: String,
    /// Epoch milliseconds.
    pub created_at: i64,
}

#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageAuthor {
    Borrower,
    Support,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintDetailView {
    #[serde(flatten)]
    pub complaint: ComplaintSummary,
    /// The complaint's text first, then the replies (support's and the borrower's), oldest first.
    pub messages: Vec<ComplaintMessageView>,
    pub images: Vec<ImageView>,
    /// The regulator's channel of the complaint's market; the app shows it when `overdue`, and on a closed complaint
    /// (for a borrower not satisfied with the answer).
    pub escalation: EscalationView,
    #[schema(required = true)]
    pub score_comment: Option<String>,
}

impl ComplaintDetailView {
    pub(crate) fn of(d: ComplaintDetail) -> (Self, Option<String>) {
        let score_comment = d.complaint.row.score_comment.clone();
        (
            Self {
                complaint: d.complaint.into(),
                messages: d
                    .messages
                    .into_iter()
                    .map(|m| ComplaintMessageView {
                        id: m.id,
                        author: if m.author_kind == "borrower" {
                            MessageAuthor::Borrower
                        } else {
                            MessageAuthor::Support
                        },
                        body: m.body,
                        created_at: m.created_at,
                    })
                    .collect(),
                images: d.images.into_iter().map(Into::into).collect(),
                escalation: d.escalation.into(),
                score_comment,
            },
            d.phone_masked,
        )
    }
}

/// Files a complaint with its text, optionally a loan and up to 3 uploaded images; answers its ticket number.
#[utoipa::path(post, path = "/api/v1/borrower/complaints", tag = "borrower", operation_id = "borrower_complaint_save",
    security(("session_header" = []), ("session_cookie" = [])),
    request_body(content((ComplaintSaveRequest = "application/json"))),
    responses((status = 201, body = Envelope<ComplaintDetailView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 422, description = "validation_failed: `category`, `description`, `orderNo` or `imageIds`", body = ErrorBody)))]
pub async fn save(
    State(state): State<AppState>,
    session: Session,
    JsonOrForm(req): JsonOrForm<ComplaintSaveRequest>,
) -> Result<(StatusCode, Json<Envelope<ComplaintDetailView>>), ApiError> {
    let image_ids = req.image_ids.unwrap_or_default();
    let detail = support::save(
        &state.services,
        &session.borrower,
        &ComplaintRequest {
            category: req.category.as_deref(),
            order_no: req.order_no.as_deref(),
            description: req.description.as_deref(),
            image_ids: &image_ids,
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Envelope::ok(ComplaintDetailView::of(detail).0),
    ))
}

/// The borrower's complaints, newest first.
#[utoipa::path(get, path = "/api/v1/borrower/complaints", tag = "borrower", operation_id = "borrower_complaints",
    security(("session_header" = []), ("session_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<ComplaintSummary>>), (status = 401, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<Vec<ComplaintSummary>>>, ApiError> {
    let list = support::list(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(list.into_iter().map(Into::into).collect()))
}

/// One of the borrower's complaints with the conversation and images.
#[utoipa::path(get, path = "/api/v1/borrower/complaints/{ticketNo}", tag = "borrower",
    operation_id = "borrower_complaint",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("ticketNo" = String, Path, description = "E.g. CP-261125-7F3K9Q")),
    responses((status = 200, body = Envelope<ComplaintDetailView>), (status = 401, body = ErrorBody),
        (status = 404, description = "no such complaint of this borrower", body = ErrorBody)))]
pub async fn detail(
    State(state): State<AppState>,
    session: Session,
    Path(ticket_no): Path<String>,
) -> Result<Json<Envelope<ComplaintDetailView>>, ApiError> {
    let detail = support::own_detail(&state.services, &session.borrower, &ticket_no).await?;
    Ok(Envelope::ok(ComplaintDetailView::of(detail).0))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplaintReplyRequest {
    /// 1 to 2000 characters.
    #[schema(value_type = String, required = true)]
    pub body: Option<String>,
    /// Up to 3 ids of the borrower's uploads (`POST /complaints/images`), sent with this reply.
    #[serde(default)]
    #[schema(nullable = false)]
    pub image_ids: Option<Vec<String>>,
}

/// The borrower's reply to their complaint while it is not closed: the complaint waits for support again (`open`).
#[utoipa::path(post, path = "/api/v1/borrower/complaints/{ticketNo}/replies", tag = "borrower",
    operation_id = "borrower_complaint_reply",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("ticketNo" = String, Path, description = "E.g. CP-261125-7F3K9Q")),
    request_body(content((ComplaintReplyRequest = "application/json"))),
    responses((status = 201, body = Envelope<ComplaintDetailView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such complaint of this borrower", body = ErrorBody),
        (status = 409, description = "complaint_closed", body = ErrorBody),
        (status = 422, description = "validation_failed: `body` or `imageIds`", body = ErrorBody),
        (status = 429, description = "rate_limited: 30 replies a day", body = ErrorBody)))]
pub async fn reply(
    State(state): State<AppState>,
    session: Session,
    Path(ticket_no): Path<String>,
    JsonOrForm(req): JsonOrForm<ComplaintReplyRequest>,
) -> Result<(StatusCode, Json<Envelope<ComplaintDetailView>>), ApiError> {
    let image_ids = req.image_ids.unwrap_or_default();
    let detail = support::borrower_reply(
        &state.services,
        &session.borrower,
        &ticket_no,
        req.body.as_deref(),
        &image_ids,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Envelope::ok(ComplaintDetailView::of(detail).0),
    ))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ComplaintScoreRequest {
    /// 1 to 5.
    #[schema(value_type = i64, required = true, minimum = 1, maximum = 5, example = 5)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub score: Option<i64>,
    /// At most 500 characters.
    #[schema(nullable = false)]
    pub comment: Option<String>,
}

/// The borrower rates support's answer, once.
#[utoipa::path(post, path = "/api/v1/borrower/complaints/{ticketNo}/score", tag = "borrower",
    operation_id = "borrower_complaint_score",
    security(("session_header" = []), ("session_cookie" = [])),
    params(("ticketNo" = String, Path, description = "E.g. CP-261125-7F3K9Q")),
    request_body(content((ComplaintScoreRequest = "application/json"), (ComplaintScoreRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<ComplaintDetailView>), (status = 401, body = ErrorBody),
        (status = 403, description = "cross_site_request", body = ErrorBody),
        (status = 404, description = "no such complaint of this borrower", body = ErrorBody),
        (status = 409, description = "complaint_not_answered or already_rated", body = ErrorBody),
        (status = 422, description = "validation_failed: `score` or `comment`", body = ErrorBody)))]
pub async fn score(
    State(state): State<AppState>,
    session: Session,
    Path(ticket_no): Path<String>,
    JsonOrForm(req): JsonOrForm<ComplaintScoreRequest>,
) -> Result<Json<Envelope<ComplaintDetailView>>, ApiError> {
    let detail = support::score(
        &state.services,
        &session.borrower,
        &ticket_no,
        req.score,
        req.comment.as_deref(),
    )
    .await?;
    Ok(Envelope::ok(ComplaintDetailView::of(detail).0))
}
