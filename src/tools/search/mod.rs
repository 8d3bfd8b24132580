//! `search`: symbols by name across the workspace, from every language
//! server the workspace needs (started on first use, asked at once), and
//! from the tree-sitter symbol index for the languages whose server cannot
//! answer yet (missing, failed, still starting), so the first search of a
//! session never waits long for a cold server.
//!
//! Matches are ranked exact name, then prefix, then case-insensitive
//! substring, then fuzzy (the query's characters in order); a page holds
//! the best from its offset, its files by their best match, symbols by
//! line within a file.

mod ask;
mod page;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::GlobMatcher;
use schemars::JsonSchema;
use serde::Deserialize;

use self::ask::Gathered;
use self::page::Parses;
use super::page::Pager;
use super::{Tool, blocking, parse_kinds};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::fs::stamped::Watch;
use crate::model::{Position, SearchResult, SymbolKind};

/// Matches shown when no limit is given.
const DEFAULT_LIMIT: usize = 50;

pub struct Search;

// How much `search` shows of each match: names, or names and declarations.
// (A `//` comment: a doc comment would land in every tools/list.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchPreview {
    None,
    #[default]
    Signature,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub query: String,
    /// ["Class", "Function"]
    pub kinds: Option<Vec<String>>,
    /// A folder, file or glob
    pub path: Option<String>,
    pub preview: Option<SearchPreview>,
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    /// Also node_modules and crates
    pub include_external: Option<bool>,
}

impl Tool for Search {
    const NAME: &'static str = "search";
    const DESCRIPTION: &'static str = "Where classes, functions, methods... are defined, by name or part of one, \
workspace-wide, best first.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = SearchResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<SearchResult> {
        search(ctx, params).await
    }

    fn render(output: &SearchResult) -> Vec<String> {
        crate::render::search(output)
    }
}

/// One match before paging: where, what, and how well it matches.
#[derive(Debug, Clone)]
struct Found {
    path: PathBuf,
    position: Position,
    kind: SymbolKind,
    name: String,
    container: Option<String>,
    rank: u8,
    /// A server's hit, not yet given tree-sitter's kind and name path.
    from_server: bool,
    /// The tree-sitter index's hit, not a server's.
    from_index: bool,
}

async fn search(ctx: Arc<Context>, params: Params) -> ToolResult<SearchResult> {
    let query = params.query.trim().to_string();
    if query.is_empty() {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            "query is empty; pass a name or part of one",
        ));
    }
    let kinds = parse_kinds(params.kinds.as_deref())?;
    let scope = Scope::new(&ctx, params.path.as_deref())?;
    let include_external = params.include_external.unwrap_or(false);
    let preview = params.preview.unwrap_or_default();
    let (offset, limit) = (
        params.offset.unwrap_or(0),
        params.limit.unwrap_or(DEFAULT_LIMIT).max(1),
    );

    let gathered = ask::gather(&ctx, &query, include_external).await?;
    let wanted = Wanted {
        query,
        kinds,
        scope,
        include_external,
        preview,
        offset,
        limit,
    };
    // What is left is the file work of the page: on a workspace searched
    // before, parses kept by their files' stamps, taken where the call
    // runs (a trip to the blocking pool and back is two thread switches,
    // a fifth of a millisecond of a search of the TypeScript SDK). Where a
    // file must be read and parsed, the answer is made in one trip to the
    // blocking pool instead, from the matches as gathered: the attempt
    // works on a copy, so it is tried only where the copy is small.
    if gathered.found.len() <= IN_PLACE_MATCHES {
        let heard = ctx.lsp.heard();
        let parses = Parses::kept_only(&ctx.parsed, heard.as_ref().map(|h| h as &dyn Watch));
        let answered = super::in_place(|| answer(&ctx, gathered.clone(), &wanted, &parses));
        if !parses.missed() {
            return answered;
        }
    }
    blocking(move || {
        let heard = ctx.lsp.heard();
        let parses = Parses::reading(&ctx.parsed, heard.as_ref().map(|h| h as &dyn Watch));
        answer(&ctx, gathered, &wanted, &parses)
    })
    .await
}

