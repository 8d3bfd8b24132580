//! One running language server: the process, the JSON-RPC connection
//! (async-lsp), the documents it has open, and typed requests with a timeout
//! and cancellation.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::process::Stdio;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use async_lsp::{MainLoop, ServerSocket};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, Exit, Initialized, Notification,
};
use lsp_types::request::{Initialize, Request, Shutdown};
use lsp_types::{
    ClientCapabilities, ClientInfo, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    FileChangeType, FileEvent, InitializeParams, ServerCapabilities,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncSaveOptions, Url,
    VersionedTextDocumentIdentifier, WorkspaceFolder,
};
use tokio::io::AsyncBufReadExt;
use tokio::sync::{Notify, watch};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use super::LspError;
use super::config::LanguageConfig;
use super::convert::{Encoding, LineIndex};
use super::inbound::{self, Shared};
use super::reaper;
use super::watch::{ChangeKind, FileChange};
use super::wire::{Strict, StrictAnswers, StrictNotification, strict_params};
use crate::logbook::LogBook;
use crate::model::LogLevel;
use crate::sync::lock;

/// How a server process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// `exit code 101`, `killed by signal 9`.
    pub description: String,
}

/// Files changed on disk between two requests, past this many the open
/// documents are all synchronised instead (a checkout of a whole branch).
const MAX_NOTED_CHANGES: usize = 10_000;

/// The files noted as changed on disk since the last request.
#[derive(Debug, Default)]
struct ChangedOnDisk {
    paths: HashSet<PathBuf>,
    /// Too many to list: every open document is synchronised.
    all: bool,
}

/// A document as the server has it.
#[derive(Debug, Clone)]
pub struct Document {
    pub path: PathBuf,
    pub uri: Url,
    pub version: i32,
    pub index: Arc<LineIndex>,
    /// The server's publish count when this version was sent: diagnostics
    /// published after it may describe it.
    pub sent_at: u64,
    /// The publish count when the text last changed under the server (0
    /// when it never did since it was opened): results of a checker that
    /// reads the disk (cargo check) published after this are current.
    pub changed_at: u64,
}

/// Whether a server has finished its start-up work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    Ready,
    Indexing {
        title: String,
        percentage: Option<u32>,
    },
}

pub struct LspClient {
    pub language: Arc<LanguageConfig>,
    pub root: PathBuf,
    pub shared: Arc<Shared>,
    pub pid: Option<u32>,
    pub started: Instant,
    pub encoding: Encoding,
    pub capabilities: ServerCapabilities,
    socket: ServerSocket,
    /// The id the main loop will give our next request (see `request`).
    next_id: tokio::sync::Mutex<i32>,
    documents: tokio::sync::Mutex<HashMap<PathBuf, Document>>,
    /// Files changed on disk since the last request (the file watcher says
    /// so): the open ones among them are synchronised before the next one.
    /// A server trusts its open documents over the disk, so without this
    /// it would answer from the text it was last sent.
    changed_on_disk: std::sync::Mutex<ChangedOnDisk>,
    /// When the server was last told of changed files (didChangeWatchedFiles).
    announced_at: std::sync::Mutex<Option<Instant>>,
    exit: watch::Receiver<Option<ExitInfo>>,
    kill: Arc<Notify>,
    /// The project's files as they were at the last completed check.
    checked: std::sync::Mutex<Option<u64>>,
    /// Held by whoever asks for a check and waits for it (see `one_check`).
    checks: tokio::sync::Mutex<()>,
    /// Set once a file of each of its projects is open (see
    /// `Supervisor::open_projects`).
    pub projects_opened: tokio::sync::OnceCell<OpenedProjects>,
}

/// The files `Supervisor::open_projects` opened, one per project, and
/// whether the server has been seen to load all their projects (see
/// `navigate::projects_loaded`).
#[derive(Debug)]
pub struct OpenedProjects {
    /// Each opened file's URI, and the server's publish count when it was
    /// sent (a publication after it is the sign).
    pub files: Vec<(Url, u64)>,
    pub opened_at: tokio::time::Instant,
    pub loaded: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for LspClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspClient")
            .field("server", &self.shared.server)
            .field("root", &self.root)
            .field("pid", &self.pid)
            .finish()
    }
}

