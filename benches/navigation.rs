//! The navigation tools against the raw LSP round trips they make, in one
//! run: `inspect`, `references`, `call_hierarchy` and `completion`, warm
//! (median of 20, tool and raw requests alternated so both see the same
//! noise), and the bytes of each answer.
//!
//! Projects: the TypeScript fixture on TypeScript 7's server and on
//! typescript-language-server, the Rust fixture, a generated 400-file
//! TypeScript monorepo, a generated JavaScript project whose function is
//! called 4,800 times from 60 files (the text audit of JavaScript looks
//! through every use: its cost grows with them), and sextant's own source
//! on rust-analyzer (a real crate of some 15,000 lines, read in place: the
//! tools only read).
//!
//! sextant's own overhead is the tool's time less its server time: for
//! `inspect`, whose four requests go out at once, the slowest of them; for
//! `references` (with the definition asked beside it) the slower of those
//! two; for `call_hierarchy`, prepare plus incoming plus outgoing, which
//! follow each other; for `completion`, the list and the resolves of the
//! items it shows that lack a detail or documentation. References' bytes are compared with
//! the same list without the enclosing symbols.
//!
//! Then `rename` of a function called from 60 files, in a TypeScript
//! project and a Rust crate the bench generates from a seed: the preview
//! against the raw `textDocument/rename`, the apply of the patch, and the
//! bytes of the preview. Each round renames the function again, 600 ms
//! after the last write: the first request after a write waits out
//! rust-analyzer's 300 ms reload moment (`reload_delay`), which is not the
//! rename's cost.
//!
//! Then the impact of a write: a one-file edit applied with its impact and
//! without, in turn, on a generated 300-file TypeScript monorepo
//! (TypeScript 7's server) and the Rust fixture (rust-analyzer, whose
//! cargo check the impact waits for, within `impact_timeout`).
//!
//! And `fix` on the TypeScript fixture: listing the actions for an
//! unresolved name and previewing one, against the raw requests it makes.
//! With `-- writes`, only these last two run, and they are written as the
//! "Writes" section of BENCHMARKS.md.
//!
//! Run with `cargo bench --bench navigation` (`-- writes` for the writes'
//! figures alone, `-- case=TEXT` for the navigation figures of the
//! projects whose name holds TEXT) after `bash scripts/test.sh`
//! has installed the servers. It prints figures only.

#[path = "section.rs"]
mod section;

#[path = "../tests/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare,
    CodeActionRequest, Completion, DocumentDiagnosticRequest, GotoDefinition, GotoImplementation,
    GotoTypeDefinition, HoverRequest, References, ResolveCompletionItem,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    CodeActionContext, CodeActionKind, CodeActionParams, CompletionItem, CompletionParams,
    CompletionResponse, DocumentDiagnosticParams, DocumentDiagnosticReport,
    DocumentDiagnosticReportResult, GotoDefinitionParams, HoverParams, ReferenceContext,
    ReferenceParams,
};
use serde_json::{Value, json};
use sextant::context::Context;
use sextant::lsp::Need;

const ROUNDS: usize = 20;
const TIMEOUT: Duration = Duration::from_secs(60);

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1000.0)
}

/// One project and the symbols to ask about.
struct Case {
    name: &'static str,
    ctx: Arc<Context>,
    /// Keeps a copied project alive.
    _dir: Option<common::Fixture>,
    /// An address of a symbol with uses in several files.
    symbol: Value,
    /// An address of a function with callers.
    function: Value,
    /// `file`, `line`, `character` right after a `value.`.
    completion: Value,
}

/// One tool's figures on one project.
struct Row {
    project: &'static str,
    tool: &'static str,
    tool_time: Duration,
    server_time: Duration,
    bytes: usize,
    note: String,
}

/// Times `tool` against `raw` (both already warm), alternated.
async fn compare<R, Fut>(
    ctx: &Arc<Context>,
    tool: &str,
    args: &Value,
    mut raw: R,
) -> (Duration, Duration, String)
where
    R: FnMut() -> Fut,
    Fut: std::future::Future<Output = Duration>,
{
    let answer = common::run(ctx, tool, args.clone()).await;
    raw().await;
    let (mut tools, mut raws) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let t = Instant::now();
        common::run(ctx, tool, args.clone()).await;
        tools.push(t.elapsed());
        raws.push(raw().await);
    }
    (common::median(tools), common::median(raws), answer)
}

