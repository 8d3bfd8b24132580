//! `search`: symbols by name across the workspace, from every language
//! server the workspace needs (started on first use, asked at once), and
//! from the tree-sitter symbol index for the languages whose server cannot
//! answer yet (missing, failed, still starting), so the first search of a
//! session never waits long for a cold server.
//!
//! Matches are ranked exact name, then prefix, then case-insensitive
//! substring, then fuzzy (the query's characters in order); files come by
//! their best match, symbols by line within a file.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use globset::GlobMatcher;
use schemars::JsonSchema;
use serde::Deserialize;

use super::address::declared_at;
use super::{BUDGET_CHARS, Tool, blocking, parse_kinds};
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::index::{IndexAnswer, IndexHit, SymbolIndex};
use crate::lsp::LspError;
use crate::lsp::navigate::projects_loaded;
use crate::lsp::requests::{SymbolHit, workspace_symbols};
use crate::model::{
    OutlineSymbol, Position, Range, SearchFile, SearchResult, SearchSymbol, SymbolKind,
};
use crate::progress;
use crate::syntax::{self, Language, LineIndex};

/// How long a search waits for a language server that is not ready: past
/// this its language is answered from the tree-sitter index (the server
/// goes on starting for the next search).
pub const SERVER_WAIT: Duration = Duration::from_millis(1500);

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
    /// Default 50
    pub limit: Option<usize>,
    pub offset: Option<usize>,
    /// Also node_modules and crates
    pub include_external: Option<bool>,
}

impl Tool for Search {
    const NAME: &'static str = "search";
    const DESCRIPTION: &'static str = "Where classes, functions, methods... are defined, by name or part of one, across the \
workspace: `@line:char Kind - name` and declaration, best first.";
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

    // The index hears of files changed from now on.
    ctx.lsp.watch_files();
    let deadline = tokio::time::Instant::now() + SERVER_WAIT;
    let projects = ctx.lsp.projects().await;
    let asks: Vec<Asking> = projects
        .into_iter()
        .filter_map(|file| {
            let language = ctx.lsp.config().language_for(&file)?.name.clone();
            let (ctx, sink) = (Arc::clone(&ctx), progress::current());
            // A server's library search (rust-analyzer's `query*`) leaves
            // the workspace out: ask both.
            let queries = match &ctx.lsp.config().language_for(&file)?.library_query_suffix {
                Some(suffix) if include_external => vec![query.clone(), format!("{query}{suffix}")],
                _ => vec![query.clone()],
            };
            // Spawned: a server still starting at the deadline goes on
            // starting, for the next search.
            let (asked_tx, asked) = tokio::sync::oneshot::channel();
            let server = Arc::new(OnceLock::new());
            let named = Arc::clone(&server);
            let ask = async move { ask(&ctx, &file, &queries, deadline, asked_tx, &named).await };
            let task = tokio::spawn(async move {
                match sink {
                    Some(sink) => progress::with_sink(sink, ask).await,
                    None => ask.await,
                }
            });
            Some(Asking {
                language,
                server,
                asked,
                task,
            })
        })
        .collect();
    // The tree-sitter index answers for the languages no server answers
    // for. Built meanwhile on the first search (servers are starting then,
    // and a later fallback finds it warm); after that asked only when a
    // server did not answer, so it takes no time from one that did.
    let early_index = (ctx.index.size().0 == 0).then(|| query_index(&ctx, &ctx.index, &query));
    // npm packages' declarations, which no server searches, meanwhile.
    let dependencies = include_external.then(|| query_index(&ctx, &ctx.dependencies, &query));