impl LspClient {
    /// Spawns the server and initializes it. The process leads a session of
    /// its own, which ends with it and with sextant (see `reaper`).
    pub async fn start(
        language: Arc<LanguageConfig>,
        program: &Path,
        root: &Path,
        logs: Arc<LogBook>,
    ) -> Result<Arc<LspClient>, LspError> {
        let server = language.server_name().to_string();
        let mut command = tokio::process::Command::new(program);
        command
            .args(&language.args)
            .current_dir(root)
            .envs(&language.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        reaper::own_session(&mut command);
        // Spawned from an async task on a runtime worker: PR_SET_PDEATHSIG
        // fires when the *thread* that forked exits, and runtime workers
        // live as long as the runtime (blocking-pool threads do not).
        let mut child = command.spawn().map_err(|err| LspError::Spawn {
            server: server.clone(),
            detail: format!("{}: {err}", program.display()),
        })?;
        let pid = child.id();
        if let Some(pid) = pid {
            reaper::watch(pid);
        }
        let (stdin, stdout, stderr) = (
            child.stdin.take().expect("piped"),
            child.stdout.take().expect("piped"),
            child.stderr.take().expect("piped"),
        );
        let root_uri = Url::from_directory_path(root).map_err(|()| LspError::Spawn {
            server: server.clone(),
            detail: format!("{} is not an absolute path", root.display()),
        })?;
        let folder = WorkspaceFolder {
            uri: root_uri.clone(),
            name: root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "root".into()),
        };
        let shared = Shared::new(
            &server,
            Arc::clone(&logs),
            language.settings.clone(),
            folder.clone(),
        );
        let (main_loop, socket) =
            MainLoop::new_client(|_| StrictAnswers(inbound::router(Arc::clone(&shared))));

        let kill = Arc::new(Notify::new());
        let (exit_tx, exit) = watch::channel(None);
        {
            let shared = Arc::clone(&shared);
            tokio::spawn(async move {
                let mut lines = tokio::io::BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    shared.record_stderr(&line);
                }
            });
        }
        {
            let (shared, kill) = (Arc::clone(&shared), Arc::clone(&kill));
            // async-lsp's main loop panics when every socket is gone while it
            // still runs ("Sender is alive"): it keeps one until it ends.
            let keep_open = socket.clone();
            tokio::spawn(async move {
                let _keep_open = keep_open;
                let result = main_loop
                    .run_buffered(stdout.compat(), stdin.compat_write())
                    .await;
                if let Err(err) = result {
                    shared.record_end(format!("connection closed: {err}"));
                }
                // A connection that broke (garbage on stdout) leaves a
                // process we can no longer talk to: end it.
                shared
                    .disconnected
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                shared.poke();
                kill.notify_one();
            });
        }
        {
            let (shared, kill) = (Arc::clone(&shared), Arc::clone(&kill));
            tokio::spawn(async move {
                let status = tokio::select! {
                    status = child.wait() => status,
                    () = kill.notified() => {
                        let _ = child.start_kill();
                        child.wait().await
                    }
                };
                if let Some(pid) = pid {
                    // What the server started and left behind ends with it.
                    let _ = tokio::task::spawn_blocking(move || reaper::end_session(pid)).await;
                }
                let description = match status {
                    Ok(status) => describe_exit(status),
                    Err(err) => format!("lost track of the process: {err}"),
                };
                shared.record_end(format!("exited: {description}"));
                exit_tx.send_replace(Some(ExitInfo { description }));
                shared.poke();
            });
        }

