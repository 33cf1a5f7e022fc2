//! The records-retention job (docs/ACCOUNT.md, "Retention"): a deleted account's loan and transaction records are kept
//! for its market's `kept_records.*.retention_days` after the relationship ends (the later of the deletion and the
//! last order's close), and purged on the business date that many days later: deleted, not anonymised, with one audit
//! entry per account as a system action (the account's pseudonymous id, when the relationship ended, how many orders;
//! nothing that names a person or an order).
//!
//! One runner per market and business date: the run is claimed by inserting its `job_runs` row, as the overdue job's
//! is. Accounts are purged a page at a time, one transaction each, which locks the page's accounts and reads them
//! again: an account purged meanwhile by another sweep is skipped, and one that is not deleted or not yet past its
//! retention is never touched. A second sweep of the same date purges nothing more.

use serde::Serialize;
use time::{Date, Duration, OffsetDateTime};

use kilat_domain::{Code, Market};

use crate::services::Services;
use crate::store::audit::NewAuditEntry;
use crate::store::kept_records::{DueAccount, Purged};
use crate::store::loans::date_code;

/// The job's name in `job_runs`.
pub const JOB: &str = "records_retention";

/// Accounts per page (one transaction each).
pub const PAGE: i64 = 200;

/// The system actor the audit trail names.
const ACTOR: &str = "records_retention";

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// False when another runner had claimed the date already (nothing was done).
    pub ran: bool,
    pub purged: Purged,
}

/// The first instant whose records are still kept on business date `date`: an account whose relationship ended
/// before it (epoch ms) is purged. The relationship's end is dated on the market's calendar, so records that ended on
/// day E are kept through day E + retention_days − 1 and purged on day E + retention_days.
pub fn cutoff_ms(market: Market, date: Date, retention_days: u32) -> i64 {
    let Some(first_kept) = date.checked_sub(Duration::days(i64::from(retention_days) - 1)) else {
        return i64::MIN;
    };
    let offset = market.local_time(OffsetDateTime::UNIX_EPOCH).offset();
    first_kept.midnight().assume_offset(offset).unix_timestamp() * 1000
}

/// Runs the job for `market`'s business date `date` unless another runner claimed it (then `ran` is false).
/// `runner` names this process in `job_runs`.
pub async fn run(s: &Services, market: Market, date: Date, runner: &str) -> anyhow::Result<Report> {
    let day = date_code(date);
    if !s
        .db
        .claim_job_run(JOB, market.code(), &day, runner, s.clock.now_ms())
        .await?
    {
        return Ok(Report::default());
    }
    let purged = sweep(s, market, date).await?;
    s.db.finish_job_run(
        JOB,
        market.code(),
        &day,
        i64::try_from(purged.orders)?,
        i64::try_from(purged.ledger_entries)?,
        s.clock.now_ms(),
    )
    .await?;
    Ok(Report { ran: true, purged })
}

/// The job's work for `date` without the claim: every deleted account of the market past its retention, a page at a
/// time. Safe to run twice or at once with another sweep.
pub async fn sweep(s: &Services, market: Market, date: Date) -> anyhow::Result<Purged> {
    sweep_in_pages(s, market, date, PAGE).await
}

/// [`sweep`] with pages of `page` accounts.
pub async fn sweep_in_pages(
    s: &Services,
    market: Market,
    date: Date,
    page: i64,
) -> anyhow::Result<Purged> {
    let retention_days = s.kept_records.of(market).retention_days;
    let cutoff = cutoff_ms(market, date, retention_days);
    let mut purged = Purged::default();
    let mut after = String::new();
    loop {
        let due =
            s.db.accounts_past_retention(market.code(), cutoff, &after, page)
                .await?;
        let Some(last) = due.last() else { break };
        after = last.borrower_id.clone();
        let done = purge_page(s, market, date, cutoff, retention_days, &due).await?;
        // The images' files go once their rows are gone; one that cannot be removed now is logged with its key (its
        // row is gone, so nothing serves it) for the operator to remove.
        for key in &done.image_keys {
            if let Err(e) = s.files.delete(key).await {
                tracing::error!(%key, error = %e, "a purged account's complaint image could not be removed");
            }
        }
        purged.add(done);
        if due.len() < page as usize {
            break;
        }
    }
    Ok(purged)
}

