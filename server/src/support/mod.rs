//! Customer service (issue 9): the service contacts and WhatsApp link of the borrower's market, the FAQ (edited by
//! admins, audited), complaints with images and their conversation, support's queue with the regulators' resolution
//! deadlines (30 days in India, 20 working days in Indonesia, then RBI CMS or OJK 157), and the contact form's
//! messages with their handled flag. Every console function checks the operator's roles first.

pub mod images;

use kilat_domain::{Code, Currency, Market, OrderState};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::auth::Borrower;
use crate::auth::operators::{Operator, Role, split_markets};
use crate::error::{Error, FieldErrors, FieldProblem, Refusal};
use crate::i18n::{self, Lang};
use crate::infra::limits;
use crate::services::Services;
use crate::settings::GrievanceOfficer;
use crate::store::audit::NewAuditEntry;
use crate::store::complaints::{
    AssigneeFilter, CannedReply, ComplaintMessage, ComplaintRow, ImageRow, NewComplaint,
};
use crate::store::contact_messages::{ContactMessage, ContactScope, NewContactMessage};
use crate::store::faq::{FaqEntry, FaqFields};
use images::ImageProblem;

/// Who answers complaints and reads contact messages.
pub const SUPPORT_ROLES: &[Role] = &[Role::Support, Role::Admin];
/// Who edits the FAQ.
pub const FAQ_ROLES: &[Role] = &[Role::Admin];

/// Complaint categories, by code (their labels are `complaint_category.<code>` in the catalogs).
pub const CATEGORIES: &[&str] = &[
    "repayment",
    "disbursement",
    "charges",
    "collection_conduct",
    "personal_data",
    "app",
    "other",
];
/// FAQ categories, by code (labels in the web's catalogs).
pub const FAQ_CATEGORIES: &[&str] = &["apply", "repay", "account"];

/// The most images one complaint takes.
pub const MAX_IMAGES: usize = 3;
/// Uploads not attached to a complaint within this time no longer count against the next complaint's three.
const WAITING_UPLOAD_MS: i64 = 24 * 60 * 60 * 1000;
pub const MIN_DESCRIPTION_CHARS: usize = 10;
pub const MAX_DESCRIPTION_CHARS: usize = 2000;
pub const MAX_REPLY_CHARS: usize = 2000;
pub const MAX_COMMENT_CHARS: usize = 500;
const MAX_FAQ_QUESTION_CHARS: usize = 300;
const MAX_FAQ_ANSWER_CHARS: usize = 3000;
/// The queue's page size when none is asked for, and the largest one.
pub const QUEUE_PAGE_SIZE: i64 = 50;
pub const MAX_QUEUE_PAGE_SIZE: i64 = 200;
/// The most complaints not closed that the queue reads whole to sort by deadline (each row is small and nothing is
/// decrypted); beyond it, filing order.
pub const MAX_SORTED_QUEUE: i64 = 20_000;

/// What a URL's query value escapes: everything but RFC 3986's unreserved characters.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Where a borrower takes a complaint the lender has not resolved in time.
#[derive(Debug, Clone, Copy)]
pub struct Escalation {
    pub name: &'static str,
    pub url: &'static str,
    pub phone: &'static str,
}

/// The regulator's channel of each market (PRODUCT.md §5).
pub fn escalation_of(market: Market) -> Escalation {
    match market {
        Market::India => Escalation {
            name: "Reserve Bank of India – Complaint Management System (RBI Integrated Ombudsman)",
            url: "https://cms.rbi.org.in",
            phone: "14448",
        },
        Market::Indonesia => Escalation {
            name: "Kontak OJK 157 (Otoritas Jasa Keuangan)",
            url: "https://kontak157.ojk.go.id",
            phone: "157",
        },
    }
}

/// The customer-service screen's contacts for the borrower's market.
pub struct CustomerService {
    pub market: Market,
    pub lender_name: String,
    pub service_phone: String,
    pub service_hours: String,
    pub whatsapp_number: String,
    /// `https://wa.me/<digits>?text=…`, the text naming the borrower's open loan when there is one.
    pub whatsapp_url: String,
    pub email: String,
    pub grievance_officer: GrievanceOfficer,
    pub escalation: Escalation,
    pub open_order_no: Option<String>,
}

pub async fn customer_service(s: &Services, borrower: &Borrower) -> Result<CustomerService, Error> {
    let company = s.site.company(borrower.market);
    let lang = Lang::of_market(borrower.market);
    let open = s.db.open_order(&borrower.id).await?;
    let open_order_no = open.map(|o| o.order_no);
    let text = match &open_order_no {
        Some(order_no) => i18n::format(lang, "support.whatsapp_loan", &[("orderNo", order_no)]),
        None => i18n::text(lang, "support.whatsapp_general").to_owned(),
    };
    let digits: String = company
        .whatsapp_number
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    Ok(CustomerService {
        market: borrower.market,
        lender_name: company.lender_name.clone(),
        service_phone: company.service_phone.clone(),
        service_hours: i18n::text(lang, "support.service_hours").to_owned(),
        whatsapp_url: format!(
            "https://wa.me/{digits}?text={}",
            utf8_percent_encode(&text, QUERY_VALUE)
        ),
        whatsapp_number: company.whatsapp_number.clone(),
        email: company.email.clone(),
        grievance_officer: company.grievance_officer.clone(),
        escalation: escalation_of(borrower.market),
        open_order_no,
    })
}

/// The FAQ in the borrower's language, by category and position.
pub async fn faq(s: &Services, borrower: &Borrower) -> Result<Vec<FaqEntry>, Error> {
    Ok(s.db
        .faq(Some(Lang::of_market(borrower.market).code()))
        .await?)
}

/// One of the borrower's loans a complaint may be about.
pub struct LoanChoice {
    pub order_no: String,
    pub product_name: String,
    pub status: OrderState,
    pub currency: Currency,
    pub amount: i64,
    pub created_at: i64,
}

/// What the complaint form offers: the categories (code, label in the borrower's language) and the loans.
pub struct ComplaintInit {
    pub categories: Vec<(&'static str, &'static str)>,
    pub loans: Vec<LoanChoice>,
    pub max_images: usize,
    pub max_image_bytes: usize,
}

pub async fn complaint_init(s: &Services, borrower: &Borrower) -> Result<ComplaintInit, Error> {
    let lang = Lang::of_market(borrower.market);
    let loans = s.db.orders_of(&borrower.id, 50).await?;
    Ok(ComplaintInit {
        categories: CATEGORIES
            .iter()
            .map(|code| (*code, category_label(lang, code)))
            .collect(),
        loans: loans
            .into_iter()
            .map(|o| LoanChoice {
                order_no: o.order_no,
                product_name: o.product_name,
                status: o.status,
                currency: o.currency,
                amount: o.amount,
                created_at: o.created_at,
            })
            .collect(),
        max_images: MAX_IMAGES,
        max_image_bytes: images::MAX_IMAGE_BYTES,
    })
}

fn category_label(lang: Lang, code: &str) -> &'static str {
    i18n::text(lang, &format!("complaint_category.{code}"))
}

