//! The S3-compatible file store against a real S3 server: `s3s` with `s3s-fs` (the S3 protocol over HTTP, objects in a
//! folder, every request's SigV4 signature checked against one access key), in this process on a loopback port. The
//! store's own calls (round trip, a missing key, wrong keys, a store that never answers), the settings start-up
//! refuses, and the complaint images' whole flow with `files.store = "s3"` on SQLite and PostgreSQL.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kilat_server::auth::operators::Role;
use kilat_server::infra::files::{FileStore, S3Files, bucket_url};
use kilat_server::settings::{FileStoreKind, Mode, S3Settings, Settings};
use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::helpers::{as_production, data, spawn_app_with};
use crate::servicing::{op_call, operator};

const ACCESS_KEY: &str = "kilat-test-access";
const SECRET_KEY: &str = "kilat-test-secret-0123456789";
const BUCKET: &str = "kilat-files";

/// An S3 server on a loopback port, its objects under `root/BUCKET/`.
pub(crate) struct S3Peer {
    addr: SocketAddr,
    pub(crate) root: PathBuf,
    server: tokio::task::JoinHandle<()>,
}

pub(crate) const TEST_PREFIX: &str = "kilat/test";

impl S3Peer {
    pub(crate) async fn start() -> Self {
        let root = std::env::temp_dir().join(format!("kilat-s3-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(root.join(BUCKET)).unwrap();
        let mut builder =
            s3s::service::S3ServiceBuilder::new(s3s_fs::FileSystem::new(&root).unwrap());
        builder.set_auth(s3s::auth::SimpleAuth::from_single(ACCESS_KEY, SECRET_KEY));
        let service = builder.build();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let service = service.clone();
                tokio::spawn(async move {
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(socket), service)
                        .await;
                });
            }
        });
        Self { addr, root, server }
    }

    /// Path-style settings for this peer, under `prefix`.
    fn settings(&self, prefix: &str) -> S3Settings {
        S3Settings {
            endpoint: format!("http://{}", self.addr),
            region: "us-east-1".into(),
            bucket: BUCKET.into(),
            prefix: prefix.into(),
            path_style: true,
            access_key_id: Some(ACCESS_KEY.into()),
            secret_access_key: Some(SECRET_KEY.into()),
            timeout_ms: 5_000,
        }
    }

    /// Points a test server's file store at this peer, under the prefix [`TEST_PREFIX`].
    pub(crate) fn configure(&self, settings: &mut Settings) {
        settings.files.store = FileStoreKind::S3;
        settings.files.s3 = self.settings(TEST_PREFIX);
    }

    /// The file that holds the object of `key` under [`TEST_PREFIX`].
    pub(crate) fn object_file(&self, key: &str) -> PathBuf {
        self.root.join(BUCKET).join(TEST_PREFIX).join(key)
    }

    /// The objects the peer holds, as keys.
    fn objects(&self) -> Vec<String> {
        let bucket = self.root.join(BUCKET);
        let mut keys = Vec::new();
        collect(&bucket, &bucket, &mut keys);
        keys.sort();
        keys
    }

    pub(crate) fn stop(self) {
        self.server.abort();
        std::fs::remove_dir_all(&self.root).ok();
    }
}

