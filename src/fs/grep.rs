//! Searching file contents with ripgrep's engine (grep-regex, grep-searcher,
//! ignore), in parallel, into plain per-file hits sorted by path.

use std::collections::BTreeMap;
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
use crate::sync::lock;

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
    /// Content mode: lines worth keeping, in path order, for the page being
    /// shown (offset + page size). Lines past that are counted, not kept, so
    /// `grep .` over a huge tree stays small.
    pub keep_lines: usize,
    /// Only these files are searched (the files a `pipe`'s step before
    /// found), when given.
    pub only: Option<&'a std::collections::HashSet<PathBuf>>,
}

/// What one file yielded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    pub path: PathBuf,
    /// Matching lines (in `FilesWithMatches` mode, 1: the search stops there).
    pub matching_lines: usize,
    /// Content mode: matching and context lines in the file.
    pub line_count: usize,
    /// Content mode: the first of those lines, as many as the page may need.
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
        // A parse error quotes the pattern inside the group the engine
        // wraps it in, over a line of carets that point nowhere once on one
        // line: only its reason is kept (the pattern is quoted already).
        let text = one_line(&err.to_string());
        let message = match text.strip_prefix("regex parse error:") {
            Some(rest) => rest
                .rsplit_once(" error: ")
                .map_or(rest, |(_, reason)| reason),
            None => &text,
        };
        ToolError::new(
            ErrorCode::InvalidRegex,
            format!("invalid regex '{pattern}': {message}{hint}"),
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
    let results = Arc::new(Mutex::new(Gathered::new(query.keep_lines)));
    walker(query.base, &query.walk)?.run(|| {
        let matcher = matcher.clone();
        let mut searcher = searcher.build();
        let results = Arc::clone(&results);
        let (mode, keep_lines, only) = (query.mode, query.keep_lines, query.only);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file())
                || only.is_some_and(|only| !only.contains(entry.path()))
            {
                return WalkState::Continue;
            }
            let mut sink = Collector::new(mode, keep_lines);
            if searcher
                .search_path(&matcher, entry.path(), &mut sink)
                .is_err()
            {
                return WalkState::Continue;
            }
            let mut results = lock(&results);
            // Binary data seen after a match (a NUL late in the file) stops
            // the search there, as in ripgrep, but keeps what was found:
            // files_with_matches stops at the first match and never sees
            // the NUL, and every mode must agree on whether a file matches.
            if sink.matching_lines == 0 {
                results.binary_files_skipped += usize::from(sink.binary);
            } else {
                results.add(FileHits {
                    path: entry.into_path(),
                    matching_lines: sink.matching_lines,
                    line_count: sink.line_count,
                    lines: sink.lines,
                });
            }
            WalkState::Continue
        })
    });
    let gathered = Arc::try_unwrap(results)
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .map_err(|_| ToolError::new(ErrorCode::Io, "the search did not finish cleanly"))?;
    Ok(gathered.finish())
}

/// Every file's hits as the parallel walk finds them, in any order. Lines
/// are kept only for the files that come first in path order, until they
/// hold `keep_lines` lines: a later file can never reach the page, since
/// files found later can only push it further back.
struct Gathered {
    keep_lines: usize,
    /// Files whose lines are kept: always a prefix of all files in path order.
    kept: BTreeMap<PathBuf, FileHits>,
    kept_line_count: usize,
    /// Files past the kept prefix, lines dropped.
    counted: Vec<FileHits>,
    binary_files_skipped: usize,
}

impl Gathered {
    fn new(keep_lines: usize) -> Gathered {
        Gathered {
            keep_lines,
            kept: BTreeMap::new(),
            kept_line_count: 0,
            counted: Vec::new(),
            binary_files_skipped: 0,
        }
    }

    fn add(&mut self, mut file: FileHits) {
        let past_the_end = self
            .kept
            .last_key_value()
            .is_some_and(|(last, _)| file.path > *last);
        if past_the_end && self.kept_line_count >= self.keep_lines {
            file.lines = Vec::new();
            self.counted.push(file);
            return;
        }
        self.kept_line_count += file.line_count;
        self.kept.insert(file.path.clone(), file);
        // Drop the last kept file while the ones before it fill the page.
        while let Some((_, last)) = self.kept.last_key_value() {
            if self.kept_line_count - last.line_count < self.keep_lines {
                break;
            }
            let (_, mut last) = self.kept.pop_last().expect("not empty");
            self.kept_line_count -= last.line_count;
            last.lines = Vec::new();
            self.counted.push(last);
        }
    }

    fn finish(self) -> GrepHits {
        let mut files: Vec<FileHits> = self.kept.into_values().chain(self.counted).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        GrepHits {
            files,
            binary_files_skipped: self.binary_files_skipped,
        }
    }
}

/// Collects one file's hits; stops early when only the file name matters.
struct Collector {
    mode: GrepMode,
    keep_lines: usize,
    matching_lines: usize,
    line_count: usize,
    lines: Vec<HitLine>,
    binary: bool,
}

impl Collector {
    fn new(mode: GrepMode, keep_lines: usize) -> Collector {
        Collector {
            mode,
            keep_lines,
            matching_lines: 0,
            line_count: 0,
            lines: Vec::new(),
            binary: false,
        }
    }

    fn push(&mut self, number: u64, is_match: bool, bytes: &[u8]) {
        self.line_count += 1;
        if self.lines.len() >= self.keep_lines {
            return;
        }
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
