//! One running language server as sextant uses it: its configuration and
//! project root, the connection (`transport`), what it said it can do
//! (`capabilities`), the documents it has open (`documents`), how ready it
//! is (`readiness`), and the state a server quirk keeps (`quirks`).
//!
//! The fields are the `lsp` module's own; tools reach a server through
//! `Supervisor::open` and the request modules, never through a client.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use lsp_types::notification::{Exit, Initialized, Notification};
use lsp_types::request::{Initialize, Request, Shutdown};
use lsp_types::{ClientInfo, InitializeParams, ServerCapabilities, Url, WorkspaceFolder};

use super::LspError;
use super::capabilities::client_capabilities;
use super::config::LanguageConfig;
use super::convert::Encoding;
use super::documents::Documents;
use super::inbound::Shared;
use super::projects::OpenedProjects;
use super::quirks::check_on_save::Checks;
use super::quirks::loose_files::LooseProject;
use super::readiness::Readiness;
use super::transport::{ExitInfo, Transport};
use super::watch::Heard;
use crate::fs::listed::KeptLists;
use crate::logbook::LogBook;
use crate::model::LogLevel;

/// How long a request the server cancelled waits before it is asked
/// again, by retry: one cancelled as documents opened or closed around it
/// (ty's answer says to ask again, `retriggerRequest`) is answered a moment
/// later, while a server still loading (rust-analyzer's ContentModified)
/// takes longer. 200 ms before the first retry put that much into every
/// workspace report of ty, which cancels the answers in flight whenever a
/// document opens.
const RETRY_AFTER: [Duration; 5] = [
    Duration::from_millis(20),
    Duration::from_millis(100),
    Duration::from_millis(300),
    Duration::from_millis(800),
    Duration::from_millis(1600),
];

pub struct LspClient {
    pub(super) language: Arc<LanguageConfig>,
    pub(super) root: PathBuf,
    pub(super) shared: Arc<Shared>,
    pub(super) started: Instant,
    pub(super) encoding: Encoding,
    pub(super) capabilities: ServerCapabilities,
    pub(super) transport: Transport,
    pub(super) documents: Documents,
    /// The checker a server runs on save (see `quirks::check_on_save`).
    pub(super) checks: Checks,
    /// Set once a file of each of its projects is open (see
    /// `Supervisor::open_projects`).
    pub(super) projects_opened: OpenedProjects,
    /// The project of files no project file holds, where the language
    /// gives one (see `quirks::loose_files`).
    pub(super) loose_project: LooseProject,
    /// A caller that could not wait for the server to be ready left a task
    /// waiting for it: callers that cannot wait need not try until then
    /// (see `Supervisor::prepare`).
    pub(super) starting_behind: std::sync::atomic::AtomicBool,
    /// Notifications sent so far: a server publishes diagnostics after it
    /// is told something (a document opened, changed, saved or closed,
    /// files changed on disk), not after a question.
    pub(super) told: std::sync::atomic::AtomicU64,
    /// When the last of them was sent.
    pub(super) told_at: std::sync::Mutex<Option<Instant>>,
    /// Held while a code action's command runs, so the edits captured
    /// meanwhile are that command's (see `lsp::actions`).
    pub(super) commands: tokio::sync::Mutex<()>,
    /// The file lists of the folders its quirks search (the other cargo
    /// projects, see `quirks::cargo_projects`), kept while the file
    /// watcher covers them.
    pub(super) walked: KeptLists,
    /// The file watcher, once it tells this client of changes (set by the
    /// supervisor): the line indexes of files it hears are taken without a
    /// `stat` (see `fs::stamped::Watch`).
    pub(super) heard: OnceLock<Heard>,
}

impl std::fmt::Debug for LspClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspClient")
            .field("server", &self.shared.server)
            .field("root", &self.root)
            .field("pid", &self.transport.pid)
            .finish()
    }
}

