//! Structured logs: `tracing` with levels from `RUST_LOG` (default `info`), as text or JSON.

use tracing_subscriber::EnvFilter;

use crate::settings::LogFormat;

/// Installs the global subscriber. Logs go to stderr so that commands printing JSON keep stdout clean.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second call (tests) keeps the first subscriber.
    let _ = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
}
