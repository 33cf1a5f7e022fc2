//! EXPERIMENT (issue 7 profiling, not for merging): switches read once from `KILAT_EXP`, a comma-separated list, so
//! that one release build can measure each candidate change alone and together.

use std::sync::OnceLock;

pub fn on(name: &str) -> bool {
    static SET: OnceLock<Vec<String>> = OnceLock::new();
    SET.get_or_init(|| {
        std::env::var("KILAT_EXP")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect()
    })
    .iter()
    .any(|s| s == name)
}
