//! `spawn_app()`: the real application on port 0 with a fresh, migrated database, and typed helpers around it.

use std::net::SocketAddr;

use kilat_server::infra::crypto::Secrets;
use kilat_server::settings::Settings;
use kilat_server::startup::Application;
use kilat_server::store::Db;
use secrecy::ExposeSecret;
use serde_json::Value;
use sqlx::Connection;
use tokio::sync::oneshot;

pub struct TestApp {
    pub addr: SocketAddr,
    pub client: reqwest::Client,
    pub db: Db,
    /// The capabilities' handles, to act without HTTP (as an operator or a job will).
    pub services: kilat_server::services::Services,
    /// The loan products on offer, as the server holds them.
    pub catalog: std::sync::Arc<kilat_server::catalog::Catalog>,
    /// The database's URL, for a second server on the same database.
    pub database_url: String,
    /// Where `/metrics` is served, when the test set `metrics.listen`.
    pub metrics_addr: Option<SocketAddr>,
    pub secrets: Secrets,
    /// The file store's folder (complaint images), removed with the database.
    pub files_dir: std::path::PathBuf,
    /// The operators the borrower builders approve and pay out as, made on first use (`crate::builders`).
    pub(crate) staff: crate::builders::Staff,
    stop: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    cleanup: Option<Cleanup>,
}

/// What to remove once the test is over.
enum Cleanup {
    SqliteDir(std::path::PathBuf),
    PostgresDb { admin_url: String, name: String },
}

/// Settings for a test: port 0 and a unique database, with `adjust` applied on top.
pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    let (database_url, cleanup) = fresh_database().await;
    build_app(database_url, Some(cleanup), adjust).await
}

/// An app on a database that outlives it (a [`SharedDatabase`]'s): stopping it leaves the database as it is.
pub async fn spawn_app_on(database_url: &str) -> TestApp {
    spawn_app_on_with(database_url, |_| {}).await
}

/// [`spawn_app_on`] with settings of its own.
pub async fn spawn_app_on_with(database_url: &str, adjust: impl FnOnce(&mut Settings)) -> TestApp {
    build_app(database_url.to_owned(), None, adjust).await
}

async fn build_app(
    database_url: String,
    cleanup: Option<Cleanup>,
    adjust: impl FnOnce(&mut Settings),
) -> TestApp {
    // SAFETY of the environment: settings are read from defaults and the override below, not from the process
    // environment, so tests do not race each other through env vars.
    let mut settings = Settings::load(None).expect("the defaults load");
    settings.listen = "127.0.0.1:0".parse().unwrap();
    settings.database_url = database_url.into();
    settings.database_max_connections = 4;
    settings.files.dir = std::env::temp_dir().join(format!(
        "kilat-test-files-{}",
        uuid::Uuid::new_v4().simple()
    ));
    adjust(&mut settings);

    let app = Application::build(&settings)
        .await
        .expect("the application builds");
    let addr = app.local_addr();
    let metrics_addr = app.metrics_addr();
    let db = app.db().clone();
    let services = app.services().clone();
    let catalog = app.catalog().clone();
    let secrets = services.secrets.clone();
    let database_url = settings.database_url.expose_secret().to_owned();
    let files_dir = settings.files.dir.clone();
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until(async move {
        let _ = stopped.await;
    }));
    // reqwest is built with rustls and no default crypto provider (the server picks ring); so do the tests.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    TestApp {
        addr,
        client,
        db,
        services,
        catalog,
        database_url,
        metrics_addr,
        secrets,
        files_dir,
        staff: Default::default(),
        stop: Some(stop),
        server: Some(server),
        cleanup,
    }
}

/// A uniquely named database: a temporary SQLite file, or a new PostgreSQL database on TEST_DATABASE_URL's server.
async fn fresh_database() -> (String, Cleanup) {
    let unique = uuid::Uuid::new_v4().simple().to_string();
    match std::env::var("TEST_DATABASE_URL") {
        Ok(admin_url) if !admin_url.is_empty() => {
            let name = match pg_run() {
                Some(run) => format!("{}{}", pg_run_prefix(&run), &unique[..16]),
                None => format!("kilat_test_{unique}"),
            };
            let mut admin = sqlx::PgConnection::connect(&admin_url)
                .await
                .expect("TEST_DATABASE_URL must reach a PostgreSQL server");
            let (base, _) = admin_url
                .rsplit_once('/')
                .expect("TEST_DATABASE_URL ends in /DATABASE");
            let template = pg_template(&mut admin, base, pg_run_tablespace().as_ref()).await;
            sqlx::query(&format!(
                r#"CREATE DATABASE "{name}" TEMPLATE "{template}""#
            ))
            .execute(&mut admin)
            .await
            .unwrap();
            admin.close().await.ok();
            (
                format!("{base}/{name}"),
                Cleanup::PostgresDb { admin_url, name },
            )
        }
        _ => {
            let dir = std::env::temp_dir().join(format!("kilat-test-{unique}"));
            let file = dir.join("kilat.db");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::copy(sqlite_template().await, &file).unwrap();
            let url = format!("sqlite://{}", file.display());
            (url, Cleanup::SqliteDir(dir))
        }
    }
}

