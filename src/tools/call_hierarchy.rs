//! `call_hierarchy`: who calls a function and what it calls, to a depth of
//! up to 3, each function named as its file's outline names it, with the
//! lines of its calls. A function reached twice (a cycle, or two paths to
//! it) is expanded once.

use std::collections::HashSet;
use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Deserialize;

use super::Tool;
use super::address::{Address, resolve};
use super::locations::{SourceFiles, place};
use super::page::Pager;
use crate::context::Context;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::lsp::navigate::{
    Call, CallItem, Spot, incoming_calls, outgoing_calls, prepare_call_hierarchy,
    references as find_references,
};
use crate::lsp::{LspError, Need, Session};
use crate::model::{
    CallDirection, CallHierarchyResult, CallNode, CallTree, Place, Position, SourceLocation,
    SymbolKind,
};

/// Functions shown in one answer, over every level and both directions.
const MAX_NODES: usize = 200;

/// The name a file's top level goes by as a caller.
const TOP_LEVEL: &str = "(top level)";

pub struct CallHierarchy;

// Which calls to follow. (A `//` comment: a doc comment would land in
// every tools/list.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Incoming,
    Outgoing,
    #[default]
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct Params {
    #[serde(flatten)]
    pub at: Address,
    pub direction: Option<Direction>,
    /// 1 to 3 (default 1)
    pub depth: Option<u8>,
}

impl Tool for CallHierarchy {
    const NAME: &'static str = "call_hierarchy";
    const DESCRIPTION: &'static str = "Who calls a function and what it calls (depth 1-3), grouped by file, with each call's line.";
    const WRITES: bool = false;
    type Params = Params;
    type Output = CallHierarchyResult;

    async fn run(ctx: Arc<Context>, params: Params) -> ToolResult<CallHierarchyResult> {
        call_hierarchy(&ctx, params).await
    }

    fn render(output: &CallHierarchyResult) -> Vec<String> {
        crate::render::call_hierarchy(output)
    }
}

async fn call_hierarchy(ctx: &Context, params: Params) -> ToolResult<CallHierarchyResult> {
    let depth = params.depth.unwrap_or(1);
    if !(1..=3).contains(&depth) {
        return Err(ToolError::new(
            ErrorCode::InvalidParams,
            format!("depth is 1, 2 or 3, not {depth}"),
        ));
    }
    let direction = params.direction.unwrap_or_default();
    let resolved = resolve(ctx, &params.at).await?;
    let session = ctx.lsp.open(&resolved.path, Need::SEEING).await?;
    let unloaded = session.unloaded_note("calls");
    let items = prepare_call_hierarchy(&session, resolved.target.position).await?;
    let Some(item) = items.into_iter().next() else {
        let declared_callable = matches!(
            resolved.target.declaration,
            Some((
                _,
                SymbolKind::Function | SymbolKind::Method | SymbolKind::Constructor
            ))
        );
        let why = match session.unlinked_note().await {
            Some(note) => note,
            // The outline says it is one: the server does not see it as
            // such (a function assigned to a member, `exports.x = function
            // (…) {…}`), which says nothing of the symbol itself.
            None if declared_callable => "it gives no call item for this function (a server often does not for one assigned to a member or variable); find its callers with references"
                .to_string(),
            None => "it is not a function, method or constructor it knows; pass the name of one"
                .to_string(),
        };
        return Err(ToolError::new(
            ErrorCode::NotFound,
            format!(
                "{} has no call hierarchy for `{}` at {}:{}: {why}",
                session.server(),
                resolved.target.name,
                resolved.target.path,
                resolved.target.position
            ),
        ));
    };
    let mut notes: Vec<String> = unloaded.into_iter().collect();
    if !session.index_complete() {
        notes.push(format!(
            "{} is still indexing; calls may be missing",
            session.server()
        ));
    }
    let mut walk = Walk {
        session: &session,
        files: SourceFiles::new(ctx),
        seen: HashSet::new(),
        pager: Pager::new(0, Some(MAX_NODES)),
        depth,
        left_out: 0,
        blocks: HashSet::new(),
    };
    let follows = |wanted: CallDirection| match direction {
        Direction::Both => true,
        Direction::Incoming => wanted == CallDirection::Incoming,
        Direction::Outgoing => wanted == CallDirection::Outgoing,
    };
    // The first level of both directions is asked at once: the walk
    // below takes them in order (incoming first, for the page's budget),
    // but the server answers both meanwhile.
    let first_level = async |wanted: CallDirection| {
        if !follows(wanted) {
            return None;
        }
        Some(match wanted {
            CallDirection::Incoming => incoming_calls(&session, &item).await,
            CallDirection::Outgoing => outgoing_calls(&session, &item).await,
        })
    };
    let walked = async {
        let (incoming, outgoing) = tokio::join!(
            first_level(CallDirection::Incoming),
            first_level(CallDirection::Outgoing)
        );
        let mut trees = [None, None];
        for (slot, wanted, first) in [
            (0, CallDirection::Incoming, incoming),
            (1, CallDirection::Outgoing, outgoing),
        ] {
            let Some(first) = first else {
                continue;
            };
            walk.seen.clear();
            walk.blocks.clear();
            let file = walk.files.number(&item.path);
            walk.seen.insert((file, item.selection.start));
            walk.left_out = 0;
            let before = walk.pager.shown();
            let calls = walk.expand(&item, wanted, depth, Some(first?)).await?;
            let mut files: Vec<&str> = calls.iter().map(|c| c.path.as_str()).collect();
            files.dedup();
            trees[slot] = Some(CallTree {
                direction: wanted,
                files: files.len(),
                shown: walk.pager.shown() - before,
                left_out: walk.left_out,
                calls,
            });
        }
        Ok::<_, LspError>(trees)
    };
    // A server may answer calls from fewer projects than references
    // (typescript-language-server: from the function's own project): the
    // calls references find that the hierarchy does not hold are named.
    // Asked beside the walk, so it costs no time.
    let at = resolved.target.position;
    let references = async {
        let needed = direction != Direction::Outgoing
            && session.answers_from_one_project("callHierarchy/incomingCalls");
        if !needed {
            return None;
        }
        find_references(&session, at, false).await.ok()
    };
    let (trees, references) = tokio::join!(walked, references);
    let [incoming, outgoing] = trees?;
    if let (Some(tree), Some(spots)) = (
        incoming.as_ref().filter(|tree| tree.left_out == 0),
        references,
    ) {
        let name = &resolved.target.name;
        notes.extend(uncovered_calls(ctx, session.server(), name, spots, tree).await);
    }
    Ok(CallHierarchyResult {
        target: resolved.target,
        depth,
        incoming,
        outgoing,
        notes,
    })
}

