//! The file store: where uploaded files' bytes live, behind one trait chosen from settings (`[files]`). The default
//! keeps them in a folder on the server's disk, `s3` in a bucket of an S3-compatible store; the database keeps only
//! each file's key. `list` walks what the store holds under a folder, for the orphan-files sweep
//! (`jobs::orphan_files`).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{
    Attribute, Attributes, ClientOptions, ObjectStore, ObjectStoreExt, PutOptions, PutPayload,
    RetryConfig,
};
use secrecy::ExposeSecret;

use crate::settings::{FileSettings, FileStoreKind, S3Settings};

/// A future a file store answers with.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = anyhow::Result<T>> + Send + 'a>>;

/// What [`FileStore::list`] yields: a stored file's key and when it was last written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredFile {
    pub key: String,
    /// Epoch ms, by the store's own clock (the file system's, or the S3 service's).
    pub modified_ms: i64,
}

/// The files a store lists, one at a time as it reads them.
pub type FileStream<'a> = BoxStream<'a, anyhow::Result<StoredFile>>;

/// Keeps bytes under a key (`complaints/<id>.jpg`): letters, digits, `-`, `_`, `.` and `/`, never `..`.
pub trait FileStore: Send + Sync {
    /// Writes the whole file, replacing any under the same key; once it returns, a `get` sees all of it.
    fn put<'a>(
        &'a self,
        key: &'a str,
        bytes: Vec<u8>,
        content_type: &'a str,
    ) -> StoreFuture<'a, ()>;
    /// The file, or `None` when there is none under the key.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Removes the file; a missing one is not an error.
    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()>;
    /// Every file under the folder `folder` (a key: `complaints`), in no particular order, read as the stream is
    /// polled (never the whole listing in memory). Only keys [`check_key`] accepts are yielded, so whatever else the
    /// folder holds (a file name with other characters, a symbolic link) is never handed to `delete`. A file removed
    /// while the listing runs may or may not be yielded; a removal is never an error.
    fn list<'a>(&'a self, folder: &'a str) -> FileStream<'a>;
}

/// The store the settings name.
pub fn from_settings(settings: &FileSettings) -> anyhow::Result<Arc<dyn FileStore>> {
    match settings.store {
        FileStoreKind::Local => Ok(Arc::new(LocalFiles::new(&settings.dir)?)),
        FileStoreKind::S3 => Ok(Arc::new(S3Files::new(&settings.s3)?)),
    }
}

/// A key the stores accept: relative, letters, digits, `-`, `_`, `.` and `/`, no empty, `.` or `..` part.
pub fn check_key(key: &str) -> anyhow::Result<()> {
    let fine = !key.is_empty()
        && !key.starts_with('/')
        && key
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'/'));
    if !fine {
        bail!("not a file key: {key:?}");
    }
    Ok(())
}

/// Files in a folder on this server's disk. A write goes to a temporary name and is renamed into place, so a reader
/// never sees half a file.
pub struct LocalFiles {
    root: PathBuf,
}

impl LocalFiles {
    pub fn new(root: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(root).with_context(|| {
            format!(
                "creating the files folder {} (KILAT_FILES__DIR)",
                root.display()
            )
        })?;
        Ok(Self {
            root: root.to_owned(),
        })
    }

    fn path(&self, key: &str) -> anyhow::Result<PathBuf> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

impl FileStore for LocalFiles {
    fn put<'a>(
        &'a self,
        key: &'a str,
        bytes: Vec<u8>,
        _content_type: &'a str,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(key)?;
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent).await?;
            }
            let temp = path.with_extension(format!("part-{}", uuid::Uuid::new_v4().simple()));
            tokio::fs::write(&temp, &bytes)
                .await
                .with_context(|| format!("writing {}", temp.display()))?;
            tokio::fs::rename(&temp, &path)
                .await
                .with_context(|| format!("moving a file into {}", path.display()))?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let path = self.path(key)?;
            match tokio::fs::read(&path).await {
                Ok(bytes) => Ok(Some(bytes)),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(err) => Err(err).with_context(|| format!("reading {}", path.display())),
            }
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(key)?;
            match tokio::fs::remove_file(&path).await {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(err) => Err(err).with_context(|| format!("removing {}", path.display())),
            }
        })
    }

    fn list<'a>(&'a self, folder: &'a str) -> FileStream<'a> {
        let start = match self.path(folder) {
            Ok(start) => start,
            Err(err) => return futures_util::stream::once(async { Err(err) }).boxed(),
        };
        let walk = Walk {
            root: self.root.clone(),
            pending: vec![start],
            current: None,
        };
        futures_util::stream::unfold(walk, |mut walk| async move {
            walk.next().await.map(|item| (item, walk))
        })
        .boxed()
    }
}