fn collect(base: &Path, dir: &Path, keys: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(base, &path, keys);
        } else {
            keys.push(
                path.strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
}

#[tokio::test]
async fn the_s3_store_keeps_replaces_and_removes_objects_under_its_prefix() {
    let peer = S3Peer::start().await;
    let store = S3Files::new(&peer.settings("kilat/prod")).unwrap();

    assert_eq!(store.get("complaints/a.png").await.unwrap(), None);
    store
        .put("complaints/a.png", b"one".to_vec(), "image/png")
        .await
        .unwrap();
    assert_eq!(peer.objects(), ["kilat/prod/complaints/a.png"]);
    assert_eq!(
        std::fs::read(peer.root.join(BUCKET).join("kilat/prod/complaints/a.png")).unwrap(),
        b"one"
    );
    store
        .put("complaints/a.png", b"two".to_vec(), "image/png")
        .await
        .unwrap();
    assert_eq!(
        store.get("complaints/a.png").await.unwrap(),
        Some(b"two".to_vec())
    );

    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
    store
        .put("complaints/b.jpg", big.clone(), "image/jpeg")
        .await
        .unwrap();
    assert_eq!(store.get("complaints/b.jpg").await.unwrap(), Some(big));

    store.delete("complaints/a.png").await.unwrap();
    store
        .delete("complaints/a.png")
        .await
        .expect("a missing key is no error");
    assert_eq!(store.get("complaints/a.png").await.unwrap(), None);
    assert_eq!(peer.objects(), ["kilat/prod/complaints/b.jpg"]);
    assert!(store.put("../x", b"x".to_vec(), "image/png").await.is_err());
    peer.stop();
}

/// The keys a store lists under `complaints`, sorted.
pub(crate) async fn complaint_keys(store: &dyn FileStore) -> Vec<String> {
    use futures_util::TryStreamExt;
    let mut keys: Vec<String> = store
        .list("complaints")
        .map_ok(|f| f.key)
        .try_collect()
        .await
        .unwrap();
    keys.sort();
    keys
}

#[tokio::test]
async fn the_s3_store_lists_a_folder_under_its_own_prefix_across_pages() {
    use futures_util::TryStreamExt;

    let peer = S3Peer::start().await;
    let prod = S3Files::new(&peer.settings("kilat/prod")).unwrap();
    let prod2 = S3Files::new(&peer.settings("kilat/prod2")).unwrap();
    let bare = S3Files::new(&peer.settings("")).unwrap();
    assert_eq!(
        complaint_keys(&prod).await,
        Vec::<String>::new(),
        "nothing yet"
    );
    // More than one page of ListObjectsV2 (1,000 keys).
    let mut expected: Vec<String> = (0..1_010)
        .map(|i| format!("complaints/{i:04}.png"))
        .collect();
    expected.push("complaints/2026/sub.jpg".into());
    for chunk in expected.chunks(50) {
        let puts = chunk
            .iter()
            .map(|key| prod.put(key, b"x".to_vec(), "image/png"));
        for put in futures_util::future::join_all(puts).await {
            put.unwrap();
        }
    }
    expected.sort();
    prod.put("elsewhere/a.png", b"x".to_vec(), "image/png")
        .await
        .unwrap();
    prod2
        .put("complaints/other.png", b"x".to_vec(), "image/png")
        .await
        .unwrap();

    let listed: Vec<_> = prod.list("complaints").try_collect().await.unwrap();
    assert_eq!(listed.len(), expected.len());
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!(listed.iter().all(|f| (now - f.modified_ms).abs() < 120_000));
    assert_eq!(
        complaint_keys(&prod).await,
        expected,
        "keys without the prefix"
    );
    assert_eq!(complaint_keys(&prod2).await, ["complaints/other.png"]);
    assert_eq!(
        complaint_keys(&bare).await,
        Vec::<String>::new(),
        "the bucket's root has no complaints folder"
    );
    assert!(
        prod.list("../x").try_collect::<Vec<_>>().await.is_err(),
        "a folder outside the store"
    );
    peer.stop();
}

#[tokio::test]
async fn the_s3_store_refuses_to_work_with_the_wrong_keys() {
    let peer = S3Peer::start().await;
    let good = S3Files::new(&peer.settings("")).unwrap();
    good.put("complaints/kept.png", b"kept".to_vec(), "image/png")
        .await
        .unwrap();

    let mut wrong_secret = peer.settings("");
    wrong_secret.secret_access_key = Some("not-the-secret".into());
    let mut unknown_key = peer.settings("");
    unknown_key.access_key_id = Some("somebody-else".into());
    for settings in [wrong_secret, unknown_key] {
        let bad = S3Files::new(&settings).unwrap();
        let put = bad
            .put("complaints/x.png", b"x".to_vec(), "image/png")
            .await
            .unwrap_err();
        assert!(
            format!("{put:#}").contains("writing complaints/x.png to the S3 bucket kilat-files"),
            "{put:#}"
        );
        assert!(
            bad.get("complaints/kept.png").await.is_err(),
            "a refused read is an error, not a missing file"
        );
        assert!(bad.delete("complaints/kept.png").await.is_err());
    }
    assert_eq!(
        peer.objects(),
        ["complaints/kept.png"],
        "nothing written or removed with the wrong keys"
    );
    peer.stop();
}

#[tokio::test]
async fn an_s3_store_that_never_answers_fails_within_its_timeout() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let store = S3Files::new(&S3Settings {
        endpoint: format!("http://{addr}"),
        timeout_ms: 300,
        ..S3Peer::settings_for_silent()
    })
    .unwrap();
    let started = Instant::now();
    let err = store
        .put("complaints/x.png", b"x".to_vec(), "image/png")
        .await
        .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert!(format!("{err:#}").contains("complaints/x.png"), "{err:#}");
    assert!(store.get("complaints/x.png").await.is_err());
    silent.abort();
}

