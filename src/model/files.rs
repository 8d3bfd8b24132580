//! Results of the plain file tools: read_file, find, grep, edit,
//! apply_patch, create_file.

use serde::Serialize;

/// `read_file`: a run of numbered lines from one text file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileLines {
    pub path: String,
    /// The lines shown, in order, numbered from `lines[0].number`.
    pub lines: Vec<NumberedLine>,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// The file ends its lines with `\r\n`.
    pub crlf: bool,
    /// Where to continue, when lines after the page were left out.
    pub next_offset: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NumberedLine {
    /// 1-based line number.
    pub number: usize,
    /// The line without its terminator, possibly cut.
    pub text: String,
    /// The line's full length in characters when `text` was cut.
    pub cut_from: Option<usize>,
}

/// `find`: files matching a glob, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FoundFiles {
    pub pattern: String,
    /// The folder searched, as displayed.
    pub base: String,
    pub files: Vec<String>,
    /// Index of `files[0]` among all matches.
    pub offset: usize,
    pub total: usize,
}

/// `grep`'s three output modes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum GrepMode {
    /// One path per matching file.
    FilesWithMatches,
    /// Matching lines (and context lines), `path:line:text`.
    Content,
    /// Matching lines per file, `path:count`.
    Count,
}

/// `grep`: one page of entries plus the totals of the whole search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepResult {
    pub pattern: String,
    pub mode: GrepMode,
    /// Show line numbers in content mode.
    pub line_numbers: bool,
    /// Context lines were asked for, so non-adjacent groups are separated.
    pub has_context: bool,
    pub entries: Vec<GrepEntry>,
    /// Index of `entries[0]` among all entries.
    pub offset: usize,
    /// Entries in the whole result (files, counts or lines, by mode).
    pub total_entries: usize,
    /// Files with at least one match.
    pub total_files: usize,
    /// Matching lines in all files.
    pub total_matching_lines: usize,
    /// Files skipped because they hold binary data.
    pub binary_files_skipped: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GrepEntry {
    File {
        path: String,
    },
    Count {
        path: String,
        count: usize,
    },
    Line {
        path: String,
        line: u64,
        /// A matching line (`:`) rather than a context line (`-`).
        is_match: bool,
        text: String,
        cut_from: Option<usize>,
    },
}

/// A change to one file, as previewed or applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    pub path: String,
    /// The file did not exist before.
    pub created: bool,
    /// The file is removed.
    pub deleted: bool,
    /// The file moved here from this path (a rename moving a module's
    /// file); the diff is between the old file and this one.
    pub moved_from: Option<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// A unified diff (`---`/`+++` headers, `@@` hunks), `\n` line ends,
    /// cut to the output budget.
    pub diff: String,
    /// Diff lines left out of `diff` by the budget (the patch has them all).
    pub diff_lines_omitted: usize,
}

/// What `edit` and `apply_patch` report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatchReport {
    /// The patch id (`p3`) to pass to `apply_patch`; `None` once written
    /// by the tool that made it (`edit` with `apply: true`).
    pub patch_id: Option<String>,
    /// The change is written (rather than previewed).
    pub applied: bool,
    /// Replacements made, for an edit.
    pub replacements: Option<usize>,
    /// What a rename changed, for a rename.
    pub rename: Option<Renaming>,
    pub changes: Vec<FileChange>,
    /// What the reader must know (read-only mode: no patch to apply).
    pub notes: Vec<String>,
    /// What the write did to the diagnostics (a written patch, unless the
    /// call turned it off).
    pub impact: Option<super::Impact>,
    /// The code action taken, for `fix`.
    pub fix: Option<TakenFix>,
}

/// A code action `fix` took: where, and which.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TakenFix {
    pub target: super::Target,
    pub title: String,
    /// Text edits in all.
    pub edits: usize,
}

/// What `fix` lists: the code actions a server offers at a place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FixList {
    pub target: super::Target,
    pub server: String,
    /// Numbered from 1 in this order.
    pub actions: Vec<OfferedFix>,
}

/// One code action on offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OfferedFix {
    pub title: String,
    /// `quick fix`, `refactor`, `organize imports`, `source action`, or
    /// `command` for an action given as a bare command.
    pub kind: String,
    /// The diagnostics it fixes: `[2304] Cannot find name 'x'.`
    pub fixes: Vec<String>,
    /// It is about the whole file, not the place.
    pub whole_file: bool,
    /// The server marks it the one to take.
    pub preferred: bool,
}

/// A rename's summary: `Rename 'old' -> 'new': 7 changes across 3 files`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renaming {
    /// What the address hit, for the header line.
    pub target: super::Target,
    pub old: String,
    pub new: String,
    /// Text edits (and file operations) in all.
    pub edits: usize,
}

/// What `create_file` reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CreatedFile {
    pub path: String,
    /// The file existed and was replaced.
    pub overwritten: bool,
    pub lines: usize,
    pub bytes: usize,
    /// What the write did to the diagnostics, unless the call turned it off.
    pub impact: Option<super::Impact>,
}