/// The migrations' fingerprint: their versions and checksums, hashed. It names the templates, so a template of another
/// schema is never used.
fn migrations_hash() -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    for migration in kilat_server::store::migrations() {
        hash.update(migration.version.to_le_bytes());
        hash.update(&migration.checksum);
    }
    hex::encode(hash.finalize())[..16].to_owned()
}

/// A SQLite file with every migration applied, made once per schema in the temporary folder
/// (`kilat-test-template-<hash>.db`), that each test's database is copied from, as PostgreSQL's tests copy
/// [`pg_template`]: nextest runs each test in a process of its own, which parsed and applied every migration again
/// (about a tenth of a profile's samples; the suite's time moved within this machine's noise: docs/PERFORMANCE.md).
/// Built by [`Db::connect`] alone, as the PostgreSQL template is: what the application adds at start (its keys, demo
/// data) is each test's own. A test process builds it under a name of its own, moves everything the write-ahead log
/// holds into the file, and renames it into place (atomically: processes that build it at once each put a whole one
/// there), so no test copies a half-migrated file. A build that died midway leaves only its `.building-…` file.
async fn sqlite_template() -> std::path::PathBuf {
    let template =
        std::env::temp_dir().join(format!("kilat-test-template-{}.db", migrations_hash()));
    if template.exists() {
        return template;
    }
    let building = template.with_extension(format!("building-{}", uuid::Uuid::new_v4().simple()));
    let url = format!("sqlite://{}", building.display());
    let db = Db::connect(&url, 1)
        .await
        .expect("the template database migrates");
    db.close().await;
    drop(db);
    // The file is in WAL mode: its last pages may still be in the log (a connection the pool had not closed yet
    // checkpoints when it goes). Checkpoint it all into the file now, and check nothing was left behind.
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    let (busy, _, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(TRUNCATE)")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(busy, 0, "the template's log could not be checkpointed");
    conn.close().await.unwrap();
    std::fs::rename(&building, &template).unwrap();
    for log in ["-wal", "-shm"] {
        let mut name = building.clone().into_os_string();
        name.push(log);
        let _ = std::fs::remove_file(name);
    }
    template
}

/// `TEST_DATABASE_RUN`: the name of a run of the suite whose PostgreSQL databases are kept until the run ends and then
/// dropped together (`make test-rust-pg` names each run and drops its databases with
/// `pg_run::the_runs_databases_are_dropped`). Dropping each test's database as it ended cost the suite about a third of
/// its time on this machine's ext4 (no journal): every `CREATE DATABASE` makes some 300 files, and the kernel looks at
/// each inode freed in the last seconds before it reuses one, so files made soon after many were deleted cost a lot of
/// kernel time (258 s → 172 s for the suite on 2 cores, with nothing else changed). Unset, each test drops its own.
pub fn pg_run() -> Option<String> {
    let run = std::env::var("TEST_DATABASE_RUN")
        .ok()
        .filter(|r| !r.is_empty())?;
    assert!(
        run.len() <= 20
            && run
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
        "TEST_DATABASE_RUN must be up to 20 lower-case letters and digits, not {run:?}"
    );
    Some(run)
}

/// The prefix of a run's database names: `kilat_test_<run>_`, then 16 hex digits (63 bytes at most, PostgreSQL's
/// limit for a name).
pub fn pg_run_prefix(run: &str) -> String {
    format!("kilat_test_{run}_")
}

/// A run's tablespace: its name, the folder it is in, and the name of the run's template database made in it.
pub struct RunTablespace {
    pub name: String,
    pub dir: String,
    pub template: String,
}

/// `TEST_DATABASE_TABLESPACE_DIR`, for a named run: an empty folder that the PostgreSQL server's user owns, on the
/// server's machine, where the run's databases are made (a tablespace of the run's, `kilat_test_<run>`, made by the
/// first test), template included; `pg_run::the_runs_databases_are_dropped` drops it with them. `make test-rust-pg`
/// makes one in memory (`/dev/shm`), for this machine's disk: ext4 without a journal, mounted with `discard`, where
/// removing a database's 300 files took 3 s (40 dropped one after another: 118 s, against 7.7 s in memory). Unset,
/// the databases are made in the server's default tablespace.
pub fn pg_run_tablespace() -> Option<RunTablespace> {
    let run = pg_run()?;
    let dir = std::env::var("TEST_DATABASE_TABLESPACE_DIR")
        .ok()
        .filter(|d| !d.is_empty())?;
    assert!(
        dir.starts_with('/') && !dir.contains('\''),
        "TEST_DATABASE_TABLESPACE_DIR must be an absolute path without quotes, not {dir:?}"
    );
    Some(RunTablespace {
        name: format!("kilat_test_{run}"),
        dir,
        template: format!("{}template", pg_run_prefix(&run)),
    })
}

/// A PostgreSQL database with every migration applied, made once per schema and server (its name carries a hash of
/// the migrations), that each test's database is copied from (`CREATE DATABASE … TEMPLATE`): a copy takes a fraction
/// of the time of applying the migrations again. The first test to need it builds it under an advisory lock, under
/// another name that it renames when done, so no test copies a half-migrated template. Templates of older schemas
/// stay on the server (a few MB each); `DROP DATABASE` them by their `kilat_tpl_` prefix to reclaim the space.
/// With a run's tablespace ([`pg_run_tablespace`]) the template is the run's own, in that tablespace (so are the
/// copies: a database is made where its template is), and goes with the run's databases.
async fn pg_template(
    admin: &mut sqlx::PgConnection,
    base: &str,
    tablespace: Option<&RunTablespace>,
) -> String {
    let name = match tablespace {
        Some(ts) => ts.template.clone(),
        None => format!("kilat_tpl_{}", migrations_hash()),
    };
    if template_exists(admin, &name).await {
        return name;
    }
    sqlx::query("SELECT pg_advisory_lock(72700101)")
        .execute(&mut *admin)
        .await
        .unwrap();
    if !template_exists(admin, &name).await {
        let building = format!("{name}_building");
        let mut create = format!(r#"CREATE DATABASE "{building}""#);
        if let Some(ts) = tablespace {
            let made: Option<i32> =
                sqlx::query_scalar("SELECT 1 FROM pg_tablespace WHERE spcname = $1")
                    .bind(&ts.name)
                    .fetch_optional(&mut *admin)
                    .await
                    .unwrap();
            if made.is_none() {
                sqlx::query(&format!(
                    r#"CREATE TABLESPACE "{}" LOCATION '{}'"#,
                    ts.name, ts.dir
                ))
                .execute(&mut *admin)
                .await
                .unwrap_or_else(|e| {
                    panic!(
                        "making the run's tablespace in {} (TEST_DATABASE_TABLESPACE_DIR: an empty folder the \
                         PostgreSQL server's user owns): {e}",
                        ts.dir
                    )
                });
            }
            create.push_str(&format!(r#" TABLESPACE "{}""#, ts.name));
        }
        for statement in [
            format!(r#"DROP DATABASE IF EXISTS "{building}" WITH (FORCE)"#),
            create,
        ] {
            sqlx::query(&statement).execute(&mut *admin).await.unwrap();
        }
        let db = Db::connect(&format!("{base}/{building}"), 1)
            .await
            .expect("the template database migrates");
        // Closed and dropped: sqlx's `close` can return with the migrations' connection still idle in the pool (when
        // that connection came back after close looked; a pool of one waits for it, then stops), and only dropping
        // the pool lets it go.
        db.close().await;
        drop(db);
        // A database cannot be renamed while any session is in it (55006; PostgreSQL waits 5 s before saying so), and
        // a server process can outlive its client's goodbye by a moment. Nobody else uses the database being built
        // (the lock is held): end whatever session is still in it, then rename.
        let rename = format!(r#"ALTER DATABASE "{building}" RENAME TO "{name}""#);
        let mut tries = 0;
        loop {
            sqlx::query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            )
            .bind(&building)
            .execute(&mut *admin)
            .await
            .unwrap();
            match sqlx::query(&rename).execute(&mut *admin).await {
                Ok(_) => break,
                Err(sqlx::Error::Database(e))
                    if e.code().as_deref() == Some("55006") && tries < 10 =>
                {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                }
                Err(e) => panic!("renaming the template database {building}: {e}"),
            }
        }
    }
    sqlx::query("SELECT pg_advisory_unlock(72700101)")
        .execute(&mut *admin)
        .await
        .unwrap();
    name
}

async fn template_exists(admin: &mut sqlx::PgConnection, name: &str) -> bool {
    sqlx::query_scalar::<_, i32>("SELECT 1 FROM pg_database WHERE datname = $1")
        .bind(name)
        .fetch_optional(admin)
        .await
        .unwrap()
        .is_some()
}

/// A row of the dashboard's book: market, product code and name, status, arrears date, loans, principal, owed.
pub type BookKey = (String, String, String, String, String, i64, i64, i64);

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("the request is sent")
    }

    pub async fn post_json(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("the request is sent")
    }

    pub async fn contact_messages(
        &self,
    ) -> Vec<kilat_server::store::contact_messages::ContactMessage> {
        self.db
            .list_contact_messages(&self.secrets, 100)
            .await
            .unwrap()
    }

    /// Stops the server and removes the database. Call at the end of a test; `Drop` does it too, less gracefully.
    pub async fn stop(mut self) {
        self.shutdown().await;
    }

    async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.await;
        }
        self.db.close().await;
        let _ = std::fs::remove_dir_all(&self.files_dir);
        match self.cleanup.take() {
            Some(Cleanup::SqliteDir(dir)) => {
                let _ = std::fs::remove_dir_all(dir);
            }
            Some(Cleanup::PostgresDb { admin_url, name }) => {
                drop_pg_database(admin_url, name).await
            }
            None => {}
        }
    }
}

async fn drop_pg_database(admin_url: String, name: String) {
    if pg_run().is_some() {
        return;
    }
    if let Ok(mut admin) = sqlx::PgConnection::connect(&admin_url).await {
        let _ = sqlx::query(&format!(r#"DROP DATABASE IF EXISTS "{name}" WITH (FORCE)"#))
            .execute(&mut admin)
            .await;
        admin.close().await.ok();
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // A test that panicked before `stop()`, or an app on a shared database dropped without it: clean up on a
        // thread of its own, since Drop cannot await.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // Every app has a files' folder of its own, whatever database it runs on.
        let _ = std::fs::remove_dir_all(&self.files_dir);
        let Some(cleanup) = self.cleanup.take() else {
            return;
        };
        // The pool is not closed here: its connections belong to the runtime this thread is blocking.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async move {
                match cleanup {
                    Cleanup::SqliteDir(dir) => {
                        let _ = std::fs::remove_dir_all(dir);
                    }
                    Cleanup::PostgresDb { admin_url, name } => {
                        drop_pg_database(admin_url, name).await
                    }
                }
            });
        })
        .join();
    }
}