/// The most matches a search answers from kept parses where the call
/// runs (see `search`): their copy, three allocations a match, took 0.11
/// ms for 512 in a release build (copied and dropped), so about 0.05 for
/// 256, a quarter of the trip it spares.
const IN_PLACE_MATCHES: usize = 256;

/// What a search asked for, its query and parameters checked.
struct Wanted {
    query: String,
    kinds: Vec<SymbolKind>,
    scope: Scope,
    include_external: bool,
    preview: SearchPreview,
    offset: usize,
    limit: usize,
}

/// The page of the matches gathered that the search keeps (of its kinds,
/// in its scope), ranked.
fn answer(
    ctx: &Context,
    gathered: Gathered,
    wanted: &Wanted,
    parses: &Parses,
) -> ToolResult<SearchResult> {
    let Gathered {
        mut found,
        mut sources,
        notes,
    } = gathered;
    let (kinds, offset, query) = (&wanted.kinds, wanted.offset, &wanted.query);
    // Servers name kinds their own way (rust-analyzer: a method is a
    // Function): filtering by kind needs the kinds `read` shows.
    if !kinds.is_empty() {
        found = page::same_as_outlines(parses, found);
    }
    found.retain(|f| {
        (kinds.is_empty() || kinds.contains(&f.kind))
            && wanted.scope.contains(ctx, &f.path)
            && (wanted.include_external || !is_external(ctx, &f.path))
    });
    // Two projects of one server answer the same symbol: keep one.
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert((f.path.clone(), f.position)));
    // The index is a source only if one of its hits is kept.
    if !found.iter().any(|f| f.from_index) {
        sources.retain(|source| source != ask::INDEX);
    }
    let found = page::declarations_first(parses, found);
    let ordered = order(found);
    let total = ordered.iter().map(|(_, matches)| matches.len()).sum();
    let total_files = ordered.len();
    if offset > 0 && offset >= total {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!("{total} matches for query \"{query}\"; offset {offset} is past the end"),
        ));
    }
    let pager = Pager::new(offset, Some(wanted.limit));
    let (files, next_offset) = page::page(ctx, parses, &ordered, pager, wanted.preview);
    Ok(SearchResult {
        query: query.clone(),
        total,
        total_files,
        sources,
        notes,
        files,
        offset,
        next_offset,
    })
}

/// How well `name` matches `query`: 0 the same name, 1 the same but for
/// case, 2 a prefix, 3 a substring (case-insensitive), 4 the query's
/// characters in order; `None` otherwise.
pub fn rank(name: &str, query: &str) -> Option<u8> {
    if name == query {
        return Some(0);
    }
    // Every name of the index is ranked on every search (tens of
    // thousands on a real workspace): most are ASCII, compared in place.
    if name.is_ascii() && query.is_ascii() {
        return rank_ascii(name.as_bytes(), query.as_bytes());
    }
    rank_lowercased(&name.to_lowercase(), &query.to_lowercase())
}

/// `rank` of names that differ, both lowercased.
fn rank_lowercased(name: &str, query: &str) -> Option<u8> {
    if name == query {
        Some(1)
    } else if name.starts_with(query) {
        Some(2)
    } else if name.contains(query) {
        Some(3)
    } else {
        let mut rest = name.chars();
        query.chars().all(|q| rest.any(|c| c == q)).then_some(4)
    }
}

/// `rank` of ASCII names that differ, ignoring case without a copy.
fn rank_ascii(name: &[u8], query: &[u8]) -> Option<u8> {
    // Every rank holds the query's characters in order: most names fail
    // that, in one pass, and are ranked no further.
    let mut rest = name.iter();
    if !query
        .iter()
        .all(|q| rest.any(|c| c.eq_ignore_ascii_case(q)))
    {
        return None;
    }
    let starts = name.len() >= query.len() && name[..query.len()].eq_ignore_ascii_case(query);
    if starts && name.len() == query.len() {
        Some(1)
    } else if starts {
        Some(2)
    } else if name
        .windows(query.len())
        .any(|w| w.eq_ignore_ascii_case(query))
    {
        // (An empty query is a prefix of every name: never here.)
        Some(3)
    } else {
        Some(4)
    }
}

