//! Everything a language server sends us that is not a response: its
//! requests, its notifications, and its stderr, recorded in one shared state
//! that waiters watch.
//!
//! Every notification goes through one catch-all handler that parses what it
//! knows and logs the rest: async-lsp's typed handlers stop the main loop on
//! a notification whose params do not parse, and its default stops it on any
//! unknown notification (`window/logMessage`, `experimental/serverStatus`,
//! `telemetry/event` would all do that).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use async_lsp::router::Router;
use async_lsp::{AnyNotification, ErrorCode, ResponseError};
use lsp_types::notification::{DidChangeWatchedFiles, Notification};
use lsp_types::request::{
    ApplyWorkspaceEdit, RegisterCapability, UnregisterCapability, WorkDoneProgressCreate,
    WorkspaceConfiguration, WorkspaceFoldersRequest,
};
use lsp_types::{
    ApplyWorkspaceEditResponse, DidChangeWatchedFilesRegistrationOptions, NumberOrString,
    ProgressParams, ProgressParamsValue, PublishDiagnosticsParams, Url, WorkDoneProgress,
    WorkspaceFolder,
};
use serde_json::Value;
use tokio::sync::watch;

use super::watch::{FileChange, WatchedGlob};
use crate::logbook::LogBook;
use crate::model::LogLevel;
use crate::sync::lock;

/// stderr lines kept per server for crash reports.
const STDERR_TAIL: usize = 20;

/// What one running server has told us.
#[derive(Debug)]
pub struct Shared {
    pub server: String,
    pub logs: Arc<LogBook>,
    settings: Value,
    folder: WorkspaceFolder,
    /// Log lines that say the process answering for the server died
    /// (`fatal_log`).
    fatal_log: Vec<String>,
    state: Mutex<State>,
    /// Bumped on every change of `state`, so waiters can watch it.
    changed: watch::Sender<u64>,
    /// We asked it to shut down: its exit is expected.
    pub closing: std::sync::atomic::AtomicBool,
    /// The connection ended (the process may take a moment more to go).
    pub disconnected: std::sync::atomic::AtomicBool,
}

#[derive(Debug, Default)]
pub struct State {
    /// Work-done progress in flight, by token.
    pub progress: BTreeMap<String, ProgressState>,
    /// rust-analyzer's `experimental/serverStatus`: `Some(true)` once quiescent.
    pub quiescent: Option<bool>,
    /// Published diagnostics by document.
    pub diagnostics: HashMap<Url, Published>,
    /// Counts every publishDiagnostics, to tell fresh ones from old.
    pub publish_count: u64,
    /// Counts every work-done progress begun.
    pub progress_begun: u64,
    /// Counts every didSave sent.
    pub saves: u64,
    /// The last didSave sent: `progress_begun` then, and when. A check on
    /// save that began before it does not hold what that save changed.
    pub last_save: Option<(u64, Instant)>,
    /// The last progress that ended, newest last (at most [`ENDED_KEPT`]).
    pub ended: VecDeque<ProgressState>,
    pub stderr_tail: VecDeque<String>,
    /// When the last work-done progress ended (or the server started).
    pub last_activity: Option<Instant>,
    /// The server has been ready once.
    pub was_ready: bool,
    /// The file watchers it registered, by registration id.
    pub watchers: Vec<(String, Vec<WatchedGlob>)>,
    /// Every capability it registered since it started and has not
    /// unregistered (`client/registerCapability`).
    pub registrations: Vec<Registered>,
    /// Documents sextant opened that exist in the server only (a copy to
    /// complete in): what the server publishes about them is not kept.
    pub scratch: HashSet<Url>,
    /// The line by which it said the process answering for it died: from
    /// then on it answers nothing true, and counts as crashed.
    pub fatal: Option<String>,
    /// While a checker's results are awaited (`quirks::check_on_save`):
    /// every item published for each document, with its publication's
    /// `publish_count`, since a check publishes its results in parts.
    pub parts: Option<HashMap<Url, Vec<(u64, lsp_types::Diagnostic)>>>,
    /// While a code action's command runs (`lsp::actions`): the edits the
    /// server asks to apply (`workspace/applyEdit`), kept for the action's
    /// patch instead of written. `None` at any other time: declined.
    pub captured_edits: Option<Vec<lsp_types::WorkspaceEdit>>,
}

