//! The marketing site's API: public settings and the contact form.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use kilat_domain::Market;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::borrower::auth::require_market;
use super::error::{ApiError, Envelope, ErrorBody};
use super::extract::{ApiQuery, ClientAddr, JsonOrForm};
use crate::error::{FieldErrors, FieldProblem};
use crate::http::AppState;
use crate::settings::{PublicSiteSettings, market_schema};
use crate::store::contact_messages::NewContactMessage;
use crate::support;

/// `?market=`: whose company the settings carry.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SiteSettingsQuery {
    /// `IN` (India) or `ID` (Indonesia). Without it, Indonesia: India only when asked, as with the pages' `lang=1`.
    #[param(schema_with = market_schema)]
    pub market: Option<String>,
}

/// The public settings of one market (PRODUCT.md §2, §5).
///
/// The brand and that market's company. Each page carries the same answer for its own market, so a client that
/// hydrates from the page matches this exactly.
#[utoipa::path(
    get,
    path = "/api/v1/site/settings",
    tag = "site",
    params(SiteSettingsQuery),
    responses(
        (status = 200, description = "The market's public site settings", body = Envelope<PublicSiteSettings>),
        (status = 422, description = "`market` is neither `IN` nor `ID`", body = ErrorBody),
    )
)]
pub async fn settings(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<SiteSettingsQuery>,
) -> Result<Json<Envelope<PublicSiteSettings>>, ApiError> {
    // Absent means Indonesia, as a page without `lang=1` is; present, it must name a market (`?market=` is a 422).
    let market = match query.market.as_deref() {
        None => Market::Indonesia,
        code => require_market(code)?,
    };
    Ok(Envelope::ok(crate::claims::public(
        &state.services,
        &state.claims,
        market,
    )))
}

/// A contact-form message as sent by the site (JSON or form-encoded). SPEC.md §3 names all five fields; the form
/// shows name, telephone and message.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ContactMessageRequest {
    /// Required; at most 100 characters after trimming.
    #[schema(value_type = String, required = true, example = "Asha Verma")]
    pub name: Option<String>,
    /// Required; at most 32 characters; no format check (SPEC.md §5).
    #[schema(value_type = String, required = true, example = "98450 01234")]
    pub telephone: Option<String>,
    /// Required; at most 2000 characters.
    #[schema(value_type = String, required = true, example = "Please call me about a loan.")]
    pub message: Option<String>,
    /// Optional; one plain address (`name@example.com`: letters, digits, `.`, `_`, `+`, `-`), at most 254 characters.
    pub email: Option<String>,
    /// Optional; at most 200 characters.
    pub company: Option<String>,
    /// Optional (absent or null: not given): the market of the site the form is on (`IN` or `ID`), shown to support
    /// with the phone number.
    #[schema(value_type = Option<Market>)]
    pub market: Option<String>,
    /// Leave it out or empty: a field the site's form hides from people ("leave this empty"), which only a program
    /// filling every field fills. A message with it filled is answered like any other and kept nowhere.
    pub website: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContactMessageCreated {
    pub id: String,
    /// Epoch milliseconds.
    pub created_at: i64,
}

/// A message that passed validation, before it gets an address and a time.
struct ValidContactMessage {
    name: String,
    telephone: String,
    message: String,
    email: Option<String>,
    company: Option<String>,
    market: Option<Market>,
}

impl TryFrom<ContactMessageRequest> for ValidContactMessage {
    type Error = FieldErrors;

    fn try_from(req: ContactMessageRequest) -> Result<Self, Self::Error> {
        let mut errors = FieldErrors::default();
        let mut required = |field: &'static str, value: Option<String>, max: usize| {
            let value = value.map(|v| v.trim().to_owned()).unwrap_or_default();
            if value.is_empty() {
                errors.add(field, FieldProblem::required());
            } else if value.chars().count() > max {
                errors.add(field, FieldProblem::too_long(max));
            }
            value
        };
        let name = required("name", req.name, 100);
        let telephone = required("telephone", req.telephone, 32);
        let message = required("message", req.message, 2000);
        let mut optional = |field: &'static str, value: Option<String>, max: usize| {
            let value = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
            if value.as_ref().is_some_and(|v| v.chars().count() > max) {
                errors.add(field, FieldProblem::too_long(max));
            }
            value
        };
        let email = optional("email", req.email, 254);
        let company = optional("company", req.company, 200);
        // An address, nothing more: support replies to it with a `mailto:` link, which would read `?bcc=…&body=…`
        // or a second address after a comma as its own.
        if email.as_deref().is_some_and(|e| !plain_email(e)) {
            errors.add("email", FieldProblem::new("field.email"));
        }
        // Left out, the message keeps no market; given, it must name one.
        let market = match req.market.as_deref().map(str::trim) {
            None => None,
            code => match require_market(code) {
                Ok(market) => Some(market),
                Err(problems) => {
                    errors.merge(problems);
                    None
                }
            },
        };
        if errors.is_empty() {
            Ok(Self {
                name,
                telephone,
                message,
                email,
                company,
                market,
            })
        } else {
            Err(errors)
        }
    }
}

