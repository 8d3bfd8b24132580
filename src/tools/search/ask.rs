//! Where search's matches come from: every language server the workspace
//! needs, asked at once and each waited for until a deadline (a cold
//! server goes on starting for the next search), and the tree-sitter
//! symbol index, asked meanwhile: it answers for each language whose server
//! did not answer, with a note that says why, and adds to a server's
//! answer the workspace's matches the server's stricter matcher left out
//! (rust-analyzer matches an upper-case query case-sensitively, tsserver
//! by words), so a query finds the symbols the workspace declares from
//! either source; npm
//! packages' declarations, which no server searches, from their own index
//! when libraries are asked for.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{Found, rank};
use crate::context::Context;
use crate::error::ToolResult;
use crate::index::{IndexAnswer, IndexHit, Letters, SymbolIndex};
use crate::lsp::symbols::{SymbolHit, workspace_symbols};
use crate::lsp::{LspError, Need};
use crate::model::Position;
use crate::progress;
use crate::tools::blocking;
use crate::waits;

/// How long a search waits for a language server that is not ready: past
/// this its language is answered from the tree-sitter index (the server
/// goes on starting for the next search).
pub const SERVER_WAIT: Duration = Duration::from_millis(750);

/// The tree-sitter index, as a source is named.
pub(super) const INDEX: &str = "tree-sitter";

/// The matches of every source, and what to say about them.
#[derive(Debug, Default, Clone)]
pub(super) struct Gathered {
    pub found: Vec<Found>,
    /// The servers that answered, then `tree-sitter` if the index did.
    pub sources: Vec<String>,
    pub notes: Vec<String>,
}

/// Asks every server the workspace needs, and the index for the languages
/// none of them answered for.
pub(super) async fn gather(
    ctx: &Arc<Context>,
    query: &str,
    include_external: bool,
) -> ToolResult<Gathered> {
    // The index hears of files changed from now on.
    ctx.lsp.watch_files();
    let deadline = tokio::time::Instant::now() + SERVER_WAIT;
    let asks: Vec<Asking> = ctx
        .lsp
        .projects()
        .await
        .into_iter()
        .filter_map(|file| start_asking(ctx, file, query, include_external, deadline))
        .collect();
    // The tree-sitter index, asked meanwhile (built on the first search,
    // while the servers start): it answers for the languages no server
    // answers for, and adds what a server's matcher left out.
    let index = query_index(ctx, &ctx.index, query);
    // npm packages' declarations, which no server searches, meanwhile.
    let dependencies = include_external.then(|| query_index(ctx, &ctx.dependencies, query));

    let mut gathered = Gathered::default();
    // Languages whose servers answered; the others are the index's.
    let mut answered: HashSet<String> = HashSet::new();
    let mut fallen_back: Vec<(String, String)> = Vec::new();
    // Languages whose servers answered with no match at all: what the
    // index has for them is added, and said.
    let mut found_none: Vec<(String, String)> = Vec::new();
    for asking in asks {
        let language = asking.language.clone();
        match asking.outcome(deadline).await {
            Ok(asked) => {
                if !asked.index_complete {
                    push_once(
                        &mut gathered.notes,
                        format!(
                            "{} was still indexing; its results may be incomplete",
                            asked.server
                        ),
                    );
                }
                let hits: Vec<Found> = asked
                    .hits
                    .into_iter()
                    .filter_map(|hit| {
                        Some(Found {
                            rank: rank(&hit.name, query)?,
                            container: hit.container,
                            path: hit.path,
                            position: hit.range.start,
                            kind: hit.kind,
                            name: hit.name,
                            from_server: true,
                            from_index: false,
                        })
                    })
                    .collect();
                // No match at all from a server is not "none in the
                // workspace": a server searches only what it has loaded
                // (TypeScript's, JavaScript without a config: the files
                // opened), and matches more strictly than search ranks.
                push_once(&mut gathered.sources, asked.server.clone());
                // A server given only some of its projects (its memory
                // bound) answers for those: the index adds the others'.
                if asked.beyond > 0 {
                    push_once(
                        &mut gathered.notes,
                        format!(
                            "{} has {} not loaded (at most `max_projects` are, each costs it memory); the index adds their {language} matches",
                            asked.server,
                            crate::render::count(asked.beyond, "project", "projects"),
                        ),
                    );
                    gathered.found.extend(hits);
                    continue;
                }
                if hits.is_empty() {
                    found_none.push((language, asked.server));
                    continue;
                }
                answered.insert(language);
                gathered.found.extend(hits);
            }
            Err(why) => fallen_back.push((language, why)),
        }
    }
    let mut noted = HashSet::new();
    for (language, why) in fallen_back {
        if !answered.contains(&language) && noted.insert(language.clone()) {
            gathered
                .notes
                .push(format!("{why}; {language} results are from tree-sitter"));
        }
    }
    let index = index.await?;
    let dependencies = match dependencies {
        Some(started) => Some(started.await?),
        None => None,
    };
    let mut from_index = false;
    let mut supplemented: HashSet<String> = HashSet::new();
    // A server's own matches, by where they are, so the index adds only
    // what it left out (a server names some symbols a little elsewhere:
    // the line and name tell them too).
    let by_server: HashSet<(&Path, Position)> = gathered
        .found
        .iter()
        .map(|f| (f.path.as_path(), f.position))
        .collect();
    let by_line: HashSet<(&Path, u32, &str)> = gathered
        .found
        .iter()
        .map(|f| (f.path.as_path(), f.position.line, f.name.as_str()))
        .collect();
    let mut added = Vec::new();
    for hit in index.hits {
        let language = ctx
            .lsp
            .config()
            .language_for(&hit.path)
            .map(|l| l.name.clone());
        let Some(hit) = from_tree_sitter(hit, query) else {
            continue;
        };
        if by_server.contains(&(hit.path.as_path(), hit.position))
            || by_line.contains(&(hit.path.as_path(), hit.position.line, hit.name.as_str()))
        {
            continue;
        }
        from_index = true;
        if !language.as_ref().is_some_and(|l| answered.contains(l)) {
            supplemented.extend(language);
        }
        added.push(hit);
    }
    gathered.found.extend(added);
    for (language, server) in found_none {
        if supplemented.contains(&language) && !noted.contains(&language) {
            gathered.notes.push(format!(
                "{server} found no symbol matching \"{query}\" (it searches only what it has loaded, and matches more strictly); these {language} results are from tree-sitter"
            ));
        }
    }
    // TypeScript's servers do not search the declarations of npm packages.
    if let Some(dependencies) = dependencies {
        for hit in dependencies.hits {
            if let Some(hit) = from_tree_sitter(hit, query) {
                from_index = true;
                gathered.found.push(hit);
            }
        }
        gathered.notes.extend(dependencies.incomplete);
    }
    if from_index {
        gathered.sources.push(INDEX.to_string());
    }
    if let Some(why) = index.incomplete {
        gathered.notes.push(why);
    }
    gathered
        .notes
        .extend(ctx.lsp.uncovered_note("not searched").await);
    Ok(gathered)
}