impl S3Peer {
    fn settings_for_silent() -> S3Settings {
        S3Settings {
            endpoint: String::new(),
            region: "us-east-1".into(),
            bucket: BUCKET.into(),
            prefix: String::new(),
            path_style: true,
            access_key_id: Some(ACCESS_KEY.into()),
            secret_access_key: Some(SECRET_KEY.into()),
            timeout_ms: 5_000,
        }
    }
}

#[test]
fn start_up_refuses_an_s3_store_it_could_not_use_safely() {
    let mut settings = Settings::load(None).expect("the defaults load");
    as_production(&mut settings);
    settings
        .validate()
        .expect("production with the local store");
    settings.files.store = FileStoreKind::S3;
    let good = S3Settings {
        endpoint: "https://s3.ap-south-1.amazonaws.com".into(),
        region: "ap-south-1".into(),
        prefix: "kilat/prod".into(),
        path_style: false,
        ..S3Peer::settings_for_silent()
    };
    settings.files.s3 = good.clone();
    settings
        .validate()
        .expect("an https endpoint with a bucket and keys");

    let refused = |change: &dyn Fn(&mut S3Settings), mode: Mode, naming: &str| {
        let mut s = settings.clone();
        s.mode = mode;
        change(&mut s.files.s3);
        let err = s.validate().expect_err(naming).to_string();
        assert!(err.contains(naming), "{naming}: {err}");
    };
    for mode in [Mode::Development, Mode::Production] {
        refused(
            &|s| s.bucket = String::new(),
            mode,
            "KILAT_FILES__S3__BUCKET",
        );
        refused(
            &|s| s.bucket = "Kilat_Files".into(),
            mode,
            "KILAT_FILES__S3__BUCKET",
        );
        refused(
            &|s| s.access_key_id = None,
            mode,
            "KILAT_FILES__S3__ACCESS_KEY_ID",
        );
        refused(
            &|s| s.secret_access_key = Some(" ".into()),
            mode,
            "KILAT_FILES__S3__SECRET_ACCESS_KEY",
        );
        refused(
            &|s| s.endpoint = String::new(),
            mode,
            "KILAT_FILES__S3__ENDPOINT",
        );
        refused(
            &|s| s.endpoint = "https://s3.example/bucket".into(),
            mode,
            "KILAT_FILES__S3__ENDPOINT",
        );
        refused(
            &|s| s.region = String::new(),
            mode,
            "KILAT_FILES__S3__REGION",
        );
        refused(
            &|s| s.prefix = "/kilat/".into(),
            mode,
            "KILAT_FILES__S3__PREFIX",
        );
        refused(
            &|s| s.prefix = "a/../b".into(),
            mode,
            "KILAT_FILES__S3__PREFIX",
        );
        refused(&|s| s.timeout_ms = 0, mode, "KILAT_FILES__S3__TIMEOUT_MS");
        refused(
            &|s| s.endpoint = "https://10.0.0.5:9000".into(),
            mode,
            "KILAT_FILES__S3__PATH_STYLE",
        );
    }
    refused(
        &|s| s.endpoint = "http://minio.internal:9000".into(),
        Mode::Production,
        "https://",
    );
    let mut plain = settings.clone();
    plain.files.s3.endpoint = "http://minio.internal:9000".into();
    plain.mode = Mode::Development;
    plain
        .validate()
        .expect("development may use a plain http store");
    for loopback in [
        "http://127.0.0.1:9000",
        "http://localhost:9000",
        "http://[::1]:9000",
    ] {
        let mut local = settings.clone();
        local.files.s3.endpoint = loopback.into();
        local.files.s3.path_style = true;
        local.validate().expect(loopback);
    }
}

