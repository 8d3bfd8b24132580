//! The one benchmark: every tool, on every kind of project, through the
//! built (release) binary over MCP, as an agent's client calls it; printed
//! as one table and written to `BENCHMARKS.md` with the machine, the date
//! and the command. Run it with `bash scripts/bench.sh`, which installs
//! what it needs first.
//!
//! For each project (the TypeScript fixture on TypeScript 7's server and on
//! typescript-language-server, the Rust fixture on rust-analyzer, the
//! Python fixture on ty, the C/C++ fixture on clangd, and a TypeScript
//! monorepo, a Rust workspace and a Python project of 300 files each,
//! generated from a fixed seed) and each tool:
//! - warm median and p95 latency over `ROUNDS` calls (after one warm-up),
//!   client to answer over stdio, alternated with the raw requests below,
//!   and sextant's own CPU time per call (which ranks changes where a
//!   server's pauses swing the wall times: TypeScript 7 on a monorepo);
//! - for the tools that ask a language server, the raw LSP round trip of
//!   the same requests, made by the bench's own client to its own warm
//!   server on the same project (`inspect`: hover, definition, type
//!   definition and implementation at once; `references`; `call_hierarchy`:
//!   prepare, incoming, outgoing; `completion`: the list alone, so its
//!   overhead includes the resolves of shown items; `search`:
//!   workspace/symbol, and on typescript-language-server tsserver's navto
//!   after it; `rename` (a preview): prepareRename, then rename (with the
//!   symbol's references beside, where sextant asks for them);
//!   `diagnostics` of a file: the pull request, where the server offers
//!   it), and sextant's overhead: the tool's median less the raw median,
//!   MCP included; and its own time: each call's less what sextant's log
//!   says it waited on its server (`tools::call` logs it), which needs no
//!   second server and so none of a second server's pauses;
//! - the bytes of the answer, and tokens estimated as bytes / 4.
//!
//! Then tools/list bytes; the peak resident memory of sextant alone and of
//! its whole process tree (each process's peak, summed) on the fixtures and
//! on the generated projects; cold start, spawn to the first `read` and to
//! the first `search` answer, with the servers installed and with none;
//! and `grep` against `rg` on the cargo registry's sources (see
//! `grep_vs_rg.rs`). Nothing here asserts a time: the figures inform.
//!
//! `cargo bench --bench table -- --corpus NAME=DIR` (repeatable) measures
//! real projects instead, where they are: NAME picks what to ask of it
//! (`CORPORA`), the tools that write are left out, and the table goes to
//! its own section of BENCHMARKS.md. Two builds compared side by side on a
//! real project: `versus.rs`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "corpora.rs"]
mod corpora;
#[path = "grep_vs_rg.rs"]
#[allow(dead_code)]
mod grep_vs_rg;
#[path = "rounds.rs"]
mod rounds;
#[path = "section.rs"]
mod section;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_types::request::{
    CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare, Completion,
    DocumentDiagnosticRequest, ExecuteCommand, GotoDefinition, GotoImplementation,
    GotoTypeDefinition, HoverRequest, PrepareRenameRequest, References, Rename,
    WorkspaceSymbolRequest,
};
use lsp_types::{
    CallHierarchyIncomingCallsParams, CallHierarchyOutgoingCallsParams, CallHierarchyPrepareParams,
    CompletionParams, DocumentDiagnosticParams, ExecuteCommandParams, GotoDefinitionParams,
    HoverParams, ReferenceContext, ReferenceParams, RenameParams, WorkspaceSymbolParams,
};
use serde_json::{Value, json};
use sextant::context::Context;

use corpora::{CORPORA, Project, after, corpora_asked, servers_answer_search};
use rounds::{ROUNDS, Rounds, call, cpu_time, ms, percentile};

const TIMEOUT: Duration = Duration::from_secs(60);
const SEXTANT: &str = env!("CARGO_BIN_EXE_sextant");

/// The raw LSP requests a tool makes, where it asks a server.
#[derive(Clone, Copy)]
enum Raw {
    Search,
    Inspect,
    References,
    CallHierarchy,
    Completion,
    Rename,
    Diagnostics,
}

/// One row of the table.
struct Row {
    project: String,
    tool: &'static str,
    median: Duration,
    p95: Duration,
    raw: Option<Duration>,
    /// The median of each call's time less its waits on its server.
    own: Option<Duration>,
    /// sextant's own CPU time per call (every thread, user and system).
    cpu: Option<Duration>,
    bytes: usize,
    error: bool,
}

/// Memory of one project's run, in MB.
struct Memory {
    project: String,
    sextant_peak: f64,
    tree_peak: f64,
}

/// `tool` called `ROUNDS` times after a warm-up: median, p95, CPU per
/// call, bytes.
async fn time_tool(
    client: &common::mcp::Client,
    pid: u32,
    tool: &'static str,
    args: &Value,
) -> Timed {
    let (bytes, error) = call(client, tool, args).await;
    let mut rounds = Rounds::new(pid);
    for _ in 0..ROUNDS {
        rounds.call(client, tool, args).await;
    }
    Timed {
        median: rounds.median(),
        p95: rounds.p95(),
        cpu: rounds.cpu_per_call(),
        bytes,
        error,
        raw: None,
        own: None,
    }
}

