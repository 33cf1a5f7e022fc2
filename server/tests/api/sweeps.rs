//! The housekeeping sweeps: the orphan-files sweep (files no record names, older than a day, removed from the local
//! folder or the S3 bucket; recorded and young files kept; two sweeps at once) and the rate-limit cleanup (rows whose
//! window ended long ago removed in batches, rows inside their window kept, the export's limit holding while it runs).

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use futures_util::TryStreamExt;
use kilat_server::jobs::{leftovers, orphan_files, rate_limits};
use reqwest::StatusCode;
use serde_json::json;

use crate::complaints::upload_ok;
use crate::helpers::{TestApp, spawn_app, spawn_app_with};
use crate::s3_files::{S3Peer, complaint_keys};

const HOUR_MS: i64 = 60 * 60 * 1000;

/// Moves a stored file's last write two days back, as if it had been written then.
fn age(file: PathBuf) {
    let two_days_ago = SystemTime::now() - Duration::from_secs(2 * 24 * 60 * 60);
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .set_modified(two_days_ago)
        .unwrap();
}

async fn storage_key(app: &TestApp, image_id: &str) -> String {
    sqlx::query_scalar("SELECT storage_key FROM complaint_images WHERE id = $1")
        .bind(image_id)
        .fetch_one(app.db.pool())
        .await
        .unwrap()
}

async fn put(app: &TestApp, key: &str) {
    app.services
        .files
        .put(key, b"bytes".to_vec(), "image/png")
        .await
        .unwrap();
}

/// One borrower's two uploads (one filed with a complaint, one waiting), an orphan from two days ago, one from now,
/// a write that died half-way two days ago, and an old file outside the uploads' folder: the sweep removes the old
/// orphan and the dead write and keeps the rest; the day's second run is skipped, and a sweep by hand finds nothing.
async fn the_sweep_removes_old_orphans_and_keeps_the_rest(
    app: &TestApp,
    file_of: impl Fn(&str) -> PathBuf,
) {
    let session = app.sign_in("IN", "9876534001").await;
    let filed = upload_ok(app, &session).await;
    let waiting = upload_ok(app, &session).await;
    let complaint = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "description": "The fee on my statement is wrong.", "imageIds": [filed]}),
        )
        .await;
    assert_eq!(complaint.status(), StatusCode::CREATED);
    let filed_key = storage_key(app, &filed).await;
    let waiting_key = storage_key(app, &waiting).await;
    for key in [
        "complaints/orphan-old.png",
        "complaints/orphan-young.png",
        "complaints/0193-dead.part-0123abcd",
        "elsewhere/old.png",
    ] {
        put(app, key).await;
    }
    for key in [
        filed_key.as_str(),
        waiting_key.as_str(),
        "complaints/orphan-old.png",
        "complaints/0193-dead.part-0123abcd",
        "elsewhere/old.png",
    ] {
        age(file_of(key));
    }
    let listed = app
        .services
        .files
        .list("complaints")
        .try_collect::<Vec<_>>()
        .await
        .unwrap();
    let old = listed
        .iter()
        .find(|f| f.key == "complaints/orphan-old.png")
        .unwrap();
    let young = listed
        .iter()
        .find(|f| f.key == "complaints/orphan-young.png")
        .unwrap();
    let now_ms = i64::try_from(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    assert!((now_ms - old.modified_ms - 48 * HOUR_MS).abs() < 60_000);
    assert!((now_ms - young.modified_ms).abs() < 60_000);

    let report = orphan_files::run(&app.services, "test").await.unwrap();
    assert!(report.ran);
    assert_eq!(
        report.swept,
        orphan_files::Swept {
            files: 5,
            young: 1,
            recorded: 2,
            removed: 2,
        }
    );
    let mut kept = vec![
        filed_key.clone(),
        waiting_key.clone(),
        "complaints/orphan-young.png".to_owned(),
    ];
    kept.sort();
    assert_eq!(complaint_keys(app.services.files.as_ref()).await, kept);
    assert!(
        app.services
            .files
            .get("elsewhere/old.png")
            .await
            .unwrap()
            .is_some(),
        "only the uploads' folders are swept"
    );
    for id in [&filed, &waiting] {
        let image = app
            .get_as(
                &format!("/api/v1/borrower/complaints/images/{id}"),
                &session,
            )
            .await;
        assert_eq!(image.status(), StatusCode::OK);
    }

    let again = orphan_files::run(&app.services, "another").await.unwrap();
    assert!(!again.ran, "one run a day");
    let by_hand = orphan_files::sweep(&app.services).await.unwrap();
    assert_eq!(by_hand.removed, 0);
    assert_eq!(by_hand.recorded, 2);
    assert_eq!(complaint_keys(app.services.files.as_ref()).await, kept);
}