    let mut found: Vec<Found> = Vec::new();
    let mut sources: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    // Languages whose servers answered; the others are the index's.
    let mut answered: HashSet<String> = HashSet::new();
    let mut fallen_back: Vec<(String, String)> = Vec::new();
    for Asking {
        language,
        server,
        asked,
        task,
    } in asks
    {
        // A server that was asked by the deadline is waited for (its request
        // has its own timeout); one still starting is not.
        let asked_in_time = tokio::time::timeout_at(deadline + Duration::from_millis(100), asked)
            .await
            .is_ok();
        let outcome = if asked_in_time || task.is_finished() {
            Ok(task.await)
        } else {
            Err(())
        };
        match outcome {
            Ok(Ok(Ok(asked))) => {
                if !asked.index_complete {
                    push_once(
                        &mut notes,
                        format!(
                            "{} was still indexing; its results may be incomplete",
                            asked.server
                        ),
                    );
                }
                push_once(&mut sources, asked.server.clone());
                answered.insert(language);
                found.extend(asked.hits.into_iter().filter_map(|hit| {
                    Some(Found {
                        rank: rank(&hit.name, &query)?,
                        container: hit.container,
                        path: hit.path,
                        position: hit.range.start,
                        kind: hit.kind,
                        name: hit.name,
                        from_server: true,
                    })
                }));
            }
            Ok(Ok(Err(LspError::Starting { server }))) => {
                fallen_back.push((language, format!("{server} is still starting")))
            }
            Ok(Ok(Err(LspError::LoadingProjects { server }))) => {
                fallen_back.push((language, format!("{server} is still loading its projects")))
            }
            Ok(Ok(Err(err))) => fallen_back.push((language, err.to_string())),
            Ok(Err(_)) => fallen_back.push((language, "its search failed".to_string())),
            Err(_) => {
                let server = server.get().map_or("its server", String::as_str);
                fallen_back.push((language, format!("{server} is still starting")));
            }
        }
    }
    let mut noted = HashSet::new();
    for (language, why) in fallen_back {
        if !answered.contains(&language) && noted.insert(language.clone()) {
            notes.push(format!("{why}; {language} results are from tree-sitter"));
        }
    }
    let index = match (early_index, noted.is_empty()) {
        (Some(started), _) => started.await?,
        (None, true) => IndexAnswer::default(),
        (None, false) => query_index(&ctx, &ctx.index, &query).await?,
    };
    let dependencies = match dependencies {
        Some(started) => Some(started.await?),
        None => None,
    };
    let mut from_index = false;
    for hit in index.hits {
        let language = ctx
            .lsp
            .config()
            .language_for(&hit.path)
            .map(|l| l.name.clone());
        if language.as_ref().is_some_and(|l| answered.contains(l)) {
            continue;
        }
        if let Some(hit) = from_tree_sitter(hit, &query) {
            from_index = true;
            found.push(hit);
        }
    }
    // TypeScript's servers do not search the declarations of npm packages.
    if let Some(dependencies) = dependencies {
        for hit in dependencies.hits {
            if let Some(hit) = from_tree_sitter(hit, &query) {
                from_index = true;
                found.push(hit);
            }
        }
        notes.extend(dependencies.incomplete);
    }
    if from_index {
        sources.push("tree-sitter".to_string());
    }
    if let Some(why) = index.incomplete {
        notes.push(why);
    }

    // Servers name kinds their own way (rust-analyzer: a method is a
    // Function): filtering by kind needs the kinds `read` shows.
    if !kinds.is_empty() {
        found = blocking(move || Ok(same_as_outlines(found))).await?;
    }
    found.retain(|f| {
        (kinds.is_empty() || kinds.contains(&f.kind))
            && scope.contains(&ctx, &f.path)
            && (include_external || !is_external(&ctx, &f.path))
    });
    // Two projects of one server answer the same symbol: keep one.
    let mut seen = HashSet::new();
    found.retain(|f| seen.insert((f.path.clone(), f.position)));
    let ordered = order(found);
    let total = ordered.iter().map(|(_, matches)| matches.len()).sum();
    let total_files = ordered.len();
    if offset > 0 && offset >= total {
        return Err(ToolError::new(
            ErrorCode::OutOfRange,
            format!("{total} matches for query \"{query}\"; offset {offset} is past the end"),
        ));
    }
    let (page, next_offset) = page(&ordered, offset, limit);
    let files = blocking({
        let ctx = Arc::clone(&ctx);
        move || Ok(render_page(&ctx, page, preview))
    })
    .await?;
    Ok(SearchResult {
        query,
        total,
        total_files,
        sources,
        notes,
        files,
        offset,
        next_offset,
    })
}

/// The names of `index` that match `query`, looked up on the blocking pool
/// from now on (not when awaited: it runs while the servers are asked).
fn query_index(
    ctx: &Context,
    index: &Arc<SymbolIndex>,
    query: &str,
) -> impl Future<Output = ToolResult<IndexAnswer>> + use<> {
    let (index, query) = (Arc::clone(index), query.to_string());
    let root = ctx.workspace.root().to_path_buf();
    blocking(move || Ok(index.query(&root, |name| rank(name, &query).is_some())))
}

