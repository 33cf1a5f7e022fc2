//! Kilat's server: settings, start-up, the HTTP edge, the capabilities between it and the store, persistence and the
//! embedded web app. The direction of every dependency is in docs/ARCHITECTURE.md: `http` → capabilities (`auth`,
//! `certification`, `applications`, `orders`, `review`, `servicing`, `catalog`, `content`, `insights`, `dashboard`) → `kilat_domain`, `store`; nothing imports `http`.

pub mod account;
pub mod applications;
#[cfg(test)]
mod architecture;
pub mod audit;
pub mod auth;
pub mod catalog;
pub mod certification;
pub mod claims;
pub mod collections;
pub mod content;
pub mod dashboard;
pub mod error;
pub mod http;
pub mod i18n;
pub mod infra;
pub mod insights;
pub mod jobs;
pub mod ledger;
pub mod orders;
pub mod providers;
pub mod review;
pub mod services;
pub mod servicing;
pub mod settings;
pub mod startup;
pub mod store;
pub mod support;
pub mod telemetry;
