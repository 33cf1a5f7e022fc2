//! Scheduled jobs: the daily overdue job of each market (late charges posted through the money engine, order status
//! overdue and back, reminders queued), run once per market and business date however many servers run it, and the
//! delivery of queued reminders within the market's sending hours, the telemetry retention sweep, the leftovers sweep
//! (expired sign-in codes, complaint photos never sent) and the rate-limit cleanup (hourly), the purge of deleted accounts' kept records past their retention (once per market and business
//! date), the orphan-files sweep (once a day), the dashboard's ended days kept (each tick, when one is missing) and its
//! book's changes folded (each tick).
//! `kilat serve` runs them on a timer; `kilat jobs run overdue`, `telemetry-retention`, `records-retention`,
//! `orphan-files`, `rate-limits`, `leftovers` and `dashboard-days` by hand.

pub mod dashboard_days;
pub mod dataset;
pub mod leftovers;
pub mod orphan_files;
pub mod overdue;
pub mod rate_limits;
pub mod records_retention;
pub mod reminders;
pub mod retention;
pub mod seed;

use std::time::Duration;

use kilat_domain::{Code, Market};

use crate::services::Services;

/// How often the timer looks for a new business date and for reminders to send.
pub const TICK: Duration = Duration::from_secs(60);

/// How often the timer sweeps telemetry past its retention period and rate limits past their window, and looks for
/// a day whose orphan-files sweep has not run (at start-up, then hourly).
pub const RETENTION_EVERY: Duration = Duration::from_secs(60 * 60);

/// Runs until the task is dropped: each tick, every market's overdue job and records-retention job for its business
/// date (a date already run, here or by another server, is skipped at the cost of one insert) and the delivery of
/// queued reminders; at start-up and then hourly, the telemetry retention, the rate-limit cleanup and, once a UTC day
/// (claimed like the dates), the orphan-files sweep. The first tick is at once, and the overdue job runs every date
/// after the last it finished ([`overdue::run_through`]), so dates missed while no server ran are run at start-up; a
/// development clock moved to another date runs it at once too ([`Clock::moved`](crate::infra::clock::Clock::moved)).
pub async fn run_on_timer(s: Services, runner: String) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut last_retention: Option<std::time::Instant> = None;
    loop {
        // A clock moved in development runs the new date's jobs at once, as a server running that day would.
        tokio::select! {
            _ = tick.tick() => {}
            () = s.clock.moved() => {}
        }
        if last_retention.is_none_or(|at| at.elapsed() >= RETENTION_EVERY) {
            last_retention = Some(std::time::Instant::now());
            match timed("telemetry_retention", retention::run(&s), |r| r.total() > 0).await {
                Ok(removed) if removed.total() > 0 => {
                    tracing::info!(?removed, "telemetry retention done");
                }
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "telemetry retention failed"),
            }
            match timed("leftovers", leftovers::run(&s), |r| r.total() > 0).await {
                Ok(removed) if removed.total() > 0 => tracing::info!(?removed, "leftovers removed"),
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "the leftovers sweep failed"),
            }
            match timed("rate_limits", rate_limits::run(&s), |n| *n > 0).await {
                Ok(0) => {}
                Ok(removed) => tracing::info!(removed, "rate limits past their window removed"),
                Err(err) => tracing::error!(error = %err, "rate-limit cleanup failed"),
            }
            match timed("orphan_files", orphan_files::run(&s, &runner), |r| r.ran).await {
                Ok(report) if report.ran => {
                    tracing::info!(swept = ?report.swept, "orphan-files sweep done");
                }
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "orphan-files sweep failed"),
            }
        }
        for market in Market::ALL.iter().copied() {
            let date = s.clock.today(market);
            let runs = overdue::run_through(&s, market, date, &runner);
            let ran = timed("overdue", async { Ok(runs.await) }, |runs| {
                runs.iter().any(|(_, r)| r.as_ref().is_ok_and(|r| r.ran))
            });
            for (day, outcome) in ran.await.unwrap_or_default() {
                match outcome {
                    Ok(report) if report.ran => {
                        tracing::info!(market = market.code(), date = %day, ?report, "overdue job done");
                    }
                    Ok(_) => {}
                    Err(err) => {
                        tracing::error!(market = market.code(), date = %day, error = %err, "overdue job failed");
                    }
                }
            }
            match timed("dashboard_days", dashboard_days::run(&s, market), |n| {
                *n > 0
            })
            .await
            {
                Ok(0) => {}
                Ok(kept) => tracing::info!(market = market.code(), kept, "dashboard days kept"),
                Err(err) => {
                    tracing::error!(market = market.code(), error = %err, "keeping the dashboard's days failed");
                }
            }
            let retention = records_retention::run(&s, market, date, &runner);
            match timed("records_retention", retention, |r| r.ran).await {
                Ok(report) if report.ran => {
                    tracing::info!(market = market.code(), %date, purged = ?report.purged, "records retention done");
                }
                Ok(_) => {}
                Err(err) => {
                    tracing::error!(market = market.code(), %date, error = %err, "records retention failed");
                }
            }
        }
        // The dashboard's book: the changes since the last tick folded into the kept rows (after the overdue job's).
        match timed("book", async { Ok(s.db.fold_book().await?) }, |n| *n > 0).await {
            Ok(_) => {}
            Err(err) => tracing::error!(error = %err, "folding the dashboard's book failed"),
        }
        match timed("reminders", reminders::deliver(&s, s.clock.now()), |n| {
            *n > 0
        })
        .await
        {
            Ok(0) => {}
            Ok(sent) => tracing::info!(sent, "reminders sent"),
            Err(err) => tracing::error!(error = %err, "sending reminders failed"),
        }
    }
}

/// After the development clock moved (`PUT /dev/business-date`): the runs claimed for dates after each market's
/// business date now are forgotten, so a date reached again is run again, as a server living through it would run
/// it. Without this, a journey that moved the clock ahead and back would find a later journey's dates already taken
/// and its loans never charged. Running a date again is safe: every job is idempotent per order and per day (a day
/// charged is never charged again). Returns how many claims were forgotten.
pub async fn forget_runs_after_today(s: &Services) -> anyhow::Result<u64> {
    let mut forgotten = 0;
    for market in Market::ALL.iter().copied() {
        let today = crate::store::loans::date_code(s.clock.today(market));
        forgotten += s.db.forget_job_runs_after(market.code(), &today).await?;
        // The dashboard's days kept from today on will be lived again.
        let day = crate::store::dashboard::day_of(s.clock.today(market));
        s.db.forget_dashboard_days_from(market.code(), day).await?;
    }
    let utc_today = crate::store::loans::date_code(s.clock.now().date());
    forgotten +=
        s.db.forget_job_runs_after(orphan_files::ALL_MARKETS, &utc_today)
            .await?;
    Ok(forgotten)
}

/// Runs one job and records it for /metrics: `ran` when `did` says it did something, `skipped` when another runner
/// had it or there was nothing to do, `failed` on an error.
async fn timed<T>(
    job: &'static str,
    work: impl Future<Output = anyhow::Result<T>>,
    did: impl FnOnce(&T) -> bool,
) -> anyhow::Result<T> {
    let started = std::time::Instant::now();
    let result = work.await;
    let outcome = match &result {
        Ok(value) if did(value) => "ran",
        Ok(_) => "skipped",
        Err(_) => "failed",
    };
    crate::infra::metrics::job_run(job, outcome, started.elapsed());
    result
}
