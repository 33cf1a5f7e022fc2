//! Collections (docs/API-CONSOLE.md, "Collections"): the overdue queue per market with its bucket counts, a loan's
//! collections panel, contact attempts (refused outside the market's contact hours for a call, SMS or WhatsApp),
//! promises to pay, the borrower's full phone (audited) and a loan's contact history for the order view.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::Code;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::auth::OperatorSession;
use crate::collections::{self, Bucket, Contact, ContactHours, Logged, Promise, QueueQuery};
use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::http::borrower::auth::require_market;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::{ApiQuery, JsonOrForm};
use crate::store::collections::{self as collections_store, BucketCounts, ReminderRow};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CollectionsQuery {
    /// `IN` or `ID` (required).
    #[param(value_type = kilat_domain::Market)]
    pub market: Option<String>,
    /// `1-7`, `8-30`, `31-60`, `61-90` or `90+` (days past due); every bucket when left out.
    #[param(value_type = Option<String>, example = "8-30")]
    pub bucket: Option<String>,
    /// `dpd_desc` (most days past due first; the default) or `dpd_asc`.
    #[param(value_type = Option<String>, example = "dpd_desc")]
    pub sort: Option<String>,
    /// From 1 (the default).
    #[param(value_type = Option<i64>, example = 1)]
    pub page: Option<String>,
    /// 1 to 200 (default 50).
    #[param(value_type = Option<i64>, example = 50)]
    #[serde(rename = "pageSize")]
    pub page_size: Option<String>,
}

/// The market's contact hours and its clock now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactHoursView {
    #[schema(value_type = kilat_domain::Market)]
    pub market: String,
    /// IANA time zone of the market's clock.
    #[schema(example = "Asia/Kolkata")]
    pub timezone: String,
    /// `HH:MM`, included.
    #[schema(example = "08:00")]
    pub from: String,
    /// `HH:MM`, excluded (`19:00`: the last minute is 18:59).
    #[schema(example = "19:00")]
    pub until: String,
    /// The market's local time now, `HH:MM`.
    #[schema(example = "21:14")]
    pub local_time: String,
    /// The market's business date, `YYYY-MM-DD`.
    pub local_date: String,
    /// True when a call, SMS or WhatsApp may be logged now.
    pub open: bool,
}

impl From<&ContactHours> for ContactHoursView {
    fn from(h: &ContactHours) -> Self {
        Self {
            market: h.market.code().to_owned(),
            timezone: h.timezone().to_owned(),
            from: format!("{:02}:00", h.from),
            until: format!("{:02}:00", h.until),
            local_time: h.now_hhmm(),
            local_date: h.local_now.date().to_string(),
            open: h.open,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CollectionsBucketCounts {
    #[serde(rename = "1-7")]
    pub d1_7: i64,
    #[serde(rename = "8-30")]
    pub d8_30: i64,
    #[serde(rename = "31-60")]
    pub d31_60: i64,
    #[serde(rename = "61-90")]
    pub d61_90: i64,
    #[serde(rename = "90+")]
    pub d90_plus: i64,
}

impl From<BucketCounts> for CollectionsBucketCounts {
    fn from(c: BucketCounts) -> Self {
        Self {
            d1_7: c.d1_7,
            d8_30: c.d8_30,
            d31_60: c.d31_60,
            d61_90: c.d61_90,
            d90_plus: c.d90_plus,
        }
    }
}

/// The last reminder queued for the loan, with its delivery status from the notification outbox.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsReminderView {
    /// `due_in_3`, `due_in_1`, `due_today` or `overdue`.
    pub kind: String,
    pub installment: i64,
    /// `pending`, `sending`, `sent`, `failed`, or `dropped` (not sent: the loan no longer called for it when its hour
    /// came).
    pub status: String,
    pub attempts: i64,
    /// Epoch milliseconds.
    pub created_at: i64,
    /// Epoch milliseconds.
    #[schema(required = true)]
    pub sent_at: Option<i64>,
}

impl From<ReminderRow> for CollectionsReminderView {
    fn from(r: ReminderRow) -> Self {
        Self {
            kind: r.kind,
            installment: r.installment,
            status: r.status,
            attempts: r.attempts,
            created_at: r.created_at,
            sent_at: r.sent_at,
        }
    }
}

/// A contact attempt.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsContactView {
    pub id: String,
    /// `call`, `sms`, `whatsapp` or `email`.
    pub channel: String,
    /// `reached`, `no_answer`, `busy`, `wrong_number`, `refused`, `promised`, `disputed` or `left_message`.
    pub outcome: String,
    #[schema(required = true)]
    pub note: Option<String>,
    /// `HH:MM` in the market's clock when it was logged.
    pub local_time: String,
    /// Epoch milliseconds.
    pub at: i64,
    /// The agent's username.
    #[schema(required = true)]
    pub by: Option<String>,
}

/// A contact just logged, with the promise recorded with it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsContactLoggedView {
    #[serde(flatten)]
    pub contact: CollectionsContactView,
    /// The promise to pay recorded with the outcome `promised`; null with any other.
    #[schema(required = true)]
    pub promise: Option<CollectionsPromiseView>,
}