/// Takes an upload: checks it is a JPEG, PNG or WebP by its content and decodes it, re-encodes it without metadata,
/// stores the bytes and records the image as waiting for its complaint. At most [`MAX_IMAGES`] uploads wait at once.
///
/// The costly part, decoding, comes last (docs/ARCHITECTURE.md, "Security: bounds on costly work"): first the header
/// (format, and dimensions up to [`images::MAX_PIXELS`]); then one of the borrower's waiting places is taken, counted
/// with the waiting images under the borrower's row lock, so that a fourth upload is refused before it is decoded;
/// then the upload waits for its share of `bounds.image_memory_mb` (by the pixels its header declares) and its turn
/// among `bounds.image_decodes` (or is answered `server_busy`), and only then is the image decoded, within a memory
/// limit, off the request threads.
pub async fn upload_image(
    s: &Services,
    borrower: &Borrower,
    bytes: Vec<u8>,
) -> Result<ImageRow, Error> {
    let header = images::inspect(&bytes).map_err(image_error)?;
    let now = s.clock.now_ms();
    let slot = take_upload_slot(s, borrower, now).await?;
    let uploaded = decode_and_record(s, borrower, bytes, &header, &slot, now).await;
    if uploaded.is_err()
        && let Err(e) = s.db.release_upload_slot(&slot).await
    {
        // It stops counting after `UPLOAD_SLOT_MS` anyway.
        tracing::warn!(error = %e, "an upload's slot could not be given back");
    }
    uploaded
}

/// How long an upload under way holds its place when it never ends (its server stopped): longer than the wait for a
/// decode, the decode and the file store's timeout together.
const UPLOAD_SLOT_MS: i64 = 2 * 60 * 1000;

fn image_error(problem: ImageProblem) -> Error {
    Error::field(
        "image",
        match problem {
            ImageProblem::Empty => FieldProblem::required(),
            ImageProblem::TooLarge => FieldProblem::new("field.image_too_large")
                .with("max", images::MAX_IMAGE_BYTES / (1024 * 1024)),
            ImageProblem::NotAnImage => FieldProblem::new("field.image_type"),
            ImageProblem::TooManyPixels => FieldProblem::new("field.image_dimensions")
                .with("megapixels", images::MAX_PIXELS / 1_000_000)
                .with("side", images::MAX_SIDE),
        },
    )
}

fn too_many_images() -> Error {
    Error::field(
        "image",
        FieldProblem::new("field.too_many_images").with("max", MAX_IMAGES),
    )
}

/// Takes one of the borrower's [`MAX_IMAGES`] waiting places for an upload about to be decoded: its waiting images
/// and the uploads under way are counted, and the slot added, in one transaction with the borrower's live row locked.
async fn take_upload_slot(s: &Services, borrower: &Borrower, now: i64) -> Result<String, Error> {
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    let in_place = tx
        .uploads_in_place(&borrower.id, now - WAITING_UPLOAD_MS, now - UPLOAD_SLOT_MS)
        .await?;
    if in_place >= MAX_IMAGES as i64 {
        return Err(too_many_images());
    }
    let slot = crate::store::new_id();
    tx.insert_upload_slot(&slot, &borrower.id, now).await?;
    tx.commit().await?;
    Ok(slot)
}

/// Decodes and re-encodes the upload within the bounds of decodes, stores its bytes and records it in its slot's
/// place.
async fn decode_and_record(
    s: &Services,
    borrower: &Borrower,
    bytes: Vec<u8>,
    header: &images::Header,
    slot: &str,
    now: i64,
) -> Result<ImageRow, Error> {
    let memory = s
        .bounds
        .image_memory
        .enter_many(crate::infra::bounds::mib(images::working_memory(header)))
        .await?;
    let turn = s.bounds.image_decodes.enter().await?;
    let cleaned = tokio::task::spawn_blocking(move || {
        // Held until the decode ends, even when the request is gone meanwhile.
        let _held = (memory, turn);
        images::clean(&bytes)
    })
    .await
    .map_err(|err| Error::Internal(anyhow::Error::new(err).context("decoding an image")))?;
    let clean = cleaned.map_err(image_error)?;
    let id = crate::store::new_id();
    let row = ImageRow {
        storage_key: format!("complaints/{id}.{}", clean.extension),
        borrower_id: borrower.id.clone(),
        complaint_id: None,
        content_type: clean.content_type.to_owned(),
        size_bytes: i64::try_from(clean.bytes.len()).unwrap_or(i64::MAX),
        width: i64::from(clean.width),
        height: i64::from(clean.height),
        created_at: now,
        message_id: None,
        id,
    };
    // The bytes first, before the transaction: a record never points at a missing file, so a failed write (a store
    // that is down, slow past its timeout, or refuses the keys) leaves no record at all; and no lock is held while
    // the store answers (with `s3` a network call; SQLite's write lock would stop every other write meanwhile).
    s.files
        .put(&row.storage_key, clean.bytes, clean.content_type)
        .await?;
    let recorded = record_upload(s, borrower, &row, slot, now).await;
    if recorded.is_err() {
        // Refused or failed: the file has no record, so it goes. One that cannot be removed now is an orphan nothing
        // serves, logged with its key.
        if let Err(e) = s.files.delete(&row.storage_key).await {
            tracing::warn!(key = %row.storage_key, error = %e, "an unrecorded complaint image could not be removed");
        }
    }
    recorded?;
    Ok(row)
}

/// Records an uploaded image in place of its slot, under the borrower's live row's lock (held until commit: an
/// account deleted meanwhile gets no image; a deletion that comes after removes this one's file with its row). A slot
/// that outlived [`UPLOAD_SLOT_MS`] and was removed no longer holds a place: the waiting images are counted again.
async fn record_upload(
    s: &Services,
    borrower: &Borrower,
    row: &ImageRow,
    slot: &str,
    now: i64,
) -> Result<(), Error> {
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    if !tx.take_upload_slot(slot).await? {
        let in_place = tx
            .uploads_in_place(&borrower.id, now - WAITING_UPLOAD_MS, now - UPLOAD_SLOT_MS)
            .await?;
        if in_place >= MAX_IMAGES as i64 {
            return Err(too_many_images());
        }
    }
    tx.insert_complaint_image(row).await?;
    tx.commit().await?;
    Ok(())
}

/// The borrower's uploads that wait for a complaint and count against its [`MAX_IMAGES`] (uploaded within the last
/// day), oldest first: a form left before sending (a reload, the back button) shows them again, to send or remove,
/// instead of refusing every new photo for a day with no way to see why.
pub async fn waiting_images(s: &Services, borrower: &Borrower) -> Result<Vec<ImageRow>, Error> {
    let since = s.clock.now_ms() - WAITING_UPLOAD_MS;
    Ok(s.db.waiting_images_of(&borrower.id, since).await?)
}

/// Removes one of the borrower's uploads that no complaint holds yet.
pub async fn delete_image(s: &Services, borrower: &Borrower, image_id: &str) -> Result<(), Error> {
    let mut tx = s.db.begin().await?;
    let key = tx
        .delete_waiting_image(&borrower.id, image_id.trim())
        .await?
        .ok_or(Error::NotFound)?;
    tx.commit().await?;
    s.files.delete(&key).await?;
    Ok(())
}

/// An image's bytes and type.
pub struct ImageFile {
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// One of the borrower's own images; another borrower's is as good as missing.
pub async fn own_image(
    s: &Services,
    borrower: &Borrower,
    image_id: &str,
) -> Result<ImageFile, Error> {
    let row =
        s.db.complaint_image(image_id.trim(), Some(&borrower.id))
            .await?;
    read_image(s, row).await
}

async fn read_image(s: &Services, row: Option<ImageRow>) -> Result<ImageFile, Error> {
    let row = row.ok_or(Error::NotFound)?;
    let bytes = s.files.get(&row.storage_key).await?.ok_or_else(|| {
        Error::Internal(anyhow::anyhow!(
            "image {} is missing from the file store",
            row.id
        ))
    })?;
    Ok(ImageFile {
        content_type: row.content_type,
        bytes,
    })
}

/// A complaint as the borrower sends it.
pub struct ComplaintRequest<'a> {
    pub category: Option<&'a str>,
    pub order_no: Option<&'a str>,
    pub description: Option<&'a str>,
    pub image_ids: &'a [String],
}

