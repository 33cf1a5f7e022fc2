//! The site's claims (issue 9): each market's payout-speed and users sentences, stored in the database (migration
//! 0022), seeded once from the settings file, edited by admins (audited: who, when, before and after) and shown by
//! the site settings endpoint and the prerendered pages. Each server keeps them in memory, swapped whole: after its
//! own edit at once, after another server's within [`REFRESH_EVERY_MS`] (the server's timer reads the two rows).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use kilat_domain::{Code, Market};
use serde::Serialize;

use crate::auth::operators::{Operator, Role};
use crate::error::{Error, FieldErrors, FieldProblem};
use crate::services::Services;
use crate::settings::{PublicSiteSettings, SiteSettings};
use crate::store::Db;
use crate::store::audit::NewAuditEntry;
use crate::store::site_claims::{SeedClaims, StoredClaims};

/// How often a server reads the stored claims to pick up another server's edit.
pub const REFRESH_EVERY_MS: i64 = 2_000;
/// The longest claim, in characters: one line of the site's offer box.
pub const MAX_CLAIM_CHARS: usize = 120;

const ADMIN: &[Role] = &[Role::Admin];

/// One market's claims. An empty claim is withdrawn: the site shows nothing in its place.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Claims {
    pub payout_claim: String,
    pub users_claim: String,
}

#[derive(Debug, Default, PartialEq, Eq)]
struct Snapshot {
    india: Claims,
    indonesia: Claims,
}

/// The claims this server shows, and a generation that moves whenever they change (the pages are rendered again).
pub struct SiteClaims {
    current: RwLock<Arc<Snapshot>>,
    generation: AtomicU64,
    /// Held across a reload's read and its swap: two reloads at once (two admins' edits) would otherwise swap in the
    /// order their swaps come, the earlier read last, and show claims already replaced until the timer's next read.
    reloading: tokio::sync::Mutex<()>,
}

impl SiteClaims {
    /// Seeds the markets that have no claims yet from `site` (the settings file), then reads them.
    pub async fn load(db: &Db, site: &SiteSettings, now_ms: i64) -> anyhow::Result<Self> {
        let seeds = [Market::India, Market::Indonesia].map(|market| {
            let company = site.company(market);
            SeedClaims {
                market: market.code(),
                payout_claim: company.payout_claim.trim(),
                users_claim: company.users_claim.trim(),
            }
        });
        db.seed_site_claims(&seeds, now_ms).await?;
        let claims = Self {
            current: RwLock::default(),
            generation: AtomicU64::new(0),
            reloading: tokio::sync::Mutex::new(()),
        };
        claims.reload(db).await?;
        Ok(claims)
    }

    /// Reads the stored claims; when they differ from the ones in memory, swaps them and moves the generation.
    /// Returns true when they changed.
    pub async fn reload(&self, db: &Db) -> anyhow::Result<bool> {
        let _one_at_a_time = self.reloading.lock().await;
        let rows = db.site_claims().await?;
        let mut next = Snapshot::default();
        for row in rows {
            let claims = Claims {
                payout_claim: row.payout_claim,
                users_claim: row.users_claim,
            };
            match Market::from_code(&row.market) {
                Some(Market::India) => next.india = claims,
                Some(Market::Indonesia) => next.indonesia = claims,
                None => tracing::warn!(market = %row.market, "site claims of an unknown market"),
            }
        }
        let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
        if **current == next {
            return Ok(false);
        }
        *current = Arc::new(next);
        self.generation.fetch_add(1, Ordering::AcqRel);
        Ok(true)
    }

    /// The claims `market`'s site shows now.
    pub fn get(&self, market: Market) -> Claims {
        let current = self
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match market {
            Market::India => current.india.clone(),
            Market::Indonesia => current.indonesia.clone(),
        }
    }

    /// Moves each time the claims change; the pages rendered with an older generation are rendered again.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }
}

/// What the site, the app and `GET /api/v1/site/settings` show in `market`: the settings with the stored claims.
pub fn public(s: &Services, site_claims: &SiteClaims, market: Market) -> PublicSiteSettings {
    let mut public = s.site.public(market);
    let claims = site_claims.get(market);
    public.payout_claim = claims.payout_claim;
    public.users_claim = claims.users_claim;
    public
}

/// Both markets' claims with who edited them last (admins).
pub async fn list(s: &Services, op: &Operator) -> Result<Vec<StoredClaims>, Error> {
    op.require_any(ADMIN)?;
    Ok(s.db.site_claims().await?)
}