async fn elapsed<F: std::future::Future>(f: F) -> Duration {
    let t = Instant::now();
    f.await;
    t.elapsed()
}

async fn measure(case: &Case, rows: &mut Vec<Row>) {
    let ctx = &case.ctx;
    // Start and warm the server (and, for TypeScript, every project).
    let first = Instant::now();
    common::run(ctx, "references", case.symbol.clone()).await;
    println!(
        "{}: first references answer {} ms",
        case.name,
        ms(first.elapsed())
    );

    // inspect: four requests at once.
    let (client, at) = common::lsp_position(ctx, &case.symbol).await;
    let goto = GotoDefinitionParams {
        text_document_position_params: at.clone(),
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let hover = HoverParams {
        text_document_position_params: at.clone(),
        work_done_progress_params: Default::default(),
    };
    let (tool, raw, answer) = compare(ctx, "inspect", &case.symbol, || {
        let (client, goto, hover) = (Arc::clone(&client), goto.clone(), hover.clone());
        async move {
            let times = [
                elapsed(client.connection().request::<HoverRequest>(hover, TIMEOUT)).await,
                elapsed(
                    client
                        .connection()
                        .request::<GotoDefinition>(goto.clone(), TIMEOUT),
                )
                .await,
                elapsed(
                    client
                        .connection()
                        .request::<GotoTypeDefinition>(goto.clone(), TIMEOUT),
                )
                .await,
                elapsed(
                    client
                        .connection()
                        .request::<GotoImplementation>(goto, TIMEOUT),
                )
                .await,
            ];
            times.into_iter().max().unwrap()
        }
    })
    .await;
    rows.push(Row {
        project: case.name,
        tool: "inspect",
        tool_time: tool,
        server_time: raw,
        bytes: answer.len(),
        note: "raw: slowest of hover, definition, type definition, implementation".into(),
    });

    // references, with the definition beside it.
    let references = ReferenceParams {
        text_document_position: at.clone(),
        context: ReferenceContext {
            include_declaration: true,
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let (tool, raw, answer) = compare(ctx, "references", &case.symbol, || {
        let (client, references, goto) = (Arc::clone(&client), references.clone(), goto.clone());
        async move {
            let times = [
                elapsed(
                    client
                        .connection()
                        .request::<References>(references, TIMEOUT),
                )
                .await,
                elapsed(client.connection().request::<GotoDefinition>(goto, TIMEOUT)).await,
            ];
            times.into_iter().max().unwrap()
        }
    })
    .await;
    let bare = without_enclosing(&answer);
    let found = answer.lines().nth(1).unwrap_or("").to_string();
    rows.push(Row {
        project: case.name,
        tool: "references",
        tool_time: tool,
        server_time: raw,
        bytes: answer.len(),
        note: format!(
            "{found}; {} bytes without enclosing symbols: +{:.0}%",
            bare,
            (answer.len() as f64 / bare as f64 - 1.0) * 100.0
        ),
    });

    // call_hierarchy, both directions: prepare, then incoming and outgoing.
    let (client, at) = common::lsp_position(ctx, &case.function).await;
    let prepare = CallHierarchyPrepareParams {
        text_document_position_params: at,
        work_done_progress_params: Default::default(),
    };
    let (tool, raw, answer) = compare(ctx, "call_hierarchy", &case.function, || {
        let (client, prepare) = (Arc::clone(&client), prepare.clone());
        async move {
            let t = Instant::now();
            let items = client
                .connection()
                .request::<CallHierarchyPrepare>(prepare, TIMEOUT)
                .await
                .ok()
                .flatten()
                .unwrap_or_default();
            if let Some(item) = items.into_iter().next() {
                let _ = client
                    .connection()
                    .request::<CallHierarchyIncomingCalls>(
                        CallHierarchyIncomingCallsParams {
                            item: item.clone(),
                            work_done_progress_params: Default::default(),
                            partial_result_params: Default::default(),
                        },
                        TIMEOUT,
                    )
                    .await;
                let _ = client
                    .connection()
                    .request::<CallHierarchyOutgoingCalls>(
                        CallHierarchyOutgoingCallsParams {
                            item,
                            work_done_progress_params: Default::default(),
                            partial_result_params: Default::default(),
                        },
                        TIMEOUT,
                    )
                    .await;
            }
            t.elapsed()
        }
    })
    .await;
    rows.push(Row {
        project: case.name,
        tool: "call_hierarchy",
        tool_time: tool,
        server_time: raw,
        bytes: answer.len(),
        note: "raw: prepare + incoming + outgoing".into(),
    });

    // completion.
    let path = ctx
        .workspace
        .resolve_read(case.completion["file"].as_str().unwrap())
        .unwrap();
    let session = ctx.lsp.open(&path, Need::PROJECT).await.unwrap();
    let text_document_position = session
        .position_params(sextant::model::Position::new(
            case.completion["line"].as_u64().unwrap() as u32,
            case.completion["character"].as_u64().unwrap() as u32,
        ))
        .unwrap();
    let params = CompletionParams {
        text_document_position,
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
        context: None,
    };
    let client = Arc::clone(session.client());
    let (tool, raw, answer) = compare(ctx, "completion", &case.completion, || {
        let (client, params) = (Arc::clone(&client), params.clone());
        async move {
            let t = Instant::now();
            let mut items = match client
                .connection()
                .request::<Completion>(params, TIMEOUT)
                .await
            {
                Ok(Some(CompletionResponse::Array(items))) => items,
                Ok(Some(CompletionResponse::List(list))) => list.items,
                _ => Vec::new(),
            };
            // The resolves the tool makes: the best 50 that lack a detail
            // or documentation, 16 at a time.
            items.sort_by(|a, b| {
                let key = |i: &CompletionItem| i.sort_text.clone().unwrap_or(i.label.clone());
                key(a).cmp(&key(b))
            });
            let resolving = client
                .capabilities()
                .completion_provider
                .as_ref()
                .is_some_and(|p| p.resolve_provider == Some(true));
            if resolving {
                let asks = items
                    .into_iter()
                    .take(50)
                    .filter(|i| i.detail.is_none() || i.documentation.is_none())
                    .map(|item| {
                        client
                            .connection()
                            .request::<ResolveCompletionItem>(item, TIMEOUT)
                    });
                futures::stream::iter(asks)
                    .buffer_unordered(16)
                    .collect::<Vec<_>>()
                    .await;
            }
            t.elapsed()
        }
    })
    .await;
    rows.push(Row {
        project: case.name,
        tool: "completion",
        tool_time: tool,
        server_time: raw,
        bytes: answer.len(),
        note: format!(
            "{}; raw: the list and the resolves",
            answer.lines().next().unwrap_or("")
        ),
    });
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
}

/// The bytes of a references answer with ` in <enclosing>` taken out of
/// every reference line.
fn without_enclosing(answer: &str) -> usize {
    answer
        .lines()
        .map(|line| {
            let trimmed = line.trim_start();
            match (
                trimmed.starts_with('@'),
                line.find(" in "),
                line.find(": `"),
            ) {
                (true, Some(start), Some(end)) if start < end => line.len() - (end - start) + 1,
                _ => line.len() + 1,
            }
        })
        .sum()
}

fn fixture_case(
    name: &'static str,
    fixture: &str,
    config: &str,
    symbol: Value,
    function: Value,
    completion: Value,
) -> Case {
    let f = common::fixture_with(fixture, &[("sextant.toml", config)]);
    Case {
        name,
        ctx: Arc::clone(&f.ctx),
        _dir: Some(f),
        symbol,
        function,
        completion,
    }
}

/// sextant's own source, read in place, with rust-analyzer told not to
/// build (no build scripts, no check on save): only navigation is timed.
fn sextant_case(config_dir: &Path) -> Case {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = config_dir.join("sextant.toml");
    std::fs::write(
        &config,
        "[language.rust.initialization_options]\ncheckOnSave = false\ncargo = { buildScripts = { enable = false }, targetDir = true }\nprocMacro = { enable = false }\n",
    )
    .unwrap();
    let ctx = Arc::new(Context::new(
        sextant::fs::workspace::Workspace::new(&root, &[]).unwrap(),
        sextant::lsp::config::Config::load(&root, Some(&config)).unwrap(),
        true,
    ));
    // The first `ctx.` in the tools' registry: a completion of the context's fields.
    let text = std::fs::read_to_string(root.join("src/tools/diagnostics/mod.rs")).unwrap();
    let (line, character) = text
        .lines()
        .enumerate()
        .find_map(|(n, l)| {
            l.find("ctx.lsp")
                .map(|c| (n + 1, l[..c].chars().count() + 5))
        })
        .unwrap();
    Case {
        name: "sextant (rust-analyzer)",
        ctx,
        _dir: None,
        symbol: json!({"file": "src/error.rs", "symbol": "ToolError"}),
        function: json!({"file": "src/error.rs", "symbol": "impl ToolError/new"}),
        completion: json!({"file": "src/tools/diagnostics/mod.rs", "line": line, "character": character}),
    }
}

/// A JavaScript project of `files` modules, each calling `target` (of
/// `src/lib.js`) twice on each of its `lines` lines.
fn generate_javascript(root: &Path, files: usize, lines: usize) {
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "generated-js", "private": true, "type": "module" }"#,
    )
    .unwrap();
    // The project the server loads whole (without it, only the open file).
    std::fs::write(
        root.join("jsconfig.json"),
        r#"{ "compilerOptions": { "module": "esnext", "target": "es2022" }, "include": ["src"] }"#,
    )
    .unwrap();
    std::fs::write(
        root.join("src/lib.js"),
        "export function target(x) {\n  return { value: x + 1 };\n}\n",
    )
    .unwrap();
    for file in 1..=files {
        let mut text = String::from("import { target } from './lib.js';\n");
        for line in 1..=lines {
            text.push_str(&format!(
                "export const v{line} = target({line}).value + target({}).value;\n",
                line + 1
            ));
        }
        std::fs::write(root.join(format!("src/use{file}.js")), text).unwrap();
    }
}

/// The allocator of sextant's binary (see `src/main.rs`): sextant's code
/// run here is measured as it ships.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() {
    const NATIVE: &str = "[language.typescript]\nserver = \"typescript-go\"\n";
    const JAVASCRIPT: &str = "[language.typescript]\nserver = \"typescript-language-server\"\n";
    let ts = |name, config| {
        fixture_case(
            name,
            "ts",
            config,
            json!({"file": "src/shapes.ts", "symbol": "Circle"}),
            json!({"file": "src/shapes.ts", "symbol": "Registry.totalArea"}),
            json!({"file": "src/index.ts", "line": 6, "character": 12}),
        )
    };
    let mut cases = vec![
        ts("ts fixture (typescript-go)", NATIVE),
        ts("ts fixture (typescript-language-server)", JAVASCRIPT),
        fixture_case(
            "rust fixture (rust-analyzer)",
            "rust",
            "",
            json!({"file": "src/lib.rs", "symbol": "Ledger"}),
            json!({"file": "src/lib.rs", "symbol": "impl Ledger/total"}),
            json!({"file": "src/report.rs", "line": 14, "character": 35}),
        ),
    ];
    // A generated monorepo: 10 packages of 40 modules, each using the last.
    let monorepo = tempfile::tempdir().unwrap();
    common::generate_monorepo(monorepo.path(), 10, 40);
    std::fs::write(monorepo.path().join("sextant.toml"), NATIVE).unwrap();
    cases.push(Case {
        name: "400-file monorepo (typescript-go)",
        ctx: common::context(monorepo.path(), true),
        _dir: None,
        symbol: json!({"file": "packages/p3/src/m20.ts", "symbol": "Thing20"}),
        function: json!({"file": "packages/p3/src/m20.ts", "symbol": "make20"}),
        completion: json!({"file": "packages/p3/src/m21.ts", "line": 16, "character": 44}),
    });
    let javascript = tempfile::tempdir().unwrap();
    generate_javascript(javascript.path(), 60, 40);
    std::fs::write(javascript.path().join("sextant.toml"), NATIVE).unwrap();
    cases.push(Case {
        name: "JavaScript, 4,800 uses (typescript-go)",
        ctx: common::context(javascript.path(), true),
        _dir: None,
        symbol: json!({"file": "src/lib.js", "symbol": "target"}),
        function: json!({"file": "src/lib.js", "symbol": "target"}),
        completion: json!({"file": "src/use1.js", "line": 2, "character": 29}),
    });
    let config_dir = tempfile::tempdir().unwrap();
    cases.push(sextant_case(config_dir.path()));

    // `cargo bench --bench navigation -- writes`: the writes' figures only;
    // `-- case=TEXT`: the navigation figures of the projects named so.
    let only_impact = std::env::args().any(|a| a == "writes");
    let only_case = std::env::args().find_map(|a| a.strip_prefix("case=").map(String::from));
    let mut rows = Vec::new();
    let mut renames = Vec::new();
    if let Some(only) = only_case {
        for case in cases.iter().filter(|case| case.name.contains(&only)) {
            measure(case, &mut rows).await;
        }
        print_navigation(&rows, renames);
        return;
    }
    if !only_impact {
        for case in &cases {
            measure(case, &mut rows).await;
        }
        for language in ["typescript", "rust"] {
            renames.push(rename_figures(language).await);
        }
    }
    let impacts = [
        impact_figures(ImpactCase::Monorepo).await,
        impact_figures(ImpactCase::RustFixture).await,
    ];
    let fixes = fix_figures().await;

    if !only_impact {
        print_navigation(&rows, renames);
    }
    let mut out = String::from(
        "## Writes: impact and fix\n\n\
         Written by `cargo bench --bench navigation -- writes`. A one-file edit applied \
         with its impact and without it, in turn (medians, warm): the impact's cost is the \
         difference.\n\n\
         | one-file edit, applied | without impact (ms) | with impact (ms) | the impact's cost (ms) | impact |\n\
         |---|---|---|---|---|\n",
    );
    for i in impacts {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            i.name,
            ms(i.without),
            ms(i.with),
            ms(i.with.saturating_sub(i.without)),
            i.block
        ));
    }
    out.push_str(&format!(
        "\n`fix` on the TypeScript fixture (typescript-go), an unresolved name, against the raw \
         requests it makes (the document's diagnostics pulled, the code actions there, the \
         file's organize imports), medians of {ROUNDS}, warm:\n\n\
         | fix | raw requests (ms) | fix (ms) | sextant's own (ms) | bytes |\n\
         |---|---|---|---|---|\n"
    ));
    for (what, tool, raw, bytes) in fixes {
        out.push_str(&format!(
            "| {what} | {} | {} | {} | {bytes} |\n",
            ms(raw),
            ms(tool),
            ms(tool.saturating_sub(raw))
        ));
    }
    println!("\n{out}");
    if only_impact {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
        let existing = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, section::replace(&existing, "## Writes", &out)).unwrap();
    }
}

