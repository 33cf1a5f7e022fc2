//! The leftovers sweep: personal data a flow leaves behind that nothing will use again, removed once it is past use
//! (hourly, in batches, so no run holds a lock long).
//!
//! - **Sign-in codes** a day after they expired: each keeps the phone's hash and the address that asked, and a used
//!   or expired code decides nothing (a resend waits on the newest code of the last minute; the daily limits are the
//!   limiter's own counters).
//! - **Complaint photos** uploaded but never sent with a complaint, a week after their upload: their record first, by
//!   a conditional delete (a photo sent with a complaint meanwhile is kept), then the file. They stopped counting
//!   against the borrower's three after a day (`support`); a week is far beyond any complaint still being written.
//! - **Borrower sessions** 180 days after sign-in: every session has ended by then (30 days unused, or 90 days old),
//!   and the record of how it ended ("signed out because it expired / was logged out") has been kept 90 days at
//!   least. A token of a removed session signs nobody in, as before; it is only told the plain "log in again".
//!   The account's own records (orders, payments) name no session.
//! - **Contact-form messages** a year after support handled them: the sender's name, telephone, e-mail and address
//!   had served their purpose (an answer). A message still waiting is kept however old: it is support's to answer.
//!
//! Idempotent: servers running it together only delete what is there, so it takes no claim.

use crate::auth::SESSION_MAX_AGE_MS;
use crate::services::Services;

/// Rows deleted per statement.
pub const BATCH: i64 = 500;
const HOUR_MS: i64 = 60 * 60 * 1000;
/// How long after it expired a sign-in code is kept.
pub const CODE_KEPT_MS: i64 = 24 * HOUR_MS;
/// How long a photo uploaded and never sent with a complaint is kept.
pub const WAITING_PHOTO_KEPT_MS: i64 = 7 * 24 * HOUR_MS;
/// How long after sign-in a borrower session's record is kept (its absolute limit, and 90 days more).
pub const SESSION_KEPT_MS: i64 = SESSION_MAX_AGE_MS + 90 * 24 * HOUR_MS;
/// How long after support handled it a contact-form message is kept.
pub const HANDLED_CONTACT_KEPT_MS: i64 = 365 * 24 * HOUR_MS;

/// What one sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Removed {
    pub login_codes: u64,
    pub waiting_photos: u64,
    pub sessions: u64,
    pub contact_messages: u64,
}

impl Removed {
    pub fn total(&self) -> u64 {
        self.login_codes + self.waiting_photos + self.sessions + self.contact_messages
    }
}

/// Removes what is past use at the clock's now.
pub async fn run(s: &Services) -> anyhow::Result<Removed> {
    let now = s.clock.now_ms();
    let mut removed = Removed::default();
    loop {
        let deleted =
            s.db.delete_login_codes_expired_before(now - CODE_KEPT_MS, BATCH)
                .await?;
        removed.login_codes += deleted;
        if deleted < u64::try_from(BATCH)? {
            break;
        }
    }
    loop {
        let deleted =
            s.db.delete_sessions_opened_before(now - SESSION_KEPT_MS, BATCH)
                .await?;
        removed.sessions += deleted;
        if deleted < u64::try_from(BATCH)? {
            break;
        }
    }
    loop {
        let deleted =
            s.db.delete_contact_messages_handled_before(now - HANDLED_CONTACT_KEPT_MS, BATCH)
                .await?;
        removed.contact_messages += deleted;
        if deleted < u64::try_from(BATCH)? {
            break;
        }
    }
    loop {
        let keys =
            s.db.delete_waiting_images_before(now - WAITING_PHOTO_KEPT_MS, BATCH)
                .await?;
        removed.waiting_photos += keys.len() as u64;
        for key in &keys {
            // A file left behind is the orphan-files sweep's to remove: its record is gone.
            if let Err(e) = s.files.delete(key).await {
                tracing::warn!(key = %key, error = %e, "a waiting photo's file could not be removed");
            }
        }
        if keys.len() < usize::try_from(BATCH)? {
            break;
        }
    }
    Ok(removed)
}