/// Says why a raw request failed (its row then has no raw figure).
fn raw_failed(err: sextant::lsp::LspError) {
    eprintln!("a raw request failed: {err}");
}

/// `tool` and the raw LSP requests `raw` stands for (made by the bench's
/// own client), alternated round by round so both see the same noise,
/// after one warm-up of each: the tool's median, p95, CPU per call,
/// bytes and error, and the raw median (`None` when the raw requests
/// failed).
async fn time_with_raw(
    mcp: &common::mcp::Client,
    pid: u32,
    tool: &'static str,
    args: &Value,
    ctx: &Arc<Context>,
    project: &Project,
    raw: Raw,
) -> Timed {
    let address = match raw {
        Raw::Search => project.symbol.clone(),
        Raw::Inspect | Raw::References => project.symbol.clone(),
        Raw::CallHierarchy | Raw::Rename => project.function.clone(),
        Raw::Completion => project.completion.clone(),
        // `symbol` is declared in `file` (but for C, whose server has no
        // pull request to time).
        Raw::Diagnostics => project.symbol.clone(),
    };
    // With the projects the tools open (all of a monorepo's), so the raw
    // requests search as much as the tools do.
    let (client, at) = common::lsp_position(ctx, &address).await;
    client.wait_ready(client.language().ready_timeout).await;
    // The references request, as `references` and a rename beside it ask.
    let references_at = || ReferenceParams {
        text_document_position: at.clone(),
        context: ReferenceContext {
            include_declaration: true,
        },
        work_done_progress_params: Default::default(),
        partial_result_params: Default::default(),
    };
    let once = async || -> Option<()> {
        match raw {
            Raw::Search => {
                let params = WorkspaceSymbolParams {
                    query: project.query.to_string(),
                    ..Default::default()
                };
                client
                    .connection()
                    .request::<WorkspaceSymbolRequest>(params, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
                // On typescript-language-server, tsserver's navto across
                // every project follows, as sextant asks it.
                if client.language().tsserver_requests {
                    let navto = ExecuteCommandParams {
                        command: "typescript.tsserverRequest".into(),
                        arguments: vec![
                            json!("navto"),
                            json!({"searchValue": project.query, "maxResultCount": 1000}),
                        ],
                        work_done_progress_params: Default::default(),
                    };
                    client
                        .connection()
                        .request::<ExecuteCommand>(navto, TIMEOUT)
                        .await
                        .map_err(raw_failed)
                        .ok()?;
                }
            }
            Raw::Inspect => {
                let goto = GotoDefinitionParams {
                    text_document_position_params: at.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                let hover = HoverParams {
                    text_document_position_params: at.clone(),
                    work_done_progress_params: Default::default(),
                };
                let _ = tokio::join!(
                    client.connection().request::<HoverRequest>(hover, TIMEOUT),
                    client
                        .connection()
                        .request::<GotoDefinition>(goto.clone(), TIMEOUT),
                    client
                        .connection()
                        .request::<GotoTypeDefinition>(goto.clone(), TIMEOUT),
                    client
                        .connection()
                        .request::<GotoImplementation>(goto, TIMEOUT),
                );
            }
            Raw::References => {
                let params = references_at();
                client
                    .connection()
                    .request::<References>(params, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
            }
            Raw::CallHierarchy => {
                let params = CallHierarchyPrepareParams {
                    text_document_position_params: at.clone(),
                    work_done_progress_params: Default::default(),
                };
                let items = client
                    .connection()
                    .request::<CallHierarchyPrepare>(params, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()??;
                let item = items.into_iter().next()?;
                let incoming = CallHierarchyIncomingCallsParams {
                    item: item.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                client
                    .connection()
                    .request::<CallHierarchyIncomingCalls>(incoming, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
                let outgoing = CallHierarchyOutgoingCallsParams {
                    item,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                client
                    .connection()
                    .request::<CallHierarchyOutgoingCalls>(outgoing, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
            }
            Raw::Rename => {
                let _ = client
                    .connection()
                    .request::<PrepareRenameRequest>(at.clone(), TIMEOUT)
                    .await;
                let params = RenameParams {
                    text_document_position: at.clone(),
                    new_name: "renamedForBench".into(),
                    work_done_progress_params: Default::default(),
                };
                let rename = client.connection().request::<Rename>(params, TIMEOUT);
                // Beside it, the symbol's references, where sextant asks for
                // them with the rename.
                let references = async {
                    if client.rename_asks_references() {
                        let params = references_at();
                        let _ = client
                            .connection()
                            .request::<References>(params, TIMEOUT)
                            .await;
                    }
                };
                let (renamed, ()) = tokio::join!(rename, references);
                renamed.map_err(raw_failed).ok()??;
            }
            // Pull diagnostics, where the server offers them (a server that
            // only publishes has no round trip to compare with).
            Raw::Diagnostics => {
                let params = DocumentDiagnosticParams {
                    text_document: at.text_document.clone(),
                    identifier: None,
                    previous_result_id: None,
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                };
                client
                    .connection()
                    .request::<DocumentDiagnosticRequest>(params, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
            }
            Raw::Completion => {
                let params = CompletionParams {
                    text_document_position: at.clone(),
                    work_done_progress_params: Default::default(),
                    partial_result_params: Default::default(),
                    context: None,
                };
                client
                    .connection()
                    .request::<Completion>(params, TIMEOUT)
                    .await
                    .map_err(raw_failed)
                    .ok()?;
            }
        }
        Some(())
    };
    let (bytes, error) = call(mcp, tool, args).await;
    let mut raw_works = once().await.is_some();
    let (mut tools, mut raws) = (Rounds::new(pid), Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        tools.call(mcp, tool, args).await;
        if raw_works {
            let t = Instant::now();
            raw_works = once().await.is_some();
            raws.push(t.elapsed());
        }
    }
    let raw = raw_works.then(|| percentile(&raws, 0.5));
    let own = tools.own_median(mcp).await;
    Timed {
        median: tools.median(),
        p95: tools.p95(),
        cpu: tools.cpu_per_call(),
        bytes,
        error,
        raw,
        own,
    }
}

/// A tool's figures beside its raw requests.
struct Timed {
    median: Duration,
    p95: Duration,
    /// sextant's CPU per call.
    cpu: Option<Duration>,
    bytes: usize,
    /// It answered an error.
    error: bool,
    /// The raw requests' median, when they worked.
    raw: Option<Duration>,
    /// The median of each call's time less its own waits on the server.
    own: Option<Duration>,
}

/// Every tool on `project`, through a fresh `sextant serve`; the rows and
/// the memory figures.
async fn measure(project: &Project, rows: &mut Vec<Row>) -> Memory {
    let root = project.root.as_path();
    let (client, pid) = common::mcp::start_with_pid(root, &[]).await;
    let file = project.file;
    let rename = {
        let mut args = project.function.clone();
        args["new_name"] = json!("renamedForBench");
        args
    };
    let calls: Vec<(&'static str, Value, Option<Raw>)> = vec![
        ("read", json!({"file": file}), None),
        ("read_file", json!({"path": file}), None),
        ("find", json!({"pattern": project.glob}), None),
        (
            "grep",
            json!({"pattern": project.query, "output_mode": "content"}),
            None,
        ),
        ("search", json!({"query": project.query}), Some(Raw::Search)),
        ("inspect", project.symbol.clone(), Some(Raw::Inspect)),
        ("references", project.symbol.clone(), Some(Raw::References)),
        (
            "call_hierarchy",
            project.function.clone(),
            Some(Raw::CallHierarchy),
        ),
        (
            "completion",
            project.completion.clone(),
            Some(Raw::Completion),
        ),
        ("rename", rename, Some(Raw::Rename)),
        ("diagnostics", json!({"file": file}), Some(Raw::Diagnostics)),
        (
            "pipe",
            json!({"steps": [
                {"tool": "find", "args": {"pattern": project.glob}},
                {"tool": "grep", "args": {"pattern": project.query, "output_mode": "content"}},
            ]}),
            None,
        ),
        (
            "edit",
            json!({"path": file, "old_string": project.edit.0, "new_string": project.edit.1}),
            None,
        ),
        (
            "create_file",
            json!({"path": "bench-scratch/notes.txt", "content": "scratch\n".repeat(50), "overwrite": true}),
            None,
        ),
        ("logs", json!({}), None),
    ];
    let calls = calls
        .into_iter()
        .filter(|(tool, ..)| project.writes || *tool != "create_file");
    servers_answer_search(&client, project.query).await;
    // The bench's own client, for the raw requests, on the same project.
    let raw_ctx = common::context(root, true);
    for (tool, args, raw) in calls {
        let timed = match raw {
            Some(raw) => time_with_raw(&client, pid, tool, &args, &raw_ctx, project, raw).await,
            None => time_tool(&client, pid, tool, &args).await,
        };
        rows.push(Row {
            project: project.name.clone(),
            tool,
            median: timed.median,
            p95: timed.p95,
            raw: timed.raw,
            own: timed.own,
            cpu: timed.cpu,
            bytes: timed.bytes,
            error: timed.error,
        });
    }
    if project.writes {
        rows.push(apply_patch_row(&client, pid, project).await);
    }
    raw_ctx.lsp.shutdown(Duration::from_secs(2)).await;
    let memory = Memory {
        project: project.name.clone(),
        sextant_peak: peak_mb(pid),
        tree_peak: tree_peak_mb(pid),
    };
    client.cancel().await.ok();
    memory
}

/// `apply_patch` of an edit previewed just before, the edit and its undo
/// in turn, so every round writes: the apply alone is timed.
async fn apply_patch_row(client: &common::mcp::Client, pid: u32, project: &Project) -> Row {
    let mut samples = Vec::with_capacity(ROUNDS);
    let mut cpu = Some(Duration::ZERO);
    let mut bytes = 0;
    let mut error = false;
    for round in 0..=ROUNDS {
        let (old, new) = match round % 2 {
            0 => project.edit,
            _ => (project.edit.1, project.edit.0),
        };
        let preview = common::mcp::call(
            client,
            "edit",
            json!({"path": project.file, "old_string": old, "new_string": new}),
        )
        .await;
        let text = common::mcp::texts(&preview).join("\n");
        let Some(id) = text
            .lines()
            .find_map(|l| l.strip_prefix("patch: "))
            .and_then(|rest| rest.split(' ').next())
        else {
            error = true;
            break;
        };
        let before = cpu_time(pid);
        let t = Instant::now();
        let (answer, failed) = call(client, "apply_patch", &json!({"patch": id})).await;
        if round > 0 {
            samples.push(t.elapsed());
            cpu = match (cpu, before, cpu_time(pid)) {
                (Some(sum), Some(before), Some(after)) => Some(sum + after.saturating_sub(before)),
                _ => None,
            };
        }
        bytes = answer;
        error |= failed;
    }
    // Leave the file as it was.
    if ROUNDS.is_multiple_of(2) {
        let (old, new) = (project.edit.1, project.edit.0);
        let _ = common::mcp::call(
            client,
            "edit",
            json!({"path": project.file, "old_string": old, "new_string": new, "apply": true}),
        )
        .await;
    }
    let calls = u32::try_from(samples.len()).unwrap_or(u32::MAX).max(1);
    let samples = if samples.is_empty() {
        vec![Duration::ZERO]
    } else {
        samples
    };
    Row {
        project: project.name.clone(),
        tool: "apply_patch",
        median: percentile(&samples, 0.5),
        p95: percentile(&samples, 0.95),
        raw: None,
        own: None,
        cpu: cpu.map(|cpu| cpu / calls),
        bytes,
        error,
    }
}

/// A field of `/proc/PID/status` in MB (`VmHWM`, `VmRSS`).
fn status_mb(pid: u32, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn peak_mb(pid: u32) -> f64 {
    status_mb(pid, "VmHWM:").unwrap_or(0.0)
}

/// The peak of sextant and of every process under it, summed.
fn tree_peak_mb(pid: u32) -> f64 {
    // Parents from /proc: a process's `children` file lists only the
    // children of one of its threads, and servers are spawned from any.
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let child: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).ok()?;
            let parent = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((child, parent))
        })
        .collect();
    let mut total = 0.0;
    let mut stack = vec![pid];
    while let Some(pid) = stack.pop() {
        total += peak_mb(pid);
        stack.extend(parents.iter().filter(|(_, p)| *p == pid).map(|(c, _)| *c));
    }
    total
}

/// Spawn to the first answer of `tool`, on a fresh copy of `fixture`, with
/// `tools_dir` as the servers' folder.
async fn cold_start(fixture: &str, tool: &str, args: Value, tools_dir: Option<&Path>) -> Duration {
    let f = common::fixture_with(fixture, &[("sextant.toml", "auto_install = false\n")]);
    let mut command = tokio::process::Command::new(SEXTANT);
    command
        .arg("serve")
        .arg("--no-shared")
        .arg("--root")
        .arg(f.root());
    if let Some(dir) = tools_dir {
        command.env("SEXTANT_TOOLS_DIR", dir);
    }
    let started = Instant::now();
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn sextant serve");
    let client = rmcp::ServiceExt::serve((), transport)
        .await
        .expect("MCP initialize");
    common::mcp::call(&client, tool, args).await;
    let elapsed = started.elapsed();
    client.cancel().await.ok();
    elapsed
}

/// Writes a Python project of `packages` packages with `modules` modules
/// each: `pK/mI.py`, each with a class, its method and a function calling
/// the module before it; package K uses package K-1.
fn generate_python_project(root: &Path, packages: usize, modules: usize) {
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"generated\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    for k in 0..packages {
        let package = root.join(format!("p{k}"));
        std::fs::create_dir_all(&package).unwrap();
        let first = match k {
            0 => String::new(),
            _ => format!(
                "from p{}.m0 import make0\n\n\ndef first() -> int:\n    \"\"\"The first thing of the package before.\"\"\"\n    return make0(1).double()\n",
                k - 1
            ),
        };
        std::fs::write(package.join("__init__.py"), first).unwrap();
        for i in 0..modules {
            let mut text = String::new();
            if i > 0 {
                writeln!(text, "from p{k}.m{p} import Thing{p}, make{p}\n", p = i - 1).unwrap();
            }
            write!(
                text,
                "\nclass Thing{i}:\n    \"\"\"Thing number {i} of package {k}.\"\"\"\n\n    def __init__(self, value: int) -> None:\n        self.value = value\n\n    def double(self) -> int:\n        \"\"\"Twice the value.\"\"\"\n        return self.value * 2\n\n\ndef make{i}(value: int) -> Thing{i}:\n    \"\"\"A new Thing{i}.\"\"\"\n    return Thing{i}(value)\n"
            )
            .unwrap();
            if i > 0 {
                write!(
                    text,
                    "\n\ndef chained{i}() -> int:\n    \"\"\"Uses the module before.\"\"\"\n    thing = make{p}(1)\n    return thing.double() + Thing{p}(2).value\n",
                    p = i - 1
                )
                .unwrap();
            }
            std::fs::write(package.join(format!("m{i}.py")), text).unwrap();
        }
    }
}

fn projects() -> Vec<Project> {
    let ts_fixture = |name: &str, dir: tempfile::TempDir| Project {
        name: name.to_string(),
        root: dir.path().to_path_buf(),
        _copy: Some(dir),
        file: "src/shapes.ts",
        symbol: json!({"file": "src/shapes.ts", "symbol": "Circle"}),
        function: json!({"file": "src/shapes.ts", "symbol": "scale"}),
        completion: json!({"file": "src/index.ts", "line": 6, "character": 12}),
        query: "Circle",
        glob: "**/*.ts",
        edit: ("export class Circle", "export class  Circle"),
        writes: true,
    };
    let keep = |f: common::Fixture| f.dir;
    let tsgo = ts_fixture("TS fixture, tsgo", keep(common::fixture("ts")));
    let tsls = ts_fixture(
        "TS fixture, tsls",
        keep(common::fixture_on("ts", common::TYPESCRIPT_LANGUAGE_SERVER)),
    );
    let rust = keep(common::fixture("rust"));
    let rust = Project {
        name: "Rust fixture".to_string(),
        root: rust.path().to_path_buf(),
        _copy: Some(rust),
        file: "src/lib.rs",
        symbol: json!({"file": "src/lib.rs", "symbol": "Ledger"}),
        function: json!({"file": "src/report.rs", "symbol": "summary"}),
        completion: json!({"file": "src/report.rs", "line": 14, "character": 35}),
        query: "Ledger",
        glob: "**/*.rs",
        edit: ("pub struct Ledger", "pub struct  Ledger"),
        writes: true,
    };
    let ts_big = tempfile::tempdir().unwrap();
    common::generate_monorepo(ts_big.path(), 10, 30);
    let completion = after(ts_big.path(), "packages/p3/src/m16.ts", "make15(1).");
    let ts_big = Project {
        name: "TS 300 files, tsgo".to_string(),
        root: ts_big.path().to_path_buf(),
        _copy: Some(ts_big),
        file: "packages/p3/src/m15.ts",
        symbol: json!({"file": "packages/p3/src/m15.ts", "symbol": "Thing15"}),
        function: json!({"file": "packages/p3/src/m15.ts", "symbol": "make15"}),
        completion,
        query: "Thing15",
        glob: "**/*.ts",
        edit: ("export class Thing15", "export class  Thing15"),
        writes: true,
    };
    let rust_big = tempfile::tempdir().unwrap();
    common::generate_rust_workspace(rust_big.path(), 4, 75);
    let completion = after(rust_big.path(), "c2/src/m16.rs", "thing.");
    let rust_big = Project {
        name: "Rust 300 files".to_string(),
        root: rust_big.path().to_path_buf(),
        _copy: Some(rust_big),
        file: "c2/src/m15.rs",
        symbol: json!({"file": "c2/src/m15.rs", "symbol": "Thing15"}),
        function: json!({"file": "c2/src/m15.rs", "symbol": "make15"}),
        completion,
        query: "Thing15",
        glob: "**/*.rs",
        edit: ("pub struct Thing15", "pub struct  Thing15"),
        writes: true,
    };
    let python = common::fixture("python");
    let completion = after(python.root(), "shapes/report.py", "{table.");
    let python = Project {
        name: "Python fixture, ty".to_string(),
        root: python.root().to_path_buf(),
        _copy: Some(keep(python)),
        file: "shapes/geometry.py",
        symbol: json!({"file": "shapes/geometry.py", "symbol": "Circle"}),
        function: json!({"file": "shapes/report.py", "symbol": "total_area"}),
        completion,
        query: "Circle",
        glob: "**/*.py",
        edit: ("class Circle:", "class  Circle:"),
        writes: true,
    };
    let python_big = tempfile::tempdir().unwrap();
    generate_python_project(python_big.path(), 10, 30);
    let completion = after(python_big.path(), "p3/m16.py", "thing.");
    let python_big = Project {
        name: "Python 300 files, ty".to_string(),
        root: python_big.path().to_path_buf(),
        _copy: Some(python_big),
        file: "p3/m15.py",
        symbol: json!({"file": "p3/m15.py", "symbol": "Thing15"}),
        function: json!({"file": "p3/m15.py", "symbol": "make15"}),
        completion,
        query: "Thing15",
        glob: "**/*.py",
        edit: ("class Thing15", "class  Thing15"),
        writes: true,
    };
    let c = common::fixture("c");
    let completion = after(c.root(), "cpp/main.cpp", "table.");
    let c = Project {
        name: "C/C++ fixture, clangd".to_string(),
        root: c.root().to_path_buf(),
        _copy: Some(keep(c)),
        file: "src/shapes.c",
        symbol: json!({"file": "include/shapes.h", "symbol": "circle"}),
        function: json!({"file": "src/report.c", "symbol": "total_area"}),
        completion,
        query: "circle_area",
        glob: "**/*.c",
        edit: ("double square_area", "double  square_area"),
        writes: true,
    };
    vec![tsgo, tsls, rust, ts_big, rust_big, python, python_big, c]
}

/// `program ARGS`' first line of output, or `?`.
fn version(program: &str, args: &[&str]) -> String {
    std::process::Command::new(program)
        .args(args)
        .output()
        .ok()
        .and_then(|out| {
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "?".to_string())
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "?".to_string());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let memory = status_like("/proc/meminfo", "MemTotal:")
        .map_or("?".to_string(), |mb| format!("{:.0} GiB", mb / 1024.0));
    format!("{cpu}, {cores} cores, {memory}")
}

fn status_like(path: &str, field: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    Some(line.split_whitespace().nth(1)?.parse::<f64>().ok()? / 1024.0)
}

/// The servers' versions, from the tools folder the test command fills.
fn server_versions() -> Vec<String> {
    let tools = sextant::lsp::config::Config::built_in().tools_dir;
    let package_version = |path: PathBuf| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|json| json["version"].as_str().map(str::to_string))
            .unwrap_or_else(|| "?".to_string())
    };
    vec![
        format!(
            "TypeScript 7 (native server) {}",
            package_version(tools.join("typescript-go/node_modules/typescript/package.json"))
        ),
        format!(
            "typescript-language-server {} with TypeScript {}",
            package_version(tools.join(
                "typescript-language-server/node_modules/typescript-language-server/package.json"
            )),
            package_version(
                tools.join("typescript-language-server/node_modules/typescript/package.json")
            )
        ),
        version("rust-analyzer", &["--version"]),
        version(
            &tools.join("ty/bin/ty").display().to_string(),
            &["--version"],
        ),
        version(
            &tools
                .join("clangd/clangd/data/bin/clangd")
                .display()
                .to_string(),
            &["--version"],
        ),
        version("rustc", &["--version"]),
        version("rg", &["--version"]),
    ]
}

fn verdict(ok: bool) -> &'static str {
    if ok { "met" } else { "MISSED" }
}

/// The allocator of sextant's binary (see `src/main.rs`): sextant's code
/// run here is measured as it ships.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[tokio::main]
async fn main() {
    let corpora = corpora_asked();
    if !corpora.is_empty() {
        return measure_corpora(corpora).await;
    }
    let started = Instant::now();
    let mut out = String::new();
    let date = version("date", &["-u", "+%Y-%m-%d %H:%M UTC"]);
    writeln!(out, "# Benchmarks\n").unwrap();
    writeln!(
        out,
        "Measured by `bash scripts/bench.sh` (which runs `cargo bench --bench table`; \
         see `benches/table.rs` for how each figure is taken) on {date}.\n"
    )
    .unwrap();
    writeln!(out, "- Machine: {}", machine()).unwrap();
    for line in server_versions() {
        writeln!(out, "- {line}").unwrap();
    }
    writeln!(
        out,
        "- Each tool: one warm-up call, then {ROUNDS} calls over MCP (stdio) to the release binary; \
         median and p95 from client to answer. Raw: the same LSP requests from the bench's own client \
         to its own warm server. Overhead: median less raw median (MCP included; completion's includes \
         its resolves). Own: the median of each call's time from client to answer less the time \
         sextant's log says the call waited on its server (from a request's writing to its answer \
         decoded, requests out at once counted once): the raw round trip of the very requests it \
         made, on the same server. sextant CPU: the run time of its threads during the calls, per call \
         (steadier than the wall times where a server's own pauses swing them). Tokens: bytes / 4.\n"
    )
    .unwrap();

    // tools/list.
    let fixture = common::fixture("ts");
    let client = common::mcp::start(fixture.root(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let listed = serde_json::to_string(&tools).unwrap().len();
    client.cancel().await.ok();
    drop(fixture);

    let mut rows = Vec::new();
    let mut memory = Vec::new();
    for project in projects() {
        eprintln!("measuring {} ...", project.name);
        memory.push(measure(&project, &mut rows).await);
    }

    writeln!(out, "## Tools\n").unwrap();
    let read_only_overheads = tools_table(&mut out, &rows);

    writeln!(out, "\n## Memory (peak resident, MB)\n").unwrap();
    memory_table(&mut out, &memory);

    writeln!(out, "\n## Cold start (spawn to first answer, ms)\n").unwrap();
    writeln!(
        out,
        "A fresh copy of each fixture; `search` asks its server, which starts (and indexes) first; with no server it answers from tree-sitter.\n"
    )
    .unwrap();
    let empty = tempfile::tempdir().unwrap();
    writeln!(
        out,
        "| fixture | first call | servers installed | no server |"
    )
    .unwrap();
    writeln!(out, "|---|---|---:|---:|").unwrap();
    for (fixture, tool, args) in [
        ("ts", "read", json!({"file": "src/shapes.ts"})),
        ("ts", "search", json!({"query": "Circle"})),
        ("python", "search", json!({"query": "Circle"})),
        ("c", "search", json!({"query": "circle_area"})),
    ] {
        let with = cold_start(fixture, tool, args.clone(), None).await;
        let without = cold_start(fixture, tool, args, Some(empty.path())).await;
        writeln!(
            out,
            "| {fixture} | {tool} | {} | {} |",
            ms(with),
            ms(without)
        )
        .unwrap();
    }

    writeln!(out, "\n## grep against rg (cargo registry sources)\n").unwrap();
    let grep_ratio = grep_table(&mut out);

    let sextant_rss = memory
        .iter()
        .filter(|m| m.project.contains("fixture"))
        .map(|m| m.sextant_peak)
        .fold(0.0, f64::max);
    // Per tool, the median of its overheads over the projects; and the
    // single rows above 1 ms, named.
    let per_tool: Vec<(&str, f64)> = [
        "search",
        "inspect",
        "references",
        "call_hierarchy",
        "rename",
        "diagnostics",
    ]
    .into_iter()
    .map(|tool| {
        let mut overheads: Vec<f64> = read_only_overheads
            .iter()
            .filter(|o| o.row.ends_with(&format!(", {tool}")))
            .filter_map(|o| o.over_raw)
            .collect();
        overheads.sort_by(f64::total_cmp);
        (
            tool,
            overheads.get(overheads.len() / 2).copied().unwrap_or(0.0),
        )
    })
    .collect();
    let medians = per_tool
        .iter()
        .map(|(tool, o)| format!("{tool} {o:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    let above: Vec<String> = read_only_overheads
        .iter()
        .filter_map(|o| Some((&o.row, o.over_raw?)))
        .filter(|(_, over_raw)| *over_raw >= 1.0)
        .map(|(row, over_raw)| format!("{row} {over_raw:.2}"))
        .collect();
    let above = match above.is_empty() {
        true => "none".to_string(),
        false => above.join("; "),
    };
    writeln!(out, "\n## Targets\n").unwrap();
    writeln!(out, "| target | measured | |").unwrap();
    writeln!(out, "|---|---:|---|").unwrap();
    writeln!(
        out,
        "| tools/list at most 8 KB | {listed} bytes ({} tokens) | {} |",
        listed.div_ceil(4),
        verdict(listed <= 8 * 1024)
    )
    .unwrap();
    writeln!(
        out,
        "| sextant's own RSS under 40 MB on the fixtures | {sextant_rss:.1} MB | {} |",
        verdict(sextant_rss < 40.0)
    )
    .unwrap();
    writeln!(
        out,
        "| overhead under 1 ms median for read-only LSP requests (each tool's median over the {} projects, ms) | {medians}; single rows at 1 ms or more: {above} | {} |",
        memory.len(),
        verdict(per_tool.iter().all(|(_, o)| *o < 1.0))
    )
    .unwrap();
    match grep_ratio {
        Some(ratio) => writeln!(
            out,
            "| grep at most 1.2x rg | worst {ratio:.2}x | {} |",
            verdict(ratio <= 1.2)
        )
        .unwrap(),
        None => writeln!(out, "| grep at most 1.2x rg | not measured (no rg) | |").unwrap(),
    }
    writeln!(
        out,
        "\nThe whole run took {:.0} s.",
        started.elapsed().as_secs_f64()
    )
    .unwrap();

    println!("{out}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
    // The sections other benches write are theirs: kept as they were.
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    out = section::keep_owned(&existing, &out);
    match std::fs::write(&path, &out) {
        Ok(()) => eprintln!("written to {}", path.display()),
        Err(err) => eprintln!("cannot write {}: {err}", path.display()),
    }
}

/// A read-only LSP tool's overheads, named `project, tool`: over the raw
/// requests to the bench's own server (not completion's, whose time holds
/// resolves the raw list does not ask), and over its own waits on
/// sextant's server (where sextant's log gave them).
struct Overhead {
    row: String,
    over_raw: Option<f64>,
    own: Option<f64>,
}

/// The rows as a Markdown table; each read-only LSP tool's overheads.
fn tools_table(out: &mut String, rows: &[Row]) -> Vec<Overhead> {
    writeln!(
        out,
        "| project | tool | median ms | p95 ms | raw LSP ms | overhead ms | own ms | sextant CPU ms | bytes | tokens |"
    )
    .unwrap();
    writeln!(out, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|").unwrap();
    let mut read_only_overheads = Vec::new();
    for row in rows {
        let (raw, overhead) = match row.raw {
            Some(raw) => {
                let overhead = row.median.as_secs_f64() * 1000.0 - raw.as_secs_f64() * 1000.0;
                read_only_overheads.push(Overhead {
                    row: format!("{}, {}", row.project, row.tool),
                    over_raw: (row.tool != "completion").then_some(overhead),
                    own: row.own.map(|own| own.as_secs_f64() * 1000.0),
                });
                (ms(raw), format!("{overhead:.2}"))
            }
            None => ("".to_string(), "".to_string()),
        };
        let error = if row.error { " (error)" } else { "" };
        writeln!(
            out,
            "| {} | {}{error} | {} | {} | {raw} | {overhead} | {} | {} | {} | {} |",
            row.project,
            row.tool,
            ms(row.median),
            ms(row.p95),
            row.own.map(ms).unwrap_or_default(),
            row.cpu.map(ms).unwrap_or_default(),
            row.bytes,
            row.bytes.div_ceil(4)
        )
        .unwrap();
    }
    read_only_overheads
}

fn memory_table(out: &mut String, memory: &[Memory]) {
    writeln!(out, "| project | sextant | sextant and its servers |").unwrap();
    writeln!(out, "|---|---:|---:|").unwrap();
    for m in memory {
        writeln!(
            out,
            "| {} | {:.1} | {:.1} |",
            m.project, m.sextant_peak, m.tree_peak
        )
        .unwrap();
    }
}

/// `--corpus NAME=DIR` given: every tool on those real projects only,
/// written to BENCHMARKS.md as its own section.
async fn measure_corpora(corpora: Vec<Project>) {
    let started = Instant::now();
    let mut rows = Vec::new();
    let mut memory = Vec::new();
    for project in &corpora {
        eprintln!("measuring {} ...", project.name);
        memory.push(measure(project, &mut rows).await);
    }
    let mut out = String::new();
    writeln!(out, "{}\n", section::REAL_PROJECTS).unwrap();
    writeln!(
        out,
        "Real projects fetched and measured where they are (`cargo bench --bench table -- --corpus NAME=DIR`, \
         NAME one of {}; {}), release binary, on {}. As in the table above; the tools that write are not \
         run. Target: each read-only LSP tool within 1 ms of the raw round trip of its requests (own ms; \
         completion's resolves are among its waits).\n",
        CORPORA.join(", "),
        corpora
            .iter()
            .map(|c| format!("{} at {}", c.name, c.root.display()))
            .collect::<Vec<_>>()
            .join(", "),
        version("date", &["-u", "+%Y-%m-%d %H:%M UTC"])
    )
    .unwrap();
    let overheads = tools_table(&mut out, &rows);
    writeln!(out).unwrap();
    memory_table(&mut out, &memory);
    // Judged on each call less its own waits: the raw round trip of the
    // very requests it made, on the same server at the same moment. Over
    // a second server (the overhead column) a monorepo's pauses swing
    // either side by more than the target.
    let above: Vec<String> = overheads
        .iter()
        .filter_map(|o| match o.own {
            Some(own) if own < 1.0 => None,
            Some(own) => Some(format!("{} {own:.2}", o.row)),
            None => Some(format!("{} (its waits not logged)", o.row)),
        })
        .collect();
    writeln!(
        out,
        "\nWithin 1 ms of the raw round trip of its own requests (own ms): {} ({}). The run took {:.0} s.",
        verdict(above.is_empty()),
        match above.is_empty() {
            true => "every read-only LSP tool".to_string(),
            false => format!("above: {}", above.join("; ")),
        },
        started.elapsed().as_secs_f64()
    )
    .unwrap();
    println!("{out}");
    section::write(section::REAL_PROJECTS, &out);
}

/// `grep_vs_rg`'s cases, 5 runs each: the table rows, and the worst ratio.
fn grep_table(out: &mut String) -> Option<f64> {
    let Some(rg) = grep_vs_rg::rg_version() else {
        writeln!(
            out,
            "rg is not installed; `bash scripts/bench.sh` installs it."
        )
        .unwrap();
        return None;
    };
    let tree = match grep_vs_rg::bench_tree() {
        Ok(tree) => tree,
        Err(message) => {
            writeln!(out, "{message}").unwrap();
            return None;
        }
    };
    writeln!(
        out,
        "{rg}; each: one warm-up, then the median of 5 whole runs (process start to exit).\n"
    )
    .unwrap();
    writeln!(out, "| case | mode | sextant ms | rg ms | sextant/rg |").unwrap();
    writeln!(out, "|---|---|---:|---:|---:|").unwrap();
    let mut worst: f64 = 0.0;
    for &(name, pattern) in grep_vs_rg::CASES {
        for mode in grep_vs_rg::Mode::ALL {
            let (ours, theirs) = grep_vs_rg::time_case(&tree, pattern, mode, 5);
            let ratio = ours.as_secs_f64() / theirs.as_secs_f64().max(1e-9);
            worst = worst.max(ratio);
            writeln!(
                out,
                "| {name} | {} | {} | {} | {ratio:.2}x |",
                mode.name(),
                ms(ours),
                ms(theirs)
            )
            .unwrap();
        }
    }
    Some(worst)
}
