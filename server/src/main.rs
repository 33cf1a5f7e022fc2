//! `kilat`: the command line. Parses arguments, loads settings, installs tracing and calls the library.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kilat_server::catalog::quote;
use kilat_server::crypto::Secrets;
use kilat_server::settings::Settings;
use kilat_server::startup::{Application, shutdown_signal};
use kilat_server::store::Db;
use kilat_server::{http, telemetry};
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
    Serve,
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
}

#[tokio::main]
async fn main() {
    if let Err(err) = run(Cli::parse()).await {
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
        Command::Serve => {
            let settings = Settings::load(cli.config.as_deref())?;
            telemetry::init(settings.log.format);
            let app = Application::build(&settings).await?;
            let addr = app.local_addr();
            tracing::info!(%addr, mode = ?settings.mode, "listening");
            println!(
                "Kilat is running at http://{addr}/ (India: http://{addr}/?lang=1). Stop it with Ctrl-C."
            );
            app.run_until(shutdown_signal()).await
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
            let messages = db
                .list_contact_messages(&secrets, limit)
                .await
                .context("reading the contact messages")?;
            println!("{}", serde_json::to_string_pretty(&messages)?);
            db.close().await;
            Ok(())
        }
    }
}
