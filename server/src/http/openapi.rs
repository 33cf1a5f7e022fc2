//! The OpenAPI document, generated from the handlers' annotations.
//!
//! Each operation's annotation lists the answers particular to it (401, 404, 409, 422, 429, 502). [`CommonErrors`]
//! adds the ones that follow from how a request is read, so no annotation can forget them: 500 on every operation,
//! and 400 (unreadable body), 413 (over the body limit) and 415 (neither JSON nor form-encoded) on every operation
//! with a body. The borrower's session is the `session_header` or `session_cookie` scheme.

use serde::Serialize;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::openapi::{Components, ContentBuilder, Ref, ResponseBuilder};
use utoipa::{Modify, OpenApi, ToSchema};

use super::borrower::auth::SESSION_COOKIE;
use super::borrower::{
    account, auth as borrower, certification, loans, orders, servicing,
    support as borrower_support, telemetry,
};
use super::console::auth::CONSOLE_COOKIE;
use super::console::{
    audit as console_audit, auth as console, collections as console_collections, dashboard,
    operators, payments, payouts, products, reconciliation, review, site as console_site,
    support as console_support, unmatched,
};
use super::error::ErrorBody;
use super::site;
use super::webhooks;
use crate::settings::{GrievanceOfficer, PublicSiteSettings};

#[derive(OpenApi)]
#[openapi(
    info(title = "Kilat API", version = "1", description = "JSON under /api/v1; every answer is the envelope of PRODUCT.md §4. Amounts are integers in minor units (paise, sen), APRs integers in hundredths of a percent, times epoch milliseconds."),
    paths(
        site::settings,
        site::create_contact_message,
        borrower::login_init,
        borrower::send_sms_code,
        borrower::send_voice_code,
        borrower::login,
        borrower::logout,
        borrower::me,
        borrower::send_verification_code,
        borrower::handover,
        borrower::exchange_handover,
        account::menu,
        account::deletion_check,
        account::delete,
        account::export,
        account::kfs_pdf,
        account::agreement_pdf,
        account::no_dues_pdf,
        loans::list,
        loans::detail,
        loans::quote,
        certification::enums,
        certification::cities,
        certification::privacy,
        certification::list,
        certification::log,
        certification::read_step,
        certification::save_step,
        orders::home,
        orders::recommended,
        orders::apply,
        orders::confirm,
        orders::list,
        orders::detail,
        orders::agreement,
        orders::apply_agreement,
        orders::cancel,
        console::login,
        console::logout,
        console::me,
        console::change_password,
        review::applications,
        review::application_counts,
        review::claim,
        review::release,
        review::order,
        review::approve,
        review::reject,
        console_audit::search,
        console_audit::export,
        servicing::plan,
        servicing::plan_installment,
        servicing::repayment,
        servicing::payment_types,
        servicing::create_payment,
        servicing::payment,
        servicing::loan_payments,
        servicing::submit_utr,
        servicing::correct_utr,
        servicing::extension,
        servicing::accept_extension,
        servicing::rate,
        telemetry::buried_points,
        telemetry::event,
        telemetry::error_info,
        telemetry::device,
        telemetry::forget_device,
        telemetry::device_token,
        telemetry::save_location,
        telemetry::location_status,
        telemetry::withdraw_location,
        telemetry::app_rating,
        payments::disburse,
        payments::queue,
        payments::queue_counts,
        payments::queue_export,
        reconciliation::mappings,
        reconciliation::create_mapping,
        reconciliation::update_mapping,
        reconciliation::preview,
        reconciliation::import,
        reconciliation::imports,
        reconciliation::import_result,
        reconciliation::confirm,
        unmatched::list,
        unmatched::resolve,
        payments::confirm,
        payments::reject,
        payments::resolve,
        payments::record_refund,
        payments::claim_refund,
        payments::payouts,
        payouts::bank_file,
        payouts::bank_result,
        payouts::approve,
        payouts::put_back,
        payouts::reject,
        payouts::withdraw,
        payouts::export,
        products::list,
        products::create,
        products::preview,
        products::edit,
        products::disable,
        products::enable,
        operators::list,
        operators::create,
        operators::roles,
        operators::disable,
        operators::enable,
        operators::password,
        operators::markets,
        dashboard::dashboard,
        borrower_support::customer_service,
        borrower_support::faq,
        borrower_support::init,
        borrower_support::upload_image,
        borrower_support::waiting_images,
        borrower_support::delete_image,
        borrower_support::image,
        borrower_support::save,
        borrower_support::list,
        borrower_support::detail,
        borrower_support::score,
        borrower_support::reply,
        console_support::queue,
        console_support::detail,
        console_support::reply,
        console_support::close,
        console_support::assign,
        console_support::assignees,
        console_support::canned_replies,
        console_support::canned_create,
        console_support::canned_update,
        console_support::canned_delete,
        console_support::image,
        console_support::contact_messages,
        console_support::mark_handled,
        console_support::faq,
        console_support::faq_create,
        console_support::faq_update,
        console_support::faq_delete,
        console_support::faq_move,
        console_site::claims,
        console_site::update_claims,
        console_collections::queue,
        console_collections::case,
        console_collections::history,
        console_collections::contact,
        console_collections::promise,
        console_collections::phone,
        webhooks::razorpay,
        webhooks::xendit_va_paid,
        webhooks::dragonpay_postback,
        webhooks::dragonpay_postback_get
    ),
    components(schemas(ErrorBody, ErrorCode, PublicSiteSettings, GrievanceOfficer, site::ContactMessageRequest, site::ContactMessageCreated)),
    modifiers(&SessionSchemes, &CommonErrors),
    tags(
        (name = "site", description = "The public marketing site"),
        (name = "borrower", description = "The borrower app: sign-in, certification, applying and orders (docs/API-BORROWER.md)"),
        (name = "console", description = "The operators' console: sign-in, the review queue, orders, decisions and the audit trail (PRODUCT.md §6)"),
        (name = "webhooks", description = "Payment providers' callbacks, verified by their signatures (docs/API-WEBHOOKS.md)")
    )
)]
pub struct ApiDoc;

