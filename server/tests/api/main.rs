//! The API test suite: one binary, every test on a fresh database (SQLite, or PostgreSQL when TEST_DATABASE_URL is
//! set).

mod account;
mod admin;
mod agreement;
mod cancel;
mod certification;
mod company;
mod complaints;
mod console;
mod helpers;
mod jobs;
mod kept_records;
mod lifecycle;
mod limits;
mod loans;
mod login;
mod openapi;
mod orders;
mod providers;
mod s3_files;
mod security;
mod servicing;
mod site;
mod telemetry;
mod web;
mod webhooks;