/// `fix` listing the actions for an unresolved name, and previewing the
/// import, against the raw requests the listing makes.
async fn fix_figures() -> Vec<(&'static str, Duration, Duration, usize)> {
    let uses =
        "import { Circle } from \"./shapes\";\nexport const big = scale(new Circle(1), 2);\n";
    let f = common::fixture_with(
        "ts",
        &[
            (
                "sextant.toml",
                "[language.typescript]\nserver = \"typescript-go\"\n",
            ),
            ("src/uses.ts", uses),
        ],
    );
    let place = json!({"file": "src/uses.ts", "line": 2, "character": 20});
    let ctx = &f.ctx;
    let (client, at) = common::lsp_position(ctx, &place).await;
    let raw = || {
        let (client, at) = (Arc::clone(&client), at.clone());
        async move {
            let t = Instant::now();
            let pulled = client
                .connection()
                .request::<DocumentDiagnosticRequest>(
                    DocumentDiagnosticParams {
                        text_document: at.text_document.clone(),
                        identifier: None,
                        previous_result_id: None,
                        work_done_progress_params: Default::default(),
                        partial_result_params: Default::default(),
                    },
                    TIMEOUT,
                )
                .await
                .unwrap();
            let diagnostics = match pulled {
                DocumentDiagnosticReportResult::Report(DocumentDiagnosticReport::Full(full)) => {
                    full.full_document_diagnostic_report.items
                }
                _ => Vec::new(),
            };
            for only in [None, Some(vec![CodeActionKind::SOURCE_ORGANIZE_IMPORTS])] {
                let params = CodeActionParams {
                    text_document: at.text_document.clone(),
                    range: lsp_types::Range {
                        start: at.position,
                        end: at.position,
                    },
                    context: CodeActionContext {
                        diagnostics: if only.is_none() {
                            diagnostics.clone()
                        } else {
                            Vec::new()
                        },
                        only,
                        trigger_kind: None,
                    },
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                client
                    .connection()
                    .request::<CodeActionRequest>(params, TIMEOUT)
                    .await
                    .unwrap();
            }
            t.elapsed()
        }
    };
    let (tool, raw_time, answer) = compare(ctx, "fix", &place, raw).await;
    let mut rows = vec![("list the actions", tool, raw_time, answer.len())];
    let mut take = place.clone();
    take["action"] = json!(1);
    let (tool, raw_time, answer) = compare(ctx, "fix", &take, raw).await;
    rows.push((
        "preview action 1 (the import)",
        tool,
        raw_time,
        answer.len(),
    ));
    rows
}

/// The navigation tools' and rename's tables.
fn print_navigation(rows: &[Row], renames: Vec<RenameFigures>) {
    println!();
    println!("| project | tool | tool median (ms) | server (ms) | sextant's own (ms) | bytes | |");
    println!("|---|---|---|---|---|---|---|");
    for row in rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {} |",
            row.project,
            row.tool,
            ms(row.tool_time),
            ms(row.server_time),
            ms(row.tool_time.saturating_sub(row.server_time)),
            row.bytes,
            row.note
        );
    }
    println!();
    println!(
        "| rename of a function called from {CALLERS} files | raw rename (ms) | preview (ms) | preview - raw (ms) | apply (ms) | preview bytes |"
    );
    println!("|---|---|---|---|---|---|");
    for r in renames {
        println!(
            "| {} | {} | {} | {} | {} | {} |",
            r.name,
            ms(r.raw),
            ms(r.preview),
            ms(r.preview.saturating_sub(r.raw)),
            ms(r.apply),
            r.bytes
        );
    }
}