/// A depth-first walk of a folder of [`LocalFiles`], one directory entry read at a time.
struct Walk {
    root: PathBuf,
    /// Folders still to read.
    pending: Vec<PathBuf>,
    current: Option<tokio::fs::ReadDir>,
}

impl Walk {
    async fn next(&mut self) -> Option<anyhow::Result<StoredFile>> {
        loop {
            if self.current.is_none() {
                let dir = self.pending.pop()?;
                match tokio::fs::read_dir(&dir).await {
                    Ok(read) => self.current = Some(read),
                    // Nothing stored there yet.
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(err) => {
                        return Some(
                            Err(err).with_context(|| format!("listing {}", dir.display())),
                        );
                    }
                }
            }
            let read = self.current.as_mut()?;
            let entry = match read.next_entry().await {
                Ok(Some(entry)) => entry,
                Ok(None) => {
                    self.current = None;
                    continue;
                }
                Err(err) => {
                    self.current = None;
                    return Some(Err(err).context("listing the files folder"));
                }
            };
            let path = entry.path();
            // The entry's own type: a symbolic link is neither followed nor yielded.
            let kind = match entry.file_type().await {
                Ok(kind) => kind,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(err) => {
                    return Some(Err(err).with_context(|| format!("reading {}", path.display())));
                }
            };
            if kind.is_dir() {
                self.pending.push(path);
                continue;
            }
            if !kind.is_file() {
                continue;
            }
            let Some(key) = path
                .strip_prefix(&self.root)
                .ok()
                .and_then(Path::to_str)
                .filter(|key| check_key(key).is_ok())
            else {
                continue;
            };
            let modified = match entry.metadata().await.and_then(|m| m.modified()) {
                Ok(modified) => modified,
                // Removed since it was read (another sweep, a deletion).
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(err) => {
                    return Some(Err(err).with_context(|| format!("reading {}", path.display())));
                }
            };
            let modified_ms = match modified.duration_since(std::time::UNIX_EPOCH) {
                Ok(since) => i64::try_from(since.as_millis()).unwrap_or(i64::MAX),
                Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
            };
            return Some(Ok(StoredFile {
                key: key.to_owned(),
                modified_ms,
            }));
        }
    }
}

/// Files in a bucket of an S3-compatible store, under the settings' prefix, through `object_store`'s S3 client
/// (SigV4 signatures, over the server's reqwest and rustls with ring). An object appears whole when its PUT succeeds,
/// so a reader never sees half a file here either. Every call is bounded by `timeout_ms`, its retries included.
pub struct S3Files {
    store: AmazonS3,
    prefix: String,
    timeout: Duration,
    /// `bucket` at `endpoint`, for error messages.
    name: String,
}