/// Files by their best match, then path; matches by position within a file.
fn order(found: Vec<Found>) -> Vec<(PathBuf, Vec<Found>)> {
    let mut by_file: HashMap<PathBuf, Vec<Found>> = HashMap::new();
    for f in found {
        by_file.entry(f.path.clone()).or_default().push(f);
    }
    let mut files: Vec<(PathBuf, Vec<Found>)> = by_file.into_iter().collect();
    for (_, matches) in &mut files {
        matches.sort_by_key(|f| f.position);
    }
    files.sort_by(|(a, am), (b, bm)| {
        let best = |m: &[Found]| m.iter().map(|f| f.rank).min().unwrap_or(u8::MAX);
        best(am).cmp(&best(bm)).then_with(|| a.cmp(b))
    });
    files
}

/// Where a search looks: everywhere, under a folder (or one file), or the
/// paths a glob matches (relative to the workspace root).
enum Scope {
    All,
    Under(PathBuf),
    Glob(GlobMatcher),
}

impl Scope {
    fn new(ctx: &Context, path: Option<&str>) -> ToolResult<Scope> {
        let Some(path) = path.map(str::trim).filter(|p| !p.is_empty()) else {
            return Ok(Scope::All);
        };
        if path.contains(['*', '?', '[', '{']) {
            let glob = globset::GlobBuilder::new(path.trim_start_matches("./"))
                .literal_separator(true)
                .build()
                .map_err(|err| {
                    ToolError::new(
                        ErrorCode::InvalidGlob,
                        format!("path {path}: {}", err.kind()),
                    )
                })?;
            return Ok(Scope::Glob(glob.compile_matcher()));
        }
        Ok(Scope::Under(ctx.resolve_read(path)?))
    }

    fn contains(&self, ctx: &Context, path: &Path) -> bool {
        match self {
            Scope::All => true,
            Scope::Under(under) => path.starts_with(under),
            Scope::Glob(glob) => glob.is_match(ctx.workspace.display(path)),
        }
    }
}

/// A library file rather than the workspace's own: outside the root, or
/// in a dependency folder.
fn is_external(ctx: &Context, path: &Path) -> bool {
    match path.strip_prefix(ctx.workspace.root()) {
        Ok(rest) => crate::fs::walk::in_dependency_folder(rest),
        Err(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_rank_exact_then_prefix_then_substring_then_fuzzy() {
        assert_eq!(rank("Registry", "Registry"), Some(0));
        assert_eq!(rank("registry", "Registry"), Some(1));
        assert_eq!(rank("RegistryItem", "registry"), Some(2));
        assert_eq!(rank("ShapeRegistry", "registry"), Some(3));
        assert_eq!(rank("Registry", "rgstr"), Some(4));
        assert_eq!(rank("Registry", "rgz"), None);
        assert_eq!(rank("Größe", "GRÖ"), Some(2));
        assert_eq!(rank("Registry", ""), Some(2));
    }

    proptest::proptest! {
        /// ASCII names ranked in place rank as lowercased copies do.
        #[test]
        fn ascii_names_rank_as_their_lowercased_copies(
            name in "[a-cA-C_]{0,8}",
            query in "[a-cA-C_]{0,4}",
        ) {
            let expected = match name == query {
                true => Some(0),
                false => rank_lowercased(&name.to_lowercase(), &query.to_lowercase()),
            };
            proptest::prop_assert_eq!(rank(&name, &query), expected);
        }

        /// The index passes over a name by its letters only where rank
        /// finds no match: any text, `K` (the Kelvin sign) and `İ` among
        /// it, which lowercase into ASCII letters.
        #[test]
        fn a_name_passed_over_by_its_letters_has_no_rank(
            name in "[a-cA-C_$1 <\u{212A}\u{130}é]{0,8}",
            query in "[a-cA-C_$1 kKiIé]{0,4}",
        ) {
            use crate::index::Letters;
            if !Letters::of_name(&name).holds(Letters::of_query(&query)) {
                proptest::prop_assert_eq!(rank(&name, &query), None);
            }
        }
    }
}