/// The note naming the calls among a function's references (`spots`) that
/// `tree`'s first level does not hold.
async fn uncovered_calls(
    ctx: &Context,
    server: &str,
    name: &str,
    spots: Vec<Spot>,
    tree: &CallTree,
) -> Option<String> {
    let held: HashSet<(&str, Position)> = tree
        .calls
        .iter()
        .flat_map(|call| {
            call.sites
                .iter()
                .map(|site| (site.path.as_str(), site.position))
        })
        .collect();
    let mut files = SourceFiles::new(ctx);
    let chars = name.chars().count();
    let mut left: Vec<String> = Vec::new();
    let mut left_files: HashSet<String> = HashSet::new();
    for spot in spots {
        if place(ctx, &spot.path) != Place::Workspace {
            continue;
        }
        let shown = files.shown(&spot.path);
        // A declaration (`function f(`) is no call, whether or not the
        // server left it out of the references as asked.
        if held.contains(&(shown.as_str(), spot.range.start))
            || !files.called_at(&spot.path, spot.range.start, chars).await
            || files.declares(&spot.path, spot.range.start).await == Some(true)
        {
            continue;
        }
        left.push(format!("{shown}:{}", spot.range.start));
        left_files.insert(shown);
    }
    if left.is_empty() {
        return None;
    }
    const SHOWN: usize = 8;
    let count = left.len();
    let mut listed: Vec<String> = left.into_iter().take(SHOWN).collect();
    if count > SHOWN {
        listed.push(format!("and {} more", count - SHOWN));
    }
    Some(format!(
        "references find {} in {} that {}'s call hierarchy does not hold ({}): it answers calls from fewer projects; `references` lists them",
        crate::render::count(count, "more call", "more calls"),
        crate::render::count(left_files.len(), "file", "files"),
        server,
        listed.join(", ")
    ))
}

/// The state of one answer's walk through the hierarchy.
struct Walk<'a> {
    session: &'a Session,
    files: SourceFiles<'a>,
    /// Functions already shown in this direction (by file and name).
    /// (By `SourceFiles::number`: a path cloned and hashed for each node
    /// was a tenth of a walk of 82 callers.)
    seen: HashSet<(usize, Position)>,
    /// Admits nodes within the node bound and the answer's budget, over
    /// both directions.
    pager: Pager,
    /// The depth asked for.
    depth: u8,
    left_out: usize,
    /// The files whose first-level block is on the page (each one's
    /// header counts once).
    blocks: HashSet<String>,
}