#[tokio::test]
async fn the_orphan_sweep_removes_only_unrecorded_files_older_than_a_day_from_the_local_folder() {
    let app = spawn_app().await;
    let dir = app.files_dir.clone();
    the_sweep_removes_old_orphans_and_keeps_the_rest(&app, |key| dir.join(key)).await;
    app.stop().await;
}

#[tokio::test]
async fn the_orphan_sweep_removes_only_unrecorded_files_older_than_a_day_from_the_bucket() {
    let peer = S3Peer::start().await;
    let app = spawn_app_with(|s| peer.configure(s)).await;
    the_sweep_removes_old_orphans_and_keeps_the_rest(&app, |key| peer.object_file(key)).await;
    assert!(!app.files_dir.exists(), "nothing on the server's disk");
    app.stop().await;
    peer.stop();
}

/// Two sweeps at once over many old orphans and a recorded file: neither fails, every orphan goes, the recorded
/// file stays; two runs at once, one runs.
async fn two_sweeps_at_once_both_finish(
    app: &TestApp,
    file_of: impl Fn(&str) -> PathBuf,
    n: usize,
) {
    let session = app.sign_in("ID", "081234534002").await;
    let image = upload_ok(app, &session).await;
    let recorded = storage_key(app, &image).await;
    age(file_of(&recorded));
    for i in 0..n {
        let key = format!("complaints/orphan-{i:03}.png");
        put(app, &key).await;
        age(file_of(&key));
    }
    let before = i64::try_from(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
        - orphan_files::GRACE_MS;
    let (one, two) = tokio::join!(
        orphan_files::sweep_in_pages(&app.services, before, 7),
        orphan_files::sweep_in_pages(&app.services, before, 5),
    );
    let (one, two) = (one.unwrap(), two.unwrap());
    assert!(one.removed + two.removed >= n as u64, "{one:?} {two:?}");
    assert_eq!(
        complaint_keys(app.services.files.as_ref()).await,
        std::slice::from_ref(&recorded)
    );

    let (a, b) = tokio::join!(
        orphan_files::run(&app.services, "a"),
        orphan_files::run(&app.services, "b"),
    );
    assert_eq!(
        u8::from(a.unwrap().ran) + u8::from(b.unwrap().ran),
        1,
        "one of two runs at once runs"
    );
    assert_eq!(
        complaint_keys(app.services.files.as_ref()).await,
        [recorded]
    );
}

#[tokio::test]
async fn two_orphan_sweeps_at_once_over_the_local_folder_both_finish_and_keep_the_recorded_file() {
    let app = spawn_app().await;
    let dir = app.files_dir.clone();
    two_sweeps_at_once_both_finish(&app, |key| dir.join(key), 60).await;
    app.stop().await;
}

#[tokio::test]
async fn two_orphan_sweeps_at_once_over_the_bucket_both_finish_and_keep_the_recorded_file() {
    let peer = S3Peer::start().await;
    let app = spawn_app_with(|s| peer.configure(s)).await;
    two_sweeps_at_once_both_finish(&app, |key| peer.object_file(key), 30).await;
    app.stop().await;
    peer.stop();
}

/// The longest window of any limit.
const LONGEST: i64 = rate_limits::LONGEST_WINDOW_MS;
/// Removes every limit's row but the exports'.
const NOT_EXPORTS: &str = "DELETE FROM rate_limits WHERE key NOT LIKE 'export:%'";

async fn insert_limit(app: &TestApp, key: &str, window_start: i64, hits: i64) {
    sqlx::query("INSERT INTO rate_limits (key, window_start, hits) VALUES ($1, $2, $3)")
        .bind(key)
        .bind(window_start)
        .bind(hits)
        .execute(app.db.pool())
        .await
        .unwrap();
}

async fn limit_keys(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar("SELECT key FROM rate_limits ORDER BY key")
        .fetch_all(app.db.pool())
        .await
        .unwrap()
}

async fn export(app: &TestApp, session: &str) -> StatusCode {
    app.get_as("/api/v1/borrower/export", session)
        .await
        .status()
}

#[tokio::test]
async fn the_rate_limit_cleanup_removes_rows_whose_window_ended_long_ago_in_batches_and_keeps_the_others()
 {
    let app = spawn_app().await;
    // The longest window is a day (the codes a phone gets): a row goes once its window ended a day ago or more.
    assert_eq!(rate_limits::LONGEST_WINDOW_MS, 24 * HOUR_MS);
    let session = app.sign_in("IN", "9876534003").await;
    // The sign-in's own limits are not what this is about.
    app.execute(NOT_EXPORTS).await;
    assert_eq!(export(&app, &session).await, StatusCode::OK);
    let own = limit_keys(&app).await.remove(0);
    let now = app.services.clock.now_ms();
    for n in 0..25 {
        insert_limit(
            &app,
            &format!("export:gone-{n:02}"),
            now - 2 * LONGEST - 1_000 - n,
            2,
        )
        .await;
    }
    // Its window ended less than a day ago: kept for now.
    insert_limit(&app, "export:ended-recently", now - 2 * LONGEST + 60_000, 3).await;
    // Inside its window: kept.
    insert_limit(&app, "export:inside", now - 10 * 60_000, 3).await;

    let removed = rate_limits::run_in_batches(&app.services, 10)
        .await
        .unwrap();
    assert_eq!(removed, 25);
    assert_eq!(limit_keys(&app).await, {
        let mut keys = vec![
            "export:ended-recently".to_owned(),
            "export:inside".to_owned(),
            own,
        ];
        keys.sort();
        keys
    });
    assert_eq!(rate_limits::run(&app.services).await.unwrap(), 0);

    // The borrower's hour still counts the export before the cleanup: two more, then refused.
    assert_eq!(export(&app, &session).await, StatusCode::OK);
    assert_eq!(export(&app, &session).await, StatusCode::OK);
    assert_eq!(export(&app, &session).await, StatusCode::TOO_MANY_REQUESTS);
    app.stop().await;
}

#[tokio::test]
async fn the_export_limit_holds_while_cleanups_run_at_once_with_the_requests() {
    let app = spawn_app().await;
    // B's row is from two days and an hour ago (full then, and past the cleanup's cutoff now); A has used its hour.
    let b = app.sign_in("IN", "9876534005").await;
    app.execute(NOT_EXPORTS).await;
    assert_eq!(export(&app, &b).await, StatusCode::OK);
    app.execute(&format!(
        "UPDATE rate_limits SET window_start = window_start - {}, hits = 3",
        2 * LONGEST + HOUR_MS
    ))
    .await;
    let b_key = limit_keys(&app).await.remove(0);
    let a = app.sign_in("IN", "9876534004").await;
    app.execute(NOT_EXPORTS).await;
    for _ in 0..3 {
        assert_eq!(export(&app, &a).await, StatusCode::OK);
    }
    let now = app.services.clock.now_ms();
    for n in 0..300 {
        insert_limit(
            &app,
            &format!("export:old-{n:03}"),
            now - 2 * LONGEST - HOUR_MS - n,
            1,
        )
        .await;
    }

    let cleanups: Vec<_> = (0..2)
        .map(|_| {
            let services = app.services.clone();
            tokio::spawn(async move { rate_limits::run_in_batches(&services, 25).await.unwrap() })
        })
        .collect();
    let requests: Vec<_> = [(&a, 3), (&b, 5)]
        .into_iter()
        .flat_map(|(session, n)| (0..n).map(move |_| session.clone()))
        .map(|session| {
            let request = app
                .client
                .get(app.url("/api/v1/borrower/export"))
                .header("x-session-id", &session);
            tokio::spawn(async move { (session, request.send().await.unwrap().status()) })
        })
        .collect();
    let mut removed = 0;
    for cleanup in cleanups {
        removed += cleanup.await.unwrap();
    }
    let (mut a_allowed, mut b_allowed) = (0, 0);
    for request in requests {
        let (session, status) = request.await.unwrap();
        assert!(
            status == StatusCode::OK || status == StatusCode::TOO_MANY_REQUESTS,
            "{status}"
        );
        if status == StatusCode::OK {
            if session == a {
                a_allowed += 1;
            } else {
                b_allowed += 1;
            }
        }
    }
    assert_eq!(a_allowed, 0, "A's hour is full");
    assert_eq!(b_allowed, 3, "B's old window is over: a new one of three");
    assert!(removed >= 300, "{removed}");

    // Right after another cleanup, both hours still hold.
    rate_limits::run(&app.services).await.unwrap();
    assert_eq!(export(&app, &a).await, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(export(&app, &b).await, StatusCode::TOO_MANY_REQUESTS);
    let (hits, window_start): (i64, i64) =
        sqlx::query_as("SELECT hits, window_start FROM rate_limits WHERE key = $1")
            .bind(&b_key)
            .fetch_one(app.db.pool())
            .await
            .unwrap();
    // B's window is the one the burst started, kept by the cleanups: its three, and the refused requests counted
    // above them.
    assert!(hits > 3 && window_start >= now, "{hits} {window_start}");
    assert_eq!(limit_keys(&app).await.len(), 2);
    app.stop().await;
}

#[tokio::test]
async fn kilat_jobs_run_orphan_files_and_rate_limits_by_hand_in_two_processes_at_once() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876534006").await;
    app.execute(NOT_EXPORTS).await;
    let image = upload_ok(&app, &session).await;
    let recorded = storage_key(&app, &image).await;
    age(app.files_dir.join(&recorded));
    for i in 0..20 {
        let key = format!("complaints/orphan-{i:02}.webp");
        put(&app, &key).await;
        age(app.files_dir.join(&key));
    }
    let now = app.services.clock.now_ms();
    for n in 0..30 {
        insert_limit(
            &app,
            &format!("export:old-{n:02}"),
            now - 2 * LONGEST - HOUR_MS,
            1,
        )
        .await;
    }
    insert_limit(&app, "export:inside", now - 60_000, 1).await;
    let spawn = |job: &'static str| {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_kilat"))
            .args(["jobs", "run", job])
            .env("KILAT_DATABASE_URL", &app.database_url)
            .env("KILAT_FILES__DIR", &app.files_dir)
            .env("KILAT_LOG__FORMAT", "json")
            .env_remove("KILAT_CONFIG")
            .output()
    };
    let (a, b, c, d) = tokio::join!(
        spawn("orphan-files"),
        spawn("orphan-files"),
        spawn("rate-limits"),
        spawn("rate-limits")
    );
    let mut removed_files = 0;
    let mut removed_rows = 0;
    for output in [a, b, c, d] {
        let output = output.unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let count = |after: &str, before: &str| -> u64 {
            stdout
                .split(after)
                .nth(1)
                .and_then(|rest| rest.split(before).next())
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("{stdout}"))
        };
        if stdout.starts_with("orphan-files:") {
            assert_eq!(count("younger than a day,", "recorded"), 1, "{stdout}");
            removed_files += count("recorded,", "orphans removed");
        } else {
            assert!(stdout.starts_with("rate-limits:"), "{stdout}");
            removed_rows += count("rate-limits:", "rows past");
        }
    }
    assert!(removed_files >= 20, "{removed_files}");
    assert_eq!(removed_rows, 30);
    assert_eq!(
        complaint_keys(app.services.files.as_ref()).await,
        [recorded]
    );
    assert_eq!(limit_keys(&app).await, ["export:inside"]);
    app.stop().await;
}

