//! `kilat`: the command line. Parses arguments, loads settings, installs tracing and calls the library.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kilat_domain::{Code, Market};
use kilat_server::auth::operators::{self, Role};
use kilat_server::catalog::quote;
use kilat_server::error::Error;
use kilat_server::i18n::Lang;
use kilat_server::infra::clock::Clock;
use kilat_server::infra::crypto::Secrets;
use kilat_server::settings::{Mode, Settings};
use kilat_server::startup::{Application, Worker, shutdown_signal};
use kilat_server::store::Db;
use kilat_server::{http, jobs, telemetry};
use secrecy::ExposeSecret;

#[derive(Parser)]
#[command(
    name = "kilat",
    version,
    about = "Kilat: the marketing site, borrower app, operator console and API"
)]
struct Cli {
    /// An optional TOML settings file (see server/src/defaults.toml for every key).
    #[arg(long, global = true, env = "KILAT_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start the server (KILAT_LISTEN, default 127.0.0.1:8080).
    Serve {
        /// `off` for a web server beside a `kilat worker` on the same database: the scheduled jobs run there, not
        /// here. `on` (the default) runs them here too, as one server alone needs.
        #[arg(long, value_enum, default_value_t = Jobs::On)]
        jobs: Jobs,
    },
    /// Run the scheduled jobs (overdue, reminders, retention, sweeps) and nothing else: the worker beside web servers
    /// started with `kilat serve --jobs off`. Each job runs once per day and market whatever runs it.
    Worker,
    /// Print the OpenAPI document of the JSON API.
    Openapi,
    /// Print the Key Fact Statement of one loan as JSON: every cash flow with its date, each fee, net disbursed,
    /// total repayable and APR. Checks the product file (format: docs/MONEY.md §7) before it is published.
    Quote {
        /// A product file, e.g. server/products/in-flexi-6m.toml.
        #[arg(long)]
        product: PathBuf,
        /// The amount in minor units (paise or sen): 1000000 is ₹10,000 or Rp10.000.
        #[arg(long)]
        amount: i64,
        /// One of the product's term codes.
        #[arg(long)]
        term: String,
        /// Disbursal date, YYYY-MM-DD (default: today, UTC).
        #[arg(long)]
        date: Option<String>,
    },
    /// Print the stored contact-form messages as a JSON array, newest first.
    ContactMessages {
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// Operators of the console.
    #[command(subcommand)]
    Operator(OperatorCommand),
    /// Scheduled jobs, run by hand (`kilat serve` runs them on a timer).
    #[command(subcommand)]
    Jobs(JobsCommand),
    /// Development tools (refused in production).
    #[command(subcommand)]
    Dev(DevCommand),
}

/// Whether `kilat serve` runs the scheduled jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Jobs {
    On,
    Off,
}

#[derive(Subcommand)]
enum DevCommand {
    /// Writes a lending book at scale straight into the database (issue 20): borrowers with sealed PII and
    /// certification, orders across markets and statuses, loans with plans and ledgers, arrears, UTR payments.
    Seed {
        #[arg(long)]
        borrowers: usize,
        #[arg(long)]
        orders: usize,
        /// Orders written per set-based batch.
        #[arg(long, default_value_t = 100_000)]
        batch: usize,
    },
    /// Writes disbursed loans straight into the database (the overdue job's benchmark).
    SeedLoans {
        #[arg(long, value_parser = parse_market_arg)]
        market: Market,
        #[arg(long)]
        product: String,
        /// In minor units.
        #[arg(long)]
        amount: i64,
        #[arg(long)]
        term: String,
        #[arg(long, value_parser = parse_date_arg)]
        payout: time::Date,
        #[arg(long)]
        loans: usize,
    },
}

