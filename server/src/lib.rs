//! Kilat's server: settings, start-up, the HTTP edge, persistence and the embedded web app.

pub mod agreement;
pub mod catalog;
pub mod certification;
pub mod crypto;
pub mod display;
pub mod http;
pub mod quote;
pub mod reference;
pub mod settings;
pub mod sign_in;
pub mod sms;
pub mod startup;
pub mod store;
pub mod telemetry;
pub mod web;
