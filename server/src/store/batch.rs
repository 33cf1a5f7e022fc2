//! The hot session reads of one HTTP worker, batched (PostgreSQL): the requests that arrive while the worker's
//! query is out go together in its next one, as one statement over every token asked for (`token_hash IN (…)`).
//! Under load a round trip then serves several requests, and PostgreSQL keeps one backend busy per read and worker
//! instead of one per request in flight: fewer wake-ups, and a shorter tail (docs/PERFORMANCE.md). A lone request
//! goes out at once, alone: nothing waits for a batch to fill.
//!
//! Each answer is the one a query of its own would have given at a moment after the request arrived: the statement
//! starts after the request was queued, admits the loosest of the batch's session limits, and each request's own
//! limits are applied to its rows afterwards ([`SessionKey::admits`]).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::FutureExt;
use tokio::sync::{Mutex, mpsc, oneshot};

/// What a batch's statement answers: one value per key, in the keys' order.
pub(crate) type BatchFuture<V> = Pin<Box<dyn Future<Output = sqlx::Result<Vec<V>>> + Send>>;

type Job<K, V> = (K, oneshot::Sender<sqlx::Result<V>>);

/// A queue of keys and the lanes that answer them: each lane takes the keys waiting (up to `max_batch`), runs one
/// statement for them, hands out the answers, and takes the next. At most `lanes` statements are out at once.
///
/// With more than one lane, a lane takes its fair share of the work, not every key waiting: of the keys waiting and
/// those the other lanes have out, one `lanes`-th (rounded up). What piled up while every lane was out is then split
/// over the lanes as they come back, instead of going whole to the first while the next finds nothing: with lanes
/// that overlap (each on a connection of its own), a hundred keys on one lane left half the machine idle. A lone
/// lane takes every key waiting.
pub(crate) struct Batcher<K, V> {
    jobs: mpsc::UnboundedSender<Job<K, V>>,
}

impl<K, V> Clone for Batcher<K, V> {
    fn clone(&self) -> Self {
        Self {
            jobs: self.jobs.clone(),
        }
    }
}

impl<K: Send + 'static, V: Send + 'static> Batcher<K, V> {
    /// Starts the lanes on the current runtime; they end when the last handle is dropped.
    pub(crate) fn spawn<F>(lanes: usize, max_batch: usize, run: F) -> Self
    where
        F: Fn(Vec<K>) -> BatchFuture<V> + Send + Sync + 'static,
    {
        let (jobs, queue) = mpsc::unbounded_channel();
        let queue = Arc::new(Mutex::new(queue));
        let run = Arc::new(run);
        let lanes = lanes.max(1);
        let out = Arc::new(AtomicUsize::new(0));
        for _ in 0..lanes {
            tokio::spawn(lane(
                queue.clone(),
                Share {
                    lanes,
                    max_batch: max_batch.max(1),
                    out: out.clone(),
                },
                run.clone(),
            ));
        }
        Self { jobs }
    }

    /// The answer for `key`, from the next statement a lane runs.
    pub(crate) async fn get(&self, key: K) -> sqlx::Result<V> {
        let (answer, answered) = oneshot::channel();
        self.jobs
            .send((key, answer))
            .map_err(|_| sqlx::Error::PoolClosed)?;
        // The lanes have ended (the last handle is being dropped).
        answered.await.map_err(|_| sqlx::Error::PoolClosed)?
    }
}

/// How much of the work a lane takes.
struct Share {
    lanes: usize,
    max_batch: usize,
    /// The keys the lanes have out (taken, not yet answered).
    out: Arc<AtomicUsize>,
}

impl Share {
    /// A lane's batch when `waiting` keys wait (the one it holds among them) and the other lanes have `out` keys
    /// out: an even share of all of them, at least one, at most `max_batch`.
    fn of(&self, waiting: usize, out: usize) -> usize {
        (waiting + out)
            .div_ceil(self.lanes)
            .clamp(1, self.max_batch)
    }
}

