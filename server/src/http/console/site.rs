//! The admins' "Site" screen (docs/API-CONSOLE.md): each market's claims as the site shows them, and their edit.

use axum::Json;
use axum::extract::{Path, State};
use kilat_domain::{Code, Market};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::auth::OperatorSession;
use crate::claims::{self, ClaimsRequest};
use crate::http::AppState;
use crate::http::borrower::auth::require_market;
use crate::http::error::{ApiError, Envelope, ErrorBody};
use crate::http::extract::JsonOrForm;
use crate::store::site_claims::StoredClaims;

/// One market's claims: the sentences its site shows; an empty one is withdrawn (not shown).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteClaimsView {
    pub market: Market,
    /// The payout-speed claim ("within 2 hours").
    pub payout_claim: String,
    /// The claim about the users ("3 million users").
    pub users_claim: String,
    /// Epoch milliseconds.
    pub updated_at: i64,
    /// The username of the admin who last changed them; null while they are the settings file's.
    #[schema(required = true)]
    pub updated_by: Option<String>,
}

impl TryFrom<StoredClaims> for SiteClaimsView {
    type Error = ApiError;

    fn try_from(c: StoredClaims) -> Result<Self, ApiError> {
        let market = Market::from_code(&c.market).ok_or_else(|| {
            ApiError::from(anyhow::anyhow!(
                "site claims of an unknown market {:?}",
                c.market
            ))
        })?;
        Ok(Self {
            market,
            payout_claim: c.payout_claim,
            users_claim: c.users_claim,
            updated_at: c.updated_at,
            updated_by: c.updated_by,
        })
    }
}

/// Both markets' claims (admin).
#[utoipa::path(get, path = "/api/v1/console/site/claims", tag = "console", operation_id = "console_site_claims",
    security(("console_cookie" = [])),
    responses((status = 200, body = Envelope<Vec<SiteClaimsView>>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden: not admin", body = ErrorBody)))]
pub async fn claims(
    State(state): State<AppState>,
    session: OperatorSession,
) -> Result<Json<Envelope<Vec<SiteClaimsView>>>, ApiError> {
    let list = claims::list(&state.services, &session.operator).await?;
    let views = list
        .into_iter()
        .map(SiteClaimsView::try_from)
        .collect::<Result<_, _>>()?;
    Ok(Envelope::ok(views))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SiteClaimsRequest {
    /// One sentence ending with `.`, `!` or `?`, at most 120 characters; empty withdraws the claim.
    #[schema(value_type = String, required = true, example = "Money in your bank account within 2 hours.")]
    pub payout_claim: Option<String>,
    /// One sentence ending with `.`, `!` or `?`, at most 120 characters; empty withdraws the claim.
    #[schema(value_type = String, required = true, example = "Trusted by 3 million users.")]
    pub users_claim: Option<String>,
}

/// Changes one market's claims (admin); audited with before and after. The site settings and the pages of this
/// server show them at once, of the other servers within 2 seconds.
#[utoipa::path(put, path = "/api/v1/console/site/claims/{market}", tag = "console",
    operation_id = "console_site_claims_update",
    security(("console_cookie" = [], "csrf_header" = [])),
    params(("market" = Market, Path, description = "`IN` or `ID`")),
    request_body(content((SiteClaimsRequest = "application/json"), (SiteClaimsRequest = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = Envelope<SiteClaimsView>), (status = 401, body = ErrorBody),
        (status = 403, description = "forbidden (not admin), csrf_token_invalid or cross_site_request", body = ErrorBody),
        (status = 404, description = "the market has no stored claims (start-up seeds both, so only after a hand-made deletion)", body = ErrorBody),
        (status = 422, description = "validation_failed: `market`, `payoutClaim` or `usersClaim`", body = ErrorBody)))]
pub async fn update_claims(
    State(state): State<AppState>,
    session: OperatorSession,
    Path(market): Path<String>,
    JsonOrForm(req): JsonOrForm<SiteClaimsRequest>,
) -> Result<Json<Envelope<SiteClaimsView>>, ApiError> {
    let market = require_market(Some(&market))?;
    let request = ClaimsRequest {
        payout_claim: req.payout_claim.as_deref(),
        users_claim: req.users_claim.as_deref(),
    };
    let stored = claims::update(
        &state.services,
        &state.claims,
        &session.operator,
        market,
        &request,
    )
    .await?;
    // The pages carry the claims: render them again before answering, so the next page load shows the edit.
    if let Err(e) = state.pages.refresh(&state.services, &state.claims).await {
        tracing::warn!("rendering the pages with the new claims: {e:#}");
    }
    Ok(Envelope::ok(stored.try_into()?))
}