impl S3Files {
    /// Builds the client from settings start-up has checked (`FileSettings::validate`); nothing is sent until the
    /// first call.
    pub fn new(settings: &S3Settings) -> anyhow::Result<Self> {
        // reqwest is built with rustls and no default crypto provider: the server's is ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let endpoint = settings.endpoint_url()?;
        let timeout = Duration::from_millis(settings.timeout_ms.max(1));
        let bucket = bucket_url(settings)?;
        // Path style: object_store adds the bucket to the endpoint itself; virtual-hosted: it takes the bucket's URL.
        let endpoint_for_client = if settings.path_style {
            endpoint.as_str().trim_end_matches('/').to_owned()
        } else {
            bucket.clone()
        };
        let secret = |value: &Option<secrecy::SecretString>| {
            value
                .as_ref()
                .map(|v| v.expose_secret().trim().to_owned())
                .unwrap_or_default()
        };
        let client = ClientOptions::new()
            .with_allow_http(endpoint.scheme() == "http")
            .with_timeout(timeout)
            .with_connect_timeout(timeout.min(Duration::from_secs(5)));
        let retry = RetryConfig {
            max_retries: 2,
            retry_timeout: timeout,
            ..RetryConfig::default()
        };
        let store = AmazonS3Builder::new()
            .with_endpoint(endpoint_for_client)
            .with_virtual_hosted_style_request(!settings.path_style)
            .with_region(settings.region.trim())
            .with_bucket_name(&settings.bucket)
            .with_access_key_id(secret(&settings.access_key_id))
            .with_secret_access_key(secret(&settings.secret_access_key))
            .with_client_options(client)
            .with_retry(retry)
            .build()
            .context("building the S3 client from KILAT_FILES__S3__*")?;
        Ok(Self {
            store,
            prefix: settings.prefix.trim_matches('/').to_owned(),
            timeout,
            name: format!("bucket {} at {bucket}", settings.bucket),
        })
    }

    fn path(&self, key: &str) -> anyhow::Result<object_store::path::Path> {
        check_key(key)?;
        let full = if self.prefix.is_empty() {
            key.to_owned()
        } else {
            format!("{}/{key}", self.prefix)
        };
        object_store::path::Path::parse(&full).with_context(|| format!("the object key {full:?}"))
    }

    /// Runs one call within the timeout; a slower one is an error that names what it was doing.
    async fn bounded<T>(
        &self,
        what: &str,
        key: &str,
        call: impl Future<Output = object_store::Result<T>>,
    ) -> anyhow::Result<object_store::Result<T>> {
        tokio::time::timeout(self.timeout, call).await.map_err(|_| {
            anyhow::anyhow!(
                "{what} {key} in the S3 {}: no answer within {} ms (KILAT_FILES__S3__TIMEOUT_MS)",
                self.name,
                self.timeout.as_millis()
            )
        })
    }
}

