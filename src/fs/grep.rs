//! Searching file contents with ripgrep's engine (grep-regex, grep-searcher,
//! ignore), in parallel, into plain per-file hits sorted by path.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkMatch};
use ignore::WalkState;

use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::text::{cut_line, strip_terminator};
use crate::fs::walk::{WalkOptions, walker};
use crate::model::GrepMode;

/// Matched and context lines longer than this are cut.
pub const MAX_LINE_CHARS: usize = 500;

/// One search, ripgrep style.
#[derive(Debug, Clone)]
pub struct GrepQuery<'a> {
    pub pattern: &'a str,
    /// A folder or one file.
    pub base: &'a Path,
    pub walk: WalkOptions<'a>,
    pub mode: GrepMode,
    pub case_insensitive: bool,
    /// Let a match span lines (`\n` in the pattern).
    pub multiline: bool,
    pub before_context: usize,
    pub after_context: usize,
}

/// What one file yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    pub path: PathBuf,
    /// Matching lines (in `FilesWithMatches` mode, 1: the search stops there).
    pub matching_lines: usize,
    /// Content mode only: matching and context lines in order.
    pub lines: Vec<HitLine>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitLine {
    pub number: u64,
    pub is_match: bool,
    pub text: String,
    pub cut_from: Option<usize>,
}

/// Every file with a match, sorted by path, and how many binary files were
/// skipped.
#[derive(Debug, Default)]
pub struct GrepHits {
    pub files: Vec<FileHits>,
    pub binary_files_skipped: usize,
}

/// Compiles the pattern the way ripgrep does for these options.
pub fn compile(pattern: &str, case_insensitive: bool, multiline: bool) -> ToolResult<RegexMatcher> {
    let mut builder = RegexMatcherBuilder::new();
    builder.case_insensitive(case_insensitive).multi_line(true);
    if !multiline {
        // `crlf` lets `$` match before `\r\n`; it also makes `\n` the line
        // terminator, which a multi-line search must not have.
        builder.crlf(true).line_terminator(Some(b'\n'));
    }
    builder.build(pattern).map_err(|err| {
        let hint = if !multiline && (pattern.contains("\\n") || pattern.contains('\n')) {
            "; a pattern that spans lines needs multiline: true"
        } else {
            "; the syntax is Rust regex (like ripgrep): escape literal ( [ { . * + ? with \\"
        };
        ToolError::new(
            ErrorCode::InvalidRegex,
            format!(
                "invalid regex '{pattern}': {}{hint}",
                one_line(&err.to_string())
            ),
        )
    })
}

/// Runs the search over every file under `query.base`.
pub fn search(query: &GrepQuery) -> ToolResult<GrepHits> {
    let matcher = compile(query.pattern, query.case_insensitive, query.multiline)?;
    let mut searcher = SearcherBuilder::new();
    searcher
        .line_number(true)
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .multi_line(query.multiline);
    if query.mode == GrepMode::Content {
        searcher
            .before_context(query.before_context)
            .after_context(query.after_context);
    }
    let results = Arc::new(Mutex::new(GrepHits::default()));
    walker(query.base, &query.walk)?.run(|| {
        let matcher = matcher.clone();
        let mut searcher = searcher.build();
        let results = Arc::clone(&results);
        let mode = query.mode;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let mut sink = Collector::new(mode);
            if searcher
                .search_path(&matcher, entry.path(), &mut sink)
                .is_err()
            {
                return WalkState::Continue;
            }
            if sink.binary {
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .binary_files_skipped += 1;
            } else if sink.matching_lines > 0 {
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .files
                    .push(FileHits {
                        path: entry.into_path(),
                        matching_lines: sink.matching_lines,
                        lines: sink.lines,
                    });
            }
            WalkState::Continue
        })
    });
    let mut hits = Arc::try_unwrap(results)
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .unwrap_or_default();
    hits.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(hits)
}

/// Collects one file's hits; stops early when only the file name matters.
struct Collector {
    mode: GrepMode,
    matching_lines: usize,
    lines: Vec<HitLine>,
    binary: bool,
}

impl Collector {
    fn new(mode: GrepMode) -> Collector {
        Collector {
            mode,
            matching_lines: 0,
            lines: Vec::new(),
            binary: false,
        }
    }

    fn push(&mut self, number: u64, is_match: bool, bytes: &[u8]) {
        let text = String::from_utf8_lossy(strip_terminator(bytes));
        let (text, cut_from) = cut_line(&text, MAX_LINE_CHARS);
        self.lines.push(HitLine {
            number,
            is_match,
            text,
            cut_from,
        });
    }
}

impl Sink for Collector {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        let first = mat.line_number().unwrap_or(0);
        match self.mode {
            GrepMode::FilesWithMatches => {
                self.matching_lines = 1;
                Ok(false)
            }
            GrepMode::Count => {
                self.matching_lines += mat.lines().count();
                Ok(true)
            }
            GrepMode::Content => {
                for (i, line) in mat.lines().enumerate() {
                    self.matching_lines += 1;
                    self.push(first + i as u64, true, line);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, io::Error> {
        let number = context.line_number().unwrap_or(0);
        self.push(number, false, context.bytes());
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
