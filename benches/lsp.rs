//! Language-server figures, measured in one run, both TypeScript servers
//! side by side (TypeScript 7's native server and typescript-language-server
//! with TypeScript 6) and rust-analyzer:
//!
//! - spawn to ready;
//! - warm requests, raw round trips over the client (median of 50):
//!   documentSymbol, hover, definition, references, workspace/symbol;
//! - sextant's own overhead: documentSymbol through `Supervisor::open`
//!   against raw, and `search` against the raw workspace/symbol of the
//!   same query (median of 20 each, alternated);
//! - `diagnostics` of one file, unchanged (median of 20) and after an edit
//!   (median of 5);
//! - on a generated 400-file monorepo (10 packages, a tsconfig each, none at
//!   the root): whole-workspace `diagnostics` and the first `search` from a
//!   cold start, and the resident memory of the server's process tree;
//! - the tree-sitter symbol index: build time and a query on the largest
//!   crate of the cargo registry and on TypeScript's own `lib` folder.
//!
//! Run with `cargo bench --bench lsp` after `bash scripts/test.sh` has
//! installed the servers. It prints figures only; nothing here asserts a
//! time.

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::request::{
    DocumentSymbolRequest, GotoDefinition, HoverRequest, References, WorkspaceSymbolRequest,
};
use lsp_types::{
    DocumentSymbolParams, GotoDefinitionParams, HoverParams, Position, ReferenceContext,
    ReferenceParams, TextDocumentPositionParams, WorkspaceSymbolParams,
};
use serde_json::json;
use sextant::context::Context;
use sextant::index::{Indexed, Letters, SymbolIndex};
use sextant::lsp::symbols::document_symbols;
use sextant::lsp::{Need, Session};

const RAW_ROUNDS: usize = 50;
const ROUNDS: usize = 20;
const TIMEOUT: Duration = Duration::from_secs(60);

/// `12.34 ms`.
fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// A tool's answer, as the agent reads it.
async fn call(ctx: &Arc<Context>, tool: &str, args: serde_json::Value) -> String {
    common::run(ctx, tool, args).await
}

/// The median time of `rounds` calls of `f`.
async fn time<F, Fut>(rounds: usize, mut f: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future,
{
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let t = Instant::now();
        f().await;
        samples.push(t.elapsed());
    }
    common::median(samples)
}

