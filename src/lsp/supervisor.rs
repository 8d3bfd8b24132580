//! The supervisor: one language server per (language, project root),
//! started lazily on first use, restarted with backoff after a crash (within
//! a restart budget), and shut down when sextant exits.
//!
//! States a server goes through, as `logs` shows them: not started ->
//! starting -> indexing -> ready, and crashed (restarted on the next
//! request) or failed (could not start). A missing server is installed on
//! first use where its configuration says how, unless `auto_install = false`.

use std::collections::HashSet;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::LspError;
use super::choose::{Walked, Walks, choose};
use super::client::LspClient;
use super::config::{Config, LanguageConfig};
use super::install;
use super::projects::{Known, MAX_KEPT_ROOTS, ProjectRoots, forget_projects_if_changed};
use super::quirks::{cargo_projects, compile_database, loose_files};
use super::uncovered::{self, UncoveredFiles};
use super::watch::{ChangeKind, Deliver, FileChange, FileWatcher, Heard};
use crate::logbook::LogBook;
use crate::model::{LogLevel, WatchStatus};
use crate::progress;
use crate::sync::lock;

/// Crashes allowed within [`RESTART_WINDOW`] before giving up for a while.
pub(super) const MAX_RESTARTS: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(600);

pub struct Supervisor {
    pub(super) config: Config,
    pub(super) workspace_root: PathBuf,
    pub(super) logs: Arc<LogBook>,
    pub(super) slots: Arc<Mutex<Vec<Arc<Slot>>>>,
    /// Tells the servers of files changed on disk; started with the first
    /// server (the reason inside if it could not start).
    watcher: OnceLock<Result<FileWatcher, String>>,
    /// Off for a one-off tool run: nothing changes between its start and
    /// its one request.
    file_watching: AtomicBool,
    /// Told of every change the watcher sees (the symbol index).
    listeners: Arc<Mutex<Vec<ChangeListener>>>,
    /// What walks found of the workspace's projects (one file per
    /// language and project root, what their configs say), found on first
    /// use and forgotten on a change that can alter it (see `projects`,
    /// `coverage`).
    pub(super) projects: Arc<Mutex<Known>>,
    /// The files no server or grammar covers, counted on first use (see
    /// `uncovered`).
    pub(super) uncovered: Arc<UncoveredFiles>,
    /// What choosing a language's server found by walking the projects,
    /// forgotten at every change the watcher hands out (see `walks`).
    walked: Arc<Walked>,
    /// Project roots by language and folder, kept the same way (see
    /// `project_root`).
    pub(super) roots: Arc<ProjectRoots>,
}

/// Which server serves a file: two files served by one server have the
/// same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ServerId(usize);

impl ServerId {
    fn of(client: &Arc<LspClient>) -> ServerId {
        ServerId(Arc::as_ptr(client) as usize)
    }
}

/// The running servers, how many notifications they were sent and how many
/// publications they made, at one moment: the same at two moments, no
/// server was told anything or published between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Activity {
    servers: Vec<ServerId>,
    told: u64,
    published: u64,
}

/// Told of paths created, changed or deleted on disk.
pub type ChangeListener = Box<dyn Fn(&[PathBuf]) + Send + Sync>;

/// A listener that forgets what `kept` holds at every change handed out,
/// without keeping it alive.
fn forgets<T: Send + Sync + 'static>(kept: &Arc<T>, forget: fn(&T)) -> ChangeListener {
    let kept = Arc::downgrade(kept);
    Box::new(move |_: &[PathBuf]| {
        if let Some(kept) = kept.upgrade() {
            forget(&kept);
        }
    })
}

/// One (language, root) pair and whatever runs for it.
pub(super) struct Slot {
    /// The language's name (a language with several servers has one chosen
    /// for this root in `language`).
    pub name: String,
    pub language: Arc<LanguageConfig>,
    /// Why this server, when the language has several.
    pub reason: Option<String>,
    pub root: PathBuf,
    /// Held while starting or restarting, so only one start happens.
    start: tokio::sync::Mutex<()>,
    info: Mutex<SlotInfo>,
}

#[derive(Default)]
pub(super) struct SlotInfo {
    pub client: Option<Arc<LspClient>>,
    pub starting: bool,
    pub restarts: u32,
    pub crashes: VecDeque<Instant>,
    /// How the last run ended and what it printed last.
    pub last_crash: Option<(String, Vec<String>)>,
    pub failed: Option<String>,
    pub missing: Option<String>,
    pub install_tried: bool,
    /// It crashed too often: not restarted until the oldest of those
    /// crashes leaves the restart window.
    pub gave_up: bool,
}

