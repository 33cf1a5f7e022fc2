//! Bounds on the work one request can start that costs far more than the request itself: decoding a complaint image
//! (up to ~100 MB and seconds of CPU for a few kilobytes uploaded) and an Argon2 password hash (19 MiB for a console
//! sign-in anybody can send). Each kind runs at most `[bounds]`'s number at once (one per CPU core by default), and
//! the images decoding at once also share `bounds.image_memory_mb`, each taking its share by the pixels its header
//! declares, so that a few of the largest accepted images run one after the other while ordinary photos still run
//! side by side; a request that finds no room waits up to `bounds.wait_ms` for its turn, then is answered
//! `503 server_busy` with `Retry-After`, before it has allocated anything (docs/ARCHITECTURE.md, "Security: bounds on costly work").

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::Error;
use crate::settings::BoundSettings;

/// What a `503 server_busy` asks the client to wait before trying again, in seconds.
pub const RETRY_AFTER_SECS: u64 = 2;

/// The bounds of each kind of costly work, shared by every worker of the server.
#[derive(Clone, Debug)]
pub struct WorkBounds {
    /// Complaint images decoded and re-encoded at once.
    pub image_decodes: Bound,
    /// The memory those decodes share, in MiB: each takes its image's working memory
    /// (`support::images::working_memory`).
    pub image_memory: Bound,
    /// Argon2 password hashes (sign-in checks, new passwords) computed at once.
    pub password_hashes: Bound,
    /// Borrowers' data exports built at once (`account::export`).
    pub exports: Bound,
    /// Loan documents rendered to PDF at once (`account::documents::render`).
    pub documents: Bound,
}

impl WorkBounds {
    pub fn from_settings(settings: &BoundSettings) -> Self {
        let wait = Duration::from_millis(settings.wait_ms);
        Self {
            image_decodes: Bound::new(per_core(settings.image_decodes), wait),
            image_memory: Bound::new(settings.image_memory_mb.max(1) as usize, wait),
            password_hashes: Bound::new(per_core(settings.password_hashes), wait),
            exports: Bound::new(per_core(settings.exports), wait),
            documents: Bound::new(per_core(settings.documents), wait),
        }
    }
}

/// `0` means one per CPU core.
fn per_core(configured: usize) -> usize {
    match configured {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    }
}

/// At most `permits` of one kind of work at once.
#[derive(Clone, Debug)]
pub struct Bound {
    permits: Arc<Semaphore>,
    size: usize,
    wait: Duration,
    admitted: Arc<AtomicU64>,
}

/// The right to do one piece of bounded work; the place is given back when it is dropped (move it into the blocking
/// task, so that a request whose client went away still holds it until the work really ends).
#[derive(Debug)]
pub struct Permit(#[allow(dead_code)] OwnedSemaphorePermit);

/// `MiB` of memory, rounded up (a bound on memory counts in MiB).
pub fn mib(bytes: u64) -> usize {
    usize::try_from(bytes.div_ceil(1024 * 1024)).unwrap_or(usize::MAX)
}

impl Bound {
    pub fn new(permits: usize, wait: Duration) -> Self {
        let permits = permits.max(1);
        Self {
            permits: Arc::new(Semaphore::new(permits)),
            size: permits,
            wait,
            admitted: Arc::new(AtomicU64::new(0)),
        }
    }

    /// A place, waiting up to the bound's wait for one; `server_busy` when none came free in time.
    pub async fn enter(&self) -> Result<Permit, Error> {
        self.enter_many(1).await
    }

    /// `places` places at once (at most the bound's size: a piece of work larger than the whole bound runs alone),
    /// waiting up to the bound's wait; `server_busy` when they did not come free in time.
    pub async fn enter_many(&self, places: usize) -> Result<Permit, Error> {
        let places = u32::try_from(places.clamp(1, self.size)).unwrap_or(u32::MAX);
        let permit = match self.permits.clone().try_acquire_many_owned(places) {
            Ok(permit) => permit,
            Err(_) => {
                tokio::time::timeout(self.wait, self.permits.clone().acquire_many_owned(places))
                    .await
                    .map_err(|_| Error::Busy {
                        retry_after_secs: RETRY_AFTER_SECS,
                    })?
                    .map_err(|_| anyhow::anyhow!("a work bound was closed"))?
            }
        };
        self.admitted.fetch_add(1, Ordering::Relaxed);
        Ok(Permit(permit))
    }

    /// A place whatever the wait: for work an authenticated operator asked for (setting a password), which should not
    /// fail for being busy, and still runs within the bound.
    pub async fn enter_waiting(&self) -> Result<Permit, Error> {
        let permit = self
            .permits
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| anyhow::anyhow!("a work bound was closed"))?;
        self.admitted.fetch_add(1, Ordering::Relaxed);
        Ok(Permit(permit))
    }

    /// How many pieces of work may run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// How many pieces of work were let in since start-up (the tests count decodes with it).
    pub fn admitted(&self) -> u64 {
        self.admitted.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_bound_answers_busy_after_its_wait_and_lets_in_again_once_a_place_is_free() {
        let bound = Bound::new(1, Duration::from_millis(20));
        let held = bound.enter().await.unwrap();
        let started = std::time::Instant::now();
        let refused = bound.enter().await.unwrap_err();
        assert!(started.elapsed() >= Duration::from_millis(20));
        assert_eq!(refused.code(), "server_busy");
        assert_eq!(refused.retry_after_secs(), Some(RETRY_AFTER_SECS));
        drop(held);
        assert!(bound.enter().await.is_ok());
        assert_eq!(bound.admitted(), 2, "the refused one was not let in");
    }

    #[tokio::test]
    async fn weighted_work_shares_the_bound_by_its_size() {
        let memory = Bound::new(192, Duration::from_millis(20));
        let photo = memory.enter_many(92).await.unwrap();
        let second = memory.enter_many(92).await.unwrap();
        assert_eq!(
            memory.enter_many(92).await.unwrap_err().code(),
            "server_busy",
            "a third 12-megapixel photo waits for one of the two"
        );
        drop((photo, second));
        let largest = memory.enter_many(10_000).await.unwrap();
        assert_eq!(
            memory.enter().await.unwrap_err().code(),
            "server_busy",
            "more than the bound runs alone"
        );
        drop(largest);
        assert!(memory.enter().await.is_ok());
        assert_eq!(mib(1), 1);
        assert_eq!(mib(24_000_000 * 8), 184);
    }

    #[test]
    fn zero_means_one_per_core() {
        assert!(per_core(0) >= 1);
        assert_eq!(per_core(3), 3);
    }
}