/// The resident memory of `pid` and every process below it, in MB.
fn tree_rss_mb(pid: u32) -> f64 {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let ppid = stat
            .rsplit(") ")
            .next()
            .and_then(|rest| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            parents.push((child, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    let kb: u64 = tree
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/status")).ok())
        .filter_map(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        })
        .sum();
    kb as f64 / 1024.0
}

/// What one server measured, for the closing table.
#[derive(Default)]
struct Figures {
    server: String,
    ready: Option<Duration>,
    symbols: Option<Duration>,
    hover: Option<Duration>,
    definition: Option<Duration>,
    references: Option<Duration>,
    workspace_symbol: Option<Duration>,
    search: Option<Duration>,
    overhead: Option<Duration>,
    diagnostics: Option<Duration>,
    diagnostics_edit: Option<Duration>,
    monorepo_diagnostics: Option<(Duration, String)>,
    monorepo_search: Option<Duration>,
    /// Warm workspace/symbol raw, and search.
    monorepo_warm: Option<(Duration, Duration)>,
    rss_mb: Option<f64>,
}

/// A context over a copy of `fixture` with `config` as its sextant.toml.
fn context(fixture: &str, config: &str) -> common::Fixture {
    common::fixture_with(fixture, &[("sextant.toml", config)])
}

/// The server's figures on a fixture: `file`, a position of an identifier
/// used in other files (0-based line and UTF-16 character, ASCII line),
/// an edit that breaks the file, and a search query.
async fn measure(
    f: &common::Fixture,
    file: &str,
    at: (u32, u32),
    edit: (&str, &str),
    query: &str,
) -> Figures {
    let ctx = &f.ctx;
    let path: PathBuf = f.path(file);
    let started = Instant::now();
    let session: Session = match ctx.lsp.open(&path, Need::DOCUMENT).await {
        Ok(session) => session,
        Err(err) => {
            println!("{file}: {err}");
            return Figures::default();
        }
    };
    let mut figures = Figures {
        server: session.server().to_string(),
        ready: Some(started.elapsed()),
        ..Figures::default()
    };
    let client = Arc::clone(session.client());
    let position = TextDocumentPositionParams {
        position: Position::new(at.0, at.1),
        ..session
            .position_params(sextant::model::Position::new(1, 1))
            .unwrap()
    };
    let document = position.text_document.clone();
    // Warm every path once.
    document_symbols(&session).await.unwrap();
    call(ctx, "search", json!({"query": query})).await;

    let symbols = DocumentSymbolParams {
        text_document: document.clone(),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    figures.symbols = Some(
        time(RAW_ROUNDS, || {
            client
                .connection()
                .request::<DocumentSymbolRequest>(symbols.clone(), TIMEOUT)
        })
        .await,
    );
    let hover = HoverParams {
        text_document_position_params: position.clone(),
        work_done_progress_params: Default::default(),
    };
    figures.hover = Some(
        time(RAW_ROUNDS, || {
            client
                .connection()
                .request::<HoverRequest>(hover.clone(), TIMEOUT)
        })
        .await,
    );
    let definition = GotoDefinitionParams {
        text_document_position_params: position.clone(),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    figures.definition = Some(
        time(RAW_ROUNDS, || {
            client
                .connection()
                .request::<GotoDefinition>(definition.clone(), TIMEOUT)
        })
        .await,
    );
    let references = ReferenceParams {
        text_document_position: position.clone(),
        context: ReferenceContext {
            include_declaration: true,
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    figures.references = Some(
        time(RAW_ROUNDS, || {
            client
                .connection()
                .request::<References>(references.clone(), TIMEOUT)
        })
        .await,
    );

    // sextant against raw, alternated so both see the same noise.
    let workspace = WorkspaceSymbolParams {
        query: query.to_string(),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let (mut raw_search, mut search, mut raw_symbols, mut through) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let _ = client
            .connection()
            .request::<WorkspaceSymbolRequest>(workspace.clone(), TIMEOUT)
            .await;
        raw_search.push(t.elapsed());
        let t = Instant::now();
        call(ctx, "search", json!({"query": query})).await;
        search.push(t.elapsed());
        let t = Instant::now();
        let _ = client
            .connection()
            .request::<DocumentSymbolRequest>(symbols.clone(), TIMEOUT)
            .await;
        raw_symbols.push(t.elapsed());
        let t = Instant::now();
        let session = ctx.lsp.open(&path, Need::DOCUMENT).await.unwrap();
        document_symbols(&session).await.unwrap();
        through.push(t.elapsed());
    }
    figures.workspace_symbol = Some(common::median(raw_search));
    figures.search = Some(common::median(search));
    figures.overhead = Some(common::median(through).saturating_sub(common::median(raw_symbols)));

    let file_arg = json!({"file": file});
    call(ctx, "diagnostics", file_arg.clone()).await;
    figures.diagnostics = Some(time(ROUNDS, || call(ctx, "diagnostics", file_arg.clone())).await);
    let original = std::fs::read_to_string(&path).unwrap();
    let mut edited = Vec::new();
    for i in 0..5 {
        let text = if i % 2 == 0 {
            original.replace(edit.0, edit.1)
        } else {
            original.clone()
        };
        std::fs::write(&path, text).unwrap();
        let t = Instant::now();
        call(ctx, "diagnostics", file_arg.clone()).await;
        edited.push(t.elapsed());
    }
    std::fs::write(&path, original).unwrap();
    figures.diagnostics_edit = Some(common::median(edited));
    figures.rss_mb = client.pid().map(tree_rss_mb);
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
    figures
}

/// Whole-workspace diagnostics and the first search of a generated
/// 400-file monorepo, each from a cold start, with `config`.
async fn monorepo(config: &str, figures: &mut Figures) {
    for first in ["diagnostics", "search"] {
        let dir = tempfile::tempdir().unwrap();
        common::generate_monorepo(dir.path(), 10, 40);
        std::fs::write(dir.path().join("sextant.toml"), config).unwrap();
        let ctx = common::context(dir.path(), false);
        let t = Instant::now();
        if first == "diagnostics" {
            let answer = call(&ctx, "diagnostics", json!({"severity": "error"})).await;
            let summary = answer.lines().next().unwrap_or("").to_string();
            figures.monorepo_diagnostics = Some((t.elapsed(), summary));
            let pid = ctx.lsp.clients().first().and_then(|c| c.pid());
            figures.rss_mb = pid.map(tree_rss_mb).or(figures.rss_mb);
        } else {
            let answer = call(&ctx, "search", json!({"query": "Thing39"})).await;
            figures.monorepo_search = Some(t.elapsed());
            println!(
                "  first monorepo search: {}",
                answer.lines().next().unwrap_or("")
            );
            // Warm: sextant's search against the raw request, alternated.
            let file = dir.path().join("packages/p0/src/m0.ts");
            let session = ctx.lsp.open(&file, Need::DOCUMENT).await.unwrap();
            call(&ctx, "search", json!({"query": "Thing39"})).await;
            let params = WorkspaceSymbolParams {
                query: "Thing39".into(),
                work_done_progress_params: Default::default(),
                partial_result_params: Default::default(),
            };
            let (mut raw, mut through) = (Vec::new(), Vec::new());
            for _ in 0..ROUNDS {
                let t = Instant::now();
                let _ = session
                    .client()
                    .connection()
                    .request::<WorkspaceSymbolRequest>(params.clone(), TIMEOUT)
                    .await;
                raw.push(t.elapsed());
                let t = Instant::now();
                call(&ctx, "search", json!({"query": "Thing39"})).await;
                through.push(t.elapsed());
            }
            figures.monorepo_warm = Some((common::median(raw), common::median(through)));
        }
        ctx.lsp.shutdown(Duration::from_secs(2)).await;
    }
}

/// The tree-sitter index of a real tree: build time, files, symbols, and
/// a query once built.
fn index_figures(name: &str, root: &Path, indexed: Indexed) {
    let index = SymbolIndex::new(indexed);
    let t = Instant::now();
    let answer = index.query(root, Letters::of_query("Stream"), |n| n.contains("Stream"));
    let build = t.elapsed();
    let t = Instant::now();
    let again = index.query(root, Letters::of_query("Stream"), |n| n.contains("Stream"));
    let query = t.elapsed();
    let (files, symbols) = index.size();
    println!(
        "index of {name}: {files} files, {symbols} symbols, built and queried in {}; warm query {} ({} hits){}",
        ms(build),
        ms(query),
        again.hits.len(),
        answer
            .incomplete
            .map(|why| format!("; {why}"))
            .unwrap_or_default()
    );
}

/// The cargo registry's crate with the most `.rs` files.
fn largest_registry_crate() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let registry = home.join("registry/src");
    std::fs::read_dir(registry)
        .ok()?
        .flatten()
        .flat_map(|index| {
            std::fs::read_dir(index.path())
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|krate| {
            let count = ignore::WalkBuilder::new(krate.path())
                .build()
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
                .count();
            (count, krate.path())
        })
        .max()
        .map(|(_, path)| path)
}

/// One row of the closing table.
fn row(name: &str, figures: &[&Figures], cell: impl Fn(&Figures) -> String) {
    let cells: Vec<String> = figures.iter().map(|f| cell(f)).collect();
    println!("| {name} | {} |", cells.join(" | "));
}

/// A figure, or `-` where it was not measured.
fn opt(d: Option<Duration>) -> String {
    d.map(ms).unwrap_or_else(|| "-".into())
}

/// The allocator of sextant's binary (see `src/main.rs`): sextant's code
/// run here is measured as it ships.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    const NATIVE: &str = "[language.typescript]\nserver = \"typescript-go\"\n";
    const JAVASCRIPT: &str = "[language.typescript]\nserver = \"typescript-language-server\"\n";
    // index.ts line 7: `  return greet("world") + " " + registry.totalArea();`
    let ts_at = (6, 42);
    let ts_edit = ("registry.totalArea()", "registry.totalAreaa()");
    let mut native = measure(
        &context("ts", NATIVE),
        "src/index.ts",
        ts_at,
        ts_edit,
        "area",
    )
    .await;
    monorepo(NATIVE, &mut native).await;
    let mut javascript = measure(
        &context("ts", JAVASCRIPT),
        "src/index.ts",
        ts_at,
        ts_edit,
        "area",
    )
    .await;
    monorepo(JAVASCRIPT, &mut javascript).await;
    // lib.rs line 44: `        self.total()`
    let rust = measure(
        &context("rust", ""),
        "src/lib.rs",
        (43, 14),
        ("        self.total()\n", "        self.totl()\n"),
        "balance",
    )
    .await;

    let all = [&native, &javascript, &rust];
    println!();
    println!(
        "| | {} |",
        all.iter()
            .map(|f| f.server.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---|".repeat(all.len()));
    row("spawn to ready", &all, |f| opt(f.ready));
    row("documentSymbol (raw)", &all, |f| opt(f.symbols));
    row("hover (raw)", &all, |f| opt(f.hover));
    row("definition (raw)", &all, |f| opt(f.definition));
    row("references (raw)", &all, |f| opt(f.references));
    row("workspace/symbol (raw)", &all, |f| opt(f.workspace_symbol));
    row("search (sextant)", &all, |f| opt(f.search));
    row("sextant overhead per documentSymbol", &all, |f| {
        opt(f.overhead)
    });
    row("diagnostics, unchanged", &all, |f| opt(f.diagnostics));
    row("diagnostics, after an edit", &all, |f| {
        opt(f.diagnostics_edit)
    });
    row(
        "400-file monorepo: workspace diagnostics, cold",
        &all,
        |f| {
            f.monorepo_diagnostics
                .as_ref()
                .map(|(d, summary)| format!("{} ({summary})", ms(*d)))
                .unwrap_or_else(|| "-".into())
        },
    );
    row("400-file monorepo: first search, cold", &all, |f| {
        opt(f.monorepo_search)
    });
    row(
        "400-file monorepo: warm workspace/symbol raw / search",
        &all,
        |f| {
            f.monorepo_warm
                .map(|(raw, search)| format!("{} / {}", ms(raw), ms(search)))
                .unwrap_or_else(|| "-".into())
        },
    );
    row(
        "server RSS (process tree; TypeScript after the monorepo)",
        &all,
        |f| f.rss_mb.map_or("-".into(), |mb| format!("{mb:.0} MB")),
    );
    println!();

    if let Some(krate) = largest_registry_crate() {
        let name = krate.file_name().unwrap().to_string_lossy().into_owned();
        tokio::task::spawn_blocking(move || index_figures(&name, &krate, Indexed::Workspace))
            .await
            .unwrap();
    }
    let typescript_lib = sextant::lsp::config::default_tools_dir()
        .join("typescript-language-server/node_modules/typescript/lib");
    if typescript_lib.is_dir() {
        tokio::task::spawn_blocking(move || {
            index_figures("typescript/lib", &typescript_lib, Indexed::Workspace)
        })
        .await
        .unwrap();
    }
}