impl From<Logged> for CollectionsContactLoggedView {
    fn from(l: Logged) -> Self {
        Self {
            contact: l.contact.into(),
            promise: l.promise.map(Into::into),
        }
    }
}

impl From<Contact> for CollectionsContactView {
    fn from(c: Contact) -> Self {
        Self {
            id: c.row.id,
            channel: c.row.channel,
            outcome: c.row.outcome,
            note: c.note,
            local_time: c.row.local_time,
            at: c.row.created_at,
            by: c.row.username,
        }
    }
}

/// A promise to pay with its state, read from the loan's payments.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsPromiseView {
    pub id: String,
    /// Minor units.
    pub amount: i64,
    /// `YYYY-MM-DD`, the market's calendar: the day it was made.
    pub made_on: String,
    /// `YYYY-MM-DD`: the day the borrower promised to pay by.
    pub date: String,
    /// Minor units received towards it (payments credited from `madeOn` to `date`).
    pub received: i64,
    /// `open`, `kept`, `broken`, or `waiting`: its date passed, but a payment the borrower made by then waits for
    /// finance.
    pub state: String,
    /// Epoch milliseconds.
    pub at: i64,
    #[schema(required = true)]
    pub by: Option<String>,
}

impl From<Promise> for CollectionsPromiseView {
    fn from(p: Promise) -> Self {
        Self {
            id: p.row.id,
            amount: p.row.amount,
            made_on: p.made_on.to_string(),
            date: p.promised_on.to_string(),
            received: p.received.minor(),
            state: p.state.code().to_owned(),
            at: p.row.created_at,
            by: p.row.username,
        }
    }
}

/// Where the loan stands today: the borrower's own figures.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsArrearsView {
    /// Days from the oldest unpaid installment's due date to the market's today; 0 when not past due.
    pub days_past_due: i64,
    /// `1-7`, `8-30`, `31-60`, `61-90` or `90+`; null when not past due.
    #[schema(required = true)]
    pub bucket: Option<String>,
    /// `YYYY-MM-DD`: the current due date of the oldest installment with something outstanding.
    #[schema(required = true)]
    pub oldest_due_date: Option<String>,
    /// Minor units: what the installments past their due date still owe.
    pub amount_overdue: i64,
    /// Minor units: everything the loan still owes.
    pub outstanding: i64,
}

impl From<&collections::Arrears> for CollectionsArrearsView {
    fn from(a: &collections::Arrears) -> Self {
        Self {
            days_past_due: a.days_past_due,
            bucket: a.bucket.map(|b| b.code().to_owned()),
            oldest_due_date: a.oldest_due.map(|d| d.to_string()),
            amount_overdue: a.amount_overdue.minor(),
            outstanding: a.outstanding.minor(),
        }
    }
}