/// A benchmark's setting from the environment; None when unset or unreadable.
pub fn knob<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// The envelope's `data`, after checking `code` is 0.
pub async fn data(response: reqwest::Response) -> Value {
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(body["code"], 0, "not a success envelope: {body}");
    assert_eq!(body["msg"], "ok");
    body["data"].clone()
}

/// An error envelope: checks the shape and returns it.
pub async fn error(response: reqwest::Response) -> Value {
    let body: Value = response.json().await.expect("a JSON body");
    assert!(body["code"].is_string(), "not an error envelope: {body}");
    assert!(
        body["msg"].as_str().is_some_and(|m| !m.is_empty()),
        "an error without a message: {body}"
    );
    assert!(body["data"].is_null());
    body
}

impl TestApp {
    /// Asks for an SMS code and reads it from the development outbox.
    pub async fn request_code(&self, market: &str, phone: &str) -> String {
        let response = self
            .post_json(
                "/api/v1/borrower/login/sms-code",
                &serde_json::json!({"market": market, "phone": phone}),
            )
            .await;
        assert_eq!(
            response.status(),
            200,
            "sending a code: {}",
            response.text().await.unwrap()
        );
        self.latest_code().await
    }

    /// The newest code in the development outbox.
    pub async fn latest_code(&self) -> String {
        let outbox = data(self.get("/api/v1/dev/outbox").await).await;
        outbox[0]["code"]
            .as_str()
            .expect("a code in the outbox")
            .to_owned()
    }

