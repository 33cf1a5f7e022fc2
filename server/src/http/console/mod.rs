//! The operators' console API under `/api/v1/console` (PRODUCT.md §6): sign-in with a password, the review queue,
//! orders with the borrower's certification, approve and reject, the audit search, payouts and repayments, and the
//! admins' products and operators. Every handler but `login`
//! takes the [`auth::OperatorSession`] extractor (401 without a live session; 403 `csrf_token_invalid` on an unsafe
//! request without the session's `X-CSRF-Token`) and checks its roles through the capability (403 `forbidden`).

pub mod auth;
pub mod collections;
pub mod dashboard;
pub mod operators;
pub mod payments;
pub mod products;
pub mod review;
pub mod site;
pub mod support;

use axum::Router;
use axum::routing::{get, post, put};

use crate::http::AppState;

/// The routes of `/api/v1/console/…`, relative to `/api/v1/console`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", post(auth::login))
        .route("/logout", post(auth::logout))
        .route("/me", get(auth::me))
        .route("/applications", get(review::applications))
        .route("/orders/{order_no}", get(review::order))
        .route("/orders/{order_no}/approve", post(review::approve))
        .route("/orders/{order_no}/reject", post(review::reject))
        .route("/audit", get(review::audit))
        .route("/orders/{order_no}/disburse", post(payments::disburse))
        .route("/payouts", get(payments::payouts))
        .route("/dashboard", get(dashboard::dashboard))
        .route("/payments", get(payments::queue))
        .route("/payments/{payment_id}/confirm", post(payments::confirm))
        .route("/payments/{payment_id}/reject", post(payments::reject))
        .route("/payments/{payment_id}/resolve", post(payments::resolve))
        .route(
            "/payments/{payment_id}/refund",
            post(payments::record_refund),
        )
        .route("/products", get(products::list).post(products::create))
        .route("/products/{code}", put(products::edit))
        .route("/products/{code}/disable", post(products::disable))
        .route("/products/{code}/enable", post(products::enable))
        .route("/operators", get(operators::list).post(operators::create))
        .route("/operators/{id}/roles", put(operators::roles))
        .route("/operators/{id}/disable", post(operators::disable))
        .route("/operators/{id}/enable", post(operators::enable))
        .route("/operators/{id}/password", post(operators::password))
        .route("/complaints", get(support::queue))
        .route("/complaints/{ticket_no}", get(support::detail))
        .route("/complaints/{ticket_no}/reply", post(support::reply))
        .route("/complaints/{ticket_no}/close", post(support::close))
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