/// Where the impact of a write is timed.
enum ImpactCase {
    /// A generated 300-file TypeScript monorepo on TypeScript 7's server.
    Monorepo,
    /// The Rust fixture on rust-analyzer, whose cargo check runs after
    /// every write.
    RustFixture,
}

struct ImpactFigures {
    name: &'static str,
    without: Duration,
    with: Duration,
    /// The first line of the impact block.
    block: String,
}

/// An edit that changes no type written back and forth, with its impact
/// and without it in turn (each direction both ways across the rounds):
/// the medians, warm.
async fn impact_figures(case: ImpactCase) -> ImpactFigures {
    let (name, rounds, file, old, new, _keep, ctx) = match case {
        ImpactCase::Monorepo => {
            let dir = tempfile::tempdir().unwrap();
            common::generate_monorepo(dir.path(), 10, 30);
            std::fs::write(
                dir.path().join("sextant.toml"),
                "[language.typescript]\nserver = \"typescript-go\"\n",
            )
            .unwrap();
            let ctx = common::context(dir.path(), false);
            (
                "300-file monorepo (typescript-go)",
                10,
                "packages/p3/src/m20.ts",
                "return this.value * 2;",
                "return this.value * 3;",
                dir,
                ctx,
            )
        }
        ImpactCase::RustFixture => {
            let f = common::fixture("rust");
            let ctx = Arc::clone(&f.ctx);
            (
                "rust fixture (rust-analyzer, cargo check)",
                5,
                "src/lib.rs",
                "    pub fn total(&self) -> i64 {",
                "    pub fn total(&self) -> i64 { // all entries",
                f.dir,
                ctx,
            )
        }
    };
    let edit = |from: &str, to: &str, impact: bool| json!({"path": file, "old_string": from, "new_string": to, "apply": true, "impact": impact});
    // Warm: the server started, a write measured once both ways.
    common::run(&ctx, "diagnostics", json!({"file": file})).await;
    common::run(&ctx, "edit", edit(old, new, true)).await;
    common::run(&ctx, "edit", edit(new, old, true)).await;
    let (mut with, mut without, mut block) = (Vec::new(), Vec::new(), String::new());
    for round in 0..rounds {
        for (from, to) in [(old, new), (new, old)] {
            let measured = (round % 2 == 0) == (from == old);
            let t = Instant::now();
            let answer = common::run(&ctx, "edit", edit(from, to, measured)).await;
            let took = t.elapsed();
            if measured {
                with.push(took);
                block = answer
                    .lines()
                    .find(|l| l.starts_with("Impact: "))
                    .unwrap_or("(none)")
                    .to_string();
            } else {
                without.push(took);
            }
        }
    }
    ImpactFigures {
        name,
        without: common::median(without),
        with: common::median(with),
        block,
    }
}