impl Slot {
    pub fn info(&self) -> MutexGuard<'_, SlotInfo> {
        lock(&self.info)
    }
}

impl Supervisor {
    pub fn new(config: Config, workspace_root: &Path, logs: Arc<LogBook>) -> Supervisor {
        let uncovered = Arc::new(UncoveredFiles::default());
        let forget_uncovered = uncovered::listener(&uncovered, config.clone());
        let walked = Arc::new(Walked::default());
        let forget_walked = forgets(&walked, Walked::forget);
        let roots = Arc::new(ProjectRoots::bounded(MAX_KEPT_ROOTS));
        let forget_roots = forgets(&roots, ProjectRoots::forget);
        Supervisor {
            config,
            workspace_root: workspace_root.to_path_buf(),
            logs,
            slots: Arc::new(Mutex::new(Vec::new())),
            watcher: OnceLock::new(),
            file_watching: AtomicBool::new(true),
            listeners: Arc::new(Mutex::new(vec![
                forget_uncovered,
                forget_walked,
                forget_roots,
            ])),
            projects: Arc::new(Mutex::new(Known::default())),
            uncovered,
            walked,
            roots,
        }
    }

    /// Whether servers started from now on get a file watcher (on by
    /// default).
    pub fn set_file_watching(&self, on: bool) {
        self.file_watching.store(on, Ordering::Relaxed);
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Hands the changes the file watcher has seen to every server now,
    /// rather than when its timer runs; whether the watcher covers the
    /// workspace (else every open document must be checked against the
    /// disk).
    pub(super) async fn flush_changes(&self) -> bool {
        match self.watcher.get() {
            Some(Ok(watcher)) => {
                watcher.flush_now().await;
                watcher.covers_workspace()
            }
            _ => false,
        }
    }

    /// Hands out the changes the file watcher has seen, to every server and
    /// `on_file_changes` listener, and says whether it covers the
    /// workspace: only then may what a walk of it found be kept, since
    /// the listeners hear of every file created or deleted after.
    pub async fn changes_watched(&self) -> bool {
        self.flush_changes().await
    }

    /// The running server for `path`, started (or restarted) if needed.
    pub async fn client_for(&self, path: &Path) -> Result<Arc<LspClient>, LspError> {
        let language = self
            .config
            .language_for(path)
            .ok_or_else(|| LspError::NoServer {
                path: self.shown(path),
            })?;
        let root = self.project_root(path, language);
        let slot = self.slot(language, &root);
        let _starting = slot.start.lock().await;
        let previous = {
            let mut info = slot.info();
            match &info.client {
                Some(client) if client.is_alive() => return Ok(Arc::clone(client)),
                _ => info.client.take(),
            }
        };
        if previous.is_none()
            && let Some(err) = self.still_given_up(&slot)
        {
            return Err(err);
        }
        let mut reopen = Vec::new();
        if let Some(old) = previous {
            // One whose answering process died lives on: it is ended.
            if old.shared.fatal().is_some() {
                old.kill();
            }
            old.wait_exit(Duration::from_secs(1)).await;
            reopen = old.open_documents().await;
            self.record_crash(&slot, &old)?;
            let recent = slot.info().crashes.len() as u32;
            let backoff = Duration::from_millis(250 * 2u64.pow(recent.saturating_sub(1).min(5)));
            tokio::time::sleep(backoff.min(Duration::from_secs(8))).await;
        }
        let client = self.start(&slot).await?;
        // Before any document opens: tsserver places each in its project as
        // it opens.
        if let Err(err) = loose_files::open(&client).await {
            self.logs
                .record(LogLevel::Warn, client.server(), err.to_string());
        }
        self.watch_files();
        client.reopen(&reopen).await;
        let mut info = slot.info();
        if !reopen.is_empty() || info.last_crash.is_some() {
            info.restarts += 1;
        }
        info.client = Some(Arc::clone(&client));
        drop(info);
        // Only now is it told of every change (`deliver_changes` tells
        // the clients in the slots).
        if let Some(heard) = self.heard() {
            let _ = client.heard.set(heard);
        }
        Ok(client)
    }

    /// The file watcher as kept values see it, once it runs (see
    /// `fs::stamped::Watch`).
    pub fn heard(&self) -> Option<Heard> {
        match self.watcher.get() {
            Some(Ok(watcher)) => watcher.heard(),
            _ => None,
        }
    }

    /// Where choosing a server keeps what it walks for: kept while the
    /// file watcher hears every change in the workspace (the next one
    /// handed out forgets it), walked afresh otherwise.
    pub(super) fn walks(&self) -> Walks<'_> {
        if self.hears_everything() {
            Walks::kept_in(&self.walked)
        } else {
            Walks::FRESH
        }
    }