/// A server being asked: its language and name, a signal sent once it was
/// asked (ready, its projects loaded), and the task that asks it.
struct Asking {
    language: String,
    /// The server's name (the language's chosen server for the project).
    server: String,
    asked: tokio::sync::oneshot::Receiver<()>,
    task: tokio::task::JoinHandle<Result<Asked, LspError>>,
}

/// What a server answered.
struct Asked {
    server: String,
    hits: Vec<SymbolHit>,
    index_complete: bool,
    /// Projects it was not given (its `max_projects`): how many.
    beyond: usize,
}

/// Starts asking the server behind `file` (a file of one project of its
/// language) in a task of its own: a server still starting at the deadline
/// goes on starting, for the next search. `None` for a file no server
/// serves.
fn start_asking(
    ctx: &Arc<Context>,
    file: std::path::PathBuf,
    query: &str,
    include_external: bool,
    deadline: tokio::time::Instant,
) -> Option<Asking> {
    let language = ctx.lsp.config().language_for(&file)?;
    // A server's library search (rust-analyzer's `query*`) leaves the
    // workspace out: ask both.
    let queries = match &language.library_query_suffix {
        Some(suffix) if include_external => vec![query.to_string(), format!("{query}{suffix}")],
        _ => vec![query.to_string()],
    };
    let language = language.name.clone();
    let server = ctx.lsp.server_name(&file)?;
    let (asked_tx, asked) = tokio::sync::oneshot::channel();
    let ctx = Arc::clone(ctx);
    let ask = async move { ask(&ctx, &file, &queries, deadline, asked_tx).await };
    let task = tokio::spawn(progress::carried(waits::carried(ask)));
    Some(Asking {
        language,
        server,
        asked,
        task,
    })
}

impl Asking {
    /// The server's answer, or why its language falls back on the index.
    /// A server that was asked by the deadline is waited for (its request
    /// has its own timeout); one still starting is not.
    async fn outcome(self, deadline: tokio::time::Instant) -> Result<Asked, String> {
        let asked_in_time =
            tokio::time::timeout_at(deadline + Duration::from_millis(100), self.asked)
                .await
                .is_ok();
        if !asked_in_time && !self.task.is_finished() {
            return Err(format!("{} is still starting", self.server));
        }
        match self.task.await {
            Ok(Ok(asked)) => Ok(asked),
            Ok(Err(LspError::Starting { server })) => Err(format!("{server} is still starting")),
            Ok(Err(LspError::LoadingProjects { server })) => {
                Err(format!("{server} is still loading its projects"))
            }
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err("its search failed".to_string()),
        }
    }
}

/// Asks the server behind `file`: started if need be, ready and its
/// projects loaded by `deadline` (or ready once before, then answering
/// while it indexes again); `asked` is told once it is.
async fn ask(
    ctx: &Context,
    file: &Path,
    queries: &[String],
    deadline: tokio::time::Instant,
    asked: tokio::sync::oneshot::Sender<()>,
) -> Result<Asked, LspError> {
    let server = ctx.lsp.server(file, Need::WORKSPACE.by(deadline)).await?;
    let _ = asked.send(());
    let mut hits = Vec::new();
    for query in queries {
        hits.extend(workspace_symbols(&server, query).await?);
    }
    Ok(Asked {
        server: server.name().to_string(),
        hits,
        index_complete: server.index_complete(),
        beyond: server.beyond().len(),
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
    blocking(move || {
        let letters = Letters::of_query(&query);
        Ok(index.query(&root, letters, |name| rank(name, &query).is_some()))
    })
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
        from_index: true,
    })
}

fn push_once(notes: &mut Vec<String>, note: String) {
    if !notes.contains(&note) {
        notes.push(note);
    }
}
