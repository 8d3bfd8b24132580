//! The connection to one server process: the process itself (leading a
//! session of its own, see `reaper`), async-lsp's main loop over its stdin
//! and stdout, its stderr drained into the shared state, how it ended;
//! requests with a timeout and `$/cancelRequest`, and notifications, all
//! through the strict wire format (`wire`).
//!
//! Nothing here knows what the requests mean: that is `client` and the
//! request modules above it.

use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::process::Stdio;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use async_lsp::{MainLoop, ServerSocket};
use lsp_types::notification::{Cancel, Notification};
use lsp_types::request::Request;
use tokio::io::AsyncBufReadExt;
use tokio::sync::{Notify, watch};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use super::LspError;
use super::aside::{AnyResult, Aside, AsideReader};
use super::config::LanguageConfig;
use super::inbound::{self, Shared};
use super::reaper;
use super::wire::{Strict, StrictAnswers, StrictNotification, strict_params};

/// How a server process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// `exit code 101`, `killed by signal 9`.
    pub description: String,
}

/// A running server process and the JSON-RPC connection to it.
pub struct Transport {
    pub(super) shared: Arc<Shared>,
    pub(super) pid: Option<u32>,
    socket: ServerSocket,
    /// Large results, taken aside from the server's output by request id.
    aside: Arc<Aside>,
    /// The id the main loop will give our next request (see `request`).
    next_id: tokio::sync::Mutex<i32>,
    exit: watch::Receiver<Option<ExitInfo>>,
    kill: Arc<Notify>,
}

impl Transport {
    /// Spawns `program` for `language` in `root` and starts the tasks that
    /// run its connection, drain its stderr and wait for its exit. The
    /// process leads a session of its own, which ends with it and with
    /// sextant (see `reaper`).
    pub(super) fn spawn(
        language: &LanguageConfig,
        program: &Path,
        root: &Path,
        shared: Arc<Shared>,
    ) -> Result<Transport, LspError> {
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
            server: shared.server.clone(),
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
        let (main_loop, socket) =
            MainLoop::new_client(|_| StrictAnswers(inbound::router(Arc::clone(&shared))));
        let aside = Arc::new(Aside::default());
        let log = {
            let shared = Arc::clone(&shared);
            Box::new(move |kind, message: &str| shared.take_log_message(kind, message))
        };
        let stdout = AsideReader::new(stdout, Arc::clone(&aside), log);

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
        Ok(Transport {
            shared,
            pid,
            socket,
            aside,
            next_id: tokio::sync::Mutex::new(0),
            exit,
            kill,
        })
    }

    /// The process still runs and the connection holds.
    pub(super) fn is_alive(&self) -> bool {
        self.exit.borrow().is_none()
            && !self
                .shared
                .disconnected
                .load(std::sync::atomic::Ordering::SeqCst)
    }

    pub(super) fn exit_info(&self) -> Option<ExitInfo> {
        self.exit.borrow().clone()
    }

    /// Waits (at most `timeout`) for the process to be gone and says how it
    /// ended: a broken connection is followed by the exit a moment later.
    pub(super) async fn wait_exit(&self, timeout: Duration) -> Option<ExitInfo> {
        let mut exit = self.exit.clone();
        let _ = tokio::time::timeout(timeout, exit.wait_for(Option::is_some)).await;
        self.exit_info()
    }

    /// Ends the process now, as asked (its end is no news in the log).
    pub(super) fn kill(&self) {
        self.shared.mark_closing();
        self.kill.notify_one();
    }

    /// Ends the process now, not as asked: it failed us (its end is logged
    /// as a warning, with how it ended).
    pub(super) fn abandon(&self) {
        self.kill.notify_one();
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
        // Counted in the tool call's time waiting on servers.
        let _waiting = crate::waits::begin();
        let answer = self.request_once::<R>(params, timeout).await;
        // A server whose answering process died (see `Shared::fatal`)
        // answers from nothing: no answer of it is one.
        match self.shared.fatal() {
            Some(fatal) => Err(LspError::Crashed {
                server: self.shared.server.clone(),
                detail: format!("the process that answers for it died ({fatal})"),
            }),
            None => answer,
        }
    }

    async fn request_once<R>(
        &self,
        params: R::Params,
        timeout: Duration,
    ) -> Result<R::Result, LspError>
    where
        R: Request,
        R::Result: Send + 'static,
    {
        let params = strict_params(params).map_err(|err| self.unencodable(R::METHOD, &err))?;
        let mut response = pin!(self.socket.request::<AnyResult<Strict<R>>>(params));
        // async-lsp numbers outgoing requests itself, 0, 1, 2, ... in the
        // order they reach its main loop, and does not tell us the number.
        // The first poll hands the request to the main loop; doing it under
        // this lock keeps our count in step with its numbering.
        let id = {
            let mut next = self.next_id.lock().await;
            let first = std::future::poll_fn(|cx| Poll::Ready(response.as_mut().poll(cx))).await;
            if let Poll::Ready(result) = first {
                return self.decode::<R>(result);
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
                self.decode::<R>(result)
            }
            Err(_) => Err(LspError::Timeout {
                server: self.shared.server.clone(),
                method: R::METHOD.to_string(),
                seconds: timeout.as_secs_f64(),
            }),
        }
    }

    /// The answer to request `R` as its type: a result taken aside (see
    /// `aside`) decoded once, from its JSON; any other from the value.
    fn decode<R: Request>(
        &self,
        answer: Result<serde_json::Value, async_lsp::Error>,
    ) -> Result<R::Result, LspError> {
        let decoded = answer.and_then(|value| match self.aside.taken(&value) {
            Ok(Some(raw)) => Ok(serde_json::from_str(&raw)?),
            Ok(None) => Ok(serde_json::from_value(value)?),
            Err(lost) => Err(async_lsp::Error::Protocol(lost)),
        });
        decoded.map_err(|err| self.rpc_error(R::METHOD, err))
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
