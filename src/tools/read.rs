//! `read`: the structure of one file in four preview tiers (outline only,
//! signatures, expanded code of leaf symbols, the raw file).
//!
//! The outline comes from tree-sitter (`syntax`); a later source (a ready
//! language server) fills the same `ReadOutline`, so this file chooses what
//! goes on the page (scope, kinds, depth, offset, budget) and the renderer
//! never knows where the symbols came from.

use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::name_path::resolve_name_path;
use super::outline::{FileOutline, outline};
use super::page::Pager;
use super::{BUDGET_CHARS, Tool, lines_of, parse_kinds};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::text::{LineWindow, cut_line};
use crate::model::{
    KindCount, OutlineEntry, OutlineSymbol, Preview, ReadOutline, ReadResult, SymbolKind,
};
use crate::syntax;

/// Lines shown in the raw tier when no limit is given (as read_file).
const RAW_DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut with a marker (raw tier, as read_file).
const RAW_MAX_LINE_CHARS: usize = 2000;
/// A leaf's code is cut after this many lines (expanded tier).
pub const EXCERPT_LINES: usize = 10;
/// Longer code lines are cut with a marker (expanded tier).
const CODE_MAX_LINE_CHARS: usize = 400;

pub struct Read;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    #[serde(alias = "path")]
    pub file: String,
    pub preview: Option<Preview>,
    /// Name path: `Registry.add`, `impl Ledger/total`
    pub symbol: Option<String>,
    /// 1: top level only
    pub max_depth: Option<usize>,
    /// ["Method"]
    pub kinds: Option<Vec<String>>,
    /// Symbols to skip (raw: first line)
    pub offset: Option<usize>,
    /// Most symbols (raw: lines)
    pub limit: Option<usize>,
}

impl Tool for Read {
    const NAME: &'static str = "read";
    const DESCRIPTION: &'static str = "A file's outline: declarations (preview signature), leaf code (expanded), names (none) \
or numbered lines (raw). Read it before the code; also in node_modules and crates.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = ReadResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<ReadResult> {
        read(&ctx, params).await
    }

    fn render(output: &ReadResult) -> Vec<String> {
        crate::render::read(output)
    }
}

async fn read(ctx: &Context, params: Params) -> ToolResult<ReadResult> {
    let path = ctx.resolve_read(&params.file)?;
    let shown = ctx.workspace.display(&path);
    let preview = params.preview.unwrap_or_default();
    if preview == Preview::Raw {
        if params.symbol.is_some() || params.kinds.is_some() || params.max_depth.is_some() {
            return Err(ToolError::new(
                ErrorCode::InvalidParams,
                "symbol, kinds and max_depth narrow the outline tiers; with preview \"raw\" page with offset (first line) and limit",
            ));
        }
        let window = LineWindow {
            offset: params.offset.unwrap_or(1).max(1),
            limit: params.limit.unwrap_or(RAW_DEFAULT_LIMIT).max(1),
            max_line_chars: RAW_MAX_LINE_CHARS,
            budget_chars: BUDGET_CHARS,
        };
        return lines_of(path, shown, window).await.map(ReadResult::Raw);
    }
    let kinds = parse_kinds(params.kinds.as_deref())?;
    if params.max_depth == Some(0) {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            "max_depth must be at least 1 (1 shows the top-level symbols only)",
        ));
    }
    let file = outline(ctx, &path, &shown).await?;
    let note = match &file {
        FileOutline::TreeSitter(parsed) => {
            let mut note = "Outline from tree-sitter".to_string();
            if parsed.has_syntax_errors() {
                note.push_str("; the file has syntax errors, so some symbols may be missing");
            }
            note
        }
        FileOutline::Server {
            outline,
            index_complete,
            unparsed,
        } => {
            let mut note = format!("Outline from {}", outline.server);
            if unparsed.is_some() {
                note.push_str(" (tree-sitter could not parse the whole file)");
            }
            if !index_complete {
                note.push_str(" (still indexing: it may be incomplete)");
            }
            note
        }
    };
    let request = Request {
        preview,
        scope: params.symbol,
        kinds,
        max_depth: params.max_depth,
        offset: params.offset.unwrap_or(0),
        limit: params.limit,
    };
    let (fence, line_comment) = match file.language() {
        Some(language) => (language.fence(), language.line_comment()),
        None => (fence_for(&path), "//"),
    };
    let page = outline_page(&file, &request, &shown, (fence, line_comment))?;
    Ok(ReadResult::Outline(ReadOutline {
        path: shown,
        preview,
        source: file.source(),
        note: Some(note),
        fence: fence.to_string(),
        line_comment: line_comment.to_string(),
        scope: request.scope,
        kinds: request.kinds,
        max_depth: request.max_depth,
        ..page
    }))
}

/// A code fence's language tag for a file sextant has no grammar for: its
/// extension (`py`, `go`), which is what Markdown renderers know.
fn fence_for(path: &Path) -> &str {
    path.extension().and_then(|e| e.to_str()).unwrap_or("")
}

/// What the caller asked to see of an outline.
struct Request {
    preview: Preview,
    scope: Option<String>,
    kinds: Vec<SymbolKind>,
    max_depth: Option<usize>,
    offset: usize,
    limit: Option<usize>,
}

