//! The file store: where uploaded files' bytes live, behind one trait chosen from settings (`[files]`). The default
//! keeps them in a folder on the server's disk, `s3` in a bucket of an S3-compatible store; the database keeps only
//! each file's key.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::{
    Attribute, Attributes, ClientOptions, ObjectStore, ObjectStoreExt, PutOptions, PutPayload,
    RetryConfig,
};
use secrecy::ExposeSecret;

use crate::settings::{FileSettings, FileStoreKind, S3Settings};

/// A future a file store answers with.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = anyhow::Result<T>> + Send + 'a>>;

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
}

/// The store the settings name.
pub fn from_settings(settings: &FileSettings) -> anyhow::Result<Arc<dyn FileStore>> {
    match settings.store {
        FileStoreKind::Local => Ok(Arc::new(LocalFiles::new(&settings.dir)?)),
        FileStoreKind::S3 => Ok(Arc::new(S3Files::new(&settings.s3)?)),
    }
}

fn check_key(key: &str) -> anyhow::Result<()> {
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
}