    /// Whether the file watcher runs and has handed out every change in
    /// the workspace so far, and will each next one (`on_file_changes`):
    /// what a walk of the workspace finds may be kept until then.
    pub fn hears_everything(&self) -> bool {
        matches!(self.watcher.get(), Some(Ok(watcher)) if watcher.hears_everything())
    }

    fn record_crash(&self, slot: &Slot, old: &LspClient) -> Result<(), LspError> {
        let exit = old.end().unwrap_or_else(|| "the connection broke".into());
        let stderr: Vec<String> = old.shared.state().stderr_tail.iter().cloned().collect();
        let mut info = slot.info();
        let now = Instant::now();
        info.crashes.push_back(now);
        forget_old_crashes(&mut info.crashes, now);
        info.last_crash = Some((exit.clone(), stderr));
        if info.crashes.len() > MAX_RESTARTS {
            // Keep the crash on record, but do not restart for now.
            info.crashes.pop_back();
            let err = LspError::GaveUp {
                server: old.server().to_string(),
                restarts: MAX_RESTARTS,
                detail: exit,
            };
            info.gave_up = true;
            info.failed = Some(err.to_string());
            self.logs
                .record(LogLevel::Error, old.server(), err.to_string());
            return Err(err);
        }
        self.logs.record(
            LogLevel::Error,
            old.server(),
            format!("crashed ({exit}); restarting"),
        );
        Ok(())
    }

    /// The server crashed too often and its restart window has not passed:
    /// the error to answer with (the same until then, not a new start).
    fn still_given_up(&self, slot: &Slot) -> Option<LspError> {
        let mut info = slot.info();
        if !info.gave_up {
            return None;
        }
        forget_old_crashes(&mut info.crashes, Instant::now());
        if info.crashes.len() < MAX_RESTARTS {
            info.gave_up = false;
            info.failed = None;
            return None;
        }
        Some(LspError::GaveUp {
            server: slot.language.server_name().to_string(),
            restarts: MAX_RESTARTS,
            detail: info
                .last_crash
                .as_ref()
                .map_or_else(|| "it crashed".to_string(), |(exit, _)| exit.clone()),
        })
    }

    async fn start(&self, slot: &Slot) -> Result<Arc<LspClient>, LspError> {
        let language = &slot.language;
        let server = language.server_name().to_string();
        slot.info().starting = true;
        let result = async {
            let program = match self.locate(language) {
                Some(program) => program,
                None => {
                    self.try_install(slot).await?;
                    self.locate(language).ok_or_else(|| self.missing(slot))?
                }
            };
            progress::report(&format!("starting {server}"), None);
            // A debug line: the server's state in `logs` says its command
            // and root already.
            self.logs.record(
                LogLevel::Debug,
                &server,
                format!("starting {} in {}", program.display(), slot.root.display()),
            );
            let language = &self.as_started(slot).await;
            match LspClient::start(
                Arc::clone(language),
                &program,
                &slot.root,
                Arc::clone(&self.logs),
            )
            .await
            {
                Err(LspError::StartFailed { .. }) if self.can_install(slot) => {
                    // Found but unusable, like rustup's proxy for a component
                    // that is not installed: install, then try once more.
                    self.try_install(slot).await?;
                    LspClient::start(
                        Arc::clone(language),
                        &program,
                        &slot.root,
                        Arc::clone(&self.logs),
                    )
                    .await
                }
                other => other,
            }
        }
        .await;
        let mut info = slot.info();
        info.starting = false;
        match &result {
            Ok(_) => {
                info.failed = None;
                info.missing = None;
            }
            Err(LspError::Missing { hint, .. }) => info.missing = Some(hint.clone()),
            Err(err) => {
                info.failed = Some(err.to_string());
                self.logs.record(LogLevel::Error, &server, err.to_string());
            }
        }
        result
    }