/// Stores a message from the contact form for the company to answer.
#[utoipa::path(
    post,
    path = "/api/v1/site/contact-messages",
    tag = "site",
    request_body(
        content(
            (ContactMessageRequest = "application/json"),
            (ContactMessageRequest = "application/x-www-form-urlencoded")
        )
    ),
    responses(
        (status = 201, description = "Stored", body = Envelope<ContactMessageCreated>),
        (status = 400, description = "The body could not be read", body = ErrorBody),
        (status = 413, description = "The body is over 16 KiB", body = ErrorBody),
        (status = 415, description = "Neither JSON nor form-encoded", body = ErrorBody),
        (status = 422, description = "A field is missing or too long; `fields` names each", body = ErrorBody),
        (status = 429, description = "Too many messages from this address in a minute", body = ErrorBody),
    )
)]
pub async fn create_contact_message(
    State(state): State<AppState>,
    ClientAddr(client): ClientAddr,
    JsonOrForm(req): JsonOrForm<ContactMessageRequest>,
) -> Result<(StatusCode, Json<Envelope<ContactMessageCreated>>), ApiError> {
    let trapped = req.website.as_deref().is_some_and(|w| !w.trim().is_empty());
    let valid = ValidContactMessage::try_from(req)?;
    if trapped {
        // The hidden field a person never sees, filled: a program sent it. A valid message is told it was taken, so
        // the program learns nothing; it is kept nowhere.
        let (id, created_at) =
            support::ignore_contact_message(&state.services, &client.to_string()).await?;
        return Ok((
            StatusCode::CREATED,
            Envelope::ok(ContactMessageCreated { id, created_at }),
        ));
    }
    let stored = support::leave_contact_message(
        &state.services,
        NewContactMessage {
            name: valid.name,
            telephone: valid.telephone,
            message: valid.message,
            email: valid.email,
            company: valid.company,
            client_addr: client.to_string(),
            market: valid.market.map(|m| kilat_domain::Code::code(m).to_owned()),
        },
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Envelope::ok(ContactMessageCreated {
            id: stored.id,
            created_at: stored.created_at,
        }),
    ))
}

/// One plain address: a local part and a domain with a dot, of letters, digits and `.`, `_`, `+`, `-` only (no
/// spaces, commas, quotes, `?`, `&` or `%`, which a `mailto:` link would read as more than the address).
fn plain_email(text: &str) -> bool {
    let ok = |part: &str, extra: &[char]| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_alphanumeric() || c == '.' || c == '-' || extra.contains(&c))
    };
    match text.split_once('@') {
        Some((local, domain)) => {
            ok(local, &['_', '+'])
                && ok(domain, &[])
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(name: &str, telephone: &str, message: &str) -> ContactMessageRequest {
        ContactMessageRequest {
            name: Some(name.into()),
            telephone: Some(telephone.into()),
            message: Some(message.into()),
            email: None,
            company: Some("  ".into()),
            market: None,
            website: None,
        }
    }

    #[test]
    fn a_complete_message_is_trimmed_and_blank_optionals_become_none() {
        let valid =
            ValidContactMessage::try_from(request("  Asha ", " 98450 01234", "Hi\n")).unwrap();
        assert_eq!(
            (
                valid.name.as_str(),
                valid.telephone.as_str(),
                valid.message.as_str()
            ),
            ("Asha", "98450 01234", "Hi")
        );
        assert_eq!(valid.company, None);
    }

    #[test]
    fn whitespace_counts_as_missing_and_every_field_at_fault_is_named() {
        let errors = ValidContactMessage::try_from(request(" ", "", "\t"))
            .err()
            .unwrap();
        let names: Vec<_> = errors.fields().map(|(name, _)| name).collect();
        assert_eq!(names, ["message", "name", "telephone"]);
    }

    #[test]
    fn length_is_counted_in_characters_not_bytes() {
        let hundred_rupees = "₹".repeat(100);
        assert!(ValidContactMessage::try_from(request(&hundred_rupees, "1", "m")).is_ok());
        let errors =
            ValidContactMessage::try_from(request(&format!("{hundred_rupees}₹"), "1", "m"))
                .err()
                .unwrap();
        assert_eq!(errors.get("name"), Some(&FieldProblem::too_long(100)));
    }
}