        let client = LspClient {
            language: Arc::clone(&language),
            root: root.to_path_buf(),
            shared: Arc::clone(&shared),
            pid,
            started: Instant::now(),
            encoding: Encoding::Utf16,
            capabilities: ServerCapabilities::default(),
            socket,
            next_id: tokio::sync::Mutex::new(0),
            documents: tokio::sync::Mutex::new(HashMap::new()),
            changed_on_disk: std::sync::Mutex::new(ChangedOnDisk::default()),
            announced_at: std::sync::Mutex::new(None),
            exit,
            kill,
            checked: std::sync::Mutex::new(None),
            checks: tokio::sync::Mutex::new(()),
            projects_opened: tokio::sync::OnceCell::new(),
        };
        client.initialize(root_uri, folder).await
    }

    async fn initialize(
        mut self,
        root_uri: Url,
        folder: WorkspaceFolder,
    ) -> Result<Arc<LspClient>, LspError> {
        #[allow(deprecated)] // root_uri: older servers still read it.
        let params = InitializeParams {
            process_id: Some(std::process::id()),
            root_uri: Some(root_uri),
            workspace_folders: Some(vec![folder]),
            capabilities: client_capabilities(),
            initialization_options: self.language.initialization_options.clone(),
            client_info: Some(ClientInfo {
                name: "sextant".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..InitializeParams::default()
        };
        let result = self
            .request::<Initialize>(params, self.language.ready_timeout)
            .await;
        let result = match result {
            Ok(result) => result,
            Err(err) => {
                self.kill.notify_one();
                return Err(self.explain_start_failure(err).await);
            }
        };
        self.shared.logs.record(
            LogLevel::Debug,
            &self.shared.server,
            format!(
                "capabilities: {}",
                serde_json::to_string(&result.capabilities).unwrap_or_default()
            ),
        );
        self.encoding = Encoding::from_lsp(result.capabilities.position_encoding.as_ref());
        self.capabilities = result.capabilities;
        self.notify::<Initialized>(lsp_types::InitializedParams {})?;
        if self
            .language
            .settings
            .as_object()
            .is_some_and(|s| !s.is_empty())
        {
            self.notify::<lsp_types::notification::DidChangeConfiguration>(
                lsp_types::DidChangeConfigurationParams {
                    settings: self.language.settings.clone(),
                },
            )?;
        }
        self.shared.logs.record(
            LogLevel::Info,
            &self.shared.server,
            format!(
                "initialized (pid {}, root {}, {:?} positions)",
                self.pid.map_or("?".into(), |p| p.to_string()),
                self.root.display(),
                self.encoding
            ),
        );
        Ok(Arc::new(self))
    }

    /// A failed initialize, with how the process ended and what it said.
    async fn explain_start_failure(&self, err: LspError) -> LspError {
        let exited = self.wait_exit(Duration::from_secs(2)).await;
        let stderr: Vec<String> = self.shared.state().stderr_tail.iter().cloned().collect();
        let detail = match exited {
            Some(exit) => format!("it exited during initialize ({})", exit.description),
            None => err.to_string(),
        };
        LspError::StartFailed {
            server: self.shared.server.clone(),
            detail,
            stderr_tail: stderr,
        }
    }

    pub fn server(&self) -> &str {
        &self.shared.server
    }

    /// The process still runs and the connection holds.
    pub fn is_alive(&self) -> bool {
        self.exit.borrow().is_none()
            && !self
                .shared
                .disconnected
                .load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.exit.borrow().clone()
    }

    /// Waits (at most `timeout`) for the process to be gone and says how it
    /// ended: a broken connection is followed by the exit a moment later.
    pub async fn wait_exit(&self, timeout: Duration) -> Option<ExitInfo> {
        let mut exit = self.exit.clone();
        let _ = tokio::time::timeout(timeout, exit.wait_for(Option::is_some)).await;
        self.exit_info()
    }

    /// Sends a request and waits for its answer, at most `timeout`. A request
    /// that times out, or whose future is dropped (the MCP client cancelled),
    /// is cancelled with `$/cancelRequest`.
    pub async fn request<R>(
        &self,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, LspError>
    where
        R: Request,
        R::Result: Send + 'static,
    {
        let params = strict_params(params).map_err(|err| self.unencodable(R::METHOD, &err))?;
        let mut response = pin!(self.socket.request::<Strict<R>>(params));
        // async-lsp numbers outgoing requests itself, 0, 1, 2, ... in the
        // order they reach its main loop, and does not tell us the number.
        // The first poll hands the request to the main loop; doing it under
        // this lock keeps our count in step with its numbering.
        let id = {
            let mut next = self.next_id.lock().await;
            let first = std::future::poll_fn(|cx| Poll::Ready(response.as_mut().poll(cx))).await;
            if let Poll::Ready(result) = first {
                return result.map_err(|err| self.rpc_error(R::METHOD, err));
            }
            let id = *next;
            *next += 1;
            id
        };
        let mut guard = CancelOnDrop {
            socket: &self.socket,
            id,
            armed: true,
        };
        let result = tokio::time::timeout(timeout, response).await;
        match result {
            Ok(result) => {
                guard.armed = false;
                result.map_err(|err| self.rpc_error(R::METHOD, err))
            }
            Err(_) => Err(LspError::Timeout {
                server: self.shared.server.clone(),
                method: R::METHOD.to_string(),
                seconds: timeout.as_secs_f64(),
            }),
        }
    }

    /// `request`, retried a few times while the server says its state moved
    /// under it: rust-analyzer answers ContentModified while loading, and
    /// TypeScript 7's server cancels a pending request itself
    /// (RequestCancelled) when documents open or close around it. A request
    /// sextant cancels is dropped, so it is never retried.
    pub async fn request_settled<R>(&self, params: R::Params) -> Result<R::Result, LspError>
    where
        R: Request,
        R::Params: Clone + Send + 'static,
        R::Result: Send + 'static,
    {
        let mut attempts = 0;
        loop {
            match self
                .request::<R>(params.clone(), self.language.request_timeout)
                .await
            {
                Err(LspError::Rpc { code, .. })
                    if attempts < 5 && [-32800, -32801, -32802].contains(&code) =>
                {
                    attempts += 1;
                    tokio::time::sleep(Duration::from_millis(200 * attempts)).await;
                }
                other => return other,
            }
        }
    }

    pub fn notify<N: Notification>(&self, params: N::Params) -> Result<(), LspError> {
        let params = strict_params(params).map_err(|err| self.unencodable(N::METHOD, &err))?;
        self.socket
            .notify::<StrictNotification<N>>(params)
            .map_err(|err| self.rpc_error(N::METHOD, err))
    }

    /// Params that do not make JSON (a map with non-string keys): a bug of
    /// ours, answered as an error rather than a panic in async-lsp.
    fn unencodable(&self, method: &str, err: &serde_json::Error) -> LspError {
        LspError::Rpc {
            server: self.shared.server.clone(),
            method: method.to_string(),
            code: 0,
            message: format!("sextant could not encode the params: {err}"),
        }
    }

    fn rpc_error(&self, method: &str, err: async_lsp::Error) -> LspError {
        let server = self.shared.server.clone();
        match err {
            async_lsp::Error::Response(response) => LspError::Rpc {
                server,
                method: method.to_string(),
                code: i64::from(response.code.0),
                message: response.message,
            },
            async_lsp::Error::ServiceStopped | async_lsp::Error::Eof | async_lsp::Error::Io(_) => {
                LspError::Crashed {
                    server,
                    detail: format!(
                        "the connection closed during {method}{}",
                        self.exit_info()
                            .map(|e| format!(" ({})", e.description))
                            .unwrap_or_default()
                    ),
                }
            }
            other => LspError::Rpc {
                server,
                method: method.to_string(),
                code: 0,
                message: format!("unusable answer: {other}"),
            },
        }
    }

    /// Makes the server's copy of `path` match the file on disk: opens it,
    /// or sends the new text, or closes it when it is gone. Answers are
    /// never computed from text older than the file.
    pub async fn sync(&self, path: &Path) -> Result<Document, LspError> {
        let text = match tokio::fs::read(path).await {
            Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
            Err(err) => {
                return Err(LspError::Io {
                    detail: format!("{}: {err}", path.display()),
                });
            }
        };
        let mut documents = self.documents.lock().await;
        let Some(text) = text else {
            if let Some(old) = documents.remove(path) {
                self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
                    text_document: TextDocumentIdentifier {
                        uri: old.uri.clone(),
                    },
                })?;
                self.announce_changes(&[FileChange {
                    path: path.to_path_buf(),
                    kind: ChangeKind::Deleted,
                    folder: false,
                }])?;
            }
            return Err(LspError::Io {
                detail: format!("{} does not exist", path.display()),
            });
        };
        let sent_at = self.shared.state().publish_count;
        if let Some(document) = documents.get_mut(path) {
            if document.index.text() == text {
                return Ok(document.clone());
            }
            document.version += 1;
            document.index = Arc::new(LineIndex::new(&text));
            document.sent_at = sent_at;
            document.changed_at = sent_at;
            self.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
                text_document: VersionedTextDocumentIdentifier {
                    uri: document.uri.clone(),
                    version: document.version,
                },
                content_changes: vec![TextDocumentContentChangeEvent {
                    range: None,
                    range_length: None,
                    text,
                }],
            })?;
            // The new text is what the disk holds, so it is saved: servers
            // that check on save (rust-analyzer's cargo check) run now.
            if self.wants_save_notifications() {
                self.notify_saved(&document.uri)?;
            }
            return Ok(document.clone());
        }
        let uri = Url::from_file_path(path).map_err(|()| LspError::Io {
            detail: format!("{} is not an absolute path", path.display()),
        })?;
        let document = Document {
            path: path.to_path_buf(),
            uri: uri.clone(),
            version: 1,
            index: Arc::new(LineIndex::new(&text)),
            sent_at,
            changed_at: 0,
        };
        self.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem {
                uri,
                language_id: self.language.language_id_for(path).to_string(),
                version: 1,
                text,
            },
        })?;
        documents.insert(path.to_path_buf(), document.clone());
        Ok(document)
    }

    /// Closes `path` if the server has it open: a document opened for one
    /// answer only (a workspace report) is not kept.
    pub async fn close(&self, path: &Path) -> Result<(), LspError> {
        // Told under the lock, so a `sync` of the same file cannot send its
        // didOpen between our removal and our didClose.
        let mut documents = self.documents.lock().await;
        let Some(document) = documents.remove(path) else {
            return Ok(());
        };
        self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: document.uri },
        })
    }

    /// Waits until no one else is asking for a check and waiting for it,
    /// and holds that turn: a second didSave would restart a running check.
    pub async fn one_check(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.checks.lock().await
    }

    /// Asks a server that checks on save (rust-analyzer's cargo check) to
    /// check now, by saying the document was saved: it is what the disk
    /// holds, so that is true. Returns whether a check was asked for.
    pub fn request_check(&self, document: &Document) -> Result<bool, LspError> {
        if !self.language.checks_on_save || !self.wants_save_notifications() {
            return Ok(false);
        }
        self.notify_saved(&document.uri)?;
        Ok(true)
    }

    /// Whether the last completed check saw the project as it is now (by
    /// `fingerprint`): its results are then current without a new check.
    pub fn checked_as(&self, fingerprint: u64) -> bool {
        *lock(&self.checked) == Some(fingerprint)
    }

    /// Records that a check of the project as of `fingerprint` completed.
    pub fn record_check(&self, fingerprint: u64) {
        *lock(&self.checked) = Some(fingerprint);
    }

    /// A fingerprint of the project's source files on disk (paths, sizes,
    /// modification times of the files this server's language covers, and of
    /// its root markers), .gitignore respected. Cheap next to a check.
    pub fn project_fingerprint(root: &Path, language: &LanguageConfig) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut entries: Vec<(PathBuf, u64, Option<std::time::SystemTime>)> =
            crate::fs::walk::sources(root)
                .file_entries()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy();
                    let ext = e.path().extension().and_then(|x| x.to_str()).unwrap_or("");
                    language.extensions.iter().any(|x| x == ext)
                        || language.root_markers.iter().any(|m| *m == name)
                })
                .filter_map(|e| {
                    let meta = e.metadata().ok()?;
                    Some((e.into_path(), meta.len(), meta.modified().ok()))
                })
                .collect();
        entries.sort();
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        entries.hash(&mut hasher);
        hasher.finish()
    }

    /// `didSave` for a document whose text is what the disk holds.
    fn notify_saved(&self, uri: &Url) -> Result<(), LspError> {
        self.notify::<DidSaveTextDocument>(DidSaveTextDocumentParams {
            text_document: TextDocumentIdentifier { uri: uri.clone() },
            text: None,
        })
    }

    /// Tells the server of the files created, changed or deleted on disk
    /// that its registered watchers cover (none unless it registered some).
    pub fn announce_changes(&self, changes: &[FileChange]) -> Result<(), LspError> {
        let events: Vec<FileEvent> = changes
            .iter()
            .filter(|change| self.shared.watches(change))
            .filter_map(|change| {
                let uri = Url::from_file_path(&change.path).ok()?;
                let typ = match change.kind {
                    ChangeKind::Created => FileChangeType::CREATED,
                    ChangeKind::Changed => FileChangeType::CHANGED,
                    ChangeKind::Deleted => FileChangeType::DELETED,
                };
                Some(FileEvent { uri, typ })
            })
            .collect();
        if events.is_empty() {
            return Ok(());
        }
        *lock(&self.announced_at) = Some(Instant::now());
        self.notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams { changes: events })
    }

    /// How much of `settle` is left since the server was last told of
    /// changed files; `None` once it has passed.
    pub fn settling(&self, settle: Duration) -> Option<Duration> {
        let announced = (*lock(&self.announced_at))?;
        settle
            .checked_sub(announced.elapsed())
            .filter(|left| !left.is_zero())
    }

    /// Notes files that changed on disk (see `sync_changed`).
    pub fn note_changed(&self, paths: impl IntoIterator<Item = PathBuf>) {
        let mut changed = lock(&self.changed_on_disk);
        if !changed.all {
            changed.paths.extend(paths);
            if changed.paths.len() > MAX_NOTED_CHANGES {
                *changed = ChangedOnDisk {
                    paths: HashSet::new(),
                    all: true,
                };
            }
        }
    }

    /// Synchronises the open documents noted as changed on disk (a deleted
    /// one is closed), but `except` (the caller syncs that one itself);
    /// every open document when `all`, for when no file watcher notes
    /// changes.
    pub async fn sync_changed(&self, all: bool, except: &Path) {
        let noted = std::mem::take(&mut *lock(&self.changed_on_disk));
        let open = self.open_documents().await;
        for path in open
            .into_iter()
            .filter(|p| p != except && (all || noted.all || noted.paths.contains(p)))
        {
            let _ = self.sync(&path).await;
        }
    }

    /// The line index of `uri` as the server sees it: the open document's,
    /// else the file on disk's; `None` when it cannot be read.
    pub async fn line_index(&self, uri: &Url) -> Option<Arc<LineIndex>> {
        self.line_indexes([uri.clone()]).await.remove(uri).flatten()
    }

    /// The line indexes of `uris`, each as `line_index` gives it. The files
    /// not open are read in one blocking task: an answer pointing into
    /// many files would otherwise pay a thread hand-off per file.
    pub async fn line_indexes(
        &self,
        uris: impl IntoIterator<Item = Url>,
    ) -> HashMap<Url, Option<Arc<LineIndex>>> {
        let mut indexes = HashMap::new();
        let mut unread = HashSet::new();
        {
            let documents = self.documents.lock().await;
            for uri in uris {
                if indexes.contains_key(&uri) || unread.contains(&uri) {
                    continue;
                }
                let open = uri
                    .to_file_path()
                    .ok()
                    .and_then(|path| documents.get(&path).map(|d| Arc::clone(&d.index)));
                match open {
                    Some(index) => {
                        indexes.insert(uri, Some(index));
                    }
                    None => {
                        unread.insert(uri);
                    }
                }
            }
        }
        if !unread.is_empty() {
            let read = tokio::task::spawn_blocking(move || {
                unread
                    .into_iter()
                    .map(|uri| {
                        let index = uri
                            .to_file_path()
                            .ok()
                            .and_then(|path| std::fs::read(path).ok())
                            .map(|bytes| {
                                Arc::new(LineIndex::new(&String::from_utf8_lossy(&bytes)))
                            });
                        (uri, index)
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap_or_default();
            indexes.extend(read);
        }
        indexes
    }

    /// Whether the server has `path` open.
    pub async fn is_open(&self, path: &Path) -> bool {
        self.documents.lock().await.contains_key(path)
    }

    /// Paths of the documents the server has open.
    pub async fn open_documents(&self) -> Vec<PathBuf> {
        self.documents.lock().await.keys().cloned().collect()
    }

    /// Reopens every document in `other` (after a restart).
    pub async fn reopen(&self, paths: &[PathBuf]) {
        for path in paths {
            let _ = self.sync(path).await;
        }
    }

    fn wants_save_notifications(&self) -> bool {
        match &self.capabilities.text_document_sync {
            Some(TextDocumentSyncCapability::Options(options)) => match &options.save {
                Some(TextDocumentSyncSaveOptions::Supported(yes)) => *yes,
                Some(TextDocumentSyncSaveOptions::SaveOptions(_)) => true,
                None => false,
            },
            Some(TextDocumentSyncCapability::Kind(kind)) => *kind != TextDocumentSyncKind::NONE,
            None => false,
        }
    }

    /// Whether start-up work (indexing, loading the project) is done. Flycheck
    /// (`cargo check`) does not count: it can run for minutes while every
    /// request already works.
    pub fn readiness(&self) -> Readiness {
        let state = self.shared.state();
        let blocking = state
            .progress
            .iter()
            .find(|(token, progress)| !is_check_progress(token, &progress.title));
        if let Some((_, progress)) = blocking {
            return Readiness::Indexing {
                title: progress.title.clone(),
                percentage: progress.percentage,
            };
        }
        if state.quiescent == Some(false) {
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
            .is_none_or(|at| at.elapsed() >= Duration::from_millis(300));
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

    /// The title of a running `cargo check`-like progress, if any.
    pub fn check_running(&self) -> Option<String> {
        let state = self.shared.state();
        state
            .progress
            .iter()
            .find(|(token, progress)| is_check_progress(token, &progress.title))
            .map(|(_, progress)| progress.title.clone())
    }

    /// Waits until the server is ready, at most `timeout`, calling `report`
    /// whenever its progress changes. Returns whether it became ready.
    pub async fn wait_ready(&self, timeout: Duration, mut report: impl FnMut(&Readiness)) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
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
            let tick = (tokio::time::Instant::now() + Duration::from_millis(100)).min(deadline);
            tokio::select! {
                _ = changes.changed() => {}
                () = tokio::time::sleep_until(tick) => {}
            }
        }
    }

    /// `wait_ready`, reporting the server's indexing as the current call's
    /// progress (`rust-analyzer: Indexing 40%`).
    pub async fn wait_ready_reporting(&self, timeout: Duration) -> bool {
        let server = self.server().to_string();
        self.wait_ready(timeout, |readiness| {
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
    /// gone); whether it holds. Each check comes after the subscription to
    /// changes, so a change landing between a check and the wait is never
    /// missed (which would wait out the deadline for nothing).
    pub async fn wait_until(
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
            let changed = tokio::time::timeout_at(deadline, changes.changed()).await;
            if !changed.is_ok_and(|changed| changed.is_ok()) {
                return condition();
            }
        }
    }

    /// Waits for a change of what the server told us, at most until
    /// `deadline`; whether one came.
    pub async fn changed_before(&self, deadline: tokio::time::Instant) -> bool {
        let mut changes = self.shared.watch();
        tokio::time::timeout_at(deadline, changes.changed())
            .await
            .is_ok_and(|changed| changed.is_ok())
    }

    /// `shutdown`, `exit`, then kill if it is still there after `grace`.
    pub async fn shutdown(&self, grace: Duration) {
        self.shared.mark_closing();
        if self.is_alive() {
            let _ = self.request::<Shutdown>((), grace).await;
            let _ = self.notify::<Exit>(());
            let mut exit = self.exit.clone();
            if tokio::time::timeout(grace, exit.wait_for(Option::is_some))
                .await
                .is_err()
            {
                self.kill.notify_one();
            }
        }
    }

    /// Ends the process now.
    pub fn kill(&self) {
        self.shared.mark_closing();
        self.kill.notify_one();
    }
}

impl Drop for LspClient {
    /// A client nobody holds can no longer be asked anything: end its
    /// process (which ends its connection and tasks too).
    fn drop(&mut self) {
        self.shared.mark_closing();
        self.kill.notify_one();
    }
}

/// Sends `$/cancelRequest` for a request whose answer nobody waits for.
struct CancelOnDrop<'a> {
    socket: &'a ServerSocket,
    id: i32,
    armed: bool,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if self.armed {
            let params = serde_json::json!({ "id": self.id });
            let _ = self.socket.notify::<StrictNotification<Cancel>>(params);
        }
    }
}

fn is_check_progress(token: &str, title: &str) -> bool {
    token.contains("flycheck")
        || title.eq_ignore_ascii_case("cargo check")
        || title.starts_with("cargo check")
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "exited".to_string(),
    }
}

/// What sextant tells servers it can do.
fn client_capabilities() -> ClientCapabilities {
    use lsp_types::*;
    let all_kinds: Vec<SymbolKind> = (1..=26)
        .filter_map(|n| serde_json::from_value(serde_json::json!(n)).ok())
        .collect();
    ClientCapabilities {
        general: Some(GeneralClientCapabilities {
            position_encodings: Some(vec![
                PositionEncodingKind::UTF8,
                PositionEncodingKind::UTF16,
            ]),
            ..Default::default()
        }),
        window: Some(WindowClientCapabilities {
            work_done_progress: Some(true),
            ..Default::default()
        }),
        workspace: Some(WorkspaceClientCapabilities {
            apply_edit: Some(false),
            // Rename answers may create, move and delete files (a Rust
            // module's file moves with it): sextant applies them as one
            // patch (`lsp/refactor.rs`).
            workspace_edit: Some(WorkspaceEditClientCapabilities {
                document_changes: Some(true),
                resource_operations: Some(vec![
                    ResourceOperationKind::Create,
                    ResourceOperationKind::Rename,
                    ResourceOperationKind::Delete,
                ]),
                ..Default::default()
            }),
            configuration: Some(true),
            workspace_folders: Some(true),
            did_change_watched_files: Some(DidChangeWatchedFilesClientCapabilities {
                dynamic_registration: Some(true),
                relative_pattern_support: Some(true),
            }),
            symbol: Some(WorkspaceSymbolClientCapabilities {
                symbol_kind: Some(SymbolKindCapability {
                    value_set: Some(all_kinds.clone()),
                }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        text_document: Some(TextDocumentClientCapabilities {
            synchronization: Some(TextDocumentSyncClientCapabilities {
                did_save: Some(true),
                ..Default::default()
            }),
            document_symbol: Some(DocumentSymbolClientCapabilities {
                hierarchical_document_symbol_support: Some(true),
                symbol_kind: Some(SymbolKindCapability {
                    value_set: Some(all_kinds),
                }),
                ..Default::default()
            }),
            hover: Some(HoverClientCapabilities {
                content_format: Some(vec![MarkupKind::Markdown, MarkupKind::PlainText]),
                ..Default::default()
            }),
            publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                version_support: Some(true),
                related_information: Some(true),
                ..Default::default()
            }),
            diagnostic: Some(DiagnosticClientCapabilities::default()),
            definition: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            type_definition: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            implementation: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            references: Some(DynamicRegistrationClientCapabilities::default()),
            call_hierarchy: Some(CallHierarchyClientCapabilities::default()),
            completion: Some(CompletionClientCapabilities {
                completion_item: Some(CompletionItemCapability {
                    // Labels and details are shown, never inserted: no
                    // snippet syntax wanted in them.
                    snippet_support: Some(false),
                    documentation_format: Some(vec![MarkupKind::PlainText, MarkupKind::Markdown]),
                    resolve_support: Some(CompletionItemCapabilityResolveSupport {
                        properties: vec!["detail".into(), "documentation".into()],
                    }),
                    label_details_support: Some(true),
                    ..Default::default()
                }),
                completion_item_kind: Some(CompletionItemKindCapability {
                    value_set: Some(
                        (1..=25)
                            .filter_map(|n| serde_json::from_value(serde_json::json!(n)).ok())
                            .collect(),
                    ),
                }),
                ..Default::default()
            }),
            rename: Some(RenameClientCapabilities {
                prepare_support: Some(true),
                ..Default::default()
            }),
            ..Default::default()
        }),
        experimental: Some(serde_json::json!({ "serverStatusNotification": true })),
    }
}