async fn lane<K, V, F>(
    queue: Arc<Mutex<mpsc::UnboundedReceiver<Job<K, V>>>>,
    share: Share,
    run: Arc<F>,
) where
    F: Fn(Vec<K>) -> BatchFuture<V>,
{
    loop {
        let batch = {
            let mut queue = queue.lock().await;
            let Some(first) = queue.recv().await else {
                return;
            };
            let take = share.of(1 + queue.len(), share.out.load(Ordering::Relaxed));
            let mut batch = Vec::with_capacity(take.min(16));
            batch.push(first);
            while batch.len() < take {
                match queue.try_recv() {
                    Ok(job) => batch.push(job),
                    Err(_) => break,
                }
            }
            // Counted under the queue's lock, so the next lane to take sees this batch out.
            share.out.fetch_add(batch.len(), Ordering::Relaxed);
            batch
        };
        let (keys, answers): (Vec<K>, Vec<_>) = batch.into_iter().unzip();
        let asked = keys.len();
        // A statement whose future panics fails its batch alone: the lane goes on (its transaction, dropped while
        // unwinding, rolls back as a cancelled one does), and its batch is taken back off what is out.
        let answered = AssertUnwindSafe(async { run(keys).await })
            .catch_unwind()
            .await;
        share.out.fetch_sub(asked, Ordering::Relaxed);
        let answered = answered.unwrap_or_else(|_| {
            tracing::error!(
                keys = asked,
                "a batched statement panicked; its batch fails"
            );
            Err(sqlx::Error::Protocol(
                "the batched statement failed".to_owned(),
            ))
        });
        match answered {
            Ok(values) if values.len() == asked => {
                for (answer, value) in answers.into_iter().zip(values) {
                    let _ = answer.send(Ok(value));
                }
            }
            Ok(values) => {
                let message = format!(
                    "a batched read answered {} values for {asked} keys",
                    values.len()
                );
                for answer in answers {
                    let _ = answer.send(Err(sqlx::Error::Protocol(message.clone())));
                }
            }
            Err(err) => {
                // One failure for every request of the batch: each gets the statement's error as text.
                let message = err.to_string();
                for answer in answers {
                    let _ = answer.send(Err(sqlx::Error::Protocol(message.clone())));
                }
            }
        }
    }
}

/// One request's session: the token's hash and the limits of a live session at the time of the request.
#[derive(Debug, Clone)]
pub(crate) struct SessionKey {
    pub token_hash: String,
    /// Used since (epoch ms): the idle limit.
    pub idle_since: i64,
    /// Opened since (epoch ms): the absolute limit.
    pub created_since: i64,
}

impl SessionKey {
    /// True when a session opened at `created_at` and last used at `last_seen_at` is live for this request.
    pub(crate) fn admits(&self, created_at: i64, last_seen_at: i64) -> bool {
        last_seen_at >= self.idle_since && created_at >= self.created_since
    }
}

/// The loosest limits of a batch (the statement admits every session any of its requests would), and the `IN`
/// list of the tokens' placeholders, numbered from `$3` (`$1` and `$2` are the limits).
pub(crate) fn session_bounds(keys: &[SessionKey]) -> (i64, i64, String) {
    let idle_since = keys.iter().map(|k| k.idle_since).min().unwrap_or(0);
    let created_since = keys.iter().map(|k| k.created_since).min().unwrap_or(0);
    let placeholders = (0..keys.len())
        .map(|n| format!("${}", n + 3))
        .collect::<Vec<_>>()
        .join(", ");
    (idle_since, created_since, placeholders)
}

