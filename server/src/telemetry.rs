//! Structured logs: `tracing` with levels from `RUST_LOG` (default `info`), as text or JSON.
//!
//! `RUST_LOG` is a list of `target=level` and a bare default level (`warn`, `info,kilat_server=debug,sqlx=warn`),
//! read as tracing-subscriber's `Targets`: `EnvFilter`'s span and field directives are not taken (its feature compiled
//! a regular-expression engine into the binary for them, docs/PERFORMANCE.md). A value that does not read logs at
//! `info`, with a warning saying so.

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::settings::LogFormat;

/// The levels `RUST_LOG` asks for: `Err` with the value when it does not read (then `info`).
fn levels(rust_log: Option<&str>) -> Result<Targets, String> {
    let info = Targets::new().with_default(LevelFilter::INFO);
    match rust_log.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(info),
        Some(value) => value.parse().map_err(|_| value.to_owned()),
    }
}

/// Installs the global subscriber. Logs go to stderr so that commands printing JSON keep stdout clean.
pub fn init(format: LogFormat) {
    let rust_log = std::env::var("RUST_LOG").ok();
    let (filter, unread) = match levels(rust_log.as_deref()) {
        Ok(filter) => (filter, None),
        Err(value) => (Targets::new().with_default(LevelFilter::INFO), Some(value)),
    };
    let registry = tracing_subscriber::registry().with(filter);
    let layer = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    // A second call (tests) keeps the first subscriber.
    let installed = match format {
        LogFormat::Json => registry
            .with(layer.json().flatten_event(true).with_current_span(true))
            .try_init(),
        LogFormat::Text => registry.with(layer).try_init(),
    };
    if let (Ok(()), Some(value)) = (installed, unread) {
        tracing::warn!(
            rust_log = %value,
            "RUST_LOG is not a list of target=level and a default level: logging at info"
        );
    }
}

#[cfg(test)]
mod tests {
    use tracing::Level;

    use super::*;

    #[test]
    fn rust_log_sets_a_default_and_per_target_levels() {
        let levels = levels(Some("warn,kilat_server=debug")).unwrap();
        assert!(levels.would_enable("sqlx::query", &Level::WARN));
        assert!(!levels.would_enable("sqlx::query", &Level::INFO));
        assert!(levels.would_enable("kilat_server::http", &Level::DEBUG));
        assert!(!levels.would_enable("kilat_server::http", &Level::TRACE));
    }

    #[test]
    fn no_rust_log_is_info_and_one_that_does_not_read_is_reported() {
        for unset in [None, Some(""), Some("  ")] {
            let levels = levels(unset).unwrap();
            assert!(levels.would_enable("kilat_server", &Level::INFO));
            assert!(!levels.would_enable("kilat_server", &Level::DEBUG));
        }
        assert_eq!(
            levels(Some("kilat_server=loud")).unwrap_err(),
            "kilat_server=loud"
        );
    }
}
