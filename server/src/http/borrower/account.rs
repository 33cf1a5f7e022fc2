//! The borrower's account (docs/ACCOUNT.md): the "me" menu, deleting the account, the data export, and each loan's
//! documents as PDF. Each handler extracts, calls one capability, and answers.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::auth::{Session, session_cookie};
use crate::account::documents::{self, Document};
use crate::account::{self, AccountDeleted, DataExport, DeletionCheck, MenuEntry};
use crate::http::AppState;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::i18n::Lang;

/// The entries of the app's "me" screen, in order, in the request's language.
#[utoipa::path(get, path = "/api/v1/borrower/menu", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "menu",
    responses((status = 200, body = Envelope<Vec<MenuEntry>>), (status = 401, body = ErrorBody)))]
pub async fn menu(lang: Lang, _session: Session) -> Json<Envelope<Vec<MenuEntry>>> {
    Envelope::ok(account::menu(lang))
}

/// Whether the account can be deleted now; if not, why, and the amount still owed (from the money engine).
#[utoipa::path(get, path = "/api/v1/borrower/account/deletion", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "account_deletion_check",
    responses((status = 200, body = Envelope<DeletionCheck>), (status = 401, body = ErrorBody)))]
pub async fn deletion_check(
    State(state): State<AppState>,
    session: Session,
) -> Result<Json<Envelope<DeletionCheck>>, ApiError> {
    let check = account::deletion_check(&state.services, &session.borrower).await?;
    Ok(Envelope::ok(check))
}

/// Deletes the account: every session ends (this one too: the cookie is cleared), personal data is erased, loan
/// records are kept under a pseudonymous id. Refused while a loan owes money (`409 money_outstanding`, the amount
/// in `msg`), an application is open (`409 open_order_exists`), or a payment is unsettled: a UTR finance has still
/// to check, money held or owed back to the borrower, or payment instructions a provider still takes money for
/// (`409 payment_unsettled`).
#[utoipa::path(post, path = "/api/v1/borrower/account/deletion", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "delete_account",
    responses((status = 200, description = "Deleted", body = Envelope<AccountDeleted>), (status = 401, body = ErrorBody),
        (status = 409, description = "money_outstanding, open_order_exists or payment_unsettled", body = ErrorBody)))]
pub async fn delete(State(state): State<AppState>, session: Session) -> Result<Response, ApiError> {
    let deleted = account::delete(&state.services, &session.borrower).await?;
    let cookie = session_cookie("", 0, state.secure_cookies);
    Ok(([(header::SET_COOKIE, cookie)], Envelope::ok(deleted)).into_response())
}

/// Everything the product holds about the borrower, decrypted for them, as JSON (a download). At most
/// [`account::EXPORTS_PER_HOUR`] in an hour per borrower, across every server.
#[utoipa::path(get, path = "/api/v1/borrower/export", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "data_export",
    responses((status = 200, body = Envelope<DataExport>), (status = 401, body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody)))]
pub async fn export(State(state): State<AppState>, session: Session) -> Result<Response, ApiError> {
    let export = account::export(&state.services, &session.borrower).await?;
    let disposition = HeaderValue::from_static("attachment; filename=\"kilat-data.json\"");
    Ok((
        [(header::CONTENT_DISPOSITION, disposition)],
        Envelope::ok(export),
    )
        .into_response())
}

fn pdf_response(bytes: Vec<u8>, file_name: &str) -> Response {
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{file_name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/pdf"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response()
}

async fn document(
    state: &AppState,
    session: &Session,
    order_no: &str,
    document: Document,
) -> Result<Response, ApiError> {
    let bytes = documents::render(&state.services, &session.borrower, order_no, document).await?;
    let lang = Lang::of_market(session.borrower.market);
    Ok(pdf_response(bytes, &document.file_name(order_no, lang)))
}

/// The Key Fact Statement the borrower accepted for this order, as a PDF in the language of the borrower's market.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/documents/kfs.pdf", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "order_kfs_pdf",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 429, description = "rate_limited: 60 documents an hour", body = ErrorBody),
        (status = 503, description = "server_busy: documents are rendered a bounded number at once", body = ErrorBody)))]
pub async fn kfs_pdf(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Response, ApiError> {
    document(&state, &session, &order_no, Document::Kfs).await
}

/// The loan agreement frozen with this order, as a PDF in the language of the borrower's market.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/documents/agreement.pdf", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "order_agreement_pdf",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 429, description = "rate_limited: 60 documents an hour", body = ErrorBody),
        (status = 503, description = "server_busy: documents are rendered a bounded number at once", body = ErrorBody)))]
pub async fn agreement_pdf(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Response, ApiError> {
    document(&state, &session, &order_no, Document::Agreement).await
}

/// The no-dues certificate (India) / surat keterangan lunas (Indonesia) of a closed loan, as a PDF in the language of
/// the borrower's market: the lender, the borrower (ID masked), the loan, what was paid and the day it closed. Only the owner's
/// loan (another's is not found); `409 loan_not_closed` until it is repaid or ended in its cooling-off period.
#[utoipa::path(get, path = "/api/v1/borrower/orders/{orderNo}/documents/no-dues.pdf", tag = "borrower",
    security(("session_header" = []), ("session_cookie" = [])), operation_id = "order_no_dues_pdf",
    params(("orderNo" = String, Path, description = "E.g. KL-261123-7F3K9Q")),
    responses((status = 200, description = "The PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, description = "loan_not_closed: not paid out yet, or still owing", body = ErrorBody),
        (status = 429, description = "rate_limited: 60 documents an hour", body = ErrorBody),
        (status = 503, description = "server_busy: documents are rendered a bounded number at once", body = ErrorBody)))]
pub async fn no_dues_pdf(
    State(state): State<AppState>,
    session: Session,
    Path(order_no): Path<String>,
) -> Result<Response, ApiError> {
    document(&state, &session, &order_no, Document::NoDues).await
}
