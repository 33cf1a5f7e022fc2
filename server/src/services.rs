//! The handles every capability works with: the database, the clock, the keys, the loan catalog, the reference data
//! and the company settings. Built once at start-up; cheap to clone. Nothing here knows about HTTP.

use std::sync::Arc;

use crate::auth::SignInService;
use crate::catalog::Catalog;
use crate::claims::SiteClaims;
use crate::content::ReferenceData;
use crate::infra::bounds::WorkBounds;
use crate::infra::clock::Clock;
use crate::infra::crypto::Secrets;
use crate::providers::PaymentServices;
use crate::settings::{Holidays, KeptRecordsSettings, SiteSettings, TelemetrySettings};
use crate::store::Db;
use crate::infra::files::FileStore;

#[derive(Clone)]
pub struct Services {
    pub db: Db,
    pub clock: Clock,
    /// Encrypts PII at rest and hashes codes and tokens.
    pub secrets: Secrets,
    pub catalog: Arc<Catalog>,
    /// Enumerations, banks, cities and the privacy policy (`server/data/`).
    pub reference: Arc<ReferenceData>,
    /// The company: lender, grievance officer, contact details.
    pub site: Arc<SiteSettings>,
    /// The site's claims per market, as stored (admins edit them).
    pub claims: Arc<SiteClaims>,
    /// Borrower sign-in: codes and sessions.
    pub sign_in: SignInService,
    /// Collection accounts and the payout and virtual-account providers.
    pub payments: Arc<PaymentServices>,
    /// The app's telemetry: rate limit and retention.
    pub telemetry: TelemetrySettings,
    /// How long each market keeps a deleted account's loan records.
    pub kept_records: KeptRecordsSettings,
    /// Where uploaded files' bytes are kept (complaint images).
    pub files: Arc<dyn FileStore>,
    /// Each market's public holidays, which deadlines in working days skip (`[calendar.holidays]`).
    pub holidays: Arc<Holidays>,
    /// How many image decodes and password hashes run at once (`[bounds]`).
    pub bounds: WorkBounds,
    /// Every request limit, counted in the database (`crate::infra::limits`).
    pub limits: crate::infra::limits::Limits,
}