    /// The slot's language as its server is started: with every cargo
    /// project under its root linked (see `quirks::cargo_projects`), and
    /// pointed at its compilation database or started without one (see
    /// `quirks::compile_database`), where those apply.
    async fn as_started(&self, slot: &Slot) -> Arc<LanguageConfig> {
        let (language, root) = (Arc::clone(&slot.language), slot.root.clone());
        let cache_dir = crate::lsp::config::default_cache_dir();
        let (options, database) = tokio::task::spawn_blocking(move || {
            (
                cargo_projects::initialization_options(&language, &root),
                compile_database::prepare(&language, &root, &cache_dir),
            )
        })
        .await
        .unwrap_or_default();
        let server = slot.language.server_name();
        let language = match database {
            None => Arc::clone(&slot.language),
            Some(compile_database::Start::With {
                args,
                database,
                first_file,
                compiled,
            }) => {
                self.logs.record(
                    LogLevel::Info,
                    server,
                    format!(
                        "reads {} (a copy: {})",
                        self.shown(&database),
                        args.join(" ")
                    ),
                );
                let mut language = (*slot.language).clone();
                language.args.extend(args);
                language.opens_first = first_file;
                language.compiled_files = Some(Arc::new(compiled));
                Arc::new(language)
            }
            Some(compile_database::Start::Without(why)) => {
                self.logs.record(LogLevel::Info, server, why.clone());
                Arc::new(LanguageConfig {
                    started_without: Some(why),
                    ..(*slot.language).clone()
                })
            }
        };
        let Some(options) = options else {
            return language;
        };
        if let Some(linked) = options.get("linkedProjects").and_then(|l| l.as_array()) {
            self.logs.record(
                LogLevel::Info,
                slot.language.server_name(),
                format!(
                    "linked {} cargo projects: {}",
                    linked.len(),
                    linked
                        .iter()
                        .filter_map(|p| p.as_str())
                        .map(|p| self.shown(Path::new(p)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
        Arc::new(LanguageConfig {
            initialization_options: Some(options),
            ..(*language).clone()
        })
    }

    pub(super) fn locate(&self, language: &LanguageConfig) -> Option<PathBuf> {
        install::locate(language, &self.workspace_root, &self.config.tools_dir)
    }

    /// The slot for `language` at `root`, made on first use with the
    /// server chosen for that project.
    fn slot(&self, language: &LanguageConfig, root: &Path) -> Arc<Slot> {
        let find = |slots: &[Arc<Slot>]| {
            slots
                .iter()
                .find(|s| s.name == language.name && s.root == root)
                .cloned()
        };
        if let Some(slot) = find(&lock(&self.slots)) {
            return slot;
        }
        // Choosing reads a few package.json files: not under the lock.
        let choice = choose(
            language,
            root,
            &self.workspace_root,
            &self.config.tools_dir,
            self.walks(),
        );
        let mut slots = lock(&self.slots);
        if let Some(slot) = find(&slots) {
            return slot;
        }
        if let Some(reason) = &choice.reason {
            self.logs.record(
                LogLevel::Info,
                choice.language.server_name(),
                format!(
                    "chosen for {} ({}): {reason}",
                    self.shown(root),
                    language.name
                ),
            );
        }
        let slot = Arc::new(Slot {
            name: language.name.clone(),
            language: Arc::new(choice.language),
            reason: choice.reason,
            root: root.to_path_buf(),
            start: tokio::sync::Mutex::new(()),
            info: Mutex::new(SlotInfo::default()),
        });
        slots.push(Arc::clone(&slot));
        slot
    }

    /// The name of the server that serves `path` (the one chosen for its
    /// project), without starting it; `None` when no server is configured
    /// for it.
    pub fn server_name(&self, path: &Path) -> Option<String> {
        let language = self.config.language_for(path)?;
        let root = self.project_root(path, language);
        Some(
            self.slot(language, &root)
                .language
                .server_name()
                .to_string(),
        )
    }

    /// Whether the server for `path` is running and done with its start-up
    /// work, without starting it.
    pub fn ready_for(&self, path: &Path) -> bool {
        self.running_for(path)
            .is_some_and(|client| client.is_ready())
    }

    /// The files the compilation database of `path`'s running server
    /// compiles (see `LanguageConfig::compiled_files`), without starting it.
    pub fn compiled_files(&self, path: &Path) -> Option<Arc<HashSet<PathBuf>>> {
        self.running_for(path)?.language.compiled_files.clone()
    }

    /// The server for `path`, if it is running.
    fn running_for(&self, path: &Path) -> Option<Arc<LspClient>> {
        let language = self.config.language_for(path)?;
        let root = self.project_root(path, language);
        let slot = self.slot(language, &root);
        let info = slot.info();
        info.client.as_ref().filter(|c| c.is_alive()).cloned()
    }

    /// The server that serves `path`, started (or restarted) if need be.
    pub async fn server_of(&self, path: &Path) -> Result<ServerId, LspError> {
        let client = self.client_for(path).await?;
        Ok(ServerId::of(&client))
    }

    /// What the running servers have been told and have published so far
    /// (see [`Supervisor::publications_settled`]).
    pub fn activity(&self) -> Activity {
        let clients = self.clients();
        Activity {
            servers: clients.iter().map(ServerId::of).collect(),
            told: clients.iter().map(|c| c.told.load(Ordering::Relaxed)).sum(),
            published: clients.iter().map(|c| c.shared.state().publish_count).sum(),
        }
    }

    /// How long since any running server was last told anything or last
    /// published.
    fn quiet_for(&self) -> std::time::Duration {
        self.clients()
            .iter()
            .flat_map(|client| {
                let told = *lock(&client.told_at);
                let published = client
                    .shared
                    .state()
                    .diagnostics
                    .values()
                    .map(|published| published.at)
                    .max();
                [told, published]
            })
            .flatten()
            .map(|at| at.elapsed())
            .min()
            .unwrap_or(std::time::Duration::MAX)
    }

    /// Waits until no running server has published diagnostics for
    /// `quiet`, at most until `deadline`: a server publishes for files
    /// nobody asked about (a project's tsconfig.json, cargo check's
    /// findings) on its own schedule, a moment after the files it was
    /// told of. Not at all when no server was told anything or published
    /// since `since` (a report that pulled every file's diagnostics
    /// unopened, with nothing to check) nor in the last `quiet`: none has
    /// anything on its way.
    pub async fn publications_settled(
        &self,
        quiet: std::time::Duration,
        deadline: tokio::time::Instant,
        since: &Activity,
    ) {
        if self.activity() == *since && self.quiet_for() >= quiet {
            self.logs.record(
                LogLevel::Debug,
                "sextant",
                "no server was told anything or published during the report: no publications waited for",
            );
            return;
        }
        let count = || self.activity().published;
        // No server running: none will publish.
        if self.clients().is_empty() {
            return;
        }
        let mut last = count();
        // Waiting for the servers to publish: counted as the readiness
        // waits are, in the call's time waiting on servers.
        let _waiting = crate::waits::begin();
        loop {
            let until = (tokio::time::Instant::now() + quiet).min(deadline);
            tokio::time::sleep_until(until).await;
            let now = count();
            if now == last || tokio::time::Instant::now() >= deadline {
                return;
            }
            last = now;
        }
    }

    /// The files under `folder` that a running server has published
    /// diagnostics for, not empty: a server may publish for files nobody
    /// opened (rust-analyzer's cargo check does).
    pub fn published_under(&self, folder: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self
            .clients()
            .iter()
            .flat_map(|client| {
                let state = client.shared.state();
                state
                    .diagnostics
                    .iter()
                    .filter(|(_, published)| !published.items.is_empty())
                    .filter_map(|(uri, _)| uri.to_file_path().ok())
                    .filter(|path| path.starts_with(folder))
                    .collect::<Vec<_>>()
            })
            .collect();
        paths.sort();
        paths.dedup();
        paths
    }

    /// Every running client.
    pub fn clients(&self) -> Vec<Arc<LspClient>> {
        running_clients(&self.slots)
    }

    /// How a path is named in messages: relative to the workspace when
    /// inside it.
    pub(super) fn shown(&self, path: &Path) -> String {
        super::shown(path, &self.workspace_root)
    }

    /// Calls `listener` with the paths created, changed or deleted on disk,
    /// from the moment file watching starts (see `watch_files`).
    pub fn on_file_changes(&self, listener: ChangeListener) {
        lock(&self.listeners).push(listener);
    }

    /// Starts the file watcher once (a server's start does it too): from
    /// then on every running server hears of the files created, changed or
    /// deleted that it watches, and every `on_file_changes` listener of all
    /// of them.
    pub fn watch_files(&self) {
        if !self.file_watching.load(Ordering::Relaxed) {
            return;
        }
        self.watcher.get_or_init(|| {
            let slots = Arc::downgrade(&self.slots);
            let listeners = Arc::downgrade(&self.listeners);
            let projects = Arc::downgrade(&self.projects);
            let config = self.config.clone();
            let logs = Arc::clone(&self.logs);
            let deliver: Deliver = Box::new(move |changes| {
                if let (Some(projects), Some(listeners), Some(slots)) =
                    (projects.upgrade(), listeners.upgrade(), slots.upgrade())
                {
                    deliver_changes(&projects, &config, &listeners, &slots, &logs, changes);
                }
            });
            let watcher = FileWatcher::start(&self.workspace_root, Arc::clone(&self.logs), deliver);
            if let Err(err) = &watcher {
                self.logs.record(
                    LogLevel::Warn,
                    "sextant",
                    format!("{err}; servers see files they have not opened as they were when they started"),
                );
            }
            watcher
        });
    }

    /// Tells every running server and listener at once of files sextant
    /// itself wrote, `(path, created, deleted)`, rather than when the file
    /// watcher sees them: the next request of any server sees the new text.
    pub fn files_written(&self, files: impl IntoIterator<Item = (PathBuf, bool, bool)>) {
        let changes: Vec<FileChange> = files
            .into_iter()
            .map(|(path, created, deleted)| FileChange {
                path,
                kind: if deleted {
                    ChangeKind::Deleted
                } else if created {
                    ChangeKind::Created
                } else {
                    ChangeKind::Changed
                },
                folder: false,
            })
            .collect();
        deliver_changes(
            &self.projects,
            &self.config,
            &self.listeners,
            &self.slots,
            &self.logs,
            &changes,
        );
    }

    /// How file watching stands, for `logs`.
    pub fn watch_status(&self) -> WatchStatus {
        match self.watcher.get() {
            Some(Ok(watcher)) => watcher.status(),
            Some(Err(error)) => WatchStatus::Failed {
                error: error.clone(),
            },
            None if !self.file_watching.load(Ordering::Relaxed) => WatchStatus::Off,
            None => WatchStatus::NotStarted,
        }
    }

    /// Shuts every server down (shutdown, exit, then kill after `grace`),
    /// all at once.
    pub async fn shutdown(&self, grace: Duration) {
        if let Some(Ok(watcher)) = self.watcher.get() {
            watcher.stop();
        }
        let mut stopping = tokio::task::JoinSet::new();
        for client in self.clients() {
            stopping.spawn(async move { client.shutdown(grace).await });
        }
        while stopping.join_next().await.is_some() {}
    }
}

/// Drops the crashes that happened before the restart window.
fn forget_old_crashes(crashes: &mut VecDeque<Instant>, now: Instant) {
    while crashes
        .front()
        .is_some_and(|t| now.duration_since(*t) > RESTART_WINDOW)
    {
        crashes.pop_front();
    }
}

/// Hands changed files to everyone who keeps state about them: the
/// projects list, the change listeners (the symbol index), and every
/// running server (its open documents are synchronised before its next
/// request; the files it watches are announced).
fn deliver_changes(
    projects: &Mutex<Known>,
    config: &Config,
    listeners: &Mutex<Vec<ChangeListener>>,
    slots: &Mutex<Vec<Arc<Slot>>>,
    logs: &LogBook,
    changes: &[FileChange],
) {
    forget_projects_if_changed(projects, config, changes);
    let paths: Vec<PathBuf> = changes.iter().map(|c| c.path.clone()).collect();
    for listener in lock(listeners).iter() {
        listener(&paths);
    }
    for client in running_clients(slots) {
        client.note_changed(paths.iter().cloned());
        client.walked.note_changed(&paths);
        client.count_disk_changes(changes);
        client.projects_opened.forget_choices_if_changed(changes);
        loose_files::note_changes(&client, changes);
        if let Err(err) = client.announce_changes(changes) {
            logs.record(LogLevel::Debug, client.server(), err.to_string());
        }
    }
}

fn running_clients(slots: &Mutex<Vec<Arc<Slot>>>) -> Vec<Arc<LspClient>> {
    let slots = lock(slots);
    slots
        .iter()
        .filter_map(|s| s.info().client.clone())
        .filter(|c| c.is_alive())
        .collect()
}
