//! The one way a request reaches a server: [`Supervisor::open`] (a server
//! and a document; [`Supervisor::open_to_pull`] leaves the document
//! unopened where a pull of its diagnostics needs no opening) and
//! [`Supervisor::server`] (a server only, for requests about the whole
//! workspace), all through one wait, [`Supervisor::prepare`].
//!
//! The wait, in order: the server for the file's language and project,
//! started if need be; the files changed on disk handed to it (the watcher
//! flushed, a server that reloads after a delay given that moment); ready
//! (no start-up work left, reported as progress), at most until the
//! caller's deadline or the language's `ready_timeout`; its open documents
//! synchronised with the disk; and as much of the workspace as the caller
//! [`Need`]s: the document's own project, or every project (one file of
//! each opened, and each loaded, see `projects`).
//!
//! A caller with a deadline ([`Need::by`]) does not wait past it for a
//! server that has never been ready or has not loaded its projects: it gets
//! `Starting` or `LoadingProjects` at once, while the server goes on
//! starting for the next call. Without one, a wait that runs out is no
//! error: the answer comes with what the server has, and the session says
//! what may be missing ([`Session::index_complete`], [`Session::unloaded_note`]).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use lsp_types::TextDocumentPositionParams;

use super::LspError;
use super::client::LspClient;
use super::convert::LineIndex;
use super::documents::Document;
use super::projects::{PROJECT_LOAD_WAIT, PROJECTS_LOAD_BUDGET, document_loaded, projects_loaded};
use super::quirks::loose_files;
use super::supervisor::Supervisor;
use crate::model::{LogLevel, Position};

/// What a session's document is for.
#[derive(Debug, Clone, Copy)]
enum Purpose {
    /// Any question: the document opened.
    Any,
    /// A pull of its diagnostics, with a check first or not: not opened
    /// where the server can answer without (see
    /// [`Supervisor::open_to_pull`]).
    Pull { check: bool },
}

/// How much of the workspace a request needs the server to have loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The document and the server's start-up work (an outline, diagnostics).
    Document,
    /// Also the document's own project (completions).
    Project,
    /// The projects that can see the document: its own, and those that
    /// depend on its package or reference its project (references,
    /// implementations, calls, rename: a symbol's uses are there).
    Seeing,
    /// Every project of the server (workspace symbols, a workspace sweep).
    Workspace,
}

/// What a caller needs of a server before it asks it anything.
#[derive(Debug, Clone, Copy)]
pub struct Need {
    scope: Scope,
    /// Not waited past: see [`Need::by`].
    deadline: Option<tokio::time::Instant>,
}

impl Need {
    /// The server ready and the document synchronised.
    pub const DOCUMENT: Need = Need {
        scope: Scope::Document,
        deadline: None,
    };
    /// Also the document's project loaded.
    pub const PROJECT: Need = Need {
        scope: Scope::Project,
        deadline: None,
    };
    /// Also the projects that can see the document opened and loaded: its
    /// own, and those of the packages that depend on its package or
    /// reference its project, where a symbol's uses can be.
    pub const SEEING: Need = Need {
        scope: Scope::Seeing,
        deadline: None,
    };
    /// Also every project of the server opened and loaded.
    pub const WORKSPACE: Need = Need {
        scope: Scope::Workspace,
        deadline: None,
    };

    /// The same, but failing at `deadline` rather than answering late: a
    /// server never ready by then is `Starting`, one whose projects have
    /// not loaded is `LoadingProjects` (a task goes on waiting for it, for
    /// the next caller). While such a task waits, a caller with a deadline
    /// fails at once: it would rather answer from elsewhere than wait.
    pub fn by(self, deadline: tokio::time::Instant) -> Need {
        Need {
            deadline: Some(deadline),
            ..self
        }
    }
}

/// Which projects a server had not loaded when the wait for them ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unloaded {
    /// The document's own.
    Own,
    /// Some of the others.
    Others,
}

/// A server as ready as a caller needed (or as it got by then), for
/// requests about the workspace.
#[derive(Debug, Clone)]
pub struct Server {
    client: Arc<LspClient>,
    index_complete: bool,
    unloaded: Option<Unloaded>,
    /// The configs of projects that can see the document but were not
    /// opened (past the server's `max_projects`), as shown.
    beyond: Vec<String>,
}