/// A payment of the loan waiting for finance: what it covers is not chased until finance decides.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsWaitingPaymentView {
    pub reference: String,
    /// `verifying` (a UTR to check) or `held` (money came as another amount).
    pub status: String,
    /// Minor units asked.
    pub amount: i64,
    /// Minor units received, when money was reported.
    #[schema(required = true)]
    pub received_amount: Option<i64>,
    /// The first and last installments it pays; null for the whole loan.
    #[schema(required = true)]
    pub installment: Option<i64>,
    #[schema(required = true)]
    pub installment_to: Option<i64>,
    /// Epoch milliseconds: when the borrower made it.
    pub at: i64,
}

impl From<collections_store::WaitingPaymentRow> for CollectionsWaitingPaymentView {
    fn from(w: collections_store::WaitingPaymentRow) -> Self {
        Self {
            reference: w.reference,
            status: w.status,
            amount: w.amount,
            received_amount: w.received_amount,
            installment: w.installment,
            installment_to: w.installment_to,
            at: w.created_at,
        }
    }
}

/// One loan of the overdue queue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsQueuedLoan {
    pub order_no: String,
    #[schema(value_type = kilat_domain::Market)]
    pub market: String,
    #[schema(value_type = kilat_domain::Currency)]
    pub currency: String,
    pub product_name: String,
    /// The order's status (`disbursed` or `overdue`: the overdue job moves it once a day).
    pub status: String,
    /// The borrower's phone, masked; null once the account was deleted.
    #[schema(required = true)]
    pub phone_masked: Option<String>,
    #[serde(flatten)]
    pub arrears: CollectionsArrearsView,
    /// A payment of the loan waits for finance (a UTR to check, money held): the borrower paid, or says so.
    pub payment_waiting: bool,
    #[schema(required = true)]
    pub last_reminder: Option<CollectionsReminderView>,
    #[schema(required = true)]
    pub last_contact: Option<CollectionsContactView>,
    /// The latest promise to pay.
    #[schema(required = true)]
    pub promise: Option<CollectionsPromiseView>,
}

/// A page of the overdue queue.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsQueueView {
    #[schema(value_type = kilat_domain::Market)]
    pub market: String,
    /// The market's business date, `YYYY-MM-DD`.
    pub today: String,
    pub contact_hours: ContactHoursView,
    /// Loans past due in each bucket (the whole market, whatever the filter).
    pub counts: CollectionsBucketCounts,
    /// Loans matching the filter.
    pub total: i64,
    pub page: i64,
    pub page_size: i64,
    pub items: Vec<CollectionsQueuedLoan>,
}

fn parse_whole(
    field: &'static str,
    text: Option<&str>,
    default: i64,
    errors: &mut FieldErrors,
) -> i64 {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => default,
        Some(t) => t.parse::<i64>().unwrap_or_else(|_| {
            errors.add(field, FieldProblem::new("field.unknown_choice"));
            default
        }),
    }
}

/// The overdue queue of one market (collections, admin): loans past due, most days past due first, a page at a time,
/// with the count of each bucket.
#[utoipa::path(get, path = "/api/v1/console/collections", tag = "console", operation_id = "console_collections",
    security(("console_cookie" = [])),
    params(CollectionsQuery),
    responses((status = 200, body = Envelope<CollectionsQueueView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not collections or admin", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `bucket`, `sort`, `page` or `pageSize`",
            body = ErrorBody)))]
