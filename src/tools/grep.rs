//! `grep`: ripgrep's engine and conventions, paged.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::page::Pager;
use super::{Tool, blocking};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::grep::{GrepHits, GrepQuery, search};
use crate::fs::walk::WalkOptions;
use crate::fs::workspace::Workspace;
use crate::model::{GrepEntry, GrepMode, GrepResult};
use crate::render::count;

const DEFAULT_HEAD_LIMIT: usize = 250;

pub struct Grep;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Rust regex
    pub pattern: String,
    pub path: Option<String>,
    /// `*.ts`, `!*.d.ts`
    pub glob: Option<String>,
    /// ts, rust, ...
    #[serde(rename = "type")]
    pub file_type: Option<String>,
    pub output_mode: Option<GrepMode>,
    #[serde(rename = "-A")]
    pub after: Option<usize>,
    #[serde(rename = "-B")]
    pub before: Option<usize>,
    #[serde(rename = "-C")]
    pub context: Option<usize>,
    #[serde(rename = "-i")]
    pub case_insensitive: Option<bool>,
    #[serde(rename = "-n")]
    pub line_numbers: Option<bool>,
    pub multiline: Option<bool>,
    pub head_limit: Option<usize>,
    pub offset: Option<usize>,
}

impl Tool for Grep {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str =
        "Regex search of file contents (ripgrep). For a symbol's uses, `references` is exact.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = GrepResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<GrepResult> {
        blocking(move || grep(&ctx, &params, None)).await
    }

    fn render(output: &GrepResult) -> Vec<String> {
        crate::render::grep(output)
    }
}

/// The search, over every file under `path`, or only over `only` (a
/// pipe's files) when given.
pub(crate) fn grep(
    ctx: &Context,
    params: &Params,
    only: Option<&std::collections::HashSet<std::path::PathBuf>>,
) -> ToolResult<GrepResult> {
    let base = ctx.resolve_read(params.path.as_deref().unwrap_or("."))?;
    let mode = params.output_mode.unwrap_or(GrepMode::FilesWithMatches);
    let context = params.context.unwrap_or(0);
    let before = params.before.unwrap_or(context);
    let after = params.after.unwrap_or(context);
    let globs: Vec<String> = params.glob.iter().cloned().collect();
    let offset = params.offset.unwrap_or(0);
    let limit = params.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT).max(1);
    let query = GrepQuery {
        pattern: &params.pattern,
        base: &base,
        walk: WalkOptions {
            include_ignored: false,
            globs: &globs,
            file_type: params.file_type.as_deref(),
        },
        mode,
        case_insensitive: params.case_insensitive.unwrap_or(false),
        multiline: params.multiline.unwrap_or(false),
        before_context: before,
        after_context: after,
        keep_lines: offset.saturating_add(limit),
        only,
    };
    let hits = search(&query)?;
    let result = page(
        &ctx.workspace,
        params,
        mode,
        before + after > 0 && mode == GrepMode::Content,
        hits,
    );
    if offset > 0 && offset >= result.total_entries && result.total_entries > 0 {
        let entries = match mode {
            GrepMode::Content => count(result.total_entries, "output line", "output lines"),
            GrepMode::FilesWithMatches | GrepMode::Count => {
                count(result.total_entries, "file", "files")
            }
        };
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "the search for {} gives {entries}; offset {offset} is past the last one",
                params.pattern
            ),
        ));
    }
    Ok(result)
}

/// Cuts the whole search down to one page, within the output budget.
fn page(
    workspace: &Workspace,
    params: &Params,
    mode: GrepMode,
    has_context: bool,
    hits: GrepHits,
) -> GrepResult {
    let offset = params.offset.unwrap_or(0);
    let limit = params.head_limit.unwrap_or(DEFAULT_HEAD_LIMIT).max(1);
    let total_files = hits.files.len();
    let total_matching_lines = hits.files.iter().map(|f| f.matching_lines).sum();
    let total_entries = match mode {
        GrepMode::Content => hits.files.iter().map(|f| f.line_count).sum(),
        GrepMode::FilesWithMatches | GrepMode::Count => total_files,
    };
    let line_numbers = params.line_numbers.unwrap_or(true);
    let mut pager = Pager::new(offset, Some(limit));
    let mut entries = Vec::new();
    'files: for file in hits.files {
        let file_entries = match mode {
            GrepMode::Content => file.line_count,
            _ => 1,
        };
        if pager.skip_many(file_entries) {
            continue;
        }
        let path = workspace.display(&file.path);
        let file_entries: Vec<GrepEntry> = match mode {
            GrepMode::FilesWithMatches => vec![GrepEntry::File { path }],
            GrepMode::Count => vec![GrepEntry::Count {
                path,
                count: file.matching_lines,
            }],
            GrepMode::Content => file
                .lines
                .into_iter()
                .map(|line| GrepEntry::Line {
                    path: path.clone(),
                    line: line.number,
                    is_match: line.is_match,
                    text: line.text,
                    cut_from: line.cut_from,
                })
                .collect(),
        };
        for entry in file_entries {
            if pager.skip() {
                continue;
            }
            if !pager.admit(crate::render::grep_entry(&entry, line_numbers).len()) {
                break 'files;
            }
            entries.push(entry);
        }
    }
    GrepResult {
        pattern: params.pattern.clone(),
        mode,
        line_numbers,
        has_context,
        entries,
        offset,
        total_entries,
        total_files,
        total_matching_lines,
        binary_files_skipped: hits.binary_files_skipped,
    }
}
