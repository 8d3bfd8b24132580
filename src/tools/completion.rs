//! `completion`: what may follow the cursor (right after `value.`), from the
//! file's language server, best first, grouped by LSP's completion item
//! kinds, each `label - detail` with the first line of its documentation
//! when that is short.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::Need;
use crate::lsp::complete::completion as complete;
use crate::model::{CompletionEntry, CompletionGroup, CompletionResult, Position};
use crate::syntax::condense;

/// Items shown when no limit is given.
const DEFAULT_LIMIT: usize = 50;

/// At most this many items are resolved for their details (the best
/// ones): a long list beyond it is for scanning names.
const MAX_RESOLVED: usize = 100;

/// A detail is cut at this many characters; documentation longer than
/// this on its first line is left out.
const MAX_DETAIL_CHARS: usize = 120;

pub struct Completion;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub file: String,
    pub line: u32,
    /// Right after `value.`
    pub character: u32,
    pub limit: Option<usize>,
}

impl Tool for Completion {
    const NAME: &'static str = "completion";
    const DESCRIPTION: &'static str =
        "What can follow the cursor (members after `value.`), best first.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = CompletionResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<CompletionResult> {
        completion(&ctx, params).await
    }

    fn render(output: &CompletionResult) -> Vec<String> {
        crate::render::completion(output)
    }
}

async fn completion(ctx: &Context, params: Params) -> ToolResult<CompletionResult> {
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT).max(1);
    let path = ctx.resolve_read(&params.file)?;
    let shown = ctx.workspace.display(&path);
    let session = ctx.lsp.open(&path, Need::PROJECT).await?;
    let unloaded = session.unloaded_note("completions");
    let index = session.lines();
    let lines = index.line_count() - usize::from(index.text().ends_with('\n'));
    let position = Position::new(params.line, params.character);
    if params.line == 0 || params.character == 0 {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            "line and character count from 1",
        ));
    }
    let Some(text) = index
        .line(params.line as usize - 1)
        .filter(|_| params.line as usize <= lines.max(1))
    else {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "line {} is past the end of {shown} ({lines} lines)",
                params.line
            ),
        ));
    };
    let length = text.chars().count();
    if params.character as usize > length + 1 {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "character {} is past the end of line {} of {shown} ({length} characters; the cursor may stand at {})",
                params.character,
                params.line,
                length + 1
            ),
        ));
    }
    let found = complete(&session, position, limit.min(MAX_RESOLVED)).await?;
    let total = found.items.len();
    let mut groups: Vec<CompletionGroup> = Vec::new();
    for item in found.items.into_iter().take(limit) {
        let entry = CompletionEntry {
            detail: item
                .detail
                .map(|d| condense(&d, MAX_DETAIL_CHARS))
                .filter(|d| !d.is_empty() && *d != item.label),
            documentation: item.documentation.as_deref().and_then(first_line),
            label: item.label,
        };
        match groups.iter_mut().find(|g| g.kind == item.kind) {
            Some(group) => group.items.push(entry),
            None => groups.push(CompletionGroup {
                kind: item.kind,
                items: vec![entry],
            }),
        }
    }
    let mut notes: Vec<String> = unloaded.into_iter().collect();
    if total == 0
        && let Some(note) = session.unlinked_note().await
    {
        notes.push(note);
    }
    if found.unresolved > 0 {
        let items = crate::render::count(found.unresolved, "item", "items");
        notes.push(match &found.resolve_error {
            Some(err) => format!("the details of {items} are missing: {err}"),
            None => format!(
                "{} did not give the details of {items} in time; they are shown without",
                session.server()
            ),
        });
    }
    if !session.index_complete() {
        notes.push(format!(
            "{} is still indexing; completions may be missing",
            session.server()
        ));
    }
    Ok(CompletionResult {
        path: shown,
        position,
        total,
        groups,
        incomplete: found.incomplete,
        notes,
    })
}

/// The documentation's first line of prose, when short enough to show.
fn first_line(documentation: &str) -> Option<String> {
    let line = documentation
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())?;
    if line.starts_with("```") || line.chars().count() > MAX_DETAIL_CHARS {
        return None;
    }
    Some(super::inspect::plain_markdown_line(line))
}