/// The audit entry's record of a purged account: no personal data and no order number, only what proves the
/// retention was kept.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PurgedAccount<'a> {
    market: &'a str,
    /// Epoch ms.
    relationship_ended_at: i64,
    orders: i64,
    retention_days: u32,
    business_date: &'a str,
}

async fn purge_page(
    s: &Services,
    market: Market,
    date: Date,
    cutoff: i64,
    retention_days: u32,
    page: &[DueAccount],
) -> anyhow::Result<Purged> {
    let ids: Vec<&str> = page.iter().map(|a| a.borrower_id.as_str()).collect();
    let now = s.clock.now_ms();
    let day = date_code(date);
    let mut tx = s.db.begin().await?;
    // Read again under the lock: only what is still deleted and past its retention is purged.
    let due = tx
        .lock_accounts_past_retention(market.code(), cutoff, &ids)
        .await?;
    let ids: Vec<&str> = due.iter().map(|a| a.borrower_id.as_str()).collect();
    let purged = tx.purge_accounts(&ids).await?;
    anyhow::ensure!(
        purged.borrowers == ids.len() as u64,
        "purged {} accounts of {} locked",
        purged.borrowers,
        ids.len()
    );
    let records = due
        .iter()
        .map(|a| {
            serde_json::to_string(&PurgedAccount {
                market: market.code(),
                relationship_ended_at: a.relationship_ended_at(),
                orders: a.orders,
                retention_days,
                business_date: &day,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let entries: Vec<NewAuditEntry<'_>> = due
        .iter()
        .zip(&records)
        .map(|(a, record)| NewAuditEntry {
            actor_kind: "system",
            actor_id: Some(ACTOR),
            action: "records.purged",
            entity: "borrower",
            entity_id: &a.borrower_id,
            before_json: Some(record.as_str()),
            after_json: None,
            at: now,
        })
        .collect();
    tx.insert_audits(&entries).await?;
    tx.commit().await?;
    if purged.borrowers > 0 {
        tracing::info!(
            market = market.code(),
            accounts = purged.borrowers,
            orders = purged.orders,
            ledger_entries = purged.ledger_entries,
            payments = purged.payments,
            "kept records purged"
        );
    }
    Ok(purged)
}

#[cfg(test)]
mod tests {
    use time::macros::{date, datetime};

    use super::*;

    fn ms(at: OffsetDateTime) -> i64 {
        (at.unix_timestamp_nanos() / 1_000_000) as i64
    }

    #[test]
    fn records_are_kept_through_the_day_before_the_period_ends_on_the_markets_calendar() {
        // 2031-11-26 is 1826 days after 2026-11-26: what ended on 26 November 2026 (IST) or before is purged that day;
        // 27 November began at 18:30 UTC the 26th.
        let cutoff = cutoff_ms(Market::India, date!(2031 - 11 - 26), 1826);
        assert_eq!(cutoff, ms(datetime!(2026-11-26 18:30 UTC)));
        assert!(
            ms(datetime!(2026-11-26 18:29:59 UTC)) < cutoff,
            "23:59:59 IST on the 26th"
        );
        assert!(
            ms(datetime!(2026-11-26 18:30 UTC)) >= cutoff,
            "00:00 IST on the 27th waits a day"
        );
        assert_eq!(
            cutoff_ms(Market::India, date!(2031 - 11 - 27), 1826) - cutoff,
            24 * 60 * 60 * 1000
        );
        // Indonesia counts on WIB (UTC+07:00).
        assert_eq!(
            cutoff_ms(Market::Indonesia, date!(2031 - 11 - 26), 1826),
            ms(datetime!(2026-11-26 17:00 UTC))
        );
        // Absurd periods purge nothing rather than overflow.
        assert_eq!(
            cutoff_ms(Market::India, date!(2031 - 11 - 26), u32::MAX),
            i64::MIN
        );
    }
}
