//! The error vocabulary every tool shares.
//!
//! An error is a value with a stable code and a message that names the cause
//! and the fix. The codes are few, documented in README.md, and never change
//! meaning: agents (and people) match on them. "Nothing found" is not an error.

use std::fmt;

/// A stable error code. The string form (`outside-root`, ...) is what agents see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ErrorCode {
    /// The arguments do not fit the tool's parameters.
    InvalidParams,
    /// No tool of that name.
    UnknownTool,
    /// A path leads outside the workspace (and outside every library root).
    OutsideRoot,
    /// A write was aimed at a read-only library root.
    ReadOnly,
    /// The file or folder does not exist.
    NotFound,
    /// A folder was given where a file is needed.
    NotAFile,
    /// A file was given where a folder is needed.
    NotADirectory,
    /// The file holds binary data.
    BinaryFile,
    /// A line or offset past the end of the file.
    OutOfRange,
    /// The regular expression does not compile.
    InvalidRegex,
    /// The glob does not compile.
    InvalidGlob,
    /// `old_string` does not occur in the file.
    NoMatch,
    /// `old_string` occurs more than once and `replace_all` is off.
    AmbiguousMatch,
    /// `old_string` or `new_string` carries pasted line-number prefixes.
    LineNumberPrefix,
    /// The edit would change nothing.
    NoChange,
    /// A file changed on disk after its patch was previewed.
    StalePatch,
    /// No patch of that id (never made, already applied, or expired).
    UnknownPatch,
    /// The file exists and `overwrite` is off.
    Exists,
    /// No language server is configured for the file's language.
    NoServer,
    /// The language server is not installed (and could not be installed).
    ServerMissing,
    /// The language server failed to start, crashed, or was given up on.
    ServerFailed,
    /// The language server did not answer in time (the request was cancelled).
    ServerTimeout,
    /// The language server answered with an error.
    ServerError,
    /// The language server lacks the capability the tool needs.
    Unsupported,
    /// The symbol cannot be renamed (the server refuses, or it is a
    /// library's), or the new name is not a name of its language.
    CannotRename,
    /// The code action asked for is not the one listed (the file changed,
    /// or the server offers others now), or cannot be taken (a library's
    /// file, an action that changes nothing).
    CannotFix,
    /// The shared instance serving the session ended before answering.
    InstanceEnded,
    /// An unexpected input/output failure.
    Io,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidParams => "invalid-params",
            ErrorCode::UnknownTool => "unknown-tool",
            ErrorCode::OutsideRoot => "outside-root",
            ErrorCode::ReadOnly => "read-only",
            ErrorCode::NotFound => "not-found",
            ErrorCode::NotAFile => "not-a-file",
            ErrorCode::NotADirectory => "not-a-directory",
            ErrorCode::BinaryFile => "binary-file",
            ErrorCode::OutOfRange => "out-of-range",
            ErrorCode::InvalidRegex => "invalid-regex",
            ErrorCode::InvalidGlob => "invalid-glob",
            ErrorCode::NoMatch => "no-match",
            ErrorCode::AmbiguousMatch => "ambiguous-match",
            ErrorCode::LineNumberPrefix => "line-number-prefix",
            ErrorCode::NoChange => "no-change",
            ErrorCode::StalePatch => "stale-patch",
            ErrorCode::UnknownPatch => "unknown-patch",
            ErrorCode::Exists => "exists",
            ErrorCode::NoServer => "no-server",
            ErrorCode::ServerMissing => "server-missing",
            ErrorCode::ServerFailed => "server-failed",
            ErrorCode::ServerTimeout => "server-timeout",
            ErrorCode::ServerError => "server-error",
            ErrorCode::InstanceEnded => "instance-ended",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::CannotRename => "cannot-rename",
            ErrorCode::CannotFix => "cannot-fix",
            ErrorCode::Io => "io",
        }
    }
}

/// A tool failure as the agent sees it: `error[code]: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
        }
    }

    /// An I/O failure on `what` (a path as shown to the agent).
    pub fn io(what: &str, err: &std::io::Error) -> ToolError {
        match err.kind() {
            std::io::ErrorKind::NotFound => ToolError::new(
                ErrorCode::NotFound,
                format!("{what} does not exist; check the path (find lists files by glob)"),
            ),
            std::io::ErrorKind::PermissionDenied => ToolError::new(
                ErrorCode::Io,
                format!("{what} cannot be accessed: permission denied"),
            ),
            _ => ToolError::new(ErrorCode::Io, format!("{what}: {err}")),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.code.as_str(), self.message)
    }
}

pub type ToolResult<T> = Result<T, ToolError>;
