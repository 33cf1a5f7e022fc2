//! The end of a run of the suite on PostgreSQL: its databases, kept while it ran (`helpers::pg_run`), are dropped.

use futures_util::StreamExt;
use sqlx::Connection;

use crate::helpers::{pg_run, pg_run_prefix, pg_run_tablespace};

/// Run by `make test-rust-pg` after the suite, with the suite's `TEST_DATABASE_RUN`; ignored otherwise.
#[tokio::test]
#[ignore = "run by `make test-rust-pg` after the suite, with its TEST_DATABASE_RUN"]
async fn the_runs_databases_are_dropped() {
    let admin_url = std::env::var("TEST_DATABASE_URL").expect("TEST_DATABASE_URL names the server");
    let run = pg_run().expect("TEST_DATABASE_RUN names the run whose databases to drop");
    let prefix = pg_run_prefix(&run);
    let mut admin = sqlx::PgConnection::connect(&admin_url).await.unwrap();
    let names = run_databases(&mut admin, &prefix).await;
    // Four at a time: 4 parallel drops of 115 databases took 16 s here, mostly the kernel removing their files.
    let failed: Vec<String> = futures_util::stream::iter(names.iter().cloned())
        .map(|name| {
            let admin_url = admin_url.clone();
            async move {
                let mut conn = match sqlx::PgConnection::connect(&admin_url).await {
                    Ok(conn) => conn,
                    Err(e) => return Some(format!("{name}: connecting: {e}")),
                };
                let dropped =
                    sqlx::query(&format!(r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#))
                        .execute(&mut conn)
                        .await;
                conn.close().await.ok();
                dropped.err().map(|e| format!("{name}: {e}"))
            }
        })
        .buffer_unordered(4)
        .filter_map(|failure| async move { failure })
        .collect()
        .await;
    assert!(failed.is_empty(), "databases not dropped: {failed:?}");
    let left = run_databases(&mut admin, &prefix).await;
    assert!(
        left.is_empty(),
        "the run's databases are still there: {left:?}"
    );
    // The run's tablespace, empty now, if it had one (`helpers::pg_run_tablespace`).
    if let Some(ts) = pg_run_tablespace() {
        sqlx::query(&format!(r#"DROP TABLESPACE IF EXISTS "{}""#, ts.name))
            .execute(&mut admin)
            .await
            .unwrap();
        println!("dropped the run's tablespace {} in {}", ts.name, ts.dir);
    }
    println!("dropped the {} databases of run {run}", names.len());
}

async fn run_databases(admin: &mut sqlx::PgConnection, prefix: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT datname FROM pg_database WHERE left(datname, length($1)) = $1 ORDER BY datname",
    )
    .bind(prefix)
    .fetch_all(admin)
    .await
    .unwrap()
}
