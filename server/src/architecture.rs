//! Tests of the layering docs/ARCHITECTURE.md draws: nothing outside `http/` imports it (but the composition root that
//! builds the router), no SQL outside `store/`, no order status written outside `orders/`, no payment status outside
//! the payments lifecycle, no ledger entry outside `ledger/`, no provider that reaches into a capability, and a
//! ground floor (`services.rs`, `infra/`) that names none.

use std::path::{Path, PathBuf};

fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![root.clone()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path: PathBuf = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((relative, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

/// The file's code without its tests (tests may reach across layers to set up a case).
fn code_of(source: &str) -> &str {
    source.split("#[cfg(test)]").next().unwrap_or(source)
}

#[test]
fn nothing_outside_http_imports_http() {
    // `startup.rs` and `main.rs` are the composition root: they build the router and print the API document.
    let allowed = ["startup.rs", "main.rs", "architecture.rs"];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| !path.starts_with("http/") && !allowed.contains(&path.as_str()))
        .filter(|(_, source)| {
            let code = code_of(source);
            code.contains("crate::http") || code.contains("super::http") || code.contains("axum")
        })
        .map(|(path, _)| path)
        .collect();
    assert!(offenders.is_empty(), "HTTP outside http/: {offenders:?}");
}

/// The capabilities: what the product does, as opposed to the infrastructure it does it with.
const CAPABILITIES: &[&str] = &[
    "crate::account",
    "crate::applications",
    "crate::audit",
    "crate::auth",
    "crate::catalog",
    "crate::certification",
    "crate::claims",
    "crate::collections",
    "crate::content",
    "crate::dashboard",
    "crate::insights",
    "crate::jobs",
    "crate::ledger",
    "crate::orders",
    "crate::review",
    "crate::services",
    "crate::servicing",
    "crate::support",
];

/// The files under `folder` that use a capability, each with the first it uses.
fn reaching_into_capabilities(folder: &str) -> Vec<String> {
    sources()
        .into_iter()
        .filter(|(path, _)| path.starts_with(folder))
        .filter_map(|(path, source)| {
            let code = code_of(&source);
            CAPABILITIES
                .iter()
                .find(|c| code.contains(*c))
                .map(|c| format!("{path} uses {c}"))
        })
        .collect()
}

#[test]
fn providers_know_nothing_of_loans() {
    // An adapter verifies, reads and calls out; what its event does to a loan is the capabilities' (servicing/).
    let offenders = reaching_into_capabilities("providers/");
    assert!(
        offenders.is_empty(),
        "providers reaching into capabilities: {offenders:?}"
    );
}

#[test]
fn infrastructure_knows_no_capability() {
    // The ground floor does not reach up: the keys, the clock, the bounds and the limiter serve every capability and
    // name none.
    let offenders = reaching_into_capabilities("infra/");
    assert!(
        offenders.is_empty(),
        "infrastructure reaching into capabilities: {offenders:?}"
    );
}

/// What the ground floor (`services.rs`) may name of this crate: the infrastructure, the store, the settings and the
/// providers. Standard and external crates are not `crate::` paths, so they pass.
const GROUND_FLOOR: &[&str] = &["infra", "store", "settings", "providers"];

/// The modules of this crate that `code` names, by their first part: `crate::x::…`, `super::x::…` and each item of a
/// group, `crate::{x::…, y}`.
fn crate_modules_named(code: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut named = Vec::new();
    for prefix in ["crate::", "super::"] {
        for (at, _) in code.match_indices(prefix) {
            // `kilat_crate::` or `my_super::` are other paths.
            if code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                continue;
            }
            let rest = code[at + prefix.len()..].trim_start();
            let Some(group) = rest.strip_prefix('{') else {
                named.push(ident(rest));
                continue;
            };
            // The group's items at its own depth, up to its closing brace.
            let (mut depth, mut start) = (0usize, 0usize);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        named.push(ident(group[start..i].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        named.push(ident(group[start..i].trim_start()));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        }
    }
    named.retain(|m| !m.is_empty() && m != "self");
    named
}

#[test]
fn the_ground_floor_names_no_capability() {
    // `Services` is what every capability is handed: the database, the clock, the keys, the settings, the providers.
    // What a capability holds (the catalog, the site's claims, the reference data) is held above it, by the HTTP
    // layer's `AppState`, and passed to the capability functions that use it (docs/ARCHITECTURE.md, "Layers").
    let (_, source) = sources()
        .into_iter()
        .find(|(path, _)| path == "services.rs")
        .expect("services.rs");
    let reaching: Vec<_> = crate_modules_named(code_of(&source))
        .into_iter()
        .filter(|m| !GROUND_FLOOR.contains(&m.as_str()))
        .collect();
    assert!(
        reaching.is_empty(),
        "services.rs names {reaching:?}: it may name only {GROUND_FLOOR:?}, std and external crates"
    );
}

#[test]
fn the_ground_floor_check_sees_every_way_of_naming_a_module() {
    // The lines services.rs had before the capabilities' state left it, and the other ways to write them.
    assert_eq!(
        crate_modules_named("use crate::auth::SignInService;\nuse crate::content::ReferenceData;"),
        ["auth", "content"]
    );
    assert_eq!(
        crate_modules_named(
            "use crate::{infra::clock::Clock, catalog::{Catalog, Listed},\n    store::Db};\nuse super::claims;"
        ),
        ["infra", "catalog", "store", "claims"]
    );
    assert_eq!(
        crate_modules_named("pub files: Arc<dyn crate::support::files::FileStore>,"),
        ["support"]
    );
    assert!(crate_modules_named("use std::sync::Arc;\nuse kilat_domain::CapTable;").is_empty());
    assert!(crate_modules_named("use crate::{self};").is_empty());
}

#[test]
fn sql_lives_only_in_the_store() {
    let needles = [
        "sqlx::query",
        "query_as(",
        "query_scalar(",
        "SELECT ",
        "INSERT INTO",
        "UPDATE ",
        "DELETE FROM",
    ];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| !path.starts_with("store/") && path != "architecture.rs")
        .filter(|(_, source)| needles.iter().any(|n| code_of(source).contains(n)))
        .map(|(path, _)| path)
        .collect();
    assert!(offenders.is_empty(), "SQL outside store/: {offenders:?}");
}

#[test]
fn every_transaction_is_a_store_tx() {
    // sqlx's own transactions are not cancellation-safe at their start (docs/ARCHITECTURE.md, "Transactions and
    // cancelled requests"): only `store::Tx` begins one, in `store/mod.rs`, and no statement begins one by hand.
    let needles = [
        ".begin()",
        ".begin_with(",
        ".try_begin",
        "Transaction<",
        "\"BEGIN",
        "\"COMMIT",
        "\"ROLLBACK",
        "\"SAVEPOINT",
    ];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| path != "store/mod.rs" && path != "architecture.rs")
        .flat_map(|(path, source)| {
            let code = code_of(&source).to_owned();
            needles
                .iter()
                .filter(|n| code.contains(*n))
                .filter(|n| {
                    // `db.begin()` and `self.begin()` on a `Db` are `store::Tx`'s own.
                    **n != ".begin()"
                        || code.matches(".begin()").count()
                            != code.matches("db.begin()").count()
                                + code.matches("self.begin()").count()
                })
                .map(|n| format!("{path}: {n}"))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "a transaction begun outside store::Tx: {offenders:?}"
    );
}

#[test]
fn only_the_orders_lifecycle_writes_an_order_status() {
    let writers = [
        ".set_order_status(",
        ".set_orders_status(",
        ".insert_order(",
    ];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with("orders/") && !path.starts_with("store/") && path != "architecture.rs"
        })
        .filter(|(_, source)| writers.iter().any(|w| code_of(source).contains(w)))
        .map(|(path, _)| path)
        .collect();
    assert!(
        offenders.is_empty(),
        "order status written outside orders/: {offenders:?}"
    );
    // In the store, the statements that write `orders.status` are the ones the lifecycle calls: one order's change and
    // a batch's (`apply_in`, `apply_many_held_in`), and the insert that opens an order.
    let store = sources()
        .into_iter()
        .find(|(path, _)| path == "store/orders.rs")
        .unwrap()
        .1;
    assert_eq!(store.matches("UPDATE orders SET status").count(), 2);
    assert_eq!(store.matches("INSERT INTO orders ").count(), 1);
}

