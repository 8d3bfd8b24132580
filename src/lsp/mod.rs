//! The only module that speaks LSP: configuration, the supervisor that runs
//! language servers, each server's client and documents, and the conversions
//! between LSP's types and sextant's model.
//!
//! What the rest of sextant uses: [`Supervisor::open`] for a server and a
//! synchronised document as ready as a [`Need`] asks (or
//! [`Supervisor::server`] for workspace-wide requests), then the request
//! modules (`symbols`, `navigate`, `complete`, `refactor`, `diagnostics`),
//! whose answers are `model` values and plain data: no LSP type or URI
//! reaches a tool. The client, its transport, documents and readiness are
//! this module's own. What only one server needs lives in `quirks`, one
//! file per quirk.

pub mod actions;
mod aside;
mod capabilities;
pub mod choose;
mod client;
pub mod complete;
pub mod config;
pub mod convert;
pub mod diagnostics;
mod documents;
mod inbound;
pub mod install;
pub mod navigate;
mod projects;
mod quirks;
mod readiness;
pub mod reaper;
pub mod refactor;
mod session;
mod status;
pub mod supervisor;
pub mod symbols;
mod transport;
mod uncovered;
mod unlinked;
pub mod watch;
mod wire;

pub use client::LspClient;
pub use projects::Coverage;
pub use session::{Need, Server, Session};
pub use supervisor::{Activity, ServerId, Supervisor};

use std::path::Path;

use crate::error::{ErrorCode, ToolError};

/// How a path is named in messages: relative to the workspace when inside
/// it (the lsp module does not see `fs::Workspace`).
pub fn shown(path: &Path, workspace_root: &Path) -> String {
    match path.strip_prefix(workspace_root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_string(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// What can go wrong between sextant and a language server.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LspError {
    #[error(
        "no language server is configured for {path}; add one in sextant.toml ([language.NAME] with command and extensions)"
    )]
    NoServer { path: String },
    #[error("{server} is not installed; {hint}")]
    Missing { server: String, hint: String },
    #[error("{server} could not be started: {detail}")]
    Spawn { server: String, detail: String },
    #[error("{server} failed to start: {detail}{}", stderr_suffix(.stderr_tail))]
    StartFailed {
        server: String,
        detail: String,
        stderr_tail: Vec<String>,
    },
    #[error(
        "{server} did not answer {method} within {seconds:.0} s; the request was cancelled. Retry, or raise request_timeout in sextant.toml"
    )]
    Timeout {
        server: String,
        method: String,
        seconds: f64,
    },
    #[error("{server} crashed: {detail}; it restarts on the next request (see `logs`)")]
    Crashed { server: String, detail: String },
    #[error(
        "{server} crashed {restarts} times in the last 10 minutes and is not restarted for now: {detail} (see `logs`)"
    )]
    GaveUp {
        server: String,
        restarts: usize,
        detail: String,
    },
    #[error("{server} answered {method} with an error ({code}): {message}")]
    Rpc {
        server: String,
        method: String,
        code: i64,
        message: String,
    },
    #[error("{server} is still starting; retry in a moment (see `logs`)")]
    Starting { server: String },
    /// Ready, but still loading the projects a workspace-wide request needs
    /// (see `navigate::projects_loaded`).
    #[error("{server} is still loading its projects; retry in a moment (see `logs`)")]
    LoadingProjects { server: String },
    #[error("{server} does not support {what}")]
    Unsupported { server: String, what: String },
    #[error("{detail}")]
    Io { detail: String },
}

fn stderr_suffix(tail: &[String]) -> String {
    let lines: Vec<&str> = tail.iter().rev().take(3).map(String::as_str).collect();
    if lines.is_empty() {
        String::new()
    } else {
        format!(
            "; its last output: {}",
            lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )
    }
}

impl From<LspError> for ToolError {
    fn from(err: LspError) -> ToolError {
        let code = match &err {
            LspError::NoServer { .. } => ErrorCode::NoServer,
            LspError::Missing { .. } => ErrorCode::ServerMissing,
            LspError::Spawn { .. }
            | LspError::StartFailed { .. }
            | LspError::Crashed { .. }
            | LspError::GaveUp { .. } => ErrorCode::ServerFailed,
            LspError::Timeout { .. }
            | LspError::Starting { .. }
            | LspError::LoadingProjects { .. } => ErrorCode::ServerTimeout,
            LspError::Rpc { .. } => ErrorCode::ServerError,
            LspError::Unsupported { .. } => ErrorCode::Unsupported,
            LspError::Io { .. } => ErrorCode::Io,
        };
        ToolError::new(code, err.to_string())
    }
}