/// A symbol of the selection, flattened in source order.
struct Item<'a> {
    symbol: &'a OutlineSymbol,
    depth: usize,
    parent: Option<usize>,
    selected: bool,
}

/// Chooses the page of `outline` that `request` asks for and fits the
/// budget. Fills everything of a `ReadOutline` but the file's identity.
fn outline_page(
    file: &FileOutline,
    request: &Request,
    shown: &str,
    (fence, line_comment): (&str, &str),
) -> ToolResult<ReadOutline> {
    let outline = file.symbols();
    let roots = match &request.scope {
        Some(path) => resolve_name_path(outline, path, shown, file.path_separator())?.symbols,
        None => outline.iter().collect(),
    };
    let mut items = Vec::new();
    for root in roots {
        flatten(root, 0, None, request, &mut items);
    }
    let selected: Vec<usize> = (0..items.len()).filter(|&i| items[i].selected).collect();
    let total = selected.len();
    if request.offset > 0 && request.offset >= total {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!(
                "{shown} has {total} symbols here; offset {} is past the end",
                request.offset
            ),
        ));
    }

    let mut breakdown: Vec<KindCount> = Vec::new();
    for &i in &selected {
        let kind = items[i].symbol.kind;
        match breakdown.iter_mut().find(|k| k.kind == kind) {
            Some(k) => k.count += 1,
            None => breakdown.push(KindCount { kind, count: 1 }),
        }
    }
    breakdown.sort_by(|a, b| b.count.cmp(&a.count).then(a.kind.cmp(&b.kind)));

    let mut entries = Vec::new();
    let mut emitted = vec![false; items.len()];
    // The header and the paging line take about this much.
    let mut pager = Pager::new(request.offset, request.limit).reserve(300);
    let mut printed_through = 0u32; // the last code line shown
    for &i in &selected {
        if pager.skip() {
            continue;
        }
        // Ancestors not on the page yet come first, as context.
        let mut chain = Vec::new();
        let mut up = items[i].parent;
        while let Some(p) = up {
            if emitted[p] {
                break;
            }
            chain.push(p);
            up = items[p].parent;
        }
        let mut page_entries: Vec<OutlineEntry> = chain
            .iter()
            .rev()
            .map(|&p| context_entry(&items[p]))
            .collect();
        let (entry, through) = full_entry(file, &items[i], request.preview, printed_through);
        page_entries.push(entry);
        let size: usize = page_entries
            .iter()
            .map(|entry| crate::render::outline_entry(entry, fence, line_comment).len())
            .sum();
        if !pager.admit(size) {
            break;
        }
        printed_through = through;
        for &p in &chain {
            emitted[p] = true;
        }
        emitted[i] = true;
        entries.extend(page_entries);
    }

    Ok(ReadOutline {
        path: String::new(),
        preview: request.preview,
        source: file.source(),
        note: None,
        fence: String::new(),
        line_comment: String::new(),
        scope: None,
        kinds: Vec::new(),
        max_depth: None,
        total,
        breakdown,
        entries,
        offset: request.offset,
        next_offset: pager.page(total).next_offset,
    })
}

fn flatten<'a>(
    symbol: &'a OutlineSymbol,
    depth: usize,
    parent: Option<usize>,
    request: &Request,
    items: &mut Vec<Item<'a>>,
) {
    if request.max_depth.is_some_and(|max| depth >= max) {
        return;
    }
    let index = items.len();
    items.push(Item {
        symbol,
        depth,
        parent,
        selected: request.kinds.is_empty() || request.kinds.contains(&symbol.kind),
    });
    for child in &symbol.children {
        flatten(child, depth + 1, Some(index), request, items);
    }
}

fn context_entry(item: &Item) -> OutlineEntry {
    OutlineEntry {
        depth: item.depth,
        kind: item.symbol.kind,
        name: item.symbol.name.clone(),
        position: item.symbol.selection_range.start,
        context: true,
        signature: None,
        code: None,
    }
}

/// The entry of a selected symbol, and the last code line shown so far.
/// A leaf's code starts after the last line already shown, so no line is
/// printed twice; a leaf with nothing left to show gets its signature.
fn full_entry(
    file: &FileOutline,
    item: &Item,
    preview: Preview,
    printed_through: u32,
) -> (OutlineEntry, u32) {
    let symbol = item.symbol;
    let mut entry = OutlineEntry {
        context: false,
        ..context_entry(item)
    };
    let mut through = printed_through;
    match preview {
        Preview::Expanded if syntax::is_leaf(symbol) => {
            let (first, last) = file.line_span(symbol.range);
            let first = first.max(printed_through + 1);
            if first > last {
                // Its lines are on screen already (enum members on one
                // line, a parameter property in its constructor's line).
                entry.signature = file.signature(symbol);
            } else {
                let mut code = file.excerpt(first, last, EXCERPT_LINES);
                for line in &mut code.lines {
                    if let (cut, Some(full)) = cut_line(line, CODE_MAX_LINE_CHARS) {
                        *line = format!(
                            "{cut} [... line cut at {CODE_MAX_LINE_CHARS} of {full} characters]"
                        );
                    }
                }
                through = code.start_line + code.lines.len() as u32 - 1;
                entry.code = Some(code);
            }
        }
        Preview::Signature | Preview::Expanded => entry.signature = file.signature(symbol),
        Preview::None | Preview::Raw => {}
    }
    (entry, through)
}