#[test]
fn only_the_ledger_module_writes_ledger_entries() {
    let writers = [".append_entry(", ".append_entries("];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with("ledger/") && !path.starts_with("store/") && path != "architecture.rs"
        })
        .filter(|(_, source)| writers.iter().any(|w| code_of(source).contains(w)))
        .map(|(path, _)| path)
        .collect();
    assert!(
        offenders.is_empty(),
        "ledger entries written outside ledger/: {offenders:?}"
    );
    // In the store, the statements that insert entries are the ones the ledger calls (one entry, a batch) and the
    // development seeds' set-based inserts (`dev seed-loans`, `dev seed`); none updates one, and only the purge of records past their retention
    // (docs/ACCOUNT.md) deletes a whole loan's.
    let store: String = sources()
        .into_iter()
        .filter(|(path, _)| path.starts_with("store/"))
        .map(|(_, source)| code_of(&source).to_owned())
        .collect();
    assert_eq!(store.matches("INSERT INTO ledger_entries").count(), 4);
    assert_eq!(store.matches("UPDATE ledger_entries").count(), 0);
    assert_eq!(store.matches("DELETE FROM ledger_entries").count(), 1);
}

#[test]
fn only_the_payments_lifecycle_writes_a_payment_status() {
    let writers = [
        ".set_payment_status(",
        ".record_refund(",
        ".credit_payments(",
    ];
    let offenders: Vec<_> = sources()
        .into_iter()
        .filter(|(path, _)| {
            path != "servicing/payments/lifecycle.rs"
                && !path.starts_with("store/")
                && path != "architecture.rs"
        })
        .filter(|(_, source)| writers.iter().any(|w| code_of(source).contains(w)))
        .map(|(path, _)| path)
        .collect();
    assert!(
        offenders.is_empty(),
        "payment status written outside the payments lifecycle: {offenders:?}"
    );
    let store = sources()
        .into_iter()
        .find(|(path, _)| path == "store/payments.rs")
        .unwrap()
        .1;
    // The lifecycle's conditional move (one payment, and a batch of callbacks' credits) and the refund's recording;
    // nothing else sets a payment's status.
    assert_eq!(store.matches("UPDATE payments SET status").count(), 3);
}

#[test]
fn every_limit_is_in_the_one_list_and_counted_only_by_the_limiter() {
    // One limiter (issue 17): every limit is built in `limits.rs` (whose list the cleanup's longest window comes from),
    // only the limiter's store module counts in `rate_limits`, and no limiter of its own is left.
    for (path, source) in sources() {
        if path == "architecture.rs" {
            continue;
        }
        let code = code_of(&source);
        let builds_limit = code.match_indices("Limit {").any(|(at, _)| {
            !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        assert!(
            !builds_limit || path == "infra/limits.rs",
            "{path}: a `Limit` outside the one list"
        );
        let counts = code.contains("INTO rate_limits") || code.contains("UPDATE rate_limits");
        assert!(
            !counts || path == "store/rate_limits.rs",
            "{path}: counts requests outside the limiter"
        );
        for old in [
            "governor::",
            "telemetry_limits",
            "login_attempts",
            "sign_in_limiters",
        ] {
            assert!(!code.contains(old), "{path}: {old}, a limiter of its own");
        }
    }
}