pub async fn queue(
    State(state): State<AppState>,
    session: OperatorSession,
    ApiQuery(query): ApiQuery<CollectionsQuery>,
) -> Result<Json<Envelope<CollectionsQueueView>>, ApiError> {
    let mut errors = FieldErrors::default();
    let market = match require_market(query.market.as_deref()) {
        Ok(m) => Some(m),
        Err(e) => {
            errors.merge(e);
            None
        }
    };
    let bucket = match query
        .bucket
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
    {
        None => None,
        Some(code) => {
            let bucket = Bucket::parse(code);
            if bucket.is_none() {
                errors.add("bucket", FieldProblem::new("field.unknown_choice"));
            }
            bucket
        }
    };
    let most_overdue_first = match query.sort.as_deref().map(str::trim) {
        None | Some("" | "dpd_desc") => true,
        Some("dpd_asc") => false,
        Some(_) => {
            errors.add("sort", FieldProblem::new("field.unknown_choice"));
            true
        }
    };
    let page = parse_whole("page", query.page.as_deref(), 1, &mut errors);
    let page_size = parse_whole(
        "pageSize",
        query.page_size.as_deref(),
        collections::PAGE_SIZE,
        &mut errors,
    );
    errors.into_result()?;
    let market = market.expect("checked above");
    let found = collections::queue(
        &state.services,
        &session.operator,
        QueueQuery {
            market,
            bucket,
            most_overdue_first,
            page,
            page_size,
        },
    )
    .await?;
    Ok(Envelope::ok(CollectionsQueueView {
        market: found.market.code().to_owned(),
        today: found.today.to_string(),
        contact_hours: (&found.hours).into(),
        counts: found.counts.into(),
        total: found.total,
        page: found.page,
        page_size: found.page_size,
        items: found
            .items
            .into_iter()
            .map(|i| CollectionsQueuedLoan {
                order_no: i.order_no,
                market: i.market.code().to_owned(),
                currency: i.currency.code().to_owned(),
                product_name: i.product_name,
                status: i.status,
                phone_masked: i.phone_masked,
                arrears: (&i.arrears).into(),
                payment_waiting: i.payment_waiting,
                last_reminder: i.last_reminder.map(Into::into),
                last_contact: i.last_contact.map(Into::into),
                promise: i.promise.map(Into::into),
            })
            .collect(),
    }))
}

/// One installment as collections sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsInstallmentView {
    pub number: u32,
    /// `YYYY-MM-DD`, after extensions.
    pub due_date: String,
    /// Minor units still owed on it.
    pub outstanding: i64,
    /// `upcoming`, `due`, `overdue` or `paid`.
    pub status: String,
}

/// A loan's collections panel. It carries no ID number, bank account or emergency contact.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsCaseView {
    pub order_no: String,
    #[schema(value_type = kilat_domain::Market)]
    pub market: String,
    #[schema(value_type = kilat_domain::Currency)]
    pub currency: String,
    pub product_name: String,
    /// The order's status.
    pub status: String,
    /// The market's business date.
    pub today: String,
    /// The borrower's phone, masked (the full number: `POST …/phone`, audited); null once the account was deleted.
    #[schema(required = true)]
    pub phone_masked: Option<String>,
    #[serde(flatten)]
    pub arrears: CollectionsArrearsView,
    pub contact_hours: ContactHoursView,
    pub installments: Vec<CollectionsInstallmentView>,
    /// Newest first.
    pub contacts: Vec<CollectionsContactView>,
    /// Newest first.
    pub promises: Vec<CollectionsPromiseView>,
    /// Reminders queued for the loan, newest first, with their delivery status.
    pub reminders: Vec<CollectionsReminderView>,
    /// The loan's payments waiting for finance, oldest first: what they cover is not chased until finance decides.
    pub waiting_payments: Vec<CollectionsWaitingPaymentView>,
}

/// A loan's collections panel (collections, admin): its figures, the borrower's phone masked, the contact log, the
/// promises with their state and the reminders.
#[utoipa::path(get, path = "/api/v1/console/collections/{orderNo}", tag = "console",
    operation_id = "console_collections_case",
    security(("console_cookie" = [])),
    params(("orderNo" = String, Path, description = "E.g. KL-261125-7F3K9Q")),
    responses((status = 200, body = Envelope<CollectionsCaseView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not collections or admin", body = ErrorBody),
        (status = 404, description = "not_found: no such order, or not paid out", body = ErrorBody)))]