    /// Signs in and returns the session id.
    pub async fn sign_in(&self, market: &str, phone: &str) -> String {
        let code = self.request_code(market, phone).await;
        let response = self
            .post_json(
                "/api/v1/borrower/login",
                &serde_json::json!({"market": market, "phone": phone, "code": code}),
            )
            .await;
        assert_eq!(response.status(), 200);
        data(response).await["sessionId"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    pub async fn get_as(&self, path: &str, session: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .header("x-session-id", session)
            .send()
            .await
            .unwrap()
    }

    /// The borrower's loan plan as the app reads it (`GET /borrower/orders/{orderNo}/plan`), which must answer 200.
    pub async fn plan_of(&self, session: &str, order_no: &str) -> serde_json::Value {
        data(
            self.get_as(&format!("/api/v1/borrower/orders/{order_no}/plan"), session)
                .await,
        )
        .await
    }

    /// The borrower's repayment choices as the app reads them (`GET /borrower/orders/{orderNo}/repayment`), which must
    /// answer 200.
    pub async fn repayment_of(&self, session: &str, order_no: &str) -> serde_json::Value {
        data(
            self.get_as(
                &format!("/api/v1/borrower/orders/{order_no}/repayment"),
                session,
            )
            .await,
        )
        .await
    }

    /// A GET asking for English answers (`Accept-Language: en-IN`), as a borrower when `session` is given.
    pub async fn get_en(&self, path: &str, session: Option<&str>) -> reqwest::Response {
        let mut request = self
            .client
            .get(self.url(path))
            .header("accept-language", "en-IN");
        if let Some(session) = session {
            request = request.header("x-session-id", session);
        }
        request.send().await.unwrap()
    }

    /// The `agreementHash` of the agreement the borrower reads before confirming `loan` (`POST /apply/agreement`),
    /// as the borrower app sends it with confirm; null when the preview is refused.
    pub async fn agreement_hash(&self, session: &str, loan: &Value) -> Value {
        let loan = serde_json::json!({"productCode": loan["productCode"], "amount": loan["amount"],
            "termCode": loan["termCode"]});
        let response = self
            .post_as("/api/v1/borrower/apply/agreement", session, &loan)
            .await;
        if !response.status().is_success() {
            return Value::Null;
        }
        let body: Value = response.json().await.unwrap();
        body["data"]["agreementHash"].clone()
    }

    pub async fn post_as(&self, path: &str, session: &str, body: &Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .header("x-session-id", session)
            .json(body)
            .send()
            .await
            .unwrap()
    }

    /// Completes the five certification steps with valid data of the market.
    pub async fn certify(&self, market: &str, session: &str) {
        self.certify_with(market, session, |_, _| {}).await;
    }

    /// Completes the five certification steps with the market's valid data as `edit` changes it (given each step's
    /// name and body): a test that needs one borrower told from another by a name, a number or an account.
    pub async fn certify_with(&self, market: &str, session: &str, edit: impl Fn(&str, &mut Value)) {
        for (step, mut body) in valid_steps(market) {
            edit(step, &mut body);
            let response = self
                .post_as(
                    &format!("/api/v1/borrower/certification/{step}"),
                    session,
                    &body,
                )
                .await;
            let status = response.status();
            assert_eq!(status, 200, "{step}: {}", response.text().await.unwrap());
        }
    }

    /// Moves the development business date to `date` (`PUT /api/v1/dev/business-date`). Console sessions follow the
    /// business clock: sign operators in again after moving it far.
    pub async fn set_date(&self, date: time::Date) {
        let response = self
            .client
            .put(self.url("/api/v1/dev/business-date"))
            .json(&serde_json::json!({"date": date.to_string()}))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), reqwest::StatusCode::OK);
    }