/// A complaint with its resolution deadline.
pub struct Complaint {
    pub row: ComplaintRow,
    pub category_label: &'static str,
    /// The last day to resolve it.
    pub deadline: Date,
    /// Late on the lender's side after the deadline ([`late_after_deadline`]): flagged for support, and the borrower
    /// is shown where to escalate.
    pub overdue: bool,
}

/// A complaint with its conversation and images.
pub struct ComplaintDetail {
    pub complaint: Complaint,
    pub messages: Vec<ComplaintMessage>,
    pub images: Vec<ImageRow>,
    pub escalation: Escalation,
    /// Support's view only: the borrower's phone, masked.
    pub phone_masked: Option<String>,
}

/// Whether a complaint in `status` is late on the lender's side once its deadline has passed (PRODUCT.md §5). India
/// (RBI's Integrated Ombudsman Scheme): until it is resolved, i.e. closed, within 30 days. Indonesia (OJK): until it is
/// answered within 20 working days: one answered by its deadline is not late, whatever follows (a borrower's later
/// reply is answered like any other, and a closed complaint shows where to escalate); one answered after it is late
/// again whenever it waits on the lender (open), and never while it waits on the borrower.
fn late_after_deadline(market: Market, status: &str, answered_in_time: bool) -> bool {
    match market {
        Market::India => status != "closed",
        Market::Indonesia => status == "open" && !answered_in_time,
    }
}

fn complaint_of(s: &Services, row: ComplaintRow, lang: Lang) -> Result<Complaint, Error> {
    let received = Date::parse(
        &row.received_on,
        format_description!("[year]-[month]-[day]"),
    )
    .map_err(|err| Error::Internal(anyhow::Error::new(err).context("complaint date")))?;
    let deadline = kilat_domain::complaints::resolution_deadline(
        row.market,
        received,
        s.holidays.of(row.market),
    )
    .map_err(Error::Loan)?;
    // The first answer's day, on the market's calendar.
    let answered_in_time = row.answered_at.is_some_and(|ms| {
        OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
            .is_ok_and(|at| row.market.local_date(at) <= deadline)
    });
    let overdue = late_after_deadline(row.market, &row.status, answered_in_time)
        && s.clock.today(row.market) > deadline;
    Ok(Complaint {
        category_label: category_label(lang, &row.category),
        deadline,
        overdue,
        row,
    })
}

/// Files a complaint: checks the fields, attaches the loan (the borrower's own) and the uploads (the borrower's own,
/// waiting, at most three), and writes the complaint, its text and the attachments in one transaction, counted in it
/// against `[limits] complaints_per_day` (then `429 rate_limited`). The ticket number comes back at once.
pub async fn save(
    s: &Services,
    borrower: &Borrower,
    req: &ComplaintRequest<'_>,
) -> Result<ComplaintDetail, Error> {
    let mut errors = FieldErrors::default();
    let category = req.category.map(str::trim).unwrap_or_default();
    if category.is_empty() {
        errors.add("category", FieldProblem::required());
    } else if !CATEGORIES.contains(&category) {
        errors.add("category", FieldProblem::new("field.unknown_choice"));
    }
    let description = req.description.map(str::trim).unwrap_or_default();
    let chars = description.chars().count();
    if chars == 0 {
        errors.add("description", FieldProblem::required());
    } else if chars < MIN_DESCRIPTION_CHARS {
        errors.add(
            "description",
            FieldProblem::new("field.too_short").with("min", MIN_DESCRIPTION_CHARS),
        );
    } else if chars > MAX_DESCRIPTION_CHARS {
        errors.add("description", FieldProblem::too_long(MAX_DESCRIPTION_CHARS));
    }
    let mut image_ids: Vec<&str> = req.image_ids.iter().map(|i| i.trim()).collect();
    image_ids.sort_unstable();
    image_ids.dedup();
    if image_ids.len() > MAX_IMAGES {
        errors.add(
            "imageIds",
            FieldProblem::new("field.too_many_images").with("max", MAX_IMAGES),
        );
    }
    let order_no = req.order_no.map(str::trim).filter(|o| !o.is_empty());
    let order = match order_no {
        Some(no) => {
            let order = s.db.order_of(&borrower.id, no).await?;
            if order.is_none() {
                errors.add("orderNo", FieldProblem::new("field.unknown_choice"));
            }
            order
        }
        None => None,
    };
    errors.into_result()?;

    let now = s.clock.now_ms();
    let id = crate::store::new_id();
    let received_on = s.clock.today(borrower.market).to_string();
    // A ticket number is six random characters a day: a clash is rare, and the unique index turns one into a retry.
    // Chosen before the transaction: a read on the pool while the transaction holds a connection and the borrower's
    // row could wait for a connection that a deletion, waiting for that row, holds (a small pool then deadlocks).
    let mut ticket_no = String::new();
    for attempt in 0..3 {
        ticket_no =
            crate::applications::order_no::new_reference("CP", s.clock.today(borrower.market));
        if s.db.complaint_by_ticket(&ticket_no, None).await?.is_none() || attempt == 2 {
            break;
        }
    }
    // The borrower's live row, held until commit: a deletion comes wholly before (this answers 401) or after (and
    // erases the conversation and images written here).
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    // Counted in the complaint's transaction: a complaint refused or failing later counts nothing.
    if let Err(refused) = limits::count_all_in(
        &mut tx,
        &[(&s.limits.complaints_per_borrower, &borrower.id)],
        now,
    )
    .await?
    {
        tx.rollback().await?;
        return Err(refused.rate_limited());
    }
    tx.insert_complaint(&NewComplaint {
        id: &id,
        ticket_no: &ticket_no,
        borrower_id: &borrower.id,
        market: borrower.market,
        category,
        order_id: order.as_ref().map(|o| o.id.as_str()),
        received_on: &received_on,
        now,
    })
    .await?;
    let message_id = tx
        .insert_complaint_message(
            &s.secrets,
            &id,
            "borrower",
            Some(&borrower.id),
            description,
            now,
        )
        .await?;
    for image_id in &image_ids {
        if !tx
            .attach_image(&borrower.id, image_id, &id, &message_id)
            .await?
        {
            return Err(Error::field(
                "imageIds",
                FieldProblem::new("field.unknown_choice"),
            ));
        }
    }
    tx.commit().await?;
    own_detail(s, borrower, &ticket_no).await
}

/// The borrower's complaints, newest first.
pub async fn list(s: &Services, borrower: &Borrower) -> Result<Vec<Complaint>, Error> {
    let lang = Lang::of_market(borrower.market);
    s.db.complaints_of(&borrower.id)
        .await?
        .into_iter()
        .map(|row| complaint_of(s, row, lang))
        .collect()
}

/// One of the borrower's complaints with its conversation; another borrower's is as good as missing.
pub async fn own_detail(
    s: &Services,
    borrower: &Borrower,
    ticket_no: &str,
) -> Result<ComplaintDetail, Error> {
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), Some(&borrower.id))
            .await?
            .ok_or(Error::NotFound)?;
    detail_of(s, row, Lang::of_market(borrower.market), None).await
}

async fn detail_of(
    s: &Services,
    row: ComplaintRow,
    lang: Lang,
    phone_masked: Option<String>,
) -> Result<ComplaintDetail, Error> {
    let messages = s.db.complaint_messages(&s.secrets, &row.id).await?;
    let images = s.db.complaint_images(&row.id).await?;
    let escalation = escalation_of(row.market);
    Ok(ComplaintDetail {
        complaint: complaint_of(s, row, lang)?,
        messages,
        images,
        escalation,
        phone_masked,
    })
}