impl Server {
    /// The server's name as shown (`rust-analyzer`).
    pub fn name(&self) -> &str {
        self.client.server()
    }

    /// Whether the server answers `method` from the file's own project
    /// alone (its `one_project_requests`), though its references span every
    /// loaded project: the caller completes the answer from references.
    pub fn answers_from_one_project(&self, method: &str) -> bool {
        self.client
            .language
            .one_project_requests
            .iter()
            .any(|m| m == method)
    }

    /// The configs of projects left unopened by the server's
    /// `max_projects` (as shown): its workspace-wide answers do not cover
    /// them.
    pub fn beyond(&self) -> &[String] {
        &self.beyond
    }

    /// False when the server was still indexing when the wait ended:
    /// answers may be incomplete, and the tool should say so.
    pub fn index_complete(&self) -> bool {
        self.index_complete
    }

    /// The client behind it, for raw requests (benchmarks, tests).
    pub fn client(&self) -> &Arc<LspClient> {
        &self.client
    }
}

/// A ready server with a document synchronised to the disk.
#[derive(Debug, Clone)]
pub struct Session {
    server: Server,
    document: Document,
    /// This session opened the document (it was not open before).
    opened: bool,
    /// The server does not have the document open (see
    /// [`Supervisor::open_to_pull`]).
    unopened: bool,
    /// The document's path as messages name it.
    shown: String,
}

impl Session {
    /// The server's name as shown.
    pub fn server(&self) -> &str {
        self.server.name()
    }

    /// Whether the server does not have the document open: it was asked
    /// to pull its diagnostics from its own copy of the file (see
    /// [`Supervisor::open_to_pull`]).
    pub fn unopened(&self) -> bool {
        self.unopened
    }

    /// See [`Server::index_complete`].
    pub fn index_complete(&self) -> bool {
        self.server.index_complete
    }

    /// See [`Server::answers_from_one_project`].
    pub fn answers_from_one_project(&self, method: &str) -> bool {
        self.server.answers_from_one_project(method)
    }

    /// The client behind it, for raw requests (benchmarks, tests).
    pub fn client(&self) -> &Arc<LspClient> {
        &self.server.client
    }

    pub(super) fn document(&self) -> &Document {
        &self.document
    }

    /// The document's text as the server has it, by line.
    pub fn lines(&self) -> &LineIndex {
        &self.document.index
    }

    /// The document's path as messages name it.
    pub(super) fn shown(&self) -> &str {
        &self.shown
    }

    /// The document and `position` in it as LSP has them (for raw
    /// requests; the request modules use it too).
    pub fn position_params(
        &self,
        position: Position,
    ) -> Result<TextDocumentPositionParams, LspError> {
        super::navigate::at(self, position)
    }

    /// When the server had not loaded every project the request needed by
    /// the end of the wait, what to tell the agent: `what` (`references`,
    /// `calls`) may come from this file alone, or be missing from the
    /// projects not loaded.
    pub fn unloaded_note(&self, what: &str) -> Option<String> {
        let server = self.server();
        let unloaded = self.server.unloaded.map(|unloaded| match unloaded {
            Unloaded::Own => format!(
                "{server} had not loaded the project within {} s; {what} may come from this file alone. Retry in a moment",
                PROJECT_LOAD_WAIT.as_secs()
            ),
            Unloaded::Others => format!(
                "{server} has not loaded every project yet; {what} in the others may be missing. Retry in a moment"
            ),
        });
        let beyond = &self.server.beyond;
        let bound = (!beyond.is_empty()).then(|| {
            const LISTED: usize = 8;
            let mut listed = beyond[..beyond.len().min(LISTED)].join(", ");
            if beyond.len() > LISTED {
                listed.push_str(&format!(" and {} more", beyond.len() - LISTED));
            }
            format!(
                "{} that can see this file {} not loaded ({listed}), since {server} loads at most {} for one question (`max_projects`, each costs it memory): {what} there are not included",
                crate::render::count(beyond.len(), "project", "projects"),
                if beyond.len() == 1 { "was" } else { "were" },
                self.server.client.language.max_projects.unwrap_or_default()
            )
        });
        let loose = self.server.client.loose_project.left_out();
        let loose = (loose > 0).then(|| {
            format!(
                "{} no tsconfig or jsconfig holds were left out of {server}'s project of such files, which holds at most {}: {what} there are not included",
                crate::render::count(loose, "file", "files"),
                loose_files::MAX_FILES
            )
        });
        let alone = self.started_without();
        let parts: Vec<String> = [unloaded, bound, loose, alone]
            .into_iter()
            .flatten()
            .collect();
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// What the server was started without, so that it reads each file
    /// alone (no compilation database: see `quirks::compile_database`).
    pub fn started_without(&self) -> Option<String> {
        self.server.client.language.started_without.clone()
    }

    /// Closes the document if this session opened it: a report over many
    /// files opens each for one answer only and leaves open only what was
    /// open before.
    pub async fn release(self) {
        if self.opened {
            let _ = self.server.client.close(&self.document.path).await;
        }
    }
}

impl Supervisor {
    /// A server for `path` as ready as `need` asks, with the document
    /// synchronised to the disk.
    pub async fn open(&self, path: &Path, need: Need) -> Result<Session, LspError> {
        self.session(path, need, Purpose::Any).await
    }

