//! `read_file`: a text file with line numbers, `cat -n` style, paged.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::{BUDGET_CHARS, Tool, lines_of};
use crate::context::Context;
use crate::error::ToolResult;
use crate::fs::text::LineWindow;
use crate::model::FileLines;

/// Lines shown when no limit is given.
const DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut with a marker.
const MAX_LINE_CHARS: usize = 2000;

pub struct ReadFile;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub path: String,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

impl Tool for ReadFile {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str = "A file's numbered lines, paged by offset/limit. For a source file's structure, \
`read` first.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = FileLines;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<FileLines> {
        let path = ctx.resolve_read(&params.path)?;
        let shown = ctx.workspace.display(&path);
        let window = LineWindow {
            offset: params.offset.unwrap_or(1).max(1),
            limit: params.limit.unwrap_or(DEFAULT_LIMIT).max(1),
            max_line_chars: MAX_LINE_CHARS,
            budget_chars: BUDGET_CHARS,
        };
        lines_of(path, shown, window).await
    }

    fn render(output: &FileLines) -> Vec<String> {
        crate::render::file_lines(output)
    }
}