    /// Moves the development business date so that Indonesia's is `date` (India's may then be a day behind).
    pub async fn set_indonesia_date(&self, date: time::Date) {
        self.set_date(date).await;
        let ahead = self.services.clock.today(kilat_domain::Market::Indonesia) - date;
        if !ahead.is_zero() {
            self.set_date(date - ahead).await;
        }
        assert_eq!(
            self.services.clock.today(kilat_domain::Market::Indonesia),
            date
        );
    }

    /// Runs the overdue job (late charges, reminders queued) for `market`'s business date, as the scheduler would.
    pub async fn run_overdue(
        &self,
        market: kilat_domain::Market,
    ) -> kilat_server::jobs::overdue::Report {
        let date = self.services.clock.today(market);
        kilat_server::jobs::overdue::run(&self.services, market, date, "test")
            .await
            .expect("the job runs")
    }

    /// The id of the borrower a session belongs to (`GET /borrower/me`).
    pub async fn borrower_id(&self, session: &str) -> String {
        data(self.get_as("/api/v1/borrower/me", session).await).await["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The loan's kept position (the money engine's balances as JSON), `None` when it has none.
    pub async fn position_json(&self, order_id: &str) -> Option<String> {
        let (json,): (Option<String>,) =
            sqlx::query_as("SELECT balances_json FROM loan_arrears WHERE order_id = $1")
                .bind(order_id)
                .fetch_one(self.db.pool())
                .await
                .unwrap();
        json
    }

    /// An order's status, and how many timeline entries and audit entries it has.
    pub async fn order_counts(&self, order_id: &str) -> (String, i64, i64) {
        let (status,): (String,) = sqlx::query_as("SELECT status FROM orders WHERE id = $1")
            .bind(order_id)
            .fetch_one(self.db.pool())
            .await
            .unwrap();
        let (events,): (i64,) =
            sqlx::query_as("SELECT COUNT(*) FROM order_events WHERE order_id = $1")
                .bind(order_id)
                .fetch_one(self.db.pool())
                .await
                .unwrap();
        let (audits,): (i64,) = sqlx::query_as(
            "SELECT COUNT(*) FROM audit_log WHERE entity = 'order' AND entity_id = $1",
        )
        .bind(order_id)
        .fetch_one(self.db.pool())
        .await
        .unwrap();
        (status, events, audits)
    }

    /// The dashboard's book as kept (migration 0052: the kept rows and the moves not folded yet), by market, product,
    /// status and arrears date; then checks that it is the book counted from the open loans' positions, with the moves
    /// folded and counted again from nothing. Returns it.
    pub async fn book_as_counted(&self) -> Vec<BookKey> {
        let read = || async {
            sqlx::query_as::<_, BookKey>(
                "SELECT market, product_code, product_name, status, due, CAST(SUM(loans) AS BIGINT),
                        CAST(SUM(principal) AS BIGINT), CAST(SUM(owed) AS BIGINT)
                 FROM (SELECT * FROM book_kept UNION ALL SELECT * FROM book_moves) b
                 GROUP BY market, product_code, product_name, status, due
                 HAVING SUM(loans) <> 0 OR SUM(principal) <> 0 OR SUM(owed) <> 0
                 ORDER BY market, product_code, product_name, status, due",
            )
            .fetch_all(self.db.pool())
            .await
            .unwrap()
        };
        let kept = read().await;
        self.db.fold_book().await.unwrap();
        assert_eq!(read().await, kept, "the book with its moves folded");
        self.count_book().await;
        assert_eq!(
            read().await,
            kept,
            "the book kept as the loans changed, counted again"
        );
        kept
    }

    /// Counts the dashboard's book again from the open loans' positions (after a test wrote orders or positions with
    /// SQL of its own, as a migration would).
    pub async fn count_book(&self) {
        let mut tx = self.db.begin().await.unwrap();
        tx.count_book().await.unwrap();
        tx.commit().await.unwrap();
    }

    /// Runs a statement on the app's database (to move time: age a code or a session).
    pub async fn execute(&self, sql: &str) {
        sqlx::query(sql).execute(self.db.pool()).await.unwrap();
    }

    /// The phones of the texts (not sign-in codes) the development sender delivered, in the order sent.
    pub async fn texts_sent(&self) -> Vec<String> {
        let outbox = data(self.get("/api/v1/dev/outbox").await).await;
        outbox
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["code"] == "")
            .map(|e| e["phone"].as_str().unwrap().to_owned())
            .collect()
    }

    /// Moves the codes sent so far, and the resend minutes they started, `ms` into the past.
    pub async fn age_codes(&self, ms: i64) {
        self.execute(&format!(
            "UPDATE login_codes SET created_at = created_at - {ms}"
        ))
        .await;
        self.execute(&format!(
            "UPDATE rate_limits SET window_start = window_start - {ms} WHERE key LIKE 'code_resend:%'"
        ))
        .await;
    }

    /// The audit entries of one action on one kind of entity, oldest first: (entity id, actor id, before, after).
    pub async fn audit_entries(
        &self,
        action: &str,
        entity: &str,
    ) -> Vec<(String, String, String, String)> {
        sqlx::query_as(
            "SELECT entity_id, actor_id, before_json, after_json FROM audit_log
             WHERE action = $1 AND entity = $2 ORDER BY at, id",
        )
        .bind(action)
        .bind(entity)
        .fetch_all(self.db.pool())
        .await
        .unwrap()
    }
}

/// The due date of installment `index` (from 0) of a plan as the borrower app shows it.
pub fn due_date(plan: &Value, index: usize) -> time::Date {
    kilat_server::store::loans::parse_date(plan["installments"][index]["dueDate"].as_str().unwrap())
        .unwrap()
}

/// `text` without its white space (a PDF's text breaks lines and spaces where it likes).
pub fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A valid body for each certification step, in order.
pub fn valid_steps(market: &str) -> Vec<(&'static str, Value)> {
    use serde_json::json;
    if market == "IN" {
        vec![
            (
                "base",
                json!({"fullName": "Asha Verma", "dateOfBirth": "1992-03-14", "gender": "female", "idNumber": "ABCPE1234F"}),
            ),
            (
                "personal",
                json!({"education": "graduate", "maritalStatus": "single", "residenceType": "rented",
                "regionCode": "MH", "cityCode": "MH-MUM", "address": "12 Hill Road, Bandra West", "postalCode": "400050"}),
            ),
            (
                "job",
                json!({"employmentType": "salaried_private", "employerName": "Infosys", "income": 4_500_000, "payDay": 1}),
            ),
            (
                "extended",
                json!({"contact1Name": "Ravi Verma", "contact1Relation": "parent", "contact1Phone": "9811122233",
                "contact2Name": "Meena Rao", "contact2Relation": "friend", "contact2Phone": "9822233344", "consent": true}),
            ),
            (
                "bank",
                json!({"bankCode": "HDFC", "accountNumber": "5010 0123 4567", "accountNumberConfirm": "501001234567", "ifsc": "HDFC0001234"}),
            ),
        ]
    } else {
        vec![
            (
                "base",
                json!({"fullName": "Budi Santoso", "dateOfBirth": "1990-07-01", "gender": "male", "idNumber": "3171234567890001"}),
            ),
            (
                "personal",
                json!({"education": "graduate", "maritalStatus": "married", "residenceType": "owned",
                "regionCode": "JK", "cityCode": "JK-JKS", "address": "Jl. Sudirman No. 5", "postalCode": "12190"}),
            ),
            (
                "job",
                json!({"employmentType": "salaried_private", "employerName": "PT Maju", "income": 9_000_000_000i64, "payDay": 25}),
            ),
            (
                "extended",
                json!({"contact1Name": "Siti Aminah", "contact1Relation": "spouse", "contact1Phone": "081298765432",
                "contact2Name": "Andi Wijaya", "contact2Relation": "sibling", "contact2Phone": "081311122233", "consent": true}),
            ),
            (
                "bank",
                json!({"bankCode": "014", "accountNumber": "1234567890", "accountNumberConfirm": "1234567890"}),
            ),
        ]
    }
}

/// A fresh database for servers run as separate processes: its URL, removed by `remove()` (or, less gracefully, on
/// drop).
pub struct SharedDatabase {
    pub url: String,
    cleanup: Option<Cleanup>,
}

pub async fn shared_database() -> SharedDatabase {
    let (url, cleanup) = fresh_database().await;
    SharedDatabase {
        url,
        cleanup: Some(cleanup),
    }
}

impl SharedDatabase {
    pub async fn remove(mut self) {
        if let Some(cleanup) = self.cleanup.take() {
            remove_database(cleanup).await;
        }
    }
}

impl Drop for SharedDatabase {
    fn drop(&mut self) {
        let Some(cleanup) = self.cleanup.take() else {
            return;
        };
        let _ = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(remove_database(cleanup));
        })
        .join();
    }
}