    /// A session to pull `path`'s diagnostics in (and with `check`, to
    /// have its server check the project first, see `diagnose`): as
    /// [`Supervisor::open`] gives it, but where the server pulls them for
    /// a file it has not open (its `pulls_unopened`) and the file watcher
    /// keeps its copy of the files current, the file is not opened
    /// ([`Session::unopened`]). A workspace report asks hundreds of files:
    /// each opened and closed again, rust-analyzer published its (cleared)
    /// diagnostics anew, which the report then waited to settle (see
    /// `Supervisor::publications_settled`).
    pub async fn open_to_pull(
        &self,
        path: &Path,
        need: Need,
        check: bool,
    ) -> Result<Session, LspError> {
        self.session(path, need, Purpose::Pull { check }).await
    }

    /// [`Supervisor::open`] or [`Supervisor::open_to_pull`], as `purpose`
    /// says.
    async fn session(
        &self,
        path: &Path,
        need: Need,
        purpose: Purpose,
    ) -> Result<Session, LspError> {
        let (client, index_complete, beyond) = self.prepare(path, need, Some(path)).await?;
        let language = &client.language;
        // A check asked with a didSave of the document needs it open.
        let saves_document = language.checks_on_save && !language.checks_workspace;
        let unopened = matches!(purpose, Purpose::Pull { check } if !(check && saves_document))
            && language.pulls_unopened
            && client.supports(super::capabilities::Feature::PullDiagnostics)
            // The server hears of a file changed on disk only through the
            // watcher (it watches none itself): without one covering the
            // workspace, its copy of a file not open may be old.
            && client.disk_changes().is_some()
            && !client.is_open(path).await;
        let synced = if unopened {
            client.unopened(path).await?
        } else {
            client.sync(path).await?
        };
        let unloaded = match need.scope {
            Scope::Document => None,
            Scope::Project => {
                (!document_loaded(&client, &synced.document).await).then_some(Unloaded::Own)
            }
            Scope::Seeing | Scope::Workspace => {
                let deadline = tokio::time::Instant::now() + PROJECT_LOAD_WAIT;
                if !document_loaded(&client, &synced.document).await {
                    Some(Unloaded::Own)
                } else if !projects_loaded(&client, deadline).await {
                    Some(Unloaded::Others)
                } else {
                    None
                }
            }
        };
        Ok(Session {
            server: Server {
                client,
                index_complete,
                unloaded,
                beyond,
            },
            document: synced.document,
            opened: synced.opened,
            unopened,
            shown: self.shown(path),
        })
    }

    /// The server for `path`'s language and project, as ready as `need`
    /// asks, for requests about the workspace (no document).
    pub async fn server(&self, path: &Path, need: Need) -> Result<Server, LspError> {
        let (client, index_complete, beyond) = self.prepare(path, need, None).await?;
        let mut unloaded = None;
        if need.scope != Scope::Document {
            let deadline = need
                .deadline
                .unwrap_or_else(|| tokio::time::Instant::now() + PROJECT_LOAD_WAIT);
            let loading_behind = client
                .projects_opened
                .loading_behind
                .load(Ordering::Relaxed);
            // A task already waits for the projects to load: a caller that
            // cannot wait need not wait for them again.
            if need.deadline.is_some() && loading_behind {
                client.shared.logs.record(
                    LogLevel::Debug,
                    client.server(),
                    "not waited for: a task already waits for its projects to load",
                );
            }
            let loaded = !(need.deadline.is_some() && loading_behind)
                && projects_loaded(&client, deadline).await;
            if !loaded {
                if need.deadline.is_some() {
                    self.load_behind(&client);
                    return Err(LspError::LoadingProjects {
                        server: client.server().to_string(),
                    });
                }
                unloaded = Some(Unloaded::Others);
            }
        }
        Ok(Server {
            client,
            index_complete,
            unloaded,
            beyond,
        })
    }

