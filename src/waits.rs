//! How long a tool call waits on its language servers.
//!
//! A call's time is the server's answering and sextant's own work; telling
//! them apart says which one is slow. `tools::call` measures each call
//! (a task-local, so nothing between it and the transport passes it
//! along); the transport marks each request it makes from just before the
//! request is written to its answer decoded, as a raw client would time
//! it, the readiness waits mark the time spent waiting for a server to
//! be ready or to publish, and a request the server cancelled marks its
//! pause before it is asked again. What is counted is the time during
//! which at least one such wait of the call was on: waits at once count
//! once.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock, which tests can pause: in a build it is the system's.
use tokio::time::Instant;

use crate::sync::lock;

/// The waits of one call.
#[derive(Debug, Default)]
pub struct Waits(Mutex<State>);

#[derive(Debug, Default)]
struct State {
    /// Waits on now.
    out: usize,
    /// Since when at least one has been on.
    since: Option<Instant>,
    /// The time with at least one on, up to `since`.
    total: Duration,
}

impl Waits {
    fn begin(&self) {
        let mut state = lock(&self.0);
        if state.out == 0 {
            state.since = Some(Instant::now());
        }
        state.out += 1;
    }

    fn end(&self) {
        let mut state = lock(&self.0);
        state.out = state.out.saturating_sub(1);
        if state.out == 0
            && let Some(since) = state.since.take()
        {
            state.total += since.elapsed();
        }
    }

    /// The time so far with at least one wait on.
    pub fn total(&self) -> Duration {
        let state = lock(&self.0);
        state.total + state.since.map_or(Duration::ZERO, |since| since.elapsed())
    }
}

tokio::task_local! {
    static WAITS: Arc<Waits>;
}

/// Runs `work` (a tool call) with its waits on servers counted in `waits`.
pub async fn counted<F: Future>(waits: Arc<Waits>, work: F) -> F::Output {
    WAITS.scope(waits, work).await
}

fn current() -> Option<Arc<Waits>> {
    WAITS.try_with(Arc::clone).ok()
}

/// `work`, to be spawned for the current call, with its waits counted in
/// the call's (a spawned task does not inherit them).
pub fn carried<F: Future>(work: F) -> impl Future<Output = F::Output> {
    let waits = current();
    async move {
        match waits {
            Some(waits) => counted(waits, work).await,
            None => work.await,
        }
    }
}

/// A wait on a server (a request out, a wait for it to be ready or to
/// publish, a pause before asking again what it cancelled), counted in
/// the current call's waits (if any) until dropped: done, failed or
/// cancelled.
#[must_use = "the wait ends when this is dropped"]
pub struct Wait(Option<Arc<Waits>>);

/// Marks the start of a wait on a server.
pub fn begin() -> Wait {
    let waits = current();
    if let Some(waits) = &waits {
        waits.begin();
    }
    Wait(waits)
}

impl Drop for Wait {
    fn drop(&mut self) {
        if let Some(waits) = &self.0 {
            waits.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_out_at_once_count_once() {
        let waits = Arc::new(Waits::default());
        counted(Arc::clone(&waits), async {
            let first = begin();
            let second = begin();
            tokio::time::sleep(Duration::from_millis(30)).await;
            drop(first);
            tokio::time::sleep(Duration::from_millis(30)).await;
            drop(second);
            // Not waiting: not counted.
            tokio::time::sleep(Duration::from_millis(40)).await;
            let third = begin();
            tokio::time::sleep(Duration::from_millis(20)).await;
            drop(third);
        })
        .await;
        assert_eq!(waits.total(), Duration::from_millis(80));
    }

    #[tokio::test]
    async fn outside_a_call_nothing_is_counted() {
        let wait = begin();
        assert!(wait.0.is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn work_spawned_for_a_call_counts_in_its_waits() {
        let waits = Arc::new(Waits::default());
        counted(Arc::clone(&waits), async {
            let spawned = tokio::spawn(carried(async {
                let _wait = begin();
                tokio::time::sleep(Duration::from_millis(50)).await;
            }));
            spawned.await.unwrap();
        })
        .await;
        assert_eq!(waits.total(), Duration::from_millis(50));
    }
}
