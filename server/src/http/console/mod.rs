//! The operators' console API under `/api/v1/console` (PRODUCT.md §6): sign-in with a password, the review queue,
//! orders with the borrower's certification, approve and reject, the audit search, payouts and repayments, and the
//! admins' products and operators. Every handler but `login`
//! takes the [`auth::OperatorSession`] extractor (401 without a live session; 403 `csrf_token_invalid` on an unsafe
//! request without the session's `X-CSRF-Token`) and checks its roles through the capability (403 `forbidden`).

pub mod audit;
pub mod auth;
pub mod collections;
pub mod dashboard;
pub mod operators;
pub mod payments;
pub mod payouts;
pub mod products;
pub mod reconciliation;
pub mod review;
pub mod site;
pub mod support;
pub mod unmatched;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post, put};

use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;

/// A whole number query parameter from 1 to `max` (`page`, `pageSize`): `default` when left out; anything else,
/// empty included, is a field error on `field`.
pub(crate) fn whole_number(
    field: &'static str,
    raw: Option<&str>,
    default: i64,
    max: i64,
    errors: &mut FieldErrors,
) -> i64 {
    let Some(raw) = raw.map(str::trim) else {
        return default;
    };
    match raw.parse::<i64>() {
        Ok(n) if (1..=max).contains(&n) => n,
        _ => {
            errors.add(
                field,
                FieldProblem::new("field.whole_number_range")
                    .with("min", 1)
                    .with("max", max),
            );
            default
        }
    }
}

/// The routes of `/api/v1/console/…`, relative to `/api/v1/console`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", post(auth::login))
        .route("/logout", post(auth::logout))
        .route("/me", get(auth::me))
        .route("/password", post(auth::change_password))
        .route("/applications", get(review::applications))
        .route("/applications/counts", get(review::application_counts))
        .route("/orders/{order_no}", get(review::order))
        .route("/orders/{order_no}/claim", post(review::claim))
        .route("/orders/{order_no}/release", post(review::release))
        .route("/orders/{order_no}/approve", post(review::approve))
        .route("/orders/{order_no}/reject", post(review::reject))
        .route("/audit", get(audit::search))
        .route("/audit/export", get(audit::export))
        .route("/orders/{order_no}/disburse", post(payments::disburse))
        .route("/payouts", get(payments::payouts))
        // A POST: each download puts its orders in the file (a state change), so it carries the CSRF token and the
        // same-origin check, and no link or image can make one.
        .route("/payouts/bank-file", post(payouts::bank_file))
        .route("/payouts/bank-result", post(payouts::bank_result))
        .route("/orders/{order_no}/payout/approve", post(payouts::approve))
        .route("/orders/{order_no}/payout/reject", post(payouts::reject))
        .route("/orders/{order_no}/withdraw", post(payouts::withdraw))
        .route(
            "/orders/{order_no}/payout/put-back",
            post(payouts::put_back),
        )
        .route("/exports", get(payouts::export))
        .route("/dashboard", get(dashboard::dashboard))
        .route("/payments", get(payments::queue))
        .route("/payments/counts", get(payments::queue_counts))
        .route("/payments/export", get(payments::queue_export))
        .route(
            "/reconciliation/mappings",
            get(reconciliation::mappings).post(reconciliation::create_mapping),
        )
        .route(
            "/reconciliation/mappings/{mapping_id}",
            put(reconciliation::update_mapping),
        )
        .route(
            "/reconciliation/preview",
            post(reconciliation::preview)
                .layer(DefaultBodyLimit::max(reconciliation::UPLOAD_BODY_LIMIT)),
        )
        .route(
            "/reconciliation/imports",
            get(reconciliation::imports)
                .post(reconciliation::import)
                .layer(DefaultBodyLimit::max(reconciliation::UPLOAD_BODY_LIMIT)),
        )
        .route(
            "/reconciliation/imports/{import_id}",
            get(reconciliation::import_result),
        )
        .route(
            "/reconciliation/imports/{import_id}/confirm",
            post(reconciliation::confirm),
        )
        .route("/unmatched-receipts", get(unmatched::list))
        .route("/unmatched-receipts/{id}/resolve", post(unmatched::resolve))
        .route("/payments/{payment_id}/confirm", post(payments::confirm))
        .route("/payments/{payment_id}/reject", post(payments::reject))
        .route("/payments/{payment_id}/resolve", post(payments::resolve))
        .route(
            "/payments/{payment_id}/refund",
            post(payments::record_refund),
        )
        .route(
            "/payments/{payment_id}/refund/claim",
            post(payments::claim_refund),
        )
        .route("/products", get(products::list).post(products::create))
        .route("/products/preview", post(products::preview))
        .route("/products/{code}", put(products::edit))
        .route("/products/{code}/disable", post(products::disable))
        .route("/products/{code}/enable", post(products::enable))
        .route("/operators", get(operators::list).post(operators::create))
        .route("/operators/{id}/roles", put(operators::roles))
        .route("/operators/{id}/markets", put(operators::markets))
        .route("/operators/{id}/disable", post(operators::disable))
        .route("/operators/{id}/enable", post(operators::enable))
        .route("/operators/{id}/password", post(operators::password))
        .route("/complaints", get(support::queue))
        .route("/complaints/{ticket_no}", get(support::detail))
        .route("/complaints/{ticket_no}/reply", post(support::reply))
        .route("/complaints/{ticket_no}/close", post(support::close))
        .route("/complaints/{ticket_no}/assign", post(support::assign))
        .route("/complaint-assignees", get(support::assignees))
        .route(
            "/canned-replies",
            get(support::canned_replies).post(support::canned_create),
        )
        .route(
            "/canned-replies/{id}",
            put(support::canned_update).delete(support::canned_delete),
        )
        .route("/complaint-images/{image_id}", get(support::image))
        .route("/contact-messages", get(support::contact_messages))
        .route(
            "/contact-messages/{id}/handled",
            post(support::mark_handled),
        )
        .route("/faq", get(support::faq).post(support::faq_create))
        .route(
            "/faq/{id}",
            put(support::faq_update).delete(support::faq_delete),
        )
        .route("/faq/{id}/move", post(support::faq_move))
        .route("/collections", get(collections::queue))
        .route("/collections/{order_no}", get(collections::case))
        .route("/collections/{order_no}/history", get(collections::history))
        .route(
            "/collections/{order_no}/contacts",
            post(collections::contact),
        )
        .route(
            "/collections/{order_no}/promises",
            post(collections::promise),
        )
        .route("/collections/{order_no}/phone", post(collections::phone))
        .route("/site/claims", get(site::claims))
        .route("/site/claims/{market}", put(site::update_claims))
}
