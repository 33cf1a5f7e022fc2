//! The orphan-files sweep: an upload writes its file before its record and removes the file again when the record is
//! refused, but a server that stops between the two (a crash, a kill, a lost connection to the database) leaves a
//! file nothing names. Once a day this sweep lists the file store's upload folders and deletes every file that no
//! record names and that was last written more than [`GRACE_MS`] ago, so an upload still on its way to its record is
//! never touched. Files whose records go (a removed upload, a deleted account, a purge) are removed by those flows;
//! the sweep only meets them when that removal failed, and then removes them too.
//!
//! The age is read from the store's own clock (file times, the S3 service's `Last-Modified`) against the real time,
//! never the development clock a test or an operator may move forward. One runner a day: the run is claimed in
//! `job_runs` (`orphan_files`, market `*`, the UTC date). Deleting is idempotent, so a second sweep, by hand or on
//! another server at the same time, only finds less to remove.

use std::collections::HashSet;

use futures_util::StreamExt;
use time::OffsetDateTime;

use crate::infra::files::StoredFile;
use crate::services::Services;
use crate::store::loans::date_code;

/// The job's name in `job_runs`.
pub const JOB: &str = "orphan_files";

/// `job_runs.market` of a job that is not per market.
pub(crate) const ALL_MARKETS: &str = "*";

/// How old an unrecorded file must be before it goes: far longer than any upload takes from its file to its record.
pub const GRACE_MS: i64 = 24 * 60 * 60 * 1000;

/// The store's folders that uploads write to, each file named by a record (`complaint_images.storage_key`).
pub const FOLDERS: &[&str] = &["complaints"];

/// Files whose records are looked up in one query.
pub const PAGE: usize = 500;

/// What one sweep found and did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Swept {
    /// Files listed.
    pub files: u64,
    /// Files younger than the grace period, left alone whether recorded or not.
    pub young: u64,
    /// Older files that a record names.
    pub recorded: u64,
    /// Older files that no record names: removed.
    pub removed: u64,
}

/// What one run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    /// False when another runner had claimed the day already (nothing was done).
    pub ran: bool,
    pub swept: Swept,
}

/// Sweeps unless another runner claimed today's (UTC) run; `runner` names this process in `job_runs`.
pub async fn run(s: &Services, runner: &str) -> anyhow::Result<Report> {
    let now = OffsetDateTime::now_utc();
    let day = date_code(now.date());
    if !s
        .db
        .claim_job_run(JOB, ALL_MARKETS, &day, runner, s.clock.now_ms())
        .await?
    {
        return Ok(Report::default());
    }
    let swept = sweep(s).await?;
    s.db.finish_job_run(
        JOB,
        ALL_MARKETS,
        &day,
        i64::try_from(swept.files)?,
        i64::try_from(swept.removed)?,
        s.clock.now_ms(),
    )
    .await?;
    Ok(Report { ran: true, swept })
}

/// The sweep without the claim, at the real time: safe to run twice or at once with another.
pub async fn sweep(s: &Services) -> anyhow::Result<Swept> {
    let now = OffsetDateTime::now_utc();
    let now_ms = i64::try_from(now.unix_timestamp_nanos() / 1_000_000)?;
    sweep_in_pages(s, now_ms - GRACE_MS, PAGE).await
}

/// [`sweep`] of the files last written before `written_before` (epoch ms), `page` looked up at a time.
pub async fn sweep_in_pages(
    s: &Services,
    written_before: i64,
    page: usize,
) -> anyhow::Result<Swept> {
    let mut swept = Swept::default();
    for folder in FOLDERS {
        let mut listing = s.files.list(folder).chunks(page.max(1));
        while let Some(files) = listing.next().await {
            let files: Vec<StoredFile> = files.into_iter().collect::<anyhow::Result<_>>()?;
            swept.files += files.len() as u64;
            let old: Vec<&str> = files
                .iter()
                .filter(|f| f.modified_ms < written_before)
                .map(|f| f.key.as_str())
                .collect();
            swept.young += (files.len() - old.len()) as u64;
            let recorded: HashSet<String> =
                s.db.recorded_file_keys(&old).await?.into_iter().collect();
            for key in old {
                if recorded.contains(key) {
                    swept.recorded += 1;
                    continue;
                }
                s.files.delete(key).await?;
                swept.removed += 1;
                tracing::info!(%key, "an orphan file (no record names it) removed");
            }
        }
    }
    Ok(swept)
}
