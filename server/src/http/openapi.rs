//! The OpenAPI document, generated from the handlers' annotations.

use utoipa::OpenApi;

use super::error::ErrorBody;
use super::{borrower, certification, loans, orders, site};
use crate::settings::{GrievanceOfficer, PublicSiteSettings};

#[derive(OpenApi)]
#[openapi(
    info(title = "Kilat API", version = "1", description = "JSON under /api/v1; every answer is the envelope of PRODUCT.md §4."),
    paths(
        site::settings,
        site::create_contact_message,
        borrower::login_init,
        borrower::send_sms_code,
        borrower::send_voice_code,
        borrower::login,
        borrower::logout,
        borrower::me,
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
        orders::agreement
    ),
    components(schemas(ErrorBody, PublicSiteSettings, GrievanceOfficer, site::ContactMessageRequest, site::ContactMessageCreated)),
    tags(
        (name = "site", description = "The public marketing site"),
        (name = "borrower", description = "The borrower app: sign-in, certification, applying and orders (docs/API-BORROWER.md)")
    )
)]
pub struct ApiDoc;

/// The document as pretty JSON with a trailing newline, exactly as committed in `web/src/shared/api/openapi.json`.
pub fn document() -> String {
    let mut json = ApiDoc::openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serializes");
    json.push('\n');
    json
}