/// The stable `code` of an error answer (docs/API-BORROWER.md); `msg` is its text in the request's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// 400: the body could not be read (`fields.body` says why).
    BadRequest,
    /// 400: the sign-in code is wrong.
    CodeInvalid,
    /// 400: no valid code: none sent, used, or expired.
    CodeExpired,
    /// 401: no session, or an expired one.
    Unauthorized,
    /// 403: the borrower's income is below the market's minimum.
    NotEligible,
    /// 404.
    NotFound,
    /// 405.
    MethodNotAllowed,
    /// 409: a certification step saved before the steps ahead of it.
    CertificationOutOfOrder,
    /// 409: applying before the five steps are done.
    CertificationIncomplete,
    /// 409: applying while another order is open.
    OpenOrderExists,
    /// 409: the KFS accepted is not the one the server computes now.
    KfsChanged,
    /// 409: an idempotency key reused for another application.
    IdempotencyKeyReused,
    /// 413.
    PayloadTooLarge,
    /// 415: neither JSON nor form-encoded.
    UnsupportedMediaType,
    /// 422: `fields` names each field at fault.
    ValidationFailed,
    /// 422: the loan would cost more than the market's cap allows.
    CapExceeded,
    /// 429: too many requests from this address.
    RateLimited,
    /// 429: a code was just sent to this phone (`Retry-After`).
    CodeResendTooSoon,
    /// 429: the phone's codes for today are used up.
    DailyLimitReached,
    /// 429: too many wrong tries of one code.
    CodeAttemptsExceeded,
    /// 403: an unsafe request a browser sent for another site's page.
    CrossSiteRequest,
    /// 409: the order's state does not accept this change.
    InvalidTransition,
    /// 500.
    Internal,
    /// 502: the SMS or voice provider failed.
    CodeDeliveryFailed,
    /// 401: an operator's username or password is wrong.
    CredentialsInvalid,
    /// 429: too many wrong passwords; the operator's account is locked (`Retry-After`).
    OperatorLocked,
    /// 403: the operator's roles do not allow this.
    Forbidden,
    /// 403: an unsafe console request without its session's `X-CSRF-Token`.
    CsrfTokenInvalid,
    /// 409: the loan does not offer this repayment choice now.
    ChoiceUnavailable,
    /// 409: the payment is not in a state that takes this step.
    PaymentNotOpen,
    /// 409: a held payment whose money a provider reported is credited or refunded, never rejected.
    MoneyReported,
    /// 409: the UTR was already submitted, for this or another payment.
    UtrAlreadyUsed,
    /// 409: finance has already confirmed or rejected the payment, so its UTR can no longer be corrected.
    UtrLocked,
    /// 409: the payment's UTR was corrected as many times as allowed.
    UtrCorrectionsExhausted,
    /// 409: the order (or the complaint's answer) was rated already.
    AlreadyRated,
    /// 409: an admin disabling themself or dropping their own admin role.
    OwnAdminAccount,
    /// 409: the change would leave no enabled admin.
    LastAdmin,
    /// 503: the payment provider is down or slow; nothing was stored, the request can be retried.
    ProviderUnavailable,
    /// 409: the complaint has no answer to rate yet.
    ComplaintNotAnswered,
    /// 409: the complaint is closed.
    ComplaintClosed,
    /// 409: closing a complaint whose borrower's last message has no answer yet.
    ComplaintUnanswered,
    /// 409: sending or recording a refund another finance operator is sending (take it over deliberately).
    RefundClaimed,
    /// 409: resolving money no payment matched that another finance operator resolved already.
    ReceiptResolved,
    /// 409: taking back a credit the ledger cannot take back itself (the loan is closed, money was owed back on the
    /// payment, only part was taken back, or nothing of it is credited): settle it by hand and say how.
    CreditNotTakenBack,
    /// 409: deleting the account while a loan still owes money (`msg` states the amount).
    MoneyOutstanding,
    /// 409: deleting the account while a payment is unsettled (a UTR waiting for finance, money held or owed back).
    PaymentUnsettled,
    /// 409: cancelling an approved order finance has put in a bank file: its money may be on its way.
    PayoutSent,
    /// 409: buying an extension while a payment of the loan waits for finance (a UTR being checked, an amount held).
    PaymentWaiting,
    /// 409: editing a product from a version another admin replaced since (`baseVersion` is not the current one).
    ProductChanged,
    /// 409: crediting or refunding money a provider reported in another currency than the payment's: it goes back
    /// through the provider, and the payment is rejected.
    OtherCurrency,
    /// 409: the product offers an extension, but with its fee this loan would cost more than an OJK cap allows
    /// (`msg` names the cost and the cap's limit).
    ExtensionOverCap,
    /// 400: the session hand-over code is unknown, used, expired, or its session has ended.
    HandoverInvalid,
    /// 403: a hand-over code asked for by a browser session; only the native shell (`X-Session-Id`) hands over.
    HandoverNotAllowed,
    /// 403: a finance operator approving or rejecting the payout they recorded themself (maker-checker).
    OwnPayoutApproval,
    /// 409: no payout is recorded and waiting for approval on this order.
    PayoutNotAwaiting,
    /// 409: the order's payout is already recorded and waits for a second finance operator's approval.
    PayoutAwaitingApproval,
    /// 409: a hand-over into a browser signed in as another borrower, which keeps its own session.
    SignedInAsAnother,
    /// 503: the server is already decoding as many images, or checking as many passwords, as it allows at once;
    /// nothing was done: try again after `Retry-After` seconds.
    ServerBusy,
    /// 409: another reviewer holds a live claim on the application (claiming, releasing or deciding it).
    ApplicationClaimed,
    /// 409: the no-dues certificate of a loan that is not closed (not yet paid out, or still owing).
    LoanNotClosed,
    /// 403: an operator signed in with a password an admin set, asking for anything but `me`, `logout` or their own
    /// password change (`POST /console/password`): they choose their own first.
    PasswordChangeRequired,
}