pub async fn case(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<CollectionsCaseView>>, ApiError> {
    let c = collections::case(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(CollectionsCaseView {
        order_no: c.order.order_no.clone(),
        market: c.order.market.code().to_owned(),
        currency: c.order.currency.code().to_owned(),
        product_name: c.order.product_name.clone(),
        status: c.order.status.code().to_owned(),
        today: c.today.to_string(),
        phone_masked: c.phone_masked,
        arrears: (&c.arrears).into(),
        contact_hours: (&c.hours).into(),
        installments: c
            .installments
            .into_iter()
            .map(|(b, status)| CollectionsInstallmentView {
                number: b.number,
                due_date: b.due_date.to_string(),
                outstanding: b.outstanding.total().map_or(0, |m| m.minor()),
                status: status.code().to_owned(),
            })
            .collect(),
        contacts: c.contacts.into_iter().map(Into::into).collect(),
        promises: c.promises.into_iter().map(Into::into).collect(),
        reminders: c.reminders.into_iter().map(Into::into).collect(),
        waiting_payments: c.waiting.into_iter().map(Into::into).collect(),
    }))
}

/// A loan's contact history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsHistoryView {
    /// Newest first.
    pub contacts: Vec<CollectionsContactView>,
    /// Newest first.
    pub promises: Vec<CollectionsPromiseView>,
}

/// A loan's contact attempts and promises to pay (every role that opens orders, and collections): the order view's
/// "Collections" section.
#[utoipa::path(get, path = "/api/v1/console/collections/{orderNo}/history", tag = "console",
    operation_id = "console_collections_history",
    security(("console_cookie" = [])),
    params(("orderNo" = String, Path)),
    responses((status = 200, body = Envelope<CollectionsHistoryView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: an operator without any role", body = ErrorBody),
        (status = 404, description = "not_found: no such order, or not paid out", body = ErrorBody)))]
