//! The result of `read`: a file's outline in one of four preview tiers, or
//! the file itself.

use serde::Serialize;

use super::{FileLines, OutlineSource, Position, SymbolKind};

/// How much `read` shows of each symbol.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Preview {
    /// The outline only: `@line:char Kind - name`.
    None,
    /// Each symbol with its condensed declaration.
    #[default]
    Signature,
    /// Containers with their declarations, leaf symbols with their code.
    Expanded,
    /// The file itself, numbered like read_file.
    Raw,
}

/// `read`'s answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "tier", rename_all = "snake_case")]
pub enum ReadResult {
    /// The `none`, `signature` and `expanded` tiers.
    Outline(ReadOutline),
    /// The `raw` tier.
    Raw(FileLines),
}

/// One page of a file's outline, flattened in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadOutline {
    pub path: String,
    pub preview: Preview,
    /// Where the outline came from.
    pub source: OutlineSource,
    /// The line under the breakdown that says so (and anything else worth
    /// knowing: still indexing, syntax errors).
    pub note: Option<String>,
    /// The language tag of code fences (`ts`, `rust`).
    pub fence: String,
    /// How a line comment starts in this file (`//`).
    pub line_comment: String,
    /// The name path asked for with `symbol`.
    pub scope: Option<String>,
    /// The kinds asked for with `kinds` (empty: every kind).
    pub kinds: Vec<SymbolKind>,
    pub max_depth: Option<usize>,
    /// Symbols selected (before paging).
    pub total: usize,
    /// Symbols selected per kind, most first.
    pub breakdown: Vec<KindCount>,
    /// The page: selected symbols, with their unselected ancestors as
    /// context where the page would otherwise start mid-way.
    pub entries: Vec<OutlineEntry>,
    /// Index of the first selected symbol of the page.
    pub offset: usize,
    /// Where to continue, when selected symbols after the page were left out.
    pub next_offset: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindCount {
    pub kind: SymbolKind,
    pub count: usize,
}

/// One outline line, with what the tier shows under it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutlineEntry {
    /// 0 for a root symbol.
    pub depth: usize,
    pub kind: SymbolKind,
    pub name: String,
    /// Where the name starts.
    pub position: Position,
    /// Shown only to place what follows (a parent outside the selection).
    pub context: bool,
    /// The condensed declaration (signature and expanded tiers).
    pub signature: Option<String>,
    /// A leaf's code (expanded tier).
    pub code: Option<CodeExcerpt>,
}

/// Lines of code from a file, maybe cut.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CodeExcerpt {
    /// 1-based number of `lines[0]`.
    pub start_line: u32,
    /// The lines, without terminators.
    pub lines: Vec<String>,
    /// Lines of the symbol left out after the last one shown.
    pub omitted_lines: usize,
}