/// Files calling the renamed function.
const CALLERS: usize = 60;

struct RenameFigures {
    name: &'static str,
    raw: Duration,
    preview: Duration,
    apply: Duration,
    bytes: usize,
}

/// A pseudo-random number from a seed (the generated projects vary the
/// calls per file, the same on every run).
fn next(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

/// A project where `shared` is called from `CALLERS` files, 1 to 3 times
/// each.
fn generate_rename_project(root: &Path, language: &str) -> (String, Value) {
    let mut seed = 42;
    if language == "typescript" {
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("package.json"),
            r#"{ "name": "renames", "type": "module" }"#,
        )
        .unwrap();
        std::fs::write(
            root.join("tsconfig.json"),
            r#"{ "compilerOptions": { "strict": true, "noEmit": true, "module": "ES2022", "moduleResolution": "bundler" }, "include": ["src/**/*.ts"] }"#,
        )
        .unwrap();
        std::fs::write(
            root.join("src/core.ts"),
            "export function shared(n: number): number {\n  return n * 2;\n}\n",
        )
        .unwrap();
        for i in 0..CALLERS {
            let calls = 1 + next(&mut seed) % 3;
            let mut text = "import { shared } from \"./core\";\n\n".to_string();
            for c in 0..calls {
                text.push_str(&format!("export const value{c} = shared({i} + {c});\n"));
            }
            std::fs::write(root.join(format!("src/m{i}.ts")), text).unwrap();
        }
        (
            "[language.typescript]\nserver = \"typescript-go\"\n".to_string(),
            json!({"file": "src/core.ts", "symbol": "shared"}),
        )
    } else {
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("Cargo.toml"),
            "[package]\nname = \"renames\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
        )
        .unwrap();
        let mut lib = "pub fn shared(n: u64) -> u64 {\n    n * 2\n}\n\n".to_string();
        for i in 0..CALLERS {
            lib.push_str(&format!("pub mod m{i};\n"));
            let calls = 1 + next(&mut seed) % 3;
            let mut text = String::new();
            for c in 0..calls {
                text.push_str(&format!(
                    "pub fn value{c}() -> u64 {{\n    crate::shared({i} + {c})\n}}\n"
                ));
            }
            std::fs::write(root.join(format!("src/m{i}.rs")), text).unwrap();
        }
        std::fs::write(root.join("src/lib.rs"), lib).unwrap();
        (
            "[language.rust.initialization_options]\ncheckOnSave = false\ncargo = { buildScripts = { enable = false } }\n".to_string(),
            json!({"file": "src/lib.rs", "symbol": "shared"}),
        )
    }
}