/// The borrower's reply to their own complaint: a text bounded like the complaint's (1 to [`MAX_REPLY_CHARS`]) and up
/// to [`MAX_IMAGES`] of their waiting uploads. Refused on a closed complaint (`409 complaint_closed`); another
/// borrower's is as good as missing. The message, its photos and the complaint back to `open` (waiting for support)
/// are written in one transaction under the borrower's live row, counted in it against
/// [`limits::COMPLAINT_REPLIES_PER_DAY`] (then `429 rate_limited`).
pub async fn borrower_reply(
    s: &Services,
    borrower: &Borrower,
    ticket_no: &str,
    body: Option<&str>,
    image_ids: &[String],
) -> Result<ComplaintDetail, Error> {
    let mut errors = FieldErrors::default();
    let body = body.map(str::trim).unwrap_or_default();
    if body.is_empty() {
        errors.add("body", FieldProblem::required());
    } else if body.chars().count() > MAX_REPLY_CHARS {
        errors.add("body", FieldProblem::too_long(MAX_REPLY_CHARS));
    }
    let mut image_ids: Vec<&str> = image_ids.iter().map(|i| i.trim()).collect();
    image_ids.sort_unstable();
    image_ids.dedup();
    if image_ids.len() > MAX_IMAGES {
        errors.add(
            "imageIds",
            FieldProblem::new("field.too_many_images").with("max", MAX_IMAGES),
        );
    }
    errors.into_result()?;
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), Some(&borrower.id))
            .await?
            .ok_or(Error::NotFound)?;
    if row.status == "closed" {
        return Err(Refusal::ComplaintClosed.into());
    }
    let now = s.clock.now_ms();
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    // Closed in between: refused before the reply counts.
    if !tx.reopen_complaint(&row.id, &borrower.id, now).await? {
        tx.rollback().await?;
        return Err(Refusal::ComplaintClosed.into());
    }
    if let Err(refused) = limits::count_all_in(
        &mut tx,
        &[(&s.limits.complaint_replies_per_borrower, &borrower.id)],
        now,
    )
    .await?
    {
        tx.rollback().await?;
        return Err(refused.rate_limited());
    }
    let message_id = tx
        .insert_complaint_message(
            &s.secrets,
            &row.id,
            "borrower",
            Some(&borrower.id),
            body,
            now,
        )
        .await?;
    for image_id in &image_ids {
        if !tx
            .attach_image(&borrower.id, image_id, &row.id, &message_id)
            .await?
        {
            return Err(Error::field(
                "imageIds",
                FieldProblem::new("field.unknown_choice"),
            ));
        }
    }
    tx.commit().await?;
    own_detail(s, borrower, &row.ticket_no).await
}

/// The borrower rates support's answer, once, after support has answered.
pub async fn score(
    s: &Services,
    borrower: &Borrower,
    ticket_no: &str,
    score: Option<i64>,
    comment: Option<&str>,
) -> Result<ComplaintDetail, Error> {
    let mut errors = FieldErrors::default();
    match score {
        None => errors.add("score", FieldProblem::required()),
        Some(n) if !(1..=5).contains(&n) => {
            errors.add("score", FieldProblem::new("field.rating_score"))
        }
        Some(_) => {}
    }
    let comment = comment.map(str::trim).filter(|c| !c.is_empty());
    if comment.is_some_and(|c| c.chars().count() > MAX_COMMENT_CHARS) {
        errors.add("comment", FieldProblem::too_long(MAX_COMMENT_CHARS));
    }
    errors.into_result()?;
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), Some(&borrower.id))
            .await?
            .ok_or(Error::NotFound)?;
    if row.score.is_some() {
        return Err(Refusal::AlreadyRated.into());
    }
    if row.answered_at.is_none() {
        return Err(Refusal::ComplaintNotAnswered.into());
    }
    // The comment is free text: written only while the account is live (its deletion clears it).
    let mut tx =
        s.db.begin_for_live_borrower(&borrower.id)
            .await?
            .ok_or(Refusal::AccountDeleted)?;
    if !tx
        .score_complaint(
            &row.id,
            score.unwrap_or_default(),
            comment,
            s.clock.now_ms(),
        )
        .await?
    {
        // Another request scored it in between.
        return Err(Refusal::AlreadyRated.into());
    }
    tx.commit().await?;
    own_detail(s, borrower, &row.ticket_no).await
}

/// Whose complaints support's queue lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueAssignee {
    Anyone,
    /// The asking operator's.
    Mine,
    Unassigned,
}

/// A page of support's queue (`page` from 1, `page_size` complaints): complaints not closed, past their deadline
/// first, then those waiting on the lender, then by the nearest deadline; or all, newest first; by assignee; each with
/// its deadline and flag; with how many match in all.
pub async fn queue(
    s: &Services,
    op: &Operator,
    market: Option<Market>,
    open_only: bool,
    assignee: QueueAssignee,
    page: i64,
    page_size: i64,
) -> Result<(Vec<Complaint>, i64), Error> {
    op.require_any(SUPPORT_ROLES)?;
    let market = op.market_filter(market)?;
    let assignee = match assignee {
        QueueAssignee::Anyone => AssigneeFilter::Anyone,
        QueueAssignee::Mine => AssigneeFilter::Operator(&op.id),
        QueueAssignee::Unassigned => AssigneeFilter::Unassigned,
    };
    let page_size = page_size.clamp(1, MAX_QUEUE_PAGE_SIZE);
    let offset = page.max(1).saturating_sub(1).saturating_mul(page_size);
    if open_only {
        // Every complaint not closed, each with its deadline, in the order support works them: those past their
        // deadline first, then those waiting on the lender, then the nearest deadline (a complaint waiting on the
        // borrower, or India's 30 days beside Indonesia's 20 working days, is not in filing order).
        let rows =
            s.db.open_complaints(market, assignee, MAX_SORTED_QUEUE + 1)
                .await?;
        if rows.len() as i64 <= MAX_SORTED_QUEUE {
            let total = rows.len() as i64;
            let mut complaints = rows
                .into_iter()
                .map(|row| complaint_of(s, row, Lang::En))
                .collect::<Result<Vec<_>, _>>()?;
            complaints.sort_by(|a, b| {
                (
                    !a.overdue,
                    a.row.status != "open",
                    a.deadline,
                    a.row.created_at,
                )
                    .cmp(&(
                        !b.overdue,
                        b.row.status != "open",
                        b.deadline,
                        b.row.created_at,
                    ))
                    .then_with(|| a.row.id.cmp(&b.row.id))
            });
            let page = complaints
                .into_iter()
                .skip(usize::try_from(offset).unwrap_or(usize::MAX))
                .take(usize::try_from(page_size).unwrap_or(0))
                .collect();
            return Ok((page, total));
        }
        // More than that open at once: filing order, the oldest (within a market the nearest deadline) first.
        tracing::warn!(
            limit = MAX_SORTED_QUEUE,
            "more complaints open than the queue sorts by deadline: shown in filing order"
        );
    }
    let (rows, total) =
        s.db.complaint_queue(market, open_only, assignee, page_size, offset)
            .await?;
    let complaints = rows
        .into_iter()
        .map(|row| complaint_of(s, row, Lang::En))
        .collect::<Result<_, _>>()?;
    Ok((complaints, total))
}