/// The leftovers sweep: sign-in codes a day after they expired and photos uploaded a week ago and never sent with a
/// complaint go (the photo's record and its file); a fresh code, a photo sent with a complaint however old, and one
/// uploaded today stay; a second run finds nothing.
#[tokio::test]
async fn the_leftovers_sweep_removes_expired_codes_and_photos_never_sent_and_keeps_the_rest() {
    let app = spawn_app().await;
    let session = app.sign_in("IN", "9876534010").await;
    app.sign_in("IN", "9876534011").await;
    let codes = |app: &TestApp| {
        let pool = app.db.pool().clone();
        async move {
            sqlx::query_scalar::<_, i64>("SELECT COUNT(*) FROM login_codes")
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(codes(&app).await, 2);
    // One phone's code expired a day and a minute ago; the other's a minute short of a day ago.
    let now = app.services.clock.now_ms();
    app.execute(&format!(
        "UPDATE login_codes SET expires_at = {} WHERE phone_hash = (SELECT MIN(phone_hash) FROM login_codes)",
        now - leftovers::CODE_KEPT_MS - 60_000
    ))
    .await;
    app.execute(&format!(
        "UPDATE login_codes SET expires_at = {} WHERE phone_hash = (SELECT MAX(phone_hash) FROM login_codes)",
        now - leftovers::CODE_KEPT_MS + 60_000
    ))
    .await;
    let filed = upload_ok(&app, &session).await;
    let complaint = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "description": "The fee on my statement is wrong.", "imageIds": [filed]}),
        )
        .await;
    assert_eq!(complaint.status(), StatusCode::CREATED);
    let forgotten = upload_ok(&app, &session).await;
    let today = upload_ok(&app, &session).await;
    let forgotten_key = storage_key(&app, &forgotten).await;
    app.execute(&format!(
        "UPDATE complaint_images SET created_at = created_at - {} WHERE id IN ('{filed}', '{forgotten}')",
        leftovers::WAITING_PHOTO_KEPT_MS + 60_000
    ))
    .await;

    let removed = leftovers::run(&app.services).await.unwrap();
    assert_eq!(
        removed,
        leftovers::Removed {
            login_codes: 1,
            waiting_photos: 1,
            ..leftovers::Removed::default()
        }
    );
    assert_eq!(codes(&app).await, 1);
    let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM complaint_images ORDER BY id")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    let mut kept = vec![filed.clone(), today.clone()];
    kept.sort();
    assert_eq!(ids, kept);
    let files: Vec<String> = app
        .services
        .files
        .list("complaints")
        .map_ok(|f| f.key)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(!files.contains(&forgotten_key));
    // Sending the forgotten photo now is refused like any photo that is not the borrower's waiting upload.
    let late = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "description": "The fee on my statement is wrong.", "imageIds": [forgotten]}),
        )
        .await;
    assert_eq!(late.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(leftovers::run(&app.services).await.unwrap().total(), 0);
    app.stop().await;
}