impl LspClient {
    /// Spawns the server and initializes it.
    pub(super) async fn start(
        language: Arc<LanguageConfig>,
        program: &Path,
        root: &Path,
        logs: Arc<LogBook>,
    ) -> Result<Arc<LspClient>, LspError> {
        let server = language.server_name().to_string();
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
            logs,
            language.settings.clone(),
            folder.clone(),
            language.fatal_log.clone(),
        );
        let transport = Transport::spawn(&language, program, root, Arc::clone(&shared))?;
        let client = LspClient {
            language,
            root: root.to_path_buf(),
            shared,
            started: Instant::now(),
            encoding: Encoding::Utf16,
            capabilities: ServerCapabilities::default(),
            transport,
            documents: Documents::default(),
            checks: Checks::default(),
            projects_opened: OpenedProjects::default(),
            loose_project: LooseProject::default(),
            starting_behind: std::sync::atomic::AtomicBool::new(false),
            told: std::sync::atomic::AtomicU64::new(0),
            told_at: std::sync::Mutex::new(None),
            commands: tokio::sync::Mutex::new(()),
            walked: KeptLists::default(),
            heard: OnceLock::new(),
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
            .transport
            .request::<Initialize>(params, self.language.ready_timeout)
            .await;
        let result = match result {
            Ok(result) => result,
            Err(err) => {
                self.transport.abandon();
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
        // The quiet spell that tells a server has no start-up work counts
        // from here: spawning and `initialize` may have taken longer.
        self.shared
            .update(|state| state.last_activity = Some(std::time::Instant::now()));
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
                self.transport.pid.map_or("?".into(), |p| p.to_string()),
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

    /// The server's name as shown (`rust-analyzer`).
    pub fn server(&self) -> &str {
        &self.shared.server
    }

    /// The process's id, while it is known.
    pub fn pid(&self) -> Option<u32> {
        self.transport.pid
    }

    /// The language this server runs for, as configured for its project.
    pub fn language(&self) -> &LanguageConfig {
        &self.language
    }

    /// Whether a rename on this server asks the symbol's references beside
    /// the rename request (rust-analyzer holding several cargo projects,
    /// see `quirks::cargo_projects`): for raw requests that stand for a
    /// rename's.
    pub fn rename_asks_references(&self) -> bool {
        super::quirks::cargo_projects::holds_several(self)
    }

    /// What the server declared it can do at initialize (for raw requests;
    /// sextant's own requests ask `supports`).
    pub fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// The process still runs and the connection holds.
    pub fn is_alive(&self) -> bool {
        self.transport.is_alive()
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.transport.exit_info()
    }

    /// How it ended: its exit, or the death of the process that answers
    /// for it (`fatal_log`), which leaves it running until killed.
    pub fn end(&self) -> Option<String> {
        self.shared
            .fatal()
            .map(|fatal| format!("the process that answers for it died ({fatal})"))
            .or_else(|| self.exit_info().map(|e| e.description))
    }

    /// Ends the process now.
    pub(super) fn kill(&self) {
        self.transport.kill();
    }

    /// Waits (at most `timeout`) for the process to be gone and says how it
    /// ended.
    pub async fn wait_exit(&self, timeout: Duration) -> Option<ExitInfo> {
        self.transport.wait_exit(timeout).await
    }

    /// The connection to the server, for raw requests (benchmarks, tests):
    /// `connection().request::<R>(params, timeout)`.
    pub fn connection(&self) -> &Transport {
        &self.transport
    }

    /// A request, retried a few times while the server says its state moved
    /// under it: rust-analyzer answers ContentModified while loading, and
    /// TypeScript 7's server and ty cancel a pending request themselves
    /// (RequestCancelled, ServerCancelled) when documents open or close
    /// around it. Each retry waits [`RETRY_AFTER`], counted as waiting on
    /// the server. A request sextant cancels is dropped, so it is never
    /// retried.
    pub(super) async fn request_settled<R>(&self, params: R::Params) -> Result<R::Result, LspError>
    where
        R: Request,
        R::Params: Clone + Send + 'static,
        R::Result: Send + 'static,
    {
        let mut attempts = 0;
        loop {
            match self
                .transport
                .request::<R>(params.clone(), self.language.request_timeout)
                .await
            {
                Err(LspError::Rpc { code, .. })
                    if attempts < RETRY_AFTER.len() && [-32800, -32801, -32802].contains(&code) =>
                {
                    let _waiting = crate::waits::begin();
                    tokio::time::sleep(RETRY_AFTER[attempts]).await;
                    attempts += 1;
                }
                other => return other,
            }
        }
    }

    pub(super) fn notify<N: Notification>(&self, params: N::Params) -> Result<(), LspError> {
        self.told.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        *crate::sync::lock(&self.told_at) = Some(Instant::now());
        self.transport.notify::<N>(params)
    }

    /// `shutdown`, `exit`, then kill if it is still there after `grace`.
    pub(super) async fn shutdown(&self, grace: Duration) {
        self.shared.mark_closing();
        if self.is_alive() {
            let _ = self.transport.request::<Shutdown>((), grace).await;
            let _ = self.notify::<Exit>(());
            if self.wait_exit(grace).await.is_none() {
                self.transport.kill();
            }
        }
    }

    /// Whether start-up work is done (see `readiness`).
    pub fn is_ready(&self) -> bool {
        self.readiness() == Readiness::Ready
    }
}

impl Drop for LspClient {
    /// A client nobody holds can no longer be asked anything: end its
    /// process (which ends its connection and tasks too).
    fn drop(&mut self) {
        self.transport.kill();
    }
}