/// One capability a server registered dynamically.
#[derive(Debug, Clone)]
pub struct Registered {
    pub id: String,
    pub method: String,
    pub options: Option<Value>,
}

#[derive(Debug, Clone)]
pub struct ProgressState {
    pub token: String,
    pub title: String,
    pub message: Option<String>,
    pub percentage: Option<u32>,
    /// `progress_begun` when it began: which work came after what.
    pub begun: u64,
    /// `publish_count` when it began: the publications that came after.
    pub published_before: u64,
}

/// Progress that ended lately, kept for a waiter that must know whether
/// work it asked for began and ended while it was not looking.
const ENDED_KEPT: usize = 16;

#[derive(Debug, Clone)]
pub struct Published {
    /// When it arrived.
    pub at: Instant,
    pub version: Option<i32>,
    /// `publish_count` when this arrived.
    pub sequence: u64,
    pub items: Vec<lsp_types::Diagnostic>,
}

impl Shared {
    pub fn new(
        server: &str,
        logs: Arc<LogBook>,
        settings: Value,
        folder: WorkspaceFolder,
        fatal_log: Vec<String>,
    ) -> Arc<Shared> {
        Arc::new(Shared {
            server: server.to_string(),
            logs,
            settings,
            folder,
            fatal_log,
            state: Mutex::new(State {
                last_activity: Some(Instant::now()),
                ..State::default()
            }),
            changed: watch::channel(0).0,
            closing: std::sync::atomic::AtomicBool::new(false),
            disconnected: std::sync::atomic::AtomicBool::new(false),
        })
    }

    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// A receiver that sees every later change.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    pub(super) fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut self.state());
        self.changed.send_modify(|n| *n += 1);
    }

    pub fn record_stderr(&self, line: &str) {
        self.update(|state| {
            if state.stderr_tail.len() == STDERR_TAIL {
                state.stderr_tail.pop_front();
            }
            state.stderr_tail.push_back(line.to_string());
        });
        self.logs.record(LogLevel::Info, &self.server, line);
    }

    pub fn is_closing(&self) -> bool {
        self.closing.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// From now on its exit is expected.
    pub fn mark_closing(&self) {
        self.closing
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// A `window/logMessage` read before async-lsp (`aside`): recorded,
    /// unless it says the process answering for the server died, which is
    /// left to come in its place among the server's messages.
    pub(super) fn take_log_message(&self, kind: lsp_types::MessageType, message: &str) -> bool {
        if self.is_fatal(message) {
            return false;
        }
        self.record_message(false, kind, message);
        true
    }

    /// Records a message the server logged, or `shown` to a user.
    fn record_message(&self, shown: bool, kind: lsp_types::MessageType, message: &str) {
        // What a server says as it goes down after our `exit` (TypeScript
        // 7's "error handling method 'exit': EOF") is no news. A server's
        // own log lines (TypeScript 7 dumps the client's capabilities) are
        // for `level: "debug"`; what it shows a user, and its errors and
        // warnings, are for everyone.
        let level = match kind {
            _ if self.is_closing() => LogLevel::Debug,
            lsp_types::MessageType::ERROR => LogLevel::Error,
            lsp_types::MessageType::WARNING => LogLevel::Warn,
            lsp_types::MessageType::INFO if shown => LogLevel::Info,
            _ => LogLevel::Debug,
        };
        self.logs.record(level, &self.server, message);
    }

    /// Whether `message` says the process answering for the server died
    /// (`fatal_log`), while we did not ask it to end.
    fn is_fatal(&self, message: &str) -> bool {
        !self.is_closing() && self.fatal_log.iter().any(|line| message.contains(line))
    }

    /// The process answering for the server died while the server lives
    /// on (`line` is how it said so): it is crashed from now on, so no
    /// answer of its is taken, and the supervisor restarts it.
    fn died_behind(&self, line: String) {
        let first = line.lines().next().unwrap_or_default().trim().to_string();
        self.logs.record(
            LogLevel::Error,
            &self.server,
            format!("the process that answers for it died ({first})"),
        );
        self.update(|state| state.fatal = Some(first));
        self.disconnected
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// How the process answering for the server died, if it did.
    pub fn fatal(&self) -> Option<String> {
        self.state().fatal.clone()
    }

    /// Logs how the connection or process ended: a warning, unless we
    /// asked it to end.
    pub fn record_end(&self, message: String) {
        let level = if self.is_closing() {
            LogLevel::Debug
        } else {
            LogLevel::Warn
        };
        self.logs.record(level, &self.server, message);
    }

    /// Wakes waiters without a change (the server exited).
    pub fn poke(&self) {
        self.changed.send_modify(|n| *n += 1);
    }

    /// Keeps what a server registers: every capability, for
    /// `LspClient::supports`, and the file watchers' globs.
    fn register(&self, params: lsp_types::RegistrationParams) {
        let root = self.folder.uri.to_file_path().unwrap_or_default();
        for registration in params.registrations {
            self.logs.record(
                LogLevel::Debug,
                &self.server,
                format!("registered {}", registration.method),
            );
            self.update(|state| {
                state.registrations.push(Registered {
                    id: registration.id.clone(),
                    method: registration.method.clone(),
                    options: registration.register_options.clone(),
                })
            });
            if registration.method != DidChangeWatchedFiles::METHOD {
                continue;
            }
            let options = registration
                .register_options
                .map(serde_json::from_value::<DidChangeWatchedFilesRegistrationOptions>);
            let watchers = match options {
                Some(Ok(options)) => options.watchers,
                Some(Err(err)) => {
                    self.malformed(DidChangeWatchedFiles::METHOD, &err);
                    continue;
                }
                None => Vec::new(),
            };
            let mut globs = Vec::new();
            for watcher in &watchers {
                match WatchedGlob::new(watcher, &root) {
                    Ok(glob) => globs.push(glob),
                    Err(err) => self.logs.record(LogLevel::Warn, &self.server, err),
                }
            }
            self.logs.record(
                LogLevel::Debug,
                &self.server,
                format!("watches files: {} globs", globs.len()),
            );
            self.update(|state| state.watchers.push((registration.id, globs)));
        }
    }

    fn unregister(&self, params: lsp_types::UnregistrationParams) {
        let gone = |id: &String| params.unregisterations.iter().any(|gone| &gone.id == id);
        self.update(|state| {
            state.watchers.retain(|(id, _)| !gone(id));
            state
                .registrations
                .retain(|registered| !gone(&registered.id));
        });
    }

    /// Whether the server asked to hear of `change`.
    pub fn watches(&self, change: &FileChange) -> bool {
        self.state()
            .watchers
            .iter()
            .flat_map(|(_, globs)| globs)
            .any(|glob| glob.covers(change))
    }

    /// The answer to `workspace/configuration`: the settings under each
    /// item's dotted section, or all of them without one.
    fn configuration(&self, params: lsp_types::ConfigurationParams) -> Vec<Value> {
        params
            .items
            .iter()
            .map(|item| match &item.section {
                None => self.settings.clone(),
                Some(section) => section
                    .split('.')
                    .try_fold(&self.settings, |value, key| value.get(key))
                    .cloned()
                    .unwrap_or(Value::Null),
            })
            .collect()
    }

    fn notification(&self, notification: AnyNotification) {
        let method = notification.method.as_str();
        let params = notification.params;
        match method {
            "$/progress" => match serde_json::from_value::<ProgressParams>(params) {
                Ok(progress) => self.progress(progress),
                Err(err) => self.malformed(method, &err),
            },
            "textDocument/publishDiagnostics" => {
                match serde_json::from_value::<PublishDiagnosticsParams>(params) {
                    Ok(published) => self.update(|state| {
                        self.logs.record(
                            LogLevel::Debug,
                            &self.server,
                            format!(
                                "published {} diagnostics for {} (version {:?})",
                                published.diagnostics.len(),
                                published.uri,
                                published.version
                            ),
                        );
                        if state.scratch.contains(&published.uri) {
                            return;
                        }
                        state.publish_count += 1;
                        let sequence = state.publish_count;
                        let uri = canonical(published.uri);
                        if let Some(parts) = state.parts.as_mut() {
                            let kept = parts.entry(uri.clone()).or_default();
                            for item in &published.diagnostics {
                                if !kept.iter().any(|(_, k)| k == item) {
                                    kept.push((sequence, item.clone()));
                                }
                            }
                        }
                        state.diagnostics.insert(
                            uri,
                            Published {
                                at: Instant::now(),
                                version: published.version,
                                sequence,
                                items: published.diagnostics,
                            },
                        );
                    }),
                    Err(err) => self.malformed(method, &err),
                }
            }
            "window/logMessage" | "window/showMessage" => {
                match serde_json::from_value::<lsp_types::LogMessageParams>(params) {
                    Ok(message) => {
                        let shown = method == "window/showMessage";
                        self.record_message(shown, message.typ, &message.message);
                        if self.is_fatal(&message.message) {
                            self.died_behind(message.message);
                        }
                    }
                    Err(err) => self.malformed(method, &err),
                }
            }
            // rust-analyzer's status; offered in the client capabilities.
            "experimental/serverStatus" => {
                let quiescent = params.get("quiescent").and_then(Value::as_bool);
                if let Some(message) = params.get("message").and_then(Value::as_str) {
                    self.logs
                        .record(LogLevel::Debug, &self.server, format!("status: {message}"));
                }
                self.update(|state| {
                    state.quiescent = quiescent;
                    state.last_activity = Some(Instant::now());
                });
            }
            "telemetry/event" | "$/logTrace" | "$/cancelRequest" => {}
            other => self.logs.record(
                LogLevel::Debug,
                &self.server,
                format!("ignored notification {other}"),
            ),
        }
    }

    fn progress(&self, progress: ProgressParams) {
        let token = match progress.token {
            NumberOrString::Number(n) => n.to_string(),
            NumberOrString::String(s) => s,
        };
        let ProgressParamsValue::WorkDone(value) = progress.value;
        match &value {
            WorkDoneProgress::Begin(begin) => {
                self.logs.record(
                    LogLevel::Debug,
                    &self.server,
                    format!("progress {token}: {}", begin.title),
                );
            }
            WorkDoneProgress::End(_) => {
                self.logs.record(
                    LogLevel::Debug,
                    &self.server,
                    format!("progress {token}: done"),
                );
            }
            WorkDoneProgress::Report(_) => {}
        }
        self.update(|state| match value {
            WorkDoneProgress::Begin(begin) => {
                state.progress_begun += 1;
                state.progress.insert(
                    token.clone(),
                    ProgressState {
                        token,
                        title: begin.title,
                        message: begin.message,
                        percentage: begin.percentage,
                        begun: state.progress_begun,
                        published_before: state.publish_count,
                    },
                );
            }
            WorkDoneProgress::Report(report) => {
                if let Some(entry) = state.progress.get_mut(&token) {
                    entry.message = report.message.or(entry.message.take());
                    entry.percentage = report.percentage.or(entry.percentage);
                }
            }
            WorkDoneProgress::End(_) => {
                if let Some(ended) = state.progress.remove(&token) {
                    if state.ended.len() == ENDED_KEPT {
                        state.ended.pop_front();
                    }
                    state.ended.push_back(ended);
                }
                state.last_activity = Some(Instant::now());
            }
        });
    }

    fn malformed(&self, method: &str, err: &serde_json::Error) {
        self.logs.record(
            LogLevel::Warn,
            &self.server,
            format!("malformed {method} notification ignored: {err}"),
        );
    }
}

/// The router that answers a server's requests and records its
/// notifications into `shared`.
pub fn router(shared: Arc<Shared>) -> Router<Arc<Shared>> {
    let mut router = Router::new(shared);
    router
        .request::<WorkspaceConfiguration, _>(|shared, params| {
            let answer = shared.configuration(params);
            async move { Ok(answer) }
        })
        .request::<WorkspaceFoldersRequest, _>(|shared, _| {
            let folders = Some(vec![shared.folder.clone()]);
            async move { Ok(folders) }
        })
        .request::<WorkDoneProgressCreate, _>(|_, _| async { Ok(()) })
        .request::<RegisterCapability, _>(|shared, params| {
            shared.register(params);
            async { Ok(()) }
        })
        .request::<UnregisterCapability, _>(|shared, params| {
            shared.unregister(params);
            async { Ok(()) }
        })
        .request::<ApplyWorkspaceEdit, _>(|shared, params| {
            let captured = match shared.state().captured_edits.as_mut() {
                Some(captured) => {
                    captured.push(params.edit);
                    true
                }
                None => false,
            };
            if !captured {
                shared.logs.record(
                    LogLevel::Info,
                    &shared.server,
                    "declined workspace/applyEdit",
                );
            }
            async move {
                Ok(ApplyWorkspaceEditResponse {
                    // Captured: it is the action's patch, which the agent
                    // previews and applies.
                    applied: captured,
                    failure_reason: (!captured).then(|| {
                        "sextant applies edits itself, through its rename, edit and fix tools"
                            .into()
                    }),
                    failed_change: None,
                })
            }
        })
        .unhandled_request(|shared, request| {
            let method = request.method.clone();
            // Refresh requests need no work from a client without a view.
            let known_refresh = method.starts_with("workspace/") && method.ends_with("/refresh");
            if !known_refresh {
                shared.logs.record(
                    LogLevel::Debug,
                    &shared.server,
                    format!("answered unknown request {method} with MethodNotFound"),
                );
            }
            async move {
                if known_refresh {
                    Ok(Value::Null)
                } else {
                    Err(ResponseError::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        format!("sextant does not handle {method}"),
                    ))
                }
            }
        })
        .unhandled_notification(|shared, notification| {
            shared.notification(notification);
            ControlFlow::Continue(())
        })
        .unhandled_event(|_, _| ControlFlow::Continue(()));
    router
}

/// The URI sextant makes for the file `uri` names (`Url::from_file_path`),
/// which is what publications are looked up by: servers percent-encode a
/// path their own way (typescript-language-server's vscode-uri encodes
/// `(`, `)`, `[` and `]`, as in Next.js's `app/(group)/[id]/page.tsx`; the
/// url crate does not). Other URIs are kept as they are.
fn canonical(uri: Url) -> Url {
    if uri.scheme() != "file" {
        return uri;
    }
    uri.to_file_path()
        .ok()
        .and_then(|path| Url::from_file_path(path).ok())
        .unwrap_or(uri)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_uris_are_looked_up_as_sextant_writes_them() {
        let ours = Url::from_file_path("/w/app/(group)/[id]/page.tsx").unwrap();
        let theirs = Url::parse("file:///w/app/%28group%29/%5Bid%5D/page.tsx").unwrap();
        assert_ne!(ours, theirs);
        assert_eq!(canonical(theirs), ours);
        assert_eq!(canonical(ours.clone()), ours);
        let other = Url::parse("untitled:Untitled-1").unwrap();
        assert_eq!(canonical(other.clone()), other);
    }

    /// A log message read before async-lsp is recorded at its level, but
    /// one saying the process answering for the server died is left to
    /// come in its place, unless the server was asked to end.
    #[test]
    fn log_messages_taken_early_leave_the_fatal_ones() {
        let folder = WorkspaceFolder {
            uri: Url::parse("file:///w/").unwrap(),
            name: "w".to_string(),
        };
        let logs = Arc::new(LogBook::default());
        let fatal = vec!["[tsserver] Exited".to_string()];
        let shared = Shared::new("ts", Arc::clone(&logs), Value::Null, folder, fatal);
        let levels = || {
            let tail = logs.tail(|_| true, 10, 0);
            tail.lines
                .iter()
                .map(|line| (line.level, line.message.clone()))
                .collect::<Vec<_>>()
        };
        assert!(shared.take_log_message(lsp_types::MessageType::WARNING, "slow"));
        assert!(shared.take_log_message(lsp_types::MessageType::INFO, "chatter"));
        assert!(!shared.take_log_message(lsp_types::MessageType::ERROR, "[tsserver] Exited."));
        let expected = vec![
            (LogLevel::Warn, "slow".to_string()),
            (LogLevel::Debug, "chatter".to_string()),
        ];
        assert_eq!(levels(), expected);
        shared.mark_closing();
        assert!(shared.take_log_message(lsp_types::MessageType::ERROR, "[tsserver] Exited."));
        assert_eq!(
            levels().last(),
            Some(&(LogLevel::Debug, "[tsserver] Exited.".to_string()))
        );
    }
}