/// The leftovers sweep also removes a borrower session 180 days after sign-in (its token signs nobody in, as it did
/// not already) and a contact-form message a year after support handled it; a session a minute younger, a message
/// handled a minute later, and a message still waiting however old stay; a second run finds nothing.
#[tokio::test]
async fn the_leftovers_sweep_removes_old_sessions_and_long_handled_contact_messages() {
    let app = spawn_app().await;
    let old = app.sign_in("IN", "9876534020").await;
    let younger = app.sign_in("IN", "9876534021").await;
    let now = app.services.clock.now_ms();
    for (session, age) in [
        (&old, leftovers::SESSION_KEPT_MS + 60_000),
        (&younger, leftovers::SESSION_KEPT_MS - 60_000),
    ] {
        app.execute(&format!(
            "UPDATE borrower_sessions SET created_at = {}, last_seen_at = {} WHERE token_hash = '{}'",
            now - age,
            now - age,
            kilat_server::infra::crypto::token_hash(session)
        ))
        .await;
    }
    for name in ["Long handled", "Lately handled", "Waiting"] {
        let sent = app
            .post_json(
                "/api/v1/site/contact-messages",
                &json!({"name": name, "telephone": "+91 98765 43210", "message": "Call me about a loan."}),
            )
            .await;
        assert_eq!(sent.status(), StatusCode::CREATED);
    }
    let ids: Vec<String> =
        sqlx::query_scalar("SELECT id FROM contact_messages ORDER BY created_at, id")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    assert_eq!(ids.len(), 3);
    let named = |name: &'static str| {
        let secrets = app.services.secrets.clone();
        let pool = app.db.clone();
        async move {
            pool.list_contact_messages(&secrets, 10)
                .await
                .unwrap()
                .into_iter()
                .find(|m| m.name == name)
                .unwrap()
                .id
        }
    };
    let (long, lately, waiting) = (
        named("Long handled").await,
        named("Lately handled").await,
        named("Waiting").await,
    );
    for (id, handled) in [
        (&long, now - leftovers::HANDLED_CONTACT_KEPT_MS - 60_000),
        (&lately, now - leftovers::HANDLED_CONTACT_KEPT_MS + 60_000),
    ] {
        app.execute(&format!(
            "UPDATE contact_messages SET handled_at = {handled}, handled_by = 'op' WHERE id = '{id}'"
        ))
        .await;
    }
    app.execute(&format!(
        "UPDATE contact_messages SET created_at = {} WHERE id = '{waiting}'",
        now - 3 * leftovers::HANDLED_CONTACT_KEPT_MS
    ))
    .await;

    let removed = leftovers::run(&app.services).await.unwrap();
    assert_eq!(
        removed,
        leftovers::Removed {
            sessions: 1,
            contact_messages: 1,
            ..leftovers::Removed::default()
        }
    );
    let sessions: Vec<String> = sqlx::query_scalar("SELECT token_hash FROM borrower_sessions")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    assert_eq!(
        sessions,
        [kilat_server::infra::crypto::token_hash(&younger)]
    );
    assert_eq!(
        app.get_as("/api/v1/borrower/home", &old).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let mut kept: Vec<String> = sqlx::query_scalar("SELECT id FROM contact_messages")
        .fetch_all(app.db.pool())
        .await
        .unwrap();
    kept.sort();
    let mut expected = vec![lately, waiting];
    expected.sort();
    assert_eq!(kept, expected);
    assert_eq!(leftovers::run(&app.services).await.unwrap().total(), 0);
    app.stop().await;
}