/// An index hit as a match, if its name matches the query.
fn from_tree_sitter(hit: IndexHit, query: &str) -> Option<Found> {
    Some(Found {
        rank: rank(&hit.symbol.name, query)?,
        path: hit.path,
        position: hit.symbol.position,
        kind: hit.symbol.kind,
        name: hit.symbol.name,
        container: hit.symbol.container,
        from_server: false,
    })
}

/// A server being asked: its language and name, a signal sent once it was
/// asked (ready, its projects open), and the task that asks it.
struct Asking {
    language: String,
    /// The server's name, once it has one (the language's chosen server).
    server: Arc<OnceLock<String>>,
    asked: tokio::sync::oneshot::Receiver<()>,
    task: tokio::task::JoinHandle<Result<Asked, LspError>>,
}

/// What a server answered.
struct Asked {
    server: String,
    hits: Vec<SymbolHit>,
    index_complete: bool,
}

/// Asks the server behind `file`: started if need be, its projects opened,
/// ready by `deadline` (or ready once before, then answering while it
/// indexes again).
async fn ask(
    ctx: &Context,
    file: &Path,
    queries: &[String],
    deadline: tokio::time::Instant,
    asked: tokio::sync::oneshot::Sender<()>,
    named: &OnceLock<String>,
) -> Result<Asked, LspError> {
    let client = ctx.lsp.client_for(file).await?;
    let server = client.server().to_string();
    let _ = named.set(server.clone());
    let wait = deadline.saturating_duration_since(tokio::time::Instant::now());
    let ready = client.wait_ready_reporting(wait).await;
    if !ready && !client.shared.state().was_ready {
        // Not ready yet: wait on (the caller has moved on to the index by
        // then), so the next search finds it ready.
        client
            .wait_ready(client.language.ready_timeout, |_| {})
            .await;
        return Err(LspError::Starting { server });
    }
    // Opening the projects makes a TypeScript server load them (with
    // progress): searching before they are loaded finds nothing.
    let just_opened = ctx.lsp.open_projects(&client).await;
    if just_opened {
        let wait = deadline.saturating_duration_since(tokio::time::Instant::now());
        if !client.wait_ready_reporting(wait).await {
            client
                .wait_ready(client.language.ready_timeout, |_| {})
                .await;
            return Err(LspError::Starting { server });
        }
    }
    // typescript-language-server loads the projects opened a moment later,
    // with no progress to wait for, and answers from what it has loaded
    // meanwhile: past the deadline the index answers instead.
    if !projects_loaded(&client, deadline).await {
        return Err(LspError::LoadingProjects { server });
    }
    let _ = asked.send(());
    let mut hits = Vec::new();
    for query in queries {
        hits.extend(workspace_symbols(&client, query).await?);
    }
    Ok(Asked {
        server,
        hits,
        index_complete: ready,
    })
}