async fn rename_figures(language: &'static str) -> RenameFigures {
    let dir = tempfile::tempdir().unwrap();
    let (config, at) = generate_rename_project(dir.path(), language);
    std::fs::write(dir.path().join("sextant.toml"), config).unwrap();
    let ctx = common::context(dir.path(), false);
    // Start the server and load the project.
    common::run(&ctx, "references", at.clone()).await;
    let (client, position) = common::lsp_position(&ctx, &at).await;
    let raw_params = lsp_types::RenameParams {
        text_document_position: position,
        new_name: "renamed".into(),
        work_done_progress_params: Default::default(),
    };
    let args = |name: &str| {
        let mut args = at.clone();
        args["new_name"] = json!(name);
        args
    };
    let (mut raws, mut previews, mut applies) = (Vec::new(), Vec::new(), Vec::new());
    let mut bytes = 0;
    let mut name = "shared".to_string();
    for round in 0..10 {
        let t = Instant::now();
        let _ = client
            .connection()
            .request::<lsp_types::request::Rename>(raw_params.clone(), TIMEOUT)
            .await;
        raws.push(t.elapsed());
        // Preview a rename away from the current name, and apply it.
        let new_name = format!("renamed{round}");
        let mut at_now = args(&new_name);
        at_now["symbol"] = json!(name);
        let t = Instant::now();
        let preview = common::run(&ctx, "rename", at_now).await;
        previews.push(t.elapsed());
        bytes = preview.len();
        let id = preview
            .lines()
            .find_map(|l| l.strip_prefix("patch: "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("{preview}"))
            .to_string();
        let t = Instant::now();
        let applied = common::run(&ctx, "apply_patch", json!({"patch": id})).await;
        applies.push(t.elapsed());
        assert!(applied.starts_with("Applied"), "{applied}");
        name = new_name;
        // The next request right after a write waits out the server's
        // reload moment (rust-analyzer's `reload_delay`, 300 ms), by
        // design: measured apart, as an agent's next call comes later.
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    ctx.lsp.shutdown(Duration::from_secs(2)).await;
    RenameFigures {
        name: if language == "typescript" {
            "typescript-go"
        } else {
            "rust-analyzer"
        },
        raw: common::median(raws),
        preview: common::median(previews),
        apply: common::median(applies),
        bytes,
    }
}
