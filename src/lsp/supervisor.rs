//! The supervisor: one language server per (language, project root),
//! started lazily on first use, restarted with backoff after a crash (within
//! a restart budget), and shut down when sextant exits.
//!
//! States a server goes through, as `logs` shows them: not started ->
//! starting -> indexing -> ready, and crashed (restarted on the next
//! request) or failed (could not start). A missing server is installed on
//! first use where its configuration says how, unless `auto_install = false`.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use super::LspError;
use super::choose::choose;
use super::client::{Document, LspClient, OpenedProjects, Readiness};
use super::config::{Config, LanguageConfig};
use super::install;
use super::watch::{ChangeKind, Deliver, FileChange, FileWatcher};
use crate::fs::walk;
use crate::logbook::LogBook;
use crate::model::{LogLevel, ServerState, ServerStatus, WatchStatus};
use crate::progress;
use crate::sync::lock;

/// Crashes allowed within [`RESTART_WINDOW`] before giving up for a while.
const MAX_RESTARTS: usize = 5;
const RESTART_WINDOW: Duration = Duration::from_secs(600);

/// A ready server with a document synchronised to the disk.
#[derive(Debug, Clone)]
pub struct Session {
    pub client: Arc<LspClient>,
    pub document: Document,
    /// False when the server was still indexing after `ready_timeout`:
    /// answers may be incomplete, and the tool should say so.
    pub index_complete: bool,
}

pub struct Supervisor {
    config: Config,
    workspace_root: PathBuf,
    logs: Arc<LogBook>,
    slots: Arc<Mutex<Vec<Arc<Slot>>>>,
    /// Tells the servers of files changed on disk; started with the first
    /// server (the reason inside if it could not start).
    watcher: OnceLock<Result<FileWatcher, String>>,
    /// Off for a one-off tool run: nothing changes between its start and
    /// its one request.
    file_watching: AtomicBool,
    /// Told of every change the watcher sees (the symbol index).
    listeners: Arc<Mutex<Vec<ChangeListener>>>,
    /// One file per (language, project root) of the workspace, found on
    /// first use; forgotten when a root marker or a file of a language
    /// without one changes on disk (see `projects`).
    projects: Arc<Mutex<Option<Projects>>>,
}

/// One file per (language, project root): the language's name and the file.
type Projects = Vec<(String, PathBuf)>;

/// Told of paths created, changed or deleted on disk.
pub type ChangeListener = Box<dyn Fn(&[PathBuf]) + Send + Sync>;

/// One (language, root) pair and whatever runs for it.
struct Slot {
    /// The language's name (a language with several servers has one chosen
    /// for this root in `language`).
    name: String,
    language: Arc<LanguageConfig>,
    /// Why this server, when the language has several.
    reason: Option<String>,
    root: PathBuf,
    /// Held while starting or restarting, so only one start happens.
    start: tokio::sync::Mutex<()>,
    info: Mutex<SlotInfo>,
}

#[derive(Default)]
struct SlotInfo {
    client: Option<Arc<LspClient>>,
    starting: bool,
    restarts: u32,
    crashes: VecDeque<Instant>,
    /// How the last run ended and what it printed last.
    last_crash: Option<(String, Vec<String>)>,
    failed: Option<String>,
    missing: Option<String>,
    install_tried: bool,
    /// It crashed too often: not restarted until the oldest of those
    /// crashes leaves the restart window.
    gave_up: bool,
}

impl Slot {
    fn info(&self) -> MutexGuard<'_, SlotInfo> {
        lock(&self.info)
    }
}

