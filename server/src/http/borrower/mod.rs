//! The borrower app's API (docs/API-BORROWER.md): sign-in, certification and its reference data, products and
//! quotes, applying, confirming, and the borrower's orders. Each handler extracts, calls one capability, and answers.

pub mod account;
pub mod auth;
pub mod certification;
pub mod loans;
pub mod orders;
pub mod servicing;
pub mod support;
pub mod telemetry;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use crate::http::AppState;

/// The routes of `/api/v1/borrower/…`, relative to `/api/v1`.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/borrower/login/init", get(auth::login_init))
        .route("/borrower/login/sms-code", post(auth::send_sms_code))
        .route("/borrower/login/voice-code", post(auth::send_voice_code))
        .route("/borrower/login", post(auth::login))
        .route("/borrower/logout", post(auth::logout))
        .route("/borrower/me", get(auth::me))
        .route("/borrower/session/handover", post(auth::handover))
        .route("/borrower/session/exchange", post(auth::exchange_handover))
        .route(
            "/borrower/verification-code",
            post(auth::send_verification_code),
        )
        .route("/borrower/menu", get(account::menu))
        .route(
            "/borrower/account/deletion",
            get(account::deletion_check).post(account::delete),
        )
        .route("/borrower/export", get(account::export))
        .route(
            "/borrower/orders/{order_no}/documents/kfs.pdf",
            get(account::kfs_pdf),
        )
        .route(
            "/borrower/orders/{order_no}/documents/agreement.pdf",
            get(account::agreement_pdf),
        )
        .route(
            "/borrower/orders/{order_no}/documents/no-dues.pdf",
            get(account::no_dues_pdf),
        )
        .route("/borrower/products", get(loans::list))
        .route("/borrower/products/recommended", get(orders::recommended))
        .route("/borrower/products/{code}", get(loans::detail))
        .route("/borrower/quote", post(loans::quote))
        .route("/borrower/enums", get(certification::enums))
        .route("/borrower/cities", get(certification::cities))
        .route("/borrower/privacy", get(certification::privacy))
        .route("/borrower/certification", get(certification::list))
        .route("/borrower/certification/log", get(certification::log))
        .route(
            "/borrower/certification/{step}",
            get(certification::read_step).post(certification::save_step),
        )
        .route("/borrower/home", get(orders::home))
        .route("/borrower/apply", post(orders::apply))
        .route("/borrower/apply/agreement", post(orders::apply_agreement))
        .route("/borrower/orders", get(orders::list).post(orders::confirm))
        .route("/borrower/orders/{order_no}", get(orders::detail))
        .route(
            "/borrower/orders/{order_no}/agreement",
            get(orders::agreement),
        )
        .route("/borrower/orders/{order_no}/cancel", post(orders::cancel))
        .route("/borrower/orders/{order_no}/plan", get(servicing::plan))
        .route(
            "/borrower/orders/{order_no}/plan/{seq}",
            get(servicing::plan_installment),
        )
        .route(
            "/borrower/orders/{order_no}/repayment",
            get(servicing::repayment),
        )
        .route(
            "/borrower/orders/{order_no}/payments",
            get(servicing::loan_payments).post(servicing::create_payment),
        )
        .route(
            "/borrower/orders/{order_no}/extension",
            get(servicing::extension).post(servicing::accept_extension),
        )
        .route("/borrower/orders/{order_no}/rating", post(servicing::rate))
        .route("/borrower/payment-types", get(servicing::payment_types))
        .route("/borrower/payments/{payment_id}", get(servicing::payment))
        .route(
            "/borrower/payments/{payment_id}/utr",
            post(servicing::submit_utr).put(servicing::correct_utr),
        )
        .route("/borrower/customer-service", get(support::customer_service))
        .route("/borrower/faq", get(support::faq))
        .route(
            "/borrower/complaints",
            get(support::list).post(support::save),
        )
        .route("/borrower/complaints/init", get(support::init))
        .route(
            "/borrower/complaints/images",
            get(support::waiting_images)
                .post(support::upload_image)
                .layer(DefaultBodyLimit::max(
                    crate::support::images::MAX_IMAGE_BYTES,
                )),
        )
        .route(
            "/borrower/complaints/images/{image_id}",
            get(support::image).delete(support::delete_image),
        )
        .route("/borrower/complaints/{ticket_no}", get(support::detail))
        .route(
            "/borrower/complaints/{ticket_no}/score",
            post(support::score),
        )
        .route(
            "/borrower/complaints/{ticket_no}/replies",
            post(support::reply),
        )
        .merge(telemetry_routes())
}

/// The app's telemetry, each call under its own body limit.
fn telemetry_routes() -> Router<AppState> {
    Router::new()
        .route(
            "/borrower/telemetry/buried-points",
            post(telemetry::buried_points),
        )
        .route("/borrower/telemetry/events", post(telemetry::event))
        .route("/borrower/telemetry/errors", post(telemetry::error_info))
        .route(
            "/borrower/device",
            post(telemetry::device).delete(telemetry::forget_device),
        )
        .route("/borrower/device-token", post(telemetry::device_token))
        .route(
            "/borrower/location",
            get(telemetry::location_status)
                .post(telemetry::save_location)
                .delete(telemetry::withdraw_location),
        )
        .route("/borrower/app-rating", post(telemetry::app_rating))
        .layer(DefaultBodyLimit::max(telemetry::BODY_LIMIT))
}
