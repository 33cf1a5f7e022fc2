//! Counts the console's queues show on every page and poll every half minute, kept between requests: counting a
//! queue reads every entry of its index (at 6,000,000 orders, 234,000 overdue Indian loans: 84 ms of PostgreSQL on
//! three processes; 150,000 applications in review: 15 to 30 ms), and a queue's operators all ask for the same count.
//!
//! A count is kept until a transaction of this server that changed what it counts commits (the writes mark their
//! [`Tx`](super::Tx), and its commit makes the kept counts stale), and for [`KeptCounts::FOR`] at most: the most
//! another server's change, or a claim running out, takes to show. Requests that find no fresh count while one is
//! being counted wait for that one instead of counting again, when nothing was committed since it started: so at most
//! one count of a queue is out at a time, and an operator's own change always shows in the next count they ask for.
//! A count runs on a task of its own, to its end, whichever of the requests waiting for it go away.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::future::{BoxFuture, FutureExt, Shared};

use super::collections::BucketCounts;
use super::review::StatusCount;

/// The counts kept by one database handle, and shared by its transactions.
#[derive(Debug, Default)]
pub struct Counts {
    /// The overdue queue's bucket counts, by market and day; stale once a loan's position is written.
    pub(super) arrears: KeptCounts<BucketCounts>,
    /// The review queue's counts (waiting and claimed, by market); stale once an order enters or leaves review, or a
    /// claim is taken or released.
    pub(super) review: KeptCounts<Vec<StatusCount>>,
}

/// What a transaction wrote that makes kept counts stale once it commits.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Written {
    pub arrears: bool,
    pub review: bool,
}

impl Written {
    /// Every kind of count (bulk writes: seeding, purging accounts).
    pub const ALL: Self = Self {
        arrears: true,
        review: true,
    };
}

impl Counts {
    /// A transaction that wrote `written` committed.
    pub(super) fn committed(&self, written: Written) {
        if written.arrears {
            self.arrears.changed();
        }
        if written.review {
            self.review.changed();
        }
    }
}

/// A count being counted or counted: the error, as text, is the statement's (every waiter gets it).
type Counting<V> = Shared<BoxFuture<'static, Result<V, Arc<str>>>>;

/// Counts of one kind, by a key whose first part names what they count (a market) and whose second its day.
pub(super) struct KeptCounts<V> {
    /// Bumped by each commit that changed what is counted; a count started before it is not served after it.
    version: AtomicU64,
    kept: Mutex<HashMap<(String, String), Kept<V>>>,
}

struct Kept<V> {
    version: u64,
    started: Instant,
    count: Counting<V>,
}

impl<V> Default for KeptCounts<V> {
    fn default() -> Self {
        Self {
            version: AtomicU64::new(0),
            kept: Mutex::new(HashMap::new()),
        }
    }
}