/// A complaint as support sees it: the conversation, the images and the borrower's masked phone.
pub async fn support_detail(
    s: &Services,
    op: &Operator,
    ticket_no: &str,
) -> Result<ComplaintDetail, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), None)
            .await?
            .ok_or(Error::NotFound)?;
    op.see(row.market)?;
    // A deleted account's phone was erased (its complaint stays, to be answered and kept): none to mask.
    let phone = match s.db.borrower_by_id(&row.borrower_id).await? {
        Some(b) if !b.phone_enc.is_empty() => {
            Some(crate::auth::unseal_borrower(&s.secrets, b)?.phone.masked())
        }
        _ => None,
    };
    detail_of(s, row, Lang::En, phone).await
}

/// An image of any complaint (support).
pub async fn support_image(
    s: &Services,
    op: &Operator,
    image_id: &str,
) -> Result<ImageFile, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let row = s.db.complaint_image(image_id.trim(), None).await?;
    // An image of another market's borrower is not found, as if it did not exist.
    let row = match row {
        Some(image) => match s.db.borrower_by_id(&image.borrower_id).await? {
            Some(borrower) if op.may_see(borrower.market) => Some(image),
            _ => None,
        },
        None => None,
    };
    // Only images a complaint holds: uploads still waiting are the borrower's draft.
    read_image(s, row.filter(|r| r.complaint_id.is_some())).await
}

/// Support's reply: added to the conversation, the complaint `answered` (unless closed: then refused), and the
/// audit trail, in one transaction. `seen` is the last message support read before writing: when the borrower wrote
/// after it, the reply is sent but the complaint stays `open`, since that message is not answered yet (and an open
/// complaint cannot be closed).
pub async fn reply(
    s: &Services,
    op: &Operator,
    ticket_no: &str,
    body: Option<&str>,
    seen: Option<&str>,
) -> Result<ComplaintDetail, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let body = body.map(str::trim).unwrap_or_default();
    if body.is_empty() {
        return Err(Error::field("body", FieldProblem::required()));
    }
    if body.chars().count() > MAX_REPLY_CHARS {
        return Err(Error::field(
            "body",
            FieldProblem::too_long(MAX_REPLY_CHARS),
        ));
    }
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), None)
            .await?
            .ok_or(Error::NotFound)?;
    op.see(row.market)?;
    let seen = seen.map(str::trim).filter(|id| !id.is_empty());
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // Locked as it is now: the status the audit says it left, and no borrower's reply lands in between.
    let before = match tx.complaint_assignee_for_update(&row.id).await? {
        Some((status, _)) if status != "closed" => status,
        _ => return Err(Refusal::ComplaintClosed.into()),
    };
    if let Some(seen) = seen
        && !tx.complaint_has_message(&row.id, seen).await?
    {
        return Err(Error::field(
            "seenMessageId",
            FieldProblem::new("field.unknown_choice"),
        ));
    }
    let after = if tx.mark_complaint_answered(&row.id, seen, now).await? {
        "answered"
    } else {
        before.as_str()
    };
    let message_id = tx
        .insert_complaint_message(&s.secrets, &row.id, "operator", Some(&op.id), body, now)
        .await?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "complaint.reply",
        entity: "complaint",
        entity_id: &row.id,
        before_json: Some(&serde_json::json!({"status": before}).to_string()),
        after_json: Some(
            &serde_json::json!({"status": after, "messageId": message_id}).to_string(),
        ),
        at: now,
    })
    .await?;
    tx.commit().await?;
    support_detail(s, op, ticket_no).await
}

/// Closes a complaint (support), once, when support has the last word: one closed already is refused
/// (`complaint_closed`), and so is one whose borrower's last message has no answer (`complaint_unanswered`: a new
/// complaint, or one the borrower replied to since — support may have opened it before that reply came). A complaint
/// is answered before it is closed, and a closed one takes no reply, so closing it unanswered would end it unanswered.
pub async fn close(s: &Services, op: &Operator, ticket_no: &str) -> Result<ComplaintDetail, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), None)
            .await?
            .ok_or(Error::NotFound)?;
    op.see(row.market)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    if !tx.close_complaint(&row.id, &op.id, now).await? {
        return Err(match tx.complaint_status_in_tx(&row.id).await?.as_deref() {
            Some("closed") => Refusal::ComplaintClosed.into(),
            _ => Refusal::ComplaintUnanswered.into(),
        });
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "complaint.close",
        entity: "complaint",
        entity_id: &row.id,
        // Only an answered complaint closes (the update's condition), whatever it was when read above.
        before_json: Some(&serde_json::json!({"status": "answered"}).to_string()),
        after_json: Some(&serde_json::json!({"status": "closed"}).to_string()),
        at: now,
    })
    .await?;
    tx.commit().await?;
    support_detail(s, op, ticket_no).await
}

/// An operator a complaint may be assigned to: enabled, with the support (or admin) role.
pub struct Assignee {
    pub id: String,
    pub username: String,
}

fn can_be_assigned(roles: &str, disabled_at: Option<i64>) -> bool {
    disabled_at.is_none()
        && Role::split(roles)
            .iter()
            .any(|role| SUPPORT_ROLES.contains(role))
}

/// The operators complaints of `market` may be assigned to, by username (support, admins): enabled, with the support
/// or admin role, and working in that market, since an assignee who could not open the complaint could not answer
/// it. `market` is the one asked for (one of the caller's: else `422` on `market`); none asked for, the caller's one
/// market, or every market for a caller of both ([`Operator::market_filter`]).
pub async fn assignees(
    s: &Services,
    op: &Operator,
    market: Option<Market>,
) -> Result<Vec<Assignee>, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let market = op.market_filter(market)?;
    Ok(s.db
        .operators()
        .await?
        .into_iter()
        .filter(|o| can_be_assigned(&o.roles, o.disabled_at))
        .filter(|o| market.is_none_or(|m| split_markets(&o.markets).contains(&m)))
        .map(|o| Assignee {
            id: o.id,
            username: o.username,
        })
        .collect())
}

/// Assigns a complaint not closed to an operator who can answer it (`assignee_id`: enabled, support or admin, and
/// working in the complaint's market, else `422` on `assigneeId`; `None` unassigns), audited
/// (`complaint.assign`, before and after). The assignee's row is read locked, and the complaint changes by one
/// conditional update on the assignee it had when read: two operators taking one complaint at once both succeed one
/// after the other, each change audited with what it replaced.
pub async fn assign(
    s: &Services,
    op: &Operator,
    ticket_no: &str,
    assignee_id: Option<&str>,
) -> Result<ComplaintDetail, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let assignee_id = assignee_id.map(str::trim).filter(|a| !a.is_empty());
    let row =
        s.db.complaint_by_ticket(ticket_no.trim(), None)
            .await?
            .ok_or(Error::NotFound)?;
    op.see(row.market)?;
    let now = s.clock.now_ms();
    // One transaction that locks the target operator, then the complaint (always in that order), and reads the
    // assignee under the lock: simultaneous assignments take turns, each lands, and each audit row says what it
    // replaced.
    let mut tx = s.db.begin().await?;
    if let Some(id) = assignee_id {
        let target = tx.operator_for_update(id).await?;
        let Some(target) = target.filter(|t| can_be_assigned(&t.roles, t.disabled_at)) else {
            tx.rollback().await?;
            return Err(Error::field(
                "assigneeId",
                FieldProblem::new("field.unknown_choice"),
            ));
        };
        if !split_markets(&target.markets).contains(&row.market) {
            tx.rollback().await?;
            return Err(Error::field(
                "assigneeId",
                FieldProblem::new("field.assignee_market"),
            ));
        }
    }
    let Some((status, before)) = tx.complaint_assignee_for_update(&row.id).await? else {
        tx.rollback().await?;
        return Err(Error::NotFound);
    };
    if status == "closed" {
        tx.rollback().await?;
        return Err(Refusal::ComplaintClosed.into());
    }
    if !tx
        .assign_complaint(&row.id, before.as_deref(), assignee_id, now)
        .await?
    {
        tx.rollback().await?;
        return Err(anyhow::anyhow!("complaint {ticket_no} changed under its lock").into());
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "complaint.assign",
        entity: "complaint",
        entity_id: &row.id,
        before_json: Some(&serde_json::json!({"assigneeId": before}).to_string()),
        after_json: Some(&serde_json::json!({"assigneeId": assignee_id}).to_string()),
        at: now,
    })
    .await?;
    tx.commit().await?;
    support_detail(s, op, ticket_no).await
}