async fn remove_database(cleanup: Cleanup) {
    match cleanup {
        Cleanup::SqliteDir(dir) => {
            let _ = std::fs::remove_dir_all(dir);
        }
        Cleanup::PostgresDb { admin_url, name } => drop_pg_database(admin_url, name).await,
    }
}

/// The real binary, `kilat serve` in development mode on port 0 and the given database, trusting `X-Forwarded-For`
/// (so a test can speak for many client addresses). Killed when dropped, also when the test panics.
pub struct ServerProcess {
    /// The public address (a worker has none: 0.0.0.0:0).
    pub addr: SocketAddr,
    /// Where `/metrics` is served, when `KILAT_METRICS__LISTEN` was given.
    pub metrics_addr: Option<SocketAddr>,
    child: tokio::process::Child,
}

impl ServerProcess {
    pub async fn start(database_url: &str) -> Self {
        Self::start_with(database_url, &[]).await
    }

    /// [`ServerProcess::start`] with settings of its own (`KILAT_…` variables).
    pub async fn start_with(database_url: &str, settings: &[(&str, &str)]) -> Self {
        Self::start_args(database_url, &["serve"], settings).await
    }

    /// The binary with these arguments (`serve --jobs off`, `worker`) and settings, once it says it runs.
    pub async fn start_args(database_url: &str, args: &[&str], settings: &[(&str, &str)]) -> Self {
        use tokio::io::AsyncBufReadExt;

        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_kilat"));
        for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("KILAT_")) {
            command.env_remove(name);
        }
        command.envs(settings.iter().copied());
        let mut child = command
            .args(args)
            .env("KILAT_LISTEN", "127.0.0.1:0")
            .env("KILAT_DATABASE_URL", database_url)
            .env("KILAT_DATABASE_MAX_CONNECTIONS", "4")
            .env("KILAT_MODE", "development")
            .env("KILAT_TRUST_FORWARDED_FOR", "true")
            .env("RUST_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the kilat binary starts");
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // The binary prints "Metrics at http://ADDR/metrics" when it serves them, then "Kilat is running at
        // http://ADDR/ …" once it listens, or "Kilat's worker is running …".
        let mut metrics_addr = None;
        let addr = tokio::time::timeout(std::time::Duration::from_secs(60), async {
            let address = |rest: &str| {
                let addr = rest.split('/').next().unwrap_or_default();
                addr.parse::<SocketAddr>().expect("an address")
            };
            while let Some(line) = lines.next_line().await.expect("reading kilat's stdout") {
                if let Some(rest) = line.strip_prefix("Metrics at http://") {
                    metrics_addr = Some(address(rest));
                } else if let Some(rest) = line.strip_prefix("Kilat is running at http://") {
                    return address(rest);
                } else if line.starts_with("Kilat's worker is running") {
                    return SocketAddr::from(([0, 0, 0, 0], 0));
                }
            }
            panic!("kilat {args:?} exited before it ran");
        })
        .await
        .expect("kilat runs within a minute");
        // Keep reading, so that the process never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Self {
            addr,
            metrics_addr,
            child,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn stop(mut self) {
        let _ = self.child.kill().await;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// Production's secrets for Razorpay's webhook, Xendit's callback token, Dragonpay's password and Xendit's API key:
/// random, as production requires (`crypto::weak_secret`).
pub const PRODUCTION_SECRETS: [&str; 4] = [
    "Rz7kQ2vX9mLp4sTb8WcN3yHdJ6fA",
    "Xc4nV8bM2qW6eR9tY3uI7oP1aS5d",
    "Dp2gH7jK4lZ9xC6vB1nM8qW3eR5t",
    "xnd_production_Q9v2LmT7cX4pR8kW1zN6bY3hJ5dF0sG",
];

/// Settings a production server starts with: mode, a key of its own, an HTTPS SMS provider, and each market's real
/// (not example) e-mail addresses and licence line. Tests then change the one thing they are about.
pub fn as_production(s: &mut Settings) {
    s.mode = kilat_server::settings::Mode::Production;
    s.secret_key = Some(crate::security::PRODUCTION_KEY.into());
    s.sms.sender = kilat_server::settings::SmsSender::Http;
    s.sms.http_url = "https://sms.example/send".into();
    s.push.sender = kilat_server::settings::PushSenderKind::Off;
    for (hook, secret) in [
        (&mut s.payments.razorpay, PRODUCTION_SECRETS[0]),
        (&mut s.payments.xendit, PRODUCTION_SECRETS[1]),
        (&mut s.payments.dragonpay, PRODUCTION_SECRETS[2]),
    ] {
        hook.secret = Some(secret.into());
    }
    s.payments.indonesia.va_provider = "xendit".into();
    s.payments.indonesia.xendit_api_key = Some(PRODUCTION_SECRETS[3].into());
    for (company, domain) in [
        (&mut s.site.markets.india, "kilat.in"),
        (&mut s.site.markets.indonesia, "kilat.co.id"),
    ] {
        company.email = format!("hello@{domain}");
        company.grievance_officer.email = format!("grievance@{domain}");
        // The demo's licence lines say "(example)": a real one.
        company.licence = company
            .licence
            .replace(" (example)", "")
            .replace(" (contoh)", "");
    }
}