/// `X-Session-Id` for the native shell, the `kilat_session` HttpOnly cookie for browsers (PRODUCT.md §4); the
/// console's `kilat_console` cookie with its `X-CSRF-Token`.
struct SessionSchemes;

impl Modify for SessionSchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Components::new);
        components.add_security_scheme(
            "session_header",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Session-Id",
                "The `sessionId` of `POST /borrower/login` (the native shell); read only when the request has no `kilat_session` cookie.",
            ))),
        );
        components.add_security_scheme(
            "session_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                SESSION_COOKIE,
                "The HttpOnly cookie `POST /borrower/login` or `POST /borrower/session/exchange` sets (browsers); when a request carries it, it is the session, whatever `X-Session-Id` says.",
            ))),
        );
        components.add_security_scheme(
            "console_cookie",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                CONSOLE_COOKIE,
                "The HttpOnly, SameSite=Strict cookie `POST /console/login` sets; a session lives 12 hours.",
            ))),
        );
        components.add_security_scheme(
            "csrf_header",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-CSRF-Token",
                "The `csrfToken` of `POST /console/login`, required on every unsafe console request.",
            ))),
        );
    }
}

/// The error answers every operation, or every operation with a body, can give.
struct CommonErrors;

impl Modify for CommonErrors {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let error = |description: &str| {
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build()
        };
        for item in openapi.paths.paths.values_mut() {
            for operation in [
                &mut item.get,
                &mut item.post,
                &mut item.put,
                &mut item.patch,
                &mut item.delete,
            ]
            .into_iter()
            .flatten()
            {
                let responses = &mut operation.responses.responses;
                let mut add = |status: &str, description: &str| {
                    responses
                        .entry(status.to_owned())
                        .or_insert_with(|| error(description).into());
                };
                let has_query =
                    operation.parameters.iter().flatten().any(|p| {
                        matches!(p.parameter_in, utoipa::openapi::path::ParameterIn::Query)
                    });
                if has_query {
                    add("400", "bad_request: the query string could not be read");
                }
                if operation.request_body.is_some() {
                    add("400", "bad_request: the body could not be read");
                    add("413", "payload_too_large: the body is over the limit");
                    add(
                        "415",
                        "unsupported_media_type: neither JSON nor form-encoded",
                    );
                }
                add("500", "internal");
            }
        }
    }
}

/// The document as pretty JSON with a trailing newline, exactly as committed in `web/src/shared/api/openapi.json`.
pub fn document() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    json.push('\n');
    json
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `ErrorCode` enum of the document names exactly the codes the server can answer with
    /// (`crate::error::ERROR_CODES`, whose texts the catalogs hold).
    #[test]
    fn the_documented_error_codes_are_the_ones_the_server_sends() {
        let doc = serde_json::to_value(ApiDoc::openapi()).unwrap();
        let documented: std::collections::BTreeSet<String> =
            doc["components"]["schemas"]["ErrorCode"]["enum"]
                .as_array()
                .expect("ErrorCode is an enum")
                .iter()
                .map(|v| v.as_str().unwrap().to_owned())
                .collect();
        let sent: std::collections::BTreeSet<String> = crate::error::ERROR_CODES
            .iter()
            .map(|c| (*c).to_owned())
            .collect();
        assert_eq!(documented, sent);
    }
}
