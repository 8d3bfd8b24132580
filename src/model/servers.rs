//! Results of the tools that stand on the language servers: diagnostics,
//! logs (server status and log lines).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Page, Position};

/// How bad a diagnostic is; ordered most severe first.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
            Severity::Information => "Information",
            Severity::Hint => "Hint",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Where it starts (1-based line:character).
    pub position: Position,
    pub end: Position,
    /// The server's code (`2304`, `E0308`), if any.
    pub code: Option<String>,
    /// Who reported it (`typescript`, `rustc`, `rust-analyzer`).
    pub source: Option<String>,
    pub message: String,
}

/// What a write did to the errors and warnings of the files it wrote and
/// of the files that name them: the servers' diagnostics after the write
/// against those before it, a finding matched by its severity, code and
/// message at its place moved with the edit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Impact {
    /// Findings the write introduced, at their places after it.
    pub introduced: Vec<FileFinding>,
    /// Findings the write fixed, at their places before it.
    pub fixed: Vec<FileFinding>,
    /// Findings there before and still there.
    pub remaining: usize,
    /// Files compared before and after.
    pub files_compared: usize,
    /// What was not compared (a file not re-checked in time, a server not
    /// ready, a checker still running), each with the call that finishes it.
    pub notes: Vec<String>,
}

/// One finding and the file it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileFinding {
    pub path: String,
    pub diagnostic: Diagnostic,
}

/// How many diagnostics of each severity: errors, warnings, infos, hints.
pub type SeverityCounts = [usize; 4];

/// One file's diagnostics on the page, sorted by severity then position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDiagnostics {
    pub path: String,
    pub diagnostics: Vec<Diagnostic>,
    /// The whole file's counts (a page may hold part of it).
    pub counts: SeverityCounts,
}

impl FileDiagnostics {
    /// A file's diagnostics, all of them on the page.
    pub fn whole(path: String, diagnostics: Vec<Diagnostic>) -> FileDiagnostics {
        let counts = severity_counts(&diagnostics);
        FileDiagnostics {
            path,
            diagnostics,
            counts,
        }
    }
}

/// Counts `diagnostics` by severity.
pub fn severity_counts(diagnostics: &[Diagnostic]) -> SeverityCounts {
    let mut counts = [0; 4];
    for diagnostic in diagnostics {
        counts[diagnostic.severity as usize] += 1;
    }
    counts
}

/// What `diagnostics` looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "snake_case")]
pub enum DiagnosticsScope {
    File(String),
    /// Every file of a configured language under a folder.
    Folder(String),
    Workspace,
}

/// What `diagnostics` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiagnosticsReport {
    pub scope: DiagnosticsScope,
    /// The least severe level shown.
    pub min_severity: Severity,
    /// The page's files: those with errors first, each part in path order.
    pub files: Vec<FileDiagnostics>,
    /// Every file's counts together, and how many files have any.
    pub counts: SeverityCounts,
    pub files_with: usize,
    /// A large report's counts by folder (two levels deep), the folders
    /// with the most errors first; empty for a small one.
    pub folders: Vec<(String, SeverityCounts)>,
    /// How many folders hold findings (those shown may be fewer).
    pub folders_total: usize,
    /// Which diagnostics the page holds, of all (counted across files).
    pub page: Page,
    /// Files checked (with nothing to show, or something).
    pub files_checked: usize,
    /// Things the reader must know: a server still indexing, `cargo check`
    /// still running, files left out by a limit.
    pub notes: Vec<String>,
}

/// A language server's state, as `logs` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    NotStarted,
    /// Not installed, and how to install it.
    Missing {
        hint: String,
    },
    Starting,
    Indexing {
        percentage: Option<u32>,
        title: String,
    },
    Ready,
    /// Exited unexpectedly; restarts on the next request (unless it gave up).
    Crashed {
        exit: String,
        stderr_tail: Vec<String>,
        gave_up: bool,
    },
    /// Failed to start or initialize.
    Failed {
        error: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServerStatus {
    pub language: String,
    pub server: String,
    /// The project root it serves (display form); `None` when not started.
    pub root: Option<String>,
    pub command: String,
    /// Why this server, when its language has several.
    pub reason: Option<String>,
    pub state: ServerState,
    pub pid: Option<u32>,
    pub uptime_secs: Option<u64>,
    pub restarts: u32,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Error,
    Warn,
    Info,
    Debug,
}

impl LogLevel {
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    /// Milliseconds since the Unix epoch.
    pub time_ms: u64,
    pub level: LogLevel,
    /// `sextant`, `tool`, or a server's name.
    pub source: String,
    pub message: String,
}

/// What `logs` shows: every server's status, then matching log lines.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LogsReport {
    /// The shared instance this session is served by, if it is one.
    pub instance: Option<InstanceState>,
    /// The `server` filter asked for, if any.
    pub server_filter: Option<String>,
    pub servers: Vec<ServerStatus>,
    pub lines: Vec<LogLine>,
    /// Lines that matched the filters but are older than the tail.
    pub older_lines: usize,
    /// File watching for the servers; `None` when a `server` filter is set.
    pub watching: Option<WatchStatus>,
}

/// How file watching for the language servers stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WatchStatus {
    /// It starts with the first language server.
    NotStarted,
    /// Off: a one-off command-line run.
    Off,
    Watching {
        folders: usize,
        /// Stopped at the folder limit: other folders are not watched.
        full: bool,
        /// The first walk of the workspace is still going.
        walking: bool,
    },
    Failed {
        error: String,
    },
}

/// What `sextant doctor` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DoctorReport {
    pub version: String,
    pub workspace: String,
    pub config_files: Vec<String>,
    pub tools_dir: String,
    pub auto_install: bool,
    pub languages: Vec<LanguageCheck>,
    /// The workspace's shared instance (what `sextant serve` relays to).
    pub instance: InstanceCheck,
    /// Languages sextant's tree-sitter layer parses.
    pub grammars: Vec<String>,
    pub library_roots: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LanguageCheck {
    pub language: String,
    pub extensions: Vec<String>,
    /// The server that runs for the workspace root.
    pub chosen: String,
    /// Why that one, when the language has several.
    pub reason: Option<String>,
    /// Every server it can run (one for most languages).
    pub servers: Vec<ServerCheck>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerCheck {
    pub server: String,
    pub command: String,
    /// Where the server was found, or `None` when missing.
    pub found: Option<String>,
    /// Its `--version` line, when it printed one.
    pub version: Option<String>,
    /// What to do when it is missing or does not run.
    pub hint: Option<String>,
}

/// A shared instance as `doctor` and `logs` show it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct InstanceState {
    pub pid: u32,
    pub sessions: usize,
    pub uptime_secs: u64,
    /// How long it stays up with no session.
    pub idle_exit_secs: u64,
    /// How long it has had no session, if it has none now.
    pub idle_secs: Option<u64>,
    pub log: std::path::PathBuf,
}

/// Whether a shared instance serves the workspace, for `doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum InstanceCheck {
    Running(InstanceState),
    /// None runs: the next `sextant serve` starts one, logging there.
    NotRunning {
        log: std::path::PathBuf,
    },
    /// Sharing cannot work here (the meeting folder is not private).
    Unavailable {
        why: String,
    },
}