/// The most canned replies each language keeps.
pub const MAX_CANNED_REPLIES: i64 = 50;
const MAX_CANNED_TITLE_CHARS: usize = 80;

/// The market whose borrowers a canned reply's language writes to: each market's company answers its own borrowers
/// (`en` India's, `id` Indonesia's), so a reply is its market's staff's to read and write (PRODUCT.md §7).
fn canned_market(lang: &str) -> Option<Market> {
    match lang {
        "en" => Some(Market::India),
        "id" => Some(Market::Indonesia),
        _ => None,
    }
}

/// Whether `op` works in the market of a canned reply's language.
fn may_see_canned(op: &Operator, lang: &str) -> bool {
    canned_market(lang).is_some_and(|m| op.may_see(m))
}

/// Support's canned replies of one language (`en`, `id`; all when `None`), by title (support, admins): those of the
/// operator's markets only; a language of another market is refused on `lang`.
pub async fn canned_replies(
    s: &Services,
    op: &Operator,
    lang: Option<&str>,
) -> Result<Vec<CannedReply>, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let lang = match lang.map(str::trim) {
        None => None,
        Some(code @ ("en" | "id")) => {
            if !may_see_canned(op, code) {
                return Err(Error::field(
                    "lang",
                    FieldProblem::new("field.market_not_yours"),
                ));
            }
            Some(code)
        }
        Some("") => return Err(Error::field("lang", FieldProblem::required())),
        Some(_) => {
            return Err(Error::field(
                "lang",
                FieldProblem::new("field.unknown_choice"),
            ));
        }
    };
    let mut replies = s.db.canned_replies(lang).await?;
    replies.retain(|r| may_see_canned(op, &r.lang));
    Ok(replies)
}

/// A canned reply as support writes it.
pub struct CannedRequest<'a> {
    pub lang: Option<&'a str>,
    pub title: Option<&'a str>,
    pub body: Option<&'a str>,
}

fn check_canned<'a>(req: &CannedRequest<'a>) -> Result<(&'a str, &'a str, &'a str), Error> {
    let mut errors = FieldErrors::default();
    let lang = req.lang.map(str::trim).unwrap_or_default();
    if lang.is_empty() {
        errors.add("lang", FieldProblem::required());
    } else if !matches!(lang, "en" | "id") {
        errors.add("lang", FieldProblem::new("field.unknown_choice"));
    }
    let title = req.title.map(str::trim).unwrap_or_default();
    if title.is_empty() {
        errors.add("title", FieldProblem::required());
    } else if title.chars().count() > MAX_CANNED_TITLE_CHARS {
        errors.add("title", FieldProblem::too_long(MAX_CANNED_TITLE_CHARS));
    }
    let body = req.body.map(str::trim).unwrap_or_default();
    if body.is_empty() {
        errors.add("body", FieldProblem::required());
    } else if body.chars().count() > MAX_REPLY_CHARS {
        errors.add("body", FieldProblem::too_long(MAX_REPLY_CHARS));
    }
    errors.into_result()?;
    Ok((lang, title, body))
}

/// A canned reply's language, refused on `lang` when it is another market's than the operator's.
fn canned_lang_of_operator<'a>(op: &Operator, lang: &'a str) -> Result<&'a str, Error> {
    if may_see_canned(op, lang) {
        Ok(lang)
    } else {
        Err(Error::field(
            "lang",
            FieldProblem::new("field.market_not_yours"),
        ))
    }
}

async fn audit_canned(
    tx: &mut crate::store::Tx,
    op: &Operator,
    action: &str,
    id: &str,
    before: Option<&CannedReply>,
    after: Option<&CannedReply>,
    at: i64,
) -> Result<(), Error> {
    let json = |r: Option<&CannedReply>| r.map(|r| serde_json::to_string(r).unwrap_or_default());
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action,
        entity: "canned_reply",
        entity_id: id,
        before_json: json(before).as_deref(),
        after_json: json(after).as_deref(),
        at,
    })
    .await?;
    Ok(())
}

/// Adds a canned reply (support, admins), at most [`MAX_CANNED_REPLIES`] a language (counted and written under one
/// lock), audited.
pub async fn canned_create(
    s: &Services,
    op: &Operator,
    req: &CannedRequest<'_>,
) -> Result<CannedReply, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let (lang, title, body) = check_canned(req)?;
    canned_lang_of_operator(op, lang)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    tx.lock_canned_replies().await?;
    if tx.count_canned_replies(lang).await? >= MAX_CANNED_REPLIES {
        tx.rollback().await?;
        return Err(Error::field(
            "lang",
            FieldProblem::new("field.too_many_canned_replies").with("max", MAX_CANNED_REPLIES),
        ));
    }
    let reply = tx.insert_canned_reply(lang, title, body, now).await?;
    audit_canned(
        &mut tx,
        op,
        "canned_reply.create",
        &reply.id,
        None,
        Some(&reply),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(reply)
}

/// Changes a canned reply of the operator's market (support, admins), audited with it before and after. Moving it to
/// the other language counts against that language's [`MAX_CANNED_REPLIES`] (and needs that market too).
pub async fn canned_update(
    s: &Services,
    op: &Operator,
    id: &str,
    req: &CannedRequest<'_>,
) -> Result<CannedReply, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let (lang, title, body) = check_canned(req)?;
    canned_lang_of_operator(op, lang)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    tx.lock_canned_replies().await?;
    // Another market's reply is not found, as if it did not exist.
    let before = tx
        .canned_reply(id.trim())
        .await?
        .filter(|r| may_see_canned(op, &r.lang))
        .ok_or(Error::NotFound)?;
    if before.lang != lang && tx.count_canned_replies(lang).await? >= MAX_CANNED_REPLIES {
        tx.rollback().await?;
        return Err(Error::field(
            "lang",
            FieldProblem::new("field.too_many_canned_replies").with("max", MAX_CANNED_REPLIES),
        ));
    }
    tx.update_canned_reply(&before.id, lang, title, body, now)
        .await?;
    let after = tx.canned_reply(&before.id).await?.ok_or(Error::NotFound)?;
    audit_canned(
        &mut tx,
        op,
        "canned_reply.update",
        &before.id,
        Some(&before),
        Some(&after),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(after)
}