/// How well `name` matches `query`: 0 the same name, 1 the same but for
/// case, 2 a prefix, 3 a substring (case-insensitive), 4 the query's
/// characters in order; `None` otherwise.
pub fn rank(name: &str, query: &str) -> Option<u8> {
    if name == query {
        return Some(0);
    }
    let (name, query) = (name.to_lowercase(), query.to_lowercase());
    if name == query {
        Some(1)
    } else if name.starts_with(&query) {
        Some(2)
    } else if name.contains(&query) {
        Some(3)
    } else {
        let mut rest = name.chars();
        query.chars().all(|q| rest.any(|c| c == q)).then_some(4)
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

/// One file of a page: its path, its matches in all, those on the page.
type PageFile = (PathBuf, usize, Vec<Found>);

/// The matches `offset..offset + limit` in order, cut sooner where the
/// answer would pass the budget; and where to continue.
fn page(
    ordered: &[(PathBuf, Vec<Found>)],
    offset: usize,
    limit: usize,
) -> (Vec<PageFile>, Option<usize>) {
    let total: usize = ordered.iter().map(|(_, m)| m.len()).sum();
    let mut page: Vec<PageFile> = Vec::new();
    let (mut n, mut used, mut shown) = (0, 0, 0);
    for (path, matches) in ordered {
        for f in matches {
            if n >= offset {
                // A match with its declaration is about 160 characters.
                if shown == limit || (shown > 0 && used + 160 > BUDGET_CHARS) {
                    return (page, Some(n));
                }
                match page.last_mut() {
                    Some((last, _, list)) if last == path => list.push(f.clone()),
                    _ => page.push((path.clone(), matches.len(), vec![f.clone()])),
                }
                shown += 1;
                used += 160;
            }
            n += 1;
        }
    }
    debug_assert_eq!(n, total);
    (page, None)
}

/// Servers' hits as the file's outline shows them, where sextant has a
/// grammar: the outline's kind and name path (`impl Account for
/// Ledger/balance (Method)` rather than rust-analyzer's `Ledger::balance
/// (Function)`), so every source shows a symbol one way.
fn same_as_outlines(mut found: Vec<Found>) -> Vec<Found> {
    let mut parsed: HashMap<PathBuf, Option<Arc<syntax::SourceFile>>> = HashMap::new();
    for f in found.iter_mut().filter(|f| f.from_server) {
        let file = parsed.entry(f.path.clone()).or_insert_with(|| {
            let language = Language::from_path(&f.path)?;
            let bytes = std::fs::read(&f.path).ok()?;
            Some(syntax::parse(
                language,
                String::from_utf8_lossy(&bytes).into_owned(),
            ))
        });
        if let Some(file) = file {
            like_outline(f, file);
        }
    }
    found
}

/// One server hit given the outline's kind and name path, when the outline
/// declares something where the hit's name starts.
fn like_outline(found: &mut Found, file: &syntax::SourceFile) {
    let separator = if file.language() == Language::Rust {
        "::"
    } else {
        "."
    };
    if let Some((path, kind)) = declared_at(file.outline(), found.position, separator) {
        found.kind = kind;
        found.container = path
            .strip_suffix(found.name.as_str())
            .map(|c| c.trim_end_matches(['.', ':', '/']).to_string())
            .filter(|c| !c.is_empty());
        found.from_server = false;
    }
}

/// The page's files as shown, each match with its declaration (read from
/// the file: tree-sitter's where sextant has a grammar, else the line).
fn render_page(ctx: &Context, page: Vec<PageFile>, preview: SearchPreview) -> Vec<SearchFile> {
    page.into_iter()
        .map(|(path, total, matches)| {
            let text = std::fs::read(&path)
                .ok()
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
            let parsed = text.as_ref().and_then(|text| {
                Language::from_path(&path).map(|language| syntax::parse(language, text.clone()))
            });
            let lines = text.as_deref().map(LineIndex::new);
            let separator = if Language::from_path(&path) == Some(Language::Rust) {
                "::"
            } else {
                "."
            };
            let symbols = matches
                .into_iter()
                .map(|mut f| {
                    if f.from_server
                        && let Some(file) = &parsed
                    {
                        like_outline(&mut f, file);
                    }
                    let signature = match (&parsed, &text, &lines) {
                        _ if preview == SearchPreview::None => None,
                        (Some(file), _, _) => file.signature(&at(f.position, f.kind)),
                        (None, Some(text), Some(lines)) => {
                            syntax::signature::declaration_line(text, lines, f.position.line)
                        }
                        _ => None,
                    };
                    let name = match &f.container {
                        Some(container) => {
                            let joint = if container.contains(' ') {
                                "/"
                            } else {
                                separator
                            };
                            format!("{container}{joint}{}", f.name)
                        }
                        None => f.name,
                    };
                    SearchSymbol {
                        position: f.position,
                        kind: f.kind,
                        name,
                        signature,
                    }
                })
                .collect();
            SearchFile {
                path: ctx.workspace.display(&path),
                total,
                symbols,
            }
        })
        .collect()
}

/// A symbol standing at `position`, for looking up its declaration.
fn at(position: Position, kind: SymbolKind) -> OutlineSymbol {
    OutlineSymbol {
        name: String::new(),
        kind,
        detail: None,
        range: Range::new(position, position),
        selection_range: Range::new(position, position),
        children: Vec::new(),
    }
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
        Ok(Scope::Under(ctx.workspace.resolve_read(path)?))
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
    !path.starts_with(ctx.workspace.root())
        || path
            .components()
            .any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == "target")
}

fn push_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
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
    }
}
