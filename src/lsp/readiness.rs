//! Whether a server has finished its start-up work, and the waits on what a
//! server tells us. Readiness: no blocking `$/progress` in flight,
//! rust-analyzer's `experimental/serverStatus` saying "quiescent" (once it
//! has said anything, or before it, for a server that `reports_status`), and
//! (before it was first ready) a quiet spell after `initialized`. A checker's
//! progress (`cargo check`, see `quirks::check_on_save`) does not count:
//! it can run for minutes while every request already works.
//!
//! Every wait subscribes to the server's state before it checks, so a change
//! landing between a check and the wait is never missed.

use std::time::Duration;

use super::client::LspClient;
use super::quirks::check_on_save;

/// How long a server must stay quiet after it starts before it counts as
/// having no start-up work (it announces its work a moment after
/// `initialized`).
const START_QUIET: Duration = Duration::from_millis(300);

/// Whether a server has finished its start-up work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    Indexing {
        title: String,
        percentage: Option<u32>,
    },
}

impl LspClient {
    /// Whether start-up work (indexing, loading the project) is done.
    pub(super) fn readiness(&self) -> Readiness {
        let state = self.shared.state();
        let blocking = state.progress.iter().find(|(token, progress)| {
            !check_on_save::is_check_progress(&self.language, token, &progress.title)
        });
        if let Some((_, progress)) = blocking {
            return Readiness::Indexing {
                title: progress.title.clone(),
                percentage: progress.percentage,
            };
        }
        // A server that reports its status is busy until it first says it
        // is quiescent: before that, silence is a slow start (on a loaded
        // machine rust-analyzer can take seconds to say anything).
        let unannounced = self.language.reports_status && state.quiescent.is_none();
        if state.quiescent == Some(false) || unannounced {
            return Readiness::Indexing {
                title: "loading the workspace".into(),
                percentage: None,
            };
        }
        // A server announces its start-up work a moment after `initialized`;
        // a short quiet spell after that means it has none. Once it was
        // ready, only announced work counts.
        let quiet = state
            .last_activity
            .is_none_or(|at| at.elapsed() >= START_QUIET);
        if !quiet && !state.was_ready && state.quiescent != Some(true) {
            return Readiness::Indexing {
                title: "starting".into(),
                percentage: None,
            };
        }
        drop(state);
        self.shared.state().was_ready = true;
        Readiness::Ready
    }

    /// The server has been ready once (it may be indexing again now).
    pub(super) fn was_ready(&self) -> bool {
        self.shared.state().was_ready
    }

    /// Waits until the server is ready, at most until `deadline`, calling
    /// `report` whenever its progress changes. Returns whether it became
    /// ready.
    pub(super) async fn wait_ready_until(
        &self,
        deadline: tokio::time::Instant,
        mut report: impl FnMut(&Readiness),
    ) -> bool {
        let mut changes = self.shared.watch();
        let mut last = None;
        loop {
            let readiness = self.readiness();
            if readiness == Readiness::Ready {
                return true;
            }
            if last.as_ref() != Some(&readiness) {
                report(&readiness);
                last = Some(readiness);
            }
            if !self.is_alive() || tokio::time::Instant::now() >= deadline {
                return false;
            }
            // Readiness also moves with time alone (the quiet spell after
            // start): look again now and then, not only on news.
            let tick = (tokio::time::Instant::now() + Duration::from_millis(100)).min(deadline);
            let _waiting = crate::waits::begin();
            tokio::select! {
                _ = changes.changed() => {}
                () = tokio::time::sleep_until(tick) => {}
            }
        }
    }

    /// Waits until the server is ready, at most `timeout`; whether it
    /// became ready.
    pub async fn wait_ready(&self, timeout: Duration) -> bool {
        self.wait_ready_until(tokio::time::Instant::now() + timeout, |_| {})
            .await
    }

    /// `wait_ready_until`, reporting the server's indexing as the current
    /// call's progress (`rust-analyzer: Indexing 40%`).
    pub(super) async fn wait_ready_reporting(&self, deadline: tokio::time::Instant) -> bool {
        let server = self.server().to_string();
        self.wait_ready_until(deadline, |readiness| {
            if let Readiness::Indexing { title, percentage } = readiness {
                let message = match percentage {
                    Some(p) => format!("{server}: {title} {p}%"),
                    None => format!("{server}: {title}"),
                };
                crate::progress::report(&message, percentage.map(|p| f64::from(p) / 100.0));
            }
        })
        .await
    }

    /// Waits until `condition` holds, checked now and after each change of
    /// what the server told us, at most until `deadline` (or the server is
    /// gone); whether it holds.
    pub(super) async fn wait_until(
        &self,
        deadline: tokio::time::Instant,
        mut condition: impl FnMut() -> bool,
    ) -> bool {
        loop {
            let mut changes = self.shared.watch();
            if condition() {
                return true;
            }
            if !self.is_alive() || tokio::time::Instant::now() >= deadline {
                return false;
            }
            let changed = {
                let _waiting = crate::waits::begin();
                tokio::time::timeout_at(deadline, changes.changed()).await
            };
            if !changed.is_ok_and(|changed| changed.is_ok()) {
                return condition();
            }
        }
    }

    /// Waits for a change of what the server told us, at most until
    /// `deadline`; whether one came.
    pub(super) async fn changed_before(&self, deadline: tokio::time::Instant) -> bool {
        let mut changes = self.shared.watch();
        let _waiting = crate::waits::begin();
        tokio::time::timeout_at(deadline, changes.changed())
            .await
            .is_ok_and(|changed| changed.is_ok())
    }
}
