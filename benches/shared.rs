//! The shared instance under load: N sessions (1, 5, 10) started at once
//! on one workspace through the release binary's relays, each making its
//! first call at once, as N agent sessions on one repository do. On a
//! generated Rust workspace (rust-analyzer) and a generated TypeScript
//! monorepo (TypeScript 7's server), 300 files each:
//! - the peak resident memory of the whole tree (the instance, its servers
//!   and the N relays; each process's peak, summed), and its ratio to one
//!   session's; summed resident memory counts the pages of the sextant
//!   binary every relay maps (about 9 MB, shared) once per relay, so the
//!   tree's proportional set size (each shared page divided among its
//!   users: what the tree adds to the machine) is shown beside it, taken
//!   once all N have answered;
//! - the language-server processes running (one per language is the
//!   point);
//! - a new session's spawn to first answer once the servers are warm;
//! - the relay's added latency per call: the median of a server-free call
//!   (`read_file` of a small file) through a relay, less its median in a
//!   `--no-shared` process.
//!
//! Printed, and written as the "Shared instance" section of BENCHMARKS.md
//! (the rest of the file is `table.rs`'s). Nothing here asserts a time.
//! Run with `bash scripts/bench.sh`, or `cargo bench --bench shared`.

#[path = "section.rs"]
mod section;

#[path = "../tests/common/mod.rs"]
mod common;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use common::mcp::{Client, call, start_shared, texts};
use serde_json::{Value, json};

const SEXTANT: &str = env!("CARGO_BIN_EXE_sextant");
const SESSIONS: [usize; 3] = [1, 5, 10];
/// Calls timed for the relay's overhead, each way.
const CALLS: usize = 200;
/// The section of BENCHMARKS.md this bench writes.
const SECTION: &str = "## Shared instance";

/// A workspace and its first call.
struct Workspace {
    name: &'static str,
    dir: tempfile::TempDir,
    first_call: (&'static str, Value),
    /// A small file for the overhead's calls.
    small_file: &'static str,
    /// The servers' process names, as the kernel keeps them.
    servers: &'static [&'static str],
}

/// One row of the table.
struct Row {
    workspace: &'static str,
    sessions: usize,
    tree_mb: f64,
    tree_pss_mb: f64,
    servers: usize,
    all_answered: Duration,
    warm_first_answer: Duration,
}

fn workspaces() -> Vec<Workspace> {
    let rust = tempfile::tempdir().unwrap();
    common::generate_rust_workspace(rust.path(), 4, 75);
    let ts = tempfile::tempdir().unwrap();
    common::generate_monorepo(ts.path(), 10, 30);
    vec![
        Workspace {
            name: "Rust 300 files",
            dir: rust,
            first_call: (
                "references",
                json!({"file": "c2/src/m15.rs", "symbol": "Thing15"}),
            ),
            small_file: "c0/src/m1.rs",
            servers: &["rust-analyzer"],
        },
        Workspace {
            name: "TS monorepo 300 files",
            dir: ts,
            first_call: (
                "references",
                json!({"file": "packages/p3/src/m15.ts", "symbol": "Thing15"}),
            ),
            small_file: "packages/p0/src/m1.ts",
            servers: &["tsc"],
        },
    ]
}

/// A process's peak resident memory, MB.
fn peak_mb(pid: u32) -> f64 {
    proc_mb(pid, "status", "VmHWM:")
}

/// A process's proportional set size now, MB.
fn pss_mb(pid: u32) -> f64 {
    proc_mb(pid, "smaps_rollup", "Pss:")
}

/// The kB figure of `/proc/PID/FILE`'s line starting with `field`, in MB
/// (0 for a process that is gone).
fn proc_mb(pid: u32, file: &str, field: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/{file}"))
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with(field))?;
            line.split_whitespace().nth(1)?.parse::<f64>().ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The instance serving `client`, from `logs`.
async fn instance_pid(client: &Client) -> u32 {
    let logs = texts(&call(client, "logs", json!({})).await).join("\n");
    logs.lines()
        .find_map(|line| line.strip_prefix("Shared instance: pid "))
        .and_then(|rest| rest.split(',').next())
        .and_then(|pid| pid.parse().ok())
        .unwrap_or_else(|| panic!("no shared instance in logs:\n{logs}"))
}

async fn timed_call(client: &Client, tool: &str, args: &Value) -> Duration {
    let started = Instant::now();
    let answer = call(client, tool, args.clone()).await;
    assert_ne!(answer.is_error, Some(true), "{:?}", texts(&answer));
    started.elapsed()
}