impl Supervisor {
    pub fn new(config: Config, workspace_root: &Path, logs: Arc<LogBook>) -> Supervisor {
        Supervisor {
            config,
            workspace_root: workspace_root.to_path_buf(),
            logs,
            slots: Arc::new(Mutex::new(Vec::new())),
            watcher: OnceLock::new(),
            file_watching: AtomicBool::new(true),
            listeners: Arc::new(Mutex::new(Vec::new())),
            projects: Arc::new(Mutex::new(None)),
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

    /// A ready server for `path` with the document synchronised: waits for
    /// indexing up to the language's `ready_timeout`, reporting progress.
    pub async fn open(&self, path: &Path) -> Result<Session, LspError> {
        let client = self.client_for(path).await?;
        let server = client.server().to_string();
        // Files written before this request reach the server first: new
        // and deleted ones through the watcher, open ones as their text.
        let watched = match self.watcher.get() {
            Some(Ok(watcher)) => {
                watcher.flush_now().await;
                !watcher.is_full()
            }
            _ => false,
        };
        // A server told of files reloads a moment later (rust-analyzer
        // debounces): give it that moment, so the wait below sees it busy.
        if let Some(pause) = client.settling(client.language.reload_delay) {
            tokio::time::sleep(pause).await;
        }
        let index_complete = client
            .wait_ready_reporting(client.language.ready_timeout)
            .await;
        if !client.is_alive() {
            return Err(LspError::Crashed {
                server,
                detail: client
                    .exit_info()
                    .map(|e| e.description)
                    .unwrap_or_else(|| "it stopped while starting".into()),
            });
        }
        client.sync_changed(!watched, path).await;
        let document = client.sync(path).await?;
        Ok(Session {
            client,
            document,
            index_complete,
        })
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
            old.wait_exit(Duration::from_secs(1)).await;
            reopen = old.open_documents().await;
            self.record_crash(&slot, &old)?;
            let recent = slot.info().crashes.len() as u32;
            let backoff = Duration::from_millis(250 * 2u64.pow(recent.saturating_sub(1).min(5)));
            tokio::time::sleep(backoff.min(Duration::from_secs(8))).await;
        }
        let client = self.start(&slot).await?;
        self.watch_files();
        client.reopen(&reopen).await;
        let mut info = slot.info();
        if !reopen.is_empty() || info.last_crash.is_some() {
            info.restarts += 1;
        }
        info.client = Some(Arc::clone(&client));
        Ok(client)
    }

    fn record_crash(&self, slot: &Slot, old: &LspClient) -> Result<(), LspError> {
        let exit = old
            .exit_info()
            .map(|e| e.description)
            .unwrap_or_else(|| "the connection broke".into());
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
            self.logs.record(
                LogLevel::Info,
                &server,
                format!("starting {} in {}", program.display(), slot.root.display()),
            );
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

    fn locate(&self, language: &LanguageConfig) -> Option<PathBuf> {
        install::locate(language, &self.workspace_root, &self.config.tools_dir)
    }

    fn can_install(&self, slot: &Slot) -> bool {
        self.config.auto_install && slot.language.install.is_some() && !slot.info().install_tried
    }

    fn missing(&self, slot: &Slot) -> LspError {
        LspError::Missing {
            server: slot.language.server_name().to_string(),
            hint: install::install_hint(&slot.language, &self.config.tools_dir),
        }
    }

    /// Installs the server if its configuration says how and auto-install
    /// is on; otherwise answers what to install.
    async fn try_install(&self, slot: &Slot) -> Result<(), LspError> {
        if !self.can_install(slot) {
            return Err(self.missing(slot));
        }
        slot.info().install_tried = true;
        let server = slot.language.server_name().to_string();
        progress::report(&format!("installing {server}"), None);
        self.logs
            .record(LogLevel::Info, &server, "not found: installing it");
        match install::install(&slot.language, &self.config.tools_dir).await {
            Ok(ran) => {
                self.logs
                    .record(LogLevel::Info, &server, format!("installed with {ran}"));
                Ok(())
            }
            Err(err) => {
                self.logs
                    .record(LogLevel::Error, &server, format!("install failed: {err}"));
                Err(LspError::Missing {
                    server,
                    hint: format!(
                        "installing it failed ({err}); {}",
                        install::install_hint(&slot.language, &self.config.tools_dir)
                    ),
                })
            }
        }
    }

    /// The outermost folder above `path`, inside the workspace, holding one
    /// of the language's root markers; else the workspace root.
    ///
    /// Outermost, not nearest: the member crates of a cargo workspace and
    /// the packages under `node_modules` have markers of their own, and one
    /// server per member or package would each load the whole project
    /// again. rust-analyzer and tsserver both serve nested projects from
    /// the top (a crate's own Cargo.toml, a package's own tsconfig.json).
    fn project_root(&self, path: &Path, language: &LanguageConfig) -> PathBuf {
        outermost_root(&self.workspace_root, path, language)
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
        let choice = choose(language, root, &self.workspace_root, &self.config.tools_dir);
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

    /// Opens one file of every project under `client`'s root that its
    /// language lists in `project_files` (a `tsconfig.json`), once per
    /// server: tsserver and TypeScript 7's server search (workspace/symbol)
    /// only the projects they have a file of open, answering nothing (or
    /// "No Project") for the others. At most [`MAX_PROJECTS`]. Whether this
    /// call opened some (false once they are open, or with none to open).
    ///
    /// typescript-language-server loads a project some time after its file
    /// is opened, and answers meanwhile from what it has: ask
    /// `navigate::projects_loaded` before trusting a workspace-wide answer.
    pub async fn open_projects(&self, client: &Arc<LspClient>) -> bool {
        let mut opened = false;
        client
            .projects_opened
            .get_or_init(|| async {
                let (root, language) = (client.root.clone(), Arc::clone(&client.language));
                let files = tokio::task::spawn_blocking(move || project_files(&root, &language))
                    .await
                    .unwrap_or_default();
                opened = !files.is_empty();
                let mut sent = Vec::with_capacity(files.len());
                for file in files {
                    if let Ok(document) = client.sync(&file).await {
                        sent.push((document.uri, document.sent_at));
                    }
                }
                OpenedProjects {
                    files: sent,
                    opened_at: tokio::time::Instant::now(),
                    loaded: AtomicBool::new(false),
                }
            })
            .await;
        opened
    }

    /// One file of each (language, project root) the workspace holds, in
    /// path order: asking for a session on each reaches every server a
    /// workspace-wide request (search) needs. Found by one walk on first
    /// use, .gitignore respected and dependency folders left out.
    pub async fn projects(&self) -> Vec<PathBuf> {
        if let Some(known) = lock(&self.projects).as_ref() {
            return known.iter().map(|(_, file)| file.clone()).collect();
        }
        let (root, config) = (self.workspace_root.clone(), self.config.clone());
        let found = tokio::task::spawn_blocking(move || {
            let mut seen = std::collections::HashSet::new();
            let mut found = Vec::new();
            for path in walk::sources(&root).sorted().files() {
                let Some(language) = config.language_for(&path) else {
                    continue;
                };
                let project = outermost_root(&root, &path, language);
                if seen.insert((language.name.clone(), project)) {
                    found.push((language.name.clone(), path));
                }
            }
            found
        })
        .await
        .unwrap_or_default();
        let files = found.iter().map(|(_, file)| file.clone()).collect();
        *lock(&self.projects) = Some(found);
        files
    }

    /// Every running client.
    pub fn clients(&self) -> Vec<Arc<LspClient>> {
        running_clients(&self.slots)
    }

    /// How a path is named in messages: relative to the workspace when
    /// inside it.
    fn shown(&self, path: &Path) -> String {
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

    /// The status of every configured language's server(s), for `logs`.
    pub fn statuses(&self, display: impl Fn(&Path) -> String) -> Vec<ServerStatus> {
        let slots: Vec<Arc<Slot>> = lock(&self.slots).clone();
        let mut statuses = Vec::new();
        for language in &self.config.languages {
            let mine: Vec<&Arc<Slot>> = slots.iter().filter(|s| s.name == language.name).collect();
            if mine.is_empty() {
                // What would run for a file at the workspace root.
                let choice = choose(
                    language,
                    &self.workspace_root,
                    &self.workspace_root,
                    &self.config.tools_dir,
                );
                let language = &choice.language;
                let state = match self.locate(language) {
                    Some(_) => ServerState::NotStarted,
                    None if self.config.auto_install && language.install.is_some() => {
                        ServerState::NotStarted
                    }
                    None => ServerState::Missing {
                        hint: install::install_hint(language, &self.config.tools_dir),
                    },
                };
                statuses.push(ServerStatus {
                    language: language.name.clone(),
                    server: language.server_name().to_string(),
                    root: None,
                    command: command_line(language, &display),
                    reason: choice.reason,
                    state,
                    pid: None,
                    uptime_secs: None,
                    restarts: 0,
                });
            }
            for slot in mine {
                let info = slot.info();
                let running = info.client.as_ref().filter(|c| c.is_alive());
                let state = if let Some(client) = running {
                    match client.readiness() {
                        Readiness::Ready => ServerState::Ready,
                        Readiness::Indexing { title, percentage } => {
                            ServerState::Indexing { percentage, title }
                        }
                    }
                } else if info.starting {
                    ServerState::Starting
                } else if let Some(hint) = &info.missing {
                    ServerState::Missing { hint: hint.clone() }
                } else if let Some(dead) = info.client.as_ref() {
                    ServerState::Crashed {
                        exit: dead
                            .exit_info()
                            .map(|e| e.description)
                            .unwrap_or_else(|| "the connection broke".into()),
                        stderr_tail: dead
                            .shared
                            .state()
                            .stderr_tail
                            .iter()
                            .rev()
                            .take(5)
                            .rev()
                            .cloned()
                            .collect(),
                        gave_up: info.crashes.len() >= MAX_RESTARTS,
                    }
                } else if let Some(error) = &info.failed {
                    match &info.last_crash {
                        Some((exit, stderr)) => ServerState::Crashed {
                            exit: exit.clone(),
                            stderr_tail: stderr.iter().rev().take(5).rev().cloned().collect(),
                            gave_up: info.gave_up,
                        },
                        None => ServerState::Failed {
                            error: error.clone(),
                        },
                    }
                } else {
                    ServerState::NotStarted
                };
                statuses.push(ServerStatus {
                    language: language.name.clone(),
                    server: slot.language.server_name().to_string(),
                    root: Some(display(&slot.root)),
                    command: command_line(&slot.language, &display),
                    reason: slot.reason.clone(),
                    state,
                    pid: running.and_then(|c| c.pid),
                    uptime_secs: running.map(|c| c.started.elapsed().as_secs()),
                    restarts: info.restarts,
                });
            }
        }
        statuses
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

/// The outermost folder above `path`, inside `workspace_root`, holding one
/// of the language's root markers; else the workspace root (see
/// `Supervisor::project_root`).
fn outermost_root(workspace_root: &Path, path: &Path, language: &LanguageConfig) -> PathBuf {
    let mut root = None;
    if path.starts_with(workspace_root) {
        for dir in path.ancestors().skip(1) {
            if !dir.starts_with(workspace_root) {
                break;
            }
            if language.root_markers.iter().any(|m| dir.join(m).exists()) {
                root = Some(dir);
            }
        }
    }
    root.map_or_else(|| workspace_root.to_path_buf(), Path::to_path_buf)
}

/// Forgets the workspace's projects when a change can add or move one: a
/// root marker, or a file of a language that had none.
fn forget_projects_if_changed(
    projects: &Mutex<Option<Projects>>,
    config: &Config,
    changes: &[super::watch::FileChange],
) {
    let mut known = lock(projects);
    let Some(found) = known.as_ref() else {
        return;
    };
    let moves_a_project = changes.iter().any(|change| {
        let name = change
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let marker = config
            .languages
            .iter()
            .any(|l| l.root_markers.iter().any(|m| m == name));
        let unrepresented = config
            .language_for(&change.path)
            .is_some_and(|l| !found.iter().any(|(name, _)| *name == l.name));
        marker || unrepresented || change.folder
    });
    if moves_a_project {
        *known = None;
    }
}

/// Projects opened at most for a workspace search.
pub const MAX_PROJECTS: usize = 200;

/// One source file of each project under `root` (a folder holding one of
/// the language's `project_files`), dependency folders left out.
fn project_files(root: &Path, language: &LanguageConfig) -> Vec<PathBuf> {
    if language.project_files.is_empty() {
        return Vec::new();
    }
    let mut projects: Vec<PathBuf> = walk::sources(root)
        .entries()
        .filter(|e| {
            let name = e.file_name().to_string_lossy();
            language.project_files.iter().any(|m| *m == name)
        })
        .filter_map(|e| e.path().parent().map(Path::to_path_buf))
        .collect();
    projects.sort();
    projects.dedup();
    projects.truncate(MAX_PROJECTS);
    let served = |path: &Path| {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|ext| language.extensions.iter().any(|x| x == ext))
    };
    projects
        .iter()
        .filter_map(|project| {
            walk::sources(project)
                .max_depth(4)
                .sorted()
                .files()
                .find(|p| served(p) && !p.to_string_lossy().ends_with(".d.ts"))
        })
        .collect()
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
    projects: &Mutex<Option<Projects>>,
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

/// The server's command line, a program found by path shown as `display`
/// shows paths.
fn command_line(language: &LanguageConfig, display: impl Fn(&Path) -> String) -> String {
    let program = Path::new(&language.command);
    let program = if program.is_absolute() {
        display(program)
    } else {
        language.command.clone()
    };
    std::iter::once(program)
        .chain(language.args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The members of a cargo workspace and the packages under
    /// node_modules belong to the outermost project around them.
    #[test]
    fn a_project_root_is_the_outermost_marker() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            "Cargo.toml",
            "crates/a/Cargo.toml",
            "crates/a/src/lib.rs",
            "web/package.json",
            "web/src/app.ts",
            "web/node_modules/foo/package.json",
            "web/node_modules/foo/index.d.ts",
            "loose.ts",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        let config = Config::load(root, None).unwrap();
        let supervisor = Supervisor::new(config.clone(), root, Arc::new(LogBook::default()));
        let root_of = |file: &str| {
            let path = root.join(file);
            let language = config.language_for(&path).unwrap();
            supervisor.project_root(&path, language)
        };
        assert_eq!(root_of("crates/a/src/lib.rs"), root);
        assert_eq!(root_of("web/src/app.ts"), root.join("web"));
        assert_eq!(root_of("web/node_modules/foo/index.d.ts"), root.join("web"));
        assert_eq!(root_of("loose.ts"), root);
    }
}
