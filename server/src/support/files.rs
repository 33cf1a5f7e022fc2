//! The file store: where uploaded files' bytes live, behind one trait chosen from settings (`[files]`). The default
//! keeps them in a folder on the server's disk; the database keeps only each file's key.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use anyhow::{Context, bail};

use crate::settings::{FileSettings, FileStoreKind};

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