    /// The wait every request makes (see the module's header): the server,
    /// the changes on disk handed to it, ready, its open documents but
    /// `document` synchronised, and for a workspace need one file of each
    /// project opened (and the server ready again after). Whether it was
    /// ready when the wait ended.
    async fn prepare(
        &self,
        path: &Path,
        need: Need,
        document: Option<&Path>,
    ) -> Result<(Arc<LspClient>, bool, Vec<String>), LspError> {
        let client = self.client_for(path).await?;
        let server = client.server().to_string();
        // Files written before this request reach the server first: new
        // and deleted ones through the watcher, open ones as their text.
        let watched = self.flush_changes().await;
        // A server told of files reloads a moment later (rust-analyzer
        // debounces): give it that moment, so the wait below sees it busy.
        if let Some(pause) = client.settling(client.language.reload_delay) {
            tokio::time::sleep(pause).await;
        }
        let deadline = need
            .deadline
            .unwrap_or_else(|| tokio::time::Instant::now() + client.language.ready_timeout);
        // A task already waits for the server to be ready: a caller that
        // cannot wait need not wait for it again.
        if need.deadline.is_some()
            && client.starting_behind.load(Ordering::Relaxed)
            && !client.is_ready()
        {
            client.shared.logs.record(
                LogLevel::Debug,
                client.server(),
                "not waited for: a task already waits for it to be ready",
            );
            return Err(LspError::Starting {
                server: client.server().to_string(),
            });
        }
        let mut ready = client.wait_ready_reporting(deadline).await;
        if !ready && need.deadline.is_some() && !client.was_ready() {
            return Err(self.still_starting(&client).await);
        }
        if !client.is_alive() {
            return Err(LspError::Crashed {
                server,
                detail: client
                    .end()
                    .unwrap_or_else(|| "it stopped while starting".into()),
            });
        }
        client.sync_changed(!watched).await;
        loose_files::refresh(&client).await;
        // Opening the projects makes a server load them (with progress):
        // a workspace-wide answer meanwhile would miss them.
        let seeing = match need.scope {
            Scope::Document | Scope::Project => None,
            Scope::Seeing => Some(document.unwrap_or(path)),
            Scope::Workspace => None,
        };
        let mut beyond = Vec::new();
        if matches!(need.scope, Scope::Seeing | Scope::Workspace) {
            let (opened, left_out) = self.open_projects(&client, seeing).await;
            beyond = left_out.iter().map(|config| self.shown(config)).collect();
            if opened {
                ready = client.wait_ready_reporting(deadline).await;
                if !ready && need.deadline.is_some() {
                    return Err(self.still_starting(&client).await);
                }
            }
        }
        Ok((client, ready, beyond))
    }

    /// `Starting`, once the server has had its `ready_timeout` to become
    /// ready: a caller with a deadline has moved on by then (see `search`),
    /// and the server is warm for its next call. Meanwhile callers that
    /// cannot wait fail at once (`starting_behind`).
    async fn still_starting(&self, client: &LspClient) -> LspError {
        client.starting_behind.store(true, Ordering::Relaxed);
        client.wait_ready(client.language.ready_timeout).await;
        client.starting_behind.store(false, Ordering::Relaxed);
        LspError::Starting {
            server: client.server().to_string(),
        }
    }

    /// Leaves a task waiting for the server's projects to load (for the
    /// next caller), unless one already does.
    fn load_behind(&self, client: &Arc<LspClient>) {
        let opened = &client.projects_opened;
        if !opened.any() || opened.loading_behind.swap(true, Ordering::Relaxed) {
            return;
        }
        let client = Arc::clone(client);
        tokio::spawn(async move {
            let budget = tokio::time::Instant::now() + PROJECTS_LOAD_BUDGET;
            projects_loaded(&client, budget).await;
            client
                .projects_opened
                .loading_behind
                .store(false, Ordering::Relaxed);
        });
    }
}
