//! The infrastructure every capability works with: the database, the clock, the keys, the company settings, the
//! providers, the file store and the code sender. Built once at start-up; cheap to clone. Nothing here knows about
//! HTTP, and nothing here names a capability (architecture test): what a capability holds (the loan catalog, the
//! site's claims) is held by whoever runs it (the HTTP layer's `AppState`, or a command through `Application`) and
//! passed to the capability functions that use it.

use std::sync::Arc;

use kilat_domain::CapTable;

use crate::infra::bounds::WorkBounds;
use crate::infra::clock::Clock;
use crate::infra::crypto::Secrets;
use crate::infra::files::FileStore;
use crate::infra::push::PushSender;
use crate::infra::sms::CodeSender;
use crate::providers::PaymentServices;
use crate::settings::{Holidays, KeptRecordsSettings, SiteSettings, TelemetrySettings};
use crate::store::Db;

#[derive(Clone)]
pub struct Services {
    pub db: Db,
    pub clock: Clock,
    /// Encrypts PII at rest and hashes codes and tokens.
    pub secrets: Secrets,
    /// The company: lender, grievance officer, contact details.
    pub site: Arc<SiteSettings>,
    /// Indonesia's OJK cap table (settings `[caps.id]`), which every price, extension and late charge is checked
    /// against.
    pub caps: Arc<CapTable>,
    /// Collection accounts and the payout and virtual-account providers.
    pub payments: Arc<PaymentServices>,
    /// The app's telemetry: rate limit and retention.
    pub telemetry: TelemetrySettings,
    /// How long each market keeps a deleted account's loan records.
    pub kept_records: KeptRecordsSettings,
    /// Each market's payout rule: the maker-checker threshold (`[payouts]`).
    pub payouts: crate::settings::PayoutSettings,
    /// Where uploaded files' bytes are kept (complaint images).
    pub files: Arc<dyn FileStore>,
    /// Where sign-in codes and reminders go: by SMS or voice call (settings `[sms]`).
    pub sms: Arc<dyn CodeSender>,
    /// Where payment receipts go as a push to the borrower's device (settings `[push]`); none when pushes are off.
    pub push: Option<Arc<dyn PushSender>>,
    /// Reminders and receipts sent at once (`sms.sends_at_once`).
    pub sends_at_once: usize,
    /// Each market's public holidays, which deadlines in working days skip (`[calendar.holidays]`).
    pub holidays: Arc<Holidays>,
    /// How many image decodes and password hashes run at once (`[bounds]`).
    pub bounds: WorkBounds,
    /// Every request limit, counted in the database (`crate::infra::limits`).
    pub limits: crate::infra::limits::Limits,
}