/// Removes a canned reply of the operator's market (support, admins), audited with what it said.
pub async fn canned_delete(s: &Services, op: &Operator, id: &str) -> Result<(), Error> {
    op.require_any(SUPPORT_ROLES)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let before = tx
        .canned_reply(id.trim())
        .await?
        .filter(|r| may_see_canned(op, &r.lang))
        .ok_or(Error::NotFound)?;
    tx.delete_canned_reply(&before.id).await?;
    audit_canned(
        &mut tx,
        op,
        "canned_reply.delete",
        &before.id,
        Some(&before),
        None,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Every FAQ entry, both languages (admins).
pub async fn faq_all(s: &Services, op: &Operator) -> Result<Vec<FaqEntry>, Error> {
    op.require_any(FAQ_ROLES)?;
    Ok(s.db.faq(None).await?)
}

/// An FAQ entry as an admin writes it.
pub struct FaqRequest<'a> {
    pub lang: Option<&'a str>,
    pub category: Option<&'a str>,
    pub question: Option<&'a str>,
    pub answer: Option<&'a str>,
    pub position: Option<i64>,
}

fn check_faq<'a>(req: &FaqRequest<'a>) -> Result<FaqFields<'a>, Error> {
    let mut errors = FieldErrors::default();
    let lang = req.lang.map(str::trim).unwrap_or_default();
    if lang.is_empty() {
        errors.add("lang", FieldProblem::required());
    } else if !matches!(lang, "en" | "id") {
        errors.add("lang", FieldProblem::new("field.unknown_choice"));
    }
    let category = req.category.map(str::trim).unwrap_or_default();
    if category.is_empty() {
        errors.add("category", FieldProblem::required());
    } else if !FAQ_CATEGORIES.contains(&category) {
        errors.add("category", FieldProblem::new("field.unknown_choice"));
    }
    for (field, value, max) in [
        ("question", req.question, MAX_FAQ_QUESTION_CHARS),
        ("answer", req.answer, MAX_FAQ_ANSWER_CHARS),
    ] {
        let value = value.map(str::trim).unwrap_or_default();
        if value.is_empty() {
            errors.add(field, FieldProblem::required());
        } else if value.chars().count() > max {
            errors.add(field, FieldProblem::too_long(max));
        }
    }
    let position = req.position.unwrap_or(1);
    if !(0..=10_000).contains(&position) {
        errors.add("position", FieldProblem::new("field.unknown_choice"));
    }
    errors.into_result()?;
    Ok(FaqFields {
        lang,
        category,
        question: req.question.map(str::trim).unwrap_or_default(),
        answer: req.answer.map(str::trim).unwrap_or_default(),
        position,
    })
}

fn faq_json(entry: &FaqEntry) -> String {
    serde_json::to_string(entry).unwrap_or_default()
}