impl<V> std::fmt::Debug for KeptCounts<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptCounts")
            .field("version", &self.version.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl<V: Clone + Send + Sync + 'static> KeptCounts<V> {
    /// How long a count is kept when nothing changes in this server.
    pub const FOR: Duration = Duration::from_secs(5);

    /// Something counted changed (its transaction committed): every kept count is stale.
    pub(super) fn changed(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The count for `key`: the one kept or being counted since the last change, or `count` started now (and kept,
    /// in place of the key's others with the same first part: yesterday's).
    pub(super) async fn get_or_count<F>(&self, key: (String, String), count: F) -> sqlx::Result<V>
    where
        F: Future<Output = sqlx::Result<V>> + Send + 'static,
    {
        // Read before the count starts: a commit while it runs makes it stale for whoever asks after that commit.
        let version = self.version.load(Ordering::Acquire);
        let counting = {
            let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
            match kept.get(&key) {
                Some(k)
                    if k.version == version
                        && k.started.elapsed() < Self::FOR
                        && !matches!(k.count.peek(), Some(Err(_))) =>
                {
                    k.count.clone()
                }
                _ => {
                    // On a task of its own: it runs to its end, and gives its connection back, whichever requests
                    // waiting for it go away (a future no one polls would hold the connection until asked again).
                    let task = tokio::spawn(count);
                    let counting: Counting<V> = async move {
                        match task.await {
                            Ok(counted) => counted.map_err(|e| Arc::<str>::from(e.to_string())),
                            Err(stopped) => {
                                Err(Arc::<str>::from(format!("the count stopped: {stopped}")))
                            }
                        }
                    }
                    .boxed()
                    .shared();
                    kept.retain(|(what, _), _| what != &key.0);
                    kept.insert(
                        key,
                        Kept {
                            version,
                            started: Instant::now(),
                            count: counting.clone(),
                        },
                    );
                    counting
                }
            }
        };
        counting
            .await
            .map_err(|e| sqlx::Error::Protocol(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    fn key(what: &str) -> (String, String) {
        (what.to_owned(), "2026-12-05".to_owned())
    }

    /// A count that takes `ms` and answers how many counts ran before it.
    fn counting(
        ran: &Arc<AtomicUsize>,
        ms: u64,
    ) -> impl Future<Output = sqlx::Result<usize>> + Send + 'static {
        let ran = ran.clone();
        async move {
            let n = ran.fetch_add(1, Ordering::SeqCst) + 1;
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok(n)
        }
    }

    #[tokio::test]
    async fn simultaneous_requests_share_one_count_and_a_commit_starts_a_new_one() {
        let kept = Arc::new(KeptCounts::<usize>::default());
        let ran = Arc::new(AtomicUsize::new(0));
        let asks = (0..16).map(|_| {
            let (kept, ran) = (kept.clone(), ran.clone());
            tokio::spawn(async move { kept.get_or_count(key("IN"), counting(&ran, 30)).await })
        });
        for answer in futures_util::future::join_all(asks).await {
            assert_eq!(answer.unwrap().unwrap(), 1);
        }
        assert_eq!(
            ran.load(Ordering::SeqCst),
            1,
            "16 requests at once, one count"
        );
        // Kept: asked again, no count.
        assert_eq!(
            kept.get_or_count(key("IN"), counting(&ran, 0))
                .await
                .unwrap(),
            1
        );
        // Another market is a count of its own.
        assert_eq!(
            kept.get_or_count(key("ID"), counting(&ran, 0))
                .await
                .unwrap(),
            2
        );
        kept.changed();
        assert_eq!(
            kept.get_or_count(key("IN"), counting(&ran, 0))
                .await
                .unwrap(),
            3
        );
    }

    #[tokio::test]
    async fn a_count_started_before_a_commit_is_not_served_after_it() {
        let kept = Arc::new(KeptCounts::<usize>::default());
        let ran = Arc::new(AtomicUsize::new(0));
        let first = {
            let (kept, ran) = (kept.clone(), ran.clone());
            tokio::spawn(async move { kept.get_or_count(key("IN"), counting(&ran, 50)).await })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        // Committed while the first count runs: a request after it counts again.
        kept.changed();
        assert_eq!(
            kept.get_or_count(key("IN"), counting(&ran, 0))
                .await
                .unwrap(),
            2
        );
        assert_eq!(first.await.unwrap().unwrap(), 1);
        assert_eq!(ran.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_failed_count_is_not_kept_and_a_count_runs_to_its_end_whoever_goes_away() {
        let kept = Arc::new(KeptCounts::<usize>::default());
        let failed = kept
            .get_or_count(key("IN"), async {
                Err::<usize, _>(sqlx::Error::PoolTimedOut)
            })
            .await;
        assert!(failed.is_err());
        let ran = Arc::new(AtomicUsize::new(0));
        assert_eq!(
            kept.get_or_count(key("IN"), counting(&ran, 0))
                .await
                .unwrap(),
            1
        );

        // The request that started a count is cancelled; one waiting on it still gets the count.
        kept.changed();
        let first = {
            let (kept, ran) = (kept.clone(), ran.clone());
            tokio::spawn(async move { kept.get_or_count(key("IN"), counting(&ran, 40)).await })
        };
        tokio::time::sleep(Duration::from_millis(10)).await;
        let second = {
            let (kept, ran) = (kept.clone(), ran.clone());
            tokio::spawn(async move { kept.get_or_count(key("IN"), counting(&ran, 0)).await })
        };
        tokio::time::sleep(Duration::from_millis(5)).await;
        first.abort();
        assert_eq!(second.await.unwrap().unwrap(), 2);
        assert_eq!(ran.load(Ordering::SeqCst), 2);

        // The only request waiting goes away: the count still runs to its end (its connection given back), and is
        // kept.
        kept.changed();
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let only = {
            let (kept, ended) = (kept.clone(), ended.clone());
            tokio::spawn(async move {
                kept.get_or_count(key("IN"), async move {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    ended.store(true, Ordering::SeqCst);
                    Ok(3)
                })
                .await
            })
        };
        tokio::time::sleep(Duration::from_millis(5)).await;
        only.abort();
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert!(
            ended.load(Ordering::SeqCst),
            "the count ran to its end with no one waiting"
        );
        assert_eq!(
            kept.get_or_count(key("IN"), counting(&ran, 0))
                .await
                .unwrap(),
            3
        );
    }
}
