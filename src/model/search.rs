//! The result of `search`: symbols across the workspace, grouped by file.

use serde::Serialize;

use super::{Position, SymbolKind};

/// One page of a workspace symbol search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    pub query: String,
    /// Matches in all (before paging) and the files they are in.
    pub total: usize,
    pub total_files: usize,
    /// Where the results came from: servers' names, `tree-sitter`.
    pub sources: Vec<String>,
    /// What is incomplete about them (`rust: its server is still
    /// starting; its results are from tree-sitter`).
    pub notes: Vec<String>,
    /// The page: files by best match, symbols by line within a file.
    pub files: Vec<SearchFile>,
    /// Index of the first match of the page.
    pub offset: usize,
    /// Where to continue, when matches after the page were left out.
    pub next_offset: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchFile {
    pub path: String,
    /// The file's matches in all (the page may show fewer).
    pub total: usize,
    pub symbols: Vec<SearchSymbol>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchSymbol {
    /// Where the name starts.
    pub position: Position,
    pub kind: SymbolKind,
    /// The name, with its container's name path (`Registry.add`).
    pub name: String,
    /// The condensed declaration (the `signature` preview).
    pub signature: Option<String>,
}