#[test]
fn requests_go_to_the_bucket_in_the_path_or_in_the_host_name() {
    let mut settings = S3Peer::settings_for_silent();
    settings.endpoint = "http://127.0.0.1:9000".into();
    assert_eq!(
        bucket_url(&settings).unwrap(),
        "http://127.0.0.1:9000/kilat-files"
    );
    settings.endpoint = "https://s3.ap-south-1.amazonaws.com/".into();
    settings.path_style = false;
    assert_eq!(
        bucket_url(&settings).unwrap(),
        "https://kilat-files.s3.ap-south-1.amazonaws.com"
    );
    settings.endpoint = "https://acc0unt.r2.cloudflarestorage.com:8443".into();
    assert_eq!(
        bucket_url(&settings).unwrap(),
        "https://kilat-files.acc0unt.r2.cloudflarestorage.com:8443"
    );
}

#[tokio::test]
async fn six_simultaneous_uploads_to_the_bucket_leave_three_records_and_three_objects() {
    let peer = S3Peer::start().await;
    let app = spawn_app_with(|s| peer.configure(s)).await;
    let session = app.sign_in("IN", "9876533003").await;
    let tasks: Vec<_> = (0..6)
        .map(|_| {
            let request = app
                .client
                .post(app.url("/api/v1/borrower/complaints/images"))
                .header("x-session-id", &session)
                .header("content-type", "image/png")
                .body(photo());
            tokio::spawn(async move { request.send().await.unwrap().status() })
        })
        .collect();
    let mut created = 0;
    for task in tasks {
        match task.await.unwrap() {
            StatusCode::CREATED => created += 1,
            StatusCode::UNPROCESSABLE_ENTITY => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert_eq!(created, 3);
    let records: Vec<String> =
        sqlx::query_scalar("SELECT storage_key FROM complaint_images ORDER BY storage_key")
            .fetch_all(app.db.pool())
            .await
            .unwrap();
    let objects: Vec<String> = peer
        .objects()
        .into_iter()
        .map(|key| key.trim_start_matches("kilat/test/").to_owned())
        .collect();
    assert_eq!(
        objects, records,
        "the refused uploads' objects are removed again"
    );
    app.stop().await;
    peer.stop();
}

/// A small PNG.
fn photo() -> Vec<u8> {
    let img = image::RgbImage::from_fn(40, 30, |x, y| {
        image::Rgb([(x * 6) as u8, (y * 8) as u8, 90])
    });
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

#[tokio::test]
async fn complaint_images_live_in_the_s3_bucket_from_upload_to_the_account_s_deletion() {
    let peer = S3Peer::start().await;
    let app = spawn_app_with(|s| peer.configure(s)).await;
    let session = app.sign_in("IN", "9876533001").await;

    let upload = |bytes: Vec<u8>| {
        app.client
            .post(app.url("/api/v1/borrower/complaints/images"))
            .header("x-session-id", &session)
            .header("content-type", "image/png")
            .body(bytes)
            .send()
    };
    let kept = data(upload(photo()).await.unwrap()).await;
    let kept_id = kept["imageId"].as_str().unwrap().to_owned();
    let dropped = data(upload(photo()).await.unwrap()).await;
    let dropped_id = dropped["imageId"].as_str().unwrap().to_owned();
    assert_eq!(
        peer.objects(),
        {
            let mut keys = vec![
                format!("kilat/test/complaints/{kept_id}.png"),
                format!("kilat/test/complaints/{dropped_id}.png"),
            ];
            keys.sort();
            keys
        },
        "each upload is one object under the prefix, and nothing is on the server's disk"
    );
    assert!(!app.files_dir.exists());
    let stored = std::fs::read(
        peer.root
            .join(BUCKET)
            .join(format!("kilat/test/complaints/{kept_id}.png")),
    )
    .unwrap();

    // The borrower reads it back through the API: the bucket's bytes.
    let own = app
        .get_as(
            &format!("/api/v1/borrower/complaints/images/{kept_id}"),
            &session,
        )
        .await;
    assert_eq!(own.status(), StatusCode::OK);
    assert_eq!(own.headers()["content-type"], "image/png");
    assert_eq!(own.bytes().await.unwrap().to_vec(), stored);

    // Removing a waiting upload removes its object.
    let removed = app
        .client
        .delete(app.url(&format!("/api/v1/borrower/complaints/images/{dropped_id}")))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(removed.status(), StatusCode::OK);
    assert_eq!(
        peer.objects(),
        [format!("kilat/test/complaints/{kept_id}.png")]
    );

    // Filed with a complaint, support sees it in the console.
    let filed = app
        .post_as(
            "/api/v1/borrower/complaints",
            &session,
            &json!({"category": "charges", "description": "The fee on my statement is wrong.", "imageIds": [kept_id]}),
        )
        .await;
    assert_eq!(filed.status(), StatusCode::CREATED);
    let support = operator(&app, "support-s3", &[Role::Support]).await;
    let seen = op_call(
        &app,
        &support,
        Method::GET,
        &format!("/api/v1/console/complaint-images/{kept_id}"),
        None,
    )
    .await;
    assert_eq!(seen.status(), StatusCode::OK);
    assert_eq!(seen.bytes().await.unwrap().to_vec(), stored);

    // Deleting the account removes the object from the bucket.
    let deleted = app
        .client
        .post(app.url("/api/v1/borrower/account/deletion"))
        .header("x-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::OK);
    assert_eq!(
        peer.objects(),
        Vec::<String>::new(),
        "the deleted account's photo is gone"
    );
    app.stop().await;
    peer.stop();
}

#[tokio::test]
async fn an_upload_the_bucket_refuses_leaves_no_record() {
    let peer = S3Peer::start().await;
    let app = spawn_app_with(|s| {
        peer.configure(s);
        s.files.s3.secret_access_key = Some("not-the-secret".into());
    })
    .await;
    let session = app.sign_in("ID", "081234533002").await;
    let refused = app
        .client
        .post(app.url("/api/v1/borrower/complaints/images"))
        .header("x-session-id", &session)
        .header("content-type", "image/png")
        .body(photo())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::INTERNAL_SERVER_ERROR);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["code"], "internal");
    assert!(!body.to_string().contains("not-the-secret"));
    let records: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM complaint_images")
        .fetch_one(app.db.pool())
        .await
        .unwrap();
    assert_eq!(records, 0);
    assert_eq!(peer.objects(), Vec::<String>::new());
    app.stop().await;
    peer.stop();
}