type Expanded<'w> = Pin<Box<dyn Future<Output = Result<Vec<CallNode>, LspError>> + Send + 'w>>;

impl Walk<'_> {
    /// The calls of `item` in `direction` (`asked`: as the server already
    /// gave them), each expanded `depth - 1` more levels.
    fn expand<'w>(
        &'w mut self,
        item: &'w CallItem,
        direction: CallDirection,
        depth: u8,
        asked: Option<Vec<Call>>,
    ) -> Expanded<'w> {
        Box::pin(async move {
            let calls = match (asked, direction) {
                (Some(calls), _) => calls,
                (None, CallDirection::Incoming) => incoming_calls(self.session, item).await?,
                (None, CallDirection::Outgoing) => outgoing_calls(self.session, item).await?,
            };
            // The whole level first, so a function called from here is
            // expanded here rather than deeper down a sibling.
            let mut level: Vec<(CallItem, CallNode)> = Vec::with_capacity(calls.len());
            // As the renderer indents this level, and the file its nodes
            // are shown against (the block's on the first level, the
            // caller's below).
            let indent = 1 + 2 * usize::from(self.depth - depth);
            let parent = (depth < self.depth).then(|| self.files.shown(&item.path));
            // The callers' or callees' files, parsed at once.
            let paths = calls.iter().map(|call| call.item.path.as_path());
            self.files
                .parse_all(paths.chain([item.path.as_path()]))
                .await;
            for Call { item: other, sites } in calls {
                if self.pager.is_full() {
                    self.left_out += 1;
                    continue;
                }
                // Incoming: the calls are in the caller (`other`);
                // outgoing: in `item`, the caller.
                let sites_in = match direction {
                    CallDirection::Incoming => &other.path,
                    CallDirection::Outgoing => &item.path,
                };
                let mut locations: Vec<SourceLocation> = Vec::with_capacity(sites.len());
                for site in &sites {
                    // Two calls can start at one place (`a.f().f()`).
                    if locations.iter().any(|l| l.position == site.start) {
                        continue;
                    }
                    let location = self.files.location(sites_in, site.start).await;
                    locations.push(location);
                }
                let path = self.files.shown(&other.path);
                let (name, kind) = self
                    .files
                    .declared_at(&other.path, other.selection.start)
                    .await
                    .unwrap_or_else(|| {
                        // A call from a file's top level comes from its
                        // module, which TypeScript 7's server names by its
                        // absolute path and typescript-language-server by
                        // its file name: the block or the ` in` after it
                        // names the file.
                        let module = Path::new(&other.name) == other.path
                            || (matches!(other.kind, SymbolKind::Module | SymbolKind::File)
                                && other
                                    .path
                                    .file_name()
                                    .is_some_and(|n| n == other.name.as_str()));
                        let name = if module {
                            TOP_LEVEL.to_string()
                        } else {
                            other.name.clone()
                        };
                        (name, other.kind)
                    });
                let key = (self.files.number(&other.path), other.selection.start);
                let repeated = self.seen.contains(&key);
                let made_by = self
                    .files
                    .macro_invoked_at(&other.path, other.selection.start, &other.name)
                    .await;
                let node = CallNode {
                    place: self.files.place(&other.path),
                    path,
                    position: other.selection.start,
                    kind,
                    name,
                    sites: locations,
                    repeated,
                    made_by,
                    children: Vec::new(),
                };
                let file = parent.as_deref().unwrap_or(&node.path);
                let mut size = crate::render::call_node_line(&node, indent, file).len();
                // A first-level node in a file not shown yet opens its block
                // (`Incoming calls in <file>`, and the gap between blocks).
                if parent.is_none() && self.blocks.insert(node.path.clone()) {
                    size += node.path.len() + 24;
                }
                if !self.pager.admit(size) {
                    self.left_out += 1;
                    continue;
                }
                self.seen.insert(key);
                level.push((other, node));
            }
            // In file order: servers answer in no stable order.
            level.sort_by(|a, b| (&a.1.path, a.1.position).cmp(&(&b.1.path, b.1.position)));
            let mut nodes = Vec::with_capacity(level.len());
            for (other, mut node) in level {
                // Calls into libraries are shown, not followed.
                if depth > 1 && !node.repeated && node.place == Place::Workspace {
                    node.children = self.expand(&other, direction, depth - 1, None).await?;
                }
                nodes.push(node);
            }
            Ok(nodes)
        })
    }
}