/// The conditions of a live session for a batch, over `borrower_sessions s`: `$1` idle since, `$2` opened since, and
/// the tokens' placeholders of [`session_bounds`].
pub(crate) fn live_sessions_in(placeholders: &str) -> String {
    // A session handed over from another (a shell's web view) lives only while that one is not signed out: one handed
    // over as its shell signed out, which the sign-out's statement did not see yet, is not live either.
    format!(
        "s.revoked_at IS NULL AND s.last_seen_at >= $1 AND s.created_at >= $2 AND s.token_hash IN ({placeholders})
         AND (s.parent_id IS NULL
              OR NOT EXISTS (SELECT 1 FROM borrower_sessions p WHERE p.id = s.parent_id AND p.revoked_at IS NOT NULL))"
    )
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn every_key_gets_its_own_answer_and_a_failure_reaches_the_whole_batch() {
        let largest = Arc::new(AtomicUsize::new(0));
        let seen = largest.clone();
        let batcher: Batcher<u32, u32> = Batcher::spawn(2, 8, move |keys: Vec<u32>| {
            seen.fetch_max(keys.len(), Ordering::Relaxed);
            Box::pin(async move {
                tokio::task::yield_now().await;
                if keys.contains(&13) {
                    return Err(sqlx::Error::Protocol("unlucky".into()));
                }
                Ok(keys.iter().map(|k| k * 10).collect())
            })
        });
        let mut requests = tokio::task::JoinSet::new();
        for k in (0..50u32).filter(|k| *k != 13) {
            let batcher = batcher.clone();
            requests.spawn(async move { (k, batcher.get(k).await.unwrap()) });
        }
        let answers = requests.join_all().await;
        assert_eq!(answers.len(), 49);
        for (k, v) in answers {
            assert_eq!(v, k * 10);
        }
        // Requests queued while a statement was out went together, never more than the largest batch.
        assert_eq!(largest.load(Ordering::Relaxed), 8);
        let err = batcher.get(13).await.unwrap_err();
        assert!(err.to_string().contains("unlucky"), "{err}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn keys_that_piled_up_while_every_lane_was_out_are_shared_over_the_lanes() {
        let sizes = Arc::new(std::sync::Mutex::new(Vec::new()));
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let (seen, held) = (sizes.clone(), gate.clone());
        let batcher: Batcher<u32, u32> = Batcher::spawn(2, 100, move |keys: Vec<u32>| {
            seen.lock().unwrap().push(keys.len());
            let held = held.clone();
            Box::pin(async move {
                // Every batch holds its lane until the gate lets it go (first come, first let go).
                held.acquire().await.unwrap().forget();
                Ok(keys.iter().map(|k| k * 10).collect())
            })
        });
        // Lets the other tasks run until `n` batches were taken (a bounded wait: a wrong share fails the asserts below
        // instead of hanging).
        let taken = async |n: usize| {
            for _ in 0..1_000 {
                if sizes.lock().unwrap().len() >= n {
                    return;
                }
                tokio::task::yield_now().await;
            }
        };
        let mut requests = tokio::task::JoinSet::new();
        for k in 0..12u32 {
            let batcher = batcher.clone();
            requests.spawn(async move { (k, batcher.get(k).await.unwrap()) });
            // Keys 0 and 1 each take a lane alone; the ten after them wait while both lanes are out.
            if k < 2 {
                taken(k as usize + 1).await;
            }
        }
        for _ in 0..20 {
            tokio::task::yield_now().await;
        }
        assert_eq!(*sizes.lock().unwrap(), [1, 1]);
        // The first lane back takes half of the eleven keys waiting or out (the other lane's one among them), not
        // all ten; the second takes the rest.
        gate.add_permits(1);
        taken(3).await;
        gate.add_permits(1);
        taken(4).await;
        assert_eq!(*sizes.lock().unwrap(), [1, 1, 6, 4]);
        gate.add_permits(2);
        let answers = requests.join_all().await;
        assert_eq!(answers.len(), 12);
        for (k, v) in answers {
            assert_eq!(v, k * 10);
        }
    }

    #[test]
    fn a_lane_takes_an_even_share_of_what_waits_and_what_the_others_have_out() {
        let share = |lanes, max_batch| Share {
            lanes,
            max_batch,
            out: Arc::new(AtomicUsize::new(0)),
        };
        // A lone lane takes every key waiting, up to the largest batch.
        assert_eq!(share(1, 16).of(5, 0), 5);
        assert_eq!(share(1, 16).of(40, 0), 16);
        // Two lanes: half of all the work, counting what the other lane has out.
        assert_eq!(share(2, 100).of(93, 0), 47);
        assert_eq!(share(2, 100).of(93, 6), 50);
        assert_eq!(share(2, 100).of(6, 100), 53);
        assert_eq!(share(2, 100).of(300, 100), 100);
        // Never nothing, whatever the others have out.
        assert_eq!(share(2, 100).of(1, 0), 1);
        assert_eq!(share(3, 100).of(1, 0), 1);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_panicking_statement_fails_its_batch_and_the_lane_goes_on() {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = calls.clone();
        let batcher: Batcher<u32, u32> = Batcher::spawn(1, 8, move |keys: Vec<u32>| {
            counted.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                assert!(!keys.contains(&13), "a bug in the statement");
                Ok(keys.iter().map(|k| k * 10).collect())
            })
        });
        assert!(batcher.get(13).await.is_err());
        // The one lane still serves: without it, every later request would fail as the pool closed.
        assert_eq!(batcher.get(2).await.unwrap(), 20);
        assert_eq!(batcher.get(3).await.unwrap(), 30);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_short_answer_is_an_error_not_a_wrong_value() {
        let batcher: Batcher<u32, u32> =
            Batcher::spawn(1, 8, |_keys: Vec<u32>| Box::pin(async { Ok(Vec::new()) }));
        assert!(batcher.get(1).await.is_err());
    }

    #[test]
    fn the_bounds_are_the_loosest_and_the_placeholders_follow_the_limits() {
        let key = |idle, created| SessionKey {
            token_hash: "t".into(),
            idle_since: idle,
            created_since: created,
        };
        let (idle, created, list) = session_bounds(&[key(5, 9), key(3, 11), key(7, 2)]);
        assert_eq!((idle, created), (3, 2));
        assert_eq!(list, "$3, $4, $5");
        assert!(key(5, 9).admits(9, 5));
        assert!(!key(5, 9).admits(8, 5));
        assert!(!key(5, 9).admits(9, 4));
    }
}