/// N sessions at once on `workspace`, then one more once warm.
async fn run(workspace: &Workspace, sessions: usize) -> Row {
    let place = common::mcp::meeting_place();
    let root = workspace.dir.path();
    let (tool, args) = &workspace.first_call;
    let started = Instant::now();
    let sessions_at_once = (0..sessions).map(|_| async {
        let (client, relay) = start_shared(root, place.path(), Some(Path::new(SEXTANT)), &[]).await;
        timed_call(&client, tool, args).await;
        (client, relay)
    });
    let clients = futures::future::join_all(sessions_at_once).await;
    let all_answered = started.elapsed();
    let instance = instance_pid(&clients[0].0).await;
    let warm_started = Instant::now();
    let (warm, warm_relay) = start_shared(root, place.path(), Some(Path::new(SEXTANT)), &[]).await;
    timed_call(&warm, tool, args).await;
    let warm_first_answer = warm_started.elapsed();
    let tree = common::descendants(instance);
    let servers = tree
        .iter()
        .filter(|(_, name)| workspace.servers.contains(&name.as_str()))
        .count();
    let pids: Vec<u32> = std::iter::once(instance)
        .chain(tree.iter().map(|(pid, _)| *pid))
        .chain(clients.iter().map(|(_, relay)| *relay))
        .chain([warm_relay])
        .collect();
    let tree_mb = pids.iter().map(|pid| peak_mb(*pid)).sum();
    let tree_pss_mb = pids.iter().map(|pid| pss_mb(*pid)).sum();
    warm.cancel().await.ok();
    for (client, _) in clients {
        client.cancel().await.ok();
    }
    common::process_gone(instance).await;
    Row {
        workspace: workspace.name,
        sessions,
        tree_mb,
        tree_pss_mb,
        servers,
        all_answered,
        warm_first_answer,
    }
}

/// The relay's added latency per call: medians of `read_file` through a
/// relay and in a `--no-shared` process.
async fn relay_overhead(workspace: &Workspace) -> (Duration, Duration) {
    let place = common::mcp::meeting_place();
    let root = workspace.dir.path();
    let args = json!({"path": workspace.small_file});
    let (relayed, _) = start_shared(root, place.path(), Some(Path::new(SEXTANT)), &[]).await;
    let mut command = tokio::process::Command::new(SEXTANT);
    command.args(["serve", "--no-shared", "--root"]).arg(root);
    let (transport, _) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let direct = rmcp::ServiceExt::serve((), transport).await.unwrap();
    let (mut through, mut alone) = (Vec::new(), Vec::new());
    // Alternated, so both see the same machine.
    for _ in 0..CALLS {
        through.push(timed_call(&relayed, "read_file", &args).await);
        alone.push(timed_call(&direct, "read_file", &args).await);
    }
    relayed.cancel().await.ok();
    direct.cancel().await.ok();
    (median(&mut through), median(&mut alone))
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() {
    let workspaces = workspaces();
    let mut rows = Vec::new();
    let mut overheads = Vec::new();
    for workspace in &workspaces {
        for sessions in SESSIONS {
            let row = run(workspace, sessions).await;
            eprintln!(
                "{} x{}: {:.0} MB, {} server(s)",
                row.workspace, row.sessions, row.tree_mb, row.servers
            );
            rows.push(row);
        }
        overheads.push((workspace.name, relay_overhead(workspace).await));
    }
    let mut out = format!("{SECTION}\n\n");
    writeln!(
        out,
        "N sessions started at once on one workspace, each making its first call at once (`cargo bench --bench shared`, release build). Tree: the instance, its servers and the relays (N, and one more started once warm). Peak RSS: each process's peak resident memory, summed, which counts the sextant binary's shared pages (about 9 MB) once per relay; PSS: each process's proportional set size once all have answered (shared pages divided among their users), what the tree takes from the machine.\n"
    )
    .unwrap();
    writeln!(
        out,
        "| workspace | sessions | tree peak RSS MB | x one session | tree PSS MB | x one session | server processes | all N answered ms | new session, warm: spawn to first answer ms |"
    )
    .unwrap();
    writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|").unwrap();
    for row in &rows {
        let one = rows
            .iter()
            .find(|r| r.workspace == row.workspace && r.sessions == 1)
            .unwrap_or(row);
        writeln!(
            out,
            "| {} | {} | {:.0} | {:.2} | {:.0} | {:.2} | {} | {} | {} |",
            row.workspace,
            row.sessions,
            row.tree_mb,
            row.tree_mb / one.tree_mb,
            row.tree_pss_mb,
            row.tree_pss_mb / one.tree_pss_mb,
            row.servers,
            ms(row.all_answered),
            ms(row.warm_first_answer)
        )
        .unwrap();
    }
    writeln!(
        out,
        "\nThe relay's added latency: `read_file` of a small file, median of {CALLS} calls each way, alternated.\n"
    )
    .unwrap();
    writeln!(
        out,
        "| workspace | through a relay ms | alone ms | overhead ms |"
    )
    .unwrap();
    writeln!(out, "|---|---:|---:|---:|").unwrap();
    for (name, (through, alone)) in &overheads {
        writeln!(
            out,
            "| {name} | {} | {} | {:.2} |",
            ms(*through),
            ms(*alone),
            (through.as_secs_f64() - alone.as_secs_f64()) * 1000.0
        )
        .unwrap();
    }
    println!("{out}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("BENCHMARKS.md");
    let existing = std::fs::read_to_string(&path).unwrap_or_default();
    std::fs::write(&path, section::replace(&existing, SECTION, &out)).unwrap();
}