#[derive(Subcommand)]
enum JobsCommand {
    /// Runs a job for each market's business date (or `--date`), unless a server or another run has already run it
    /// for that date.
    Run {
        #[arg(value_enum)]
        job: JobName,
        /// Only this market (IN or ID); both by default.
        #[arg(long, value_parser = parse_market_arg)]
        market: Option<Market>,
        /// The business date to run for (YYYY-MM-DD); today in each market by default. Production refuses a date
        /// after today.
        #[arg(long, value_parser = parse_date_arg)]
        date: Option<time::Date>,
    },
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum JobName {
    /// Late charges, overdue status and reminders (docs/ARCHITECTURE.md, Jobs).
    Overdue,
    /// Removes the app's telemetry older than `telemetry.retention_days` (markets and dates do not apply).
    TelemetryRetention,
    /// Purges the records of deleted accounts whose retention (`kept_records.*.retention_days`) has passed
    /// (docs/ACCOUNT.md, "Retention").
    RecordsRetention,
    /// Removes the stored files no record names that were written more than a day ago (uploads whose server
    /// stopped before their record; markets and dates do not apply; runs even when today's sweep has run).
    OrphanFiles,
    /// Removes the rows of `rate_limits` whose window ended long ago (markets and dates do not apply).
    RateLimits,
    /// Removes sign-in codes a day after they expired and complaint photos never sent a week after their upload
    /// (markets and dates do not apply).
    Leftovers,
    /// Keeps the dashboard's ended days that are not kept yet (the last 30 days up to yesterday; dates do not apply).
    DashboardDays,
}

fn parse_market_arg(code: &str) -> Result<Market, String> {
    kilat_server::auth::parse_market(code)
        .ok_or_else(|| format!("unknown market {code:?} (IN or ID)"))
}

fn parse_date_arg(text: &str) -> Result<time::Date, String> {
    kilat_server::store::loans::parse_date(text)
        .map_err(|_| format!("not a date: {text:?} (YYYY-MM-DD)"))
}

#[derive(Subcommand)]
enum OperatorCommand {
    /// Create an operator. The password comes from KILAT_OPERATOR_PASSWORD when set, else from a prompt.
    Create {
        #[arg(long)]
        username: String,
        /// One or more of admin, reviewer, finance, support, collections, separated by commas (or the flag repeated).
        #[arg(long, required = true, value_parser = parse_roles)]
        role: Vec<RoleList>,
        /// The markets whose records the operator sees: IN, ID or both, separated by commas (both by default).
        #[arg(long, default_value = "IN,ID", value_parser = parse_markets)]
        markets: MarketList,
    },
}

/// A `--markets` value: a comma-separated list of markets.
#[derive(Debug, Clone)]
struct MarketList(Vec<Market>);

fn parse_markets(list: &str) -> Result<MarketList, String> {
    operators::parse_market_list(list).map(MarketList)
}

/// One `--role` value: a comma-separated list of roles.
#[derive(Debug, Clone)]
struct RoleList(Vec<Role>);

fn parse_roles(list: &str) -> Result<RoleList, String> {
    Role::parse_list(list).map(RoleList)
}

/// mimalloc rather than glibc's allocator (docs/PERFORMANCE.md, "The allocator"): each thread allocates from a heap of
/// its own without a lock, and a block freed by another thread (a row decoded on a SQLite connection's thread, dropped
/// on an HTTP worker) goes back to its owner's heap. glibc's arenas either contended (two of them shared by the
/// workers, the runtime's threads and each SQLite connection's) or, one per thread, kept what was freed in them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's arenas are committed as their pages are used rather than all at once, so that the pages it purges
/// (unused for a second) are returned to the system; committed eagerly, a purge only marks them free (`MADV_FREE`)
/// and they stay in the resident figure until the system runs short. Set before the first allocation, which reserves
/// the first arena: the Rust runtime allocates before `main`, so this runs as the program is loaded, from
/// `.init_array` (as `MIMALLOC_ARENA_EAGER_COMMIT=0` would). That variable in the environment still wins.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

#[cfg(target_os = "linux")]
extern "C" fn tune_allocator() {
    // `mi_option_arena_eager_commit` in the mimalloc.h of the v3 that libmimalloc-sys builds (its Rust constants
    // stop before it); Cargo.lock pins that version.
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    // SAFETY: `getenv` with a NUL-terminated name (no allocation), and `mi_option_set` only sets an option; both run
    // while the program is loaded, before `main` and before any other thread exists.
    unsafe {
        if libc::getenv(c"MIMALLOC_ARENA_EAGER_COMMIT".as_ptr()).is_null() {
            libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        }
    }
}

/// Returns what start-up freed (the brotli encoder's tables, the demo admin's 19 MiB password hash) to the system now
/// rather than when each thread next allocates.
fn release_freed_memory() {
    // SAFETY: `mi_collect` only frees memory mimalloc holds unused; any thread may call it at any time.
    unsafe { libmimalloc_sys::mi_collect(true) };
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("starting the tokio runtime");
    if let Err(err) = runtime.block_on(run(Cli::parse())) {
        // The chain of reasons, one line: this is read by people fixing a setting or a product file.
        eprintln!("kilat: {err:#}");
        std::process::exit(1);
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Openapi => {
            print!("{}", http::openapi::document());
            Ok(())
        }
        Command::Worker => {
            let settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            let worker = Worker::build(&settings).await?;
            if let Some(metrics) = worker.metrics_addr() {
                println!("Metrics at http://{metrics}/metrics");
            }
            tracing::info!(mode = ?settings.mode, "running the scheduled jobs");
            println!("Kilat's worker is running the scheduled jobs. Stop it with Ctrl-C.");
            worker
                .run_until(format!("worker-{}", std::process::id()), shutdown_signal())
                .await
        }
        Command::Serve { jobs: run_jobs } => {
            let settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            let app = Application::build(&settings).await?;
            let addr = app.local_addr();
            if settings.mode == Mode::Development
                && let Some(password) = operators::create_demo_admin(app.services()).await?
            {
                println!(
                    "Console: http://{addr}/console/ as admin, password {password} (shown once; development only; \
                     docs/API-CONSOLE.md)"
                );
            }
            if let Some(metrics) = app.metrics_addr() {
                println!("Metrics at http://{metrics}/metrics");
            }
            release_freed_memory();
            tracing::info!(%addr, mode = ?settings.mode, "listening");
            println!(
                "Kilat is running at http://{addr}/ (India: http://{addr}/?lang=1). Stop it with Ctrl-C."
            );

            let timer = (run_jobs == Jobs::On).then(|| {
                let runner = format!("serve-{}", std::process::id());
                tokio::spawn(jobs::run_on_timer(app.services().clone(), runner))
            });
            if timer.is_none() {
                tracing::info!("scheduled jobs off: a `kilat worker` runs them");
            }
            let served = app.run_until(shutdown_signal()).await;
            if let Some(timer) = timer {
                timer.abort();
            }
            served
        }
        Command::Dev(DevCommand::Seed {
            borrowers,
            orders,
            batch,
        }) => {
            let mut settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            anyhow::ensure!(
                settings.mode == Mode::Development,
                "kilat dev commands run only in development mode"
            );
            settings.listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let app = Application::build(&settings).await?;
            let seeded =
                jobs::dataset::seed(app.services(), app.catalog(), borrowers, orders, batch)
                    .await?;
            let rows: Vec<String> = seeded
                .rows
                .iter()
                .map(|(table, n)| format!("{table} {n}"))
                .collect();
            println!(
                "seeded {} borrowers in {:.1} s and {} orders in {:.1} s ({})",
                seeded.borrowers,
                seeded.borrowers_secs,
                seeded.orders,
                seeded.orders_secs,
                rows.join(", ")
            );
            app.db().close().await;
            Ok(())
        }
        Command::Dev(DevCommand::SeedLoans {
            market,
            product,
            amount,
            term,
            payout,
            loans,
        }) => {
            let mut settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            anyhow::ensure!(
                settings.mode == Mode::Development,
                "kilat dev commands run only in development mode"
            );
            settings.listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let app = Application::build(&settings).await?;
            let started = std::time::Instant::now();
            let product = app
                .catalog()
                .get(market, &product)
                .with_context(|| format!("no product {product} in {}", market.code()))?;
            let installments =
                jobs::seed::open_loans(app.services(), &product, amount, &term, payout, loans)
                    .await?;
            println!(
                "seeded {loans} loans ({installments} installments) in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            app.db().close().await;
            Ok(())
        }
        Command::Jobs(JobsCommand::Run { job, market, date }) => {
            let mut settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            // The services without serving: a free local port is bound and never listened on.
            settings.listen = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
            let app = Application::build(&settings).await?;
            let s = app.services();
            // The jobs over the whole store: markets and dates do not apply.
            let started = std::time::Instant::now();
            let whole_store = match job {
                JobName::TelemetryRetention => {
                    let r = jobs::retention::run(s).await?;
                    Some(format!(
                        "telemetry-retention: {} events, {} devices, {} push tokens, {} locations, {} ratings removed",
                        r.events, r.devices, r.tokens, r.locations, r.ratings
                    ))
                }
                JobName::OrphanFiles => {
                    let swept = jobs::orphan_files::sweep(s).await?;
                    Some(format!(
                        "orphan-files: {} files listed, {} younger than a day, {} recorded, {} orphans removed",
                        swept.files, swept.young, swept.recorded, swept.removed
                    ))
                }
                JobName::RateLimits => {
                    let removed = jobs::rate_limits::run(s).await?;
                    Some(format!(
                        "rate-limits: {removed} rows past their window removed"
                    ))
                }
                JobName::Leftovers => {
                    let removed = jobs::leftovers::run(s).await?;
                    Some(format!(
                        "leftovers: {} sign-in codes, {} photos never sent, {} sessions and {} handled contact \
                         messages removed",
                        removed.login_codes,
                        removed.waiting_photos,
                        removed.sessions,
                        removed.contact_messages
                    ))
                }
                JobName::DashboardDays => {
                    let markets = market.map_or_else(|| Market::ALL.to_vec(), |m| vec![m]);
                    let mut kept = Vec::new();
                    for m in markets {
                        kept.push(format!(
                            "{} {}",
                            m.code(),
                            jobs::dashboard_days::run(s, m).await?
                        ));
                    }
                    Some(format!("dashboard-days: days kept {}", kept.join(", ")))
                }
                JobName::Overdue | JobName::RecordsRetention => None,
            };
            if let Some(summary) = whole_store {
                println!("{summary} in {:.2} s", started.elapsed().as_secs_f64());
                app.db().close().await;
                return Ok(());
            }
            let runner = format!("cli-{}", std::process::id());
            let markets = market.map_or_else(|| Market::ALL.to_vec(), |m| vec![m]);
            for market in markets {
                let today = s.clock.today(market);
                let on = date.unwrap_or(today);
                if on > today && settings.mode == Mode::Production {
                    anyhow::bail!("{on} is after today ({today}) in {}", market.code());
                }
                let started = std::time::Instant::now();
                if let JobName::RecordsRetention = job {
                    let report = jobs::records_retention::run(s, market, on, &runner).await?;
                    if report.ran {
                        let p = &report.purged;
                        println!(
                            "records-retention {} {on}: {} accounts purged ({} orders, {} payments, {} UTRs, {} ledger entries, {} complaints, {} audit entries) in {:.2} s",
                            market.code(),
                            p.borrowers,
                            p.orders,
                            p.payments,
                            p.utrs,
                            p.ledger_entries,
                            p.complaints,
                            p.audit_entries,
                            started.elapsed().as_secs_f64()
                        );
                    } else {
                        println!(
                            "records-retention {} {on}: already run (nothing done)",
                            market.code()
                        );
                    }
                    continue;
                }
                let report = match job {
                    JobName::Overdue => jobs::overdue::run(s, market, on, &runner).await?,
                    JobName::TelemetryRetention
                    | JobName::RecordsRetention
                    | JobName::OrphanFiles
                    | JobName::RateLimits
                    | JobName::Leftovers
                    | JobName::DashboardDays => {
                        unreachable!("run above")
                    }
                };
                if report.ran {
                    println!(
                        "overdue {} {on}: {} open loans, {} late charges posted, {} fell overdue, {} caught up, {} reminders queued, {} unreadable loans left as they were (see the log) in {:.2} s",
                        market.code(),
                        report.orders,
                        report.late_charges,
                        report.fell_overdue,
                        report.caught_up,
                        report.reminders,
                        report.skipped,
                        started.elapsed().as_secs_f64()
                    );
                } else {
                    println!("overdue {} {on}: already run (nothing done)", market.code());
                }
            }
            app.db().close().await;
            Ok(())
        }
        Command::Quote {
            product,
            amount,
            term,
            date,
        } => {
            let settings = Settings::load(cli.config.as_deref())?;
            let kfs = quote::key_fact_statement(
                &settings.site,
                &settings.caps.indonesia,
                &product,
                amount,
                &term,
                date.as_deref(),
            )?;
            println!("{}", serde_json::to_string_pretty(&kfs)?);
            Ok(())
        }
        Command::ContactMessages { limit } => {
            let settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            let secrets = Secrets::from_settings(settings.secret_key.as_ref(), settings.mode)?;
            let db = Db::connect(settings.database_url.expose_secret(), 1).await?;
            db.reseal_unbound_pii(&secrets).await?;
            db.seal_clear_contact_texts(&secrets).await?;
            // Whoever runs this holds the database and its key: not an operator of the console, whose every view of
            // these messages is audited (docs/ARCHITECTURE.md, contact messages).
            let messages = db
                .list_contact_messages(&secrets, limit)
                .await
                .context("reading the contact messages")?;
            println!("{}", serde_json::to_string_pretty(&messages)?);
            db.close().await;
            Ok(())
        }
        Command::Operator(OperatorCommand::Create {
            username,
            role,
            markets,
        }) => {
            let settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            let password = match std::env::var("KILAT_OPERATOR_PASSWORD") {
                Ok(password) if !password.is_empty() => password,
                _ => rpassword::prompt_password(format!("Password for {username}: "))
                    .context("reading the password (or set KILAT_OPERATOR_PASSWORD)")?,
            };
            let roles: Vec<Role> = role.into_iter().flat_map(|list| list.0).collect();
            let db = Db::connect(settings.database_url.expose_secret(), 1).await?;
            let created = operators::create_with(
                &db,
                &Clock::real(),
                &username,
                &password,
                &roles,
                &markets.0,
                None,
            )
            .await
            .map_err(|e| anyhow::anyhow!("{}", describe(&e)))?;
            println!(
                "Created operator {} ({}) with roles {} in markets {}",
                created.username,
                created.id,
                created
                    .roles
                    .iter()
                    .map(|r| r.code())
                    .collect::<Vec<_>>()
                    .join(","),
                created
                    .markets
                    .iter()
                    .map(|m| m.code())
                    .collect::<Vec<_>>()
                    .join(",")
            );
            db.close().await;
            Ok(())
        }
    }
}

/// A capability's failure as one line for the terminal: the fields at fault with their English texts.
fn describe(err: &Error) -> String {
    match err.field_errors() {
        Some(fields) => fields
            .fields()
            .map(|(name, problem)| format!("{name}: {}", problem.text(Lang::En)))
            .collect::<Vec<_>>()
            .join("; "),
        None => format!("{err:#}"),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn roles_of(args: &[&str]) -> Result<Vec<Role>, String> {
        let cli = Cli::try_parse_from(args).map_err(|e| e.to_string())?;
        match cli.command {
            Command::Operator(OperatorCommand::Create { role, .. }) => {
                Ok(role.into_iter().flat_map(|list| list.0).collect())
            }
            _ => Err("not operator create".into()),
        }
    }

    #[test]
    fn operator_create_takes_a_comma_separated_role_list() {
        assert_eq!(
            roles_of(&[
                "kilat",
                "operator",
                "create",
                "--username",
                "asha",
                "--role",
                "reviewer,support"
            ]),
            Ok(vec![Role::Reviewer, Role::Support])
        );
    }

    #[test]
    fn operator_create_takes_the_role_flag_repeated() {
        assert_eq!(
            roles_of(&[
                "kilat",
                "operator",
                "create",
                "--username",
                "asha",
                "--role",
                "finance",
                "--role",
                "admin"
            ]),
            Ok(vec![Role::Finance, Role::Admin])
        );
    }

    #[test]
    fn operator_create_refuses_an_unknown_role_or_none() {
        let unknown = roles_of(&[
            "kilat",
            "operator",
            "create",
            "--username",
            "asha",
            "--role",
            "reviewer,boss",
        ]);
        assert!(unknown.unwrap_err().contains("unknown role \"boss\""));
        assert!(
            roles_of(&[
                "kilat",
                "operator",
                "create",
                "--username",
                "asha",
                "--role",
                ""
            ])
            .is_err()
        );
        assert!(roles_of(&["kilat", "operator", "create", "--username", "asha"]).is_err());
    }
}