/// Adds an FAQ entry (admins), audited.
pub async fn faq_create(
    s: &Services,
    op: &Operator,
    req: &FaqRequest<'_>,
) -> Result<FaqEntry, Error> {
    op.require_any(FAQ_ROLES)?;
    let fields = check_faq(req)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let entry = tx.insert_faq(&fields, now).await?;
    audit_faq(
        &mut tx,
        op,
        "faq.create",
        &entry.id,
        None,
        Some(&faq_json(&entry)),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(entry)
}

/// Changes an FAQ entry (admins), audited with the entry before and after.
pub async fn faq_update(
    s: &Services,
    op: &Operator,
    id: &str,
    req: &FaqRequest<'_>,
) -> Result<FaqEntry, Error> {
    op.require_any(FAQ_ROLES)?;
    let fields = check_faq(req)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let before = tx.faq_entry(id).await?.ok_or(Error::NotFound)?;
    tx.update_faq(id, &fields, now).await?;
    let after = tx.faq_entry(id).await?.ok_or(Error::NotFound)?;
    audit_faq(
        &mut tx,
        op,
        "faq.update",
        id,
        Some(&faq_json(&before)),
        Some(&faq_json(&after)),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(after)
}

/// Removes an FAQ entry (admins), audited with what it said.
pub async fn faq_delete(s: &Services, op: &Operator, id: &str) -> Result<(), Error> {
    op.require_any(FAQ_ROLES)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let before = tx.faq_entry(id).await?.ok_or(Error::NotFound)?;
    tx.delete_faq(id).await?;
    audit_faq(
        &mut tx,
        op,
        "faq.delete",
        id,
        Some(&faq_json(&before)),
        None,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Which way an FAQ entry moves within its language and category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FaqDirection {
    /// Before the entry ahead of it.
    Up,
    /// After the entry behind it.
    Down,
}

impl FaqDirection {
    fn parse(direction: Option<&str>) -> Result<Self, Error> {
        let problem = match direction.map(str::trim).unwrap_or_default() {
            "up" => return Ok(Self::Up),
            "down" => return Ok(Self::Down),
            "" => FieldProblem::required(),
            _ => FieldProblem::new("field.faq_direction"),
        };
        Err(Error::Validation(FieldErrors::one("direction", problem)))
    }
}

/// An entry moved: where it is now, and its category in the new order.
pub struct FaqMoved {
    pub entry: FaqEntry,
    pub category: Vec<FaqEntry>,
}

/// Moves an FAQ entry one place up or down in its language and category (admins), in one transaction with one
/// audit entry: the category's rows are locked, the entry trades positions with its neighbour by (position, id),
/// or, when positions in the category repeat (the PUT may set any), the category is numbered 1, 2, 3… in the new
/// order, since a swap of two equal positions would move nothing. Refused on `direction` at either end.
pub async fn faq_move(
    s: &Services,
    op: &Operator,
    id: &str,
    direction: Option<&str>,
) -> Result<FaqMoved, Error> {
    op.require_any(FAQ_ROLES)?;
    let direction = FaqDirection::parse(direction)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    // The category is read from the entry unlocked, then locked as a whole; a PUT that moved the entry to another
    // category meanwhile is seen in the locked read, and the place is read again.
    let mut tries = 0;
    let (mut entries, index) = loop {
        let (lang, category) = tx.faq_entry_place(id).await?.ok_or(Error::NotFound)?;
        let entries = tx.lock_faq_category(&lang, &category).await?;
        if let Some(index) = entries.iter().position(|e| e.id == id) {
            break (entries, index);
        }
        tries += 1;
        if tries == 3 {
            return Err(anyhow::anyhow!("faq entry {id} kept changing category").into());
        }
    };
    let neighbour = match direction {
        FaqDirection::Up => index.checked_sub(1),
        FaqDirection::Down => Some(index + 1).filter(|&next| next < entries.len()),
    };
    let Some(neighbour) = neighbour else {
        let key = match direction {
            FaqDirection::Up => "field.faq_first",
            FaqDirection::Down => "field.faq_last",
        };
        return Err(Error::Validation(FieldErrors::one(
            "direction",
            FieldProblem::new(key),
        )));
    };
    let order_json = |entries: &[FaqEntry]| {
        serde_json::json!({
            "lang": entries[0].lang,
            "category": entries[0].category,
            "order": entries.iter().map(|e| serde_json::json!({"id": e.id, "position": e.position})).collect::<Vec<_>>(),
        })
    };
    let before = order_json(&entries);
    // The positions, sorted, go to the entries in their new order: with no repeats that is the two trading places.
    let mut positions: Vec<i64> = entries.iter().map(|e| e.position).collect();
    if positions.windows(2).any(|w| w[0] == w[1]) {
        positions = (1..).take(entries.len()).collect();
    }
    entries.swap(index, neighbour);
    for (entry, position) in entries.iter_mut().zip(positions) {
        if entry.position != position {
            tx.set_faq_position(&entry.id, position, now).await?;
            entry.position = position;
            entry.updated_at = now;
        }
    }
    let mut after = order_json(&entries);
    after["direction"] = serde_json::json!(direction);
    audit_faq(
        &mut tx,
        op,
        "faq.move",
        id,
        Some(&before.to_string()),
        Some(&after.to_string()),
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(FaqMoved {
        entry: entries[neighbour].clone(),
        category: entries,
    })
}

async fn audit_faq(
    tx: &mut crate::store::Tx,
    op: &Operator,
    action: &str,
    id: &str,
    before: Option<&str>,
    after: Option<&str>,
    at: i64,
) -> Result<(), Error> {
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action,
        entity: "faq",
        entity_id: id,
        before_json: before,
        after_json: after,
        at,
    })
    .await?;
    Ok(())
}

/// How to answer a contact message: by e-mail when the visitor gave one, else by phone.
pub fn reply_channel(message: &ContactMessage) -> (&'static str, &str) {
    match message.email.as_deref().filter(|e| !e.trim().is_empty()) {
        Some(email) => ("email", email),
        None => ("phone", &message.telephone),
    }
}

/// Stores a message from the site's contact form (with the market of its telephone when the form did not say one),
/// counted first against the sending address's limits ([`count_contact_message`]).
pub async fn leave_contact_message(
    s: &Services,
    mut message: NewContactMessage,
) -> Result<ContactMessage, Error> {
    // A form that did not say its market: the telephone's, when it is one market's, is kept with the message, so the
    // operators' lists find it in SQL instead of reading its telephone on every request.
    if message
        .market
        .as_deref()
        .and_then(Market::from_code)
        .is_none()
    {
        message.market = telephone_market(&message.telephone).map(|m| m.code().to_owned());
    }
    count_contact_message(s, &message.client_addr).await?;
    let stored = s.db.insert_contact_message(&s.secrets, message).await?;
    tracing::info!(id = %stored.id, "contact message stored");
    Ok(stored)
}

/// Counts a contact message against its sending address's limits (`contact.per_minute` a minute, `[limits]
/// contact_per_day` a day; an IPv6 address by its /64): both, or (one refusing) neither, then `429 rate_limited`.
async fn count_contact_message(s: &Services, client_addr: &str) -> Result<(), Error> {
    let address = limits::address_key(client_addr);
    let l = &s.limits;
    limits::count_all(
        &s.db,
        &[
            (&l.contact_per_minute, &address),
            (&l.contact_per_day, &address),
        ],
        s.clock.now_ms(),
    )
    .await?
    .map_err(limits::Refused::rate_limited)?;
    Ok(())
}

/// A contact message sent with the form's hidden field filled (a program filling every field, not a person): counted
/// against its address like any other (so it is refused as often, and the program learns nothing from the limits),
/// then kept nowhere; the id and time of an answer like any other's.
pub async fn ignore_contact_message(
    s: &Services,
    client_addr: &str,
) -> Result<(String, i64), Error> {
    count_contact_message(s, client_addr).await?;
    tracing::debug!("contact message with the hidden field filled: not kept");
    Ok((crate::store::new_id(), s.clock.now_ms()))
}

/// A page of the contact form's messages (`page` from 1, `page_size` messages; support, admins) with how many the
/// operator sees in all: only those waiting when `waiting_only`, oldest first (the most overdue for an answer first);
/// else all, newest first. Only the messages the operator sees ([`contact_market`]) are counted and paged, in SQL: a
/// message whose stored market names none has its telephone read here (it is encrypted) and, when it is of the
/// operator's one market, its id goes to the query, so the pages are full and agree with the total.
pub async fn contact_messages(
    s: &Services,
    op: &Operator,
    waiting_only: bool,
    page: i64,
    page_size: i64,
) -> Result<(Vec<ContactMessage>, i64), Error> {
    op.require_any(SUPPORT_ROLES)?;
    let page_size = page_size.clamp(1, MAX_QUEUE_PAGE_SIZE);
    let offset = page.max(1).saturating_sub(1).saturating_mul(page_size);
    let (list, total) = contact_messages_page(s, op, waiting_only, page_size, offset).await?;
    // The messages' telephones and e-mails are shown in full (support calls and writes back): each page read is
    // audited, one entry naming the messages, before it is answered.
    if !list.is_empty() {
        let ids: Vec<&str> = list.iter().map(|m| m.id.as_str()).collect();
        let after = serde_json::json!({"fields": ["telephone", "email"], "ids": ids}).to_string();
        let mut tx = s.db.begin().await?;
        tx.insert_audit(&NewAuditEntry {
            actor_kind: "operator",
            actor_id: Some(&op.id),
            action: "view_unmasked",
            entity: "contact_messages",
            entity_id: "page",
            before_json: None,
            after_json: Some(&after),
            at: s.clock.now_ms(),
        })
        .await?;
        tx.commit().await?;
    }
    Ok((list, total))
}

/// A page of the messages `op` sees ([`contact_messages`]).
async fn contact_messages_page(
    s: &Services,
    op: &Operator,
    waiting_only: bool,
    page_size: i64,
    offset: i64,
) -> Result<(Vec<ContactMessage>, i64), Error> {
    // An operator of every market sees every message; one of one market that market's, and of the undecided ones
    // those whose telephone is that market's only.
    let Some(market) = op.market_filter(None)? else {
        return Ok(s
            .db
            .contact_messages(
                &s.secrets,
                ContactScope::Every,
                waiting_only,
                page_size,
                offset,
            )
            .await?);
    };
    let ids: Vec<String> =
        s.db.undecided_contact_telephones(&s.secrets, waiting_only)
            .await?
            .into_iter()
            .filter(|(_, telephone)| telephone_market(telephone) == Some(market))
            .map(|(id, _)| id)
            .collect();
    let scope = ContactScope::Market {
        market: market.code(),
        ids: &ids,
    };
    Ok(s.db
        .contact_messages(&s.secrets, scope, waiting_only, page_size, offset)
        .await?)
}

/// The market of a contact message: the one the site's form sent it from, or (a message from before the form said,
/// migration 0039) read from its telephone: the one market whose numbers it is (`+91…`, `+62…`, or a national number
/// valid in one market only); `None` when it is both markets' or neither's.
pub fn contact_market(message: &ContactMessage) -> Option<Market> {
    match message.market.as_deref().and_then(Market::from_code) {
        Some(market) => Some(market),
        None => telephone_market(&message.telephone),
    }
}

/// The one market whose numbers a telephone is; `None` when it is both markets' or neither's.
fn telephone_market(telephone: &str) -> Option<Market> {
    let mut of = Market::ALL
        .iter()
        .copied()
        .filter(|m| kilat_domain::Phone::parse(*m, telephone).is_ok());
    match (of.next(), of.next()) {
        (Some(market), None) => Some(market),
        _ => None,
    }
}

/// True when the operator sees a contact message: its market's operators do; one of no single market (a number of
/// both markets' formats, or of neither) only operators of every market.
fn contact_visible(op: &Operator, message: &ContactMessage) -> bool {
    match contact_market(message) {
        Some(market) => op.may_see(market),
        None => op.markets().count() == Market::ALL.len(),
    }
}

/// Marks a contact message handled, once (the first operator's mark stands): true when this call marked it. The mark
/// is audited (`contact_message.handled`, entity `contact_message`: handled before and after, never the message's
/// personal data) in its transaction; a message another operator marked first writes nothing.
pub async fn mark_handled(s: &Services, op: &Operator, id: &str) -> Result<bool, Error> {
    op.require_any(SUPPORT_ROLES)?;
    let id = id.trim();
    // A message of a market not the operator's is not found, as if it did not exist.
    if let Some(message) = s.db.contact_message(&s.secrets, id).await?
        && !contact_visible(op, &message)
    {
        return Err(Error::NotFound);
    }
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let Some(marked) = tx.mark_contact_message_handled(id, &op.id, now).await? else {
        tx.rollback().await?;
        return Err(Error::NotFound);
    };
    if !marked {
        tx.rollback().await?;
        return Ok(false);
    }
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "contact_message.handled",
        entity: "contact_message",
        entity_id: id,
        before_json: Some(&serde_json::json!({"handled": false}).to_string()),
        after_json: Some(&serde_json::json!({"handled": true, "handledAt": now}).to_string()),
        at: now,
    })
    .await?;
    tx.commit().await?;
    Ok(true)
}