/// The claims as an admin sends them; absent counts as empty (withdrawn).
pub struct ClaimsRequest<'a> {
    pub payout_claim: Option<&'a str>,
    pub users_claim: Option<&'a str>,
}

/// A claim is one sentence: a single line of at most [`MAX_CLAIM_CHARS`] characters ending with `.`, `!` or `?`,
/// or empty to withdraw it.
fn check(req: &ClaimsRequest<'_>) -> Result<Claims, Error> {
    let mut errors = FieldErrors::default();
    let mut claim = |field: &'static str, value: Option<&str>| {
        // Both are sent on every edit: a missing one is an error, never a withdrawal (that is an empty sentence).
        let Some(value) = value.map(str::trim) else {
            errors.add(field, FieldProblem::required());
            return String::new();
        };
        if value.chars().count() > MAX_CLAIM_CHARS {
            errors.add(field, FieldProblem::too_long(MAX_CLAIM_CHARS));
        } else if !value.is_empty()
            && (value.chars().any(char::is_control) || !value.ends_with(['.', '!', '?']))
        {
            errors.add(field, FieldProblem::new("field.claim_sentence"));
        }
        value.to_owned()
    };
    let payout_claim = claim("payoutClaim", req.payout_claim);
    let users_claim = claim("usersClaim", req.users_claim);
    errors.into_result()?;
    Ok(Claims {
        payout_claim,
        users_claim,
    })
}

/// Changes `market`'s claims (admins): the row is locked across the read of the old claims, the write and the audit
/// entry (before → after), so two admins' edits are both audited against what each replaced. This server shows the
/// new claims at once, the others within [`REFRESH_EVERY_MS`].
pub async fn update(
    s: &Services,
    site_claims: &SiteClaims,
    op: &Operator,
    market: Market,
    req: &ClaimsRequest<'_>,
) -> Result<StoredClaims, Error> {
    op.require_any(ADMIN)?;
    op.require_market(market)?;
    let claims = check(req)?;
    let now = s.clock.now_ms();
    let mut tx = s.db.begin().await?;
    let before = tx
        .site_claims_locked(market.code())
        .await?
        .ok_or(Error::NotFound)?;
    tx.update_site_claims(
        market.code(),
        &claims.payout_claim,
        &claims.users_claim,
        &op.id,
        now,
    )
    .await?;
    let before_json = serde_json::to_string(&Claims {
        payout_claim: before.payout_claim,
        users_claim: before.users_claim,
    })
    .map_err(anyhow::Error::from)?;
    let after_json = serde_json::to_string(&claims).map_err(anyhow::Error::from)?;
    tx.insert_audit(&NewAuditEntry {
        actor_kind: "operator",
        actor_id: Some(&op.id),
        action: "site.claims.update",
        entity: "site_claims",
        entity_id: market.code(),
        before_json: Some(&before_json),
        after_json: Some(&after_json),
        at: now,
    })
    .await?;
    let after = tx
        .site_claims_locked(market.code())
        .await?
        .ok_or(Error::NotFound)?;
    tx.commit().await?;
    // Stored and audited: a failed read now only delays the new claims until the timer's next read.
    if let Err(e) = site_claims.reload(&s.db).await {
        tracing::warn!("reading the site claims after an edit: {e:#}");
    }
    Ok(after)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_claim_is_required_and_an_empty_one_withdrawn() {
        let missing = check(&ClaimsRequest {
            payout_claim: Some("Money the same day."),
            users_claim: None,
        });
        assert!(missing.is_err(), "{missing:?}");
        let withdrawn = checked("Money the same day.", "").unwrap();
        assert_eq!(withdrawn.users_claim, "");
    }

    fn checked(payout: &str, users: &str) -> Result<Claims, Error> {
        check(&ClaimsRequest {
            payout_claim: Some(payout),
            users_claim: Some(users),
        })
    }

    #[test]
    fn a_claim_is_one_sentence_of_bounded_length_or_empty() {
        let ok = checked("  Money within a day. ", "").unwrap();
        assert_eq!(ok.payout_claim, "Money within a day.");
        assert_eq!(ok.users_claim, "");
        for bad in [
            "No full stop",
            "Two\nlines.",
            &format!("{}.", "a".repeat(MAX_CLAIM_CHARS)),
        ] {
            let err = checked(bad, "Fine!").unwrap_err();
            let fields = err.field_errors().expect("field errors");
            assert!(fields.get("payoutClaim").is_some(), "{bad:?}");
            assert!(fields.get("usersClaim").is_none());
        }
    }
}