pub async fn history(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<CollectionsHistoryView>>, ApiError> {
    let (contacts, promises) =
        collections::history(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(CollectionsHistoryView {
        contacts: contacts.into_iter().map(Into::into).collect(),
        promises: promises.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsContactRequest {
    /// `call`, `sms`, `whatsapp` or `email`; any is refused outside the market's contact hours.
    #[schema(value_type = String, required = true, example = "call")]
    pub channel: Option<String>,
    /// `reached`, `no_answer`, `busy`, `wrong_number`, `refused`, `promised`, `disputed` or `left_message`.
    #[schema(value_type = String, required = true, example = "no_answer")]
    pub outcome: Option<String>,
    /// At most 1000 characters; stored encrypted.
    #[schema(value_type = Option<String>)]
    pub note: Option<String>,
    /// With the outcome `promised` (required then, refused with any other): the date of the promise made, as
    /// `date` of a promise.
    #[schema(value_type = String, example = "2026-12-05")]
    pub promise_date: Option<String>,
    /// With the outcome `promised` (required then, refused with any other): the amount promised in minor units, as
    /// `amount` of a promise.
    #[schema(value_type = i64, example = 250000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub promise_amount: Option<i64>,
    /// When the attempt was made, `HH:MM` of the market's today, not after now (an attempt logged once it ended);
    /// left out, now. The contact hours are checked at it.
    #[schema(value_type = Option<String>, example = "18:45")]
    pub attempted_at: Option<String>,
}

/// Logs a contact attempt with the borrower (collections, admin); audited (`collections.contact`).
#[utoipa::path(post, path = "/api/v1/console/collections/{orderNo}/contacts", tag = "console",
    operation_id = "console_collections_contact",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path)),
    request_body(content((CollectionsContactRequest = "application/json"), (CollectionsContactRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CollectionsContactLoggedView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not collections or admin), csrf_token_invalid or cross_site_request",
            body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the loan is closed", body = ErrorBody),
        (status = 422, description = "validation_failed: `channel` (unknown, or any contact outside the contact \
            hours: `field.contact_hours`), `outcome`, `note`, or with the outcome `promised` `promiseDate` (format, \
            window, a promise still open; or given with another outcome) and `promiseAmount`; `attemptedAt` (not a time \
            of today up to now, or outside the contact hours)", body = ErrorBody)))]
pub async fn contact(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<CollectionsContactRequest>,
) -> Result<Json<Envelope<CollectionsContactLoggedView>>, ApiError> {
    let contact = collections::log_contact(
        &state.services,
        &session.operator,
        &order_no,
        collections::ContactRequest {
            channel: req.channel.as_deref(),
            outcome: req.outcome.as_deref(),
            note: req.note.as_deref(),
            promise_date: req.promise_date.as_deref(),
            promise_amount: req.promise_amount,
            attempted_at: req.attempted_at.as_deref(),
        },
    )
    .await?;
    Ok(Envelope::ok(contact.into()))
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CollectionsPromiseRequest {
    /// `YYYY-MM-DD` in the market's calendar: from today to 30 days ahead.
    #[schema(value_type = String, required = true, example = "2026-12-05")]
    pub date: Option<String>,
    /// Minor units, above zero and at most what the loan owes.
    #[schema(value_type = i64, required = true, example = 250000)]
    #[serde(default, deserialize_with = "crate::http::extract::whole_number")]
    pub amount: Option<i64>,
}

/// Records a promise to pay (collections, admin); one open at a time; audited (`collections.promise`).
#[utoipa::path(post, path = "/api/v1/console/collections/{orderNo}/promises", tag = "console",
    operation_id = "console_collections_promise",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path)),
    request_body(content((CollectionsPromiseRequest = "application/json"), (CollectionsPromiseRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<CollectionsPromiseView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not collections or admin), csrf_token_invalid or cross_site_request",
            body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the loan is closed", body = ErrorBody),
        (status = 422, description = "validation_failed: `date` (format, window, or a promise still open) or `amount`",
            body = ErrorBody)))]
pub async fn promise(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
    JsonOrForm(req): JsonOrForm<CollectionsPromiseRequest>,
) -> Result<Json<Envelope<CollectionsPromiseView>>, ApiError> {
    let promise = collections::promise(
        &state.services,
        &session.operator,
        &order_no,
        req.date.as_deref(),
        req.amount,
    )
    .await?;
    Ok(Envelope::ok(promise.into()))
}

/// The borrower's full phone number.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CollectionsPhoneView {
    /// E.164, e.g. `+919876543210`; null once the account was deleted.
    #[schema(required = true)]
    pub phone: Option<String>,
}

/// The borrower's full phone number to call (collections, admin), for an open loan within the market's contact hours;
/// audited (`view_unmasked`, field `phone`) before it is returned. Only the borrower's own number: never an emergency
/// contact.
#[utoipa::path(post, path = "/api/v1/console/collections/{orderNo}/phone", tag = "console",
    operation_id = "console_collections_phone",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("orderNo" = String, Path)),
    responses((status = 200, body = Envelope<CollectionsPhoneView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not collections or admin), csrf_token_invalid or cross_site_request",
            body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "invalid_transition: the loan is not open (repaid, exited)", body = ErrorBody),
        (status = 422, description = "validation_failed: `phone` outside the market's contact hours", body = ErrorBody)))]
pub async fn phone(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(order_no): Path<String>,
) -> Result<Json<Envelope<CollectionsPhoneView>>, ApiError> {
    let phone = collections::reveal_phone(&state.services, &session.operator, &order_no).await?;
    Ok(Envelope::ok(CollectionsPhoneView { phone }))
}