/// The bucket's URL, where its objects' keys follow: `ENDPOINT/BUCKET` in path style, else the endpoint with the bucket
/// put before its host name (`https://BUCKET.s3.ap-south-1.amazonaws.com`).
pub fn bucket_url(settings: &S3Settings) -> anyhow::Result<String> {
    let mut url = settings.endpoint_url()?;
    if settings.path_style {
        url.set_path(&settings.bucket);
    } else {
        let host = format!("{}.{}", settings.bucket, url.host_str().unwrap_or_default());
        url.set_host(Some(&host))
            .with_context(|| format!("the bucket's host name {host:?}"))?;
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

impl FileStore for S3Files {
    fn put<'a>(
        &'a self,
        key: &'a str,
        bytes: Vec<u8>,
        content_type: &'a str,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(key)?;
            let options = PutOptions {
                attributes: Attributes::from_iter([(
                    Attribute::ContentType,
                    content_type.to_owned(),
                )]),
                ..PutOptions::default()
            };
            let call = self.store.put_opts(&path, PutPayload::from(bytes), options);
            self.bounded("writing", key, call)
                .await?
                .with_context(|| format!("writing {key} to the S3 {}", self.name))?;
            Ok(())
        })
    }

    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        Box::pin(async move {
            let path = self.path(key)?;
            let call = async {
                let found = self.store.get(&path).await?;
                found.bytes().await
            };
            match self.bounded("reading", key, call).await? {
                Ok(bytes) => Ok(Some(bytes.to_vec())),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(err) => {
                    Err(err).with_context(|| format!("reading {key} from the S3 {}", self.name))
                }
            }
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let path = self.path(key)?;
            // S3 answers 204 for a key it does not have; a store that says 404 instead means the same.
            match self
                .bounded("removing", key, self.store.delete(&path))
                .await?
            {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(err) => {
                    Err(err).with_context(|| format!("removing {key} from the S3 {}", self.name))
                }
            }
        })
    }

    fn list<'a>(&'a self, folder: &'a str) -> FileStream<'a> {
        let path = match self.path(folder) {
            Ok(path) => path,
            Err(err) => return futures_util::stream::once(async { Err(err) }).boxed(),
        };
        // The listing's pages come as the stream is polled (ListObjectsV2, 1,000 keys each); each poll is bounded
        // by the timeout as every other call is.
        let pages = self.store.list(Some(&path));
        let prefix = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        futures_util::stream::unfold(pages, move |mut pages| {
            let prefix = prefix.clone();
            async move {
                loop {
                    let meta = match tokio::time::timeout(self.timeout, pages.next()).await {
                        Err(_) => {
                            let err = anyhow::anyhow!(
                                "listing {folder} in the S3 {}: no answer within {} ms (KILAT_FILES__S3__TIMEOUT_MS)",
                                self.name,
                                self.timeout.as_millis()
                            );
                            return Some((Err(err), pages));
                        }
                        Ok(None) => return None,
                        Ok(Some(Err(err))) => {
                            let err = anyhow::Error::new(err)
                                .context(format!("listing {folder} in the S3 {}", self.name));
                            return Some((Err(err), pages));
                        }
                        Ok(Some(Ok(meta))) => meta,
                    };
                    let Some(key) = meta
                        .location
                        .as_ref()
                        .strip_prefix(prefix.as_str())
                        .filter(|key| check_key(key).is_ok())
                    else {
                        continue;
                    };
                    let file = StoredFile {
                        key: key.to_owned(),
                        modified_ms: meta.last_modified.timestamp_millis(),
                    };
                    return Some((Ok(file), pages));
                }
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cannot_leave_the_store() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../../x",
            "a//b",
            "a/./b",
            "a b",
            "a\\b",
        ] {
            assert!(check_key(bad).is_err(), "{bad:?}");
        }
        assert!(check_key("complaints/0193-abc.jpg").is_ok());
    }

    #[tokio::test]
    async fn a_local_store_keeps_replaces_and_removes_files() {
        let dir =
            std::env::temp_dir().join(format!("kilat-files-{}", uuid::Uuid::new_v4().simple()));
        let store = LocalFiles::new(&dir).unwrap();
        assert_eq!(store.get("complaints/a.png").await.unwrap(), None);
        store
            .put("complaints/a.png", b"one".to_vec(), "image/png")
            .await
            .unwrap();
        store
            .put("complaints/a.png", b"two".to_vec(), "image/png")
            .await
            .unwrap();
        assert_eq!(
            store.get("complaints/a.png").await.unwrap(),
            Some(b"two".to_vec())
        );
        store.delete("complaints/a.png").await.unwrap();
        store.delete("complaints/a.png").await.unwrap();
        assert_eq!(store.get("complaints/a.png").await.unwrap(), None);
        assert_eq!(
            std::fs::read_dir(dir.join("complaints")).unwrap().count(),
            0
        );
        std::fs::remove_dir_all(dir).ok();
    }

    #[tokio::test]
    async fn a_local_store_lists_the_files_under_a_folder_and_nothing_it_could_not_remove() {
        use futures_util::TryStreamExt;

        let dir =
            std::env::temp_dir().join(format!("kilat-files-{}", uuid::Uuid::new_v4().simple()));
        let store = LocalFiles::new(&dir).unwrap();
        let listed = |folder: &'static str| {
            let store = &store;
            async move {
                let mut files: Vec<StoredFile> = store.list(folder).try_collect().await.unwrap();
                files.sort_by(|a, b| a.key.cmp(&b.key));
                files
            }
        };
        assert_eq!(listed("complaints").await, [], "no folder yet");
        for key in ["complaints/a.png", "complaints/2026/b.jpg", "other/c.png"] {
            store.put(key, b"x".to_vec(), "image/png").await.unwrap();
        }
        std::fs::write(dir.join("complaints/with space.png"), b"x").unwrap();
        std::os::unix::fs::symlink(dir.join("other/c.png"), dir.join("complaints/link.png"))
            .unwrap();
        let files = listed("complaints").await;
        let keys: Vec<&str> = files.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["complaints/2026/b.jpg", "complaints/a.png"]);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as i64;
        assert!(files.iter().all(|f| (now - f.modified_ms).abs() < 60_000));
        assert!(store.list("../etc").try_collect::<Vec<_>>().await.is_err());
        std::fs::remove_dir_all(dir).ok();
    }
}
